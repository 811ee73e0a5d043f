"""Tensor's methods that mirror `ops` functions (x.flip(0), x.masked_fill(m, 0), x.norm()...),
its reductions with MindSpore's keyword spellings (axis/dim, keep_dims/keepdims/keepdim), its
in-place forms (fill_, copy_, uniform_, add_...), casts (x.float()) and properties (nbytes,
strides, mT), attached to the class when `ops` is imported (after `ops.tensor_methods`).
Each method is one call of an `ops` function, so it behaves alike in both modes; in-place
forms compute the new value with ops and `ops.assign` it (functionalised in Graph mode,
recorded for gradients).

    >>> x = ms.Tensor([[1.0, 5.0], [3.0, 2.0]])
    >>> x.sum(1, keepdim=True).shape, x.max(1)[1].tolist(), x.flip(0)[0].tolist()
    ((2, 1), [1, 0], [3.0, 2.0])
"""
from __future__ import annotations
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from ..core.tensor import Tensor
from . import array
from . import functional as F
from .arguments import reduction_args
from .indexing import parse_index
from .scatter import add_at_indices, first_axis_indices
from ..core.hints import Axis, DTypeLike, Scalar, ShapeLike, TensorLike

# ***** methods that are an ops function with the tensor first *****

_SAME_SIGNATURE = """
    absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr allclose aminmax
    approximate_equal arccos arccosh arcsin arcsinh arctan arctan2 arctanh argsort argwhere
    asin asinh atan atan2 atanh baddbmm bincount bitwise_and bitwise_left_shift bitwise_not
    bitwise_or bitwise_right_shift bitwise_xor bmm ceil cholesky chunk copysign cos cosh
    count_nonzero cross cummax cummin cumprod deg2rad det diag diagflat diff digamma div
    divide dot dsplit eq equal erf erfc erfinv exp2 expand_as expm1 flip fliplr flipud
    float_power floor floor_divide fmax fmin fmod frac gather gather_elements gather_nd gcd
    ge ger greater greater_equal gt heaviside histc hsplit hypot index_fill index_select inner
    inverse invert is_complex is_floating_point isclose isfinite isinf isnan isneginf isposinf
    isreal lcm ldexp le lerp less less_equal lgamma log10 log1p log2 logaddexp logaddexp2
    logcumsumexp logdet logical_and logical_not logical_or logical_xor logit lt masked_fill
    masked_select matrix_determinant matrix_power maximum minimum mm moveaxis movedim msort
    mul multinomial multiply nan_to_num nanmedian nanquantile nansum nanmean narrow ne neg
    negative nonzero not_equal outer permute positive ptp quantile rad2deg ravel reciprocal
    remainder repeat_interleave reverse roll rot90 round rsqrt select_scatter sgn sign signbit
    sin sinc sinh slice_scatter slogdet sub subtract svd swapaxes swapdims t take tan
    tensor_split tile top_k topk tril triu true_divide trunc unbind unique
    unique_consecutive unique_with_pad unsqueeze view_as vsplit xdivy xlogy log_matrix_determinant
    inv cumsum median
    norm logsumexp cholesky_inverse cholesky_solve cov diagonal_scatter inplace_update lstsq
    mvlgamma random_categorical renorm unsorted_segment_max unsorted_segment_min
    unsorted_segment_prod reverse_sequence nextafter i0 lu_solve
""".split()


# ***** reductions: every keyword spelling *****

