"""Statistics and norms, composites of reductions and sort: var/std (and with the mean),
median, quantile, nan-aware sums and means, count_nonzero, aminmax, logsumexp, and the
vector and matrix norms. Every one is exact as a composition, so gradients come from the rows.

    >>> ops.var(ms.Tensor([1.0, 2.0, 3.0, 4.0]), ddof=1)
    Tensor(shape=[], dtype=Float32, value= 1.66667)
"""
import builtins
from typing import Optional, Tuple, Union

import numpy as np

from ..core.hints import Axis, DTypeLike, TensorLike
from ..core.tensor import Tensor

from . import functional as F
from .arguments import as_tensor, axis_arg, op_error
from .primitive import OpTypeError

__all__ = ["var", "std", "var_mean", "std_mean", "median", "nanmedian", "quantile",
           "nanquantile", "nansum", "nanmean", "count_nonzero", "aminmax", "logsumexp", "norm",
           "vector_norm", "matrix_norm", "ptp", "trapz"]


def _float(x: TensorLike) -> Tensor:
    t = as_tensor(x)
    return t if t.dtype.is_float else F.cast(t, np.float32)


def _count(x, axes):
    return int(np.prod([x.shape[a] for a in axes] if axes is not None else x.shape,
                       dtype=np.int64))


def var(input: TensorLike, axis: Optional[Axis] = None, ddof: int = 0, keepdims: bool = False,
        *, keep_dims: Optional[bool] = None) -> Tensor:
    """Variance over `axis` with `ddof` degrees of freedom removed (True means 1).

        >>> ops.var(ms.Tensor([[1.0, 3.0], [2.0, 6.0]]), axis=1)
        Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  4.00000000e+00])
    """
    x = _float(input)
    keep = keepdims if keep_dims is None else keep_dims
    axes = F.normalize_axes(axis, x.ndim)
    centered = F.sub(x, F.mean(x, axes, True))
    divisor = builtins.max(_count(x, axes) - int(ddof), 0)
    return F.div(F.sum(F.mul(centered, centered), axes, keep), float(divisor))


def std(input: TensorLike, axis: Optional[Axis] = None, ddof: int = 0, keepdims: bool = False,
        *, keep_dims: Optional[bool] = None) -> Tensor:
    """Standard deviation over `axis` (see var)."""
    return F.sqrt(var(input, axis, ddof, keepdims, keep_dims=keep_dims))


def var_mean(input: TensorLike, axis: Optional[Axis] = None, ddof: int = 0,
             keepdims: bool = False) -> Tuple[Tensor, Tensor]:
    """(variance, mean) over `axis`."""
    return var(input, axis, ddof, keepdims), F.mean(_float(input), axis, keepdims)


def std_mean(input: TensorLike, axis: Optional[Axis] = None, ddof: int = 0,
             keepdims: bool = False) -> Tuple[Tensor, Tensor]:
    """(standard deviation, mean) over `axis`."""
    return std(input, axis, ddof, keepdims), F.mean(_float(input), axis, keepdims)


def ptp(input: TensorLike, axis: Optional[Axis] = None, keepdims: bool = False) -> Tensor:
    """max - min over `axis` (peak to peak)."""
    return F.sub(F.amax(input, axis, keepdims), F.amin(input, axis, keepdims))


def trapz(y: TensorLike, x: Optional[TensorLike] = None, *, dx: float = 1.0,
          dim: int = -1) -> Tensor:
    """The integral of y along `dim` by the trapezoidal rule (sample points x, or spacing dx)."""
    y = _float(y)
    dim = axis_arg("trapz", y, dim)
    n = y.shape[dim]
    mids = F.mul(F.add(F.slice_axis(y, dim, 1, n), F.slice_axis(y, dim, 0, n - 1)), 0.5)
    if x is None:
        return F.mul(F.sum(mids, dim), dx)
    steps = F.diff(as_tensor(x), 1, -1)
    if steps.ndim == 1 and y.ndim > 1:
        steps = F.reshape(steps, tuple(n - 1 if a == dim else 1 for a in range(y.ndim)))
    return F.sum(F.mul(mids, steps), dim)


def logsumexp(input: TensorLike, dim: Optional[Axis] = None, keepdim: bool = False, *,
              axis: Optional[Axis] = None, keep_dims: Optional[bool] = None) -> Tensor:
    """log(sum(exp(input))) over `dim`, shifted by the max so that exp cannot overflow."""
    x = _float(input)
    axes = F.normalize_axes(dim if axis is None else axis, x.ndim)
    keep = keepdim if keep_dims is None else keep_dims
    # shifting by the max does not change the value or the gradient
    shift = F.stop_gradient(F.amax(x, axes, True))
    out = F.add(F.log(F.sum(F.exp(F.sub(x, shift)), axes, True)), shift)
    return out if keep else F.squeeze(out, axes)


# ***** NaN-aware reductions *****

