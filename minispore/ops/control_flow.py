"""Graph control flow: the `while_loop` primitives, a loop whose number of iterations is known
only at run time.

A loop is one `while_loop` node whose attribute is a `LoopSpec` (compiler.loop_spec): the
condition and the body traced once each into a Graph of their own, whose inputs are the
carried values, then the *invariants* (tensors the functions read from outside: Parameters,
values computed before the loop). The impl runs the spec's compiled condition and body
programs until the condition is false. (`ops.while_loop`, which builds such nodes while
tracing, lives with the loop tracing in compiler.graph_loop.)

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
import numpy as np

from . import batching as B
from .primitive import Aval, OpTypeError, Primitive

__all__ = ["while_loop_p", "while_loop_vjp_p"]


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


def _while_batch(prim, args, dims, axis_size, loop):
    """Every carried value gets the batch axis (lanes diverge); invariants keep theirs."""
    k = loop.n_carries
    carries = [B.batched_front(a, d, axis_size) for a, d in zip(args[:k], dims[:k])]
    invariants = [B.to_front(a, d) for a, d in zip(args[k:], dims[k:])]
    in_axes = (0,) * k + tuple(None if d is None else 0 for d in dims[k:])
    return prim(*carries, *invariants, loop=loop.batched(in_axes, axis_size)), (0,) * k


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
    spec = loop.batched((0,) * n, axis_size)
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
