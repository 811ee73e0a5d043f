"""MindSpore-style Primitive classes: configure once, then call, e.g. ``ops.MatMul(transpose_b=True)(x, y)``.

Each class is a thin front for a function of `ops.functional`; the computation, its shape rule
and its derivative live in the primitive table, never here.
"""
from collections.abc import Callable
from typing import Any, Optional, Sequence

from ..core.dtype import int32
from ..core.hints import Axis, DTypeLike, TensorLike
from ..core.tensor import Tensor
from . import functional as F
from .debug import print_values


class PrimitiveClass:
    """Base of the ops.Xxx classes: attributes are set in __init__, arrays passed to __call__.

    Also the base users subclass to define a primitive of their own (`ops.Primitive`,
    `ops.PrimitiveWithInfer`): `ops.user_primitives` makes such a subclass a row."""

    # set by ops.user_primitives: called with every subclass, registers a user's primitive
    subclass_hook: Callable[[type], None] | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if PrimitiveClass.subclass_hook is not None:
            PrimitiveClass.subclass_hook(cls)

    def add_prim_attr(self, name: str, value: Any) -> "PrimitiveClass":
        """Set an attribute of the primitive (for a user's primitive: part of its row's
        attributes, so it must be hashable; lists become tuples)."""
        setattr(self, name, tuple(value) if isinstance(value, list) else value)
        return self

    def init_prim_io_names(self, inputs: Sequence[str], outputs: Sequence[str]) -> None:
        """Names of the inputs and outputs (kept for reading; inputs are passed by position)."""
        self._io_names = (tuple(inputs), tuple(outputs))

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({attrs})"


def simple_class(name: str, fn: Callable[..., Any]) -> type:
    """A class whose call is `fn(*inputs)` with no attributes."""
    def __call__(self: PrimitiveClass, *inputs: Any) -> Any:
        return fn(*inputs)
    return type(name, (PrimitiveClass,), {"__call__": __call__, "_function": fn,
                                          "__doc__": f"Calls ops.{fn.__name__}."})


_SIMPLE: dict[str, Callable[..., Any]] = {
    "Add": F.add, "Sub": F.sub, "Mul": F.mul, "Div": F.div, "RealDiv": F.div, "FloorDiv": F.floor_div,
    "FloorMod": F.floor_mod, "Pow": F.pow, "Maximum": F.maximum, "Minimum": F.minimum,
    "Neg": F.neg, "Abs": F.abs, "Sin": F.sin, "Cos": F.cos, "Tan": F.tan, "Exp": F.exp, "Log": F.log,
    "Log1p": F.log1p, "Expm1": F.expm1, "Square": F.square, "Sqrt": F.sqrt, "Rsqrt": F.rsqrt,
    "ReLU": F.relu, "Sigmoid": F.sigmoid, "Tanh": F.tanh, "Erf": F.erf, "Sign": F.sign,
    "Floor": F.floor, "Ceil": F.ceil, "Round": F.round, "Equal": F.equal, "NotEqual": F.not_equal,
    "Less": F.less, "LessEqual": F.less_equal, "Greater": F.greater, "GreaterEqual": F.greater_equal,
    "LogicalAnd": F.logical_and, "LogicalOr": F.logical_or, "LogicalNot": F.logical_not,
    "Select": F.where, "OnesLike": F.ones_like, "ZerosLike": F.zeros_like, "Transpose": F.transpose,
    "Reshape": F.reshape, "ExpandDims": F.expand_dims, "Cast": F.cast, "Tile": F.tile,
    "StopGradient": F.stop_gradient, "Assign": F.assign, "AssignAdd": F.assign_add,
    "Depend": F.depend, "GatherD": F.gather_elements, "Gather": F.gather, "Identity": F.identity,
}
for _name, _fn in _SIMPLE.items():
    globals()[_name] = simple_class(_name, _fn)
