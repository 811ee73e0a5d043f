"""The rest of MindSpore's functional `ops` that code meets: 1.x aliases (tensor_add,
floordiv...), scalar helpers, in-place functional forms (zero_, uniform_...), band and
diagonal helpers (matrix_diag, matrix_set_diag, diagonal_scatter), segment sums, windows,
and small linear-algebra and nn helpers (dist, pdist, renorm, bias_add...); clipping by norm is
in ops.clip.
Each is a composite of other ops.

    >>> ops.sequence_mask(ms.Tensor([1, 3]), 4).asnumpy().tolist()
    [[True, False, False, False], [True, True, True, False]]
"""
from __future__ import annotations
from typing import Any, Optional, Union
import builtins
import functools
import math
import operator

import numpy as np

from ..core.dtype import Type, to_np
from ..core.tensor import Tensor
from . import elementwise as E
from . import functional as F
from .arguments import as_tensor, axis_arg, binary_op, unary_op
from .einsum import einsum
from .layout import diff
from .math_ext import float_power, isnan
from .products import baddbmm, tensordot
from .state import assign
from ..core.hints import TensorLike, Axis, ShapeLike, DTypeLike

__all__ = [
    "tensor_add", "tensor_sub", "tensor_mul", "tensor_div", "tensor_floordiv", "tensor_mod",
    "tensor_pow", "tensor_exp", "tensor_expm1", "tensor_ge", "tensor_gt", "tensor_le",
    "tensor_lt", "tensor_range", "tensor_dot", "floordiv", "floormod", "pows", "typeof", "dtype",
    "eps", "partial", "is_", "is_not", "scalar_add", "scalar_sub", "scalar_mul", "scalar_div",
    "scalar_floordiv", "scalar_mod", "scalar_pow", "scalar_max", "scalar_min", "scalar_eq",
    "scalar_ne", "scalar_lt", "scalar_le", "scalar_gt", "scalar_ge", "scalar_uadd", "scalar_usub",
    "scalar_log", "scalar_cast", "scalar_to_tensor", "scalar_to_array", "fill", "fills", "zero_",
    "uniform_", "normal_", "random_", "bernoulli_", "exponential_", "clamp_", "erfinv_", "tanh_",
    "inplace_add", "inplace_sub", "inplace_update", "matrix_diag", "matrix_diag_part",
    "matrix_set_diag", "diagonal_scatter", "conj", "real", "imag", "angle", "type_as",
    "isnan_ext", "float_power_ext", "baddbmm_ext", "einsum_ext", "diff_ext", "adjoint",
    "reverse_sequence", "inplace_index_add", "put_", "iou", "intopk", "bernoulli_ext", "padding",
    "space_to_batch_nd", "batch_to_space_nd", "inplace_sigmoid",
]

# ***** MindSpore 1.x names *****
# (new function objects: ops.functional is still being defined when this module loads)
tensor_add, tensor_sub = binary_op(E.add), binary_op(E.sub)
tensor_mul, tensor_div = binary_op(E.mul), binary_op(E.div)
tensor_floordiv = floordiv = binary_op(E.floor_div)
tensor_mod = floormod = binary_op(E.floor_mod)
tensor_pow = pows = binary_op(E.pow)
tensor_exp, tensor_expm1 = unary_op(E.exp), unary_op(E.expm1)
tensor_ge, tensor_gt = binary_op(E.greater_equal), binary_op(E.greater)
tensor_le, tensor_lt = binary_op(E.less_equal), binary_op(E.less)


def tensor_range(start: float, limit: Any = None, delta: float = 1, dtype: Optional[DTypeLike] = None) -> Tensor:
    """MindSpore 1.x's name for ops.arange."""
    return F.arange(start, limit, delta, dtype)
tensor_dot = tensordot
isnan_ext, float_power_ext, baddbmm_ext = isnan, float_power, baddbmm
einsum_ext, diff_ext = einsum, diff
partial = functools.partial
is_, is_not = operator.is_, operator.is_not


def typeof(x: Any) -> Any:
    """The dtype of a tensor, or the Python type of anything else."""
    return x.dtype if isinstance(x, Tensor) else type(x)


def dtype(input: TensorLike) -> Type:
    return as_tensor(input).dtype


