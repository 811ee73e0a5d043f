"""Graph control flow: `while_loop`, a loop whose number of iterations is known only at run time.

    >>> import minispore as ms
    >>> @ms.jit
    ... def halve_until_small(x):
    ...     return ms.ops.while_loop(lambda v: v.sum() > 1, lambda v: v / 2, x)
    >>> halve_until_small(ms.Tensor([3.0, 5.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 3.75000000e-01,  6.25000000e-01])

While tracing, the condition and the body are traced once each into a Graph of their own
(a `LoopSpec`, see ops.loop_trace): inputs are the carried values, then the *invariants* (tensors the functions
read from outside: Parameters, values computed before the loop). The loop is one
`while_loop` node; its impl runs the compiled condition and body programs (passes and fused
kernels, compiled once) until the condition is false. Carried values keep one shape and dtype
on every iteration, or tracing raises `LoopCarryError` naming the loop's line and the value.

Gradients: the graph IR has static shapes, so the per-iteration values of a loop cannot be an
output of the forward node. The backward primitive `while_loop_vjp` therefore re-runs the
loop (the body split into a forward that also returns its residuals and a backward, as a
compiled jit call is), keeping each iteration's residuals, then runs the body's backward in
reverse: exactly the arithmetic of PyNative, which unrolls the loop on its tape, at the cost
of a second forward of the loop. Second-order gradients (and jvp, derived from them) through
a graph loop raise an error; PyNative and jit functions under higher-order transforms run the
Python loop instead. vmap runs all lanes in one loop until every lane's condition is false,
each lane's values frozen once its own condition is.
"""
import functools

import numpy as np

from ..runtime.dtype import promote_np
from ..runtime.pytree import flatten, unflatten
from ..runtime.tensor import Tensor, is_symbolic
from . import batching as B
from . import functional as F
from .loop_trace import (
    CannotConvert,
    ControlFlowError,
    FunctionTrace,
    LoopCarryError,
    LoopConditionError,
    LoopSpec,
    aval_of,
    is_number,
    loop_graph_name,
    number_dtype,
    replay,
    trace_loop,
)
from .primitive import Aval, OpTypeError, Primitive, user_frame_summary

__all__ = ["CannotConvert", "ControlFlowError", "LoopCarryError", "LoopConditionError",
           "LoopSpec", "graph_loop", "needs_graph", "replay", "run_while", "trace_loop",
           "while_loop", "while_loop_p", "while_loop_vjp_p"]


# ***** the primitives *****

def _while_infer(*avals, loop):
    expected = loop.input_avals
    if len(avals) != len(expected):
        raise OpTypeError(f"the loop at {loop.where} takes {len(expected)} inputs "
                          f"({loop.n_carries} carried), got {len(avals)}")
    for i, (a, e) in enumerate(zip(avals, expected)):
        if tuple(a.shape) != tuple(e.shape) or np.dtype(a.dtype) != e.dtype:
            what = loop.names[i] if i < len(loop.names) else f"invariant {i - loop.n_carries}"
            raise OpTypeError(f"input {i} ({what}) is {Aval(tuple(a.shape), np.dtype(a.dtype))} but "
                              f"the loop at {loop.where} was traced for {e}")
    return tuple(expected[:loop.n_carries])


def _truth(array):
    return bool(array.reshape(()))


def _check_inputs(arrays, loop):
    """The programs would broadcast wrong shapes silently: refuse them (the eager interpreter
    then reports the shape rule's message)."""
    expected = loop.body.inputs
    if len(arrays) < len(expected) or any(tuple(a.shape) != v.shape or a.dtype != v.dtype
                                          for a, v in zip(arrays, expected)):
        raise ValueError("inputs differ from the loop's traced inputs")


def _while_impl(xp, *arrays, loop):
    _check_inputs(arrays, loop)
    k = loop.n_carries
    carries, invariants = list(arrays[:k]), list(arrays[k:])
    step = loop.program("step")
    going = _truth(loop.program("cond").run(carries + invariants)[0])
    while going:
        outs = step.run(carries + invariants)
        carries, going = outs[:k], _truth(outs[-1])
    return tuple(carries)


