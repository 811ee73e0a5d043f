"""Scans along an axis beyond cumsum: cumprod, cummax/cummin (values and indices) and
logcumsumexp, each a primitive (numpy's accumulate), with its bprop and batching rule.

    >>> ops.cumprod(ms.Tensor([1.0, 2.0, 3.0]), 0)
    Tensor(shape=[3], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00,  6.00000000e+00])
"""
from __future__ import annotations
from typing import Any, Optional
import numpy as np

from . import batching as B
from . import functional as F
from . import infer as I
from .arguments import as_tensor, axis_arg
from .primitive import Aval, Primitive
from ..core.hints import Tensor, Axis, DTypeLike

__all__ = ["cumprod", "cummax", "cummin", "logcumsumexp"]


def _scan_infer(x, axis, **attrs):
    I.normalize_axis(axis, len(x.shape))
    return x


def _scan_batch(prim, args, dims, axis_size, axis, **attrs):
    """Any scan under vmap: the batch axis first, the scanned axis shifted past it (a 0-d
    lane gets a size-1 axis to scan, as the primitive treats a 0-d input)."""
    x = B.to_front(args[0], dims[0])
    if x.ndim == 1:
        out = prim(F.reshape(x, (axis_size, 1)), axis=1, **attrs)
        if prim.multiple_results:
            return tuple(F.reshape(o, (axis_size,)) for o in out), (0, 0)
        return F.reshape(out, (axis_size,)), 0
    return prim(x, axis=axis + 1, **attrs), ((0, 0) if prim.multiple_results else 0)


def _accumulate(xp, ufunc, x, axis, reverse=False):
    """ufunc.accumulate along axis (from the end if reverse); a 0-d x is its own scan."""
    if x.ndim == 0:
        return x.copy()
    if reverse:
        return xp.flip(getattr(xp, ufunc).accumulate(xp.flip(x, axis), axis=axis), axis)
    return getattr(xp, ufunc).accumulate(x, axis=axis, dtype=x.dtype)


# ***** cumprod *****

def _cumprod_bprop(x, out, dout, axis):
    # d out_j / d x_i is the product of x_k, k <= j, k != i. Before the first zero of the
    # slice that is out_j / x_i; at the first zero z it is prod(x before z) times the
    # product of x_k for z < k <= j; past z it is 0 (x_z is a factor).
    is_zero = F.cast(F.equal(x, 0), x.dtype)
    zeros_seen = F.cumsum(is_zero, axis)
    before = F.equal(zeros_seen, 0)
    first_zero = F.logical_and(F.equal(is_zero, 1), F.equal(zeros_seen, 1))
    safe_x = F.where(before, x, 1)
    grad_before = F.cumsum(dout * out, axis, reverse=True) / safe_x
    prefix = F.prod(safe_x, (axis,), keep_dims=True)
    after = F.logical_and(F.greater_equal(zeros_seen, 1), F.logical_not(first_zero))
    from_zero = cumprod(F.where(after, x, 1), axis)
    tail = F.sum(F.where(before, 0, dout * from_zero), (axis,), keep_dims=True)
    return (F.where(before, grad_before, F.where(first_zero, prefix * tail, 0)),)


cumprod_p = Primitive("cumprod", infer=_scan_infer,
                      impl=lambda xp, x, axis: _accumulate(xp, "multiply", x, axis),
                      bprop=_cumprod_bprop, batch=_scan_batch,
                      doc="running product along axis")


def cumprod(input: Tensor, dim: Axis, dtype: Optional[DTypeLike] = None) -> Tensor:
    """Running product along `dim`: out[i] = input[0] * ... * input[i]."""
    x = as_tensor(input)
    out = cumprod_p(x, axis=axis_arg("cumprod", x, dim))
    return out if dtype is None else F.cast(out, dtype)


# ***** cummax / cummin: running extremum and the (last) index where it was reached *****

def _running_extremum(ufunc, index_dtype):
    def impl(xp, x, axis):
        values = _accumulate(xp, ufunc, x, axis)
        if x.ndim == 0:
            return values, xp.zeros((), index_dtype)
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        positions = xp.arange(x.shape[axis]).reshape(shape)
        # the last position i <= j where x_i equals the running value at i also holds the
        # running value at j (it did not change since); ties report the later index
        reached = xp.where(x == values, positions, -1)
        return values, xp.maximum.accumulate(reached, axis=axis).astype(index_dtype)
    return impl


def _extremum_infer(index_dtype):
    def infer(x, axis):
        _scan_infer(x, axis)
        return x, Aval(x.shape, np.dtype(index_dtype))
    return infer


def _extremum_bprop(x, out, dout, axis):
    if x.ndim == 0:
        return (dout[0],)
    return (F.scatter_add_along_axis(F.zeros_like(x), F.cast(out[1], np.int64), dout[0],
                                     axis=axis),)


# MindSpore's indices: Int64 for cummax, Int32 for cummin
cummax_p = Primitive("cummax", infer=_extremum_infer(np.int64),
                     impl=_running_extremum("maximum", np.int64), bprop=_extremum_bprop,
                     batch=_scan_batch, multiple_results=True,
                     doc="(running maximum, index of it) along axis")
cummin_p = Primitive("cummin", infer=_extremum_infer(np.int32),
                     impl=_running_extremum("minimum", np.int32), bprop=_extremum_bprop,
                     batch=_scan_batch, multiple_results=True,
                     doc="(running minimum, index of it) along axis")


def cummax(input: Tensor, axis: Axis) -> Tensor:
    """(values, indices): the running maximum along `axis` and where it was reached (the
    later index on ties).

        >>> ops.cummax(ms.Tensor([1.0, 3.0, 2.0]), 0)[1]
        Tensor(shape=[3], dtype=Int64, value= [0, 1, 1])
    """
    x = as_tensor(input)
    return cummax_p(x, axis=axis_arg("cummax", x, axis))


def cummin(input: Tensor, axis: Axis) -> Tensor:
    """(values, indices): the running minimum along `axis` and where it was reached."""
    x = as_tensor(input)
    return cummin_p(x, axis=axis_arg("cummin", x, axis))


# ***** logcumsumexp *****

def _logcumsumexp_bprop(x, out, dout, axis, reverse):
    # d out_j / d x_i = exp(x_i - out_j) for the i summed into out_j: the gradient is
    # exp(x_i) * sum_j dout_j exp(-out_j), summed in log space (PyTorch's way) so that no
    # exp overflows, the positive and negative parts of dout separately
    def part(d):
        log_d = F.log(F.relu(d))  # -inf where d <= 0: those terms vanish
        return F.exp(x + logcumsumexp_p(log_d - out, axis=axis, reverse=not reverse))
    return (part(dout) - part(-dout),)


def _logcumsumexp_impl(xp, x, axis, reverse):
    x = x if x.dtype.kind == "f" else x.astype(np.float32)
    with np.errstate(invalid="ignore"):  # -inf + -inf inputs are fine: -inf
        return _accumulate(xp, "logaddexp", x, axis, reverse)


logcumsumexp_p = Primitive("logcumsumexp", infer=lambda x, axis, reverse: I.float_unary(
                               _scan_infer(x, axis)),
                           impl=_logcumsumexp_impl, bprop=_logcumsumexp_bprop,
                           batch=_scan_batch,
                           doc="log(cumsum(exp(x))) along axis, without overflow")


def logcumsumexp(input: Tensor, axis: Axis) -> Tensor:
    """log(cumsum(exp(input))) along `axis`, computed stably."""
    x = as_tensor(input)
    return logcumsumexp_p(x, axis=axis_arg("logcumsumexp", x, axis), reverse=False)
