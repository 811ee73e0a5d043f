"""Graph mode: the one driver, trace -> passes -> codegen -> cache.

`compile_traced` is the whole pipeline for one graph; `JitFunction` adds the cache and its
guards; `run_cell_graph` is what `Cell.__call__` does in GRAPH_MODE.

Inside a differentiation transform in PyNative, a jitted function is traced together with
its backward (the one tape engine, run under the tracer), and the joint graph is split into
a forward program, which also returns the residuals, and a backward program; the call is one
node on the eager tape whose rule runs the compiled backward.
"""
import logging
import os

from ..context import config
from ..context.interpreter import STATE, using
from ..fallback import convert, side_effects
from ..fallback.graph_break import BreakNotAllowed
from ..fallback.report import GraphBreakError, report_side_effect
from ..grad import tape
from ..grad.backward import backward
from . import guards, passes
from .dtype import is_float_np
from .codegen import lower
from .ir import Graph, Var, structural_key
from .pytree import flatten, unflatten
from .tensor import Tensor
from .tracer import TracingInterpreter

log = logging.getLogger("minispore.jit")
RECOMPILE_LIMIT = 8


def _is_tensor(x):
    return isinstance(x, Tensor)


# ***** tracing *****

class Traced:
    """A traced function: its graph and how to feed and unpack it."""

    def __init__(self, graph, captured, updated, out_structure, n_outputs):
        self.graph = graph
        self.captured = captured          # tensors read at every run (Parameters...)
        self.updated = updated            # captured tensors written back after a run
        self.out_structure = out_structure
        self.n_outputs = n_outputs        # explicit (flattened) outputs, before state updates


class Segmented:
    """The result of a call that broke into segments (it ran while being traced)."""

    def __init__(self, value, breaks):
        self.value, self.breaks = value, breaks


def trace(fn, args, kwargs, name, with_backward=False, run_segment=None, strict=False):
    """Run fn on symbolic tensors and return a Traced.

    with_backward: also trace the backward; returns (Traced, grad vars, cotangent vars).
    run_segment: allows graph breaks (callable running a segment Graph on arrays); if one
    happened, the call was executed segment by segment and a Segmented is returned.
    """
    leaves, in_structure = flatten((args, kwargs), _is_tensor)
    tracer = TracingInterpreter(name, watch_captured=with_backward)
    tracer.run_segment, tracer.strict = run_segment, strict
    inputs = [tracer.new_input(t.shape, t._data.dtype, source=t) for t in leaves]
    arguments = side_effects.TracedArguments((args, kwargs), unflatten(in_structure, inputs))
    sym_args, sym_kwargs = arguments.args, arguments.kwargs
    saved_recording = STATE.recording
    STATE.recording = 0  # the caller's tape must not see symbolic values
    STATE.trace_stack.append(tracer)
    fn = convert.converted(fn)  # tensor-conditioned ifs become selects
    try:
        with using(tracer), side_effects.graph_print():
            if with_backward:
                with tape.recording():
                    for t in inputs:
                        if is_float_np(t._data.dtype):
                            t._node = tape.Node("input", None, (), (t,))
                    out = fn(*sym_args, **sym_kwargs)
                out_leaves, out_structure = flatten(out, _is_tensor)
                extra_inputs, grads = _trace_backward(tracer, inputs, out_leaves)
            else:
                out = fn(*sym_args, **sym_kwargs)
                out_leaves, out_structure = flatten(out, _is_tensor)
                extra_inputs, grads = [], []
            arguments.check_unchanged(name)
            out_vars = [tracer.var_of(t) for t in out_leaves]
            grad_vars = [None if g is None else tracer.var_of(g) for g in grads]
            if tracer.breaks:
                return _finish_segmented(tracer, out_vars, out_structure)
    except BaseException:
        tracer.restore()
        raise
    finally:
        STATE.trace_stack.pop()
        STATE.recording = saved_recording
    tape.detach(out_leaves)
    captured, updated = tracer.finish(out_vars)
    traced = Traced(tracer.graph, captured, updated, out_structure, len(out_vars))
    if not with_backward:
        return traced
    tracer.graph.inputs += [t._data for t in extra_inputs]
    # tensors first captured by the backward itself get no gradient
    grad_vars += [None] * (len(inputs) + len(captured) - len(grad_vars))
    return traced, grad_vars, [t._data for t in extra_inputs]


