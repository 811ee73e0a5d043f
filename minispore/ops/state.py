"""State updates: assign, assign_add, assign_sub, depend.

`assign(variable, value)` binds the `assign` primitive (its value: `value` in the variable's
dtype) and makes `variable` hold the result. Eagerly that is the update itself; while tracing,
the variable holds the symbolic result until the graph ends, when the tracer turns every
updated variable into a graph output written back after a successful run (functionalised
state: nothing is lost when a run raises).
"""
from __future__ import annotations
from typing import Any
from ..core.hints import TensorLike
from ..core.tensor import Tensor
from . import batching as B
from . import functional as F
from . import infer as I
from .primitive import OpShapeError, Primitive, bind


def _assign_infer(variable, value):
    if tuple(value.shape) != tuple(variable.shape):
        try:
            if I.broadcast_shapes(value.shape, variable.shape) != tuple(variable.shape):
                raise OpShapeError("")
        except OpShapeError:
            raise OpShapeError(f"value of shape {value.shape} cannot be assigned to a variable "
                               f"of shape {variable.shape}") from None
    return variable


def _assign_impl(xp, variable, value):
    return xp.array(xp.broadcast_to(value, variable.shape), dtype=variable.dtype)


def _assign_batch(prim, args, dims, axis_size):
    (variable, value), (variable_dim, value_dim) = args, dims
    if variable_dim is None:
        raise B.VmapError("ops.assign inside vmap: the variable is shared by every lane but the "
                          "value differs from lane to lane; return the values from the "
                          "vmapped function and assign outside it")
    variable = B.to_front(variable, variable_dim)
    if value_dim is not None:
        value = B.with_lane_rank(B.to_front(value, value_dim), B.ndim(variable) - 1)
    return prim(variable, value), 0


assign_p = Primitive("assign", infer=_assign_infer, impl=_assign_impl, effect=True,
                     bprop=lambda variable, value, out, dout: (None, F.sum_to(dout, value.shape)),
                     batch=_assign_batch)


def assign(variable: Tensor, value: TensorLike) -> Tensor:
    """Write `value` into `variable` (a Parameter or Tensor) in place; returns the variable."""
    if not isinstance(variable, Tensor):
        raise TypeError(f"ops.assign: variable must be a Parameter or Tensor, got {type(variable).__name__}")
    if not isinstance(value, Tensor):
        value = Tensor(value, variable.dtype)
    new = bind(assign_p, variable, value)
    variable._data = new._data
    return variable


def assign_add(variable: Tensor, value: TensorLike) -> Tensor:
    """variable += value, in place."""
    return assign(variable, variable + value)


def assign_sub(variable: Tensor, value: TensorLike) -> Tensor:
    """variable -= value, in place."""
    return assign(variable, variable - value)


def depend(value: Any, expr: Any) -> Any:
    """`value`, evaluated after `expr` (side effects already run in program order here)."""
    return value
