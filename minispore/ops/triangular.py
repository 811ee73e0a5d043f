"""Triangles and diagonals of matrices: tril/triu, band parts, diagonals read and written,
traces, triangle indices, block-diagonal matrices. Composites: a constant mask and a select,
or getitem with index tensors, so gradients and fusion come from those rows.

    >>> ops.triu(ms.Tensor(np.ones((2, 3), np.float32))).asnumpy().tolist()
    [[1.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
"""
from typing import Optional

import numpy as np

from ..core.hints import DTypeLike, TensorLike
from ..core.tensor import Tensor
from . import functional as F
from .arguments import as_tensor, axis_arg, op_error

__all__ = ["tril", "triu", "matrix_band_part", "diag", "diagflat", "diag_embed", "diagonal",
           "trace", "tril_indices", "triu_indices", "block_diag"]


def _masked(x, mask):
    """x where the constant bool mask (broadcast over leading axes) holds, 0 elsewhere."""
    return F.where(Tensor(mask), x, F.zeros((), x.dtype))


def _matrix(op: str, input: TensorLike) -> Tensor:
    x = as_tensor(input)
    if x.ndim < 2:
        raise op_error(op, (x,), "input must have at least 2 dimensions", ValueError)
    return x


def tril(input: TensorLike, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two axes (elements with column - row <= diagonal)."""
    x = _matrix("tril", input)
    return _masked(x, np.tri(x.shape[-2], x.shape[-1], k=int(diagonal), dtype=bool))


def triu(input: TensorLike, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two axes (elements with column - row >= diagonal)."""
    x = _matrix("triu", input)
    return _masked(x, ~np.tri(x.shape[-2], x.shape[-1], k=int(diagonal) - 1, dtype=bool))


def matrix_band_part(x: TensorLike, lower: int, upper: int) -> Tensor:
    """Elements with row - column <= lower and column - row <= upper (negative: no limit)."""
    m = _matrix("matrix_band_part", x)
    rows, cols = np.indices(m.shape[-2:])
    keep = ((int(lower) < 0) | (rows - cols <= int(lower))) & \
           ((int(upper) < 0) | (cols - rows <= int(upper)))
    return _masked(m, keep)


def diagonal(input: TensorLike, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal (offset above the main one when positive) of the planes spanned by dim1
    and dim2; those axes go and the diagonal becomes the last axis."""
    x = as_tensor(input)
    a, b = axis_arg("diagonal", x, dim1), axis_arg("diagonal", x, dim2)
    if a == b:
        raise op_error("diagonal", (x,), "dim1 and dim2 must differ", ValueError)
    x = F.movedim(x, (a, b), (-2, -1))
    offset = int(offset)
    length = max(min(x.shape[-2] + min(offset, 0), x.shape[-1] - max(offset, 0)), 0)
    steps = np.arange(length)
    rows, cols = Tensor(steps - min(offset, 0)), Tensor(steps + max(offset, 0))
    return F.getitem(x, (Ellipsis, rows, cols))


def trace(input: TensorLike) -> Tensor:
    """The sum of a matrix's main diagonal."""
    x = as_tensor(input)
    if x.ndim != 2:
        raise op_error("trace", (x,), "input must be a matrix", ValueError)
    return F.sum(diagonal(x))


def diag_embed(input: TensorLike, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices with input's last axis on their `offset` diagonal, in the axes dim1/dim2 of
    the result (one more axis than input)."""
    x = as_tensor(input)
    n, offset = x.shape[-1], int(offset)
    size = n + abs(offset)
    padded = F.pad(x, ((0, 0),) * (x.ndim - 1) + ((0, abs(offset)),))
    # entry (i, j) on the diagonal j - i = offset holds x[min(i, j)]
    values = F.expand_dims(padded, -1 if offset >= 0 else -2)
    out = _masked(F.broadcast_to(values, padded.shape[:-1] + (size, size)),
                  np.eye(size, k=offset, dtype=bool))
    rank = out.ndim
    return F.movedim(out, (rank - 2, rank - 1), (dim1 % rank, dim2 % rank))


def diagflat(input: TensorLike, offset: int = 0) -> Tensor:
    """A matrix with the flattened input on its `offset` diagonal."""
    return diag_embed(F.reshape(as_tensor(input), (-1,)), offset)


def diag(input: TensorLike) -> Tensor:
    """MindSpore's diag: for input of shape S, the tensor of shape S + S holding input[i] at
    (i, i) and 0 elsewhere (a 1-D input gives a diagonal matrix)."""
    x = as_tensor(input)
    return F.reshape(diag_embed(F.reshape(x, (-1,))), x.shape + x.shape)


def _triangle_indices(fn, row, col, offset, dtype):
    rows, cols = fn(int(row), int(offset), int(col))
    return Tensor(np.stack([rows, cols]).astype(F.to_np(dtype) if dtype else np.int64))


def tril_indices(row: int, col: int, offset: int = 0, *,
                 dtype: Optional[DTypeLike] = None) -> Tensor:
    """The (2, N) row and column indices of the lower triangle of a row x col matrix."""
    return _triangle_indices(np.tril_indices, row, col, offset, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *,
                 dtype: Optional[DTypeLike] = None) -> Tensor:
    """The (2, N) row and column indices of the upper triangle of a row x col matrix."""
    return _triangle_indices(np.triu_indices, row, col, offset, dtype)


def block_diag(*inputs: TensorLike) -> Tensor:
    """The block-diagonal matrix of the inputs (0-d and 1-D ones count as one row)."""
    blocks = [F.reshape(t, (1, -1)) if t.ndim < 2 else t for t in map(as_tensor, inputs)]
    width = sum(b.shape[1] for b in blocks)
    rows, start = [], 0
    for b in blocks:
        rows.append(F.pad(b, ((0, 0), (start, width - start - b.shape[1]))))
        start += b.shape[1]
    return F.concat(rows, 0)