def _finish_segmented(tracer, out_vars, out_structure):
    """Run the last segment; write back state (only now: the whole call succeeded)."""
    updated = tracer.state_updates()
    state_vars = [d if isinstance(d, Var) else tracer.const(d) for _, d in updated]
    seg = tracer.cut_segment(f"{tracer.graph.name}_segment{len(tracer.breaks)}", out_vars + state_vars)
    values = tracer.run_segment(seg, [tracer.known[v.id] for v in seg.inputs])
    known = dict(tracer.known)
    known.update((v.id, a) for v, a in zip(seg.outputs, values))
    tracer.restore()
    _write_back([t for t, _ in updated], [known[v.id] for v in state_vars])
    outs = [Tensor._wrap(known[v.id]) for v in out_vars]
    return Segmented(unflatten(out_structure, outs), list(tracer.breaks))


def _trace_backward(tracer, inputs, out_leaves):
    """Trace the backward of the forward just traced: one symbolic cotangent per float output;
    gradients for every float explicit input and captured tensor."""
    roots = [o for o in out_leaves if o.dtype.is_float and o._node is not None]
    douts = [tracer.new_input(o.shape, o._data.dtype) for o in roots]
    targets = list(inputs) + [t for t, _, _ in tracer.captured.values()]
    grads = backward(roots, douts, targets) if roots else [None] * len(targets)
    return douts, grads


# ***** the pipeline for one graph *****

def compile_traced(graph, donatable=()):
    """passes -> codegen: a runnable Program for a traced graph (dumped if save_graphs).

    donatable: (input position, output position) pairs of a state tensor's current value and
    its update, which the program may compute into the current value's buffer."""
    dump = config.get_context("save_graphs")
    if dump:
        _dump(graph, "before")
    graph = passes.optimize(graph)
    program, kernel_source = lower(graph, _donations(graph, donatable))
    if dump:
        _dump(graph, "after", kernel_source)
    return program


def _donations(graph, donatable):
    """(input Var, output Var, in_place) for each donatable update computed by a primitive
    that can write it into its first input's buffer, that input being the current value."""
    producer = {o.id: node for node in graph.nodes for o in node.outputs}
    donations = []
    for i, o in donatable:
        current, update = graph.inputs[i], graph.outputs[o]
        node = producer.get(update.id)
        if (node is not None and node.prim.in_place is not None and node.inputs[0] is current
                and current.shape == update.shape and current.dtype == update.dtype):
            donations.append((current, update, node.prim.in_place))
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


# ***** executables *****

class Executable:
    """A compiled forward: run it on concrete inputs, write back state, rebuild outputs."""

    def __init__(self, traced, program=None):
        self.traced = traced
        self.program = program or compile_traced(traced.graph, _state_buffers(traced))

    def __call__(self, leaves):
        t = self.traced
        outs = self.program.run([x._data for x in leaves] + [c._data for c in t.captured])
        _write_back(t.updated, outs[t.n_outputs:])
        return unflatten(t.out_structure, [Tensor._wrap(a) for a in outs[:t.n_outputs]])


class VjpExecutable:
    """A compiled forward (returning residuals) and backward, joined by one tape node."""

    def __init__(self, traced, grad_vars, dout_vars):
        self.traced = traced
        n_state = len(traced.updated)
        fwd, bwd, self.n_residuals = _split_forward_backward(
            traced.graph, traced.n_outputs + n_state, grad_vars, dout_vars)
        self.forward = compile_traced(fwd)
        self.backward = compile_traced(bwd)
        self.float_outputs = [is_float_np(v.dtype) for v in traced.graph.outputs[:traced.n_outputs]]
        self.n_grads = len(grad_vars)

    def __call__(self, leaves):
        t = self.traced
        inputs = list(leaves) + list(t.captured)
        outs = self.forward.run([x._data for x in inputs])
        n_explicit, n_state = t.n_outputs, len(t.updated)
        residuals = outs[n_explicit + n_state:]
        _write_back(t.updated, outs[n_explicit:n_explicit + n_state])
        out_tensors = [Tensor._wrap(a) for a in outs[:n_explicit]]
        backward_program, float_outputs = self.backward, self.float_outputs

        def rule(*saved):
            dout = saved[-1] if len(out_tensors) > 1 else (saved[-1],)
            douts = [d._data for d, is_float in zip(dout, float_outputs) if is_float]
            grads = backward_program.run(list(residuals) + douts)
            return tuple(Tensor._wrap(g) if x.dtype.is_float else None for g, x in zip(grads, inputs))

        tape.record_custom(t.graph.name, rule, inputs, out_tensors, len(out_tensors) > 1)
        return unflatten(t.out_structure, out_tensors)