def _while_bprop(*args, loop):
    inputs, dout = args[:-2], args[-1]
    floats = loop.float_inputs()
    if not floats:
        return (None,) * len(inputs)
    grads = iter(while_loop_vjp_p(*inputs, *dout, loop=loop))
    return tuple(next(grads) if i in floats else None for i in range(len(inputs)))


def _batched_spec(loop, in_axes, axis_size):
    """The LoopSpec that runs every lane of `loop` at once: all lanes loop while any lane's
    condition holds, and a lane whose condition is false keeps its values (JAX's rule).
    in_axes: 0 for each batched input (carried values always are), None for the others."""
    from ..grad.vmap import vmap
    k = loop.n_carries
    lane_cond = vmap(lambda *xs: replay(loop.cond, xs)[0], in_axes=in_axes)
    lane_body = vmap(lambda *xs: tuple(replay(loop.body, xs)), in_axes=in_axes)

    def cond_fn(*xs):
        return F.any(lane_cond(*xs))

    def body_fn(*xs):
        running, new = lane_cond(*xs), lane_body(*xs)
        return tuple(F.where(F.reshape(running, (axis_size,) + (1,) * (n.ndim - 1)), n, old)
                     for n, old in zip(new, xs[:k]))

    avals = [Aval(((axis_size,) if axis == 0 else ()) + tuple(a.shape), a.dtype)
             for a, axis in zip(loop.input_avals, in_axes)]
    spec, read = trace_loop(cond_fn, body_fn, avals[:k], avals[k:], loop.where, loop.names)
    assert not read  # replayed graphs read nothing from outside
    return spec


def _while_batch(prim, args, dims, axis_size, loop):
    """Every carried value gets the batch axis (lanes diverge); invariants keep theirs."""
    k = loop.n_carries
    carries = [B.batched_front(a, d, axis_size) for a, d in zip(args[:k], dims[:k])]
    invariants = [B.to_front(a, d) for a, d in zip(args[k:], dims[k:])]
    in_axes = (0,) * k + tuple(None if d is None else 0 for d in dims[k:])
    return prim(*carries, *invariants, loop=_batched_spec(loop, in_axes, axis_size)), (0,) * k


while_loop_p = Primitive(
    "while_loop", infer=_while_infer, impl=_while_impl, bprop=_while_bprop,
    batch=_while_batch, multiple_results=True, host_io=True,  # the condition is tested in Python
    doc="carried values after `while cond(*carried, *invariants): carried = body(...)`; "
        "inputs: carried..., invariants...; attribute loop: a LoopSpec")


def _vjp_infer(*avals, loop):
    n = len(loop.body.inputs)
    _while_infer(*avals[:n], loop=loop)
    carried = loop.input_avals[:loop.n_carries]
    for a, e in zip(avals[n:], carried):
        if tuple(a.shape) != tuple(e.shape):
            raise OpTypeError(f"a cotangent of shape {tuple(a.shape)} for a carried value of "
                              f"shape {tuple(e.shape)} (loop at {loop.where})")
    return tuple(loop.input_avals[i] for i in loop.float_inputs())


def _vjp_impl(xp, *arrays, loop):
    _check_inputs(arrays, loop)
    k, n = loop.n_carries, len(loop.body.inputs)
    carries, invariants, douts = list(arrays[:k]), list(arrays[k:n]), arrays[n:]
    step, backward = loop.program("forward_step"), loop.program("backward")
    saved = []  # each iteration's residuals: what PyNative's tape would hold
    going = _truth(loop.program("cond").run(carries + invariants)[0])
    while going:
        outs = step.run(carries + invariants)
        carries, going = outs[:k], _truth(outs[-1])
        saved.append(outs[k:-1])
    floats = loop.float_inputs()
    carry_floats = [i for i in floats if i < k]
    cot = {i: douts[i] for i in carry_floats}
    acc = {i: None for i in floats if i >= k}
    for residuals in reversed(saved):
        grads = backward.run(list(residuals) + [cot[i] for i in carry_floats])
        cot = {i: grads[i] for i in carry_floats}
        acc = {i: grads[i] if a is None else a + grads[i] for i, a in acc.items()}
    return tuple(cot[i] if i < k else (acc[i] if acc[i] is not None else
                                       xp.zeros(arrays[i].shape, arrays[i].dtype))
                 for i in floats)


