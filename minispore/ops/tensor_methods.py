"""The operators and methods of `Tensor`, attached to it here: each is one `minispore.ops` call
(Tensor lives in core, below ops, as autodidax attaches operators to its tracer classes).
Reductions with MindSpore's keyword spellings and the methods mirroring the wider op surface
are attached by `ops.tensor_surface`.

    >>> import minispore as ms
    >>> x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> (x * 2 + 1).sum(axis=1)
    Tensor(shape=[2], dtype=Float32, value= [ 8.00000000e+00,  1.60000000e+01])
"""
from ..core.tensor import Tensor
from . import functional as F


class TensorMethods:
    """What `attach` copies onto Tensor."""

    @property
    def T(self):
        return F.transpose(self, tuple(range(self.ndim - 1, -1, -1)))

    # ----- conversion -----
    def astype(self, dtype):
        return F.cast(self, dtype)

    to = astype

    def copy(self):
        return F.identity(self)

    # ----- arithmetic (each dunder is one ops.* call) -----
    def __add__(self, other):
        return F.add(self, other)

    def __radd__(self, other):
        return F.add(other, self)

    def __sub__(self, other):
        return F.sub(self, other)

    def __rsub__(self, other):  # other - self
        return F.sub(other, self)

    def __mul__(self, other):
        return F.mul(self, other)

    def __rmul__(self, other):
        return F.mul(other, self)

    def __truediv__(self, other):
        return F.div(self, other)

    def __rtruediv__(self, other):
        return F.div(other, self)

    def __floordiv__(self, other):
        return F.floor_div(self, other)

    def __rfloordiv__(self, other):
        return F.floor_div(other, self)

    def __mod__(self, other):
        return F.floor_mod(self, other)

    def __rmod__(self, other):
        return F.floor_mod(other, self)

    def __pow__(self, other):
        return F.pow(self, other)

    def __rpow__(self, other):
        return F.pow(other, self)

    def __matmul__(self, other):
        return F.matmul(self, other)

    def __rmatmul__(self, other):
        return F.matmul(other, self)

    def __neg__(self):
        return F.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return F.abs(self)

    def __invert__(self):
        return F.logical_not(self) if self.dtype.kind == "b" else F.bitwise_not(self)

    def __and__(self, other):
        return F.logical_and(self, other)

    __rand__ = __and__

    def __or__(self, other):
        return F.logical_or(self, other)

    __ror__ = __or__

    def __lt__(self, other):
        return F.less(self, other)

    def __le__(self, other):
        return F.less_equal(self, other)

    def __gt__(self, other):
        return F.greater(self, other)

    def __ge__(self, other):
        return F.greater_equal(self, other)

    def __eq__(self, other):
        return F.equal(self, other)

    def __ne__(self, other):
        return F.not_equal(self, other)

    # ----- indexing -----
    def __getitem__(self, index):
        return F.getitem(self, index)

    # ----- methods -----
    def reshape(self, *shape):
        return F.reshape(self, _shape_arg(shape))

    def view(self, *shape):
        return F.reshape(self, _shape_arg(shape))

    def transpose(self, *perm):
        perm = _shape_arg(perm)
        return F.transpose(self, perm if perm else tuple(range(self.ndim - 1, -1, -1)))

    def expand_dims(self, axis):
        return F.expand_dims(self, axis)

    def squeeze(self, axis=None):
        return F.squeeze(self, axis)

    def flatten(self, order="C", *, start_dim=0, end_dim=-1):
        return F.flatten(self, order, start_dim=start_dim, end_dim=end_dim)

    def broadcast_to(self, shape):
        return F.broadcast_to(self, shape)

    def abs(self):
        return F.abs(self)

    def exp(self):
        return F.exp(self)

    def log(self):
        return F.log(self)

    def sqrt(self):
        return F.sqrt(self)

    def square(self):
        return F.square(self)

    def tanh(self):
        return F.tanh(self)

    def sigmoid(self):
        return F.sigmoid(self)

    def pow(self, exponent):
        return F.pow(self, exponent)

    def softmax(self, axis=-1):
        return F.softmax(self, axis)

    def matmul(self, other):
        return F.matmul(self, other)


def _shape_arg(args):
    """Accept both `t.reshape(2, 3)` and `t.reshape((2, 3))`."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def attach(cls=Tensor):
    """Give `cls` every operator and method of TensorMethods."""
    for name, value in vars(TensorMethods).items():
        if name not in ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__"):
            setattr(cls, name, value)
