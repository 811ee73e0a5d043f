"""MindSpore 2.x's "Ext" layers: the PyTorch-signature versions of pooling, dropout, log-softmax
and L1 loss that mindspore.mint.nn is made of (mint.nn.AvgPool2d is nn.AvgPool2dExt...).

    >>> ms.nn.AvgPool2dExt(2)(ms.ops.ones((1, 1, 4, 4))).shape
    (1, 1, 2, 2)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from ...core.hints import Tensor
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from ..loss import L1Loss

__all__ = ["AvgPool1dExt", "AvgPool2dExt", "AvgPool3dExt", "MaxPool2dExt", "DropoutExt",
           "Dropout2dExt", "LogSoftmaxExt", "L1LossExt"]

_Size = Union[int, Sequence[int]]


def _unbatched(x: Tensor, rank: int, pool) -> Tensor:
    """pool(x) on a batch of inputs with `rank` spatial axes; an input without the batch axis
    gets one and loses it again."""
    if x.ndim == rank + 1:
        return F.squeeze(pool(F.expand_dims(x, 0)), 0)
    return pool(x)


class _AvgPoolExt(Cell):
    """Average pooling over `_rank` spatial axes with PyTorch's arguments (stride defaults to
    kernel_size); an input without the batch axis is pooled as a batch of one."""
    _rank = 1

    def __init__(self, kernel_size: _Size, stride: Optional[_Size] = None, padding: _Size = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Optional[int] = None) -> None:
        super().__init__()
        owner = type(self).__name__
        self.kernel_size, self.padding = kernel_size, padding
        self.stride = kernel_size if stride is None else stride
        self.ceil_mode = V.boolean(ceil_mode, "ceil_mode", owner)
        self.count_include_pad = V.boolean(count_include_pad, "count_include_pad", owner)
        self.divisor_override = divisor_override or 0

    def _pool(self, x: Tensor) -> Tensor:
        raise NotImplementedError  # each subclass pools its number of axes

    def construct(self, input: Tensor) -> Tensor:
        return _unbatched(input, self._rank, self._pool)


class AvgPool1dExt(_AvgPoolExt):
    """1-D average pooling of (N, C, L) or (C, L) with PyTorch's arguments (stride defaults to
    kernel_size).

        >>> ms.nn.AvgPool1dExt(2)(ms.Tensor([[[1.0, 2.0, 3.0, 4.0]]])).tolist()
        [[[1.5, 3.5]]]
    """
    _rank = 1

    def __init__(self, kernel_size: _Size, stride: Optional[_Size] = None, padding: _Size = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)

    def _pool(self, x: Tensor) -> Tensor:
        return F.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2dExt(_AvgPoolExt):
    """2-D average pooling of (N, C, H, W) or (C, H, W) with PyTorch's arguments.

        >>> ms.nn.AvgPool2dExt(2, divisor_override=1)(ms.ops.ones((1, 1, 2, 2))).tolist()
        [[[[4.0]]]]
    """
    _rank = 2

    def _pool(self, x: Tensor) -> Tensor:
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AvgPool3dExt(_AvgPoolExt):
    """3-D average pooling of (N, C, D, H, W) or (C, D, H, W) with PyTorch's arguments.

        >>> ms.nn.AvgPool3dExt(2)(ms.ops.ones((1, 1, 4, 4, 4))).shape
        (1, 1, 2, 2, 2)
    """
    _rank = 3

    def _pool(self, x: Tensor) -> Tensor:
        return F.avg_pool3d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class MaxPool2dExt(Cell):
    """2-D max pooling of (N, C, H, W) or (C, H, W) with PyTorch's arguments; return_indices
    also returns the flat position h * W + w of each maximum.

        >>> ms.nn.MaxPool2dExt(2)(ms.ops.ones((1, 1, 4, 4))).shape
        (1, 1, 2, 2)
    """

    def __init__(self, kernel_size: _Size, stride: Optional[_Size] = None, padding: _Size = 0,
                 dilation: _Size = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.padding, self.dilation = kernel_size, padding, dilation
        self.stride = kernel_size if stride is None else stride
        self.return_indices = V.boolean(return_indices, "return_indices", "MaxPool2dExt")
        self.ceil_mode = V.boolean(ceil_mode, "ceil_mode", "MaxPool2dExt")

    def construct(self, input: Tensor) -> Union[Tensor, tuple[Tensor, Tensor]]:
        def pool(x: Tensor) -> Any:
            return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                                self.return_indices, self.ceil_mode)
        if input.ndim == 3:
            out = pool(F.expand_dims(input, 0))
            if self.return_indices:
                return F.squeeze(out[0], 0), F.squeeze(out[1], 0)
            return F.squeeze(out, 0)
        return pool(input)


class DropoutExt(Cell):
    """Dropout with PyTorch's arguments: in training mode each element is zeroed with
    probability p and the rest scaled by 1 / (1 - p); inplace writes into the input.

        >>> ms.nn.DropoutExt(0.5)(ms.ops.ones((2, 3))).shape   # a new Cell is in eval mode
        (2, 3)
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.p = V.number_in(p, "p", "DropoutExt", 0.0, 1.0)
        self.inplace = V.boolean(inplace, "inplace", "DropoutExt")

    def construct(self, input: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return input
        out = F.zeros_like(input) if self.p == 1.0 else F.dropout(input, self.p, True)
        return F.assign(input, out) if self.inplace else out


class Dropout2dExt(Cell):
    """Channel dropout of (N, C, H, W) or (C, H, W) with PyTorch's arguments.

        >>> ms.nn.Dropout2dExt(0.5)(ms.ops.ones((2, 3, 4, 4))).shape
        (2, 3, 4, 4)
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.p = V.number_in(p, "p", "Dropout2dExt", 0.0, 1.0)
        self.inplace = V.boolean(inplace, "inplace", "Dropout2dExt")

    def construct(self, input: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return input
        out = F.zeros_like(input) if self.p == 1.0 else F.dropout2d(input, self.p, True)
        return F.assign(input, out) if self.inplace else out


class LogSoftmaxExt(Cell):
    """log(softmax(x)) along `dim` (None: the last axis).

        >>> ms.nn.LogSoftmaxExt(0)(ms.Tensor([0.0, 0.0])).asnumpy().astype(float).round(4).tolist()
        [-0.6931, -0.6931]
    """

    def __init__(self, dim: Optional[int] = None) -> None:
        super().__init__()
        self.dim = -1 if dim is None else int(dim)

    def construct(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)


class L1LossExt(L1Loss):
    """Mean (or sum, or none: `reduction`) absolute difference, PyTorch's nn.L1Loss.

        >>> ms.nn.L1LossExt()(ms.Tensor([1.0, 3.0]), ms.Tensor([2.0, 1.0])).item()
        1.5
    """

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__(reduction)
