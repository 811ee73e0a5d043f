"""The operators and methods of `Tensor`, attached to it here: each is one `minispore.ops` call
(Tensor lives in core, below ops, as autodidax attaches operators to its tracer classes).
Reductions with MindSpore's keyword spellings and the methods mirroring the wider op surface
are attached by `ops.tensor_surface`.

    >>> import minispore as ms
    >>> x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> (x * 2 + 1).sum(axis=1)
    Tensor(shape=[2], dtype=Float32, value= [ 8.00000000e+00,  1.60000000e+01])
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy as np

from ..core.hints import Axis, DTypeLike, ShapeLike, TensorLike
from ..core.tensor import Tensor
from . import functional as F

# numpy ufuncs given a Tensor operand run as the minispore op of the same meaning, so
# `np.add(t, 1)` and `np.float32(1) + t` give a Tensor (differentiable, traceable in Graph
# mode) as `t + 1` does; other ufuncs keep numpy's answer on the host values (an ndarray).
_UFUNC_OPS: dict[Any, Callable[..., Tensor]] = {
    np.add: F.add, np.subtract: F.sub, np.multiply: F.mul, np.true_divide: F.div,
    np.floor_divide: F.floor_div, np.remainder: F.floor_mod, np.power: F.pow,
    np.matmul: F.matmul, np.maximum: F.maximum, np.minimum: F.minimum,
    np.equal: F.equal, np.not_equal: F.not_equal, np.less: F.less,
    np.less_equal: F.less_equal, np.greater: F.greater, np.greater_equal: F.greater_equal,
    np.logical_and: F.logical_and, np.logical_or: F.logical_or, np.logical_not: F.logical_not,
    np.negative: F.neg, np.absolute: F.abs, np.exp: F.exp, np.log: F.log, np.sqrt: F.sqrt,
    np.square: F.square, np.sin: F.sin, np.cos: F.cos, np.tanh: F.tanh,
}


if TYPE_CHECKING:
    class _Base(Tensor):  # type checkers see the methods' `self` as the Tensor they land on
        pass
else:
    _Base = object


class TensorMethods(_Base):
    """What `attach` copies onto Tensor."""

    @property
    def T(self) -> Tensor:
        return F.transpose(self, tuple(range(self.ndim - 1, -1, -1)))

    # ----- conversion -----
    def astype(self, dtype: DTypeLike) -> Tensor:
        return F.cast(self, dtype)

    to = astype

    def copy(self) -> Tensor:
        return F.identity(self)

    # ----- arithmetic (each dunder is one ops.* call) -----
    def __add__(self, other: TensorLike) -> Tensor:
        return F.add(self, other)

    def __radd__(self, other: TensorLike) -> Tensor:
        return F.add(other, self)

    def __sub__(self, other: TensorLike) -> Tensor:
        return F.sub(self, other)

    def __rsub__(self, other: TensorLike) -> Tensor:  # other - self
        return F.sub(other, self)

    def __mul__(self, other: TensorLike) -> Tensor:
        return F.mul(self, other)

    def __rmul__(self, other: TensorLike) -> Tensor:
        return F.mul(other, self)

    def __truediv__(self, other: TensorLike) -> Tensor:
        return F.div(self, other)

    def __rtruediv__(self, other: TensorLike) -> Tensor:
        return F.div(other, self)

    def __floordiv__(self, other: TensorLike) -> Tensor:
        return F.floor_div(self, other)

    def __rfloordiv__(self, other: TensorLike) -> Tensor:
        return F.floor_div(other, self)

    def __mod__(self, other: TensorLike) -> Tensor:
        return F.floor_mod(self, other)

    def __rmod__(self, other: TensorLike) -> Tensor:
        return F.floor_mod(other, self)

    def __pow__(self, other: TensorLike) -> Tensor:
        return F.pow(self, other)

    def __rpow__(self, other: TensorLike) -> Tensor:
        return F.pow(other, self)

    def __matmul__(self, other: TensorLike) -> Tensor:
        return F.matmul(self, other)

    def __rmatmul__(self, other: TensorLike) -> Tensor:
        return F.matmul(other, self)

    def __neg__(self) -> Tensor:
        return F.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return F.abs(self)

    def __invert__(self) -> Tensor:
        return F.logical_not(self) if self.dtype.kind == "b" else F.bitwise_not(self)

    def __and__(self, other: TensorLike) -> Tensor:
        return F.logical_and(self, other)

    __rand__ = __and__

    def __or__(self, other: TensorLike) -> Tensor:
        return F.logical_or(self, other)

    __ror__ = __or__

    def __lt__(self, other: TensorLike) -> Tensor:
        return F.less(self, other)

    def __le__(self, other: TensorLike) -> Tensor:
        return F.less_equal(self, other)

    def __gt__(self, other: TensorLike) -> Tensor:
        return F.greater(self, other)

    def __ge__(self, other: TensorLike) -> Tensor:
        return F.greater_equal(self, other)

    def __eq__(self, other: TensorLike) -> Tensor:  # type: ignore[override]  # elementwise, as numpy
        return F.equal(self, other)

    def __ne__(self, other: TensorLike) -> Tensor:  # type: ignore[override]  # elementwise, as numpy
        return F.not_equal(self, other)

    # ----- numpy interop -----
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """`np.<ufunc>(..., t, ...)`: the matching minispore op (a Tensor) where there is one
        and the call is plain (no `out=`, `where=`...); otherwise numpy on the host values."""
        op = _UFUNC_OPS.get(ufunc)
        if op is not None and method == "__call__" and not kwargs:
            return op(*inputs)
        arrays = [np.asarray(a) if isinstance(a, Tensor) else a for a in inputs]
        return getattr(ufunc, method)(*arrays, **kwargs)

    # ----- indexing -----
    def __getitem__(self, index: Any) -> Tensor:
        return F.getitem(self, index)

    # ----- methods -----
    def reshape(self, *shape: Any) -> Tensor:
        return F.reshape(self, _shape_arg(shape))

    def view(self, *shape: Any) -> Tensor:
        return F.reshape(self, _shape_arg(shape))

    def transpose(self, *perm: Any) -> Tensor:
        perm = _shape_arg(perm)
        return F.transpose(self, perm if perm else tuple(range(self.ndim - 1, -1, -1)))

    def expand_dims(self, axis: int) -> Tensor:
        return F.expand_dims(self, axis)

    def squeeze(self, axis: Optional[Axis] = None) -> Tensor:
        return F.squeeze(self, axis)

    def flatten(self, order: str = "C", *, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return F.flatten(self, order, start_dim=start_dim, end_dim=end_dim)

    def broadcast_to(self, shape: ShapeLike) -> Tensor:
        return F.broadcast_to(self, shape)

    def abs(self) -> Tensor:
        return F.abs(self)

    def exp(self) -> Tensor:
        return F.exp(self)

    def log(self) -> Tensor:
        return F.log(self)

    def sqrt(self) -> Tensor:
        return F.sqrt(self)

    def square(self) -> Tensor:
        return F.square(self)

    def tanh(self) -> Tensor:
        return F.tanh(self)

    def sigmoid(self) -> Tensor:
        return F.sigmoid(self)

    def pow(self, exponent: TensorLike) -> Tensor:
        return F.pow(self, exponent)

    def softmax(self, axis: Axis = -1) -> Tensor:
        return F.softmax(self, axis)

    def matmul(self, other: TensorLike) -> Tensor:
        return F.matmul(self, other)


def _shape_arg(args):
    """Accept both `t.reshape(2, 3)` and `t.reshape((2, 3))`."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def attach(cls=Tensor) -> None:
    """Give `cls` every operator and method of TensorMethods."""
    for name, value in vars(TensorMethods).items():
        if name not in ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__"):
            setattr(cls, name, value)
