"""A graph loop's condition and body traced into Graphs (a `LoopSpec`), compiled once.

`trace_loop` traces the condition and the body once each into a Graph of their own: inputs
are the carried values, then the *invariants* (tensors the functions read from outside:
Parameters, values computed before the loop), which it returns to pass to the loop node.
Carried values keep one shape and dtype on every iteration, or tracing raises
`LoopCarryError` naming the loop's line and the value; what a graph loop cannot hold (Python
objects it changes, effects on state, host reads) raises `CannotConvert`, and the loop runs
in Python. A LoopSpec compiles its programs on first use: the condition, one step (body then
condition), and for gradients the body split into a forward keeping residuals and a
backward. The primitives that run a loop (ops.control_flow) only call a LoopSpec's methods.
"""
import weakref

import numpy as np

from ..context import device
from ..core.dtype import default_np_dtype
from ..core.ir import Aval, Graph, Node, Var, structural_key
from ..core.tensor import Tensor
from ..grad import tape
from ..grad.backward import backward
from ..grad.vmap import vmap
from ..ops import functional as F
from .pipeline import compile_traced
from .trace import split_forward_backward
from .tracer import HostReadInTrace, TracingInterpreter, tracing


class ControlFlowError(TypeError):
    """A tensor-conditioned `if`/`while` cannot be compiled as written (the message names the
    line and the variable); rewriting it is the fix, so it is not hidden by a graph break."""


class LoopCarryError(ControlFlowError, ValueError):
    """A loop body changes the shape or dtype of a carried value (MindSpore: ValueError)."""


class LoopConditionError(ControlFlowError, ValueError):
    """A loop condition with more than one element (as `bool()` of such a tensor)."""