def eps(x: Tensor) -> Tensor:
    """A tensor like x filled with its dtype's machine epsilon."""
    x = as_tensor(x)
    return F.full(x.shape, float(np.finfo(x._data.dtype).eps), x.dtype)


# ***** scalars (plain Python numbers) *****
scalar_add, scalar_sub, scalar_mul = operator.add, operator.sub, operator.mul
scalar_div, scalar_floordiv, scalar_mod = operator.truediv, operator.floordiv, operator.mod
scalar_pow, scalar_eq, scalar_ne = operator.pow, operator.eq, operator.ne
scalar_lt, scalar_le, scalar_gt, scalar_ge = operator.lt, operator.le, operator.gt, operator.ge
scalar_uadd, scalar_usub = operator.pos, operator.neg
scalar_max, scalar_min, scalar_log = max, min, math.log


def scalar_cast(input_x: Union[bool, int, float], input_t: DTypeLike) -> Union[bool, int, float]:
    """A Python number converted to the type of a dtype (int for integers, float...)."""
    kind = np.dtype(to_np(input_t)).kind
    return bool(input_x) if kind == "b" else int(input_x) if kind in "iu" else float(input_x)


def scalar_to_tensor(input_x: TensorLike, dtype: Optional[DTypeLike] = None) -> Tensor:
    return Tensor(input_x, dtype)


def scalar_to_array(input_x: TensorLike) -> Tensor:
    return Tensor(input_x)


# ***** fills and in-place functional forms (the first argument takes the result) *****

def fill(type: Any, shape: ShapeLike, value: float) -> Tensor:
    """A tensor of `shape` and dtype `type` filled with value (MindSpore 1.x order)."""
    return F.full(shape, value, type)


def fills(x: Tensor, value: float) -> Tensor:
    x = as_tensor(x)
    return F.full(x.shape, value, x.dtype)


def zero_(input: Tensor) -> Tensor:
    return assign(input, F.zeros_like(input))


def uniform_(input: Tensor, from_: float = 0, to: float = 1, *, generator: Any = None) -> Tensor:
    return assign(input, F.uniform(input.shape, float(from_), float(to), dtype=input.dtype))


def normal_(input: Tensor, mean: float = 0, std: float = 1, *, generator: Any = None) -> Tensor:
    return assign(input, F.cast(F.normal(input.shape, float(mean), float(std)), input.dtype))


def random_(input: Tensor, from_: int = 0, to: Any = None, *, generator: Any = None) -> Tensor:
    high = to if to is not None else 2 ** 31 - 1
    return assign(input, F.cast(F.randint(from_, high, input.shape), input.dtype))


def bernoulli_(input: Tensor, p: float = 0.5, *, generator: Any = None) -> Tensor:
    return assign(input, F.bernoulli(input, p))


def exponential_(input: Tensor, lambd: float = 1, *, generator: Any = None) -> Tensor:
    return assign(input, F.cast(F.exponential(input.shape, lambd), input.dtype))


def clamp_(input: Tensor, min: Optional[float] = None, max: Optional[float] = None) -> Tensor:
    return assign(input, F.clip(input, min, max))


def inplace_sigmoid(input: Tensor) -> Tensor:
    return assign(input, F.sigmoid(input))


def erfinv_(input: Tensor) -> Tensor:
    return assign(input, F.erfinv(input))


def tanh_(input: Tensor) -> Tensor:
    return assign(input, F.tanh(input))


def _rows(x, indices):
    idx = as_tensor(indices)
    return F.expand_dims(F.reshape(idx, (-1,)) if idx.ndim == 0 else idx, -1)


def inplace_add(x: Tensor, v: TensorLike, indices: TensorLike) -> Tensor:
    """x with v added to its rows `indices`."""
    return F.tensor_scatter_add(x, _rows(x, indices), v)


def inplace_sub(x: Tensor, v: TensorLike, indices: TensorLike) -> Tensor:
    return F.tensor_scatter_sub(x, _rows(x, indices), v)


def inplace_update(x: Tensor, v: TensorLike, indices: TensorLike) -> Tensor:
    """x with its rows `indices` replaced by v."""
    return F.tensor_scatter_update(x, _rows(x, indices), v)


# ***** diagonals and bands *****