def nansum(input: TensorLike, axis: Optional[Axis] = None, keepdims: bool = False, *,
           dtype: Optional[DTypeLike] = None) -> Tensor:
    """Sum over `axis`, nan counted as 0."""
    x = as_tensor(input)
    if x.dtype.is_float:
        x = F.where(F.isnan(x), F.zeros((), x.dtype), x)
    out = F.sum(x, axis, keepdims)
    return out if dtype is None else F.cast(out, dtype)


def nanmean(input: TensorLike, axis: Optional[Axis] = None, keepdims: bool = False, *,
            dtype: Optional[DTypeLike] = None) -> Tensor:
    """Mean over `axis` of the elements that are not nan."""
    x = _float(input)
    counted = F.sum(F.cast(F.logical_not(F.isnan(x)), x.dtype), axis, keepdims)
    out = F.div(nansum(x, axis, keepdims), counted)
    return out if dtype is None else F.cast(out, dtype)


def count_nonzero(x: TensorLike, axis: Axis = (), keep_dims: bool = False,
                  dtype: Optional[DTypeLike] = None) -> Tensor:
    """The number of non-zero elements over `axis` (() = all), Int32 by default."""
    x = as_tensor(x)
    out = F.sum(F.cast(F.not_equal(x, 0), np.int32), axis, keep_dims)
    return F.cast(out, np.int32 if dtype is None else dtype)


def aminmax(input: TensorLike, *, axis: Optional[int] = 0,
            keepdims: bool = False) -> Tuple[Tensor, Tensor]:
    """(minimum, maximum) over `axis` (None: all elements)."""
    return F.amin(input, axis, keepdims), F.amax(input, axis, keepdims)


# ***** order statistics (through sort, whose gradient reaches the chosen elements) *****

def _take(values, axis, position, keepdims):
    """values[..., position, ...] along axis; position an int or an index tensor shaped like
    values with that axis of size 1."""
    if isinstance(position, int):
        out = F.slice_axis(values, axis, position, position + 1)
    else:
        out = F.gather_elements(values, axis, position)
    return out if keepdims else F.squeeze(out, axis)


def median(input: TensorLike, axis: int = -1, keepdims: bool = False) -> Tuple[Tensor, Tensor]:
    """(values, indices): the lower median along `axis` and its position in input.

        >>> ops.median(ms.Tensor([[1.0, 3.0, 2.0, 4.0]]))[0]
        Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00])
    """
    x = as_tensor(input)
    if x.ndim == 0:
        return x, F.zeros((), np.int64)
    axis = axis_arg("median", x, axis)
    values, indices = F.sort(x, axis)
    middle = (x.shape[axis] - 1) // 2
    return _take(values, axis, middle, keepdims), _take(indices, axis, middle, keepdims)


def _valid_counts(x, axis):
    """Per slice along axis, the number of elements that are not nan (kept as size 1)."""
    return F.sum(F.cast(F.logical_not(F.isnan(x)), np.int64), (axis,), True)


def nanmedian(input: TensorLike, axis: int = -1,
              keepdims: bool = False) -> Tuple[Tensor, Tensor]:
    """(values, indices): the lower median of the non-nan elements along `axis` (sort puts
    nan last, so it sits at position (count - 1) // 2); nan where a slice is all nan."""
    x = as_tensor(input)
    if x.ndim == 0:
        return x, F.zeros((), np.int64)
    axis = axis_arg("nanmedian", x, axis)
    values, indices = F.sort(x, axis)
    middle = F.floor_div(F.maximum(F.sub(_valid_counts(x, axis), 1), 0), 2)
    return _take(values, axis, middle, keepdims), _take(indices, axis, middle, keepdims)


def _quantile(name, input, q, axis, keepdims, skip_nan):
    x = _float(input)
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    axis = axis_arg(name, x, axis)
    q_values = np.atleast_1d(np.asarray(q.asnumpy() if hasattr(q, "asnumpy") else q, np.float64))
    if ((q_values < 0) | (q_values > 1)).any():
        raise op_error(name, (x,), f"q must lie in [0, 1], got {q_values.tolist()}", ValueError)
    values, _ = F.sort(x, axis)
    count = F.cast(_valid_counts(x, axis) if skip_nan else F.full((), x.shape[axis], np.int64),
                   x.dtype)
    outs = []
    for quant in q_values:  # linear interpolation between the two nearest ranks
        rank = F.mul(F.sub(count, 1), float(quant))
        low = F.floor(rank)
        high = F.minimum(F.add(low, 1), F.maximum(F.sub(count, 1), 0))
        index_shape = tuple(1 if a == axis else s for a, s in enumerate(x.shape))
        low_i, high_i = (F.broadcast_to(F.cast(F.maximum(i, 0), np.int64), index_shape)
                         for i in (low, high))
        below = F.gather_elements(values, axis, low_i)
        above = F.gather_elements(values, axis, high_i)
        out = F.add(below, F.mul(F.sub(above, below), F.sub(rank, low)))
        if skip_nan:  # an all-nan slice has no quantile
            out = F.where(F.equal(count, 0), F.full((), np.nan, x.dtype), out)
        outs.append(out if keepdims else F.squeeze(out, axis))
    return outs[0] if np.ndim(q) == 0 and not hasattr(q, "asnumpy") else F.stack(outs)


