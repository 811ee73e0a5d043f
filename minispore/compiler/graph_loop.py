"""Loops in traced code: `ops.while_loop`, and the runner that converted `while`/`for` use.

`run_while` runs a loop in Python while its condition is a Python value (or a concrete
tensor); once the condition is symbolic (a trace, or vmap's batched values), the rest of the
loop becomes one `while_loop` node (`graph_loop`), traced by compiler.loop_spec. Python
values the body changes are carried as 0-d tensors; what a graph loop cannot hold raises
CannotConvert and the loop goes on in Python.
"""
from typing import Any, Callable

import numpy as np

from ..core.dtype import promote_np
from ..core.ir import Aval
from ..core.pytree import flatten, unflatten
from ..core.source import user_frame_summary
from ..core.tensor import Tensor, is_symbolic
from ..grad.vmap import Batched
from ..ops.control_flow import while_loop_p
from .loop_spec import (
    CannotConvert,
    FunctionTrace,
    LoopCarryError,
    aval_of,
    is_number,
    loop_graph_name,
    number_dtype,
    trace_loop,
)


def needs_graph(cond):
    """True when `cond` has no value now: a symbolic tensor of a trace, or batched by vmap."""
    if not isinstance(cond, Tensor):
        return False
    data = cond._data
    return is_symbolic(data) or isinstance(data, Batched)


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

def while_loop(cond_func: Callable[[Any], Any], loop_func: Callable[[Any], Any],
               init_val: Any) -> Any:  # val: Tensors and numbers in tuples, lists, dicts
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
