"""The tracing interpreter: run `infer` instead of `impl` and append a node to the graph.

Inputs of an op are classified once:
* symbolic Tensors (already in the graph) are used as they are;
* Parameters and other concrete Tensors from outside the trace are *captured by reference*:
  they become graph inputs read at every run (and written back if assigned), so a global
  Tensor changed in place is seen by the next call;
* a Tensor made in the trace from a numpy array (`Tensor(MASK)`) reads that array by
  reference too, so the array may change in place between calls;
* other numpy arrays and Python scalars become constants (a constant array keeps the
  caller's buffer when no conversion was needed: it is read at every run as well).
An op whose inputs are all constants (and that has no effect) is evaluated now: host code on
constants folds into the graph as its result.

Python asking for the value of a symbolic tensor (`float(t)`, `if t:`) reaches `host_value`.
A trace that may break has a `breaks` object attached (fallback.graph_break), which runs the
graph traced so far to answer; a trace without one (a loop body, a compiled backward) raises
`HostReadInTrace`, which its caller turns into its own way out.
"""
import weakref
from contextlib import contextmanager

import numpy as np

from ..context import device
from ..context.interpreter import STATE, Interpreter, using
from ..core.dtype import is_float_np
from ..core.eager import EAGER
from ..core.ir import Aval, Graph, Node, Var
from ..core.source import user_frame_summary
from ..core.tensor import Tensor
from ..grad import tape


class HostReadInTrace(Exception):
    """Python asked for a symbolic tensor's value in a trace that cannot break (see the module
    docstring): `reason` says what asked, `location` the user's line."""

    def __init__(self, reason, location):
        super().__init__(f"{reason} at {location}")
        self.reason, self.location = reason, location


@contextmanager
def tracing(tracer):
    """Trace into `tracer` (the current interpreter) apart from any enclosing tape: the
    caller's tape must not see symbolic values. Captured tensors get their data back after."""
    saved = STATE.recording
    STATE.recording = 0
    STATE.trace_stack.append(tracer)
    try:
        with using(tracer):
            yield tracer
    finally:
        STATE.trace_stack.pop()
        STATE.recording = saved
        tracer.restore()


