"""Argument handling shared by the user-facing functions of `minispore.ops`: array-likes as
Tensors, MindSpore's dtype promotion, axes and shapes normalised, and bad input as an OpError
in the standard form (the op, its inputs, the user's line)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..context import device
from ..core.dtype import promote_np, scalar_np_dtype
from ..core.tensor import Tensor
from .infer import normalize_axis
from ..core.hints import TensorLike
from .primitive import (REGISTRY, OpError, OpShapeError, OpTypeError, Primitive, aval_of,
                        bind, bind_positional, with_context)


def op_error(op: str, inputs: Sequence[Any], message: str,
             error: type[Exception] = OpShapeError, **attrs: Any) -> Exception:
    """An OpError of class `error` for op `op`: names the op, its inputs, the attributes
    given and the user's line."""
    return error(with_context(op, [aval_of(t) for t in inputs], attrs, message))


def as_tensor(x: TensorLike) -> Tensor:
    """x as a Tensor (array-likes and Python numbers are wrapped)."""
    return x if isinstance(x, Tensor) else Tensor(x)


# ***** dtypes *****

def dtype_of(x):
    """The numpy dtype of a Tensor or array, None for a number: a Python number or a numpy
    scalar, which take the tensor's dtype in an op as a Python number does (x / np.sqrt(d)
    stays float32, as in MindSpore, where np.float64 is a Python float, PyTorch and JAX)."""
    if isinstance(x, Tensor):
        return x._data.dtype
    return None if isinstance(x, np.generic) else getattr(x, "dtype", None)


def to_dtype(x, dtype):
    """x (a Tensor, array or Python number) as a Tensor or array of `dtype`."""
    if isinstance(x, Tensor):
        return x if x._data.dtype == dtype else bind(REGISTRY["cast"], x, dtype=dtype)
    if device.current_xp is not np and type(x) in (bool, int, float):
        return device.scalar(x, dtype)  # on GPU: uploaded once per value, not once per op
    return device.xp().asarray(x, dtype=dtype)


def promote(x, y, op="promote"):
    """x and y converted to their common dtype (MindSpore's rules, see core.dtype); `op`
    names the calling op in the error for a None input (numpy would read it as nan)."""
    if x is None or y is None:
        shown = ["None" if v is None else aval_of(v) for v in (x, y)]
        raise OpTypeError(with_context(op, shown, {}, f"input {0 if x is None else 1} is None; "
                                                      f"expected a Tensor or a number"))
    dx, dy = dtype_of(x), dtype_of(y)
    if dx is not None and dy is not None:
        target = promote_np(dx, dy)
    elif dx is not None:
        target = scalar_np_dtype(dx, y)
    elif dy is not None:
        target = scalar_np_dtype(dy, x)
    else:
        x, y = Tensor(x), Tensor(y)
        target = promote_np(x._data.dtype, y._data.dtype)
    return to_dtype(x, target), to_dtype(y, target)


# ***** rows as user-facing functions *****

def binary_op(prim: Primitive) -> Callable[[TensorLike, TensorLike], Tensor]:
    """ops.<name> for a binary elementwise row: broadcasting and MindSpore's dtype promotion."""
    def op(x: TensorLike, y: TensorLike) -> Tensor:
        if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype == y._data.dtype):
            x, y = promote(x, y, prim.name)
        return bind_positional(prim, x, y)
    op.__name__ = op.__qualname__ = prim.name
    op.__doc__ = f"Elementwise {prim.name} with broadcasting and dtype promotion."
    return op


def unary_op(prim: Primitive) -> Callable[..., Tensor]:
    """ops.<name> for a unary row: a plain one-argument function (calling the Primitive object
    itself would pack and unpack an attrs dict on every eager op, a third of PyNative's
    per-op overhead)."""
    def op(x: TensorLike, *wrong: Any) -> Tensor:  # extra inputs reach the primitive, which names the op in its error
        return bind_positional(prim, x, *wrong)
    op.__name__ = op.__qualname__ = prim.name
    op.__doc__ = prim.__doc__ or f"Elementwise {prim.name}."
    return op


# ***** axes and shapes *****

def normalize_axes(axis, ndim):
    """None (all axes) or a sorted tuple of non-negative axes; () means all, as in MindSpore."""
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if axes is None or tuple(axes) == ():
        return None
    normalized = tuple(sorted({normalize_axis(int(a), ndim) for a in axes}))
    return normalized if ndim else None  # a 0-d tensor's one axis (0 or -1) is all of it


def reduction_args(axis, keep_dims, dim=None, keepdim=None, keepdims=None):
    """(axis, keep) from MindSpore's spellings: axis/keep_dims (1.x), dim/keepdim (2.x and
    mint), keepdims (numpy style); whichever is given wins over the defaults."""
    axis = axis if dim is None else dim
    for keep in (keepdim, keepdims):
        if keep is not None:
            keep_dims = keep
    return axis, bool(keep_dims)


def axis_arg(op_name, x, axis):
    """`axis` of x as a non-negative int, or an error naming the op and x."""
    try:
        return normalize_axis(int(axis), x.ndim)
    except OpError as e:
        raise op_error(op_name, [x], str(e), type(e), axis=axis) from None


def axes_arg(op_name, x, axis):
    """`normalize_axes` for op `op_name`, with the op and x named if an axis is out of range."""
    try:
        return normalize_axes(axis, x.ndim)
    except OpError as e:
        raise op_error(op_name, [x], str(e), type(e), axis=axis) from None


def shape_tuple(shape):
    """An int or a sequence of ints as a shape tuple."""
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)
