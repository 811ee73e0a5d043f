"""Tensor: an array (numpy / CuPy, or a symbolic value while tracing) plus autodiff bookkeeping.

    >>> import minispore as ms
    >>> x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> (x * 2 + 1).sum(axis=1)
    Tensor(shape=[2], dtype=Float32, value= [ 8.00000000e+00,  1.60000000e+01])

Every operator and method calls a function in `minispore.ops`, so a Tensor behaves the same
in PyNative mode (values computed now) and while Graph mode traces (values symbolic).
"""
import numpy as np

from ..context.interpreter import STATE
from . import device
from .ir import Var
from .dtype import default_np_dtype, from_np, is_float_np, to_np


class Tensor:
    """A multi-dimensional array.

    Args:
        input_data: Python scalar, nested list/tuple, numpy array or Tensor.
        dtype: a minispore dtype (``ms.float32``...). Defaults follow MindSpore: Python int ->
            Int64, Python float -> Float32, numpy arrays keep their dtype.
        shape, init: with ``input_data=None``, a tensor of ``shape`` filled by the
            initializer ``init`` (see ``minispore.common.initializer``).
    """

    __slots__ = ("_data", "_node", "__weakref__")
    __array_priority__ = 100  # numpy defers `ndarray + Tensor` to Tensor.__radd__

    def __init__(self, input_data=None, dtype=None, shape=None, init=None):
        if input_data is None:
            if shape is None:
                raise ValueError("Tensor: give input_data, or shape and init")
            from ..common.initializer import initializer
            input_data = initializer(init if init is not None else "zeros", shape, dtype or "float32")
        self._data = _as_array(input_data, to_np(dtype))
        self._node = None
        if STATE.trace_stack:
            STATE.trace_stack[-1].note_created(self)  # the tape node that produced this tensor (autodiff), or None

    @classmethod
    def _wrap(cls, array):
        """A Tensor around an existing array (no copy, no conversion)."""
        t = object.__new__(cls)
        t._data = array
        t._node = None
        if STATE.trace_stack:
            if type(array) is Var:
                STATE.trace_stack[-1].hand_out(t)  # user code may read it after a graph break
            else:
                STATE.trace_stack[-1].note_created(t)
        return t

    # ----- properties -----
    @property
    def shape(self):
        return tuple(self._data.shape)

    @property
    def ndim(self):
        return len(self._data.shape)

    @property
    def size(self):
        return int(np.prod(self._data.shape, dtype=np.int64))

    @property
    def dtype(self):
        return from_np(self._data.dtype)

    @property
    def itemsize(self):
        return self._data.dtype.itemsize

    @property
    def T(self):
        return F.transpose(self, tuple(range(self.ndim - 1, -1, -1)))

    # ----- host values -----
    def _host(self, reason):
        """The numpy value; while tracing, asks the JIT fallback (a graph break or an error)."""
        data = self._data
        if is_symbolic(data):
            from ..fallback.graph_break import host_value
            return host_value(self, reason)
        return device.to_host(data)

    def asnumpy(self):
        """The values as a numpy array (a copy on GPU; shares memory on CPU)."""
        return self._host("asnumpy()")

    def __array__(self, dtype=None, copy=None):
        a = self._host("np.asarray(tensor)")
        return a if dtype is None else a.astype(dtype)

    def item(self):
        a = self._host("item()")
        if a.size != 1:
            raise ValueError(f"Tensor.item: only a tensor with one element has an item, shape is {self.shape}")
        return a.reshape(()).item()

    def tolist(self):
        return self._host("tolist()").tolist()

    def __float__(self):
        return float(self._host("float(tensor)").reshape(()))

    def __int__(self):
        return int(self._host("int(tensor)").reshape(()))

    def __index__(self):
        a = self._host("tensor used as a Python index")
        if a.dtype.kind not in "iu" or a.size != 1:
            raise TypeError(f"only integer tensors of one element can be used as an index, got {self.dtype} {self.shape}")
        return int(a.reshape(()))

    def __bool__(self):
        a = self._host("bool(tensor) (e.g. `if tensor:`)")
        if a.size != 1:
            raise ValueError(f"The truth value of a tensor with {a.size} elements is ambiguous; use .any() or .all()")
        return bool(a.reshape(()))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __hash__(self):
        return id(self)

    def __repr__(self):
        if is_symbolic(self._data):
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=<symbolic>)"
        value = _repr_value(device.to_host(self._data))
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value={value})"

    def __str__(self):
        if is_symbolic(self._data):
            return repr(self)
        return str(device.to_host(self._data))

    def __format__(self, spec):
        if self.ndim == 0 and spec:
            return format(self.item(), spec)
        return str(self)

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

    def __setitem__(self, index, value):
        # Tensors are values in the IR: the update is functional, then this object adopts
        # the result (data and autodiff node), as MindSpore's in-place setitem appears to.
        # On the tape, a stand-in takes this object's old place, so the gradient reaches
        # what it was computed from. (Ops that read this tensor before the update keep
        # pointing at this object: differentiate through a value only after its updates.)
        from ..grad.tape import take_place
        before = Tensor._wrap(self._data)
        take_place(before, self)
        take_place(self, F.setitem(before, index, value))

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

    def sum(self, axis=None, keep_dims=False, dtype=None):
        out = F.sum(self, axis, keep_dims)
        return out if dtype is None else out.astype(dtype)

    def mean(self, axis=None, keep_dims=False):
        return F.mean(self, axis, keep_dims)

    def max(self, axis=None, keep_dims=False):
        return F.amax(self, axis, keep_dims)

    def min(self, axis=None, keep_dims=False):
        return F.amin(self, axis, keep_dims)

    def prod(self, axis=None, keep_dims=False):
        return F.prod(self, axis, keep_dims)

    def argmax(self, axis=None, keep_dims=False):
        return F.argmax(self, axis, keep_dims)

    def argmin(self, axis=None, keep_dims=False):
        return F.argmin(self, axis, keep_dims)

    def all(self, axis=None, keep_dims=False):
        return F.all(self, axis, keep_dims)

    def any(self, axis=None, keep_dims=False):
        return F.any(self, axis, keep_dims)

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

    def clip(self, xmin=None, xmax=None):
        return F.clip(self, xmin, xmax)

    def pow(self, exponent):
        return F.pow(self, exponent)

    def softmax(self, axis=-1):
        return F.softmax(self, axis)

    def std(self, axis=None, ddof=0, keep_dims=False):
        return F.std(self, axis, ddof, keep_dims)

    def var(self, axis=None, ddof=0, keep_dims=False):
        return F.var(self, axis, ddof, keep_dims)

    def norm(self, ord=None, axis=None, keep_dims=False):
        return F.norm(self, ord, axis, keep_dims)

    def matmul(self, other):
        return F.matmul(self, other)

    # ----- lazy initialisation (common.initializer returns tensors whose data comes later) -----
    init = None  # the Initializer that will fill a lazily initialised tensor

    @property
    def has_init(self):
        """Whether the values are still to be made by `init_data()` (see initializer)."""
        return self.init is not None

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        """Make a lazily initialised tensor's values now; returns the tensor (itself)."""
        return self

    def assign_value(self, value):
        """Replace this tensor's values in place (no autodiff)."""
        value = value._data if isinstance(value, Tensor) else _as_array(value, self._data.dtype)
        self._data = value
        return self


