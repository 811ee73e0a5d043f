"""Array manipulation: reshape, transpose, broadcast, concat, pad, indexing, gather/scatter, sort.

Indexing has one primitive, `getitem(x, *index_tensors, index=spec)`. `spec` is a hashable
tuple (see `ops.indexing`) with static parts (ints, slices, None, Ellipsis) inline and a
placeholder for each tensor index, which travels as a positional input.
"""
import numpy as np

from . import batching as B
from . import functional as F
from . import infer as I
from .indexing import build_index, has_tensors
from .primitive import Aval, OpShapeError, Primitive

# ***** shape *****

def _reshape_infer(x, shape):
    if int(np.prod(x.shape)) != int(np.prod(shape)):
        raise OpShapeError(f"cannot reshape {int(np.prod(x.shape))} elements into shape {shape}")
    return Aval(tuple(shape), x.dtype)


reshape = Primitive("reshape", infer=_reshape_infer, impl=lambda xp, x, shape: x.reshape(shape),
                    bprop=lambda x, out, dout, shape: (F.reshape(dout, x.shape),),
                    batch=lambda prim, args, dims, n, shape: (
                        prim(B.to_front(args[0], dims[0]), shape=(n,) + tuple(shape)), 0))


def _transpose_infer(x, perm):
    if sorted(perm) != list(range(len(x.shape))):
        raise OpShapeError(f"perm {perm} is not a permutation of the {len(x.shape)} axes")
    return Aval(tuple(x.shape[p] for p in perm), x.dtype)


transpose = Primitive("transpose", infer=_transpose_infer,
                      impl=lambda xp, x, perm: xp.transpose(x, perm),
                      bprop=lambda x, out, dout, perm: (F.transpose(dout, tuple(np.argsort(perm).tolist())),),
                      batch=lambda prim, args, dims, n, perm: (
                          prim(B.to_front(args[0], dims[0]), perm=(0,) + B.shift_axes(perm)), 0))


def _broadcast_to_infer(x, shape):
    if I.broadcast_shapes(x.shape, shape) != tuple(shape):
        raise OpShapeError(f"cannot broadcast {x.shape} to {shape}")
    return Aval(tuple(shape), x.dtype)


def _broadcast_to_batch(prim, args, dims, axis_size, shape):
    x = B.with_lane_rank(B.to_front(args[0], dims[0]), len(shape))
    return prim(x, shape=(axis_size,) + tuple(shape)), 0


broadcast_to = Primitive("broadcast_to", infer=_broadcast_to_infer,
                         impl=lambda xp, x, shape: xp.broadcast_to(x, shape),
                         bprop=lambda x, out, dout, shape: (F.sum_to(dout, x.shape),),
                         batch=_broadcast_to_batch)


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


def _concat_batch(prim, args, dims, axis_size, axis):
    rank = max(B.lane_ndim(x, d) for x, d in zip(args, dims))
    xs = [B.batched_front(x, d, axis_size) for x, d in zip(args, dims)]
    return prim(*xs, axis=I.normalize_axis(axis, rank) + 1), 0


concat = Primitive("concat", infer=_concat_infer,
                   impl=lambda xp, *xs, axis: xp.concatenate(xs, axis=axis), bprop=_concat_bprop,
                   batch=_concat_batch)


# split_v (MindSpore's SplitV): the parts of x along `axis`, of the sizes `sections`, as views.
# One node whose gradient is one concat: getitem's per-part gradient would scatter each part
# into zeros of the whole shape (an RNN's time steps: T copies of the whole sequence).

def _split_v_infer(x, axis, sections):
    axis = I.normalize_axis(axis, len(x.shape))
    if sum(sections) != x.shape[axis] or any(s < 0 for s in sections):
        raise OpShapeError(f"sections {tuple(sections)} do not add up to the size "
                           f"{x.shape[axis]} of axis {axis} of shape {tuple(x.shape)}")
    return tuple(Aval(x.shape[:axis] + (s,) + x.shape[axis + 1:], x.dtype) for s in sections)


def _split_v_impl(xp, x, axis, sections):
    bounds = np.cumsum(sections)[:-1].tolist()
    return tuple(xp.split(x, bounds, axis=axis))


def _split_v_batch(prim, args, dims, axis_size, axis, sections):
    x = B.batched_front(args[0], dims[0], axis_size)
    axis = I.normalize_axis(axis, x.ndim - 1) + 1
    return prim(x, axis=axis, sections=sections), (0,) * len(sections)


