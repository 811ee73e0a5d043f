"""The JIT front end: what `@ms.jit` and a GRAPH_MODE Cell do with a call.

Each call signature (argument structure, input shapes and dtypes, the Python values the trace
read: compiler.guards, the context) is compiled once by the pipeline (compiler.pipeline) and
replayed afterwards. The JIT fallback (fallback/) makes any Python run: tensor-conditioned
control flow is converted to graph ops before tracing, `print` becomes the graph's print, a
host read of a symbolic value breaks the graph into compiled segments with Python between
them, and a function with Python side effects runs its Python at every call.

Inside a differentiation transform in PyNative, a jitted function is traced together with
its backward, and the call is one node on the eager tape whose rule runs the compiled
backward (compiler.executable.VjpExecutable).
"""
from typing import Any, Callable, Optional

import logging

from ..compiler.executable import Executable
from ..compiler.pipeline import compile_traced, executable, vjp_executable
from ..compiler.trace import trace
from ..context import config
from ..context.interpreter import STATE
from ..core.cell_base import CellBase
from ..core.ir import structural_key
from ..core.pytree import flatten
from ..core.tensor import Tensor
from ..fallback import convert, side_effects
from ..fallback.graph_break import BreakNotAllowed, GraphBreaks, Segmented
from ..fallback.report import Explanation, GraphBreakError, report_side_effect
from . import guards

log = logging.getLogger("minispore.jit")
RECOMPILE_LIMIT = 8


def _is_tensor(x):
    return isinstance(x, Tensor)


_EAGER = "eager"          # cache marker: this signature runs eagerly (see _compile)
_SEGMENTED = "segmented"  # cache marker: this signature breaks; Python runs, segments compiled


