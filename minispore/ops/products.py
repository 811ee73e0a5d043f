"""Products and distances built on matmul: dot, inner, outer, kron, cross, tensordot, the
add-and-multiply family (addmv, addbmm, baddbmm, addr), matrix_power, pinv, and the nn
functions normalize, cosine_similarity, pairwise_distance, cdist, embedding. Composites of
rows: gradients and both modes come from matmul, the elementwise rows and the SVD.

    >>> ops.kron(ms.Tensor([[1, 2]]), ms.Tensor([[1], [10]]))
    Tensor(shape=[2, 2], dtype=Int64, value=
    [[ 1,  2],
     [10, 20]])
"""
from typing import Optional, Sequence, Union

import numpy as np

from ..core.hints import Axis, Scalar, TensorLike
from ..core.tensor import Tensor
from . import functional as F
from .arguments import as_tensor, axis_arg, op_error
from .primitive import OpShapeError

__all__ = ["dot", "vdot", "inner", "outer", "ger", "kron", "cross", "tensordot", "mm", "mv",
           "addmv", "addbmm", "baddbmm", "addr", "vecdot", "batch_dot", "matrix_power", "pinv",
           "normalize", "cosine_similarity", "pairwise_distance", "cdist", "embedding", "vander",
           "bidense"]


def _axis_list(axis: Axis) -> list:
    return [axis] if isinstance(axis, int) else list(axis)