split_v = Primitive("split_v", infer=_split_v_infer, impl=_split_v_impl,
                    bprop=lambda x, out, dout, axis, sections: (concat(*dout, axis=axis),),
                    batch=_split_v_batch, multiple_results=True,
                    doc="the parts of x along axis, of sizes sections (views); gradient: one "
                        "concat")


def _pad_infer(x, paddings, value):
    if len(paddings) != len(x.shape):
        raise OpShapeError(f"paddings {paddings} need one (before, after) pair per axis of {x.shape}")
    return Aval(tuple(s + a + b for s, (a, b) in zip(x.shape, paddings)), x.dtype)


def _pad_bprop(x, out, dout, paddings, value):
    index = tuple(slice(a, a + s) for s, (a, _) in zip(x.shape, paddings))
    return (F.getitem(dout, index),)


pad = Primitive("pad", infer=_pad_infer,
                impl=lambda xp, x, paddings, value: xp.pad(x, paddings, constant_values=value),
                bprop=_pad_bprop,
                batch=lambda prim, args, dims, n, paddings, value: (
                    prim(B.to_front(args[0], dims[0]), paddings=((0, 0),) + tuple(paddings),
                         value=value), 0))


# ***** indexing *****

def _getitem_infer(x, *index_avals, index):
    dummy = np.broadcast_to(np.zeros((), x.dtype), x.shape)
    tensors = [np.zeros(a.shape, a.dtype) for a in index_avals]
    try:
        return Aval(dummy[build_index(index, tensors)].shape, x.dtype)
    except IndexError as e:
        raise OpShapeError(f"index {index} does not fit shape {x.shape}: {e}") from None


def _getitem_impl(xp, x, *tensors, index):
    return x[build_index(index, tensors)]


def _batched_index(x, x_dim, tensors, tensor_dims, index, axis_size):
    """x[index] for every lane at once: (x, tensors, index, x_dim, out_dim) to call getitem /
    index_add / setitem with, x_dim being x's batch axis then (None: x unbatched) and out_dim
    the batch axis of the selection. numpy places advanced indices (tensors, and ints when a
    tensor is present) where the first one is if they are adjacent, else first of all."""
    lane_shapes = [tuple(t.shape) if d is None else tuple(t.shape[:d] + t.shape[d + 1:])
                   for t, d in zip(tensors, tensor_dims)]
    index_rank = len(I.broadcast_shapes(*lane_shapes)) if tensors else 0
    advanced = [i for i, item in enumerate(index) if item[0] in ("tensor", "int")] \
        if tensors else []
    adjacent = not advanced or advanced[-1] - advanced[0] + 1 == len(advanced)
    first = advanced[0] if advanced else len(index)
    x_rank = B.lane_ndim(x, x_dim)
    ellipsis_dims = x_rank - sum(item[0] in ("int", "slice", "tensor") for item in index)
    out_before = sum(ellipsis_dims if item[0] == "ellipsis" else 1 for item in index[:first])
    x_before = sum(ellipsis_dims if item[0] == "ellipsis" else item[0] == "slice"
                   for item in index[:first])
    if all(d is None for d in tensor_dims):  # only x is batched: a full slice in front
        out_dim = index_rank if not adjacent else 0
        return (B.to_front(x, x_dim), list(tensors), (("slice", None, None, None),) + index, 0,
                out_dim)
    tensors = [t if d is None else B.with_lane_rank(B.to_front(t, d), index_rank)
               for t, d in zip(tensors, tensor_dims)]
    out_dim = out_before if adjacent else 0
    if x_dim is None:
        return x, tensors, index, None, out_dim
    # x is batched too: its batch axis, moved before the first advanced index, is indexed
    # there by the lane number, which broadcasts with the other index tensors
    lanes = F.reshape(F.arange(axis_size), (axis_size,) + (1,) * index_rank)
    index = index[:first] + (("tensor", len(tensors)),) + index[first:]
    return B.move_axis(x, x_dim, x_before), tensors + [lanes], index, x_before, out_dim


def _getitem_batch(prim, args, dims, axis_size, index):
    x, tensors, index, _, out_dim = _batched_index(args[0], dims[0], args[1:], dims[1:], index,
                                                   axis_size)
    return prim(x, *tensors, index=index), out_dim


