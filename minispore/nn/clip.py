"""nn.ClipByNorm: a tensor scaled down so that its L2 norm (along `axis`) is at most clip_norm.

    >>> import minispore as ms
    >>> clip = ms.nn.ClipByNorm()
    >>> clip(ms.Tensor([3.0, 4.0]), ms.Tensor(1.0)).asnumpy().tolist()
    [0.6000000238418579, 0.800000011920929]
"""
from __future__ import annotations
from typing import Optional
from ..core.dtype import float32
from ..ops import functional as F
from .cell import Cell
from ..core.hints import Axis, Tensor, TensorLike


class ClipByNorm(Cell):
    """`x * clip_norm / max(||x||, clip_norm)` in float32, ||x|| the L2 norm over `axis` (all
    axes for None), kept as size-1 axes so that each slice is clipped on its own. A zero
    slice stays zero with a finite gradient (MindSpore's safe square root).
    """

    def __init__(self, axis: Optional[Axis] = None) -> None:
        super().__init__()
        if axis is not None and not isinstance(axis, (int, tuple, list)):
            raise TypeError(f"ClipByNorm: axis must be None, an int or a tuple of ints, "
                            f"got {axis!r}")
        self.axis = tuple(axis) if isinstance(axis, list) else axis

    def construct(self, x: Tensor, clip_norm: TensorLike) -> Tensor:
        square_sum = F.cast(F.sum(F.mul(x, x), self.axis, keep_dims=True), float32)
        positive = F.greater(square_sum, 0.0)
        safe = F.where(positive, square_sum, F.ones_like(square_sum))
        norm = F.where(positive, F.sqrt(safe), square_sum)
        clip_norm = F.cast(clip_norm, float32)
        return F.div(F.mul(F.cast(x, float32), clip_norm), F.maximum(norm, clip_norm))
