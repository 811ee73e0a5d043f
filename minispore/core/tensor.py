"""Tensor: an array (numpy / CuPy, or a symbolic value while tracing) plus autodiff bookkeeping.

    >>> import minispore as ms
    >>> x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> (x * 2 + 1).sum(axis=1)
    Tensor(shape=[2], dtype=Float32, value= [ 8.00000000e+00,  1.60000000e+01])

Every operator and method that computes is one call of a function in `minispore.ops`, so a
Tensor behaves the same in PyNative mode (values computed now) and while Graph mode traces
(values symbolic). This module holds the data and what reads it on the host; the operators
and methods are attached by `ops.tensor_methods` (ops sit above core), item assignment by
`grad.tape` (it rebinds the tensor's place on the tape), and initialisation from an
initializer by `core.initializer`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence, Union

import numpy as np

from ..context import device
from ..context.interpreter import STATE
from .dtype import Type, default_np_dtype, from_np, is_float_np, to_np
from .ir import Var


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
    # ndarray operators and numpy ufuncs hand a Tensor operand to Tensor.__array_ufunc__
    # (ops.tensor_methods); the priority covers code paths that only look at it
    __array_priority__ = 100

    if TYPE_CHECKING:
        # attached at import by ops.tensor_methods / ops.tensor_surface / grad.tape (ops sit
        # above core); declared here so type checkers know a Tensor's operators and methods
        def __getattr__(self, name: str) -> Any: ...
        def __getitem__(self, index: Any) -> Tensor: ...
        def __setitem__(self, index: Any, value: Any) -> None: ...
        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __floordiv__(self, other: Any) -> Tensor: ...
        def __rfloordiv__(self, other: Any) -> Tensor: ...
        def __mod__(self, other: Any) -> Tensor: ...
        def __rmod__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __eq__(self, other: Any) -> Tensor: ...  # type: ignore[override]  # elementwise, as numpy
        def __ne__(self, other: Any) -> Tensor: ...  # type: ignore[override]  # elementwise, as numpy
        def __neg__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...

    def __init__(self, input_data: Any = None, dtype: Any = None,
                 shape: Optional[Sequence[int]] = None, init: Any = None) -> None:
        if input_data is None:
            if shape is None:
                raise ValueError("Tensor: give input_data, or shape and init")
            input_data = self._initial_values(init if init is not None else "zeros", shape,
                                              dtype or "float32")
        self._data = _as_array(input_data, to_np(dtype))
        self._node = None
        if STATE.trace_stack:
            STATE.trace_stack[-1].note_created(self, input_data)

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
    def shape(self) -> tuple[int, ...]:
        return tuple(self._data.shape)

    @property
    def ndim(self) -> int:
        return len(self._data.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self._data.shape, dtype=np.int64))

    @property
    def dtype(self) -> Type:
        return from_np(self._data.dtype)

    @property
    def itemsize(self) -> int:
        return self._data.dtype.itemsize

    # ----- host values -----
    def _host(self, reason):
        return host_value(self, reason)

    def asnumpy(self) -> np.ndarray:
        """The values as a numpy array (a copy on GPU; shares memory on CPU)."""
        return self._host("asnumpy()")

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        """numpy 2's protocol: `copy=None` shares memory where it can (a CPU tensor of the
        asked dtype), `copy=True` always copies, `copy=False` refuses to copy."""
        shares = device.namespace_of(self._data) is np and (dtype is None
                                                             or np.dtype(dtype) == self._data.dtype)
        if copy is False and not shares:
            raise ValueError(f"np.asarray(tensor, copy=False): a {self.dtype} tensor on "
                             f"{'the GPU' if device.namespace_of(self._data) is not np else 'the host'}"
                             f" cannot be read as {np.dtype(dtype) if dtype else 'numpy'} without a copy")
        a = self._host("np.asarray(tensor)")
        if dtype is not None:
            a = a.astype(dtype, copy=False)
        return a.copy() if copy and shares else a

    # ----- zero-copy exchange (DLPack, numpy) -----
    @classmethod
    def from_numpy(cls, array: np.ndarray) -> "Tensor":
        """A Tensor sharing `array`'s memory (MindSpore's `Tensor.from_numpy`): writes through
        either are seen by the other. A non-C-contiguous array is copied first, as MindSpore does,
        and with device_target="GPU" the values are uploaded (device memory cannot alias it).

            >>> a = np.zeros(3, np.float32); t = ms.Tensor.from_numpy(a); a[0] = 5.0
            >>> t.asnumpy()[0]
            5.0
        """
        if not isinstance(array, np.ndarray):
            raise TypeError(f"Tensor.from_numpy: expects a numpy array, got {type(array).__name__}")
        from_np(array.dtype)  # refuses dtypes minispore does not support
        return cls._wrap(device.to_device(np.ascontiguousarray(array)))

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        """Export the data by DLPack without a copy (`np.from_dlpack(t)`, `torch.from_dlpack(t)`).

        A read-only tensor (one imported from JAX, whose arrays are immutable) goes to a
        consumer of the unversioned protocol (JAX itself, PyTorch) as a copy: that protocol
        cannot mark memory read-only, and the producer's memory must not be written."""
        data = self._host_or_device("__dlpack__")
        if (isinstance(data, np.ndarray) and not data.flags.writeable
                and kwargs.get("max_version") is None):
            data = data.copy()
        return data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._host_or_device("__dlpack_device__").__dlpack_device__()

    def _host_or_device(self, reason):
        """The concrete array (numpy or CuPy) behind the tensor, without moving it."""
        if is_symbolic(self._data):
            return host_value(self, reason)
        return self._data

    def item(self) -> Union[bool, int, float]:
        a = self._host("item()")
        if a.size != 1:
            raise ValueError(f"Tensor.item: only a tensor with one element has an item, shape is {self.shape}")
        return a.reshape(()).item()

    def tolist(self) -> Any:
        return self._host("tolist()").tolist()

    def __float__(self) -> float:
        return float(self._host("float(tensor)").reshape(()))

    def __int__(self) -> int:
        return int(self._host("int(tensor)").reshape(()))

    def __index__(self) -> int:
        a = self._host("tensor used as a Python index")
        if a.dtype.kind not in "iu" or a.size != 1:
            raise TypeError(f"only integer tensors of one element can be used as an index, got {self.dtype} {self.shape}")
        return int(a.reshape(()))

    def __bool__(self) -> bool:
        a = self._host("bool(tensor) (e.g. `if tensor:`)")
        if a.size != 1:
            raise ValueError(f"The truth value of a tensor with {a.size} elements is ambiguous; use .any() or .all()")
        return bool(a.reshape(()))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        for i in range(len(self)):
            yield self[i]

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        if is_symbolic(self._data):
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=<symbolic>)"
        value = _repr_value(device.to_host(self._data))
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value={value})"

    def __str__(self) -> str:
        if is_symbolic(self._data):
            return repr(self)
        return str(device.to_host(self._data))

    def __format__(self, spec: str) -> str:
        if self.ndim == 0 and spec:
            return format(self.item(), spec)
        return str(self)

    # ----- lazy initialisation (initializer returns tensors whose data comes later) -----
    init = None  # the Initializer that will fill a lazily initialised tensor

    @property
    def has_init(self) -> bool:
        """Whether the values are still to be made by `init_data()` (see initializer)."""
        return self.init is not None

    def init_data(self, slice_index: Optional[int] = None, shape: Optional[Sequence[int]] = None,
                  opt_shard_group: Optional[str] = None) -> Tensor:
        """Make a lazily initialised tensor's values now; returns the tensor (itself)."""
        return self

    def assign_value(self, value: Any) -> Tensor:
        """Replace this tensor's values in place (no autodiff)."""
        value = value._data if isinstance(value, Tensor) else _as_array(value, self._data.dtype)
        self._data = value
        return self


def host_value(tensor, reason):
    """The numpy value of `tensor`; a symbolic one is asked of the trace it belongs to (the
    JIT fallback then breaks the graph, or says why it cannot). `reason` names what asks."""
    data = tensor._data
    if is_symbolic(data):
        if not STATE.trace_stack:
            raise RuntimeError(f"{reason}: this tensor is symbolic (it was created while "
                               f"tracing a Graph-mode function) and escaped its trace")
        return STATE.trace_stack[-1].host_value(tensor, reason)
    return device.to_host(data)


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


def _as_array(value, np_dtype):
    """An array in the current namespace holding `value`, with MindSpore's default dtypes."""
    xp = device.xp()
    if isinstance(value, Tensor):
        data = value._data
        if is_symbolic(data):
            return data if np_dtype is None else value.astype(np_dtype)._data
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
