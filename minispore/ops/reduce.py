"""Reductions: sum, max, min, prod, all/any, argmax/argmin, cumsum.

`axis` is a tuple of non-negative axes or None (all); ops.functional normalises user input.
Mean, var, std, logsumexp are composites in ops.functional.
"""
import numpy as np

from ..core.dtype import HALF_TYPES
from . import batching as B
from . import functional as F
from . import infer as I
from .elementwise import no_grad
from .primitive import Aval, Primitive


def _keep_shape(x_shape, axis):
    """Shape of the reduction result with the reduced axes kept as size 1."""
    return I.reduced_shape(x_shape, axis, keep_dims=True)


def _spread(dout, x, axis):
    """dout of a reduction, broadcast back over the reduced axes of x."""
    return F.broadcast_to(F.reshape(dout, _keep_shape(x.shape, axis)), x.shape)


def _reduce_batch(prim, args, dims, axis_size, axis, keep_dims):
    """Any reduction under vmap: the batch axis first, the reduced axes shifted past it."""
    x = B.to_front(args[0], dims[0])
    axis = tuple(range(1, x.ndim)) if axis is None else B.shift_axes(axis)
    return prim(x, axis=axis, keep_dims=keep_dims), 0


def _sum_impl(xp, x, axis, keep_dims):
    if x.dtype in HALF_TYPES:  # accumulated in float32, rounded once (as GPUs and torch do)
        return xp.sum(x, axis=axis, keepdims=keep_dims, dtype=np.float32).astype(x.dtype)
    # numpy widens int32 sums to int64; MindSpore keeps the input dtype
    dtype = x.dtype if x.dtype.kind != "b" else np.int64
    return xp.sum(x, axis=axis, keepdims=keep_dims, dtype=dtype)


def _sum_infer(x, axis, keep_dims):
    out = I.reduce(x, axis, keep_dims)
    return out if x.dtype.kind != "b" else Aval(out.shape, np.dtype(np.int64))


reduce_sum = Primitive("reduce_sum", infer=_sum_infer, impl=_sum_impl,
                       bprop=lambda x, out, dout, axis, keep_dims: (_spread(dout, x, axis),),
                       batch=_reduce_batch)


def _extremum_bprop(x, out, dout, axis, keep_dims):
    # ties share the gradient equally (PyTorch's amax/amin rule)
    mask = F.cast(F.equal(x, _spread(out, x, axis)), x.dtype)
    count = F.reduce_sum(mask, axis=axis, keep_dims=True)
    return (_spread(dout, x, axis) * mask / count,)


reduce_max = Primitive("reduce_max", infer=I.reduce,
                       impl=lambda xp, x, axis, keep_dims: xp.max(x, axis=axis, keepdims=keep_dims),
                       bprop=_extremum_bprop, batch=_reduce_batch)

reduce_min = Primitive("reduce_min", infer=I.reduce,
                       impl=lambda xp, x, axis, keep_dims: xp.min(x, axis=axis, keepdims=keep_dims),
                       bprop=_extremum_bprop, batch=_reduce_batch)


def _prod_bprop(x, out, dout, axis, keep_dims):
    # d out / d x_i is the product of the other elements: out / x_i when no element is 0;
    # with one zero, the product of the non-zero ones at the zero and 0 elsewhere; with more
    # zeros, 0 everywhere
    is_zero = F.equal(x, 0)
    safe_x = F.where(is_zero, 1, x)
    nonzero_prod = _spread(F.reduce_prod(safe_x, axis=axis, keep_dims=True), x, axis)
    zeros = _spread(F.reduce_sum(F.cast(is_zero, x.dtype), axis=axis, keep_dims=True), x, axis)
    others = F.where(is_zero, F.where(F.equal(zeros, 1), nonzero_prod, 0),
                     F.where(F.equal(zeros, 0), nonzero_prod / safe_x, 0))
    return (_spread(dout, x, axis) * others,)


reduce_prod = Primitive("reduce_prod", infer=I.reduce,
                        impl=lambda xp, x, axis, keep_dims: xp.prod(x, axis=axis, keepdims=keep_dims, dtype=x.dtype),
                        bprop=_prod_bprop, batch=_reduce_batch)

reduce_all = Primitive("reduce_all", infer=lambda x, axis, keep_dims: Aval(I.reduced_shape(x.shape, axis, keep_dims), I.BOOL),
                       impl=lambda xp, x, axis, keep_dims: xp.all(x, axis=axis, keepdims=keep_dims),
                       bprop=no_grad, batch=_reduce_batch)

reduce_any = Primitive("reduce_any", infer=lambda x, axis, keep_dims: Aval(I.reduced_shape(x.shape, axis, keep_dims), I.BOOL),
                       impl=lambda xp, x, axis, keep_dims: xp.any(x, axis=axis, keepdims=keep_dims),
                       bprop=no_grad, batch=_reduce_batch)


def _arg_infer(x, axis, keep_dims, dtype):
    axes = None if axis is None else (axis,)
    return Aval(I.reduced_shape(x.shape, axes, keep_dims), np.dtype(dtype))


def _arg_impl(name):
    def impl(xp, x, axis, keep_dims, dtype):
        out = getattr(xp, name)(x, axis=axis)
        if keep_dims and x.ndim:
            out = xp.expand_dims(out, axis) if axis is not None else out.reshape((1,) * x.ndim)
        return out.astype(dtype)
    return impl


def _arg_batch(prim, args, dims, axis_size, axis, keep_dims, dtype):
    x = B.to_front(args[0], dims[0])
    lane_shape = tuple(x.shape[1:])
    if axis is None or not lane_shape:  # over the whole (flattened) lane
        flat = F.reshape(x, (axis_size, int(np.prod(lane_shape, dtype=np.int64))))
        out = prim(flat, axis=1, keep_dims=False, dtype=dtype)
        return (F.reshape(out, (axis_size,) + (1,) * len(lane_shape)) if keep_dims else out), 0
    return prim(x, axis=axis + 1, keep_dims=keep_dims, dtype=dtype), 0


argmax = Primitive("argmax", infer=_arg_infer, impl=_arg_impl("argmax"), bprop=no_grad,
                   batch=_arg_batch)
argmin = Primitive("argmin", infer=_arg_infer, impl=_arg_impl("argmin"), bprop=no_grad,
                   batch=_arg_batch)


def _cumsum_impl(xp, x, axis, reverse):
    if x.ndim == 0:  # numpy would return shape (1,)
        return x.copy()
    if reverse:
        return xp.flip(xp.cumsum(xp.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    return xp.cumsum(x, axis=axis, dtype=x.dtype)


def _cumsum_batch(prim, args, dims, axis_size, axis, reverse):
    x, dim = args[0], dims[0]
    if B.lane_ndim(x, dim) == 0:  # a scan along a 0-d lane's one axis changes nothing
        return x, dim
    return prim(B.to_front(x, dim), axis=axis + 1, reverse=reverse), 0


cumsum = Primitive("cumsum", infer=lambda x, axis, reverse: (I.normalize_axis(axis, len(x.shape)), x)[1],
                   impl=_cumsum_impl,
                   bprop=lambda x, out, dout, axis, reverse: (F.cumsum(dout, axis, reverse=not reverse),),
                   batch=_cumsum_batch)