def _index_update_batch(prim, args, dims, axis_size, index):
    """index_add / setitem: every lane updates its own copy of the base."""
    (base, values, *tensors), (base_dim, values_dim, *tensor_dims) = args, dims
    base = B.batched_front(base, base_dim, axis_size)
    lane_tensors = [Aval(tuple(t.shape) if d is None else tuple(t.shape[:d] + t.shape[d + 1:]),
                         np.dtype(np.int64)) for t, d in zip(tensors, tensor_dims)]
    lane_base = Aval(tuple(base.shape[1:]), base._data.dtype)
    selection_rank = len(_getitem_infer(lane_base, *lane_tensors, index=index).shape)
    base, tensors, index, base_dim, out_dim = _batched_index(base, 0, tensors, tensor_dims,
                                                             index, axis_size)
    if values_dim is None:  # right-aligned to the selection, a size-1 batch axis at out_dim
        shape = [1] * (selection_rank - B.ndim(values)) + list(getattr(values, "shape", ()))
        shape.insert(out_dim, 1)
        values = F.reshape(values, shape)
    else:
        values = B.move_axis(B.with_lane_rank(B.to_front(values, values_dim), selection_rank),
                             0, out_dim)
    return prim(base, values, *tensors, index=index), base_dim


getitem = Primitive("getitem", infer=_getitem_infer, impl=_getitem_impl,
                    bprop=lambda x, *rest, index: (
                        index_add(F.zeros_like(x), rest[-1], *rest[:-2], index=index),  # type: ignore[has-type]  # defined below
                        *(None for _ in rest[:-2])),
                    batch=_getitem_batch)


def _add_into(xp, out, values, index, tensors):
    """out[index] += values in place, repeated tensor indices accumulating."""
    idx = build_index(index, tensors)
    if not has_tensors(index):
        out[idx] += values
    elif xp is np and _is_row_gather(idx, out, values):
        _add_rows_into(out, idx[0], values)
    else:
        xp.add.at(out, idx, values)


def _is_row_gather(idx, out, values):
    """Whether idx is (integer array, full slices...): rows of `out` picked by an array, as an
    embedding lookup's gradient scatters them back."""
    rows = idx[0]
    return (isinstance(rows, np.ndarray) and rows.dtype.kind in "iu" and out.ndim >= 1
            and all(isinstance(i, slice) and i == slice(None) for i in idx[1:])
            and out.dtype.kind == "f"
            and values.shape == rows.shape + out.shape[1:] and values.dtype == out.dtype)


def _add_rows_into(out, rows, values):
    """out[rows] += values, repeated rows accumulating in their order, as one sparse product
    (scipy's CSR: a row of ones per output row) instead of ufunc.add.at, which handles each
    element alone: for an embedding's gradient (2048 lookups of 256 floats into 1000 rows)
    0.3 ms instead of 5 ms, with the same sums (each row's values added in order)."""
    import scipy.sparse
    if rows.size == 0:
        return
    flat = rows.reshape(-1).astype(np.int64)
    flat = np.where(flat < 0, flat + out.shape[0], flat)
    picks = scipy.sparse.csr_matrix(
        (np.ones(flat.size, out.dtype), (flat, np.arange(flat.size))),
        shape=(out.shape[0], flat.size))
    out += (picks @ values.reshape(flat.size, -1)).reshape(out.shape)


def _index_add_impl(xp, base, values, *tensors, index):
    out = base.copy()
    _add_into(xp, out, values, index, tensors)
    return out


index_add = Primitive("index_add", infer=lambda base, values, *t, index: base,
                      impl=_index_add_impl,
                      bprop=lambda base, values, *rest, index: (
                          rest[-1], F.sum_to(getitem(rest[-1], *rest[:-2], index=index), values.shape),
                          *(None for _ in rest[:-2])),
                      batch=_index_update_batch,
                      doc="out = base.copy(); out[index] += values (the backward of getitem)")


def _index_add_many_infer(base, *values_and_tensors, index, shape):
    return Aval(tuple(shape), base.dtype)


def _index_add_many_impl(xp, base, *values_and_tensors, index, shape):
    values, tensors = values_and_tensors[:len(index)], values_and_tensors[len(index):]
    out = xp.empty(shape, base.dtype)
    out[...] = base
    for v, spec in zip(values, index):
        _add_into(xp, out, v, spec, tensors)
    return out


def _index_add_many_bprop(base, *rest, index, shape):
    dout, values, tensors = rest[-1], rest[:len(index)], rest[len(index):-2]
    return (F.sum_to(dout, base.shape),
            *(F.sum_to(getitem(dout, *tensors, index=spec), v.shape)
              for v, spec in zip(values, index)),
            *(None for _ in tensors))


