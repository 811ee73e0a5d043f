"""Gathering and scattering by index: along an axis (scatter, tensor_scatter_elements), by
N-d index tuples (gather_nd, scatter_nd, tensor_scatter_*), along the first axis into a
Parameter (scatter_add/sub/update), by masks (masked_select), and index_add/index_fill.

One new row, `scatter_along_axis` (numpy's put_along_axis: out = base with base[idx] = values
along an axis); the rest are composites of getitem / index_add / setitem and the
along-axis rows of ops.array, whose bprops and batching rules they reuse.

    >>> ops.scatter_nd(ms.Tensor([[0], [2], [0]]), ms.Tensor([1.0, 2.0, 3.0]), (4,)).tolist()
    [4.0, 0.0, 2.0, 0.0]
"""
from __future__ import annotations
from typing import Callable, Sequence
import numpy as np

from . import array as A
from . import functional as F
from .arguments import as_tensor, axis_arg, op_error
from .primitive import OpTypeError, Primitive
from .state import assign
from ..core.hints import Tensor, TensorLike, Axis, ShapeLike

__all__ = ["scatter", "tensor_scatter_elements", "gather_d", "gather_nd", "scatter_nd",
           "tensor_scatter_add", "tensor_scatter_sub", "tensor_scatter_update", "scatter_add",
           "scatter_sub", "scatter_update", "scatter_nd_add", "scatter_nd_sub",
           "scatter_nd_update", "index_add", "index_fill", "masked_select"]


def _scatter_impl(xp, base, idx, values, axis):
    out = base.copy()
    grid = list(xp.ix_(*[xp.arange(s) for s in idx.shape]))
    grid[axis] = idx
    out[tuple(grid)] = xp.broadcast_to(values, idx.shape)
    return out


def _scatter_bprop(base, idx, values, out, dout, axis):
    # where an index repeats, the value written last (numpy's order) is the one kept, but
    # each writer gets the gradient read back at its position
    cleared = scatter_along_axis(dout, idx, F.zeros_like(values), axis=axis)
    return cleared, None, F.take_along_axis(dout, idx, axis=axis)


scatter_along_axis = Primitive(
    "scatter_along_axis", infer=lambda base, idx, values, axis: base, impl=_scatter_impl,
    bprop=_scatter_bprop, batch=A._along_axis_batch,
    doc="out = base.copy(); out[..., idx[...], ...] = values along `axis`")


def tensor_scatter_elements(input_x: Tensor, indices: TensorLike, updates: TensorLike, axis: Axis = 0, reduction: str = "none") -> Tensor:
    """A copy of input_x with updates written (reduction 'none') or added ('add') at
    `indices` along `axis`: `out[i][indices[i][j]][k] = updates[i][j][k]` for axis 1."""
    x, idx = as_tensor(input_x), as_tensor(indices)
    axis = axis_arg("tensor_scatter_elements", x, axis)
    updates = F.cast(as_tensor(updates), x.dtype)
    if reduction == "add":
        return F.scatter_add_along_axis(x, idx, updates, axis=axis)
    if reduction != "none":
        raise ValueError(f"ops.tensor_scatter_elements: reduction must be 'none' or 'add', "
                         f"got {reduction!r}")
    return scatter_along_axis(x, idx, updates, axis=axis)


def scatter(input: Tensor, axis: Axis, index: TensorLike, src: TensorLike) -> Tensor:
    """A copy of input with src written at `index` along `axis` (PyTorch's scatter)."""
    return tensor_scatter_elements(input, index, src, axis)


def gather_d(x: Tensor, dim: int, index: TensorLike) -> Tensor:
    return F.gather_elements(x, dim, index)


def index_tuple(op, indices, target):
    """The index tensors indices[..., 0], indices[..., 1]... (one per leading axis of the
    target that indices' last axis addresses) and the matching getitem spec."""
    idx = as_tensor(indices)
    if idx.dtype.kind not in "iu":
        raise op_error(op, (idx,), "indices must be an integer tensor", OpTypeError)
    depth = idx.shape[-1]
    if depth > target.ndim:
        raise op_error(op, (target, idx), f"indices address {depth} axes of a rank-"
                       f"{target.ndim} tensor")
    parts = tuple(F.getitem(idx, (Ellipsis, k)) for k in range(depth))
    return parts, tuple(("tensor", k) for k in range(depth))


def gather_nd(input_x: Tensor, indices: TensorLike) -> Tensor:
    """input_x at the index tuples in the last axis of `indices`:
    out[i, j] = input_x[indices[i, j, 0], indices[i, j, 1], ...]."""
    x = as_tensor(input_x)
    parts, _ = index_tuple("gather_nd", indices, x)
    return F.getitem(x, parts)


def _index_add(base, indices, updates):
    parts, spec = index_tuple("index_add", indices, base)
    return A.index_add(base, F.cast(as_tensor(updates), base.dtype), *parts, index=spec)