def is_symbolic(data):
    """True for a tracer's symbolic value (Graph mode), False for a concrete array."""
    return getattr(data, "is_symbolic", False)


def _repr_value(a):
    """The value part of MindSpore's Tensor repr: ' 0.0706508' for a scalar (6 significant
    digits), ' [ 3.00000000e+00, ...]' for float arrays, a new line before a matrix."""
    if a.ndim == 0:
        v = a.item()
        return format(v, " g") if isinstance(v, float) else f" {v}"
    body = np.array2string(a, separator=", ", formatter={"float_kind": lambda v: f"{v: .8e}"})
    return ("\n" if a.ndim >= 2 else " ") + body


def _shape_arg(args):
    """Accept both `t.reshape(2, 3)` and `t.reshape((2, 3))`."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def _as_array(value, np_dtype):
    """An array in the current namespace holding `value`, with MindSpore's default dtypes."""
    xp = device.xp()
    if isinstance(value, Tensor):
        data = value._data
        if is_symbolic(data):
            return data if np_dtype is None else F.cast(value, np_dtype)._data
        return xp.array(data, dtype=np_dtype) if np_dtype is not None else xp.array(data)
    # numpy scalars (np.float64(2.0) is also a Python float) keep their dtype, as arrays do
    if isinstance(value, (bool, int, float)) and not isinstance(value, np.generic) \
            and np_dtype is None:
        np_dtype = default_np_dtype(value)
    elif isinstance(value, (list, tuple)) and np_dtype is None:
        np_dtype = _list_dtype(value)
    arr = xp.array(value, dtype=np_dtype)  # a copy: later writes to a numpy input do not leak in
    if arr.dtype.kind not in "biuf" and not is_float_np(arr.dtype):
        raise TypeError(f"Tensor: unsupported element type {arr.dtype} from {type(value).__name__}")
    from_np(arr.dtype)  # raises for dtypes minispore does not support (e.g. uint16)
    return arr


def _list_dtype(values):
    """MindSpore's default dtype for a nested list: any float -> Float32, else ints -> Int64."""
    flat = np.asarray(values, dtype=object).ravel()
    if any(isinstance(v, Tensor) for v in flat):
        return None
    if any(isinstance(v, (float, np.floating)) for v in flat):
        return np.float32
    if len(flat) and all(isinstance(v, (bool, np.bool_)) for v in flat):
        return np.bool_
    if any(isinstance(v, (int, np.integer)) for v in flat):
        return np.int64
    return None if len(flat) else np.float32  # None: numpy decides, and odd types are refused


def as_tensor(value, dtype=None):
    """`value` as a Tensor (returned unchanged if it already is one and no dtype is asked)."""
    if isinstance(value, Tensor) and dtype is None:
        return value
    return Tensor(value, dtype)


# Imported last: ops.functional itself imports Tensor from this module.
from ..ops import functional as F  # noqa: E402
