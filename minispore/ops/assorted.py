"""MindSpore functional ops that belong to no family: segment sums, sequence masks,
distances and norms (dist, pdist, renorm), bias_add and dense, windows, strided slices,
covariance, Cholesky solves and least squares, categorical sampling. Each is a composite
of other ops.

    >>> ops.sequence_mask(ms.Tensor([1, 3]), 4).asnumpy().tolist()
    [[True, False, False, False], [True, True, True, False]]
"""
import builtins
import itertools
import math
from typing import Callable, Optional, Sequence

import numpy as np

from ..core.dtype import to_np
from ..core.hints import DTypeLike, TensorLike
from ..core.tensor import Tensor
from . import functional as F
from .arguments import as_tensor, axis_arg, op_error

__all__ = [
    "unsorted_segment_sum", "sequence_mask", "dist", "pdist", "renorm", "bias_add", "dense",
    "is_nonzero", "mvlgamma", "logspace", "combinations", "bartlett_window", "blackman_window",
    "hamming_window", "hann_window", "kaiser_window", "strided_slice", "slice", "cov",
    "cholesky_inverse", "cholesky_solve", "matrix_solve", "lstsq", "random_categorical",
    "multinomial_with_replacement",
]


def unsorted_segment_sum(input_x: TensorLike, segment_ids: TensorLike, num_segments: int) -> Tensor:
    """Sums of the slices of input_x sharing a segment id: out[s] = sum of input_x[i]
    with segment_ids[i] == s."""
    x, ids = as_tensor(input_x), as_tensor(segment_ids)
    out_shape = (int(num_segments),) + x.shape[ids.ndim:]
    return F.scatter_nd(F.expand_dims(ids, -1), x, out_shape)


def sequence_mask(lengths: TensorLike, maxlen: Optional[int] = None) -> Tensor:
    """mask[..., j] = j < lengths[...]."""
    lengths = as_tensor(lengths)
    if maxlen is None:
        maxlen = int(F.amax(lengths))
    return F.less(F.arange(int(maxlen), dtype=lengths.dtype), F.expand_dims(lengths, -1))


def dist(input: TensorLike, other: TensorLike, p: float = 2) -> Tensor:
    """The p-norm of input - other."""
    return F.vector_norm(F.sub(input, other), p)


def pdist(input: TensorLike, p: float = 2.0) -> Tensor:
    """The p-norm distances between every pair of rows (i < j), as a vector."""
    x = as_tensor(input)
    rows, cols = np.triu_indices(x.shape[-2], 1)
    left = F.gather(x, Tensor(rows.astype(np.int64)), x.ndim - 2)
    right = F.gather(x, Tensor(cols.astype(np.int64)), x.ndim - 2)
    return F.vector_norm(F.sub(left, right), p, -1)


def renorm(input: TensorLike, p: float, axis: int, maxnorm: float) -> Tensor:
    """Each slice along `axis` scaled down to p-norm maxnorm where it is longer."""
    x = as_tensor(input)
    axis = axis_arg("renorm", x, axis)
    others = tuple(a for a in range(x.ndim) if a != axis)
    norms = F.vector_norm(x, p, others, True)
    scale = F.where(F.greater(norms, maxnorm), F.div(float(maxnorm), F.add(norms, 1e-7)), 1.0)
    return F.mul(x, F.cast(scale, x.dtype))


def bias_add(input_x: TensorLike, bias: TensorLike, data_format: str = "NCHW") -> Tensor:
    """input_x plus bias along its channel axis (1 for NC..., the last for N...C)."""
    x, b = as_tensor(input_x), as_tensor(bias)
    if data_format == "NCHW" or data_format == "NCDHW":
        b = F.reshape(b, (-1,) + (1,) * (x.ndim - 2))
    return F.add(x, b)


def dense(input: TensorLike, weight: TensorLike, bias: Optional[TensorLike] = None) -> Tensor:
    """input @ weight^T + bias (the transpose a flag of the product where input is a matrix
    or a batch of them: a gradient in the weight's own layout, see nn.Dense)."""
    x, weight = as_tensor(input), as_tensor(weight)
    out = F.matmul(x, weight, transpose_b=True) if x.ndim >= 2 and weight.ndim == 2 else \
        F.matmul(x, F.swap_last_axes(weight))
    return out if bias is None else F.add(out, bias)


def is_nonzero(input: TensorLike) -> bool:
    """Whether the one element of input is non-zero (a Python bool)."""
    x = as_tensor(input)
    if x.size != 1:
        raise op_error("is_nonzero", (x,), "input must have exactly one element", ValueError)
    return bool(F.not_equal(F.reshape(x, ()), 0))


