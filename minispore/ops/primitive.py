"""The primitive table: every computation in minispore is a row here.

A row is `Primitive(name, infer=..., impl=..., bprop=..., [expr=..., jvp=..., ...])`:

* ``infer(*avals, **attrs) -> Aval | tuple[Aval]`` — the shape/dtype rule on abstract values
  (`Aval(shape, dtype)`, dtype a numpy dtype). Used by the tracer (Graph mode) and to explain
  a failing eager op. Raise `OpError` subclasses with a message naming what is wrong.
* ``impl(xp, *arrays, **attrs) -> array | tuple`` — the computation, written against the array
  namespace `xp` (numpy on CPU, CuPy on GPU) so one line serves both devices.
* ``bprop(*inputs, out, dout, **attrs) -> tuple`` — the backward rule in MindSpore's argument
  order, written only with `minispore.ops` calls, one gradient per input (`None`: no gradient).
  Because it is made of ops, the same rule runs eagerly (PyNative), is traced into the graph
  (Graph mode), and is recorded again for higher-order gradients.
* ``expr`` (elementwise ops) — a scalar template such as ``"tanh({0})"`` for fused kernels.
* ``jvp`` (optional) — forward-mode rule ``jvp(*inputs, tangents, out, **attrs)``; without it,
  forward mode is derived from `bprop` (the double-vjp trick).
* ``batch`` (optional) — the vmap rule ``batch(prim, args, dims, axis_size, **attrs) ->
  (out, out_dims)``: args carry the batch axis, at ``dims[i]`` (None: same for every lane);
  written with ops, like bprop (see ``ops.batching``). Elementwise rows (with ``expr``)
  default to the shared broadcasting rule; a row without one runs once per lane.
* ``kernel`` (optional) — a `CpuKernel`: a hand-written numba kernel that Graph mode runs on
  the CPU instead of `impl`, for rows whose numpy impl is many small calls (softmax over a
  short axis: a dozen numpy calls, each costing more than the arithmetic). PyNative keeps impl.
* ``in_place`` (optional) — ``in_place(xp, *arrays, **attrs)``: a function of no arguments
  that writes the result into the first input's buffer (which has the result's shape and
  dtype) and returns it, or None where that cannot be done. Preparing it may allocate and
  fail; the write must not. Graph mode uses it for a state update (SGD's ``w - lr * g``)
  when nothing else can see the old value: no new buffer, no copy (see `runtime.executor`).
* ``multiple_results`` — impl returns a tuple; ``dout`` in bprop is then a tuple too.
* ``effect`` — writes state (assign): never removed or reordered by graph passes.
* ``host_io`` — impl exchanges data with the host on every run (draws from numpy's generator,
  prints, tests a loop condition in Python): a recorded replay of the device work alone would
  repeat the first run's values, so a program with such a step is never replayed as a CUDA graph.

Array data is positional, static attributes are keywords (hashable: they are part of graph
cache keys). Calling a primitive binds it to the current interpreter: `prim(x, y, axis=0)`.
"""
import inspect
import os
import sys
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from ..context.interpreter import STATE

REGISTRY = {}


class Aval(NamedTuple):
    """Abstract value: what the tracer knows about a tensor (no values)."""
    shape: tuple
    dtype: np.dtype

    def __str__(self):
        from ..runtime.dtype import from_np
        return f"{from_np(self.dtype)}{list(self.shape)}"


class OpError(Exception):
    """Bad input to an op. The message names the op, the input shapes/dtypes and user's line."""


class OpShapeError(OpError, ValueError):
    pass


class OpTypeError(OpError, TypeError):
    pass


class CpuKernel(NamedTuple):
    """A Graph-mode CPU kernel for a primitive (see the module docstring).

    source: a module body defining `kernel`, decorated ``@numba.njit(KERNEL_FLAGS)``; it is
    pasted after numpy, numba and the vectorisable math of `runtime.codegen.fastmath` (exp,
    log... of the first input's float dtype, named DTYPE; a kernel exists for float32 and
    float64), with `_acc_sum`/`_acc_max` to accumulate reductions.
    call(kernel, *arrays, **attrs): the primitive's result computed with `kernel`, or
    NotImplemented where the kernel does not cover the inputs (impl then runs).
    """
    source: str
    call: object


