"""Array namespaces: numpy on CPU, CuPy on GPU. Primitive impls are written against `xp`.

Host<->device copies happen only where a user asks for host values (`asnumpy`, printing),
and where a compiled program is built (graph constants live on the host until then).
"""
import math
import os

import numpy as np

from . import cache_dir

_xp = np
current_xp = np  # read directly on the eager hot path (a function call costs as much as an op)
_scalars = {}    # (type, value, sign, dtype) -> 0-d array on the device (see `scalar`)
_SCALARS_KEPT = 4096


def select(device_target):
    """Switch the array namespace for new tensors and eager ops."""
    global _xp, current_xp
    _scalars.clear()
    if device_target == "CPU":
        _xp = current_xp = np
        return
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device found")
    except Exception as e:  # ImportError, or CUDA present but no usable device
        raise RuntimeError(
            "device_target='GPU' needs CuPy and an NVIDIA GPU "
            f"(pip install 'minispore[gpu]'); CuPy reported: {type(e).__name__}: {e}") from None
    _xp = current_xp = cupy
    # CuPy reads this when it compiles: fused CUDA kernels are cached beside the numba ones
    os.environ.setdefault("CUPY_CACHE_DIR", os.path.join(cache_dir.path(), "cupy"))


def xp():
    """The array namespace of the current device."""
    return _xp


def namespace_of(array):
    """numpy or cupy, whichever owns `array`."""
    return np if isinstance(array, (np.ndarray, np.generic)) else _xp


def to_device(array):
    """`array` in the current namespace (an upload on GPU; no copy when already there)."""
    return _xp.asarray(array)


def scalar(value, dtype):
    """A Python number as a 0-d array of `dtype` on the current device.

    On GPU each distinct number is uploaded once and then shared, so eager ops with Python
    operands (`x * 0.5`) copy nothing to the device per call. Impls never write to their
    inputs, so sharing is safe."""
    if _xp is np:
        return np.asarray(value, dtype=dtype)
    sign = math.copysign(1.0, value) if type(value) is float else 0.0  # -0.0 is not 0.0
    key = (type(value), value, sign, dtype)
    array = _scalars.get(key)
    if array is None:
        if len(_scalars) >= _SCALARS_KEPT:  # bounded: a nan key never matches itself
            _scalars.clear()
        array = _scalars[key] = _xp.asarray(value, dtype=dtype)
    return array


def to_host(array):
    """A numpy array with the same values (a no-op on CPU)."""
    if isinstance(array, np.ndarray):
        return array
    get = getattr(array, "get", None)
    return get() if get is not None else np.asarray(array)


def synchronize() -> None:
    """Wait until the device has finished the work queued on it (MindSpore's
    `ms.synchronize`): on the GPU, CuPy's current stream; the CPU runs each op to its end."""
    if _xp is not np:
        _xp.cuda.get_current_stream().synchronize()
