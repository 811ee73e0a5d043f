"""Tensors from other libraries' arrays without a copy, by DLPack.

    >>> import torch, minispore as ms
    >>> t = torch.arange(4.0)
    >>> x = ms.from_dlpack(t)          # shares t's memory
    >>> back = torch.from_dlpack(x)    # and back, still the same memory

Host (CPU) arrays arrive as numpy arrays, CUDA ones as CuPy arrays (when CuPy is installed);
both share the producer's buffer, so a write through one is seen by the other, as with
`torch.from_dlpack`. The caller keeps the producer alive for as long as the data is used.
"""
from typing import Any

import numpy as np

from .dtype import from_np
from .tensor import Tensor

# DLPack's device types (dlpack.h: DLDeviceType)
_CPU, _CUDA, _CUDA_HOST = 1, 2, 3


def from_dlpack(array: Any) -> Tensor:  # any object with __dlpack__
    """A Tensor sharing the memory of any object with `__dlpack__` (numpy, PyTorch, JAX, CuPy).

        >>> ms.from_dlpack(np.arange(3.0)).asnumpy()
        array([0., 1., 2.])
    """
    if isinstance(array, Tensor):
        return array
    if not hasattr(array, "__dlpack__"):
        raise TypeError(f"from_dlpack: expects an object with __dlpack__ (numpy, torch, jax, "
                        f"cupy arrays), got {type(array).__name__}")
    kind, _ = array.__dlpack_device__()
    if kind in (_CPU, _CUDA_HOST):
        data = np.from_dlpack(array)
    elif kind == _CUDA:
        import cupy  # only CUDA producers need it
        data = cupy.from_dlpack(array)
    else:
        raise TypeError(f"from_dlpack: arrays on DLPack device type {kind} are not supported "
                        f"(CPU and CUDA are)")
    from_np(data.dtype)  # refuses dtypes minispore does not support
    return Tensor._wrap(data)