TensorAdd = Add  # type: ignore[name-defined]  # noqa: F821  (MindSpore 1.x alias)


class BroadcastTo(PrimitiveClass):
    def __init__(self, shape: Sequence[int]) -> None:
        self.shape = tuple(shape)

    def __call__(self, x: Tensor) -> Tensor:
        return F.broadcast_to(x, self.shape)


class Shape(PrimitiveClass):
    """The static shape of a tensor, as a tuple."""

    def __call__(self, x: Tensor) -> tuple[int, ...]:
        return tuple(x.shape)


class MatMul(PrimitiveClass):
    """2-D matrix product, optionally transposing either input first."""

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False) -> None:
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x: TensorLike, y: TensorLike) -> Tensor:
        return F.matmul(x, y, transpose_a=self.transpose_a, transpose_b=self.transpose_b)


BatchMatMul = MatMul


class Softmax(PrimitiveClass):
    def __init__(self, axis: Axis = -1) -> None:
        self.axis = axis

    def __call__(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.axis)


class LogSoftmax(Softmax):
    def __call__(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.axis)


def _reduce_class(name: str, fn: Callable[..., Tensor]) -> type:
    def __init__(self: Any, keep_dims: bool = False) -> None:  # self: a PrimitiveClass made here
        self.keep_dims = keep_dims

    def __call__(self: Any, x: TensorLike, axis: Axis = ()) -> Tensor:
        return fn(x, axis, self.keep_dims)
    return type(name, (PrimitiveClass,), {"__init__": __init__, "__call__": __call__,
                                          "__doc__": f"ops.{fn.__name__} over `axis` (() = all)."})


ReduceSum = _reduce_class("ReduceSum", F.sum)
ReduceMean = _reduce_class("ReduceMean", F.mean)
ReduceMax = _reduce_class("ReduceMax", F.amax)
ReduceMin = _reduce_class("ReduceMin", F.amin)
ReduceProd = _reduce_class("ReduceProd", F.prod)
ReduceAll = _reduce_class("ReduceAll", F.all)
ReduceAny = _reduce_class("ReduceAny", F.any)


class Concat(PrimitiveClass):
    def __init__(self, axis: int = 0) -> None:
        self.axis = axis

    def __call__(self, tensors: Sequence[TensorLike]) -> Tensor:
        return F.concat(tensors, self.axis)


class Stack(Concat):
    def __call__(self, tensors: Sequence[Tensor]) -> Tensor:  # type: ignore[override]
        return F.stack(tensors, self.axis)


class Split(PrimitiveClass):
    def __init__(self, axis: int = 0, output_num: int = 1) -> None:
        self.axis, self.output_num = axis, output_num

    def __call__(self, x: Tensor) -> tuple[Tensor, ...]:
        return F.split(x, x.shape[self.axis] // self.output_num, self.axis)


class Argmax(PrimitiveClass):
    """Index of the maximum along `axis` (Int32 by default, as MindSpore's Argmax)."""

    def __init__(self, axis: int = -1, output_type: Optional[DTypeLike] = None) -> None:
        self.axis, self.output_type = axis, output_type or int32

    def __call__(self, x: Tensor) -> Tensor:
        return F.argmax(x, self.axis, output_type=self.output_type)


class Argmin(Argmax):
    def __call__(self, x: Tensor) -> Tensor:
        return F.argmin(x, self.axis, output_type=self.output_type)


class OneHot(PrimitiveClass):
    def __init__(self, axis: int = -1) -> None:
        self.axis = axis

    def __call__(self, indices: Tensor, depth: int, on_value: TensorLike,
                 off_value: TensorLike) -> Tensor:
        return F.one_hot(indices, depth, on_value, off_value, self.axis)


class Print(PrimitiveClass):
    """Print tensors and strings (runs in program order, also in Graph mode)."""

    def __call__(self, *inputs: Any) -> None:
        print_values(*inputs)