def _reduction_method(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def method(self: Tensor, axis: Optional[Axis] = None, keep_dims: bool = False, *,
               keepdims: Optional[bool] = None, dim: Optional[Axis] = None,
               keepdim: Optional[bool] = None, dtype: Optional[DTypeLike] = None) -> Tensor:
        axis, keep = reduction_args(axis, keep_dims, dim, keepdim, keepdims)
        return op(self, axis, keep, dtype=dtype)
    method.__name__ = method.__qualname__ = op.__name__
    method.__doc__ = f"{op.__doc__} axis/dim, keep_dims/keepdims/keepdim are all accepted."
    return method


def _sum(self: Tensor, axis: Optional[Axis] = None, dtype: Union[DTypeLike, bool, None] = None,
         keepdims: bool = False, initial: Optional[TensorLike] = None, *,
         keep_dims: Optional[bool] = None, dim: Optional[Axis] = None,
         keepdim: Optional[bool] = None) -> Tensor:
    """Sum over `axis` (or `dim`), in `dtype`, plus `initial` if given. The second
    positional argument is keepdim when it is a bool (MindSpore's 2.x overload)."""
    if isinstance(dtype, (bool, np.bool_)):
        keepdims, dtype = bool(dtype), None
    axis, keep = reduction_args(axis, keepdims, dim, keepdim, keep_dims)
    out = F.sum(self, axis, keep, dtype=dtype)
    return out if initial is None else F.add(out, initial)


def _extremum(values_op: Callable[..., Tensor], pair_op: Callable[..., tuple[Tensor, ...]]
              ) -> Callable[..., Union[Tensor, tuple[Tensor, ...]]]:
    def method(self: Tensor, *args: Any, axis: Optional[Axis] = None,
               keepdims: Optional[bool] = None, keep_dims: Optional[bool] = None,
               dim: Optional[Axis] = None, keepdim: Optional[bool] = None,
               initial: Optional[TensorLike] = None, where: object = None,
               return_indices: bool = False) -> Union[Tensor, tuple[Tensor, ...]]:
        # args: (axis[, keepdim]) given by position
        if where is not None:
            raise NotImplementedError(f"Tensor.{values_op.__name__[1:]}: `where` is not "
                                      f"supported")
        # MindSpore: a positional or `dim` axis gives (values, indices); axis= gives values
        pair = bool(args) or dim is not None or return_indices
        if args:
            axis = args[0]
            if len(args) > 1:
                keepdim = args[1]
        axis, keep = reduction_args(axis, False, dim, keepdim, keepdims)
        keep = keep or bool(keep_dims)
        if pair and axis is not None:
            return pair_op(self, axis, keep)
        out = values_op(self, axis, keep)
        if initial is not None:
            out = (F.maximum if values_op is F.amax else F.minimum)(out, initial)
        return out
    return method


def _arg_method(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def method(self: Tensor, axis: Optional[int] = None, keepdims: bool = False, *,
               keep_dims: Optional[bool] = None, dim: Optional[int] = None,
               keepdim: Optional[bool] = None) -> Tensor:
        axis, keep = reduction_args(axis, keepdims, dim, keepdim, keep_dims)
        return op(self, axis, keep)
    method.__name__ = op.__name__
    return method


def _with_value(op_value: Callable[..., Tensor], op_index: Callable[..., Tensor]
                ) -> Callable[..., tuple[Tensor, Tensor]]:
    def method(self: Tensor, axis: int = 0, keep_dims: bool = False) -> tuple[Tensor, Tensor]:
        """(value, index) of the extremum along `axis` (MindSpore's order for the method)."""
        return op_value(self, axis, keep_dims), op_index(self, axis, keep_dims)
    return method


def _statistic(op: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def method(self: Tensor, axis: Optional[Axis] = None, ddof: int = 0, keepdims: bool = False,
               *, keep_dims: Optional[bool] = None, dim: Optional[Axis] = None,
               keepdim: Optional[bool] = None, correction: Optional[int] = None) -> Tensor:
        axis, keep = reduction_args(axis, keepdims, dim, keepdim, keep_dims)
        return op(self, axis, ddof if correction is None else correction, keep)
    method.__name__ = op.__name__
    return method


# ***** methods whose arguments differ from the ops function's *****

def _where(self: Tensor, condition: TensorLike, y: TensorLike) -> Tensor:
    """self where condition holds, else y."""
    return F.where(condition, self, y)


def _clip(self: Tensor, min: Optional[TensorLike] = None,
          max: Optional[TensorLike] = None) -> Tensor:
    return F.clip(self, min, max)


def _diagonal(self: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    return F.diagonal(self, offset, axis1, axis2)


def _trace(self: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1,
           dtype: Optional[DTypeLike] = None) -> Tensor:
    out = F.sum(F.diagonal(self, offset, axis1, axis2), -1)
    return out if dtype is None else F.cast(out, dtype)


def _qr(self: Tensor, some: bool = True) -> tuple[Tensor, Tensor]:
    return F.qr(self, "reduced" if some else "complete")


def _searchsorted(self: Tensor, v: TensorLike, side: str = "left",
                  sorter: Optional[TensorLike] = None) -> Tensor:
    return F.searchsorted(self, v, side=side, sorter=sorter)


def _split(self: Tensor, split_size_or_sections: Union[int, Sequence[int]],
           axis: int = 0) -> tuple[Tensor, ...]:
    return F.split(self, split_size_or_sections, axis)


def _expand(self: Tensor, *size: Union[int, Sequence[int]]) -> Tensor:
    return F.expand(self, _size_arg(size))


def _repeat(self: Tensor, *repeats: Union[int, Sequence[int]]) -> Tensor:
    """The tensor tiled `repeats` times along each axis (PyTorch's repeat)."""
    return F.tile(self, _size_arg(repeats))


def _sort(self: Tensor, axis: int = -1, descending: bool = False, *, dim: Optional[int] = None,
          stable: bool = True) -> tuple[Tensor, Tensor]:
    return F.sort(self, axis if dim is None else dim, descending)


def _kthvalue(self: Tensor, k: int, dim: int = -1,
              keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """(values, indices) of the k-th smallest element along dim."""
    values, indices = F.sort(self, dim)
    pick = (slice(None),) * (dim % self.ndim) + (slice(k - 1, k),)
    values, indices = values[pick], indices[pick]
    return (values, indices) if keepdim else (F.squeeze(values, dim), F.squeeze(indices, dim))


def _scatter(self: Tensor, axis: int, index: Tensor, src: Union[Tensor, float]) -> Tensor:
    """A copy with src (a tensor, or a number for every position) written at index."""
    if not isinstance(src, Tensor):
        src = F.full(index.shape, src, self.dtype)
    return F.scatter(self, axis, index, src)


def _scatter_add(self: Tensor, dim: int, index: TensorLike, src: TensorLike) -> Tensor:
    return F.tensor_scatter_elements(self, index, src, dim, "add")


def _new(fill: float) -> Callable[..., Tensor]:
    def method(self: Tensor, size: ShapeLike, *, dtype: Optional[DTypeLike] = None) -> Tensor:
        return F.full(tuple(size) if not isinstance(size, int) else (size,), fill,
                      dtype or self.dtype)
    return method


def _new_full(self: Tensor, size: ShapeLike, fill_value: float, *,
              dtype: Optional[DTypeLike] = None) -> Tensor:
    return F.full(size, fill_value, dtype or self.dtype)


def _cast_to(dtype: DTypeLike) -> Callable[[Tensor], Tensor]:
    def cast(self: Tensor) -> Tensor:
        return F.cast(self, dtype)
    return cast


def _type(self: Tensor, dtype: Optional[DTypeLike] = None) -> Union[str, Tensor]:
    """The dtype's name, or a copy cast to `dtype`."""
    return str(self.dtype) if dtype is None else F.cast(self, dtype)


def _strides(self: Tensor) -> tuple[int, ...]:
    """Byte steps between elements along each axis (tensors are C-contiguous)."""
    steps, step = [], self.itemsize
    for s in reversed(self.shape):
        steps.append(step)
        step *= s
    return tuple(reversed(steps))


def _stride(self: Tensor, dim: Optional[int] = None) -> Union[int, tuple[int, ...]]:
    """Element steps between neighbours along each axis (or along `dim`)."""
    steps = tuple(s // self.itemsize for s in _strides(self))
    return steps if dim is None else steps[dim]


def _fill_value(self: Tensor, value: float) -> Tensor:
    return F.full(self.shape, value, self.dtype)


def _fill_diagonal(self: Tensor, fill_value: float, wrap: bool = False) -> Tensor:
    """A copy with fill_value on the main diagonal (of a matrix; wrap: numpy's wrapping of a
    tall matrix's diagonal every columns + 1 rows)."""
    mask = np.zeros(self.shape, bool)
    if self.ndim == 2 and wrap:
        mask.reshape(-1)[::self.shape[1] + 1] = True
    else:
        n = min(self.shape)
        mask[(np.arange(n),) * self.ndim] = True
    return F.where(Tensor(mask), F.full((), fill_value, self.dtype), self)


def _index_put(self: Tensor, indices: Sequence[TensorLike], values: TensorLike,
               accumulate: bool = False) -> Tensor:
    """A copy with values written (or added, with accumulate) at the index tensors."""
    index = tuple(indices)
    if accumulate:
        spec, tensors = parse_index(index)
        return array.index_add(self, F.cast(values, self.dtype), *tensors, index=spec)
    return F.setitem(self, index, values)


def _masked_scatter(self: Tensor, mask: TensorLike, source: TensorLike) -> Tensor:
    """A copy with the elements where mask holds replaced, in order, by source's first ones."""
    mask = F.broadcast_to(as_bool(mask), self.shape)
    positions = np.cumsum(mask.asnumpy().reshape(-1)) - 1
    taken = F.gather(F.reshape(source, (-1,)), Tensor(np.maximum(positions, 0)), 0)
    return F.where(mask, F.reshape(taken, self.shape), self)


def as_bool(mask: TensorLike) -> Tensor:
    mask = mask if isinstance(mask, Tensor) else Tensor(mask)
    return mask if mask.dtype.kind == "b" else F.cast(mask, np.bool_)


def _triangular_solve(self: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                      unitriangular: bool = False) -> tuple[Tensor, Tensor]:
    """(X, A) with op(A) X = self for the triangular matrix A."""
    a = F.triu(A) if upper else F.tril(A)
    if unitriangular:
        a = F.add(F.sub(a, F.mul(F.diag_embed(F.diagonal(a, 0, -2, -1)), 1.0)),
                  F.eye(a.shape[-1], dtype=a.dtype))
    a = F.swap_last_axes(a) if transpose else a
    return F.matmul(F.inverse(a), self), A


def _index_copy(self: Tensor, dim: int, index: TensorLike, tensor: Tensor) -> Tensor:
    """A copy with the slices of `tensor` written at `index` along dim."""
    moved = F.movedim(self, dim, 0)
    written = F.tensor_scatter_update(moved, first_axis_indices(index), F.movedim(tensor, dim, 0))
    return F.movedim(written, 0, dim)


def _itemset(self: Tensor, *args: Any) -> Tensor:  # args: ([index,] value)
    """Write one element, in place: itemset(value) on a one-element tensor, or
    itemset(flat_index or index_tuple, value)."""
    *where, value = args
    index = where[0] if where else 0
    if isinstance(index, int):
        index = np.unravel_index(index, self.shape) if self.ndim else ()
    return F.assign(self, F.setitem(self, tuple(int(i) for i in index), value))


def _resize(self: Tensor, *new_shape: Union[int, Sequence[int]]) -> Tensor:
    """The elements in order, cut or padded with zeros to fill `new_shape`."""
    shape = _size_arg(new_shape)
    size = int(np.prod(shape, dtype=np.int64))
    flat = F.reshape(self, (-1,))
    flat = F.pad(flat, ((0, size - flat.shape[0]),)) if size > flat.shape[0] else flat[:size]
    return F.reshape(flat, shape)


def _choose(self: Tensor, choices: Sequence[Union[Tensor, float]], mode: str = "clip") -> Tensor:
    """out[i] = choices[self[i]][i] (indices clipped into range, or wrapped with 'wrap')."""
    stacked = F.stack([F.broadcast_to(c, self.shape) if isinstance(c, Tensor) else
                       F.full(self.shape, c, np.float32) for c in choices])
    n = stacked.shape[0]
    index = F.remainder(self, n) if mode == "wrap" else F.clip(self, 0, n - 1)
    return F.squeeze(F.gather_elements(stacked, 0, F.expand_dims(F.cast(index, np.int64), 0)), 0)


def _size_arg(size: tuple[Any, ...]) -> tuple[int, ...]:
    """A size given as ints or as one tuple or list of them."""
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def _log_normal(self: Tensor, mean: float = 1.0, std: float = 2.0) -> Tensor:
    return F.cast(F.exp(F.normal(self.shape, float(mean), float(std))), self.dtype)


def _cauchy(self: Tensor, median: float = 0.0, sigma: float = 1.0) -> Tensor:
    u = F.rand(*self.shape, dtype=self.dtype)
    return F.add(F.mul(F.tan(F.mul(F.sub(u, 0.5), np.pi)), sigma), median)


def _uniform(self: Tensor, from_: float = 0.0, to: float = 1.0, generator: object = None) -> Tensor:
    return F.uniform(self.shape, float(from_), float(to), dtype=self.dtype)


# ***** small methods: what a Tensor says about itself, and aliases *****

def _itself(self: Tensor) -> Tensor:
    """The tensor itself (contiguous, conj and real of a real, C-contiguous tensor)."""
    return self


def _clone(self: Tensor) -> Tensor:
    return F.identity(self)


def _numpy(self: Tensor) -> np.ndarray:
    return self.asnumpy()


def _type_as(self: Tensor, other: Tensor) -> Tensor:
    return F.cast(self, other.dtype)


def _reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return F.reshape(self, other.shape)


def _sum_to_size(self: Tensor, *size: Union[int, Sequence[int]]) -> Tensor:
    return F.sum_to(self, _size_arg(size))


def _is_contiguous(self: Tensor) -> bool:
    return True


def _is_signed(self: Tensor) -> bool:
    return self.dtype.kind in "if"


def _ndim(self: Tensor) -> int:
    return self.ndim


def _numel(self: Tensor) -> int:
    return self.size


def _storage_offset(self: Tensor) -> int:
    return 0


def _imag(self: Tensor) -> Tensor:
    """Zeros: minispore tensors are real."""
    return F.zeros_like(self)


def _bernoulli(self: Tensor, *, generator: object = None) -> Tensor:
    """0/1 samples with the tensor's values as probabilities."""
    return F.bernoulli(self, self)


def _index_add(self: Tensor, dim: int, index: TensorLike, source: TensorLike, *,
               alpha: Scalar = 1) -> Tensor:
    return add_at_indices(self, dim, index, source, alpha)


def _first_axis_scatter(op: Callable[[Tensor, TensorLike, TensorLike], Tensor]
                        ) -> Callable[[Tensor, TensorLike, TensorLike], Tensor]:
    def method(self: Tensor, indices: TensorLike, updates: TensorLike) -> Tensor:
        return op(self, first_axis_indices(indices), updates)
    method.__name__ = method.__qualname__ = op.__name__.replace("tensor_", "")
    method.__doc__ = f"ops.{op.__name__} with `indices` addressing the first axis."
    return method


def _requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    return self


def _to_(self: Tensor, device: object = None, non_blocking: bool = False) -> Tensor:
    return self


# ***** in-place forms: the new value computed with ops, then assigned *****

def _in_place(compute: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # compute's arguments
        return F.assign(self, compute(self, *args, **kwargs))
    method.__doc__ = f"In place: {compute.__doc__ or compute.__name__}"
    return method


def _scaled(x: TensorLike, alpha: Scalar) -> TensorLike:
    return x if alpha == 1 else F.mul(x, alpha)


_IN_PLACE: dict[str, Callable[..., Tensor]] = {
    "add_": lambda self, other, *, alpha=1: F.add(self, _scaled(other, alpha)),
    "sub_": lambda self, other, *, alpha=1: F.sub(self, _scaled(other, alpha)),
    "mul_": F.mul, "div_": F.div, "floor_divide_": F.floor_divide, "remainder_": F.remainder,
    "clamp_": _clip, "floor_": F.floor, "sign_": F.sign, "sigmoid_": F.sigmoid,
    "tanh_": F.tanh, "exp_": F.exp, "log_": F.log, "erfinv_": F.erfinv,
    "masked_fill_": F.masked_fill,
    "fill_": _fill_value,
    "zero_": lambda self: F.zeros_like(self),
    "copy_": lambda self, src, non_blocking=False: F.broadcast_to(F.cast(src, self.dtype),
                                                                    self.shape),
    "uniform_": lambda self, from_=0, to=1, *, generator=None: F.uniform(
        self.shape, float(from_), float(to), dtype=self.dtype),
    "normal_": lambda self, mean=0, std=1, *, generator=None: F.cast(
        F.normal(self.shape, float(mean), float(std)), self.dtype),
    "random_": lambda self, from_=0, to=None, *, generator=None: F.cast(
        F.randint(from_, to if to is not None else 2 ** 31 - 1, self.shape), self.dtype),
    "bernoulli_": lambda self, p=0.5, *, generator=None: F.bernoulli(self, p),
    "exponential_": lambda self, lambd=1, *, generator=None: F.cast(
        F.exponential(self.shape, lambd), self.dtype),
    "index_add_": lambda self, dim, index, source, *, alpha=1: add_at_indices(
        self, dim, index, source, alpha),
    "scatter_add_": _scatter_add,
    "scatter_": _scatter,
    "addmm_": lambda self, mat1, mat2, *, beta=1, alpha=1: F.addmm(self, mat1, mat2, beta=beta,
                                                                    alpha=alpha),
    "fill_diagonal_": _fill_diagonal,
    "index_fill_": F.index_fill,
    "index_put_": _index_put,
    "masked_scatter_": _masked_scatter,
    "index_copy_": _index_copy,
    "put_": lambda self, index, source, accumulate=False: F.put_(F.identity(self), index,
                                                               source, accumulate),
}

_METHODS = {
    "sum": _sum,
    "mean": _reduction_method(F.mean), "prod": _reduction_method(F.prod),
    "all": _reduction_method(F.all), "any": _reduction_method(F.any),
    "amax": _reduction_method(F.amax), "amin": _reduction_method(F.amin),
    "max": _extremum(F.amax, F.max), "min": _extremum(F.amin, F.min),
    "argmax": _arg_method(F.argmax), "argmin": _arg_method(F.argmin),
    "argmax_with_value": _with_value(F.amax, F.argmax),
    "argmin_with_value": _with_value(F.amin, F.argmin),
    "std": _statistic(F.std), "var": _statistic(F.var),
    "where": _where, "clip": _clip, "clamp": _clip, "diagonal": _diagonal, "trace": _trace,
    "qr": _qr, "searchsorted": _searchsorted, "split": _split, "expand": _expand,
    "repeat": _repeat, "sort": _sort, "kthvalue": _kthvalue, "scatter": _scatter,
    "scatter_add": _scatter_add, "new_zeros": _new(0), "new_ones": _new(1),
    "new_empty": _new(0), "new_full": _new_full, "fill": _fill_value, "fills": _fill_value,
    "type": _type, "type_as": _type_as, "reshape_as": _reshape_as, "sum_to_size": _sum_to_size,
    "float": _cast_to(np.float32), "double": _cast_to(np.float64), "half": _cast_to(np.float16),
    "int": _cast_to(np.int32), "long": _cast_to(np.int64), "short": _cast_to(np.int16),
    "byte": _cast_to(np.uint8), "bool": _cast_to(np.bool_),
    "numpy": _numpy, "clone": _clone, "contiguous": _itself, "is_contiguous": _is_contiguous,
    "is_signed": _is_signed, "dim": _ndim, "ndimension": _ndim, "numel": _numel,
    "nelement": _numel, "stride": _stride, "storage_offset": _storage_offset,
    "adjoint": F.swap_last_axes, "conj": _itself, "real": _itself, "imag": _imag,
    "angle": F.angle,
    "fill_diagonal": _fill_diagonal, "index_put": _index_put, "masked_scatter": _masked_scatter,
    "triangular_solve": _triangular_solve,
    "log_normal": _log_normal, "cauchy": _cauchy, "uniform": _uniform,
    "bernoulli": _bernoulli, "index_add": _index_add, "select": _where,
    "scatter_sub": _first_axis_scatter(F.tensor_scatter_sub),
    "scatter_max": _first_axis_scatter(F.tensor_scatter_max),
    "scatter_min": _first_axis_scatter(F.tensor_scatter_min),
    "scatter_mul": _first_axis_scatter(F.tensor_scatter_mul),
    "scatter_div": _first_axis_scatter(F.tensor_scatter_div),
    "requires_grad_": _requires_grad_, "itemset": _itemset, "resize": _resize,
    "choose": _choose, "to_": _to_,
}

_PROPERTIES = {
    "nbytes": lambda self: self.size * self.itemsize,
    "strides": _strides,
    "mT": lambda self: F.swap_last_axes(self),
    "mH": lambda self: F.swap_last_axes(self),
    "H": lambda self: F.swap_last_axes(self),
    "data": lambda self: self,
}


def attach(cls=Tensor) -> None:
    """Put the methods, in-place forms and properties on `cls`."""
    for name in _SAME_SIGNATURE:
        setattr(cls, name, getattr(F, name))
    for name, method in _METHODS.items():
        setattr(cls, name, method)
    for name, compute in _IN_PLACE.items():
        setattr(cls, name, _in_place(compute))
    for name, getter in _PROPERTIES.items():
        setattr(cls, name, property(getter))