def _vjp_batch(prim, args, dims, axis_size, loop):
    """The vjp of the batched loop, with every input batched: each lane's gradient of a value
    shared by all lanes is its own."""
    n = len(loop.body.inputs)
    batched = [B.batched_front(a, d, axis_size) for a, d in zip(args, dims)]
    spec = _batched_spec(loop, (0,) * n, axis_size)
    grads = prim(*batched, loop=spec)
    return grads, (0,) * len(grads)


def _vjp_bprop(*args, loop):
    raise OpTypeError(f"ops.while_loop: second-order gradients (and jvp) through the graph loop "
                      f"at {loop.where} are not supported; differentiate it once, or run it in "
                      f"PyNative mode, where the Python loop is unrolled on the tape")


while_loop_vjp_p = Primitive(
    "while_loop_vjp", infer=_vjp_infer, impl=_vjp_impl, bprop=_vjp_bprop, batch=_vjp_batch,
    multiple_results=True, host_io=True,
    doc="gradients of a while_loop for its float inputs; inputs: its inputs, then one "
        "cotangent per carried value (re-runs the loop, then its body's backward in reverse)")


# ***** running a loop: graph loop for symbolic conditions, Python otherwise *****

def needs_graph(cond):
    """True when `cond` has no value now: a symbolic tensor of a trace, or batched by vmap."""
    if not isinstance(cond, Tensor):
        return False
    data = cond._data
    return is_symbolic(data) or isinstance(data, _batched_type())


@functools.cache
def _batched_type():
    from ..grad.vmap import Batched  # (grad.vmap imports ops)
    return Batched


def run_while(cond_fn, body_fn, values, where, names=None, undefined=None, host_truth=None):
    """`while cond_fn(*values): values = body_fn(*values)`; returns the final values.

    Runs in Python while the condition is a Python value (or concrete tensor); once it is
    symbolic, the rest of the loop is one while_loop node (see `graph_loop`). If the loop
    cannot be a graph loop, Python goes on, reading the condition through
    host_truth(cond, reason) (default: bool(), a graph break while tracing)."""
    values = tuple(values)
    reason = None
    while True:
        cond = cond_fn(*values)
        if reason is None and needs_graph(cond):
            try:
                return graph_loop(cond_fn, body_fn, values, where, names, undefined)
            except CannotConvert as e:
                reason = e.reason
        if not (host_truth(cond, reason) if host_truth else cond):
            return values
        values = tuple(body_fn(*values))


def graph_loop(cond_fn, body_fn, values, where, names=None, undefined=None):
    """The loop `while cond_fn(*values): values = body_fn(*values)` as one while_loop node.

    values may mix Tensors (carried), Python numbers (kept as they are while the body leaves
    them unchanged, else carried as 0-d tensors), other Python objects (the body must leave
    them unchanged) and instances of the class `undefined` (variables the body assigns first:
    carried, zeros before the first iteration). Raises CannotConvert or LoopCarryError."""
    names = tuple(names or (f"carried value {i}" for i in range(len(values))))
    kinds = [_initial_kind(v, undefined) for v in values]
    for _ in range(2 * len(values) + 1):  # each variable changes kind at most twice
        placeholders = {i: kind[1] for i, kind in enumerate(kinds) if kind[0] == "carry"}
        trace = FunctionTrace(body_fn, values, placeholders, loop_graph_name(where, "body"))
        outs = tuple(trace.outputs)
        new = [_next_kind(kind, v, o, names[i], undefined, where)
               for i, (kind, v, o) in enumerate(zip(kinds, values, outs))]
        if new == kinds:
            break
        kinds = new
    else:
        raise LoopCarryError(f"{where}: the types of the loop's values do not settle")
    carried = [i for i, kind in enumerate(kinds) if kind[0] == "carry"]

    def pick(fn):
        def on_carried(*xs):
            full = list(values)
            for i, x in zip(carried, xs):
                full[i] = x
            out = fn(*full)
            return tuple(out[i] for i in carried) if fn is body_fn else out
        return on_carried

    spec, invariants = trace_loop(pick(cond_fn), pick(body_fn), [kinds[i][1] for i in carried],
                                  (), where, [names[i] for i in carried])
    init = [_initial_tensor(values[i], kinds[i][1], undefined) for i in carried]
    outs = while_loop_p(*init, *invariants, loop=spec)
    final = list(values)
    for i, o in zip(carried, outs):
        final[i] = o
    return tuple(final)


