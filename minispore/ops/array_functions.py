"""The array functions of `minispore.ops`: shapes, joining and splitting, indexing and
gathering, sorting, products. Each checks and normalises its arguments as MindSpore does
(-1 in shapes, negative axes, vectors in matmul), then binds a primitive row.
"""
import builtins
from typing import Any, Optional, Sequence, Union

import numpy as np

from ..core.dtype import promote_np
from ..core.hints import Axis, Scalar, ShapeLike, TensorLike
from ..core.tensor import Tensor
from . import functional as F
from . import linalg
from .arguments import (as_tensor, axes_arg, axis_arg, dtype_of, op_error, promote, shape_tuple,
                        to_dtype)
from .indexing import parse_index
from .primitive import REGISTRY, OpTypeError, bind

# sum_to, swap_last_axes and slice_axis are helpers of the op modules (F.sum_to...), not ops;
# pad is the primitive's numpy-style front, which ops.padding's MindSpore-style ops.pad wraps
__all__ = ["reshape", "transpose", "permute", "swapaxes", "expand_dims", "unsqueeze", "squeeze",
           "flatten", "broadcast_to", "concat", "cat", "stack", "split", "tile",
           "getitem", "setitem", "gather", "gather_elements", "one_hot", "sort", "topk",
           "matmul", "addmm", "bmm", "is_tensor", "shape", "rank", "size"]


# ***** shapes *****

def sum_to(x: Tensor, shape: Sequence[int]) -> Tensor:
    """Sum x down to `shape` (the inverse of broadcasting; used by every binary bprop)."""
    target = tuple(shape)
    if tuple(x.shape) == target:
        return x
    lead = x.ndim - len(target)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(target)
                                      if s == 1 and x.shape[i + lead] != 1)
    if axes:
        x = bind(REGISTRY["reduce_sum"], x, axis=axes, keep_dims=True)
    return reshape(x, target) if tuple(x.shape) != target else x