class JitFunction:
    """A function compiled on first call for each input signature (see `jit`)."""

    def __init__(self, fn, fullgraph=False, name=None):
        self.fn = fn
        self.fullgraph = fullgraph
        self.name = name or _clean_name(getattr(fn, "__qualname__", getattr(fn, "__name__", "fn")))
        self.cache = {}        # key -> Executable | VjpExecutable | _SEGMENTED | _EAGER
        self.segments = {}     # structural key of a segment graph -> Program
        self.recompiles = []   # the reason for each compile after the first
        self.reads = guards.Reads(fn)  # the globals user code run by the traces names
        self.breaks = []       # BreakReports of the first traced call that broke
        # set once a call broke or had Python side effects: from then on every call runs the
        # Python (no replay), so the values its trace read need no guarding either
        self.runs_python = False
        self.__wrapped__ = fn
        self.__doc__ = getattr(fn, "__doc__", None)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return _BoundJit(self, obj)

    def __call__(self, *args, **kwargs):
        if STATE.trace_stack or not config.get_context("jit_enable") or STATE.recording > 1 \
                or getattr(STATE.interp, "inlines_jit", False):
            # inside a trace: inline; jit disabled: eager for debugging; higher-order
            # gradients through a compiled call: eager, so the backward is recorded too;
            # inside vmap: inline, the batching rules must see every op
            return self.fn(*args, **kwargs)
        return self.call_compiled(args, kwargs)

    def call_compiled(self, args, kwargs):
        if not kwargs and all(type(a) is Tensor for a in args):
            leaves, structure = args, len(args)  # the common case, without a tree walk
        else:
            leaves, structure = flatten((args, kwargs), _is_tensor)
        with_backward = STATE.recording == 1
        if self.runs_python:
            # a counter or a log it updates must not look like a new variant at every call
            return self.fn(*args, **kwargs) if with_backward else \
                self._run_with_python(args, kwargs, leaves)
        key = self._key(structure, leaves, args, with_backward)
        exe = self.cache.get(key)
        if exe is None:
            return self._compile(key, args, kwargs, leaves, with_backward)
        if exe is _EAGER:
            return self.fn(*args, **kwargs)
        if exe is _SEGMENTED:
            return self._run_with_python(args, kwargs, leaves)
        return exe(leaves)

    def _key(self, structure, leaves, args, with_backward):
        return (structure, tuple((x.shape, x._data.dtype) for x in leaves),
                guards.snapshot(self.fn, args, self.reads),
                (config.context_key(), guards.environment()), with_backward)

    def _store(self, args, leaves, key, with_backward, exe):
        """Cache `exe` under the key of this call as the next call will compute it: the trace
        just taught `reads` more globals to guard."""
        structure = key[0]
        self.cache[self._key(structure, leaves, args, with_backward)] = exe

    def _compile(self, key, args, kwargs, leaves, with_backward):
        if self.cache:
            reason = guards.explain_change(key, list(self.cache), self.reads)
            self.recompiles.append(reason)
            log.debug("recompiling %s: %s", self.name, reason)
            if len(self.cache) == RECOMPILE_LIMIT:
                log.warning("%s was compiled %d times (last reason: %s); each variant stays cached",
                            self.name, RECOMPILE_LIMIT, reason)
        watch = side_effects.Watch(self.fn, args, kwargs)
        if with_backward:
            try:
                with watch:
                    exe = vjp_executable(*self._trace_call(args, kwargs, True, None))
                self.reads.add(watch.calls)
            except BreakNotAllowed:
                # the function breaks: its gradient is taken eagerly, exactly as PyNative's
                self.cache[key] = _EAGER
                self.runs_python = True
                return self.fn(*args, **kwargs)
            # Python side effects: this call's already ran (tracing); later calls run eagerly
            self._store(args, leaves, key, with_backward,
                        _EAGER if self._side_effects(watch) else exe)
            return exe(leaves)
        with watch:
            result = self._run_segmented(args, kwargs)
        self.reads.add(watch.calls)
        if isinstance(result, Segmented):
            self.cache[key] = _SEGMENTED
            self.breaks = result.breaks
            self.runs_python = True
            return result.value
        if self._side_effects(watch):
            # this call's Python already ran (while tracing); later calls must run it again
            self._store(args, leaves, key, with_backward, _SEGMENTED)
            return self._run_traced(result, leaves)
        exe = executable(result)
        self._store(args, leaves, key, with_backward, exe)
        return exe(leaves)

    def _side_effects(self, watch):
        """Report the Python side effects of the trace just watched; under fullgraph=True or
        jit_syntax_level=STRICT they are an error."""
        effects = watch.effects()
        if effects:
            self.runs_python = True
            self.breaks = [report_side_effect(self.name, where, what) for where, what in effects]
            if self.fullgraph or config.get_context("jit_syntax_level") == config.STRICT:
                raise GraphBreakError(self.breaks[0])
        return bool(effects)

    def _trace_call(self, args, kwargs, with_backward, run_segment):
        """This call traced with the fallback: converted control flow, print in the graph,
        the caller's containers as arguments, graph breaks run by `run_segment` (None: a
        break raises BreakNotAllowed). Returns what compiler.trace.trace returns."""
        def arguments(sym_args, sym_kwargs):
            traced = side_effects.TracedArguments((args, kwargs), (sym_args, sym_kwargs))
            return (traced.args, traced.kwargs), lambda: traced.check_unchanged(self.name)

        with side_effects.graph_print():
            return trace(convert.converted(self.fn), args, kwargs, self.name, with_backward,
                         GraphBreaks(run_segment, self.fullgraph), arguments)

    def _run_segmented(self, args, kwargs):
        return self._trace_call(args, kwargs, False, self._run_segment)

    def _run_with_python(self, args, kwargs, leaves):
        """A call whose Python must run (breaks or side effects); tensor work is compiled
        into segments cached by structure, so only tracing costs Python time."""
        result = self._run_segmented(args, kwargs)
        if isinstance(result, Segmented):
            return result.value
        return self._run_traced(result, leaves)

    def _run_traced(self, traced, leaves):
        return Executable(traced, self._segment_program(traced.graph))(leaves)

    def _run_segment(self, graph, inputs):
        return self._segment_program(graph).run(inputs)

    def _segment_program(self, graph):
        key = structural_key(graph)
        program = self.segments.get(key)
        if program is None:
            program = self.segments[key] = compile_traced(graph)
        return program


def _clean_name(qualname):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in qualname).strip("_") or "fn"


class _BoundJit:
    """A jitted method bound to its object (the object is a static argument)."""

    def __init__(self, jit_fn, obj):
        self.jit_fn, self.obj = jit_fn, obj

    def __call__(self, *args, **kwargs):
        return self.jit_fn(self.obj, *args, **kwargs)