def _state_buffers(traced):
    """(input position, output position) of each captured tensor updated by the graph."""
    first = len(traced.graph.inputs) - len(traced.captured)
    position = {id(t): first + j for j, t in enumerate(traced.captured)}
    return [(position[id(t)], traced.n_outputs + k) for k, t in enumerate(traced.updated)
            if id(t) in position]


def _write_back(tensors, arrays):
    """State updates land only after the whole program succeeded."""
    for tensor, array in zip(tensors, arrays):
        tensor._data = array


def _split_forward_backward(graph, n_forward_outputs, grad_vars, dout_vars):
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
            import numpy as np
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


# ***** jit *****

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
        key = (structure, tuple((x.shape, x._data.dtype) for x in leaves),
               guards.snapshot(self.fn, args), config.context_key(), with_backward)
        exe = self.cache.get(key)
        if exe is None:
            return self._compile(key, args, kwargs, leaves, with_backward)
        if exe is _EAGER:
            return self.fn(*args, **kwargs)
        if exe is _SEGMENTED:
            return self._run_with_python(args, kwargs, leaves)
        return exe(leaves)

    def _compile(self, key, args, kwargs, leaves, with_backward):
        if self.cache:
            reason = guards.explain_change(key, list(self.cache))
            self.recompiles.append(reason)
            log.debug("recompiling %s: %s", self.name, reason)
            if len(self.cache) == RECOMPILE_LIMIT:
                log.warning("%s was compiled %d times (last reason: %s); each variant stays cached",
                            self.name, RECOMPILE_LIMIT, reason)
        watch = side_effects.Watch(self.fn, args, kwargs)
        if with_backward:
            try:
                with watch:
                    traced, grad_vars, dout_vars = trace(self.fn, args, kwargs, self.name, True,
                                                         strict=self.fullgraph)
            except BreakNotAllowed:
                # the function breaks: its gradient is taken eagerly, exactly as PyNative's
                self.cache[key] = _EAGER
                self.runs_python = True
                return self.fn(*args, **kwargs)
            exe = VjpExecutable(traced, grad_vars, dout_vars)
            # Python side effects: this call's already ran (tracing); later calls run eagerly
            if self._side_effects(watch):
                self.cache[key] = _EAGER
            else:
                self.cache[key] = exe
            return exe(leaves)
        with watch:
            result = self._run_segmented(args, kwargs)
        if isinstance(result, Segmented):
            self.cache[key] = _SEGMENTED
            self.breaks = result.breaks
            self.runs_python = True
            return result.value
        if self._side_effects(watch):
            # this call's Python already ran (while tracing); later calls must run it again
            self.cache[key] = _SEGMENTED
            return self._run_traced(result, leaves)
        exe = self.cache[key] = Executable(result)
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

    def _run_segmented(self, args, kwargs):
        return trace(self.fn, args, kwargs, self.name, run_segment=self._run_segment,
                     strict=self.fullgraph)

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


def jit(function=None, *, capture_mode="ast", jit_level=None, dynamic=0, fullgraph=False,
        backend=None, input_signature=None):
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
        from ..nn.cell import Cell
        if isinstance(fn, Cell):
            return JitFunction(type(fn).construct, fullgraph).__get__(fn)
        return JitFunction(fn, fullgraph)
    return wrap(function) if function is not None else wrap


ms_function = jit


def mutable(input_data, dynamic_len=False):
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
