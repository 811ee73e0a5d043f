"""Graph mode's pipeline, in one place: trace -> passes -> fusion -> codegen -> executable.

    traced = trace(fn, args, kwargs, name)      # compiler.trace: the function as a Graph
    exe = executable(traced)                    # passes, fusion, codegen: a Program
    outputs = exe(input_tensors)                # run; state written back after success

`compile_traced` is the middle for one graph (graph loops and the segments of a function
that broke use it directly). The JIT front end (graph_mode.jit_function) adds the cache, its guards
and the fallback around these.
"""
import os

from ..context import config
from . import codegen, passes
from .executable import Executable, VjpExecutable
from .fuse import partition
from .trace import split_forward_backward


def executable(traced):
    """The Executable of a Traced forward (its state updates may reuse their buffers)."""
    return Executable(traced, compile_traced(traced.graph, traced.state_buffers()))


def vjp_executable(traced, grad_vars, dout_vars):
    """The VjpExecutable of a forward traced with its backward: the joint graph split into a
    compiled forward that also returns the residuals, and a compiled backward."""
    forward, backward, _ = split_forward_backward(
        traced.graph, traced.n_outputs + len(traced.updated), grad_vars, dout_vars)
    return VjpExecutable(traced, compile_traced(forward), compile_traced(backward))


def compile_traced(graph, donatable=()):
    """passes -> fusion -> codegen: a runnable Program for a traced graph (dumped to files
    when the context's save_graphs is on).

    donatable: (input position, output position) pairs of a state tensor's current value and
    its update, which the program may compute into the current value's buffer."""
    dump = config.get_context("save_graphs")
    if dump:
        _dump(graph, "before")
    target = codegen.backend()
    graph = passes.optimize(graph, target is not None and target.half_precision)
    items = partition(graph, target.fuse_reductions, target.half_precision) \
        if target is not None else graph.nodes
    program, kernel_source = codegen.lower(graph, items, target, _donations(graph, donatable))
    if dump:
        _dump(graph, "after", kernel_source)
    return program


def _donations(graph, donatable):
    """(input Var, output Var) of each donatable update of the current value's shape and
    dtype (which step may write it in place is the Program's to decide)."""
    donations = []
    for i, o in donatable:
        current, update = graph.inputs[i], graph.outputs[o]
        if current.shape == update.shape and current.dtype == update.dtype:
            donations.append((current, update))
    return donations


_dump_counter = [0]


def _dump(graph, stage, kernel_source=None):
    path = config.get_context("save_graphs_path")
    os.makedirs(path, exist_ok=True)
    if stage == "before":
        _dump_counter[0] += 1
    stem = os.path.join(path, f"{_dump_counter[0]:03d}_{graph.name}_{stage}")
    with open(stem + ".ir", "w") as f:
        f.write(graph.to_text() + "\n")
    with open(stem + ".dot", "w") as f:
        f.write(graph.to_dot() + "\n")
    if kernel_source:
        with open(stem + "_kernels.py", "w") as f:
            f.write(kernel_source)