class Primitive:
    """One row of the primitive table (see the module docstring)."""

    def __init__(self, name, *, infer, impl, bprop, expr=None, jvp=None, batch=None,
                 kernel=None, in_place=None, multiple_results=False, effect=False, host_io=False,
                 doc=None):
        if name in REGISTRY:
            raise ValueError(f"primitive {name!r} is defined twice")
        self.name = self.__name__ = name
        self.infer = infer
        self.impl = impl
        self.bprop = bprop
        self.expr = expr
        self.jvp = jvp
        self.batch = batch if batch is not None or expr is None else batching.elementwise
        self.kernel = kernel
        self.in_place = in_place
        self.multiple_results = multiple_results
        self.effect = effect
        self.host_io = host_io
        self.__doc__ = doc
        REGISTRY[name] = self

    def __call__(self, *args, **attrs):
        return bind(self, *args, **attrs)

    def __repr__(self):
        return f"<primitive {self.name}>"

    def explain_failure(self, args, attrs, error):
        """The OpError to raise when this primitive failed on `args`: the shape/dtype rule's
        complaint if it has one, otherwise `error` restated with the inputs."""
        avals = [aval_of(a) for a in args]
        try:
            inspect.signature(self.infer).bind(*avals, **attrs)
        except TypeError as e:  # wrong number of inputs, unknown attribute
            return OpTypeError(with_context(self.name, avals, attrs, f"wrong arguments: {e}"))
        try:
            self.infer(*avals, **attrs)
        except OpError as e:
            return type(e)(with_context(self.name, avals, attrs, str(e)))
        except Exception:  # the rule itself choked on bad input: report the original error
            pass
        cls = OpTypeError if isinstance(error, TypeError) else OpShapeError
        return cls(with_context(self.name, avals, attrs, f"{type(error).__name__}: {error}"))


def bind(prim, *args, **attrs):
    """Run `prim` in the current interpreter; record it on the tape if gradients are wanted."""
    state = STATE
    out = state.interp.process(prim, args, attrs)
    if state.recording:
        tape.record(prim, args, attrs, out)
    return out


_NO_ATTRS = MappingProxyType({})


def bind_positional(prim, *args):
    """`bind` for a call without attributes: the eager hot path (elementwise ops) skips
    building a keyword dict for every op."""
    state = STATE
    out = state.interp.process(prim, args, _NO_ATTRS)
    if state.recording:
        tape.record(prim, args, _NO_ATTRS, out)
    return out


def aval_of(x):
    """Abstract value of a Tensor, array or Python scalar."""
    data = getattr(x, "_data", x)
    if isinstance(data, (bool, int, float)):
        from ..runtime.dtype import default_np_dtype
        return Aval((), default_np_dtype(data))
    if data is None:
        return Aval((), np.dtype(np.float32))
    return Aval(tuple(data.shape), np.dtype(data.dtype))


def with_context(op_name, avals, attrs, message):
    """`message` prefixed with the op, followed by its inputs and the user's source line."""
    inputs = ", ".join(str(a) for a in avals)
    shown = {k: v for k, v in attrs.items() if v is not None}
    attr_text = f" with {', '.join(f'{k}={v!r}' for k, v in shown.items())}" if shown else ""
    where = user_frame_summary()
    return (f"ops.{op_name}: {message}\n  inputs: ({inputs}){attr_text}"
            + (f"\n  at {where}" if where else ""))


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIP_DIRS = (_PACKAGE_DIR, os.path.dirname(os.__file__))


def user_frame(skip_tests=False):
    """The innermost stack frame outside minispore and the standard library."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_SKIP_DIRS) and not filename.startswith("<frozen"):
            return frame
        frame = frame.f_back
    return None


def user_frame_summary():
    """'file.py:12: source text' for the user's line that led here, or ''."""
    frame = user_frame()
    if frame is None:
        return ""
    import linecache
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return f"{frame.f_code.co_filename}:{frame.f_lineno}: {line}"


from ..grad import tape  # noqa: E402  (tape imports Tensor, which imports ops)
from . import batching  # noqa: E402  (the shared vmap rules; they call ops)
