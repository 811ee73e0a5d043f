"""Print as a graph operation: runs when the graph runs, in program order.

While a Graph-mode function is traced, `print(...)` inside it becomes this primitive (see
fallback.side_effects.graph_print), so printed tensors show their runtime values on every
call instead of breaking the graph or being skipped when the compiled program replays.
"""
from __future__ import annotations
from typing import Any
import numpy as np

from ..context.device import to_host
from ..core.tensor import Tensor
from .batching import to_front
from .primitive import Aval, Primitive


def _print_impl(xp, *arrays, template, sep, end):
    values = iter(arrays)
    parts = [str(to_host(next(values))) if item is None else item for item in template]
    print(*parts, sep=sep, end=end, flush=True)
    return xp.zeros((), np.bool_)


def _print_batch(prim, args, dims, axis_size, **attrs):
    """Under vmap a printed tensor shows every lane: its batch axis first."""
    return prim(*(to_front(a, d) for a, d in zip(args, dims)), **attrs), None


print_p = Primitive("print", infer=lambda *avals, template, sep, end: Aval((), np.dtype(np.bool_)),
                    impl=_print_impl, effect=True, host_io=True,
                    bprop=lambda *args, template, sep, end: (None,) * (len(args) - 2),
                    batch=_print_batch,
                    doc="print the template, tensors (the positional inputs) where it holds None")


def print_values(*objects: Any, sep: str = " ", end: str = "\n") -> None:
    """Print objects; tensors are printed with their values when the graph runs."""
    template = tuple(None if isinstance(o, Tensor) else str(o) for o in objects)
    tensors = [o for o in objects if isinstance(o, Tensor)]
    print_p(*tensors, template=template, sep=sep, end=end)
