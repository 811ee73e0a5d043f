"""The one backward engine: toposort, rule lookup, accumulation.

It runs under whatever interpreter is current, so the same walk computes gradients eagerly
(PyNative), emits backward nodes into the graph being traced (Graph mode), and, when an
enclosing transform is recording, records itself for higher-order gradients.
"""
from ..core.tensor import Tensor
from ..ops import array
from ..ops import functional as F

# the rule of a selection x[index]: its gradient is summed per tensor (see _Selections)
_GETITEM_RULE = array.getitem.bprop


def _reverse_topological(roots, target_ids):
    """(nodes that lead from `roots` to a target, outputs before inputs; a predicate saying
    whether a tensor's gradient is needed: it is a target or its producer reaches one).

    A target's own producer is not expanded: differentiation stops at the watched tensor.
    """
    order, state = [], {}  # state: id(node) -> bool (reaches a target), set once finished

    def reaches(t):
        return id(t) in target_ids or (t._node is not None and state.get(id(t._node), False))

    for root in roots:
        if root._node is None or id(root) in target_ids:
            continue
        stack = [(root._node, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in state and not expanded:
                continue
            if expanded:
                state[id(node)] = any(reaches(t) for t in node.inputs)
                if state[id(node)]:
                    order.append(node)
                continue
            state[id(node)] = False  # visiting (cycles cannot happen in a tape)
            stack.append((node, True))
            for t in node.inputs:
                if t._node is not None and id(t) not in target_ids and id(t._node) not in state:
                    stack.append((t._node, False))
    order.reverse()
    return order, reaches


def backward(roots, sens, targets, free=True):
    """Gradients of `sum(roots * sens)` with respect to each target (None where unreachable).

    free: drop each node's saved tensors once used (not when an enclosing transform needs the
    graph again for a higher-order gradient).
    """
    target_ids = {id(t) for t in targets}
    grads = {}
    for r, s in zip(roots, sens):
        _accumulate(grads, r, s)
    order, needs_grad = _reverse_topological(roots, target_ids)
    for node in order:
        douts = [_total(grads.pop(id(o), None)) for o in node.outputs]
        if all(d is None for d in douts) or node.rule is None:
            continue
        if node.rule is _GETITEM_RULE:
            x = node.inputs[0]
            if x._node is not None or id(x) in target_ids:
                _accumulate_selection(grads, x, douts[0], node.inputs[1:], node.attrs["index"])
            if free:
                node.inputs = node.outputs = ()
            continue
        if node.multiple_results:
            douts = tuple(F.zeros_like(o) if d is None else d for o, d in zip(node.outputs, douts))
            out, dout = tuple(node.outputs), douts
        else:
            out, dout = node.outputs[0], douts[0]
        if node.takes_needed:
            needed = tuple(needs_grad(t) for t in node.inputs)
            dins = node.rule(*node.inputs, out, dout, needed=needed, **(node.attrs or {}))
        elif node.attrs:
            dins = node.rule(*node.inputs, out, dout, **node.attrs)
        else:
            dins = node.rule(*node.inputs, out, dout)
        if len(dins) != len(node.inputs):
            raise RuntimeError(f"bprop of {node.name} returned {len(dins)} gradients for "
                               f"{len(node.inputs)} inputs")
        for x, dx in zip(node.inputs, dins):
            if dx is not None and (x._node is not None or id(x) in target_ids):
                if tuple(dx.shape) != tuple(x.shape):
                    raise RuntimeError(f"bprop of {node.name} gave a gradient of shape "
                                       f"{tuple(dx.shape)} for an input of shape {tuple(x.shape)}")
                _accumulate(grads, x, dx)
        if free:  # drop saved tensors, and the node <-> output cycle the GC would have to find
            node.inputs = node.outputs = ()
    return [_total(grads.get(id(t))) for t in targets]


class _Selections:
    """A tensor's gradient while selections of it (x[index]) contribute: the dense part (a
    Tensor or None) and each selection's gradient with its index, summed by `_total` into one
    buffer with one index_add_many when the gradient is read. So k selections of x cost one
    buffer of x's size, not k zero-filled ones (an LSTM's `xp[t]` over t, `g[:, a:b]`)."""

    __slots__ = ("x", "dense", "values", "specs", "tensors")

    def __init__(self, x, dense):
        self.x, self.dense = x, dense
        self.values, self.specs, self.tensors = [], [], []


def _accumulate_selection(grads, x, dx, tensors, spec):
    dx = _as_gradient(x, dx)
    prev = grads.get(id(x))
    if not isinstance(prev, _Selections):
        prev = grads[id(x)] = _Selections(x, prev)
    # this selection's index tensors go after those already collected
    offset = len(prev.tensors)
    prev.specs.append(tuple(("tensor", item[1] + offset) if item[0] == "tensor" else item
                            for item in spec))
    prev.tensors.extend(tensors)
    prev.values.append(dx)


def _total(grad):
    """A gradient as a Tensor (None stays None)."""
    if not isinstance(grad, _Selections):
        return grad
    x = grad.x
    base = grad.dense if grad.dense is not None else F.zeros((), x.dtype)
    return array.index_add_many(base, *grad.values, *grad.tensors, index=tuple(grad.specs),
                                shape=tuple(x.shape))


def _as_gradient(x, dx):
    if not isinstance(dx, Tensor):
        return F.fill_like(x, dx)
    if dx.dtype != x.dtype and x.dtype.is_float:
        return F.cast(dx, x.dtype)
    return dx


def _accumulate(grads, x, dx):
    dx = _as_gradient(x, dx)
    prev = grads.get(id(x))
    if isinstance(prev, _Selections):
        prev.dense = dx if prev.dense is None else F.add(prev.dense, dx)
    else:
        grads[id(x)] = dx if prev is None else F.add(prev, dx)
