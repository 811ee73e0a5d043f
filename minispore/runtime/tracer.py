"""The tracing interpreter: run `infer` instead of `impl` and append a node to the graph.

Inputs of an op are classified once:
* symbolic Tensors (already in the graph) are used as they are;
* Parameters and other concrete Tensors met alongside symbolic values are *captured by
  reference*: they become graph inputs read at every run (and written back if assigned);
* numpy arrays and Python scalars become constants.
An op whose inputs are all constants (and that has no effect) is evaluated now: host code on
constants folds into the graph as its result.
"""
import weakref

import numpy as np

from ..context.interpreter import Interpreter
from ..nn.parameter import Parameter
from ..ops.primitive import Aval, OpError, user_frame_summary, with_context
from ..grad import tape
from . import device
from .dtype import is_float_np
from .eager import EAGER
from .ir import Graph, Node, Var
from .tensor import Tensor


class TracingInterpreter(Interpreter):
    def __init__(self, name="graph", watch_captured=False):
        self.graph = Graph(name)
        self.captured = {}   # id(tensor) -> (tensor, input Var, concrete data at capture)
        self._consts = {}    # id(array) -> (array, Var); the array is kept alive with its Var
        # differentiate with respect to captured float tensors too (compiled vjp of a @jit
        # function): they are watched in place while tracing, like grad(weights=...) does
        self.watch_captured = watch_captured
        self._saved_nodes = {}
        # graph breaks (fallback.graph_break): values known on the host, the start of the
        # current segment, the tensors handed to user code (a live one may be read later)
        self.known = {}          # var id -> concrete array
        self.segment_start = 0
        self.breaks = []         # BreakReports, in order
        self.run_segment = None  # callable(Graph, input arrays) -> output arrays; None: no breaks
        self.strict = False      # fullgraph=True: a break is an error
        # id -> weakref: WeakSet would compare tensors with ==, which is elementwise here
        self._handed_out = {}
        self.explicit = []       # (symbolic tensor, its input Var, the caller's tensor)
        self._created = {}

    # ----- inputs -----
    def new_input(self, shape, dtype, source=None):
        """A symbolic tensor for a graph input. With `source` (the caller's tensor) it is an
        explicit input: listed first in graph.inputs, its value known for graph breaks, and
        written back to `source` if the function assigns to it."""
        t = Tensor._wrap(Var(shape, dtype))
        if source is not None:
            self.known[t._data.id] = source._data
            self.explicit.append((t, t._data, source))
        return t

    def var_of(self, x):
        if isinstance(x, Tensor):
            data = x._data
            if isinstance(data, Var):
                return data
            entry = self.captured.get(id(x))
            if entry is None and _holds(self._created, x):
                return self.const(data)
            if entry is None:
                entry = (x, Var(data.shape, data.dtype), data)
                self.captured[id(x)] = entry
                self.known[entry[1].id] = data
                if self.watch_captured and is_float_np(data.dtype):
                    self._saved_nodes[id(x)] = x._node
                    x._node = tape.Node("captured", None, (), (x,))
            return entry[1]
        return self.const(x)

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
        if not prim.effect and all(_is_constant(a) for a in args):
            return EAGER.process(prim, args, attrs)  # constant folding of host code
        in_vars = [self.var_of(a) for a in args]
        avals = [Aval(v.shape, v.dtype) for v in in_vars]
        try:
            out = prim.infer(*avals, **attrs)
        except OpError as e:
            raise type(e)(with_context(prim.name, avals, attrs, str(e))) from None
        outs = out if prim.multiple_results else (out,)
        out_vars = [Var(o.shape, o.dtype) for o in outs]
        self.graph.nodes.append(Node(prim, in_vars, attrs, out_vars, user_frame_summary()))
        tensors = tuple(Tensor._wrap(v) for v in out_vars)  # _wrap hands them out
        return tensors if prim.multiple_results else tensors[0]

    def note_created(self, tensor):
        """A concrete tensor made while tracing (ones_like, Tensor(np.array(...))): its value
        is fixed by the trace, so it is a graph constant, not an input read by reference."""
        self._created[id(tensor)] = weakref.ref(tensor)

    def hand_out(self, tensor):
        """Remember a tensor given to user code: a graph break must keep its value."""
        if self.run_segment is not None:
            self._handed_out[id(tensor)] = weakref.ref(tensor)

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

    # ----- graph breaks -----
    def cut_segment(self, name, outputs=None):
        """The nodes since the last cut as a Graph whose inputs are the values they read from
        earlier segments or captured tensors. Outputs: `outputs`, or every value of the
        segment that user code may still read (live tensors, captured tensors' new values)."""
        nodes = self.graph.nodes[self.segment_start:]
        self.segment_start = len(self.graph.nodes)
        produced = {o.id for n in nodes for o in n.outputs}
        if outputs is None:
            live = [r() for r in self._handed_out.values()]
            candidates = [t._data for t in live if t is not None] + \
                         [t._data for t, _, _ in self.captured.values()]
            outputs = [v for v in candidates if isinstance(v, Var) and v.id in produced]
        seg = Graph(name)
        seg.nodes = nodes
        seg.outputs = _unique(outputs)
        used = [v for n in nodes for v in n.inputs] + seg.outputs
        seg.inputs = _unique(v for v in used if v.const is None and v.id not in produced)
        return seg

    def materialize(self):
        """Run the segment traced so far; its live values become known on the host."""
        seg = self.cut_segment(f"{self.graph.name}_segment{len(self.breaks)}")
        values = self.run_segment(seg, [self.known[v.id] for v in seg.inputs])
        self.known.update((v.id, a) for v, a in zip(seg.outputs, values))

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
        when tracing failed, so no Parameter is left holding a symbolic value."""
        for key, (tensor, _, original) in self.captured.items():
            tensor._data = original
            if key in self._saved_nodes:
                tensor._node = self._saved_nodes.pop(key)


def _holds(table, tensor):
    """True if the id -> weakref table refers to this very tensor (ids are reused)."""
    ref = table.get(id(tensor))
    return ref is not None and ref() is tensor


def _unique(vars_):
    seen, out = set(), []
    for v in vars_:
        if v.id not in seen:
            seen.add(v.id)
            out.append(v)
    return out


def _is_constant(x):
    if isinstance(x, Tensor):
        return not isinstance(x._data, Var) and not isinstance(x, Parameter)
    return True
