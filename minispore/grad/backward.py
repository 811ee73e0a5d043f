"""The one backward engine: toposort, rule lookup, accumulation.

It runs under whatever interpreter is current, so the same walk computes gradients eagerly
(PyNative), emits backward nodes into the graph being traced (Graph mode), and, when an
enclosing transform is recording, records itself for higher-order gradients.
"""
from ..core.tensor import Tensor
from ..ops import functional as F


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
        douts = [grads.pop(id(o), None) for o in node.outputs]
        if all(d is None for d in douts) or node.rule is None:
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
    return [grads.get(id(t)) for t in targets]


def _accumulate(grads, x, dx):
    if not isinstance(dx, Tensor):
        dx = F.fill_like(x, dx)
    elif dx.dtype != x.dtype and x.dtype.is_float:
        dx = F.cast(dx, x.dtype)
    prev = grads.get(id(x))
    grads[id(x)] = dx if prev is None else F.add(prev, dx)
