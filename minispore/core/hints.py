"""Type aliases of the public API's hints (`TensorLike`, `Axis`, ...), shared by every layer.

    >>> from minispore.core.hints import TensorLike
    >>> def double(x: TensorLike) -> "Tensor": ...
"""
from typing import Any, Sequence, Union

import numpy as np

from .dtype import Type
from .tensor import Tensor

__all__ = ["Axis", "DTypeLike", "Scalar", "ShapeLike", "Tensor", "TensorLike"]

#: a Python number
Scalar = Union[bool, int, float]
#: what an op accepts as a tensor operand: a Tensor, a numpy array or scalar, a Python number
#: (nested lists too, as `Tensor(...)` takes them)
TensorLike = Union[Tensor, np.ndarray, np.generic, bool, int, float, Sequence[Any]]
#: one axis or several (negative counts from the end)
Axis = Union[int, Sequence[int]]
#: a shape or a per-dimension size: one int for every dimension, or one per dimension
ShapeLike = Union[int, Sequence[int]]
#: a minispore dtype (``ms.float32``), a numpy dtype or type, or its name
DTypeLike = Union[Type, np.dtype, type, str]
