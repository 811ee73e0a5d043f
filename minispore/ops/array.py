"""Array manipulation: reshape, transpose, broadcast, concat, pad, indexing, gather/scatter, sort.

Indexing has one primitive, `getitem(x, *index_tensors, index=spec)`. `spec` is a hashable
tuple (see `ops.indexing`) with static parts (ints, slices, None, Ellipsis) inline and a
placeholder for each tensor index, which travels as a positional input.
"""
import numpy as np

from . import functional as F
from . import infer as I
from .elementwise import no_grad
from .primitive import Aval, OpShapeError, Primitive


# ***** shape *****

def _reshape_infer(x, shape):
    if int(np.prod(x.shape)) != int(np.prod(shape)):
        raise OpShapeError(f"cannot reshape {int(np.prod(x.shape))} elements into shape {shape}")
    return Aval(tuple(shape), x.dtype)


reshape = Primitive("reshape", infer=_reshape_infer, impl=lambda xp, x, shape: x.reshape(shape),
                    bprop=lambda x, out, dout, shape: (F.reshape(dout, x.shape),))


def _transpose_infer(x, perm):
    if sorted(perm) != list(range(len(x.shape))):
        raise OpShapeError(f"perm {perm} is not a permutation of the {len(x.shape)} axes")
    return Aval(tuple(x.shape[p] for p in perm), x.dtype)


transpose = Primitive("transpose", infer=_transpose_infer,
                      impl=lambda xp, x, perm: xp.transpose(x, perm),
                      bprop=lambda x, out, dout, perm: (F.transpose(dout, tuple(np.argsort(perm).tolist())),))


def _broadcast_to_infer(x, shape):
    if I.broadcast_shapes(x.shape, shape) != tuple(shape):
        raise OpShapeError(f"cannot broadcast {x.shape} to {shape}")
    return Aval(tuple(shape), x.dtype)


broadcast_to = Primitive("broadcast_to", infer=_broadcast_to_infer,
                         impl=lambda xp, x, shape: xp.broadcast_to(x, shape),
                         bprop=lambda x, out, dout, shape: (F.sum_to(dout, x.shape),))


