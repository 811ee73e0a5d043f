"""The run-time helpers that code rewritten by fallback.convert calls.

`__minispore_if__`, `__minispore_while__`, `__minispore_for_range__`, `__minispore_and__`, ...
(HELPERS, put in the function's globals) run each converted construct. Python values (and
concrete tensors) take the Python path, unchanged: loops over Python conditions unroll while
tracing. A symbolic tensor condition makes an `if` trace both branches and select each
variable (ops.select), and a loop one `while_loop` node (compiler.graph_loop). Branches that
disagree in shape or dtype raise BranchMismatchError naming the line and the variable; a
variable assigned in only one branch is `Undefined` after the `if` (using it raises).
What cannot be a graph loop runs in Python, its tensor condition read on the host (a graph
break) with the reason.
"""
import builtins

import numpy as np

from ..compiler import graph_loop
from ..compiler.graph_loop import needs_graph
from ..compiler.loop_spec import CannotConvert, ControlFlowError
from ..context.interpreter import STATE
from ..core.tensor import Tensor, host_value, is_symbolic
from ..ops import functional as F
from .speculation import speculate


class Undefined:
    """The value of a variable that has none at this point of converted code (assigned in only
    one branch of an `if` on a tensor, or only inside a loop that ran no iteration): using it
    raises UnboundLocalError with the reason, as Python would have raised NameError."""

    __slots__ = ("reason",)

    def __init__(self, reason):
        self.reason = reason

    def __repr__(self):
        return "<undefined>"

    def _fail(self, *args, **kwargs):
        raise UnboundLocalError(self.reason)

    __getattr__ = _fail


for _op in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
            "rfloordiv", "mod", "rmod", "pow", "rpow", "matmul", "rmatmul", "neg", "pos", "abs",
            "invert", "lt", "le", "gt", "ge", "and", "rand", "or", "ror", "xor", "rxor", "bool",
            "len", "iter", "getitem", "call", "float", "int", "index", "array", "contains",
            "hash"):  # (hash: returned from a jitted function, it is hashed as a static output)
    setattr(Undefined, f"__{_op}__", Undefined._fail)


def undefined(name):
    """A variable's value before the converted construct when it has none yet."""
    return Undefined(f"local variable {name!r} referenced before assignment")


class BranchMismatchError(ControlFlowError):
    """The two branches of a tensor-conditioned `if` give a variable different types."""


def _tracer():
    return STATE.trace_stack[-1] if STATE.trace_stack else None


def if_stmt(cond, true_fn, false_fn, values, line, names):
    """Run an `if`: in Python for Python/known conditions, as a select for symbolic ones."""
    tracer = _tracer()
    if not _symbolic_unknown(cond, tracer):
        return true_fn(*values) if cond else false_fn(*values)
    mark = tracer.checkpoint()
    traced, outs = speculate(lambda: (true_fn(*values), false_fn(*values)))
    if not traced:  # a function a branch calls changes Python state: run only the branch taken
        tracer.rollback(mark)
        reason = f"control flow: an `if` on a tensor stays in Python because of {outs}, so " \
                 f"the tensor is read on the host"
        return true_fn(*values) if _host_truth(cond, reason) else false_fn(*values)
    t_out, f_out = outs
    if tracer.effects_since(mark):
        tracer.rollback(mark)  # effects cannot run on both paths: decide on the host
        return true_fn(*values) if cond else false_fn(*values)
    merged = []
    for a, b, name in zip(t_out, f_out, names):
        m = _merge(cond, a, b, _where(true_fn, line), name)
        if m is _CANNOT:
            tracer.rollback(mark)
            return true_fn(*values) if cond else false_fn(*values)
        merged.append(m)
    return tuple(merged)


_CANNOT = object()


def _symbolic_unknown(cond, tracer):
    return (tracer is not None and isinstance(cond, Tensor) and is_symbolic(cond._data)
            and not tracer.knows(cond._data))


def _is_number(x):
    return isinstance(x, (bool, int, float)) and not isinstance(x, Tensor)


