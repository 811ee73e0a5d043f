"""MindSpore's functional-composition and checking Primitive classes: Partial, HyperMap and
Map (apply a function across sequences), ParallelConcat, Assert and CheckNumerics (which read
their input on the host: a graph break in Graph mode).

    >>> ops.HyperMap(ops.Add())((ms.Tensor(1.0), (ms.Tensor(2.0),)),
    ...                          (ms.Tensor(10.0), (ms.Tensor(20.0),)))[1][0].tolist()
    22.0
"""
import functools
from typing import Any, Callable, Optional

import numpy as np

from ..core.tensor import Tensor, host_value
from . import functional as F
from .classes import PrimitiveClass, simple_class


class _MapBase(PrimitiveClass):
    """Map / HyperMap: `fn` over the elements of equally long sequences; fn given at
    construction (ops) or as the first input."""
    nested = False

    def __init__(self, ops: Optional[Callable[..., Any]] = None, reverse: bool = False) -> None:
        self.ops, self.reverse = ops, reverse

    def __call__(self, *args: Any) -> Any:
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        return self._apply(fn, seqs)

    def _apply(self, fn: Callable[..., Any], seqs: tuple) -> Any:
        if not isinstance(seqs[0], (tuple, list)):
            return fn(*seqs)
        if len({len(s) for s in seqs}) != 1:
            raise ValueError(f"ops.{type(self).__name__}: the sequences differ in length: "
                             f"{[len(s) for s in seqs]}")
        order = range(len(seqs[0]) - 1, -1, -1) if self.reverse else range(len(seqs[0]))
        out = {}
        for i in order:
            items = tuple(s[i] for s in seqs)
            out[i] = (self._apply(fn, items) if self.nested and isinstance(items[0], (tuple, list))
                      else fn(*items))
        result = [out[i] for i in range(len(seqs[0]))]
        return type(seqs[0])(result) if isinstance(seqs[0], list) else tuple(result)


class HyperMap(_MapBase):
    """fn applied to the leaves of nested sequences (tuples and lists, recursively)."""
    nested = True


class Map(_MapBase):
    """fn applied to the elements of sequences, one level deep."""


def _assert(condition: Any, input_data: Any = (), summarize: int = 3) -> None:
    value = host_value(condition, "ops.Assert") if isinstance(condition, Tensor) else condition
    if not np.all(value):
        shown = [np.asarray(host_value(t, "ops.Assert") if isinstance(t, Tensor) else t)
                 .ravel()[:summarize].tolist() for t in input_data]
        raise ValueError(f"ops.Assert: the condition is False; data: {shown}")


def _check_numerics(x: Tensor) -> Tensor:
    if not np.isfinite(np.asarray(host_value(x, "ops.CheckNumerics"))).all():
        raise ValueError("ops.CheckNumerics: the tensor holds NaN or Inf values")
    return x


class Assert(PrimitiveClass):
    """Raise ValueError (showing the first `summarize` values of each input) unless every
    element of condition is True."""

    def __init__(self, summarize: int = 3) -> None:
        self.summarize = summarize

    def __call__(self, condition: Any, input_data: Any = ()) -> None:
        _assert(condition, input_data, self.summarize)


SIMPLE: dict[str, Callable[..., Any]] = {
    "Partial": lambda fn, *args: functools.partial(fn, *args),
    "ParallelConcat": lambda values: F.concat(list(values), 0),
    "CheckNumerics": _check_numerics,
}

__all__ = sorted(set(SIMPLE) | {"HyperMap", "Map", "Assert"})
for _name, _fn in SIMPLE.items():
    globals()[_name] = simple_class(_name, _fn)