class TracingInterpreter(Interpreter):
    def __init__(self, name="graph", watch_captured=False):
        self.graph = Graph(name)
        self.captured = {}   # id(tensor) -> (tensor, input Var, concrete data at capture)
        self._consts = {}    # id(array) -> (array, Var); the array is kept alive with its Var
        # differentiate with respect to captured float tensors too (compiled vjp of a @jit
        # function): they are watched in place while tracing, like grad(weights=...) does
        self.watch_captured = watch_captured
        self._saved_nodes = {}
        self.explicit = []       # (symbolic tensor, its input Var, the caller's tensor)
        self.given = {}          # var id -> the host value of an explicit or captured input
        self._created = {}
        self._array_sources = {}  # id(tensor made from an array) -> (weakref, the array)
        self._array_wrappers = {}  # id(array) -> the Tensor capturing it (kept alive here)
        self.breaks = None       # fallback.graph_break's state, when the trace may break
        self._restored = False

    # ----- inputs -----
    def new_input(self, shape, dtype, source=None):
        """A symbolic tensor for a graph input. With `source` (the caller's tensor) it is an
        explicit input: listed first in graph.inputs, its value known for graph breaks, and
        written back to `source` if the function assigns to it."""
        t = Tensor._wrap(Var(shape, dtype))
        if source is not None:
            self.given[t._data.id] = source._data
            self.explicit.append((t, t._data, source))
        return t

    def var_of(self, x):
        if isinstance(x, Tensor):
            data = x._data
            if isinstance(data, Var):
                return data
            entry = self.captured.get(id(x))
            if entry is None and _holds(self._created, x):
                source = self._array_source(x)
                return self.const(data) if source is None else self._capture_array(source)
            if entry is None:
                entry = (x, Var(data.shape, data.dtype), data)
                self.captured[id(x)] = entry
                self.given[entry[1].id] = data
                if self.watch_captured and is_float_np(data.dtype):
                    self._saved_nodes[id(x)] = x._node
                    x._node = tape.Node("captured", None, (), (x,))
            return entry[1]
        return self.const(x)

    def _array_source(self, tensor):
        entry = self._array_sources.get(id(tensor))
        return entry[1] if entry is not None and entry[0]() is tensor else None

    def _capture_array(self, array):
        """A graph input reading the caller's numpy `array` at every run."""
        wrapper = self._array_wrappers.get(id(array))
        if wrapper is None:
            wrapper = object.__new__(Tensor)
            wrapper._data, wrapper._node = array, None
            self._array_wrappers[id(array)] = wrapper
        return self.var_of(wrapper)

    def const(self, value):
        entry = self._consts.get(id(value))
        if entry is None:
            # on the host, as passes fold and hash them; a Program uploads them once
            array = device.to_host(value) if hasattr(value, "shape") else np.asarray(value)
            entry = (value, Var(array.shape, array.dtype, const=array))
            self._consts[id(value)] = entry
        return entry[1]

    # ----- ops -----
    def process(self, prim, args, attrs):
        if not prim.effect and all(self._is_constant(a) for a in args):
            out = EAGER.process(prim, args, attrs)  # constant folding of host code
            for t in out if prim.multiple_results else (out,):
                self.note_created(t)  # a constant of the trace, not an input to capture
            return out
        in_vars = [self.var_of(a) for a in args]
        avals = [Aval(v.shape, v.dtype) for v in in_vars]
        try:
            out = prim.infer(*avals, **attrs)
        except Exception as e:  # as PyNative explains an impl's failure: the same error
            raise prim.explain_failure(avals, attrs, e) from None
        outs = out if prim.multiple_results else (out,)
        out_vars = [Var(o.shape, o.dtype) for o in outs]
        self.graph.nodes.append(Node(prim, in_vars, attrs, out_vars, user_frame_summary()))
        tensors = tuple(Tensor._wrap(v) for v in out_vars)  # _wrap hands them out
        return tensors if prim.multiple_results else tensors[0]

    def note_created(self, tensor, source=None):
        """A concrete tensor made while tracing (ones_like, Tensor(3.0)): its value is fixed by
        the trace, so it is a graph constant, not an input read by reference -- unless it was
        made from a numpy array `source` of its dtype: the graph then reads that array."""
        ref = self._created[id(tensor)] = weakref.ref(tensor)
        if (type(source) is np.ndarray and source.ndim > 0 and type(tensor._data) is np.ndarray
                and source.dtype == tensor._data.dtype):
            self._array_sources[id(tensor)] = (ref, source)

    def _is_constant(self, x):
        """Whether an op input's value is fixed by the trace (then an op on constants folds)."""
        if isinstance(x, Tensor):
            return (not isinstance(x._data, Var) and _holds(self._created, x)
                    and self._array_source(x) is None)
        return True

    def hand_out(self, tensor):
        """A tensor is given to user code: a graph break must keep its value."""
        if self.breaks is not None:
            self.breaks.hand_out(tensor)

    # ----- host values -----
    def host_value(self, tensor, reason):
        """The concrete value of a symbolic tensor of this trace (see the module docstring)."""
        if self.breaks is None:
            raise HostReadInTrace(reason, user_frame_summary() or "<unknown>")
        return self.breaks.host_value(self, tensor, reason)

    def knows(self, var):
        """Whether `var`'s value is on the host now (an input's, or one a break computed)."""
        return var.id in self.given or (self.breaks is not None and self.breaks.knows(var))

    # ----- speculative tracing (both branches of a converted if) -----
    def checkpoint(self):
        return (len(self.graph.nodes), {k: e[0]._data for k, e in self.captured.items()})

    def effects_since(self, mark):
        return any(node.prim.effect for node in self.graph.nodes[mark[0]:])

    def rollback(self, mark):
        """Forget what was traced since `mark`: nodes, captures and captured-tensor writes."""
        n_nodes, data = mark
        del self.graph.nodes[n_nodes:]
        for key in list(self.captured):
            tensor, _, original = self.captured[key]
            if key in data:
                tensor._data = data[key]
            else:
                tensor._data = original
                del self.captured[key]

    # ----- the end of a trace -----
    def state_updates(self):
        """[(tensor to write back, its final data)] for every input or captured tensor the
        trace assigned to, in a fixed order (captured first)."""
        updates = [(t, t._data) for t, _, original in self.captured.values() if t._data is not original]
        updates += [(source, t._data) for t, var, source in self.explicit if t._data is not var]
        return updates

    def finish(self, outputs):
        """Close the graph. Inputs: the explicit ones, then every captured tensor. Outputs: the
        given ones, then the final value of each assigned tensor (state updates, written back
        after a successful run).

        Returns (captured, updated) tensors, in graph-input and graph-output order.
        Captured tensors get their concrete data back.
        """
        captured = list(self.captured.values())
        self.graph.inputs = [var for _, var, _ in self.explicit] + [var for _, var, _ in captured]
        updates = self.state_updates()
        self.graph.outputs = list(outputs) + [d if isinstance(d, Var) else self.const(d) for _, d in updates]
        self.restore()
        return [t for t, _, _ in captured], [target for target, _ in updates]

    def restore(self):
        """Give every captured tensor its concrete data (and autodiff state) back; also runs
        when tracing failed, so no Parameter is left holding a symbolic value. Once: state
        written back after a restore (the end of a trace) must stay."""
        if self._restored:
            return
        self._restored = True
        for key, (tensor, _, original) in self.captured.items():
            tensor._data = original
            if key in self._saved_nodes:
                tensor._node = self._saved_nodes.pop(key)


def _holds(table, tensor):
    """True if the id -> weakref table refers to this very tensor (ids are reused)."""
    ref = table.get(id(tensor))
    return ref is not None and ref() is tensor