def quantile(input: TensorLike, q: TensorLike, axis: Optional[int] = None,
             keepdims: bool = False) -> Tensor:
    """The q-th quantiles along `axis` (None: all elements), interpolating linearly between
    ranks; q a number in [0, 1] or a 1-D tensor of them (its axis first in the result)."""
    return _quantile("quantile", input, q, axis, keepdims, skip_nan=False)


def nanquantile(input: TensorLike, q: TensorLike, axis: Optional[int] = None,
                keepdims: bool = False) -> Tensor:
    """quantile over the elements that are not nan."""
    return _quantile("nanquantile", input, q, axis, keepdims, skip_nan=True)


# ***** norms *****

def vector_norm(x: TensorLike, ord: Union[int, float] = 2, axis: Optional[Axis] = None,
                keepdims: bool = False, *, dtype: Optional[DTypeLike] = None) -> Tensor:
    """The vector `ord`-norm over `axis` (None: all elements): sum(|x|**ord)**(1/ord); inf
    and -inf give max/min |x|, 0 the number of non-zero elements."""
    x = _float(x) if dtype is None else F.cast(as_tensor(x), dtype)
    axes = F.normalize_axes(axis, x.ndim)
    magnitude = F.abs(x)
    if ord == float("inf"):
        return F.amax(magnitude, axes, keepdims)
    if ord == float("-inf"):
        return F.amin(magnitude, axes, keepdims)
    if ord == 0:
        return F.sum(F.cast(F.not_equal(x, 0), x.dtype), axes, keepdims)
    if ord == 1:
        return F.sum(magnitude, axes, keepdims)
    if ord == 2:
        return F.sqrt(F.sum(F.mul(x, x), axes, keepdims))
    return F.pow(F.sum(F.pow(magnitude, float(ord)), axes, keepdims), 1.0 / ord)


def matrix_norm(A: TensorLike, ord: Union[str, int, float] = "fro",
                axis: Tuple[int, int] = (-2, -1), keepdims: bool = False, *,
                dtype: Optional[DTypeLike] = None) -> Tensor:
    """The matrix norm over the two axes `axis`: 'fro', 'nuc', inf/-inf (max/min row sum),
    1/-1 (max/min column sum), 2/-2 (largest/smallest singular value)."""
    A = _float(A) if dtype is None else F.cast(as_tensor(A), dtype)
    if A.ndim < 2:
        raise op_error("matrix_norm", (A,), "A must have at least 2 dimensions", ValueError)
    rows, cols = (axis_arg("matrix_norm", A, a) for a in axis)
    if ord == "fro":
        return vector_norm(A, 2, (rows, cols), keepdims)
    if ord in ("nuc", 2, -2):
        moved = F.movedim(A, (rows, cols), (-2, -1))
        singular = F.svd(moved, compute_uv=False)
        out = {"nuc": F.sum, 2: F.amax, -2: F.amin}[ord](singular, -1)
        if keepdims:
            out = F.expand_dims(F.expand_dims(out, builtins.min(rows, cols)),
                                builtins.max(rows, cols))
        return out
    if ord in (1, -1, float("inf"), float("-inf")):
        summed, kept = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = F.sum(F.abs(A), summed, True)
        pick = F.amax if ord > 0 else F.amin
        out = pick(sums, kept, True)
        return out if keepdims else F.squeeze(out, tuple(sorted((rows, cols))))
    raise op_error("matrix_norm", (A,), f"ord={ord!r} is not a matrix norm", ValueError)


def norm(A: TensorLike, ord: Optional[Union[str, int, float]] = None,
         dim: Optional[Axis] = None, keepdim: bool = False, *,
         dtype: Optional[DTypeLike] = None, axis: Optional[Axis] = None,
         keep_dims: Optional[bool] = None) -> Tensor:
    """Vector or matrix norm (MindSpore's ops.norm): with ord None, the 2-norm of all
    elements or over `dim`; an int `dim` (or a 1-D A) takes a vector norm, a pair of axes
    (or a 2-D A with ord given) a matrix norm.

        >>> ops.norm(ms.Tensor([[3.0, 4.0]]))
        Tensor(shape=[], dtype=Float32, value= 5)
    """
    A = as_tensor(A)
    dim = dim if axis is None else axis
    keep = keepdim if keep_dims is None else keep_dims
    if not (A.dtype.is_float or dtype is not None):
        raise op_error("norm", (A,), "input must be a float tensor", OpTypeError)
    if isinstance(ord, str) or (ord is not None and (
            (isinstance(dim, (tuple, list)) and len(dim) == 2) or (dim is None and A.ndim == 2))):
        pair = (-2, -1) if dim is None else tuple(dim)  # type: ignore[arg-type]  # a pair here
        return matrix_norm(A, "fro" if ord is None else ord, pair,  # type: ignore[arg-type]
                           keep, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keep, dtype=dtype)
