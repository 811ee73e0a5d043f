"""Tracing a function into a Graph: run it on symbolic tensors under a TracingInterpreter.

`trace(fn, args, kwargs, name)` returns a `Traced`: the graph (inputs: the explicit tensors,
then every tensor captured by reference; outputs: the function's, then the new value of each
tensor it assigned), and how to feed and unpack it. With `with_backward`, the backward is
traced into the same graph by the one tape engine running under the tracer, and
`split_forward_backward` (shared with graph loops) cuts the joint graph into a forward that
also returns the residuals and a backward.

Graph breaks are the JIT fallback's business: the caller may attach its break state to the
trace (`breaks`); if the function broke, the call has then run segment by segment and
`trace` returns what the break state's `finish` gives (the call's value).
"""
import numpy as np

from ..core.dtype import is_float_np
from ..core.ir import Graph, Var
from ..core.pytree import flatten, unflatten
from ..core.tensor import Tensor
from ..grad import tape
from ..grad.backward import backward
from .tracer import TracingInterpreter, tracing


def is_tensor(x):
    return isinstance(x, Tensor)


class Traced:
    """A traced function: its graph and how to feed and unpack it."""

    def __init__(self, graph, captured, updated, out_structure, n_outputs):
        self.graph = graph
        self.captured = captured          # tensors read at every run (Parameters...)
        self.updated = updated            # captured tensors written back after a run
        self.out_structure = out_structure
        self.n_outputs = n_outputs        # explicit (flattened) outputs, before state updates

    def state_buffers(self):
        """(input position, output position) of each captured tensor the graph updates: the
        pairs whose update a program may compute into the current value's buffer."""
        first = len(self.graph.inputs) - len(self.captured)
        position = {id(t): first + j for j, t in enumerate(self.captured)}
        return [(position[id(t)], self.n_outputs + k) for k, t in enumerate(self.updated)
                if id(t) in position]


def trace(fn, args, kwargs, name, with_backward=False, breaks=None, arguments=None):
    """Run fn on symbolic tensors and return a Traced (see the module docstring).

    with_backward: also trace the backward; returns (Traced, grad vars, cotangent vars).
    breaks: the break state to attach to the tracer (fallback.graph_break), or None.
    arguments: arguments(symbolic args and kwargs) -> the (args, kwargs) to call fn with and a
    check to run after the call (the fallback's view of Python containers), or None.
    """
    leaves, in_structure = flatten((args, kwargs), is_tensor)
    tracer = TracingInterpreter(name, watch_captured=with_backward)
    tracer.breaks = breaks
    inputs = [tracer.new_input(t.shape, t._data.dtype, source=t) for t in leaves]
    sym_args, sym_kwargs = unflatten(in_structure, inputs)
    check = None
    if arguments is not None:
        (sym_args, sym_kwargs), check = arguments(sym_args, sym_kwargs)
    with tracing(tracer):
        if with_backward:
            with tape.recording():
                for t in inputs:
                    if is_float_np(t._data.dtype):
                        t._node = tape.Node("input", None, (), (t,))
                out = fn(*sym_args, **sym_kwargs)
            out_leaves, out_structure = flatten(out, is_tensor)
            extra_inputs, grads = _trace_backward(tracer, inputs, out_leaves)
        else:
            out = fn(*sym_args, **sym_kwargs)
            out_leaves, out_structure = flatten(out, is_tensor)
            extra_inputs, grads = [], []
        if check is not None:
            check()
        out_vars = [tracer.var_of(t) for t in out_leaves]
        grad_vars = [None if g is None else tracer.var_of(g) for g in grads]
        if breaks is not None and breaks.reports:
            return breaks.finish(tracer, out_vars, out_structure)
        tape.detach(out_leaves)
        captured, updated = tracer.finish(out_vars)  # (before `tracing` restores the captures)
    traced = Traced(tracer.graph, captured, updated, out_structure, len(out_vars))
    if not with_backward:
        return traced
    tracer.graph.inputs += [t._data for t in extra_inputs]
    # tensors first captured by the backward itself get no gradient
    grad_vars += [None] * (len(inputs) + len(captured) - len(grad_vars))
    return traced, grad_vars, [t._data for t in extra_inputs]


def _trace_backward(tracer, inputs, out_leaves):
    """Trace the backward of the forward just traced: one symbolic cotangent per float output;
    gradients for every float explicit input and captured tensor."""
    roots = [o for o in out_leaves if o.dtype.is_float and o._node is not None]
    douts = [tracer.new_input(o.shape, o._data.dtype) for o in roots]
    targets = list(inputs) + [t for t, _, _ in tracer.captured.values()]
    grads = backward(roots, douts, targets) if roots else [None] * len(targets)
    return douts, grads


def split_forward_backward(graph, n_forward_outputs, grad_vars, dout_vars):
    """Partition a joint graph: nodes that depend on a cotangent are the backward.

    Returns (forward graph, backward graph, number of residuals). The forward returns its
    outputs and state updates, then the residuals the backward reads.
    """
    backward_ids = {v.id for v in dout_vars}
    fwd_nodes, bwd_nodes = [], []
    for node in graph.nodes:
        if any(v.id in backward_ids for v in node.inputs):
            bwd_nodes.append(node)
            backward_ids.update(o.id for o in node.outputs)
        else:
            fwd_nodes.append(node)
    zeros_like = {}
    grad_outputs = []
    for g, x in zip(grad_vars, graph.inputs):
        if g is None:
            g = zeros_like.setdefault(x.id, Var(x.shape, x.dtype, const=np.zeros(x.shape, x.dtype)))
        grad_outputs.append(g)
    residuals, seen = [], set()
    for v in [v for n in bwd_nodes for v in n.inputs] + grad_outputs:
        if v.const is None and v.id not in backward_ids and v.id not in seen:
            seen.add(v.id)
            residuals.append(v)
    n_primal_inputs = len(graph.inputs) - len(dout_vars)
    fwd = Graph(graph.name + "_forward")
    fwd.inputs = graph.inputs[:n_primal_inputs]
    fwd.nodes = fwd_nodes
    fwd.outputs = graph.outputs[:n_forward_outputs] + residuals
    bwd = Graph(graph.name + "_backward")
    bwd.inputs = residuals + list(dout_vars)
    bwd.nodes = bwd_nodes
    bwd.outputs = grad_outputs
    return fwd, bwd, len(residuals)
