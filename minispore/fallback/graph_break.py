"""Graph breaks: host code asked for the value of a symbolic tensor.

The segment traced so far is compiled and run, its live values become concrete on the host,
and tracing continues (the next segment reads them as inputs). A function that broke runs its
Python at every call (its segments are compiled once and cached), since what it traces may
depend on the values. Under fullgraph=True or jit_syntax_level=STRICT, or while compiling a
backward, the request raises instead.
"""
from ..context import config
from ..context.interpreter import STATE
from ..ops.primitive import user_frame_summary
from .report import BreakReport, GraphBreakError, category_of, report_once


class BreakNotAllowed(Exception):
    """Internal: this trace cannot break (a compiled backward); the caller runs eagerly."""


def host_value(tensor, reason):
    """The concrete value of a symbolic tensor, breaking the graph if needed."""
    tracer = STATE.trace_stack[-1] if STATE.trace_stack else None
    var = tensor._data
    if tracer is None or not hasattr(tracer, "known"):
        raise RuntimeError(f"{reason}: this tensor is symbolic (it was created while tracing a "
                           f"Graph-mode function) and escaped its trace")
    report = BreakReport(tracer.graph.name, user_frame_summary() or "<unknown>", reason,
                         category_of(reason))
    if tracer.strict or config.get_context("jit_syntax_level") == config.STRICT:
        raise GraphBreakError(report)
    if tracer.run_segment is None:
        raise BreakNotAllowed(report)
    # Even when the value is already known (an input, or computed before an earlier break),
    # what follows depends on it: the trace can never replay without running Python.
    report_once(report)
    tracer.breaks.append(report)
    if var.id not in tracer.known:
        tracer.materialize()
    return tracer.known[var.id]