class CannotConvert(Exception):
    """Internal: this loop cannot be a graph loop (`reason` says why); it runs in Python."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


# ***** the traced loop: a static attribute of the primitives *****

class LoopSpec:
    """The condition and body Graphs of one loop. Both take (carried..., invariants...); the
    condition returns one bool scalar, the body the next carried values. Equal specs (same
    structure) are one object, so each compiles once."""

    def __init__(self, cond, body, n_carries, where, names):
        self.cond, self.body, self.n_carries = cond, body, n_carries
        self.where, self.names = where, names
        self.key = (n_carries, structural_key(cond), structural_key(body))
        self._hash = hash(self.key)
        self._programs = {}

    def __eq__(self, other):
        return isinstance(other, LoopSpec) and self.key == other.key

    def __hash__(self):
        return self._hash

    def __repr__(self):  # part of structural keys of enclosing graphs: no ids
        return f"<loop at {self.where or '?'}, {self.n_carries} carried, #{self._hash & 0xffffffff:08x}>"

    @property
    def input_avals(self):
        return [Aval(v.shape, v.dtype) for v in self.body.inputs]

    def float_inputs(self):
        return [i for i, v in enumerate(self.body.inputs) if v.dtype.kind == "f"]

    def program(self, part):
        """A compiled part of the loop: "cond" (the condition), "step" (the body, then the
        condition on its result as the last output: one program per iteration),
        "forward_step" (the same with the body's residuals before the condition) or
        "backward" (the body's backward, see _split_body)."""
        key = (part, device.xp().__name__)
        if key not in self._programs:
            if part == "cond":
                self._programs[key] = compile_traced(_copy(self.cond))
            elif part == "step":
                self._programs[key] = compile_traced(_then_condition(self, self.body))
            else:
                forward, backward = _split_body(self)
                self._programs[("forward_step", key[1])] = compile_traced(
                    _then_condition(self, forward))
                self._programs[("backward", key[1])] = compile_traced(backward)
        return self._programs[key]

    def batched(self, in_axes, axis_size):
        """The LoopSpec that runs every lane of this loop at once (its vmap rule): all lanes
        loop while any lane's condition holds, and a lane whose condition is false keeps its
        values (JAX's rule). in_axes: 0 for each batched input (carried values always are),
        None for the others."""
        k = self.n_carries
        lane_cond = vmap(lambda *xs: replay(self.cond, xs)[0], in_axes=in_axes)
        lane_body = vmap(lambda *xs: tuple(replay(self.body, xs)), in_axes=in_axes)

        def cond_fn(*xs):
            return F.any(lane_cond(*xs))

        def body_fn(*xs):
            running, new = lane_cond(*xs), lane_body(*xs)
            return tuple(F.where(F.reshape(running, (axis_size,) + (1,) * (n.ndim - 1)), n, old)
                         for n, old in zip(new, xs[:k]))

        avals = [Aval(((axis_size,) if axis == 0 else ()) + tuple(a.shape), a.dtype)
                 for a, axis in zip(self.input_avals, in_axes)]
        spec, read = trace_loop(cond_fn, body_fn, avals[:k], avals[k:], self.where, self.names)
        assert not read  # replayed graphs read nothing from outside
        return spec


_SPECS = weakref.WeakValueDictionary()


def _intern(spec):
    return _SPECS.setdefault(spec.key, spec)


def _copy(graph):
    """A copy with fresh Nodes: passes rewrite nodes in place, the spec keeps its graph."""
    out = Graph(graph.name)
    out.inputs, out.outputs = list(graph.inputs), list(graph.outputs)
    out.nodes = [Node(n.prim, n.inputs, n.attrs, n.outputs, n.loc) for n in graph.nodes]
    return out


# ***** tracing a loop into a LoopSpec *****

def aval_of(t):
    return Aval(tuple(t.shape), np.dtype(t._data.dtype))


def is_number(x):
    return isinstance(x, (bool, int, float, np.bool_, np.number))


def number_dtype(x):
    return np.dtype(x.dtype) if isinstance(x, (np.bool_, np.number)) else default_np_dtype(x)


class LoopTracer(TracingInterpreter):
    """A tracer that also remembers which Tensor objects held values of enclosing traces:
    the loop node must take those very objects, which the tape tracks, not new wrappers."""

    def __init__(self, name):
        super().__init__(name)
        self.outer_tensors = {}  # var id -> Tensor

    def var_of(self, x):
        v = super().var_of(x)
        if isinstance(x, Tensor) and x._data is v and (v.id not in self.outer_tensors
                                                        or x._node is not None):
            self.outer_tensors[v.id] = x
        return v


class FunctionTrace:
    """One function traced on placeholders: its graph, Python outputs and what it read from
    outside (free Vars of enclosing traces, concrete tensors it captured)."""

    def __init__(self, fn, args, placeholder_avals, name):
        tracer = LoopTracer(name)
        with tracing(tracer):
            self.inputs = {i: tracer.new_input(a.shape, a.dtype) for i, a in placeholder_avals.items()}
            call_args = [self.inputs.get(i, a) for i, a in enumerate(args)]
            try:
                self.outputs = fn(*call_args)
            except (ControlFlowError, CannotConvert):
                raise
            except Exception as e:  # noqa: BLE001  (the Python loop reproduces a real error)
                # a host read: the tracer's own error, or the fallback's report of it
                report = e if isinstance(e, HostReadInTrace) else getattr(e, "report", None)
                if hasattr(report, "location"):
                    raise CannotConvert(f"it reads a tensor value on the host "
                                        f"({report.reason} at {report.location})") from None
                raise CannotConvert(f"tracing it raised {type(e).__name__}: {e}") from None
            self.graph = tracer.graph
            self.tracer = tracer
            self.effects = [n for n in tracer.graph.nodes if n.prim.effect]

    def var_of(self, x):
        return self.tracer.var_of(x)

    def free_values(self, out_vars):
        """[(key, outer value, this graph's Var)]: values read from outside, first use first."""
        own = {t._data.id for t in self.inputs.values()}
        own |= {o.id for n in self.graph.nodes for o in n.outputs}
        captured = {var.id: tensor for tensor, var, _ in self.tracer.captured.values()}
        refs, seen = [], set()
        for v in [v for n in self.graph.nodes for v in n.inputs] + list(out_vars):
            if v.const is not None or v.id in own or v.id in seen:
                continue
            seen.add(v.id)
            if v.id in captured:
                refs.append((("tensor", id(captured[v.id])), captured[v.id], v))
            else:
                refs.append((("var", v.id), self.tracer.outer_tensors.get(v.id, v), v))
        return refs


def trace_loop(cond_fn, body_fn, carry_avals, invariant_avals=(), where="", names=None):
    """A LoopSpec for cond_fn/body_fn of (*carried, *invariants) on these avals, and the
    further invariants they read from outside (to pass after the given ones)."""
    k = len(carry_avals)
    avals = dict(enumerate(list(carry_avals) + list(invariant_avals)))
    args = [None] * len(avals)
    body = FunctionTrace(body_fn, args, avals, loop_graph_name(where, "body"))
    outs = body.outputs if isinstance(body.outputs, (tuple, list)) else (body.outputs,)
    names = tuple(names or (f"carried value {i}" for i in range(k)))
    if len(outs) != k:
        raise LoopCarryError(f"{where}: the loop body returns {len(outs)} values for {k} "
                             f"carried values")
    body_out = [_output_var(body, o, carry_avals[i], names[i], where) for i, o in enumerate(outs)]
    cond = FunctionTrace(lambda *xs: _as_condition(cond_fn(*xs), where), args, avals,
                  loop_graph_name(where, "cond"))
    cond_out = [cond.var_of(cond.outputs)]
    for t in (body, cond):
        if t.effects:
            raise CannotConvert(f"its {'body' if t is body else 'condition'} has effects "
                                f"(ops.{t.effects[0].prim.name}): a state write or print in a "
                                f"loop runs in Python, once per iteration")
    refs = {}
    for t, out_vars in ((body, body_out), (cond, cond_out)):
        for key, outer, _ in t.free_values(out_vars):
            refs.setdefault(key, outer)
    graphs = [_closed(t, out_vars, refs, len(avals)) for t, out_vars in ((cond, cond_out), (body, body_out))]
    spec = _intern(LoopSpec(graphs[0], graphs[1], k, where, names))
    return spec, [Tensor._wrap(v) if isinstance(v, Var) else v for v in refs.values()]


def loop_graph_name(where, part):
    line = where.rsplit(":", 1)[-1] if where else ""
    return f"while{line}_{part}" if line.isdigit() else f"while_{part}"


def _closed(trace, out_vars, refs, n_explicit):
    """trace's graph with inputs (explicit..., every ref): a ref it does not read gets an
    unused input of its own."""
    mine = {key: var for key, _, var in trace.free_values(out_vars)}
    graph = Graph(trace.graph.name)
    graph.nodes = list(trace.graph.nodes)
    graph.inputs = [trace.inputs[i]._data for i in range(n_explicit)]
    for key, outer in refs.items():
        graph.inputs.append(mine.get(key) or Var(outer.shape, aval_of(outer).dtype if
                                                 isinstance(outer, Tensor) else outer.dtype))
    graph.outputs = list(out_vars)
    return graph


def _output_var(trace, out, aval, name, where):
    """The Var of a carried value the body returned, checked against the value it took."""
    if is_number(out) and aval.shape == ():
        return Var((), aval.dtype, const=np.asarray(out, aval.dtype))
    if not isinstance(out, Tensor):
        raise CannotConvert(f"its body makes {name!r} a {type(out).__name__}, which a graph loop "
                            f"cannot carry")
    if tuple(out.shape) != tuple(aval.shape) or out._data.dtype != aval.dtype:
        raise LoopCarryError(
            f"{where}: the body of a loop on a tensor changes {name!r} from {aval} to "
            f"{aval_of(out)}; a graph loop carries values of one shape and dtype (give {name!r} "
            f"its final shape and dtype before the loop)")
    return trace.var_of(out)


def _as_condition(c, where):
    """The loop condition as a bool scalar (inside its trace)."""
    if not isinstance(c, Tensor):
        raise CannotConvert(f"its condition is a Python {type(c).__name__} on the loop's values")
    if c.size != 1:
        raise LoopConditionError(f"{where}: the condition of a loop on a tensor has {c.size} "
                                 f"elements; its truth value is ambiguous (use .any() or .all())")
    c = c if c._data.dtype.kind == "b" else F.not_equal(c, 0)
    return F.reshape(c, ())


def replay(graph, inputs):
    """graph's outputs computed by binding each node's primitive on `inputs` (under whatever
    interpreter is current: eager, a tracer, vmap, with the tape recording)."""
    env = {v.id: x for v, x in zip(graph.inputs, inputs)}

    def value(v):
        return v.const if v.const is not None else env[v.id]

    for node in graph.nodes:
        out = node.prim(*[value(v) for v in node.inputs], **node.attrs)
        for v, o in zip(node.outputs, out if node.prim.multiple_results else (out,)):
            env[v.id] = o
    return [value(v) for v in graph.outputs]


def _split_body(loop):
    """(forward, backward) Graphs of the body: forward(carried, invariants) -> (next carried,
    residuals...); backward(residuals..., cotangents of float carried) -> one gradient per
    body input. The body is replayed under a tracer with the tape on, so its backward is the
    one autodiff engine's, as for a compiled jit call."""
    body, k = loop.body, loop.n_carries
    tracer = TracingInterpreter(body.name + "_vjp")
    floats = loop.float_inputs()
    carry_floats = [i for i in floats if i < k]
    with tracing(tracer), tape.recording():
        xs = [tracer.new_input(v.shape, v.dtype) for v in body.inputs]
        douts = [tracer.new_input(body.outputs[i].shape, body.outputs[i].dtype) for i in carry_floats]
        for i in floats:
            xs[i]._node = tape.Node("input", None, (), (xs[i],))
        outs = [o if isinstance(o, Tensor) else Tensor._wrap(tracer.const(o))
                for o in replay(body, xs)]
        grads = backward([outs[i] for i in carry_floats], douts, [xs[i] for i in floats])
        by_input = dict(zip(floats, grads))
        joint = tracer.graph
        joint.inputs = [x._data for x in xs] + [d._data for d in douts]
        joint.outputs = [tracer.var_of(o) for o in outs]
        grad_vars = [None if by_input.get(i) is None else tracer.var_of(by_input[i])
                     for i in range(len(xs))]
    _freeze_captures(tracer)
    fwd, bwd, _ = split_forward_backward(joint, k, grad_vars, [d._data for d in douts])
    return fwd, bwd


def _then_condition(loop, graph):
    """graph (inputs: carried..., invariants...; outputs: next carried..., more...) with one
    more output: the loop condition on the next carried values."""
    k = loop.n_carries
    tracer = TracingInterpreter(graph.name + "_step")
    with tracing(tracer):
        xs = [tracer.new_input(v.shape, v.dtype) for v in graph.inputs]
        outs = replay(graph, xs)
        outs.append(replay(loop.cond, outs[:k] + xs[k:])[0])
        step = tracer.graph
        step.inputs = [x._data for x in xs]
        step.outputs = [tracer.var_of(o) for o in outs]
    _freeze_captures(tracer)
    return step


def _freeze_captures(tracer):
    """Concrete tensors a replay captured (values folded while tracing) become constants: a
    loop's programs take only the loop's own inputs."""
    for _, var, data in tracer.captured.values():
        var.const = device.to_host(data)
