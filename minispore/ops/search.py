"""Searching and counting: argsort, searchsorted (a primitive), bucketize, and the ops whose
output size depends on the values (nonzero, unique, bincount...). Those read their input on
the host: eagerly that is free; in Graph mode it is a graph break (the segment before runs,
tracing resumes with the result as a constant), reported like any other.

    >>> ops.searchsorted(ms.Tensor([1.0, 3.0, 5.0]), ms.Tensor([3.0, 4.0]))
    Tensor(shape=[2], dtype=Int64, value= [1, 2])
"""
from __future__ import annotations
from typing import Any, Literal, Optional, overload
import numpy as np

from ..core.dtype import to_np
from ..core.tensor import Tensor
from . import batching as B
from . import functional as F
from .arguments import as_tensor, axis_arg, op_error
from .elementwise import no_grad
from .primitive import Aval, OpShapeError, Primitive
from ..core.hints import TensorLike

__all__ = ["argsort", "msort", "top_k", "searchsorted", "bucketize", "nonzero", "argwhere",
           "unique", "unique_consecutive", "unique_with_pad", "bincount", "histc"]


def argsort(input: Tensor, axis: int = -1, descending: bool = False) -> Tensor:
    """The indices that sort input along `axis` (Int32, as MindSpore's)."""
    x = as_tensor(input)
    return F.cast(F.sort(x, axis, descending)[1], np.int32)


def msort(input: Tensor) -> Tensor:
    """input sorted along its first axis."""
    return F.sort(as_tensor(input), 0)[0]


def top_k(input_x: Tensor, k: int, sorted: bool = True) -> tuple[Tensor, Tensor]:
    return F.topk(input_x, k, sorted=sorted)


# ***** searchsorted *****

def _searchsorted_infer(sorted_sequence, values, right, dtype):
    seq, vals = tuple(sorted_sequence.shape), tuple(values.shape)
    if len(seq) > 1 and seq[:-1] != vals[:-1]:
        raise OpShapeError(f"a sorted_sequence of shape {seq} needs values with the leading "
                           f"shape {seq[:-1]}, got {vals}")
    return Aval(vals, np.dtype(dtype))


def _searchsorted_impl(xp, sorted_sequence, values, right, dtype):
    side = "right" if right else "left"
    if sorted_sequence.ndim <= 1:
        return xp.searchsorted(sorted_sequence, values, side=side).astype(dtype)
    # one row of the sequence per row of values: count the entries before each value
    before = (sorted_sequence[..., None, :] <= values[..., :, None]) if right else \
        (sorted_sequence[..., None, :] < values[..., :, None])
    return before.sum(-1).astype(dtype)


def _searchsorted_batch(prim, args, dims, axis_size, right, dtype):
    (seq, vals), (seq_dim, vals_dim) = args, dims
    vals = B.batched_front(vals, vals_dim, axis_size)
    if seq_dim is None and B.ndim(seq) <= 1:  # one sequence for every lane and value
        return prim(seq, vals, right=right, dtype=dtype), 0
    seq = B.batched_front(seq, seq_dim, axis_size)
    if seq.ndim == 2:  # a 1-D sequence per lane: each lane's values as one row
        flat = F.reshape(vals, (axis_size, -1))
        return F.reshape(prim(seq, flat, right=right, dtype=dtype), tuple(vals.shape)), 0
    return prim(seq, vals, right=right, dtype=dtype), 0


searchsorted_p = Primitive("searchsorted", infer=_searchsorted_infer, impl=_searchsorted_impl,
                           bprop=no_grad, batch=_searchsorted_batch,
                           doc="where values would be inserted into sorted_sequence (along "
                               "its last axis) to keep it sorted")


def searchsorted(sorted_sequence: TensorLike, values: TensorLike, *, out_int32: bool = False, right: bool = False, side: Optional[str] = None,
                 sorter: Any = None) -> Tensor:
    """Insertion points of `values` in `sorted_sequence` (along its last axis; a sequence
    of rank > 1 has one row per row of values); right=True (side='right') places a value
    after equal entries."""
    seq, vals = as_tensor(sorted_sequence), as_tensor(values)
    if sorter is not None:
        seq = F.gather_elements(seq, -1, as_tensor(sorter))
    if side is not None:
        right = side == "right"
    seq, vals = F.promote(seq, vals)
    return searchsorted_p(seq, vals, right=bool(right),
                          dtype=np.dtype(np.int32 if out_int32 else np.int64))


def bucketize(input: Tensor, boundaries: Any, *, right: bool = False) -> Tensor:
    """The bucket of each element: i with boundaries[i-1] < x <= boundaries[i] (with
    right=True, boundaries[i-1] <= x < boundaries[i]); Int32."""
    x = as_tensor(input)
    edges = Tensor(np.asarray(boundaries, to_np(x.dtype)))
    return searchsorted(edges, x, out_int32=True, right=right)


# ***** outputs sized by the values: read on the host *****

