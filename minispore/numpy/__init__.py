"""minispore.numpy: MindSpore's numpy-like namespace (`import mindspore.numpy as mnp`) over
Tensors, in both modes: each function is numpy's signature on top of `minispore.ops`.

    >>> import minispore.numpy as mnp
    >>> mnp.concatenate((mnp.ones((2, 2)), mnp.zeros((1, 2)))).shape
    (3, 2)

Creation functions default to Float32 (MindSpore's mnp does, where numpy says Float64).
"""
import builtins

import numpy as _np

from .. import ops as _ops
from ..core.dtype import (  # noqa: F401
    bool_,
    float16,
    float32,
    float64,
    from_np,
    int8,
    int16,
    int32,
    int64,
    promote_np,
    to_np,
    uint8,
)
from ..core.tensor import Tensor
from ..ops import functional as F
from ..ops.arguments import as_tensor
from .creation import *  # noqa: F401,F403
from .sets import *  # noqa: F401,F403

float_, int_ = float32, int32

_SAME = """
    absolute arccos arccosh arcsin arcsinh arctan arctan2 arctanh atleast_1d atleast_2d
    atleast_3d bitwise_and bitwise_or bitwise_xor broadcast_to ceil column_stack copysign cos
    cosh cross deg2rad diagflat dsplit dstack equal exp exp2 expm1 fix flip fliplr flipud
    float_power floor floor_divide fmod gcd greater greater_equal heaviside hsplit hstack hypot
    inner isclose isfinite isinf isnan isneginf isposinf kron lcm less less_equal log log10
    log1p log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor matmul
    maximum minimum moveaxis multiply negative not_equal outer positive rad2deg ravel
    reciprocal remainder rot90 sign signbit sin sinh sqrt square subtract swapaxes tan tanh
    tensordot tile tril triu true_divide trunc vsplit vstack vander trapz ptp
""".split()
globals().update({name: getattr(_ops, name) for name in _SAME})

abs = fabs = F.abs
add = F.add
divide = F.div
power = F.pow
mod = F.remainder
invert = bitwise_not = F.bitwise_not
radians = _ops.deg2rad
rint = F.round
expand_dims = F.expand_dims


def cbrt(x):
    """The real cube root (negative for negative x)."""
    x = as_tensor(x)
    return F.mul(F.sign(x), F.pow(F.abs(x), 1.0 / 3.0))


def divmod(x1, x2):
    return F.floor_divide(x1, x2), F.remainder(x1, x2)


def clip(a, a_min, a_max):
    return F.clip(a, a_min, a_max)


# ***** reductions (numpy's axis / keepdims) *****

def sum(a, axis=None, dtype=None, keepdims=False, initial=None):
    out = F.sum(a, axis, keepdims, dtype=dtype)
    return out if initial is None else F.add(out, initial)


def mean(a, axis=None, keepdims=False, dtype=None):
    return F.mean(a, axis, keepdims, dtype=dtype)


def amax(a, axis=None, keepdims=False, initial=None, where=None):
    out = F.amax(a, axis, keepdims)
    return out if initial is None else F.maximum(out, initial)


def amin(a, axis=None, keepdims=False, initial=None, where=None):
    out = F.amin(a, axis, keepdims)
    return out if initial is None else F.minimum(out, initial)


max, min = amax, amin


def argmax(a, axis=None):
    return F.argmax(a, axis)


def argmin(a, axis=None):
    return F.argmin(a, axis)


def std(x, axis=None, ddof=0, keepdims=False):
    return F.std(x, axis, ddof, keepdims)


def var(x, axis=None, ddof=0, keepdims=False):
    return F.var(x, axis, ddof, keepdims)


def _nan_to(a, value):
    a = as_tensor(a)
    return F.where(F.isnan(a), F.full((), value, a.dtype), a) if a.dtype.is_float else a


def nansum(a, axis=None, dtype=None, keepdims=False):
    return F.nansum(a, axis, keepdims, dtype=dtype)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    return F.nanmean(a, axis, keepdims, dtype=dtype)


def nanmax(a, axis=None, keepdims=False):
    return F.amax(_nan_to(a, -_np.inf), axis, keepdims)


