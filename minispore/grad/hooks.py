"""ops.HookBackward: see (and replace) the gradient flowing back through tensors (PyNative).

    >>> import minispore as ms
    >>> seen = []
    >>> hook = ms.ops.HookBackward(lambda grad: seen.append(grad))
    >>> f = lambda x, y: hook(x * y) * y
    >>> ms.grad(f, (0, 1))(ms.Tensor(1.0), ms.Tensor(2.0))
    (Tensor(shape=[], dtype=Float32, value= 4), Tensor(shape=[], dtype=Float32, value= 4))
    >>> seen
    [(Tensor(shape=[], dtype=Float32, value= 2),)]

The hook runs Python in the middle of the backward pass, which a compiled graph cannot do:
differentiating through a HookBackward while Graph mode (or `ms.jit`) traces raises a clear
error (MindSpore supports HookBackward in PyNative mode only). Without differentiation it is
the identity in both modes.
"""
from typing import Any, Callable, Union

from ..context.interpreter import STATE
from ..core.tensor import Tensor
from . import tape


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


class HookBackward:
    """`HookBackward(hook_fn, cell_id="")(*inputs)` returns its inputs; on the way back,
    `hook_fn(grads)` gets the tuple of their gradients and may return new ones (a tuple, or
    one Tensor for one input) or None to keep them."""

    def __init__(self, hook_fn: Callable[[tuple[Tensor, ...]], Any], cell_id: str = "") -> None:
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: hook_fn must be callable, got {type(hook_fn).__name__}")
        if not isinstance(cell_id, str):
            raise TypeError(f"HookBackward: cell_id must be a str, got {type(cell_id).__name__}")
        self.hook_fn, self.cell_id = hook_fn, cell_id

    def __call__(self, *inputs: Tensor) -> Union[Tensor, tuple[Tensor, ...]]:
        for x in inputs:
            if not isinstance(x, Tensor):
                raise TypeError(f"HookBackward: inputs must be Tensors, got {type(x).__name__}")
        if not inputs:
            raise TypeError("HookBackward: give at least one Tensor")
        if STATE.trace_stack and STATE.recording:
            raise RuntimeError("HookBackward: the hook would run Python inside the backward "
                               "pass, which GRAPH_MODE and ms.jit compile; differentiate "
                               "through it in PyNative mode (as MindSpore requires)")
        outputs = tuple(Tensor._wrap(x._data) for x in inputs)
        multiple = len(inputs) > 1

        def rule(*saved):
            grads = _as_tuple(saved[-1])
            result = self.hook_fn(grads)
            if result is None:
                return grads
            result = _as_tuple(result)
            if len(result) != len(grads) or not all(isinstance(g, Tensor) for g in result):
                raise ValueError(f"HookBackward: hook_fn returned {len(result)} value(s) for "
                                 f"{len(grads)} gradient(s); return a Tensor per input or None")
            return result

        tape.record_custom("HookBackward", rule, list(inputs), outputs, multiple)
        return outputs if multiple else outputs[0]
