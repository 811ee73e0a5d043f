"""The functional API, `minispore.ops.<name>`.

Every primitive in the table is an op under its name (`ops.exp`, `ops.reduce_sum`...: the
module's `__getattr__`). The functions here and in `array_functions` add what a user-facing
signature needs on top of a primitive: MindSpore's dtype promotion for binary ops, axis
normalisation, -1 in shapes, vectors in matmul; and the composites (mean, softmax, losses...)
that are exact as compositions of primitives and so need no derivative of their own.

The families of rows, imported here in this order, fill the primitive table: elementwise,
reduce, array, linalg, indexing, state, debug, control_flow, and the nn families (ops.nn).
"""
from __future__ import annotations
from typing import Callable, Optional
import builtins

import numpy as np

from ..context import device
from ..core.dtype import to_np
from ..core.tensor import Tensor
from . import array, control_flow, debug, elementwise, indexing, linalg, reduce, state  # noqa: F401
from .arguments import (axes_arg, axis_arg, binary_op, dtype_of,  # noqa: F401
                        normalize_axes, op_error, promote, reduction_args, shape_tuple,
                        to_dtype, unary_op)
from .array_functions import *  # noqa: F401,F403
from .array_functions import (broadcast_to, expand_dims, reshape, slice_axis,  # noqa: F401
                              squeeze, sum_to, swap_last_axes, transpose)
from .clip import clip_by_global_norm, clip_by_norm, clip_by_value  # noqa: F401
from .debug import print_values  # noqa: F401
from .nn import *  # noqa: F401,F403  (nn primitives and composites: conv, pool, softmax, losses, MindSpore's pad)
from .primitive import REGISTRY, bind, bind_positional
from .state import assign, assign_add, assign_sub, depend  # noqa: F401
from .surface import *  # noqa: F401,F403  (math, statistics, layout, linalg, random...)
from ..core.hints import TensorLike, Axis, ShapeLike, DTypeLike

# shadowed below by ops.max / ops.sum / ops.all
_py_all = builtins.all


