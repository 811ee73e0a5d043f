"""Layout ops: flips and rolls, moving and splitting axes, stacking, repeating, meshgrids.
Every one is an exact composite of reshape/transpose/getitem/concat/broadcast_to rows (most
are views or one copy), so gradients and both modes come from those rows.

    >>> ops.roll(ms.Tensor([1, 2, 3, 4]), 1)
    Tensor(shape=[4], dtype=Int64, value= [4, 1, 2, 3])
"""
import builtins
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from ..core.hints import Axis, DTypeLike, Scalar, TensorLike
from ..core.tensor import Tensor
from . import functional as F
from .arguments import as_tensor, axis_arg, op_error

__all__ = ["flip", "fliplr", "flipud", "reverse", "roll", "rot90", "movedim", "moveaxis",
           "swapdims", "narrow", "chunk", "unbind", "unstack", "hstack", "vstack", "row_stack",
           "dstack", "column_stack", "atleast_1d", "atleast_2d", "atleast_3d", "tensor_split",
           "hsplit", "vsplit", "dsplit", "unflatten", "meshgrid", "repeat_interleave",
           "repeat_elements", "expand_as", "expand", "view_as", "t", "ravel", "numel",
           "full_like", "diff", "cartesian_prod", "select_scatter", "slice_scatter",
           "index_select", "masked_fill", "take"]


def _axes_of(op, x, dims):
    dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    return tuple(axis_arg(op, x, d) for d in dims)


def flip(input: TensorLike, dims: Axis) -> Tensor:
    """input with the order of elements reversed along each axis in `dims` (a view)."""
    x = as_tensor(input)
    axes = _axes_of("flip", x, dims)
    if x.ndim == 0:
        return x
    return F.getitem(x, tuple(slice(None, None, -1) if a in axes else slice(None)
                              for a in builtins.range(x.ndim)))


def reverse(x: TensorLike, axis: Axis) -> Tensor:
    """MindSpore 1.x's name of flip."""
    return flip(x, axis)


def fliplr(input: TensorLike) -> Tensor:
    """Reverse the columns (axis 1) of a tensor of rank >= 2."""
    return flip(input, 1)


def flipud(input: TensorLike) -> Tensor:
    """Reverse the rows (axis 0)."""
    return flip(input, 0)


def roll(input: TensorLike, shifts: Union[int, Sequence[int]], dims: Optional[Axis] = None) -> Tensor:
    """Elements shifted by `shifts` along `dims` (cyclically); with dims None, over the
    flattened tensor, the shape then restored."""
    x = as_tensor(input)
    if dims is None:
        return F.reshape(roll(F.reshape(x, (-1,)), shifts, 0), x.shape)
    shifts = (shifts,) if isinstance(shifts, (int, np.integer)) else tuple(shifts)
    axes = _axes_of("roll", x, dims)
    if len(shifts) != len(axes):
        raise op_error("roll", (x,), f"shifts {shifts} and dims {dims} differ in length",
                       ValueError)
    for shift, axis in zip(shifts, axes):
        size = x.shape[axis]
        cut = size - int(shift) % size if size else 0
        if 0 < cut < size:
            x = F.concat([F.slice_axis(x, axis, cut, size), F.slice_axis(x, axis, 0, cut)], axis)
    return x


def rot90(input: TensorLike, k: int, dims: Sequence[int]) -> Tensor:
    """Rotate by 90 degrees k times in the plane of `dims`, from the first axis toward the
    second (numpy's rot90)."""
    x = as_tensor(input)
    a, b = _axes_of("rot90", x, dims)
    if a == b:
        raise op_error("rot90", (x,), f"dims {dims} must be two different axes", ValueError)
    k = int(k) % 4
    if k == 1:
        return F.swapaxes(flip(x, b), a, b)
    if k == 2:
        return flip(x, (a, b))
    if k == 3:
        return flip(F.swapaxes(x, a, b), b)
    return x