def _is_undefined(v, undefined):
    return undefined is not None and isinstance(v, undefined)


def _initial_kind(v, undefined):
    if isinstance(v, Tensor):
        return ("carry", aval_of(v), "tensor")
    if _is_undefined(v, undefined):
        return ("pending",)
    return ("static",)


def _next_kind(kind, init, out, name, undefined, where):
    """The kind of a loop variable after one traced iteration (see graph_loop)."""
    if kind[0] == "carry":
        aval, origin = kind[1], kind[2]
        if isinstance(out, Tensor):
            if tuple(out.shape) == aval.shape and (out._data.dtype == aval.dtype or origin == "tensor"):
                return kind  # (a dtype change of a tensor is reported by trace_loop)
            if tuple(out.shape) == aval.shape:
                return ("carry", Aval(aval.shape, np.dtype(out._data.dtype)), origin)
            if origin == "number":
                raise _number_became(name, out, where)
            return kind  # trace_loop reports the shape change
        if is_number(out) and origin != "tensor":
            dtype = promote_np(aval.dtype, number_dtype(out))
            return kind if dtype == aval.dtype else ("carry", Aval(aval.shape, dtype), origin)
        return kind
    if kind[0] == "static":
        if out is init or (is_number(out) and type(out) is type(init) and out == init):
            return kind
        if is_number(init) and isinstance(out, Tensor):
            if out.shape != ():
                raise _number_became(name, out, where)
            return ("carry", aval_of(out), "number")
        if is_number(init) and is_number(out):
            return ("carry", Aval((), promote_np(number_dtype(init), number_dtype(out))), "number")
        raise CannotConvert(f"its body changes {name!r} ({type(init).__name__}), which a graph "
                            f"loop cannot carry")
    if _is_undefined(out, undefined):
        return kind
    if isinstance(out, Tensor):
        return ("carry", aval_of(out), "pending")
    if is_number(out):
        return ("carry", Aval((), number_dtype(out)), "pending")
    raise CannotConvert(f"its body sets {name!r} to a {type(out).__name__}, which a graph loop "
                        f"cannot carry")


def _number_became(name, out, where):
    return LoopCarryError(f"{where}: {name!r} starts as a Python number but the body of the loop "
                          f"on a tensor makes it {aval_of(out)}; give it that shape before the "
                          f"loop (e.g. ops.zeros_like(...))")


def _initial_tensor(v, aval, undefined):
    if isinstance(v, Tensor):
        return v
    if _is_undefined(v, undefined):
        return Tensor(np.zeros(aval.shape, aval.dtype))
    return Tensor(np.asarray(v, aval.dtype))


# ***** the public API *****

def while_loop(cond_func, loop_func, init_val):
    """`while cond_func(val): val = loop_func(val)`, returning the final `val` (MindSpore's
    ops.WhileLoop). In Graph mode, a condition on tensors makes this one graph loop (not
    unrolled); the body must keep the shape and dtype of every tensor in `val` and must not
    write state. In PyNative mode it is the Python loop.

    init_val: a Tensor, number, or tuple/list/dict of them.

    >>> import minispore as ms
    >>> ms.ops.while_loop(lambda v: v[0] < 5, lambda v: (v[0] + 1, v[1] * 2), (0, 1.0))
    (5, 32.0)
    """
    if not callable(cond_func) or not callable(loop_func):
        raise TypeError("ops.while_loop: cond_func and loop_func must be functions")
    leaves, structure = flatten(init_val, lambda x: isinstance(x, Tensor) or is_number(x))
    where = _short_where()

    def unpack(fn):
        def on_leaves(*xs):
            return fn(unflatten(structure, xs))
        return on_leaves

    def body(*xs):
        out_leaves, out_structure = flatten(unpack(loop_func)(*xs),
                                            lambda x: isinstance(x, Tensor) or is_number(x))
        if out_structure != structure:
            raise LoopCarryError(f"{where}: ops.while_loop: loop_func returns a value structured "
                                 f"differently from init_val")
        return tuple(out_leaves)

    return unflatten(structure, run_while(unpack(cond_func), body, leaves, where))


def _short_where():
    summary = user_frame_summary()
    return summary.split(": ", 1)[0] if summary else ""