def __getattr__(name):
    """Every primitive is an op under its own name (the functions here refine some)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise AttributeError(f"module 'minispore.ops' has no attribute {name!r}") from None


_E = elementwise
add, sub, mul, div = binary_op(_E.add), binary_op(_E.sub), binary_op(_E.mul), binary_op(_E.div)
floor_div, floor_mod, pow = binary_op(_E.floor_div), binary_op(_E.floor_mod), binary_op(_E.pow)
maximum, minimum = binary_op(_E.maximum), binary_op(_E.minimum)
equal, not_equal = binary_op(_E.equal), binary_op(_E.not_equal)
less, less_equal = binary_op(_E.less), binary_op(_E.less_equal)
greater, greater_equal = binary_op(_E.greater), binary_op(_E.greater_equal)
logical_and, logical_or = binary_op(_E.logical_and), binary_op(_E.logical_or)
logical_xor = binary_op(_E.logical_xor)

neg, abs, exp, log = unary_op(_E.neg), unary_op(_E.abs), unary_op(_E.exp), unary_op(_E.log)
log1p, expm1, sqrt, rsqrt = unary_op(_E.log1p), unary_op(_E.expm1), unary_op(_E.sqrt), unary_op(_E.rsqrt)
sin, cos, tan, tanh = unary_op(_E.sin), unary_op(_E.cos), unary_op(_E.tan), unary_op(_E.tanh)
sigmoid, relu, erf, sign = unary_op(_E.sigmoid), unary_op(_E.relu), unary_op(_E.erf), unary_op(_E.sign)
floor, ceil, round = unary_op(_E.floor), unary_op(_E.ceil), unary_op(_E.round)
logical_not, bitwise_not = unary_op(_E.logical_not), unary_op(_E.bitwise_not)
identity = unary_op(_E.identity)

subtract, multiply, divide, true_divide, floor_divide = sub, mul, div, div, floor_div
ne, eq, lt, le, gt, ge = not_equal, equal, less, less_equal, greater, greater_equal


# ***** tensor creation (concrete constants, also while tracing) *****

def zeros(shape: ShapeLike, dtype: Optional[DTypeLike] = None) -> Tensor:
    """ops.zeros((2, 3), ms.float32)"""
    return Tensor._wrap(device.xp().zeros(shape_tuple(shape), to_np(dtype) or np.float32))


def ones(shape: ShapeLike, dtype: Optional[DTypeLike] = None) -> Tensor:
    return Tensor._wrap(device.xp().ones(shape_tuple(shape), to_np(dtype) or np.float32))


def full(shape: ShapeLike, fill_value: float, dtype: Optional[DTypeLike] = None) -> Tensor:
    dtype = to_np(dtype) or (np.float32 if isinstance(fill_value, float) else None)
    return Tensor._wrap(device.xp().full(shape_tuple(shape), fill_value, dtype))


def zeros_like(x: Tensor, dtype: Optional[DTypeLike] = None) -> Tensor:
    return Tensor._wrap(device.xp().zeros(tuple(x.shape), to_np(dtype) or dtype_of(x)))


def ones_like(x: Tensor, dtype: Optional[DTypeLike] = None) -> Tensor:
    return Tensor._wrap(device.xp().ones(tuple(x.shape), to_np(dtype) or dtype_of(x)))


def fill_like(x: Tensor, value: float) -> Tensor:
    """A tensor shaped and typed like x filled with value."""
    return Tensor._wrap(device.xp().full(tuple(x.shape), value, dtype_of(x)))


def arange(start: float = 0, end: Optional[float] = None, step: float = 1, dtype: Optional[DTypeLike] = None) -> Tensor:
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = _py_all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if ints else np.float32
    return Tensor._wrap(device.xp().arange(start, end, step, dtype=to_np(dtype)))


def linspace(start: float, end: float, steps: int, dtype: Optional[DTypeLike] = None) -> Tensor:
    return Tensor._wrap(device.xp().linspace(float(start), float(end), int(steps)).astype(to_np(dtype) or np.float32))


def eye(n: int, m: Optional[int] = None, dtype: Optional[DTypeLike] = None) -> Tensor:
    return Tensor._wrap(device.xp().eye(n, m, dtype=to_np(dtype) or np.float32))


# ***** dtype, selection, clipping *****

def cast(x: TensorLike, dtype: DTypeLike) -> Tensor:
    """x converted to `dtype` (a minispore or numpy dtype)."""
    dtype = to_np(dtype)
    x = x if isinstance(x, Tensor) else Tensor(x)
    if x._data.dtype == dtype:
        return x
    return bind(REGISTRY["cast"], x, dtype=dtype)


def where(condition: TensorLike, x: TensorLike, y: TensorLike) -> Tensor:
    """Elementwise `x if condition else y`, broadcasting all three."""
    x, y = promote(x, y, "where")
    if not isinstance(condition, Tensor):
        condition = Tensor(np.asarray(condition, dtype=np.bool_))
    return bind(REGISTRY["select"], condition, x, y)


select = where


def square(x: Tensor) -> Tensor:
    return mul(x, x)


def reciprocal(x: Tensor) -> Tensor:
    return div(1.0, x)


def softplus(x: Tensor, beta: float = 1, threshold: float = 20) -> Tensor:
    """log(1 + exp(beta x)) / beta, computed without overflow."""
    bx = mul(x, beta) if beta != 1 else x
    # one smooth formula per half-line, each fed only its own half (no overflow in the
    # unselected branch): max(x, 0) + log1p(exp(-|x|)) has subgradients at 0 summing to 1,
    # not the true 0.5
    positive = greater(bx, 0)
    out = where(positive, add(bx, log1p(exp(neg(where(positive, bx, 0.0))))),
                log1p(exp(where(positive, 0.0, bx))))
    return div(out, beta) if beta != 1 else out


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """GELU; approximate='tanh' uses the tanh formula, 'none' the exact erf one."""
    if approximate == "tanh":
        inner = mul(add(x, mul(pow(x, 3.0), 0.044715)), float(np.sqrt(2 / np.pi)))
        return mul(mul(x, 0.5), add(tanh(inner), 1.0))
    return mul(mul(x, 0.5), add(erf(mul(x, float(1 / np.sqrt(2)))), 1.0))


def silu(x: Tensor) -> Tensor:
    return mul(x, sigmoid(x))


def stop_gradient(x: Tensor) -> Tensor:
    """x, with no gradient flowing back through it."""
    return bind(REGISTRY["stop_gradient"], x)


# ***** reductions *****

def _reduction(name: str, doc: str) -> Callable[..., Tensor]:
    prim = REGISTRY[name]

    def op(x: TensorLike, axis: Optional[Axis] = None, keep_dims: bool = False, *,
           keepdims: Optional[bool] = None, dim: Optional[Axis] = None,
           keepdim: Optional[bool] = None, dtype: Optional[DTypeLike] = None) -> Tensor:
        t = x if isinstance(x, Tensor) else Tensor(x)
        axes, keep = reduction_args(axis, keep_dims, dim, keepdim, keepdims)
        out = bind(prim, t, axis=axes_arg(name, t, axes), keep_dims=keep)
        return out if dtype is None else cast(out, dtype)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


sum = reduce_sum = _reduction("reduce_sum", "Sum over `axis` (None or () = all axes).")
amax = reduce_max = _reduction("reduce_max", "Maximum over `axis`.")
amin = reduce_min = _reduction("reduce_min", "Minimum over `axis`.")
prod = reduce_prod = _reduction("reduce_prod", "Product over `axis`.")
all = reduce_all = _reduction("reduce_all", "Logical and over `axis`.")
any = reduce_any = _reduction("reduce_any", "Logical or over `axis`.")


def _count(x, axes):
    shape = x.shape
    return int(np.prod([shape[a] for a in axes] if axes is not None else shape, dtype=np.int64))


def mean(x: Tensor, axis: Optional[Axis] = None, keep_dims: bool = False, *, keepdims: Optional[bool] = None, dim: Optional[Axis] = None, keepdim: Optional[bool] = None,
         dtype: Optional[DTypeLike] = None) -> Tensor:
    """Arithmetic mean over `axis` (also spelled dim; keep_dims, keepdims or keepdim)."""
    x = x if isinstance(x, Tensor) else Tensor(x)
    axis, keep = reduction_args(axis, keep_dims, dim, keepdim, keepdims)
    axes = axes_arg("mean", x, axis)
    if not x.dtype.is_float:
        x = cast(x, np.float32)
    count = _count(x, axes)
    # the mean of no elements is nan, as numpy's and PyTorch's (0 / nan: no 0 / 0 warning)
    out = div(sum(x, axes, keep), float(count) if count else float("nan"))
    return out if dtype is None else cast(out, dtype)


reduce_mean = mean


def argmax(x: Tensor, axis: Optional[Axis] = None, keepdims: bool = False, *, dim: Optional[Axis] = None, keepdim: Optional[bool] = None, output_type: DTypeLike = np.int64) -> Tensor:
    """Index of the maximum along `dim`/`axis` (None: of the flattened tensor)."""
    return _arg("argmax", x, axis if dim is None else dim, keepdims if keepdim is None else keepdim, output_type)


def argmin(x: Tensor, axis: Optional[Axis] = None, keepdims: bool = False, *, dim: Optional[Axis] = None, keepdim: Optional[bool] = None, output_type: DTypeLike = np.int64) -> Tensor:
    return _arg("argmin", x, axis if dim is None else dim, keepdims if keepdim is None else keepdim, output_type)


def _arg(name, x, axis, keep, dtype):
    if axis is not None:
        axis = axis_arg(name, x, axis)
    return bind(REGISTRY[name], x, axis=axis, keep_dims=bool(keep), dtype=to_np(dtype))


def max(x: Tensor, axis: Optional[Axis] = None, keepdims: bool = False, *, keep_dims: Optional[bool] = None) -> tuple[Tensor, ...]:
    """(values, indices) of the maximum along `axis` (MindSpore's ops.max); ops.amax gives values."""
    keep = keepdims if keep_dims is None else keep_dims
    if axis is None:
        return amax(x, None, keep), argmax(x, None, keep)
    return amax(x, axis, keep), argmax(x, axis, keep)


def min(x: Tensor, axis: Optional[Axis] = None, keepdims: bool = False, *, keep_dims: Optional[bool] = None) -> tuple[Tensor, ...]:
    """(values, indices) of the minimum along `axis`."""
    keep = keepdims if keep_dims is None else keep_dims
    if axis is None:
        return amin(x, None, keep), argmin(x, None, keep)
    return amin(x, axis, keep), argmin(x, axis, keep)


def cumsum(x: Tensor, axis: Axis, dtype: Optional[DTypeLike] = None, *, reverse: bool = False) -> Tensor:
    out = bind(REGISTRY["cumsum"], x, axis=axis_arg("cumsum", x, axis), reverse=reverse)
    return out if dtype is None else cast(out, dtype)
