"""How a Cell takes part in autodiff: a custom `bprop`, and backward hooks (PyNative).

Both put hand-made nodes on the tape around the cell's `construct`:

* custom bprop: `construct` runs with the tape paused, and one node whose rule calls
  `cell.bprop(*inputs, out, dout)` stands for the whole cell;
* backward hooks: two boundary nodes, one on the outputs (it sees the gradient arriving at
  the cell, `grad_output`) and one on the inputs (it sees the gradient leaving the cell,
  `grad_input`); the backward engine runs the second only after every node inside the cell,
  because they all lie between the two boundaries.
"""
import inspect

from ..context.interpreter import STATE
from ..core.tensor import Tensor
from ..grad import tape
from ..ops import functional as F


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


# ***** custom bprop *****

def check_bprop_arity(cell, n_inputs):
    """Raise a TypeError unless cell.bprop takes the inputs, then out and dout."""
    params = inspect.signature(cell.bprop).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) != n_inputs + 2:
        raise TypeError(f"{type(cell).__name__}.bprop takes {len(positional)} argument(s) besides "
                        f"self; it must take the {n_inputs} input(s) of construct, then out and "
                        f"dout ({n_inputs + 2} in all)")


def run_with_custom_bprop(cell, args, kwargs):
    """Run construct without recording, then record one node whose rule is cell.bprop."""
    if kwargs:
        raise TypeError(f"{type(cell).__name__} defines bprop: pass its inputs positionally "
                        f"(got keyword(s) {sorted(kwargs)})")
    check_bprop_arity(cell, len(args))
    with tape.paused():
        out = cell.construct(*args)
    if not STATE.recording:
        return out
    multiple = isinstance(out, tuple)
    # fresh output tensors: construct may return one of its inputs, whose tape link must stay
    outputs = tuple(Tensor._wrap(o._data) for o in _as_tuple(out))
    tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    name = f"{type(cell).__name__}.bprop"

    def rule(*saved):
        o, dout = saved[-2], saved[-1]
        grads = _as_tuple(cell.bprop(*args, o, dout))
        if len(grads) != len(args):
            raise TypeError(f"{name} returned {len(grads)} gradient(s) for {len(args)} input(s)")
        return tuple(_as_gradient(grads[i], args[i], name) for i in tensor_positions)

    tape.record_custom(name, rule, [args[i] for i in tensor_positions], outputs, multiple)
    return outputs if multiple else outputs[0]


def _as_gradient(g, x, name):
    if g is None or isinstance(g, Tensor):
        return g
    if isinstance(g, (int, float)):
        return F.fill_like(x, g)
    raise TypeError(f"{name} returned a {type(g).__name__} as a gradient; return Tensors")


# ***** backward hooks *****

def run_with_backward_hooks(cell, args, run):
    """`run(args)` between the two boundary nodes that call the cell's backward hooks."""
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    inner_args = list(args)
    for i in positions:
        inner_args[i] = Tensor._wrap(args[i]._data)
    name = type(cell).__name__
    state = {"grad_output": None}

    def input_rule(*saved):
        grad_input = _as_tuple(saved[-1])
        for hook in list(cell._backward_hooks.values()):
            result = hook(cell, grad_input, state["grad_output"])
            if result is not None:
                grad_input = _checked_replacement(result, grad_input, f"{name} backward hook")
        return grad_input

    inputs = [args[i] for i in positions]
    inner_inputs = [inner_args[i] for i in positions]
    tape.record_custom(f"{name}.backward_hook", input_rule, inputs, inner_inputs, True)
    inputs_linked = any(t._node is not None for t in inner_inputs)

    out = run(tuple(inner_args))
    outputs = _as_tuple(out)
    if not all(isinstance(o, Tensor) for o in outputs):
        return out  # non-Tensor outputs: nothing to hook on the way back
    multiple = isinstance(out, tuple)

    def output_rule(*saved):
        grad_output = _as_tuple(saved[-1])
        for hook in list(cell._backward_pre_hooks.values()):
            result = hook(cell, grad_output)
            if result is not None:
                grad_output = _checked_replacement(result, grad_output, f"{name} backward pre-hook")
        state["grad_output"] = grad_output
        if not inputs_linked:  # no input is differentiated: the hooks see no input gradients
            for hook in list(cell._backward_hooks.values()):
                hook(cell, (None,) * len(positions), grad_output)
        return grad_output

    hooked = tuple(Tensor._wrap(o._data) for o in outputs)
    tape.record_custom(f"{name}.backward_pre_hook", output_rule, outputs, hooked, multiple)
    return hooked if multiple else hooked[0]


def _checked_replacement(result, current, who):
    result = _as_tuple(result)
    if len(result) != len(current):
        raise ValueError(f"{who} returned {len(result)} gradient(s), expected {len(current)}")
    return result