def _merge(cond, a, b, where, name):
    if a is b:
        return a
    if isinstance(a, Undefined) or isinstance(b, Undefined):
        return Undefined(f"{where}{name!r} is assigned in only one branch of an `if` on a "
                         f"tensor, so it has no value after it; give it one before the `if`")
    if _is_number(a) and _is_number(b):
        if type(a) is type(b) and a == b:
            return a
        a, b = F.promote(a, b)  # numbers that differ between branches become tensors
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        a_t = a if isinstance(a, Tensor) else Tensor(a, b.dtype)
        b_t = b if isinstance(b, Tensor) else Tensor(b, a_t.dtype)
        if a_t.shape != b_t.shape or a_t.dtype != b_t.dtype:
            raise BranchMismatchError(
                f"{where}the branches of an if on a tensor give {name!r} different types: "
                f"{a_t.dtype}{list(a_t.shape)} and {b_t.dtype}{list(b_t.shape)}")
        c = cond if cond.dtype.kind == "b" else F.not_equal(cond, 0)
        if c.size != 1:
            raise BranchMismatchError(f"{where}an if condition must have one element, got "
                                      f"shape {list(c.shape)}")
        return F.select(F.reshape(c, ()), a_t, b_t)
    try:
        same = a == b
    except Exception:  # noqa: BLE001  (an object that refuses == differs)
        return _CANNOT
    return a if isinstance(same, bool) and same else _CANNOT


def _where(fn, line):
    return f"{fn.__code__.co_filename}:{line}: "


def while_stmt(cond_fn, body_fn, values, line, names):
    """Run a `while` loop: in Python while its condition is a Python value, then (symbolic
    condition) as a graph loop, or in Python with a graph break per test if it cannot be one."""
    where = _where(body_fn, line)[:-2]

    def host_truth(cond, why):
        return _host_truth(cond, why and _loop_reason("while", why))

    return graph_loop.run_while(_checked(cond_fn), _checked(body_fn), values, where, names,
                                  Undefined, host_truth)


def _checked(fn):
    """fn that, while a graph loop traces it (once for all iterations), must not change Python
    state: a function it calls that would makes the loop run in Python (CannotConvert)."""
    def on_values(*values):
        tracer = _tracer()
        if not hasattr(tracer, "outer_tensors"):  # (a LoopTracer's): run as Python, for real
            return fn(*values)
        traced, out = speculate(fn, *values)
        if not traced:
            raise CannotConvert(f"of {out}")
        return out
    return on_values


def for_range_stmt(range_fn, args, body_fn, values, line, names, target, brk):
    """Run `for <target> in range(*args)`: a graph loop with a counter when an argument is a
    symbolic tensor, or when the loop's break flag becomes one; otherwise Python's loop."""
    where = _where(body_fn, line)[:-2]
    body_fn = _checked(body_fn)
    values, reason = list(values), None
    if range_fn is builtins.range and any(needs_graph(a) for a in args):
        try:
            return _range_loop(_range_triple(args), body_fn, values, where, names, target, brk)
        except CannotConvert as e:
            reason = _loop_reason("for", e.reason)
        args = [_host_index(a, reason) for a in args]
    indices = range_fn(*args)
    for idx in indices:
        if brk is not None:
            flag = values[brk]
            if reason is None and range_fn is builtins.range and needs_graph(flag):
                try:
                    rest = (idx, indices.stop, indices.step)
                    return _range_loop(rest, body_fn, values, where, names, target, brk)
                except CannotConvert as e:
                    reason = _loop_reason("for", e.reason)
            if _host_truth(flag, reason):
                break
        values[target] = idx
        values = list(body_fn(*values))
    return tuple(values)


def _range_triple(args):
    if len(args) == 1:
        return 0, args[0], 1
    return (args[0], args[1], 1) if len(args) == 2 else tuple(args)


