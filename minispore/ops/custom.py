"""`ops.Custom`: an operator from a user's function, a row of the primitive table like any other.

    >>> def cube(x):                                   # func_type="pyfunc": numpy in and out
    ...     return x ** 3
    >>> op = ops.Custom(cube, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="pyfunc",
    ...                 bprop=lambda x, out, dout: (dout * 3 * x * x,))
    >>> op(ms.Tensor([1.0, 2.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  8.00000000e+00])

func_type:
* "pyfunc": any Python/numpy function of numpy arrays, returning arrays (a host call: on a
  GPU its inputs are copied to the host and its outputs back).
* "hybrid" (MindSpore's loop DSL) or "numba": a kernel numba compiles once (`nopython`
  mode), written as loops over numpy arrays; `output_tensor(shape, dtype)` allocates an
  output, as in MindSpore's hybrid DSL. Compiled programs call the machine code directly.

out_shape / out_dtype: a shape (dtype) or a function of the input shapes (dtypes); by default
the first input's. bprop(*inputs, out, dout) returns one gradient per input, written with
minispore ops, so it runs in both modes and to any order. Without a bprop the op has no
derivative (differentiating through it raises). Under vmap it runs once per lane.
"""
import types
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from ..context import device
from ..core.dtype import from_np, to_np
from ..core.hints import DTypeLike
from ..core.ir import Aval
from .classes import PrimitiveClass
from .primitive import Primitive, aval_of, bind
from .user_primitives import checked_bprop, checked_impl, free_name, several

FUNC_TYPES = ("pyfunc", "hybrid", "numba")


class Custom(PrimitiveClass):
    """An operator made from a user's function (see the module docstring)."""

    _rows: dict = {}  # (func, func_type, out_shape, out_dtype, bprop) -> row: one per definition

    def __init__(self, func: Callable[..., Any],
                 out_shape: Union[Sequence[int], Callable[..., Sequence[int]], None] = None,
                 out_dtype: Union[DTypeLike, Callable[..., DTypeLike], None] = None,
                 func_type: str = "hybrid", bprop: Optional[Callable[..., Any]] = None,
                 reg_info: object = None) -> None:
        if func_type not in FUNC_TYPES:
            raise ValueError(f"Custom: func_type {func_type!r} is not supported on minispore "
                             f"(it has {', '.join(FUNC_TYPES)}; 'aot', 'akg', 'aicpu' and "
                             f"'julia' need MindSpore's own toolchains)")
        if not callable(func):
            raise TypeError(f"Custom: func must be a function, got {type(func).__name__}")
        self.func, self.func_type, self.bprop = func, func_type, bprop
        self.out_shape, self.out_dtype = out_shape, out_dtype
        key = (func, func_type, _hashable(out_shape), _hashable(out_dtype), bprop)
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = _make_row(func, func_type, out_shape, out_dtype, bprop)
        self._row = row

    def __call__(self, *inputs):
        row = self._row
        if row.multiple_results is None:  # known from the rule's first answer
            row.multiple_results = not isinstance(row.infer(*[aval_of(x) for x in inputs]),
                                                  Aval)
        return bind(row, *inputs)


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value


def _make_row(func, func_type, out_shape, out_dtype, bprop):
    name = free_name(f"Custom_{getattr(func, '__name__', 'op')}",
                     f"Custom_{getattr(func, '__qualname__', 'op')}")
    infer = _infer(out_shape, out_dtype)
    run = _pyfunc(func) if func_type == "pyfunc" else _compiled(func)
    row = Primitive(name, infer=infer, impl=checked_impl(name, infer, run),
                    bprop=checked_bprop(name, bprop) if bprop is not None else None,
                    multiple_results=None, doc=getattr(func, "__doc__", None))
    row.user_defined = True
    return row


def _infer(out_shape, out_dtype):
    def infer(*avals):
        shape = out_shape(*[list(a.shape) for a in avals]) if callable(out_shape) else \
            (out_shape if out_shape is not None else avals[0].shape)
        dtype = out_dtype(*[from_np(a.dtype) for a in avals]) if callable(out_dtype) else \
            (out_dtype if out_dtype is not None else from_np(avals[0].dtype))
        if several(shape):  # a tuple of shapes: that many outputs
            dtypes = dtype if isinstance(dtype, (tuple, list)) else [dtype] * len(shape)
            return tuple(Aval(tuple(s), np.dtype(to_np(d))) for s, d in zip(shape, dtypes))
        return Aval(tuple(shape), np.dtype(to_np(dtype)))
    return infer


def _pyfunc(func):
    def run(*arrays):
        if device.xp() is np:
            return func(*arrays)
        out = func(*[device.to_host(a) for a in arrays])
        return device.to_device(np.asarray(out))
    return run


def _output_tensor(shape, dtype):
    return np.empty(shape, dtype)


def _compiled(func):
    """`func` compiled by numba at its first call (each new input type compiles once)."""
    compiled = []

    def run(*arrays):
        if not compiled:
            compiled.append(_njit(func))
        if device.xp() is not np:
            raise TypeError(f"Custom({func.__name__}, func_type='hybrid'): numba kernels run "
                            f"on the CPU; give a GPU version as func_type='pyfunc' over CuPy")
        return compiled[0](*arrays)
    return run


def _njit(func):
    """numba's nopython compile of `func`, with the hybrid DSL's `output_tensor` visible."""
    import numba  # only when a kernel is first called: numba's start-up is ~0.4 s
    namespace = dict(func.__globals__)
    namespace.setdefault("output_tensor", numba.njit(_output_tensor))
    with_dsl = types.FunctionType(func.__code__, namespace, func.__name__, func.__defaults__,
                                  func.__closure__)
    # numpy's error model: x / 0 is inf as in array code, and loops with a division vectorise
    return numba.njit(cache=False, nogil=True, error_model="numpy")(with_dsl)
