"""Cells around tensor ops: Tril, Triu (the triangle as a call argument) and Roll.

    >>> x = ms.Tensor(np.arange(9.0).reshape(3, 3))
    >>> ms.nn.Tril()(x, 1).asnumpy().tolist()
    [[0.0, 1.0, 0.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]
"""
from __future__ import annotations
from ...ops import functional as F
from ..cell import Cell
from ...core.hints import Axis, ShapeLike, Tensor


class Tril(Cell):
    """The lower triangle of the input's last two axes: elements with column - row <= k."""

    def construct(self, x: Tensor, k: int = 0) -> Tensor:
        return F.tril(x, k)


class Triu(Cell):
    """The upper triangle of the input's last two axes: elements with column - row >= k."""

    def construct(self, x: Tensor, k: int = 0) -> Tensor:
        return F.triu(x, k)


class Roll(Cell):
    """The input's elements shifted cyclically by `shift` along `axis` (ints or sequences)."""

    def __init__(self, shift: ShapeLike, axis: Axis) -> None:
        super().__init__()
        self.shift, self.axis = shift, axis

    def construct(self, input_x: Tensor) -> Tensor:
        return F.roll(input_x, self.shift, self.axis)
