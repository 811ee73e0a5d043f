"""The tape: the backward graph that ops record while a differentiation transform is active.

A recorded op becomes a `Node` whose `rule(*inputs, out, dout)` is the primitive's bprop
(or a Cell's custom bprop, or a compiled function's backward). Tensors point to the node that
produced them (`tensor._node`); a tensor with a node is *tracked*. An op is recorded only when
`STATE.recording` is on (inside grad/value_and_grad/vjp/jvp) and one of its inputs is tracked,
so plain eager code pays one attribute test per op.
"""
import threading
from contextlib import contextmanager

from ..context.interpreter import STATE, set_recorder
from ..core.tensor import Tensor
from ..ops import functional as F


class Node:
    """One recorded op: `rule(*inputs, out, dout) -> grads` and the tensors it links."""

    __slots__ = ("name", "rule", "inputs", "outputs", "multiple_results", "attrs",
                 "takes_needed")

    def __init__(self, name, rule, inputs, outputs, multiple_results=False, attrs=None,
                 takes_needed=False):
        self.name = name
        self.rule = rule              # None for a leaf (a watched tensor)
        self.inputs = inputs          # tuple of Tensors (saved for the rule)
        self.outputs = outputs        # tuple of Tensors produced
        self.multiple_results = multiple_results
        self.attrs = attrs            # keyword attributes passed to the rule (a primitive's)
        self.takes_needed = takes_needed  # the rule takes `needed` (see ops.primitive)

    def __repr__(self):
        return f"<tape node {self.name}>"


def is_tracked(x):
    return isinstance(x, Tensor) and x._node is not None


def record(prim, args, attrs, out):
    """Append a node for `prim` if any input is tracked (`bind` calls it while recording:
    installed as the context's recorder below)."""
    for a in args:
        if isinstance(a, Tensor) and a._node is not None:
            break
    else:
        return
    inputs = args
    for a in args:
        if not isinstance(a, Tensor):  # constants (numpy arrays) become tensors for the rule
            inputs = tuple(a if isinstance(a, Tensor) else _constant(a) for a in args)
            break
    if prim.multiple_results:
        node = Node(prim.name, prim.bprop, inputs, tuple(out), True, attrs,
                    prim.bprop_takes_needed)
        for o in out:
            o._node = node
    else:
        out._node = Node(prim.name, prim.bprop, inputs, (out,), False, attrs,
                         prim.bprop_takes_needed)


def _constant(array):
    """A constant input as a Tensor for a bprop; while tracing, a graph constant (not a
    tensor captured by reference, which would become a graph input)."""
    if STATE.trace_stack:
        return Tensor._wrap(STATE.trace_stack[-1].const(array))
    return Tensor._wrap(array)


def record_custom(name, rule, inputs, outputs, multiple_results):
    """Append a node with a hand-given backward rule (Cell.bprop, compiled functions)."""
    if not STATE.recording or not any(is_tracked(a) for a in inputs):
        return
    node = Node(name, rule, tuple(inputs), tuple(outputs), multiple_results)
    for o in node.outputs:
        o._node = node


def take_place(new, old):
    """`new` gets `old`'s value and replaces it among the outputs of the node that made it
    (how an in-place update rebinds an existing Tensor object on the tape)."""
    new._data, new._node = old._data, old._node
    if old._node is not None:
        old._node.outputs = tuple(new if o is old else o for o in old._node.outputs)


def _identity_rule(x, out, dout):
    return (dout,)


def watch(x):
    """A fresh tracked tensor with x's value, to differentiate with respect to.

    If x is itself tracked by an enclosing transform, the new tensor is linked to it by an
    identity node, so the enclosing transform differentiates through this one (higher order).
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"can only differentiate with respect to Tensors, got {type(x).__name__}")
    w = Tensor._wrap(x._data)
    if x._node is not None:
        w._node = Node("watch", _identity_rule, (x,), (w,))
    else:
        w._node = Node("leaf", None, (), (w,))
    return w


@contextmanager
def watching_parameters(params):
    """Track Parameters (in place: they are shared objects) for the duration of the body.

    The mark is on the shared Parameter itself, so two threads differentiating with respect
    to Parameters would see (and clear) each other's marks: such transforms take turns
    (a re-entrant lock: higher order in one thread nests)."""
    with _PARAMETERS_WATCHED:
        saved = [p._node for p in params]
        for p in params:
            if p._node is None:
                p._node = Node("parameter", None, (), (p,))
        try:
            yield
        finally:
            for p, node in zip(params, saved):
                p._node = node


_PARAMETERS_WATCHED = threading.RLock()


@contextmanager
def recording():
    """Record ops on the tape inside the body (nests: one level per transform)."""
    STATE.recording += 1
    try:
        yield
    finally:
        STATE.recording -= 1


@contextmanager
def paused():
    """Record nothing inside the body (e.g. optimizer updates, stop_gradient regions)."""
    saved, STATE.recording = STATE.recording, 0
    try:
        yield
    finally:
        STATE.recording = saved


def detach(x):
    """Cut x (and tensors nested in tuples/lists/dicts) from the tape, in place."""
    if isinstance(x, Tensor):
        x._node = None
    elif isinstance(x, (tuple, list)):
        for v in x:
            detach(v)
    elif isinstance(x, dict):
        for v in x.values():
            detach(v)
    return x


def _setitem(self, index, value):
    """`tensor[index] = value`. Tensors are values in the IR: the update is functional, then
    this object adopts the result (data and autodiff node), as MindSpore's in-place setitem
    appears to. On the tape, a stand-in takes this object's old place, so the gradient reaches
    what it was computed from. (Ops that read this tensor before the update keep pointing at
    this object: differentiate through a value only after its updates.)"""
    before = Tensor._wrap(self._data)
    take_place(before, self)
    take_place(self, F.setitem(before, index, value))


# installed where the layers below look for them: the recorder `bind` calls while a transform
# is active, and item assignment (it rebinds the tensor's place on the tape)
set_recorder(record)
Tensor.__setitem__ = _setitem
