"""minispore.dataset.transforms: operations on any column (MindSpore's dataset.transforms).

    >>> import numpy as np
    >>> import minispore as ms
    >>> from minispore.dataset import transforms
    >>> transforms.Compose([transforms.TypeCast(ms.int32), transforms.OneHot(3)])(
    ...     np.array([0.0, 2.0])).tolist()
    [[1, 0, 0], [0, 0, 1]]
"""
from .base import TensorOperation  # noqa: F401
from .compose import Compose, RandomApply, RandomChoice, RandomOrder  # noqa: F401
from .tensor_ops import (  # noqa: F401
    Concatenate,
    Duplicate,
    Fill,
    Mask,
    OneHot,
    PadEnd,
    Relational,
    Slice,
    TypeCast,
    Unique,
)

__all__ = ["Compose", "Concatenate", "Duplicate", "Fill", "Mask", "OneHot", "PadEnd",
           "RandomApply", "RandomChoice", "RandomOrder", "Relational", "Slice",
           "TensorOperation", "TypeCast", "Unique", "not_random"]


def not_random(function):
    """Mark a Python function as deterministic (MindSpore uses the mark for caching)."""
    function.random = False
    return function