def matrix_diag(x: Tensor, k: int = 0, num_rows: int = -1, num_cols: int = -1, padding_value: int = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """Square matrices with the vectors x on their k-th diagonal (padding elsewhere)."""
    if num_rows != -1 or num_cols != -1:
        raise NotImplementedError("ops.matrix_diag: num_rows/num_cols other than -1")
    out = F.diag_embed(x, int(k))
    if padding_value != 0:
        size = out.shape[-1]
        out = F.where(Tensor(np.eye(size, k=int(k), dtype=bool)), out,
                      F.full((), padding_value, out.dtype))
    return out


def matrix_diag_part(x: Tensor, k: int = 0, padding_value: int = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """The k-th diagonal of the matrices in x."""
    return F.diagonal(x, int(k), -2, -1)


def matrix_set_diag(x: Tensor, diagonal: TensorLike, k: int = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """x with its k-th diagonal replaced by `diagonal`."""
    return diagonal_scatter(x, diagonal, int(k), -2, -1)


def diagonal_scatter(input: Tensor, src: TensorLike, offset: int = 0, dim1: Axis = 0, dim2: int = 1) -> Tensor:
    """A copy of input with src on the diagonal (offset) of the planes dim1/dim2."""
    x = as_tensor(input)
    a, b = axis_arg("diagonal_scatter", x, dim1), axis_arg("diagonal_scatter", x, dim2)
    moved = F.movedim(x, (a, b), (-2, -1))
    rows, cols = moved.shape[-2:]
    mask = np.eye(rows, cols, k=int(offset), dtype=bool)
    length = int(mask.sum())
    rank = moved.ndim
    # place src's last axis on the diagonal: a matrix with src[j] at the j-th diagonal entry
    index = np.where(mask, np.cumsum(mask.ravel()).reshape(mask.shape) - 1, 0)
    spread = F.gather(F.cast(as_tensor(src), x.dtype), Tensor(index.astype(np.int64)),
                      rank - 2) if length else moved
    out = F.where(Tensor(mask), spread, moved)
    return F.movedim(out, (rank - 2, rank - 1), (a, b))


# ***** complex-number helpers on real tensors *****

def conj(input: Tensor) -> Tensor:
    return as_tensor(input)


def real(input: Tensor) -> Tensor:
    return as_tensor(input)


def imag(input: Tensor) -> Tensor:
    return F.zeros_like(as_tensor(input))


def angle(input: Tensor) -> Tensor:
    """The argument of a real number: pi for negatives, 0 otherwise."""
    x = as_tensor(input)
    x = x if x.dtype.is_float else F.cast(x, np.float32)
    return F.where(F.less(x, 0), F.full((), math.pi, x.dtype), F.zeros((), x.dtype))


def type_as(input: Tensor, other: TensorLike) -> Tensor:
    return F.cast(input, as_tensor(other).dtype)


def adjoint(x: Tensor) -> Tensor:
    """The conjugate transpose of the matrices (the transpose, for real tensors)."""
    return F.swap_last_axes(as_tensor(x))


def reverse_sequence(x: Tensor, seq_lengths: TensorLike, seq_dim: Any, batch_dim: int = 0) -> Tensor:
    """Each batch entry's first seq_lengths[b] elements along seq_dim reversed."""
    x = as_tensor(x)
    n = x.shape[seq_dim]
    lengths = F.expand_dims(F.cast(seq_lengths, np.int64), -1)
    steps = F.arange(n, dtype=np.int64)
    order = F.where(F.less(steps, lengths), F.sub(F.sub(lengths, 1), steps), steps)  # (B, n)
    moved = F.movedim(x, (batch_dim, seq_dim), (0, 1))
    order = F.reshape(order, order.shape + (1,) * (moved.ndim - 2))
    out = F.gather_elements(moved, 1, F.broadcast_to(order, moved.shape))
    return F.movedim(out, (0, 1), (batch_dim, seq_dim))


def inplace_index_add(var: Tensor, indices: TensorLike, updates: TensorLike, axis: Axis) -> Tensor:
    """var's slices at `indices` along `axis` incremented by updates, in place."""
    return F.index_add(var, indices, updates, axis)


def put_(input: Tensor, index: TensorLike, source: TensorLike, accumulate: bool = False) -> Tensor:
    """input (flattened) with source written (or added) at `index`, in place."""
    flat = F.reshape(input, (-1,))
    idx = F.expand_dims(F.reshape(as_tensor(index), (-1,)), -1)
    source = F.reshape(as_tensor(source), (-1,))
    out = F.tensor_scatter_add(flat, idx, source) if accumulate else \
        F.tensor_scatter_update(flat, idx, source)
    return assign(input, F.reshape(out, input.shape))


def iou(anchor_boxes: Any, gt_boxes: Any, mode: str = "iou") -> Tensor:
    """Intersection over union (mode 'iof': over the ground-truth box's area) of every
    (gt, anchor) pair of (x1, y1, x2, y2) boxes: shape (M gt, N anchors)."""
    a, g = F.expand_dims(as_tensor(anchor_boxes), 0), F.expand_dims(as_tensor(gt_boxes), 1)
    low = F.maximum(a[..., :2], g[..., :2])
    high = F.minimum(a[..., 2:4], g[..., 2:4])
    size = F.maximum(F.sub(high, low), 0.0)
    inter = F.mul(size[..., 0], size[..., 1])

    def area(b):
        return F.mul(F.sub(b[..., 2], b[..., 0]), F.sub(b[..., 3], b[..., 1]))
    denominator = area(g) if mode == "iof" else F.sub(F.add(area(a), area(g)), inter)
    return F.div(inter, denominator)


def intopk(x1: TensorLike, x2: TensorLike, k: Any) -> Tensor:
    """Whether each row's target x2[i] is among the k largest of x1[i]."""
    x1 = as_tensor(x1)
    target = F.gather_elements(x1, 1, F.reshape(F.cast(x2, np.int64), (-1, 1)))
    greater = F.sum(F.cast(F.greater(x1, target), np.int32), 1)
    return F.less(greater, int(k))


def bernoulli_ext(input: Tensor, *, generator: Any = None) -> Tensor:
    """1 with the probability given by each element of input, else 0."""
    return F.bernoulli(input, input)


def padding(input_x: Tensor, pad_dim_size: int = 8) -> Tensor:
    """input_x (last axis of size 1) widened to pad_dim_size along it, zeros after."""
    x = as_tensor(input_x)
    return F.pad(x, ((0, 0),) * (x.ndim - 1) + ((0, int(pad_dim_size) - x.shape[-1]),))


def space_to_batch_nd(input_x: Tensor, block_size: Any, paddings: Any) -> Tensor:
    """Blocks of the (padded) spatial axes of an (N, C, *spatial) tensor moved into the
    batch: batch index (i_0 * b_1 + i_1) * N + n for the block offsets (i_0, i_1)."""
    x = as_tensor(input_x)
    spatial = x.ndim - 2
    blocks = (int(block_size),) * spatial if isinstance(block_size, int) else tuple(block_size)
    x = F.pad(x, ((0, 0), (0, 0)) + tuple(tuple(p) for p in paddings))
    n, c = x.shape[:2]
    split = [n, c]
    for size, b in zip(x.shape[2:], blocks):
        split += [size // b, b]
    x = F.reshape(x, split)
    offsets = [3 + 2 * k for k in range(spatial)]
    grid = [2 + 2 * k for k in range(spatial)]
    x = F.transpose(x, offsets + [0, 1] + grid)
    return F.reshape(x, (n * int(np.prod(blocks)), c) + tuple(split[g] for g in grid))


def batch_to_space_nd(input_x: Tensor, block_shape: Any, crops: Any) -> Tensor:
    """The inverse of space_to_batch_nd: blocks of the batch back into the spatial axes,
    then `crops` removed."""
    x = as_tensor(input_x)
    spatial = x.ndim - 2
    blocks = (int(block_shape),) * spatial if isinstance(block_shape, int) else \
        tuple(block_shape)
    n = x.shape[0] // int(np.prod(blocks))
    x = F.reshape(x, blocks + (n,) + x.shape[1:])
    # (b_0, b_1, n, c, g_0, g_1) -> (n, c, g_0, b_0, g_1, b_1)
    order = [spatial, spatial + 1]
    for k in range(spatial):
        order += [spatial + 2 + k, k]
    x = F.transpose(x, order)
    x = F.reshape(x, (n, x.shape[1]) + tuple(x.shape[2 + 2 * k] * blocks[k]
                                             for k in range(spatial)))
    index = (builtins.slice(None),) * 2 + tuple(builtins.slice(lo, size - hi) for (lo, hi), size
                                               in zip(crops, x.shape[2:]))
    return F.getitem(x, index)