def _concat_infer(*xs, axis):
    first = xs[0]
    axis = I.normalize_axis(axis, len(first.shape))
    for x in xs[1:]:
        if len(x.shape) != len(first.shape) or any(
                a != b for i, (a, b) in enumerate(zip(x.shape, first.shape)) if i != axis):
            raise OpShapeError(f"all inputs must match except on axis {axis}, got "
                               f"{', '.join(str(x.shape) for x in xs)}")
    dtype = first.dtype
    for x in xs[1:]:
        dtype = I.promote_np(dtype, x.dtype)
    shape = list(first.shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    return Aval(tuple(shape), dtype)


def _concat_bprop(*args, axis):
    xs, dout = args[:-2], args[-1]
    grads, start = [], 0
    for x in xs:
        size = x.shape[axis]
        grads.append(F.slice_axis(dout, axis, start, start + size))
        start += size
    return tuple(grads)


concat = Primitive("concat", infer=_concat_infer,
                   impl=lambda xp, *xs, axis: xp.concatenate(xs, axis=axis), bprop=_concat_bprop)


def _pad_infer(x, paddings, value):
    if len(paddings) != len(x.shape):
        raise OpShapeError(f"paddings {paddings} need one (before, after) pair per axis of {x.shape}")
    return Aval(tuple(s + a + b for s, (a, b) in zip(x.shape, paddings)), x.dtype)


def _pad_bprop(x, out, dout, paddings, value):
    index = tuple(slice(a, a + s) for s, (a, _) in zip(x.shape, paddings))
    return (F.getitem(dout, index),)


pad = Primitive("pad", infer=_pad_infer,
                impl=lambda xp, x, paddings, value: xp.pad(x, paddings, constant_values=value),
                bprop=_pad_bprop)


# ***** indexing *****

def _getitem_infer(x, *index_avals, index):
    from .indexing import build_index
    dummy = np.broadcast_to(np.zeros((), x.dtype), x.shape)
    tensors = [np.zeros(a.shape, a.dtype) for a in index_avals]
    try:
        return Aval(dummy[build_index(index, tensors)].shape, x.dtype)
    except IndexError as e:
        raise OpShapeError(f"index {index} does not fit shape {x.shape}: {e}") from None


def _getitem_impl(xp, x, *tensors, index):
    from .indexing import build_index
    return x[build_index(index, tensors)]


getitem = Primitive("getitem", infer=_getitem_infer, impl=_getitem_impl,
                    bprop=lambda x, *rest, index: (
                        index_add(F.zeros_like(x), rest[-1], *rest[:-2], index=index),
                        *(None for _ in rest[:-2])))


def _index_add_impl(xp, base, values, *tensors, index):
    from .indexing import build_index, has_tensors
    out = base.copy()
    idx = build_index(index, tensors)
    if has_tensors(index):
        xp.add.at(out, idx, values)  # repeated indices accumulate
    else:
        out[idx] += values
    return out


index_add = Primitive("index_add", infer=lambda base, values, *t, index: base,
                      impl=_index_add_impl,
                      bprop=lambda base, values, *rest, index: (
                          rest[-1], F.sum_to(getitem(rest[-1], *rest[:-2], index=index), values.shape),
                          *(None for _ in rest[:-2])),
                      doc="out = base.copy(); out[index] += values (the backward of getitem)")


def _setitem_impl(xp, x, value, *tensors, index):
    from .indexing import build_index
    out = x.copy()
    out[build_index(index, tensors)] = value
    return out


def _setitem_bprop(x, value, *rest, index):
    dout, tensors = rest[-1], rest[:-2]
    dx = setitem(dout, F.zeros((), dout.dtype), *tensors, index=index)
    dv = F.sum_to(getitem(dout, *tensors, index=index), value.shape)
    return (dx, dv, *(None for _ in tensors))


setitem = Primitive("setitem", infer=lambda x, value, *t, index: x, impl=_setitem_impl,
                      bprop=_setitem_bprop, doc="out = x.copy(); out[index] = value")


# ***** gather / scatter along an axis, sort *****

take_along_axis = Primitive(
    "take_along_axis",
    infer=lambda x, idx, axis: Aval(idx.shape, x.dtype),
    impl=lambda xp, x, idx, axis: xp.take_along_axis(x, idx, axis=axis),
    bprop=lambda x, idx, out, dout, axis: (F.scatter_add_along_axis(F.zeros_like(x), idx, dout, axis=axis), None))


def _scatter_add_impl(xp, base, idx, values, axis):
    out = base.copy()
    grid = list(xp.ix_(*[xp.arange(s) for s in idx.shape]))
    grid[axis] = idx
    xp.add.at(out, tuple(grid), values)
    return out


scatter_add_along_axis = Primitive(
    "scatter_add_along_axis", infer=lambda base, idx, values, axis: base, impl=_scatter_add_impl,
    bprop=lambda base, idx, values, out, dout, axis: (dout, None, F.take_along_axis(dout, idx, axis=axis)),
    doc="out = base.copy(); out[..., idx[...], ...] += values along `axis` (the backward of take_along_axis)")


def _sort_impl(xp, x, axis, descending):
    order = xp.argsort(-x if descending else x, axis=axis, kind="stable")
    return xp.take_along_axis(x, order, axis=axis), order.astype(np.int64)


sort = Primitive("sort",
                 infer=lambda x, axis, descending: (x, Aval(x.shape, np.dtype(np.int64))),
                 impl=_sort_impl, multiple_results=True,
                 bprop=lambda x, out, dout, axis, descending: (
                     F.scatter_add_along_axis(F.zeros_like(x), out[1], dout[0], axis=axis),))

nonzero = Primitive("nonzero", infer=lambda x: Aval((-1, len(x.shape)), np.dtype(np.int64)),
                    impl=lambda xp, x: xp.stack(xp.nonzero(x), axis=-1).astype(np.int64),
                    bprop=no_grad, doc="indices of the non-zero elements (data-dependent shape)")