def jit(function: Optional[Callable[..., Any]] = None, *, capture_mode: str = "ast",
        jit_level: Optional[str] = None, dynamic: int = 0, fullgraph: bool = False,
        backend: Optional[str] = None, input_signature: Any = None) -> Any:
    """Compile a function or Cell method: traced once per input signature, optimised, fused
    and compiled; later calls with the same shapes/dtypes replay the compiled program.

    Use as ``@ms.jit`` or ``@ms.jit(fullgraph=True)``. Gradients flow through compiled calls.

    >>> import minispore as ms
    >>> @ms.jit
    ... def f(x, y):
    ...     return ms.ops.tanh(x) * y
    >>> f(ms.Tensor([0.0, 1.0]), ms.Tensor(2.0))
    Tensor(shape=[2], dtype=Float32, value= [ 0.00000000e+00,  1.52318835e+00])
    """
    def wrap(fn):
        if isinstance(fn, JitFunction):
            return fn
        if isinstance(fn, CellBase):
            return JitFunction(type(fn).construct, fullgraph).__get__(fn)
        return JitFunction(fn, fullgraph)
    return wrap(function) if function is not None else wrap


ms_function = jit


def jit_class(cls: type) -> type:
    """Mark a class of the user's as usable inside compiled functions (MindSpore's
    `ms.jit_class`). minispore's tracer runs Python as Python, so any class's instances
    already work in `@ms.jit`: this checks it is a class and not a Cell, and returns it.

        >>> @ms.jit_class
        ... class Scale:
        ...     def __init__(self, k): self.k = k
        ...     def apply(self, x): return x * self.k
        >>> float(ms.jit(lambda x: Scale(2.0).apply(x))(ms.Tensor(3.0)))
        6.0
    """
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: decorates a class, got {type(cls).__name__}")
    if callable(getattr(cls, "construct", None)) and hasattr(cls, "cells_and_names"):
        raise TypeError(f"jit_class: {cls.__name__} is an nn.Cell, which compiles by itself; "
                        f"jit_class is for other classes")
    setattr(cls, "__ms_class__", True)  # MindSpore's marker attribute
    return cls


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """Make a value a variable input of compiled functions instead of a constant.

    A Python number passed to a jitted function is part of its cache key (each new value
    compiles again); `mutable(3.0)` is a 0-d Tensor instead, so every value shares one
    compiled program. Tuples, lists and dicts are converted item by item.

    >>> import minispore as ms
    >>> ms.mutable(2.0)
    Tensor(shape=[], dtype=Float32, value= 2)
    """
    if isinstance(input_data, Tensor):
        return input_data
    if isinstance(input_data, (tuple, list)):
        return type(input_data)(mutable(v) for v in input_data)
    if isinstance(input_data, dict):
        return {k: mutable(v) for k, v in input_data.items()}
    if isinstance(input_data, (bool, int, float)):
        return Tensor(input_data)
    raise TypeError(f"mutable: expected a number, Tensor, or tuple/list/dict of them, "
                    f"got {type(input_data).__name__}")


def run_cell_graph(cell, args, kwargs):
    """Cell.__call__ in GRAPH_MODE: compile `construct` (hooks and custom bprop included)."""
    exe_holder = cell.__dict__.get("_graph_jit")
    if exe_holder is None:
        exe_holder = JitFunction(type(cell)._run_construct, name=type(cell).__name__)
        object.__setattr__(cell, "_graph_jit", exe_holder)
    return exe_holder(cell, args, kwargs)


def explain(fn: Callable[..., Any]) -> Any:
    """Breaks and recompiles recorded for a jitted function (or a Cell run in GRAPH_MODE).

    >>> print(ms.explain(f))   # "1 compiled variant(s), 0 graph break(s), 0 recompile(s)"
    """
    if isinstance(fn, CellBase):
        fn = fn.__dict__.get("_graph_jit")
        if fn is None:
            return Explanation(0, [], [])
    if isinstance(fn, _BoundJit):
        fn = fn.jit_fn
    if not isinstance(fn, JitFunction):
        raise TypeError("explain() takes a function made by ms.jit or a Cell run in GRAPH_MODE")
    return Explanation(len(fn.cache), list(fn.breaks), list(fn.recompiles))