def scatter_nd(indices: TensorLike, updates: TensorLike, shape: Sequence[int]) -> Tensor:
    """A zero tensor of `shape` with updates added at the index tuples of `indices`
    (repeated indices accumulate)."""
    updates = as_tensor(updates)
    return _index_add(F.zeros(tuple(shape), updates.dtype), indices, updates)


def tensor_scatter_add(input_x: Tensor, indices: TensorLike, updates: TensorLike) -> Tensor:
    """A copy of input_x with updates added at the index tuples of `indices`."""
    return _index_add(as_tensor(input_x), indices, updates)


def tensor_scatter_sub(input_x: Tensor, indices: TensorLike, updates: TensorLike) -> Tensor:
    return _index_add(as_tensor(input_x), indices, F.neg(as_tensor(updates)))


def tensor_scatter_update(input_x: Tensor, indices: TensorLike, updates: TensorLike) -> Tensor:
    """A copy of input_x with updates written at the index tuples of `indices`."""
    x = as_tensor(input_x)
    parts, spec = index_tuple("tensor_scatter_update", indices, x)
    return A.setitem(x, F.cast(as_tensor(updates), x.dtype), *parts, index=spec)


def first_axis_indices(indices: TensorLike) -> Tensor:
    """Indices of the first axis as a one-column index tuple for the nd functions."""
    return F.expand_dims(as_tensor(indices), -1)


# MindSpore's Parameter-updating forms: input_x (a Parameter) takes the result and is returned

def parameter_update(tensor_scatter: Callable[[Tensor, TensorLike, TensorLike], Tensor],
                     name: str) -> Callable[..., Tensor]:
    """scatter_nd_<op>(input_x, indices, updates): input_x assigned tensor_scatter's result."""
    def update(input_x: Tensor, indices: TensorLike, updates: TensorLike,
               use_locking: bool = False) -> Tensor:
        return assign(input_x, tensor_scatter(input_x, indices, updates))
    update.__name__ = update.__qualname__ = name
    update.__doc__ = f"ops.{tensor_scatter.__name__}(input_x, indices, updates), written into " \
                     f"input_x (a Parameter), which is returned."
    return update


def along_first_axis(nd_update: Callable[..., Tensor],
                     name: str) -> Callable[[Tensor, TensorLike, TensorLike], Tensor]:
    """scatter_<op>(input_x, indices, updates): nd_update with indices of the first axis."""
    def update(input_x: Tensor, indices: TensorLike, updates: TensorLike) -> Tensor:
        return nd_update(input_x, first_axis_indices(indices), updates)
    update.__name__ = update.__qualname__ = name
    update.__doc__ = f"ops.{nd_update.__name__} with `indices` addressing the first axis."
    return update


scatter_nd_add = parameter_update(tensor_scatter_add, "scatter_nd_add")
scatter_nd_sub = parameter_update(tensor_scatter_sub, "scatter_nd_sub")
scatter_nd_update = parameter_update(tensor_scatter_update, "scatter_nd_update")
scatter_add = along_first_axis(scatter_nd_add, "scatter_add")
scatter_sub = along_first_axis(scatter_nd_sub, "scatter_sub")
scatter_update = along_first_axis(scatter_nd_update, "scatter_update")


def add_at_indices(input, dim, index, source, alpha=1):
    """A copy of input with alpha * source's slices added at `index` along `dim` (PyTorch's
    index_add; repeated indices accumulate)."""
    x = as_tensor(input)
    dim = axis_arg("index_add", x, dim)
    source = F.movedim(as_tensor(source), dim, 0)
    added = tensor_scatter_add(F.movedim(x, dim, 0), first_axis_indices(index),
                               source if alpha == 1 else F.mul(source, alpha))
    return F.movedim(added, 0, dim)


def index_add(x: Tensor, indices: TensorLike, y: TensorLike, axis: Axis, use_lock: bool = True, check_index_bound: bool = True) -> Tensor:
    """x's slices at `indices` along `axis` incremented by y's, in place (x a Parameter)."""
    return assign(x, add_at_indices(x, axis, indices, y))


def index_fill(x: Tensor, axis: int, index: TensorLike, value: float) -> Tensor:
    """A copy of x with `value` in the slices at `index` along `axis`."""
    x = as_tensor(x)
    axis = axis_arg("index_fill", x, axis)
    return F.setitem(x, (slice(None),) * axis + (as_tensor(index),), value)


def masked_select(input: Tensor, mask: TensorLike) -> Tensor:
    """The elements of input where the (broadcast) bool mask holds, as a 1-D tensor. Its
    length depends on the mask's values: Graph mode reads the mask on the host (a graph
    break)."""
    x, mask = as_tensor(input), as_tensor(mask)
    shape = tuple(np.broadcast_shapes(x.shape, mask.shape))
    return F.getitem(F.broadcast_to(x, shape), F.broadcast_to(mask, shape))
