"""ops.pad with MindSpore's modes: 'constant', 'reflect', 'replicate', 'circular'.

Non-constant modes are concatenations of slices of the input (one axis at a time), so their
gradients are those of slicing and concat: every derivative comes from existing primitives.
"""
from __future__ import annotations
from typing import Any, Optional
import numbers

from . import array_functions as A
from . import functional as F
from .arguments import as_tensor, op_error
from ..core.hints import Tensor

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular", "symmetric")


def _pairs(op, x, padding):
    """numpy-style ((before, after) per axis) from MindSpore's flat padding (last axis first)
    or from (before, after) pairs already per axis."""
    padding = tuple(padding)
    if padding and not isinstance(padding[0], numbers.Integral):
        pairs = tuple((int(a), int(b)) for a, b in padding)
        if len(pairs) != x.ndim:
            raise op_error(op, (x,), f"paddings {pairs} need one (before, after) pair per axis")
        return pairs
    if len(padding) % 2 or len(padding) // 2 > x.ndim:
        raise op_error(op, (x,), f"padding {padding} must hold (before, after) pairs for at most "
                       f"{x.ndim} axes, the last axis first")
    pairs = [(int(padding[i]), int(padding[i + 1])) for i in range(0, len(padding), 2)]
    return ((0, 0),) * (x.ndim - len(pairs)) + tuple(pairs[::-1])


def _crop(x, pairs):
    """Negative padding removes rows (MindSpore and PyTorch allow it in every mode)."""
    index = tuple(slice(-min(a, 0), x.shape[i] + min(b, 0)) for i, (a, b) in enumerate(pairs))
    return x[index] if any(min(a, b) < 0 for a, b in pairs) else x


def _edges(x, axis, before, after, mode):
    """The `before` and `after` slabs that a non-constant mode adds along `axis`."""
    n = x.shape[axis]
    take = lambda lo, hi: A.slice_axis(x, axis, lo, hi)
    if mode == "reflect":
        if before >= n or after >= n:
            raise op_error("pad", (x,), f"reflect padding ({before}, {after}) must be smaller "
                           f"than the axis size {n}")
        return (F.flip(take(1, before + 1), (axis,)) if before else None,
                F.flip(take(n - 1 - after, n - 1), (axis,)) if after else None)
    if mode == "symmetric":  # the mirror includes the edge (nn.Pad's SYMMETRIC)
        if before > n or after > n:
            raise op_error("pad", (x,), f"symmetric padding ({before}, {after}) must be at most "
                           f"the axis size {n}")
        return (F.flip(take(0, before), (axis,)) if before else None,
                F.flip(take(n - after, n), (axis,)) if after else None)
    if mode == "replicate":
        shape = lambda k: tuple(k if i == axis else s for i, s in enumerate(x.shape))
        return (A.broadcast_to(take(0, 1), shape(before)) if before else None,
                A.broadcast_to(take(n - 1, n), shape(after)) if after else None)
    if before > n or after > n:
        raise op_error("pad", (x,), f"circular padding ({before}, {after}) must be at most the "
                       f"axis size {n}")
    return (take(n - before, n) if before else None, take(0, after) if after else None)


def pad(input_x: Tensor, padding: Any, mode: str = "constant", value: Optional[float] = None) -> Tensor:
    """input_x padded. padding: MindSpore's flat (left, right, top, bottom, front, back, ...)
    starting from the last axis (negative values crop), or numpy's (before, after) pair per
    axis. mode: 'constant' (with `value`, default 0), 'reflect' (mirror without the edge),
    'replicate' (repeat the edge) or 'circular' (wrap around). Example:

        >>> x = ms.Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
        >>> ops.pad(x, (2, 1), mode='reflect').asnumpy().tolist()
        [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
    """
    x = as_tensor(input_x)
    if mode not in _MODES:
        raise ValueError(f"ops.pad: mode must be one of {_MODES}, got {mode!r}")
    pairs = _pairs("pad", x, padding)
    x = _crop(x, pairs)
    pairs = tuple((max(a, 0), max(b, 0)) for a, b in pairs)
    if value is not None and mode != "constant":
        raise ValueError(f"ops.pad: value is only for mode 'constant', not {mode!r}")
    if mode == "constant":
        return A.pad(x, pairs, 0 if value is None else value) if any(map(any, pairs)) else x
    for axis, (before, after) in enumerate(pairs):
        if before or after:
            lo, hi = _edges(x, axis, before, after, mode)
            x = A.concat([p for p in (lo, x, hi) if p is not None], axis)
    return x