def tensordot(x1: TensorLike, x2: TensorLike, axes: Union[int, Sequence[Axis]]) -> Tensor:
    """Sum of products over the axes pairs `axes` (an int n: x1's last n with x2's first n;
    or two sequences of axes), as one matmul."""
    a, b = as_tensor(x1), as_tensor(x2)
    if isinstance(axes, (int, np.integer)):
        axes_a, axes_b = list(range(a.ndim - int(axes), a.ndim)), list(range(int(axes)))
    else:
        axes_a, axes_b = (_axis_list(axes[i]) for i in (0, 1))
    axes_a = [axis_arg("tensordot", a, x) for x in axes_a]
    axes_b = [axis_arg("tensordot", b, x) for x in axes_b]
    if [a.shape[i] for i in axes_a] != [b.shape[i] for i in axes_b]:
        raise op_error("tensordot", (a, b), f"contracted axes {axes_a} and {axes_b} differ "
                       f"in size")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    size = int(np.prod([a.shape[i] for i in axes_a], dtype=np.int64))
    left = F.reshape(F.transpose(a, free_a + axes_a), (-1, size))
    right = F.reshape(F.transpose(b, axes_b + free_b), (size, -1))
    return F.reshape(F.matmul(left, right),
                     tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


def dot(input: TensorLike, other: TensorLike) -> Tensor:
    """numpy's dot: the last axis of input against the second-to-last of other (the only
    one of a vector)."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        return F.mul(a, b)
    return tensordot(a, b, ([a.ndim - 1], [max(b.ndim - 2, 0)]))


def vdot(input: TensorLike, other: TensorLike) -> Tensor:
    """The inner product of the flattened tensors."""
    return F.sum(F.mul(F.reshape(input, (-1,)), F.reshape(other, (-1,))))


def inner(input: TensorLike, other: TensorLike) -> Tensor:
    """Sum of products over the last axes of both."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        return F.mul(a, b)
    return tensordot(a, b, ([-1], [-1]))


def outer(input: TensorLike, vec2: TensorLike) -> Tensor:
    """The outer product of two vectors."""
    a, b = as_tensor(input), as_tensor(vec2)
    return F.mul(F.reshape(a, (-1, 1)), F.reshape(b, (1, -1)))


ger = outer


def kron(input: TensorLike, other: TensorLike) -> Tensor:
    """The Kronecker product: blocks of other scaled by each element of input."""
    a, b = as_tensor(input), as_tensor(other)
    rank = max(a.ndim, b.ndim)
    a = F.reshape(a, (1,) * (rank - a.ndim) + a.shape)
    b = F.reshape(b, (1,) * (rank - b.ndim) + b.shape)
    # interleave the axes: (a0, 1, a1, 1...) * (1, b0, 1, b1...), then merge each pair
    spread_a = F.reshape(a, tuple(d for s in a.shape for d in (s, 1)))
    spread_b = F.reshape(b, tuple(d for s in b.shape for d in (1, s)))
    return F.reshape(F.mul(spread_a, spread_b),
                     tuple(x * y for x, y in zip(a.shape, b.shape)))


def cross(input: TensorLike, other: TensorLike, dim: Optional[int] = None) -> Tensor:
    """The cross product of 3-vectors along `dim` (None: the first axis of size 3)."""
    a, b = as_tensor(input), as_tensor(other)
    if dim is None:
        dim = next((i for i, s in enumerate(a.shape) if s == 3), None)
        if dim is None:
            raise op_error("cross", (a, b), "no axis of size 3", OpShapeError)
    dim = axis_arg("cross", a, dim)
    if a.shape[dim] != 3 or b.shape[dim] != 3:
        raise op_error("cross", (a, b), f"axis {dim} must have size 3")
    ax = [F.slice_axis(a, dim, i, i + 1) for i in range(3)]
    bx = [F.slice_axis(b, dim, i, i + 1) for i in range(3)]
    parts = [F.sub(F.mul(ax[(i + 1) % 3], bx[(i + 2) % 3]), F.mul(ax[(i + 2) % 3], bx[(i + 1) % 3]))
             for i in range(3)]
    return F.concat(parts, dim)


def mm(input: TensorLike, mat2: TensorLike) -> Tensor:
    """The product of two matrices."""
    a, b = as_tensor(input), as_tensor(mat2)
    if a.ndim != 2 or b.ndim != 2:
        raise op_error("mm", (a, b), "both inputs must be matrices", OpShapeError)
    return F.matmul(a, b)


def mv(mat: TensorLike, vec: TensorLike) -> Tensor:
    """The product of a matrix and a vector."""
    a, v = as_tensor(mat), as_tensor(vec)
    if a.ndim != 2 or v.ndim != 1:
        raise op_error("mv", (a, v), "needs a matrix and a vector", OpShapeError)
    return F.matmul(a, v)


def _scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product (beta 0: input ignored, even nan)."""
    scaled = product if alpha == 1 else F.mul(product, alpha)
    if beta == 0:
        return scaled
    return F.add(input if beta == 1 else F.mul(input, beta), scaled)


def addmv(input: TensorLike, mat: TensorLike, vec: TensorLike, *, beta: Scalar = 1,
          alpha: Scalar = 1) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


def addbmm(input: TensorLike, batch1: TensorLike, batch2: TensorLike, *, beta: Scalar = 1,
           alpha: Scalar = 1) -> Tensor:
    """beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]."""
    return _scaled_sum(input, F.sum(F.matmul(batch1, batch2), 0), beta, alpha)


def baddbmm(input: TensorLike, batch1: TensorLike, batch2: TensorLike, beta: Scalar = 1,
            alpha: Scalar = 1) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    return _scaled_sum(input, F.matmul(batch1, batch2), beta, alpha)


def addr(x: TensorLike, vec1: TensorLike, vec2: TensorLike, *, beta: Scalar = 1,
         alpha: Scalar = 1) -> Tensor:
    """beta * x + alpha * outer(vec1, vec2)."""
    return _scaled_sum(x, outer(vec1, vec2), beta, alpha)


def vecdot(x: TensorLike, y: TensorLike, *, axis: int = -1) -> Tensor:
    """Sum of products along `axis`."""
    return F.sum(F.mul(x, y), axis)


def batch_dot(x1: TensorLike, x2: TensorLike, axes: Optional[Union[int, Sequence[int]]] = None) -> Tensor:
    """Per batch row (axis 0), the dot product over `axes` (default: x1's last axis with x2's
    last, or second-to-last when x2 has rank > 2)."""
    a, b = as_tensor(x1), as_tensor(x2)
    if axes is None:
        axes = (a.ndim - 1, b.ndim - 1 if b.ndim == 2 else b.ndim - 2)
    if isinstance(axes, int):
        axes = (axes, axes)
    letters = "abcdefghijklmnopqrstuvwxyz"
    sub_a = "Z" + letters[:a.ndim - 1]
    sub_b = "Z" + letters[a.ndim - 1:a.ndim + b.ndim - 2]
    ia, ib = axis_arg("batch_dot", a, axes[0]), axis_arg("batch_dot", b, axes[1])
    sub_b = sub_b[:ib] + sub_a[ia] + sub_b[ib + 1:]
    out = "Z" + "".join(c for c in sub_a + sub_b if c != sub_a[ia] and c != "Z")
    result = F.einsum(f"{sub_a},{sub_b}->{out}", a, b)
    return F.reshape(result, (-1, 1)) if result.ndim == 1 else result


def matrix_power(input: TensorLike, n: int) -> Tensor:
    """input @ input @ ... (n times; n < 0 powers the inverse, n == 0 gives identities),
    by repeated squaring."""
    a = as_tensor(input)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise op_error("matrix_power", (a,), "needs square matrices", OpShapeError)
    n = int(n)
    if n == 0:
        return F.broadcast_to(F.eye(a.shape[-1], dtype=a.dtype), a.shape)
    if n < 0:
        a, n = F.inverse(a), -n
    result: Optional[Tensor] = None
    while n:
        if n & 1:
            result = a if result is None else F.matmul(result, a)
        n >>= 1
        if n:
            a = F.matmul(a, a)
    assert result is not None  # n >= 1: its highest bit set it
    return result


def pinv(x: TensorLike, *, atol: Optional[float] = None, rtol: Optional[float] = None,
         hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse through the SVD: singular values at or below
    max(atol, rtol * largest) count as zero (rtol default: eps * max(rows, columns))."""
    a = as_tensor(x)
    s, u, v = F.svd(a)
    eps = np.finfo(a._data.dtype).eps
    rtol = (eps * max(a.shape[-2:]) if atol is None else 0.0) if rtol is None else rtol
    cutoff = F.maximum(F.mul(F.amax(s, -1, True), float(rtol)), float(atol or 0.0))
    keep = F.greater(s, cutoff)
    s_inv = F.where(keep, F.div(1, F.where(keep, s, F.ones_like(s))), F.zeros_like(s))
    return F.matmul(F.mul(v, F.expand_dims(s_inv, -2)), F.swap_last_axes(u))


