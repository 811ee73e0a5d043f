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
from typing import TYPE_CHECKING, Any, Optional
from ..core.tensor import Tensor
from . import functional as F
from ..core.hints import TensorLike, Axis, ShapeLike, DTypeLike


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

    def expand_dims(self, axis: Axis) -> Tensor:
        return F.expand_dims(self, axis)

    def squeeze(self, axis: Optional[Axis] = None) -> Tensor:
        return F.squeeze(self, axis)

    def flatten(self, order: str = "C", *, start_dim: Axis = 0, end_dim: Axis = -1) -> Tensor:
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
