"""Scatters that combine by max, min or product: tensor_scatter_max/min/mul/div, their
Parameter-updating forms (scatter_max..., scatter_nd_max...), and the segment reductions
unsorted_segment_max/min/prod.

One row, `index_reduce` (numpy's maximum.at / minimum.at / multiply.at on a copy of the base),
with the same index spec as getitem/index_add (ops.indexing). Its gradient: for max/min, the
elements equal to the result share it (ties split evenly); for a product, the base's is the
product of the updates at its position, an update's is out / update (defined for non-zero
updates, as MindSpore's ScatterMul gradient).

    >>> ops.tensor_scatter_max(ms.Tensor([1.0, 5.0]), ms.Tensor([[0], [0]]), ms.Tensor([3.0, 2.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00,  5.00000000e+00])
"""
from __future__ import annotations
from typing import Any
import functools

import numpy as np

from . import array as A
from . import functional as F
from .arguments import as_tensor
from .indexing import build_index
from .primitive import Primitive
from .scatter import along_first_axis, index_tuple, parameter_update
from ..core.hints import Tensor, TensorLike

__all__ = ["tensor_scatter_max", "tensor_scatter_min", "tensor_scatter_mul",
           "tensor_scatter_div", "scatter_max", "scatter_min", "scatter_mul", "scatter_div",
           "scatter_nd_max", "scatter_nd_min", "scatter_nd_mul", "scatter_nd_div",
           "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod"]

_UFUNCS = {"max": "maximum", "min": "minimum", "mul": "multiply"}


def _index_reduce_impl(xp, base, values, *tensors, index, reduce):
    out = base.copy()
    getattr(xp, _UFUNCS[reduce]).at(out, build_index(index, tensors), values)
    return out


def _index_reduce_bprop(base, values, *rest, index, reduce):
    out, dout, tensors = rest[-2], rest[-1], rest[:-2]
    gathered = functools.partial(A.getitem, index=index)
    if reduce == "mul":
        product = index_reduce(F.ones_like(base), values, *tensors, index=index, reduce="mul")
        d_values = F.div(gathered(F.mul(dout, out), *tensors), values)
        return (F.mul(dout, product), F.sum_to(d_values, values.shape),
                *(None for _ in tensors))
    base_hit = F.cast(F.equal(base, out), dout.dtype)
    value_hit = F.cast(F.equal(values, gathered(out, *tensors)), dout.dtype)
    spread = F.broadcast_to(value_hit, gathered(out, *tensors).shape)
    count = A.index_add(base_hit, spread, *tensors, index=index)
    share = F.div(dout, F.maximum(count, 1))
    d_values = F.mul(gathered(share, *tensors), value_hit)
    return (F.mul(share, base_hit), F.sum_to(d_values, values.shape), *(None for _ in tensors))


def _index_reduce_batch(prim, args, dims, axis_size, index, reduce):
    # as index_add's rule: every lane reduces into its own copy of the base
    return A._index_update_batch(functools.partial(prim, reduce=reduce), args, dims,
                                 axis_size, index=index)


index_reduce = Primitive(
    "index_reduce", infer=lambda base, values, *t, index, reduce: base,
    impl=_index_reduce_impl, bprop=_index_reduce_bprop, batch=_index_reduce_batch,
    doc="out = base.copy(); out[index] = reduce(out[index], values) for reduce max, min or "
        "mul, repeated indices combining all their values")


def _reduce_nd(reduce, input_x, indices, updates):
    x = as_tensor(input_x)
    parts, spec = index_tuple(f"tensor_scatter_{reduce}", indices, x)
    return index_reduce(x, F.cast(as_tensor(updates), x.dtype), *parts, index=spec,
                        reduce=reduce)


def tensor_scatter_max(input_x: Tensor, indices: TensorLike, updates: TensorLike) -> Tensor:
    """A copy of input_x where each element addressed by the index tuples of `indices`
    becomes the maximum of itself and the updates sent there."""
    return _reduce_nd("max", input_x, indices, updates)


def tensor_scatter_min(input_x: Tensor, indices: TensorLike, updates: TensorLike) -> Tensor:
    return _reduce_nd("min", input_x, indices, updates)


def tensor_scatter_mul(input_x: Tensor, indices: TensorLike, updates: TensorLike) -> Tensor:
    """A copy of input_x with the addressed elements multiplied by their updates."""
    return _reduce_nd("mul", input_x, indices, updates)


def tensor_scatter_div(input_x: Tensor, indices: TensorLike, updates: TensorLike) -> Tensor:
    """A copy of input_x with the addressed elements divided by their updates."""
    return _reduce_nd("mul", input_x, indices, F.reciprocal(as_tensor(updates)))


scatter_nd_max = parameter_update(tensor_scatter_max, "scatter_nd_max")
scatter_nd_min = parameter_update(tensor_scatter_min, "scatter_nd_min")
scatter_nd_mul = parameter_update(tensor_scatter_mul, "scatter_nd_mul")
scatter_nd_div = parameter_update(tensor_scatter_div, "scatter_nd_div")
scatter_max = along_first_axis(scatter_nd_max, "scatter_max")
scatter_min = along_first_axis(scatter_nd_min, "scatter_min")
scatter_mul = along_first_axis(scatter_nd_mul, "scatter_mul")
scatter_div = along_first_axis(scatter_nd_div, "scatter_div")


def _segments(reduce, empty, input_x, segment_ids, num_segments):
    x, ids = as_tensor(input_x), as_tensor(segment_ids)
    shape = (int(num_segments),) + x.shape[ids.ndim:]
    return _reduce_nd(reduce, F.full(shape, empty, x.dtype), F.expand_dims(ids, -1), x)


def _extreme(dtype, high):
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    return info.max if high else info.min


def unsorted_segment_max(input_x: Tensor, segment_ids: Any, num_segments: int) -> Tensor:
    """out[s] = max of the slices of input_x whose segment id is s (the dtype's lowest
    value for an empty segment)."""
    x = as_tensor(input_x)
    return _segments("max", _extreme(x._data.dtype, False), x, segment_ids, num_segments)


def unsorted_segment_min(input_x: Tensor, segment_ids: Any, num_segments: int) -> Tensor:
    x = as_tensor(input_x)
    return _segments("min", _extreme(x._data.dtype, True), x, segment_ids, num_segments)


def unsorted_segment_prod(input_x: Tensor, segment_ids: Any, num_segments: int) -> Tensor:
    return _segments("mul", 1, input_x, segment_ids, num_segments)