def movedim(x: TensorLike, source: Axis, destination: Axis) -> Tensor:
    """x with the axes `source` moved to the positions `destination` (others keep order)."""
    x = as_tensor(x)
    sources, targets = _axes_of("movedim", x, source), _axes_of("movedim", x, destination)
    if len(sources) != len(targets):
        raise op_error("movedim", (x,), "source and destination differ in length", ValueError)
    rest = [a for a in builtins.range(x.ndim) if a not in sources]
    perm: list = [None] * x.ndim
    for s, d in zip(sources, targets):
        perm[d] = s
    rest_iter = iter(rest)
    return F.transpose(x, tuple(p if p is not None else next(rest_iter) for p in perm))


moveaxis = movedim


def swapdims(input: TensorLike, dim0: int, dim1: int) -> Tensor:
    x = as_tensor(input)
    return F.swapaxes(x, axis_arg("swapdims", x, dim0), axis_arg("swapdims", x, dim1))


def narrow(input: TensorLike, axis: int, start: int, length: int) -> Tensor:
    """input[..., start:start + length, ...] along `axis`."""
    x = as_tensor(input)
    axis = axis_arg("narrow", x, axis)
    return F.slice_axis(x, axis, int(start), int(start) + int(length))


def chunk(input: TensorLike, chunks: int, axis: int = 0) -> Tuple[Tensor, ...]:
    """Split into `chunks` pieces of ceil(size / chunks) along `axis` (the last smaller;
    fewer pieces when the size runs out first)."""
    x = as_tensor(input)
    axis = axis_arg("chunk", x, axis)
    size = x.shape[axis]
    step = max(-(-size // int(chunks)), 1)
    return tuple(F.slice_axis(x, axis, s, min(s + step, size))
                 for s in builtins.range(0, size, step))


def unbind(input: TensorLike, dim: int = 0) -> Tuple[Tensor, ...]:
    """The slices along `dim`, each without that axis."""
    x = as_tensor(input)
    dim = axis_arg("unbind", x, dim)
    return tuple(F.getitem(x, (slice(None),) * dim + (i,)) for i in builtins.range(x.shape[dim]))


def unstack(input_x: TensorLike, axis: int = 0) -> Tuple[Tensor, ...]:
    return unbind(input_x, axis)


def _each(fn, inputs):
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(fn(as_tensor(x)) for x in inputs)
    return fn(as_tensor(inputs))


def atleast_1d(inputs: Union[TensorLike, Sequence[TensorLike]]) -> Any:
    """Each tensor with at least one axis (0-d ones become shape (1,))."""
    return _each(lambda x: F.reshape(x, (1,)) if x.ndim == 0 else x, inputs)


def atleast_2d(inputs: Union[TensorLike, Sequence[TensorLike]]) -> Any:
    """Each tensor with at least two axes (new axes in front)."""
    return _each(lambda x: F.reshape(x, (1,) * (2 - x.ndim) + x.shape) if x.ndim < 2 else x,
                 inputs)


def atleast_3d(inputs: Union[TensorLike, Sequence[TensorLike]]) -> Any:
    """Each tensor with at least three axes: (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    def lift(x):
        if x.ndim == 0:
            return F.reshape(x, (1, 1, 1))
        if x.ndim == 1:
            return F.reshape(x, (1, x.shape[0], 1))
        return F.expand_dims(x, -1) if x.ndim == 2 else x
    return _each(lift, inputs)


def hstack(tensors: Sequence[TensorLike]) -> Tensor:
    """Concatenate along axis 1 (axis 0 for 1-D tensors)."""
    ts = [as_tensor(t) for t in tensors]
    return F.concat(ts, 0 if all(t.ndim <= 1 for t in ts) else 1) \
        if all(t.ndim >= 1 for t in ts) else F.concat(atleast_1d(ts), 0)


def vstack(tensors: Sequence[TensorLike]) -> Tensor:
    """Concatenate along axis 0 after making every tensor at least 2-D."""
    return F.concat(atleast_2d(list(tensors)), 0)


row_stack = vstack


def dstack(tensors: Sequence[TensorLike]) -> Tensor:
    """Concatenate along axis 2 after making every tensor at least 3-D."""
    return F.concat(atleast_3d(list(tensors)), 2)


def column_stack(tensors: Sequence[TensorLike]) -> Tensor:
    """1-D tensors become columns; then concatenate along axis 1."""
    columns = [F.reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in map(as_tensor, tensors)]
    return F.concat(columns, 1)


def tensor_split(input: TensorLike, indices_or_sections: Union[int, Sequence[int]],
                 axis: int = 0) -> Tuple[Tensor, ...]:
    """Split into n nearly equal pieces (the first size % n one longer), or at the given
    indices (numpy's array_split)."""
    x = as_tensor(input)
    axis = axis_arg("tensor_split", x, axis)
    size = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        n = int(indices_or_sections)
        sizes = [size // n + (i < size % n) for i in builtins.range(n)]
        bounds = np.cumsum([0] + sizes).tolist()
    else:
        bounds = [0] + [min(int(i), size) for i in indices_or_sections] + [size]
    return tuple(F.slice_axis(x, axis, lo, max(lo, hi)) for lo, hi in zip(bounds, bounds[1:]))


def hsplit(input: TensorLike, indices_or_sections: Union[int, Sequence[int]]) -> Tuple[Tensor, ...]:
    x = as_tensor(input)
    return tensor_split(x, indices_or_sections, 1 if x.ndim > 1 else 0)


def vsplit(input: TensorLike, indices_or_sections: Union[int, Sequence[int]]) -> Tuple[Tensor, ...]:
    return tensor_split(input, indices_or_sections, 0)


def dsplit(input: TensorLike, indices_or_sections: Union[int, Sequence[int]]) -> Tuple[Tensor, ...]:
    return tensor_split(input, indices_or_sections, 2)


def unflatten(input: TensorLike, axis: int, unflattened_size: Sequence[int]) -> Tensor:
    """Axis `axis` split into the axes `unflattened_size` (one entry may be -1)."""
    x = as_tensor(input)
    axis = axis_arg("unflatten", x, axis)
    return F.reshape(x, x.shape[:axis] + tuple(unflattened_size) + x.shape[axis + 1:])


def meshgrid(*inputs: Any, indexing: str = "xy") -> Tuple[Tensor, ...]:
    """Coordinate grids of 1-D tensors; 'xy' swaps the first two output axes ('ij' does not)."""
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"ops.meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    vectors = [F.reshape(as_tensor(x), (-1,)) for x in inputs]
    shape = [x.shape[0] for x in vectors]
    order = list(builtins.range(len(vectors)))
    if indexing == "xy" and len(vectors) > 1:
        shape[0], shape[1] = shape[1], shape[0]
        order[0], order[1] = 1, 0
    grids = []
    for i, x in enumerate(vectors):
        view = [1] * len(vectors)
        view[order.index(i)] = x.shape[0]
        grids.append(F.broadcast_to(F.reshape(x, view), shape))
    return tuple(grids)


def repeat_interleave(input: TensorLike, repeats: Union[int, Sequence[int], Tensor],
                      axis: Optional[int] = None) -> Tensor:
    """Each element repeated `repeats` times along `axis` (None: of the flattened input);
    repeats an int, or one count per element (a list or tensor, read on the host)."""
    x = as_tensor(input)
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    axis = axis_arg("repeat_interleave", x, axis)
    counts = np.asarray(repeats.asnumpy() if isinstance(repeats, Tensor) else repeats).reshape(-1)
    if counts.size == 1:
        n = int(counts[0])
        spread = F.expand_dims(x, axis + 1)
        shape = x.shape[:axis + 1] + (n,) + x.shape[axis + 1:]
        merged = x.shape[:axis] + (x.shape[axis] * n,) + x.shape[axis + 1:]
        return F.reshape(F.broadcast_to(spread, shape), merged)
    positions = np.repeat(np.arange(x.shape[axis]), counts)
    return F.gather(x, Tensor(positions), axis)


def repeat_elements(x: TensorLike, rep: int, axis: int = 0) -> Tensor:
    return repeat_interleave(x, int(rep), axis)


def expand_as(input: TensorLike, other: TensorLike) -> Tensor:
    """input broadcast to other's shape."""
    return F.broadcast_to(as_tensor(input), as_tensor(other).shape)


def expand(input_x: TensorLike, size: Sequence[int]) -> Tensor:
    """input broadcast to `size` (-1 keeps an axis)."""
    return F.broadcast_to(as_tensor(input_x), tuple(int(s) for s in size))


def view_as(input: TensorLike, other: TensorLike) -> Tensor:
    return F.reshape(as_tensor(input), as_tensor(other).shape)


def t(input: TensorLike) -> Tensor:
    """The transpose of a matrix (a 1-D or 0-d tensor is returned as it is)."""
    x = as_tensor(input)
    if x.ndim > 2:
        raise op_error("t", (x,), "input must have at most 2 dimensions", ValueError)
    return F.transpose(x, (1, 0)) if x.ndim == 2 else x


def ravel(input: TensorLike) -> Tensor:
    return F.reshape(as_tensor(input), (-1,))


def numel(input: TensorLike) -> int:
    return as_tensor(input).size


def take(input: TensorLike, index: TensorLike) -> Tensor:
    """Elements of the flattened input at `index` (the result has index's shape)."""
    return F.getitem(ravel(input), as_tensor(index))


def full_like(input: TensorLike, fill_value: Scalar, *, dtype: Optional[DTypeLike] = None) -> Tensor:
    """A tensor like input filled with fill_value."""
    x = as_tensor(input)
    return F.full(x.shape, fill_value, dtype or x.dtype)


def range(start: Union[Scalar, Tensor], end: Union[Scalar, Tensor], step: Union[Scalar, Tensor],
          maxlen: int = 1000000) -> Tensor:
    """[start, end) in steps of step; Int64 for integer bounds, else Float32. (Exported
    by minispore.ops itself: ops.functional uses the builtin range.)"""
    first, last, stride = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    return F.arange(first, last, stride)


def diff(x: TensorLike, n: int = 1, axis: int = -1, prepend: Optional[TensorLike] = None,
         append: Optional[TensorLike] = None) -> Tensor:
    """The n-th forward difference along `axis` (with prepend/append joined first)."""
    x = as_tensor(x)
    axis = axis_arg("diff", x, axis)
    pieces = [as_tensor(p) for p in (prepend, x, append) if p is not None]
    x = F.concat(pieces, axis) if len(pieces) > 1 else x
    for _ in builtins.range(int(n)):
        size = x.shape[axis]
        x = F.sub(F.slice_axis(x, axis, 1, size), F.slice_axis(x, axis, 0, size - 1))
    return x


def cartesian_prod(*inputs: TensorLike) -> Tensor:
    """Every combination of the 1-D inputs' elements, as rows of a (N, k) tensor."""
    grids = meshgrid(*inputs, indexing="ij")
    return F.stack([F.reshape(g, (-1,)) for g in grids], 1) if len(grids) > 1 else grids[0]


def select_scatter(input: TensorLike, src: TensorLike, axis: int, index: int) -> Tensor:
    """A copy of input with input[..., index, ...] (along axis) replaced by src."""
    x = as_tensor(input)
    axis = axis_arg("select_scatter", x, axis)
    return F.setitem(x, (slice(None),) * axis + (int(index),), src)


def slice_scatter(input: TensorLike, src: TensorLike, axis: int = 0, start: Optional[int] = None,
                  end: Optional[int] = None, step: int = 1) -> Tensor:
    """A copy of input with the slice start:end:step along axis replaced by src."""
    x = as_tensor(input)
    axis = axis_arg("slice_scatter", x, axis)
    return F.setitem(x, (slice(None),) * axis + (slice(start, end, step),), src)


def index_select(input: TensorLike, axis: int, index: TensorLike) -> Tensor:
    """The slices of input at `index` (a 1-D integer tensor) along `axis`."""
    x = as_tensor(input)
    return F.gather(x, as_tensor(index), axis_arg("index_select", x, axis))


def masked_fill(input_x: TensorLike, mask: TensorLike, value: Union[Scalar, Tensor]) -> Tensor:
    """input_x with `value` where the (broadcast) bool mask is True.

        >>> ops.masked_fill(ms.Tensor([1.0, 2.0]), ms.Tensor([True, False]), 0.0)
        Tensor(shape=[2], dtype=Float32, value= [ 0.00000000e+00,  2.00000000e+00])
    """
    x = as_tensor(input_x)
    value = F.cast(value, x.dtype) if isinstance(value, Tensor) else F.full((), value, x.dtype)
    return F.where(as_tensor(mask), value, x)
