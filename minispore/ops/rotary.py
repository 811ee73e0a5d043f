"""Rotary position embedding (RoPE, Su et al. 2021): positions enter attention as rotations
of the query and key features, an exact composite of elementwise ops and views (so its
gradient is the ops', and Graph mode fuses it)."""
from __future__ import annotations

from . import functional as F
from .arguments import as_tensor, op_error
from .primitive import OpShapeError
from ..core.hints import Tensor

__all__ = ["rotary_position_embedding"]


def rotary_position_embedding(x: Tensor, cos: Tensor, sin: Tensor, mode: int = 0) -> Tensor:
    """x * cos + rotate(x) * sin, cos and sin broadcasting to x (MindSpore's
    RotaryPositionEmbedding). mode 0 rotates halves (GPT-NeoX: rotate(x) = concat(-x2, x1)
    of the two halves of x's last axis), mode 1 neighbouring pairs (GPT-J: (x0, x1) ->
    (-x1, x0)).

        >>> x = ops.ones((1, 1, 1, 4)); c = ops.zeros((1, 1, 1, 4)); s = ops.ones((1, 1, 1, 4))
        >>> ops.rotary_position_embedding(x, c, s, 1).asnumpy().ravel().tolist()
        [-1.0, 1.0, -1.0, 1.0]
    """
    x, cos, sin = as_tensor(x), as_tensor(cos), as_tensor(sin)
    if isinstance(mode, bool) or mode not in (0, 1):
        raise op_error("rotary_position_embedding", (x, cos, sin),
                       f"mode must be 0 (rotate half) or 1 (rotate interleaved), got {mode!r}",
                       ValueError)
    if x.ndim == 0 or x.shape[-1] % 2:
        raise op_error("rotary_position_embedding", (x, cos, sin),
                       f"the last axis of x must have an even size, got {x.shape}", OpShapeError)
    half = x.shape[-1] // 2
    if mode == 0:
        first, second = F.split(x, half, -1)
        rotated = F.concat([F.neg(second), first], -1)
    else:
        pairs = F.reshape(x, tuple(x.shape[:-1]) + (half, 2))
        even, odd = F.split(pairs, 1, -1)
        rotated = F.reshape(F.concat([F.neg(odd), even], -1), x.shape)
    return F.add(F.mul(x, cos), F.mul(rotated, sin))
