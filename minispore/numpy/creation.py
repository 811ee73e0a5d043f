"""minispore.numpy: array creation (Float32 by default, as MindSpore's mnp) and grids."""
import numpy as np

from ..core.dtype import to_np
from ..core.tensor import Tensor
from ..ops import functional as F
from ..ops.arguments import as_tensor

__all__ = ["array", "asarray", "asfarray", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "eye", "identity", "arange", "linspace",
           "logspace", "geomspace", "tri", "tril_indices", "triu_indices", "tril_indices_from",
           "triu_indices_from", "diag_indices", "indices", "meshgrid", "mgrid", "ogrid", "ix_",
           "rand", "randn", "randint", "hamming", "hanning", "bartlett", "blackman"]


def _dtype(dtype, default=np.float32):
    return to_np(dtype) if dtype is not None else default


def array(obj, dtype=None, copy=True, ndmin=0):
    """A Tensor of obj (a copy); at least ndmin axes."""
    t = Tensor(obj, dtype) if not isinstance(obj, Tensor) or dtype is not None or copy else obj
    if isinstance(obj, Tensor) and copy and dtype is None:
        t = F.identity(obj)
    return F.reshape(t, (1,) * (ndmin - t.ndim) + t.shape) if t.ndim < ndmin else t


def asarray(a, dtype=None):
    return a if isinstance(a, Tensor) and dtype is None else Tensor(a, dtype)


def asfarray(a, dtype=None):
    t = as_tensor(a)
    return F.cast(t, _dtype(dtype)) if dtype is not None or not t.dtype.is_float else t


def zeros(shape, dtype=None):
    return F.zeros(shape, _dtype(dtype))


def ones(shape, dtype=None):
    return F.ones(shape, _dtype(dtype))


def empty(shape, dtype=None):
    """An uninitialised tensor: here, zeros."""
    return F.zeros(shape, _dtype(dtype))


def full(shape, fill_value, dtype=None):
    if dtype is None and isinstance(fill_value, (bool, int)):
        dtype = np.bool_ if isinstance(fill_value, bool) else np.int32
    return F.full(shape, fill_value, _dtype(dtype))


def zeros_like(a, dtype=None):
    return F.zeros_like(as_tensor(a), dtype)


def ones_like(a, dtype=None):
    return F.ones_like(as_tensor(a), dtype)


empty_like = zeros_like


def full_like(a, fill_value, dtype=None):
    return F.full_like(a, fill_value, dtype=dtype)


def eye(N, M=None, k=0, dtype=None):
    return Tensor(np.eye(N, M, k, dtype=_dtype(dtype)))


def identity(n, dtype=None):
    return eye(n, dtype=dtype)


def arange(start, stop=None, step=None, dtype=None):
    return F.arange(start, stop, 1 if step is None else step, dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    values = np.linspace(start, stop, num, endpoint, retstep, _dtype(dtype), axis)
    if retstep:
        return Tensor(values[0]), values[1]
    return Tensor(values)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return Tensor(np.logspace(start, stop, num, endpoint, base, _dtype(dtype), axis))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    return Tensor(np.geomspace(start, stop, num, endpoint, _dtype(dtype), axis))


def tri(N, M=None, k=0, dtype=None):
    return Tensor(np.tri(N, M, k, _dtype(dtype)))


def tril_indices(n, k=0, m=None):
    return tuple(Tensor(i.astype(np.int32)) for i in np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    return tuple(Tensor(i.astype(np.int32)) for i in np.triu_indices(n, k, m))


def tril_indices_from(arr, k=0):
    return tril_indices(arr.shape[-2], k, arr.shape[-1])


def triu_indices_from(arr, k=0):
    return triu_indices(arr.shape[-2], k, arr.shape[-1])


def diag_indices(n, ndim=2):
    return (Tensor(np.arange(n, dtype=np.int32)),) * ndim


def indices(dimensions, dtype=None, sparse=False):
    grids = np.indices(dimensions, _dtype(dtype, np.int32), sparse)
    return tuple(Tensor(g) for g in grids) if sparse else Tensor(grids)


def meshgrid(*xi, sparse=False, indexing="xy"):
    grids = F.meshgrid(*xi, indexing=indexing)
    return list(grids)


class _IndexGrid:
    """mnp.mgrid / mnp.ogrid: numpy's index tricks, returning Tensors."""

    def __init__(self, grid):
        self._grid = grid

    def __getitem__(self, key):
        out = self._grid[key]
        return [Tensor(a) for a in out] if isinstance(out, (list, tuple)) else Tensor(out)


mgrid, ogrid = _IndexGrid(np.mgrid), _IndexGrid(np.ogrid)


def ix_(*args):
    return tuple(Tensor(a) for a in np.ix_(*(np.asarray(as_tensor(x).asnumpy()) for x in args)))


def rand(*shape, dtype=None):
    return F.rand(*shape, dtype=dtype)


def randn(*shape, dtype=None):
    return F.randn(*shape, dtype=dtype)


def randint(minval, maxval=None, shape=None, dtype=None):
    if maxval is None:
        minval, maxval = 0, minval
    return F.randint(minval, maxval, () if shape is None else shape,
                     dtype=_dtype(dtype, np.int32))


def _window(fn):
    def window(M):
        return Tensor(fn(M).astype(np.float32))
    window.__name__ = fn.__name__
    window.__doc__ = f"numpy's {fn.__name__} window of M points, Float32."
    return window


hamming, hanning, bartlett, blackman = (_window(f) for f in (np.hamming, np.hanning,
                                                              np.bartlett, np.blackman))