def nanmin(a, axis=None, keepdims=False):
    return F.amin(_nan_to(a, _np.inf), axis, keepdims)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    a = as_tensor(a)
    valid = F.logical_not(F.isnan(a))
    count = F.sum(F.cast(valid, a.dtype), axis, True)
    centered = F.where(valid, F.sub(a, F.div(F.nansum(a, axis, True), count)), 0.0)
    out = F.div(F.sum(F.mul(centered, centered), axis, keepdims),
                F.sub(F.sum(F.cast(valid, a.dtype), axis, keepdims), ddof))
    return out if dtype is None else F.cast(out, dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    return F.sqrt(nanvar(a, axis, dtype, ddof, keepdims))


def nancumsum(a, axis=None, dtype=None):
    return cumsum(_nan_to(a, 0), axis, dtype)


def cumsum(a, axis=None, dtype=None):
    a = as_tensor(a)
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    return F.cumsum(a, axis, dtype)


def cumprod(a, axis=None, dtype=None):
    a = as_tensor(a)
    if axis is None:
        a, axis = F.reshape(a, (-1,)), 0
    return F.cumprod(a, axis, dtype)


def average(x, axis=None, weights=None, returned=False):
    """The (weighted) mean over `axis`; with returned, also the sum of the weights."""
    x = as_tensor(x)
    if weights is None:
        out, total = F.mean(x, axis), F.full((), x.size // F.mean(x, axis).size, x.dtype)
    else:
        w = as_tensor(weights)
        if w.ndim == 1 and x.ndim > 1 and axis is not None:
            shape = [1] * x.ndim
            shape[axis] = w.shape[0]
            w = F.reshape(w, shape)
        total = F.sum(F.broadcast_to(w, x.shape), axis)
        out = F.div(F.sum(F.mul(x, w), axis), total)
    return (out, total) if returned else out


def count_nonzero(x, axis=None, keepdims=False):
    return F.count_nonzero(x, () if axis is None else axis, keepdims)


def sometrue(a, axis=None, keepdims=False):
    return F.any(a, axis, keepdims)


def norm(x, ord=None, axis=None, keepdims=False):
    return F.norm(x, ord, axis, keepdims)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    out = F.sum(F.diagonal(a, offset, axis1, axis2), -1)
    return out if dtype is None else F.cast(out, dtype)


def diagonal(a, offset=0, axis1=0, axis2=1):
    return F.diagonal(a, offset, axis1, axis2)


def diag(v, k=0):
    """The k-th diagonal of a matrix, or a matrix with the vector v on it."""
    v = as_tensor(v)
    return F.diag_embed(v, k) if v.ndim == 1 else F.diagonal(v, k)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    return F.diff(a, n, axis, prepend, append)


def ediff1d(ary, to_end=None, to_begin=None):
    return F.diff(F.reshape(ary, (-1,)), 1, 0, to_begin, to_end)


# ***** shapes and joining *****

def reshape(x, new_shape):
    return F.reshape(x, new_shape)


def squeeze(a, axis=None):
    return F.squeeze(a, axis)


def transpose(a, axes=None):
    a = as_tensor(a)
    return F.transpose(a, tuple(range(a.ndim))[::-1] if axes is None else axes)


def rollaxis(x, axis, start=0):
    x = as_tensor(x)
    axis, start = axis % x.ndim, start % (x.ndim + 1)
    return F.movedim(x, axis, start - 1 if start > axis else start)


def roll(a, shift, axis=None):
    return F.roll(a, shift, axis)


def concatenate(arrays, axis=0):
    if axis is None:
        return F.concat([F.reshape(a, (-1,)) for a in arrays], 0)
    return F.concat(list(arrays), axis)


def append(arr, values, axis=None):
    if axis is None:
        return concatenate((arr, values), None)
    return F.concat([arr, values], axis)


def stack(arrays, axis=0):
    return F.stack(list(arrays), axis)


def split(x, indices_or_sections, axis=0):
    """Equal sections (which must divide the axis) or cuts at the given indices."""
    x = as_tensor(x)
    if isinstance(indices_or_sections, int) and x.shape[axis] % indices_or_sections:
        raise ValueError("mnp.split: the sections do not divide the axis equally")
    return list(F.tensor_split(x, indices_or_sections, axis))


def array_split(x, indices_or_sections, axis=0):
    return list(F.tensor_split(x, indices_or_sections, axis))


def repeat(a, repeats, axis=None):
    return F.repeat_interleave(a, repeats, axis)


def broadcast_arrays(*args):
    shape = _np.broadcast_shapes(*(as_tensor(a).shape for a in args))
    return [F.broadcast_to(as_tensor(a), shape) for a in args]


def pad(arr, pad_width, mode="constant", constant_values=0):
    """Constant padding with numpy's pad_width (an int, a pair, or a pair per axis)."""
    if mode != "constant":
        raise NotImplementedError(f"mnp.pad: mode {mode!r} (only 'constant')")
    arr = as_tensor(arr)
    widths = _np.broadcast_to(_np.asarray(pad_width, _np.int64), (arr.ndim, 2))
    return F.pad(arr, [tuple(int(w) for w in pair) for pair in widths], value=constant_values)


def where(condition, x=None, y=None):
    if x is None and y is None:
        return F.nonzero(condition, as_tuple=True)
    return F.where(as_tensor(condition), x, y)


def select(condlist, choicelist, default=0):
    """The element of the first choice whose condition holds, else default."""
    out = None
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = F.where(as_tensor(cond), choice, default if out is None else out)
    return out


def take(a, indices, axis=None, mode=None):
    a = as_tensor(a)
    if axis is None:
        return F.take(a, indices)
    return F.gather(a, as_tensor(indices), axis)


def take_along_axis(arr, indices, axis):
    return F.gather_elements(arr, axis, indices)


def searchsorted(a, v, side="left", sorter=None):
    return F.searchsorted(a, v, side=side, sorter=sorter)


def digitize(x, bins, right=False):
    """The index of each x's bin for increasing bins (numpy's digitize)."""
    return F.searchsorted(as_tensor(bins), x, right=not right)


def dot(a, b):
    return F.dot(a, b)


def multi_dot(arrays):
    out = arrays[0]
    for a in arrays[1:]:
        out = F.matmul(out, a)
    return out


def interp(x, xp, fp, left=None, right=None):
    """Piecewise-linear interpolation of (xp, fp) at x (xp increasing)."""
    x, xp, fp = as_tensor(x), as_tensor(xp), as_tensor(fp)
    n = xp.shape[0]
    hi = F.clip(F.searchsorted(xp, x, right=True), 1, n - 1)
    lo = F.sub(hi, 1)
    x0, x1, y0, y1 = (F.gather(t, i, 0) for t, i in ((xp, lo), (xp, hi), (fp, lo), (fp, hi)))
    out = F.add(y0, F.mul(F.sub(y1, y0), F.div(F.sub(x, x0), F.sub(x1, x0))))
    out = F.where(F.less(x, F.getitem(xp, 0)), fp[0] if left is None else left, out)
    return F.where(F.greater(x, F.getitem(xp, n - 1)), fp[n - 1] if right is None else right,
                   out)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows (rowvar) of m."""
    m = as_tensor(m)
    if m.ndim == 1:
        m = F.reshape(m, (1, -1))
    if not rowvar:
        m = F.swap_last_axes(m)
    if y is not None:
        y = as_tensor(y)
        m = F.concat([m, F.reshape(y, (1, -1)) if y.ndim == 1 else
                      (y if rowvar else F.swap_last_axes(y))], 0)
    m = m if m.dtype.is_float else F.cast(m, _np.float32)
    centered = F.sub(m, F.mean(m, 1, True))
    divisor = m.shape[1] - (ddof if ddof is not None else (0 if bias else 1))
    out = F.div(F.matmul(centered, F.swap_last_axes(centered)), float(divisor))
    return F.squeeze(out) if out.shape == (1, 1) else out


def corrcoef(x, y=None, rowvar=True):
    c = cov(x, y, rowvar)
    d = F.sqrt(F.diagonal(c))
    return F.div(F.div(c, F.expand_dims(d, 1)), F.expand_dims(d, 0))


def polyval(p, x):
    """The polynomial with coefficients p (highest first) at x (Horner's rule)."""
    p = as_tensor(p)
    out = F.zeros_like(as_tensor(x), p.dtype)
    for k in range(p.shape[0]):
        out = F.add(F.mul(out, x), p[k])
    return out


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = as_tensor(a1), as_tensor(a2)
    if a1.shape != a2.shape:
        return False
    same = F.equal(a1, a2)
    if equal_nan and a1.dtype.is_float:
        same = F.logical_or(same, F.logical_and(F.isnan(a1), F.isnan(a2)))
    return bool(F.all(same))


def array_equiv(a1, a2):
    try:
        return bool(F.all(F.equal(as_tensor(a1), as_tensor(a2))))
    except _ops.OpError:
        return False


def isscalar(element):
    return isinstance(element, (builtins.int, builtins.float, builtins.bool, complex, str))


def size(a, axis=None):
    a = as_tensor(a)
    return a.size if axis is None else a.shape[axis]


def promote_types(type1, type2):
    return from_np(promote_np(_np.dtype(to_np(type1)), _np.dtype(to_np(type2))))


def result_type(*arrays_and_dtypes):
    return from_np(_np.result_type(*(a._data.dtype if isinstance(a, Tensor) else to_np(a)
                                     for a in arrays_and_dtypes)))


def array_str(a):
    return str(as_tensor(a))