# The backward engine sums the gradients of a tensor's selections (`x[:, a:b]`, `x[t]`)
# with one node of this row: one buffer of x's shape, each selection's gradient added
# into its place, where one index_add per selection would fill and copy a full-size array
# each (quadratic in the sequence length for `x[t]` over t). `index` is one spec per value;
# their ("tensor", k) refer to the index tensors after the values. `base` is a scalar zero
# or the gradient's dense part (of `shape`).
index_add_many = Primitive("index_add_many", infer=_index_add_many_infer,
                           impl=_index_add_many_impl, bprop=_index_add_many_bprop,
                           doc="out = broadcast_to(base, shape); out[index[i]] += values[i] "
                               "for each i")


def _setitem_impl(xp, x, value, *tensors, index):
    out = x.copy()
    out[build_index(index, tensors)] = value
    return out


def _setitem_bprop(x, value, *rest, index):
    dout, tensors = rest[-1], rest[:-2]
    dx = setitem(dout, F.zeros((), dout.dtype), *tensors, index=index)
    dv = F.sum_to(getitem(dout, *tensors, index=index), value.shape)
    return (dx, dv, *(None for _ in tensors))


def _setitem_infer(x, value, *index_avals, index):
    """x, once `value` is known to broadcast to the selection x[index] (as numpy requires)."""
    selection = _getitem_infer(x, *index_avals, index=index).shape
    try:
        fits = np.broadcast_shapes(tuple(value.shape), selection) == selection
    except ValueError:
        fits = False
    if not fits:
        raise OpShapeError(f"a value of shape {tuple(value.shape)} cannot be assigned to "
                           f"x[index] of shape {selection}")
    return x


setitem = Primitive("setitem", infer=_setitem_infer, impl=_setitem_impl,
                      bprop=_setitem_bprop, batch=_index_update_batch,
                      doc="out = x.copy(); out[index] = value")


# ***** gather / scatter along an axis, sort *****

def _along_axis_batch(prim, args, dims, axis_size, axis):
    """take_along_axis / scatter_add_along_axis: every input batched first, axis shifted."""
    return prim(*(B.batched_front(a, d, axis_size) for a, d in zip(args, dims)),
                axis=axis + 1), 0


take_along_axis = Primitive(
    "take_along_axis",
    infer=lambda x, idx, axis: Aval(idx.shape, x.dtype),
    impl=lambda xp, x, idx, axis: xp.take_along_axis(x, idx, axis=axis),
    bprop=lambda x, idx, out, dout, axis: (F.scatter_add_along_axis(F.zeros_like(x), idx, dout, axis=axis), None),
    batch=_along_axis_batch)


def _scatter_add_impl(xp, base, idx, values, axis):
    out = base.copy()
    grid = list(xp.ix_(*[xp.arange(s) for s in idx.shape]))
    grid[axis] = idx
    xp.add.at(out, tuple(grid), values)
    return out


scatter_add_along_axis = Primitive(
    "scatter_add_along_axis", infer=lambda base, idx, values, axis: base, impl=_scatter_add_impl,
    bprop=lambda base, idx, values, out, dout, axis: (dout, None, F.take_along_axis(dout, idx, axis=axis)),
    batch=_along_axis_batch,
    doc="out = base.copy(); out[..., idx[...], ...] += values along `axis` (the backward of take_along_axis)")


def _sort_impl(xp, x, axis, descending):
    order = xp.argsort(-x if descending else x, axis=axis, kind="stable")
    return xp.take_along_axis(x, order, axis=axis), order.astype(np.int64)


def _sort_batch(prim, args, dims, axis_size, axis, descending):
    x, dim = args[0], dims[0]
    if B.lane_ndim(x, dim) == 0:  # a 0-d lane is sorted: itself, at index 0
        return (x, F.zeros(tuple(x.shape), np.int64)), (dim, dim)
    return prim(B.to_front(x, dim), axis=axis + 1, descending=descending), (0, 0)


sort = Primitive("sort",
                 infer=lambda x, axis, descending: (x, Aval(x.shape, np.dtype(np.int64))),
                 impl=_sort_impl, multiple_results=True,
                 bprop=lambda x, out, dout, axis, descending: (
                     F.scatter_add_along_axis(F.zeros_like(x), out[1], dout[0], axis=axis),),
                 batch=_sort_batch)
