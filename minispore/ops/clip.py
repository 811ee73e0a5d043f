"""Clipping by value and by norm, of one tensor or a sequence (gradients), MindSpore's formulas.

    >>> import minispore as ms
    >>> grads = (ms.Tensor([3.0, 4.0]), ms.Tensor([0.0]))
    >>> [g.asnumpy().tolist() for g in ms.ops.clip_by_global_norm(grads, 1.0)]
    [[0.6000000238418579, 0.800000011920929], [0.0]]

Composites of existing ops: they differentiate, trace and fuse like any other.
"""
from __future__ import annotations
from typing import Any, Optional, Sequence, Union
import math

from ..core.dtype import float32
from ..core.hints import TensorLike
from ..core.tensor import Tensor
from . import functional as F


def _sequence(x, api):
    """(tensors, was one Tensor)."""
    if isinstance(x, Tensor):
        return [x], True
    if isinstance(x, (tuple, list)) and all(isinstance(t, Tensor) for t in x):
        return list(x), False
    raise TypeError(f"ops.{api}: x must be a Tensor or a tuple/list of Tensors, "
                    f"got {type(x).__name__}")


def _like(tensors, template):
    return type(template)(tensors) if isinstance(template, (tuple, list)) else tensors[0]


def clip_by_value(x: Union[Tensor, Sequence[Tensor]], clip_value_min: Optional[TensorLike] = None,
                  clip_value_max: Optional[TensorLike] = None) -> Any:
    """x (a Tensor, or each Tensor of a tuple/list) limited to [clip_value_min,
    clip_value_max]; either bound may be None.

    >>> ms.ops.clip_by_value(ms.Tensor([-2.0, 0.5, 3.0]), -1.0, 1.0).asnumpy().tolist()
    [-1.0, 0.5, 1.0]
    """
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("ops.clip_by_value: give clip_value_min, clip_value_max or both")
    tensors, _ = _sequence(x, "clip_by_value")
    return _like([F.clip(t, clip_value_min, clip_value_max) for t in tensors], x)


def _square_sum(t):
    if t.itemsize < 4:   # half precision: square in float32, where the squares cannot overflow
        t = F.cast(t, float32)
    return F.sum(F.mul(t, t))


def clip_by_global_norm(x: Sequence[Tensor], clip_norm: float = 1.0,
                        use_norm: None = None) -> Union[tuple[Tensor, ...], list[Tensor]]:
    """Each tensor t of x scaled by clip_norm / max(global_norm, clip_norm), global_norm being
    the L2 norm of all of x's elements together (a tuple/list in, the same out, dtypes kept).

        >>> out = ms.ops.clip_by_global_norm([ms.Tensor([6.0]), ms.Tensor([8.0])], 5.0)
        >>> [float(t) for t in out]
        [3.0, 4.0]
    """
    if use_norm is not None:
        raise ValueError("ops.clip_by_global_norm: use_norm must be None (as in MindSpore)")
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, (int, float)) or clip_norm <= 0:
        raise ValueError(f"ops.clip_by_global_norm: clip_norm must be a number > 0, "
                         f"got {clip_norm!r}")
    if isinstance(x, Tensor):
        raise TypeError("ops.clip_by_global_norm: x must be a tuple or list of Tensors")
    tensors, _ = _sequence(x, "clip_by_global_norm")
    total = F.sqrt(_sum_all([_square_sum(t) for t in tensors]))
    divisor = F.maximum(total, float(clip_norm))
    return _like([F.cast(F.div(F.mul(t, float(clip_norm)), F.cast(divisor, t.dtype)), t.dtype)
                  for t in tensors], x)


def _sum_all(values):
    total = values[0]
    for v in values[1:]:
        total = F.add(total, F.cast(v, total.dtype))
    return total


def clip_by_norm(x: Union[Tensor, Sequence[Tensor]], max_norm: float, norm_type: float = 2.0,
                 error_if_nonfinite: bool = False) -> Any:
    """x (a Tensor or a tuple/list) scaled by max_norm / (total_norm + 1e-6) when that is
    below 1, total_norm being the `norm_type` norm of the tensors' norms (MindSpore's and
    PyTorch's clip_grad_norm_).

    >>> float(ms.ops.clip_by_norm(ms.Tensor([3.0, 4.0]), 1.0).norm())
    0.999999...
    """
    tensors, _ = _sequence(x, "clip_by_norm")
    norm_type = float(norm_type)
    if norm_type == math.inf:
        norms = [F.amax(F.abs(t)) for t in tensors]
        total = norms[0]
        for n in norms[1:]:
            total = F.maximum(total, n)
    else:
        norms = [F.pow(F.sum(F.pow(F.abs(t), norm_type)), 1.0 / norm_type) for t in tensors]
        total = F.pow(_sum_all([F.pow(n, norm_type) for n in norms]), 1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(f"ops.clip_by_norm: the total norm of order {norm_type} is "
                           f"{float(total)}; set error_if_nonfinite=False to clip anyway")
    coefficient = F.minimum(F.div(float(max_norm), F.add(total, 1e-6)), 1.0)
    return _like([F.mul(t, F.cast(coefficient, t.dtype)) for t in tensors], x)