def reshape(x: TensorLike, shape: ShapeLike) -> Tensor:
    """x with a new shape; one entry may be -1."""
    x = x if isinstance(x, Tensor) else Tensor(x)
    target: tuple[int, ...] = shape_tuple(shape)
    if min(target, default=0) < 0:  # one -1 may stand for the size left; no other negative
        known = int(np.prod([s for s in target if s != -1], dtype=np.int64))
        if target.count(-1) != 1 or min(target) < -1 or known == 0 or x.size % known:
            raise op_error("reshape", [x], f"cannot reshape {x.size} elements into shape "
                           f"{target}", shape=target)
        target = tuple(x.size // known if s == -1 else s for s in target)
    if tuple(x.shape) == target:
        return x
    return bind(REGISTRY["reshape"], x, shape=target)


def transpose(x: Tensor, input_perm: Sequence[int]) -> Tensor:
    perm = tuple(axis_arg("transpose", x, p) for p in input_perm)
    if perm == tuple(range(x.ndim)):
        return x
    return bind(REGISTRY["transpose"], x, perm=perm)


permute = transpose


def swap_last_axes(x: Tensor) -> Tensor:
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


def swapaxes(x: Tensor, axis0: int, axis1: int) -> Tensor:
    perm = list(range(x.ndim))
    perm[axis0], perm[axis1] = perm[axis1], perm[axis0]
    return transpose(x, perm)


def expand_dims(x: Tensor, axis: int) -> Tensor:
    axis = int(axis)
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise op_error("expand_dims", [x], f"axis {axis} is out of range for a new axis of a "
                       f"rank-{x.ndim} tensor (valid: {-x.ndim - 1}..{x.ndim})", axis=axis)
    axis = axis % (x.ndim + 1)
    shape = list(x.shape)
    shape.insert(axis, 1)
    return reshape(x, shape)


unsqueeze = expand_dims


def squeeze(x: Tensor, axis: Optional[Axis] = None) -> Tensor:
    shape = x.shape
    if axis is None:
        return reshape(x, [s for s in shape if s != 1])
    axes = axes_arg("squeeze", x, axis) or ()
    for a in axes:
        if shape[a] != 1:
            raise op_error("squeeze", [x], f"axis {a} has size {shape[a]}, not 1", axis=axis)
    return reshape(x, [s for i, s in enumerate(shape) if i not in axes])


def flatten(x: Tensor, order: str = "C", *, start_dim: int = 1, end_dim: int = -1) -> Tensor:
    """Merge axes start_dim..end_dim into one (MindSpore default: all but the batch axis)."""
    if x.ndim == 0:
        return reshape(x, (1,))
    start, end = axis_arg("flatten", x, start_dim), axis_arg("flatten", x, end_dim)
    shape = x.shape
    return reshape(x, shape[:start] + (-1,) + shape[end + 1:])


def broadcast_to(x: Tensor, shape: ShapeLike) -> Tensor:
    given = shape_tuple(shape)
    target = tuple(x.shape[i - (len(given) - x.ndim)] if s == -1 else s
                   for i, s in enumerate(given))
    if tuple(x.shape) == target:
        return x
    return bind(REGISTRY["broadcast_to"], x, shape=target)


def concat(tensors: Sequence[TensorLike], axis: int = 0) -> Tensor:
    """Join tensors along an existing axis."""
    given = [t if isinstance(t, Tensor) else Tensor(t) for t in tensors]
    if len(given) == 1:
        return given[0]
    dtype = given[0]._data.dtype
    for t in given[1:]:
        dtype = promote_np(dtype, t._data.dtype)
    same = [to_dtype(t, dtype) for t in given]  # the primitive takes one dtype
    return bind(REGISTRY["concat"], *same, axis=int(axis))


cat = concat


def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Join tensors along a new axis."""
    return concat([expand_dims(t, axis) for t in tensors], axis)


def slice_axis(x: Tensor, axis: int, start: Optional[int], stop: Optional[int]) -> Tensor:
    """x[..., start:stop, ...] on one axis."""
    index: list[slice] = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return getitem(x, tuple(index))


def split(x: Tensor, split_size_or_sections: Union[int, Sequence[int]],
          axis: int = 0) -> tuple[Tensor, ...]:
    """Split along `axis` into equal chunks of a size, or into the given section sizes."""
    size = x.shape[axis]
    if isinstance(split_size_or_sections, (int, np.integer)):
        step = int(split_size_or_sections)
        sections = [step] * (size // step) + ([size % step] if size % step else [])
    else:
        sections = list(split_size_or_sections)
    if builtins.sum(sections) != size:
        raise op_error("split", [x], f"sections {sections} do not add up to the size {size} of "
                       f"axis {axis}", axis=axis)
    out: list[Tensor] = []
    start = 0
    for s in sections:
        out.append(slice_axis(x, axis, start, start + s))
        start += s
    return tuple(out)


def tile(x: Tensor, multiples: ShapeLike) -> Tensor:
    """x repeated `multiples` times along each axis."""
    reps: tuple[int, ...] = shape_tuple(multiples)
    if min(reps, default=0) < 0:
        raise op_error("tile", [x], f"multiples must not be negative, got {reps}")
    x = reshape(x, (1,) * (len(reps) - x.ndim) + tuple(x.shape)) if len(reps) > x.ndim else x
    reps = (1,) * (x.ndim - len(reps)) + reps
    interleaved = [d for s in x.shape for d in (1, s)]
    target = [d for m, s in zip(reps, x.shape) for d in (m, s)]
    return reshape(broadcast_to(reshape(x, interleaved), target),
                   [m * s for m, s in zip(reps, x.shape)])


def pad(x: Tensor, paddings: Sequence[Sequence[int]], value: Scalar = 0) -> Tensor:
    pairs = tuple((int(a), int(b)) for a, b in paddings)
    return bind(REGISTRY["pad"], x, paddings=pairs, value=value)


def getitem(x: Tensor, index: Any) -> Tensor:  # any Python index expression
    """x[index] (ints, slices, None, ..., integer/bool tensors and lists)."""
    spec, tensors = parse_index(index)
    return bind(REGISTRY["getitem"], x, *tensors, index=spec)


def setitem(x: Tensor, index: Any, value: TensorLike) -> Tensor:
    """A copy of x with x[index] = value (Tensor.__setitem__ adopts it in place)."""
    spec, tensors = parse_index(index)
    return bind(REGISTRY["setitem"], x, to_dtype(value, x._data.dtype), *tensors, index=spec)


def gather(input_params: Tensor, input_indices: TensorLike, axis: int,
           batch_dims: int = 0) -> Tensor:
    """Slices of input_params at `input_indices` along `axis` (MindSpore's ops.gather)."""
    if batch_dims:
        raise NotImplementedError("ops.gather: batch_dims > 0 is not supported")
    index = (slice(None),) * axis_arg("gather", input_params, axis) + (input_indices,)
    return getitem(input_params, index)


def gather_elements(x: Tensor, dim: int, index: TensorLike) -> Tensor:
    """`out[i][j] = x[index[i][j]][j]` for dim 0 (numpy's take_along_axis)."""
    return bind(REGISTRY["take_along_axis"], x, as_tensor(index),
                axis=axis_arg("gather_elements", x, dim))


def one_hot(indices: Tensor, depth: int, on_value: TensorLike = 1.0, off_value: TensorLike = 0.0,
            axis: int = -1) -> Tensor:
    """One-hot encoding: depth entries along a new axis at `axis` (the last by default;
    Float32 by default).

        >>> ops.one_hot(ms.Tensor(np.array([[0, 2]], np.int32)), 3, axis=0).shape
        (3, 1, 2)
    """
    if dtype_of(indices).kind not in "iu":
        raise op_error("one_hot", [indices], "indices must be an integer tensor", OpTypeError)
    hit = F.equal(expand_dims(indices, -1), F.arange(int(depth), dtype=dtype_of(indices)))
    out = F.where(hit, Tensor(on_value, np.float32) if isinstance(on_value, float) else on_value,
                Tensor(off_value, np.float32) if isinstance(off_value, float) else off_value)
    if axis == -1:
        return out
    rank = out.ndim
    if not -rank <= axis < rank:
        raise op_error("one_hot", [indices], f"axis must lie in [-{rank}, {rank}), got {axis}")
    # the new axis moves to `axis`, the others keep their order
    position = axis % rank
    perm = tuple(range(position)) + (rank - 1,) + tuple(range(position, rank - 1))
    return F.transpose(out, perm)


def sort(x: Tensor, axis: int = -1, descending: bool = False) -> tuple[Tensor, Tensor]:
    """(values, indices) sorted along `axis` (stable)."""
    return bind(REGISTRY["sort"], x, axis=axis_arg("sort", x, axis), descending=bool(descending))


def topk(x: Tensor, k: int, dim: Optional[int] = -1, largest: bool = True,
         sorted: bool = True) -> tuple[Tensor, Tensor]:
    """(values, indices) of the k largest (or smallest) entries along `dim` (None: the last)."""
    axis = axis_arg("topk", x, -1 if dim is None else dim)
    values, indices = sort(x, axis, descending=largest)
    return slice_axis(values, axis, 0, k), slice_axis(indices, axis, 0, k)


def matmul(x: TensorLike, y: TensorLike, *, transpose_a: bool = False,
           transpose_b: bool = False) -> Tensor:
    """Matrix product with numpy's rules for vectors and batch broadcasting; `transpose_a` /
    `transpose_b` swap the last two axes of a matrix operand first (free: BLAS reads it so).

        >>> w = ms.Tensor(np.ones((3, 2), np.float32))
        >>> ops.matmul(ms.Tensor(np.ones((4, 2), np.float32)), w, transpose_b=True).shape
        (4, 3)
    """
    a, b = as_tensor(x), as_tensor(y)
    if a._data.dtype != b._data.dtype:
        a, b = promote(a, b)
    if a.ndim == 1 or b.ndim == 1:
        if transpose_a or transpose_b:
            raise ValueError(f"matmul: transpose_a/transpose_b need matrices, got shapes "
                             f"{a.shape} and {b.shape}")
        if a.ndim == 1 and b.ndim == 1:
            return reshape(bind(REGISTRY["matmul"], reshape(a, (1, -1)), reshape(b, (-1, 1))), ())
        if a.ndim == 1:
            return squeeze(bind(REGISTRY["matmul"], expand_dims(a, 0), b), -2)
        return squeeze(bind(REGISTRY["matmul"], a, expand_dims(b, -1)), -1)
    return linalg.matmul_flags(a, b, transpose_a, transpose_b)


def addmm(input: TensorLike, mat1: TensorLike, mat2: TensorLike, *, beta: Scalar = 1,
          alpha: Union[Scalar, Tensor] = 1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2) for matrices mat1, mat2 and an input broadcasting
    to their product, as MindSpore's ops.addmm (one BLAS call on the CPU).

        >>> eye = ms.Tensor(np.eye(2, dtype=np.float32))
        >>> ops.addmm(ms.Tensor(np.ones((2, 2), np.float32)), eye, eye, alpha=2).asnumpy().tolist()
        [[3.0, 1.0], [1.0, 3.0]]
    """
    input, mat1, mat2 = (x if isinstance(x, Tensor) else Tensor(x) for x in (input, mat1, mat2))
    if beta != 1:
        input = F.mul(input, beta)
    dtype = mat1._data.dtype
    alpha = F.cast(alpha, dtype) if isinstance(alpha, Tensor) else Tensor(np.asarray(alpha, dtype))
    return bind(REGISTRY["addmm"], to_dtype(input, dtype), mat1, mat2, alpha)


def bmm(x: TensorLike, y: TensorLike) -> Tensor:
    """Batched matrix product of (..., n, k) and (..., k, m)."""
    return matmul(x, y)


def is_tensor(x: object) -> bool:
    return isinstance(x, Tensor)


def shape(x: Tensor) -> tuple[int, ...]:
    return tuple(x.shape)


def rank(x: Tensor) -> int:
    return x.ndim


def size(x: Tensor) -> int:
    return x.size