def vander(x: TensorLike, N: Optional[int] = None) -> Tensor:
    """The Vandermonde matrix of the vector x: columns x**(N-1), ..., x**0."""
    v = as_tensor(x)
    n = v.shape[0] if N is None else int(N)
    powers = F.arange(n - 1, -1, -1, dtype=v.dtype)
    return F.pow(F.expand_dims(v, -1), powers)


# ***** nn functions *****

def normalize(input: TensorLike, p: float = 2.0, dim: Axis = 1, eps: float = 1e-12) -> Tensor:
    """input divided by its p-norm along `dim` (at least eps)."""
    x = as_tensor(input)
    norm = F.vector_norm(x, p, dim, True)
    return F.div(x, F.maximum(norm, eps))


def cosine_similarity(x1: TensorLike, x2: TensorLike, dim: int = 1, eps: float = 1e-08) -> Tensor:
    """x1 . x2 / max(|x1| |x2|, eps) along `dim`."""
    x1, x2 = F.promote(as_tensor(x1), as_tensor(x2))
    product = F.sum(F.mul(x1, x2), dim)
    norms = F.mul(F.vector_norm(x1, 2, dim), F.vector_norm(x2, 2, dim))
    return F.div(product, F.maximum(norms, eps))


def pairwise_distance(x1: TensorLike, x2: TensorLike, p: float = 2.0, eps: float = 1e-06,
                      keepdim: bool = False) -> Tensor:
    """The p-norm of x1 - x2 + eps along the last axis."""
    return F.vector_norm(F.add(F.sub(x1, x2), eps), p, -1, keepdim)


def cdist(x1: TensorLike, x2: TensorLike, p: float = 2.0) -> Tensor:
    """p-norm distances between the rows of x1 (..., P, M) and of x2 (..., R, M):
    (..., P, R)."""
    a, b = as_tensor(x1), as_tensor(x2)
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-1]:
        raise op_error("cdist", (a, b), "needs (..., P, M) and (..., R, M)", OpShapeError)
    return F.vector_norm(F.sub(F.expand_dims(a, -2), F.expand_dims(b, -3)), p, -1)


def embedding(input: TensorLike, weight: TensorLike, padding_idx: Optional[int] = None,
              max_norm: Optional[float] = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False) -> Tensor:
    """The rows of weight at the indices `input`; rows at padding_idx get no gradient;
    with max_norm, rows longer than max_norm (in the norm_type norm) are scaled down to it
    in the result (the weight itself is not changed)."""
    idx, table = as_tensor(input), as_tensor(weight)
    if scale_grad_by_freq:
        raise NotImplementedError("ops.embedding: scale_grad_by_freq is not supported")
    rows = F.gather(table, idx, 0)
    if max_norm is not None:
        norms = F.stop_gradient(F.vector_norm(rows, norm_type, -1, True))
        rows = F.mul(rows, F.minimum(F.div(float(max_norm), F.maximum(norms, 1e-7)), 1.0))
    if padding_idx is not None:
        padding = F.expand_dims(F.equal(idx, int(padding_idx) % table.shape[0]), -1)
        rows = F.where(padding, F.stop_gradient(rows), rows)
    return rows



def bidense(input1: TensorLike, input2: TensorLike, weight: TensorLike, bias: Optional[TensorLike] = None) -> Tensor:
    """The bilinear map y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j]
    (+ bias[o]) of (*, in1) and (*, in2) inputs and an (out, in1, in2) weight: one matmul,
    then an elementwise product and a sum.

        >>> w = ms.Tensor(np.ones((2, 3, 4), np.float32))
        >>> ops.bidense(ops.ones((5, 3)), ops.ones((5, 4)), w).shape
        (5, 2)
    """
    x1, x2, w = as_tensor(input1), as_tensor(input2), as_tensor(weight)
    if w.ndim != 3 or x1.ndim < 1 or x1.shape[-1] != w.shape[1] or x2.shape[-1] != w.shape[2] \
            or tuple(x1.shape[:-1]) != tuple(x2.shape[:-1]):
        raise op_error("bidense", (x1, x2, w), "needs (*, in1), (*, in2) and an (out, in1, in2) "
                       "weight", OpShapeError)
    out, in1, in2 = w.shape
    batch = tuple(x1.shape[:-1])
    # (M, in1) @ (in1, out * in2): every output's row of x1^T W at once
    left = F.matmul(F.reshape(x1, (-1, in1)),
                    F.reshape(F.transpose(w, (1, 0, 2)), (in1, out * in2)))
    y = F.sum(F.mul(F.reshape(left, (-1, out, in2)), F.expand_dims(F.reshape(x2, (-1, in2)), 1)),
              2)
    if bias is not None:
        y = F.add(y, bias)
    return F.reshape(y, batch + (out,))
