"""MindSpore 2.x's top-level tensor helpers: `ms.tensor`, `ms.from_numpy`, `ms.is_tensor`.

    >>> import numpy as np, minispore as ms
    >>> ms.tensor([1.0, 2.0]).dtype, ms.is_tensor(ms.from_numpy(np.ones(2)))
    (Float32, True)
"""
from typing import Any, Optional, Sequence

import numpy as np

from .tensor import Tensor


def tensor(input_data: Any = None, dtype: Any = None, shape: Optional[Sequence[int]] = None,
           init: Any = None) -> Tensor:
    """A new Tensor, as `ms.Tensor(input_data, dtype, shape, init)` makes it (a copy of the
    data: `from_numpy` shares an array's memory).

        >>> ms.tensor([[1, 2]], ms.float32).shape
        (1, 2)
    """
    return Tensor(input_data, dtype=dtype, shape=shape, init=init)


def from_numpy(array: np.ndarray) -> Tensor:
    """A Tensor sharing the numpy array's memory (see `Tensor.from_numpy`).

        >>> a = np.zeros(2, np.float32); t = ms.from_numpy(a); a[0] = 5
        >>> float(t[0])
        5.0
    """
    return Tensor.from_numpy(array)


def is_tensor(obj: Any) -> bool:
    """Whether `obj` is a minispore Tensor (a Parameter is one).

        >>> ms.is_tensor(ms.tensor(1.0)), ms.is_tensor(1.0)
        (True, False)
    """
    return isinstance(obj, Tensor)