def _range_loop(triple, body_fn, values, where, names, target, brk):
    """The rest of a range loop as a while loop over (counter, *values)."""
    start, stop, step = triple
    if needs_graph(step):
        raise CannotConvert("its range() step is a tensor (give it a Python int)")
    step = int(step)
    if step == 0:
        raise ValueError(f"{where}: range() arg 3 must not be zero")
    bounds = [_range_bound(b, where) for b in (start, stop)]
    dtypes = [b._data.dtype for b in bounds if isinstance(b, Tensor)]
    dtype = np.result_type(*dtypes) if dtypes else np.dtype(np.int64)
    counter = F.cast(bounds[0] if isinstance(bounds[0], Tensor) else Tensor(bounds[0], dtype), dtype)
    stop = bounds[1]
    values = list(values)
    if isinstance(values[target], Undefined):
        values[target] = counter

    def cond(i, *vals):
        going = i < stop if step > 0 else i > stop
        return going if brk is None else and_(no_jump(vals[brk]), lambda: going)

    def body(i, *vals):
        vals = list(vals)
        vals[target] = i
        return (i + step,) + tuple(body_fn(*vals))

    out = graph_loop.graph_loop(cond, body, [counter] + values, where,
                                  ("range counter",) + tuple(names), Undefined)
    return tuple(out[1:])


def _range_bound(b, where):
    if not isinstance(b, Tensor):
        return int(b)
    if b._data.dtype.kind not in "iu" or b.size != 1:
        raise TypeError(f"{where}: range() takes integer tensors of one element, got "
                        f"{b.dtype}{list(b.shape)}")
    return F.reshape(b, ())


def _loop_reason(kind, why):
    what = "a `while` loop on a tensor" if kind == "while" else "a `for` loop over range(tensor)"
    return (f"control flow: {what} stays in Python because {why}, so its tensor condition is "
            f"read on the host at every iteration")


def _host_truth(cond, reason):
    """bool(cond); a symbolic tensor is read on the host (a graph break) with `reason`."""
    if reason is None or not isinstance(cond, Tensor) or not is_symbolic(cond._data):
        return bool(cond)
    a = host_value(cond, reason)
    if a.size != 1:
        raise ValueError(f"The truth value of a tensor with {a.size} elements is ambiguous; "
                         f"use .any() or .all()")
    return bool(a.reshape(()))


def host_test(test, reason):
    """An unconverted construct's condition, read on the host with its reason if symbolic."""
    if isinstance(test, Tensor) and is_symbolic(test._data):
        return _host_truth(test, reason)
    return test


def _host_index(x, reason):
    if isinstance(x, Tensor) and is_symbolic(x._data):
        a = host_value(x, reason)
        if a.dtype.kind not in "iu" or a.size != 1:
            raise TypeError(f"only integer tensors of one element can be used as an index, got "
                            f"{x.dtype} {x.shape}")
        return int(a.reshape(()))
    return x


def _as_bool(x):
    if not isinstance(x, Tensor):
        return Tensor(bool(x))
    return x if x._data.dtype.kind == "b" else F.not_equal(x, 0)


def and_(a, b_fn):
    """`a and b`: Python's operator, or logical_and for a symbolic tensor `a`."""
    if needs_graph(a):
        return F.logical_and(_as_bool(a), _as_bool(b_fn()))
    return b_fn() if a else a


def or_(a, b_fn):
    """`a or b`: Python's operator, or logical_or for a symbolic tensor `a`."""
    if needs_graph(a):
        return F.logical_or(_as_bool(a), _as_bool(b_fn()))
    return a if a else b_fn()


def not_(a):
    """`not a`: Python's operator, or logical_not for a symbolic tensor."""
    if needs_graph(a):
        return F.logical_not(_as_bool(a))
    return not a


def no_jump(*flags):
    """True while no break/continue flag is set (a bool tensor once one is symbolic)."""
    out = True
    for f in flags:
        out = and_(out, lambda f=f: not_(f))
    return out


def stopped(flag):
    """True when a break flag is set and known: a Python `for` then stops."""
    return not needs_graph(flag) and bool(flag)


HELPERS = {
    "__minispore_if__": if_stmt, "__minispore_while__": while_stmt,
    "__minispore_for_range__": for_range_stmt, "__minispore_undefined__": undefined,
    "__minispore_and__": and_, "__minispore_or__": or_, "__minispore_not__": not_,
    "__minispore_no_jump__": no_jump, "__minispore_stop__": stopped,
    "__minispore_host_test__": host_test, "__minispore_host_index__": _host_index,
}
