"""Graph breaks: host code asked for the value of a symbolic tensor.

The segment traced so far is compiled and run, its live values become concrete on the host,
and tracing continues (the next segment reads them as inputs). A function that broke runs its
Python at every call (its segments are compiled once and cached), since what it traces may
depend on the values. Under fullgraph=True or jit_syntax_level=STRICT, or while compiling a
backward, the request raises instead.

A trace that may break carries a `GraphBreaks` (tracer.breaks): the tracer hands it every
host-value request and every tensor given to user code.
"""
import weakref

from ..compiler.executable import write_back
from ..context import config
from ..core.ir import Graph, Var
from ..core.pytree import unflatten
from ..core.source import user_frame_summary
from ..core.tensor import Tensor
from .report import BreakReport, GraphBreakError, category_of, report_once


class BreakNotAllowed(Exception):
    """Internal: this trace cannot break (a compiled backward); the caller runs eagerly."""


class Segmented:
    """The result of a call that broke into segments (it ran while being traced)."""

    def __init__(self, value, breaks):
        self.value, self.breaks = value, breaks


class GraphBreaks:
    """The graph-break state of one trace.

    run_segment: callable(Graph, input arrays) -> output arrays, or None where the trace
    cannot break (a compiled backward: a break raises BreakNotAllowed).
    strict: fullgraph=True, a break is a GraphBreakError."""

    def __init__(self, run_segment, strict=False):
        self.run_segment = run_segment
        self.strict = strict
        self.reports = []        # BreakReports, in order
        self.known = {}          # var id -> array a segment computed
        self.segment_start = 0   # index of the current segment's first node
        # tensors given to user code (a live one may be read after a break); id -> weakref:
        # a WeakSet would compare tensors with ==, which is elementwise here
        self._handed_out = {}

    def hand_out(self, tensor):
        self._handed_out[id(tensor)] = weakref.ref(tensor)

    def knows(self, var):
        return var.id in self.known

    def host_value(self, tracer, tensor, reason):
        """The concrete value of a symbolic tensor, breaking the graph if needed."""
        report = BreakReport(tracer.graph.name, user_frame_summary() or "<unknown>", reason,
                             category_of(reason))
        if self.strict or config.get_context("jit_syntax_level") == config.STRICT:
            raise GraphBreakError(report)
        if self.run_segment is None:
            raise BreakNotAllowed(report)
        # Even when the value is already known (an input, or computed before an earlier
        # break), what follows depends on it: the trace can never replay without Python.
        report_once(report)
        self.reports.append(report)
        var = tensor._data
        if not tracer.knows(var):
            self._materialize(tracer)
        return self._value(tracer, var)

    def _value(self, tracer, var):
        return self.known[var.id] if var.id in self.known else tracer.given[var.id]

    def _cut_segment(self, tracer, name, outputs=None):
        """The nodes since the last cut as a Graph whose inputs are the values they read from
        earlier segments or captured tensors. Outputs: `outputs`, or every value of the
        segment that user code may still read (live tensors, captured tensors' new values)."""
        nodes = tracer.graph.nodes[self.segment_start:]
        self.segment_start = len(tracer.graph.nodes)
        produced = {o.id for n in nodes for o in n.outputs}
        if outputs is None:
            live = [r() for r in self._handed_out.values()]
            candidates = [t._data for t in live if t is not None] + \
                         [t._data for t, _, _ in tracer.captured.values()]
            outputs = [v for v in candidates if isinstance(v, Var) and v.id in produced]
        seg = Graph(name)
        seg.nodes = nodes
        seg.outputs = _unique(outputs)
        used = [v for n in nodes for v in n.inputs] + seg.outputs
        seg.inputs = _unique(v for v in used if v.const is None and v.id not in produced)
        return seg

    def _run(self, tracer, seg):
        values = self.run_segment(seg, [self._value(tracer, v) for v in seg.inputs])
        self.known.update((v.id, a) for v, a in zip(seg.outputs, values))

    def _materialize(self, tracer):
        """Run the segment traced so far; its live values become known on the host."""
        self._run(tracer, self._cut_segment(tracer, f"{tracer.graph.name}_segment{len(self.reports)}"))

    def finish(self, tracer, out_vars, out_structure):
        """Run the last segment; write back state (only now: the whole call succeeded).
        Returns the call's value as a Segmented."""
        updated = tracer.state_updates()
        state_vars = [d if isinstance(d, Var) else tracer.const(d) for _, d in updated]
        name = f"{tracer.graph.name}_segment{len(self.reports)}"
        self._run(tracer, self._cut_segment(tracer, name, out_vars + state_vars))
        tracer.restore()
        write_back([t for t, _ in updated], [self._value(tracer, v) for v in state_vars])
        outs = [Tensor._wrap(self._value(tracer, v)) for v in out_vars]
        return Segmented(unflatten(out_structure, outs), list(self.reports))


def _unique(vars_):
    seen, out = set(), []
    for v in vars_:
        if v.id not in seen:
            seen.add(v.id)
            out.append(v)
    return out