def _host(x, op):
    return x._host(f"ops.{op}: the output shape depends on tensor values")


@overload
def nonzero(input: Tensor, *, as_tuple: Literal[False] = False) -> Tensor: ...
@overload
def nonzero(input: Tensor, *, as_tuple: Literal[True]) -> tuple[Tensor, ...]: ...
def nonzero(input: Tensor, *, as_tuple: bool = False) -> Tensor | tuple[Tensor, ...]:
    """The indices of the non-zero elements, one row each (Int64); with as_tuple, one 1-D
    tensor per axis."""
    x = as_tensor(input)
    positions = np.nonzero(_host(x, "nonzero"))
    if as_tuple:
        return tuple(Tensor(p.astype(np.int64)) for p in positions)
    return Tensor(np.stack(positions, -1).astype(np.int64).reshape(-1, x.ndim))


def argwhere(input: Tensor) -> Tensor:
    """The indices of the non-zero elements, one row each."""
    return nonzero(input, as_tuple=False)


def unique(input: Tensor) -> tuple[Tensor, ...]:
    """(unique values in order of first appearance, the index of each input element among
    them), for the flattened input (MindSpore's order on the CPU)."""
    x = as_tensor(input)
    host = _host(x, "unique").reshape(-1)
    _, first, inverse = np.unique(host, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # sorted unique values -> appearance order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    index_dtype = np.int64 if host.dtype == np.int64 else np.int32
    return Tensor(host[np.sort(first)]), Tensor(rank[inverse.reshape(-1)].astype(index_dtype))


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: Optional[int] = None) -> Tensor | tuple[Tensor, ...]:
    """Each run of equal consecutive elements (or slices along `dim`) reduced to one; also
    the run number of every input element, and the run lengths, when asked."""
    x = as_tensor(input)
    host = _host(x, "unique_consecutive")
    if dim is None:
        host, axis = host.reshape(-1), 0
    else:
        axis = axis_arg("unique_consecutive", x, dim)
    moved = np.moveaxis(host, axis, 0)
    if moved.shape[0] == 0:
        starts = np.zeros(0, bool)
    else:
        changed = (moved[1:] != moved[:-1]).reshape(moved.shape[0] - 1, -1).any(-1)
        starts = np.concatenate([[True], changed])
    runs = np.cumsum(starts) - 1
    values = Tensor(np.moveaxis(moved[starts], 0, axis))
    outputs = [values]
    if return_inverse:
        outputs.append(Tensor(runs.astype(np.int64)))
    if return_counts:
        outputs.append(Tensor(np.diff(np.flatnonzero(np.append(starts, True))).astype(np.int64)))
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def unique_with_pad(x: Tensor, pad_num: Any) -> tuple[Tensor, ...]:
    """unique of a 1-D x, its values padded with pad_num to x's length."""
    values, index = unique(x)
    n = as_tensor(x).shape[0]
    return F.pad(values, ((0, n - values.shape[0]),), value=pad_num), index


def bincount(input: Tensor, weights: Any = None, minlength: int = 0) -> Tensor:
    """How often each value 0..max(input) occurs in the 1-D integer input (summing `weights`
    instead of ones when given), at least `minlength` bins; Float32."""
    x = as_tensor(input)
    if x.ndim != 1 or x.dtype.kind not in "iu":
        raise op_error("bincount", (x,), "input must be a 1-D integer tensor", ValueError)
    if minlength < 0:
        raise ValueError(f"ops.bincount: minlength must be >= 0, got {minlength}")
    host = _host(x, "bincount")
    length = max(int(host.max()) + 1 if host.size else 0, int(minlength))
    counted = F.ones(x.shape, np.float32) if weights is None else \
        F.cast(as_tensor(weights), np.float32)
    return F.scatter_nd(F.expand_dims(x, -1), counted, (length,))


def histc(input: Tensor, bins: int = 100, min: float = 0.0, max: float = 0.0) -> Tensor:
    """Counts of the elements in `bins` equal bins over [min, max] (min == max: the data's
    range); elements outside are not counted, max falls in the last bin."""
    x = as_tensor(input)
    lo, hi = float(min), float(max)
    if lo == hi:
        host = _host(x, "histc")
        lo, hi = (float(host.min()), float(host.max())) if host.size else (0.0, 0.0)
        if lo == hi:
            lo, hi = lo - 1, hi + 1
    flat = F.reshape(F.cast(x, np.float32) if not x.dtype.is_float else x, (-1,))
    position = F.floor(F.mul(F.sub(flat, lo), bins / (hi - lo)))
    index = F.cast(F.minimum(position, float(bins - 1)), np.int64)
    inside = F.cast(F.logical_and(F.greater_equal(flat, lo), F.less_equal(flat, hi)),
                    flat.dtype)
    index = F.where(F.greater(inside, 0), index, 0)
    return F.scatter_nd(F.expand_dims(index, -1), inside, (int(bins),))