def mvlgamma(input: TensorLike, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension p."""
    x = as_tensor(input)
    terms = [F.lgamma(F.sub(x, j / 2)) for j in range(int(p))]
    return F.add(F.addn(terms), p * (p - 1) / 4 * math.log(math.pi))


def logspace(start: float, end: float, steps: int, base: float = 10, *,
             dtype: Optional[DTypeLike] = None) -> Tensor:
    """steps points base**t for t evenly spaced from start to end."""
    return F.cast(F.pow(float(base), F.linspace(start, end, steps, np.float64)),
                  dtype or np.float32)


def combinations(input: TensorLike, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The r-element combinations of the 1-D input's elements, one per row."""
    x = as_tensor(input)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = np.array(list(pick(range(x.shape[0]), r)), np.int64).reshape(-1, r)
    return F.gather(x, Tensor(index), 0)


def _window(fn: Callable[..., np.ndarray]) -> Callable[..., Tensor]:
    def window(window_length: int, periodic: bool = True, *, dtype: Optional[DTypeLike] = None,
               **params: float) -> Tensor:
        n = int(window_length)
        values = fn(n + 1, **params)[:-1] if periodic and n > 1 else fn(n, **params)
        return Tensor(np.asarray(values, to_np(dtype) if dtype is not None else np.float32))
    window.__doc__ = f"numpy's {fn.__name__} window (periodic: one point longer, then cut)."
    return window


bartlett_window = _window(np.bartlett)
blackman_window = _window(np.blackman)
hamming_window = _window(np.hamming)
hann_window = _window(np.hanning)
kaiser_window = _window(lambda n, beta=12.0: np.kaiser(n, beta))


def strided_slice(input_x: TensorLike, begin: Sequence[int], end: Sequence[int],
                  strides: Sequence[int], begin_mask: int = 0, end_mask: int = 0,
                  ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0) -> Tensor:
    """input_x[begin:end:strides] on leading axes; a bit of begin_mask/end_mask set means
    that bound is open, of shrink_axis_mask that the axis is indexed (and removed)."""
    if ellipsis_mask or new_axis_mask:
        raise NotImplementedError("ops.strided_slice: ellipsis_mask and new_axis_mask")
    index: list = []
    for k, (b, e, s) in enumerate(zip(begin, end, strides)):
        if shrink_axis_mask >> k & 1:
            index.append(int(b))
        else:
            index.append(builtins.slice(None if begin_mask >> k & 1 else int(b),
                                        None if end_mask >> k & 1 else int(e), int(s)))
    return F.getitem(as_tensor(input_x), tuple(index))


def slice(input_x: TensorLike, begin: Sequence[int], size: Sequence[int]) -> Tensor:
    """The block of input_x starting at `begin` with extent `size` (-1: to the end).
    (Exported by minispore.ops itself: ops.functional uses the builtin slice.)"""
    x = as_tensor(input_x)
    return F.getitem(x, tuple(builtins.slice(b, None if s == -1 else b + s)
                              for b, s in zip(begin, size)))


def cov(input: TensorLike, *, correction: int = 1, fweights: Optional[TensorLike] = None,
        aweights: Optional[TensorLike] = None) -> Tensor:
    """The covariance matrix of the variables in the rows of input."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("ops.cov: fweights and aweights are not supported")
    x = as_tensor(input)
    x = F.reshape(x, (1, -1)) if x.ndim == 1 else x
    x = x if x.dtype.is_float else F.cast(x, np.float32)
    centered = F.sub(x, F.mean(x, 1, True))
    product = F.matmul(centered, F.swap_last_axes(centered))
    out = F.div(product, float(max(x.shape[1] - correction, 0)))
    return F.reshape(out, ()) if out.shape == (1, 1) else out


def _spd_inverse(factor, upper):
    lower = F.swap_last_axes(factor) if upper else factor
    return F.matmul(F.swap_last_axes(F.inverse(lower)), F.inverse(lower))


def cholesky_inverse(input_x: TensorLike, upper: bool = False) -> Tensor:
    """The inverse of A from its Cholesky factor (A = L L^T, or U^T U with upper)."""
    return _spd_inverse(as_tensor(input_x), upper)


def cholesky_solve(input: TensorLike, input2: TensorLike, upper: bool = False) -> Tensor:
    """X with A X = input, A given by its Cholesky factor input2."""
    return F.matmul(_spd_inverse(as_tensor(input2), upper), input)


def matrix_solve(matrix: TensorLike, rhs: TensorLike, adjoint: bool = False) -> Tensor:
    """X with matrix X = rhs (matrix^T X = rhs with adjoint)."""
    a = as_tensor(matrix)
    return F.matmul(F.inverse(F.swap_last_axes(a) if adjoint else a), rhs)


def lstsq(input: TensorLike, A: TensorLike) -> Tensor:
    """The least-squares solution X of A X = input (through the pseudo-inverse)."""
    return F.matmul(F.pinv(A), input)


def random_categorical(logits: TensorLike, num_sample: int, seed: int = 0,
                       dtype: Optional[DTypeLike] = None) -> Tensor:
    """num_sample category indices per row drawn from softmax(logits)."""
    probs = F.softmax(F.cast(as_tensor(logits), np.float64), -1)
    return F.cast(F.multinomial(probs, num_sample, True, seed or None), dtype or np.int64)


def multinomial_with_replacement(x: TensorLike, seed: int, offset: int, numsamples: int,
                                 replacement: bool = False) -> Tensor:
    return F.multinomial(as_tensor(x), numsamples, replacement, seed)
