"""MaxPool3d, AvgPool3d, adaptive pooling (AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d),
LPPool1d/2d and MaxUnpool1d/2d/3d: Cells over the ops.pool_ext functions.

    >>> import minispore as ms
    >>> ms.nn.AdaptiveAvgPool2d((2, 3))(ms.ops.ones((1, 4, 7, 9))).shape
    (1, 4, 2, 3)
"""
from __future__ import annotations
from typing import Any, Callable, Optional, Sequence, Union
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from ...core.hints import Tensor, ShapeLike


class MaxPool3d(Cell):
    """3-D max pooling of (N, C, D, H, W) inputs (MindSpore's defaults: kernel 1, stride 1,
    'valid'). padding (pad_mode 'pad'): an int, (d, h, w) or 6 values; never the maximum.
    return_indices=True returns (output, argmax): int64 flat positions d * H * W + h * W + w
    of each window's first maximum in its input volume.

        >>> ms.nn.MaxPool3d(2, 2)(ms.ops.ones((1, 1, 4, 4, 4))).shape
        (1, 1, 2, 2, 2)
    """

    def __init__(self, kernel_size: ShapeLike = 1, stride: ShapeLike = 1, pad_mode: str = "valid", padding: ShapeLike = 0, dilation: ShapeLike = 1,
                 ceil_mode: bool = False, return_indices: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.pad_mode = V.one_of(str(pad_mode).lower(), "pad_mode", "MaxPool3d",
                                 ("same", "valid", "pad"))
        self.dilation = dilation
        self.ceil_mode = V.boolean(ceil_mode, "ceil_mode", "MaxPool3d")
        self.return_indices = V.boolean(return_indices, "return_indices", "MaxPool3d")

    def construct(self, x: Tensor) -> Union[Tensor, tuple[Tensor, Tensor]]:
        return F.max_pool3d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices, pad_mode=self.pad_mode)


class AvgPool3d(Cell):
    """3-D average pooling of (N, C, D, H, W) inputs; count_include_pad and divisor_override
    as AvgPool2d.

        >>> ms.nn.AvgPool3d(2, 2)(ms.ops.ones((1, 1, 4, 4, 4))).shape
        (1, 1, 2, 2, 2)
    """

    def __init__(self, kernel_size: ShapeLike = 1, stride: ShapeLike = 1, pad_mode: str = "valid", padding: ShapeLike = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: Any = None) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.pad_mode = V.one_of(str(pad_mode).lower(), "pad_mode", "AvgPool3d",
                                 ("same", "valid", "pad"))
        self.ceil_mode = V.boolean(ceil_mode, "ceil_mode", "AvgPool3d")
        self.count_include_pad = V.boolean(count_include_pad, "count_include_pad", "AvgPool3d")
        self.divisor_override = divisor_override or 0

    def construct(self, x: Tensor) -> Tensor:
        return F.avg_pool3d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override,
                            pad_mode=self.pad_mode)


class _Adaptive(Cell):
    function: Callable[..., Tensor]  # the ops function; each subclass sets it

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return type(self).function(x, self.output_size)

    def extend_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    """Mean over output_size adaptive bins of the last axis of (N, C, L) or (C, L).

        >>> ms.nn.AdaptiveAvgPool1d(3)(ms.ops.ones((1, 2, 7))).shape
        (1, 2, 3)
    """
    function = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_Adaptive):
    """Adaptive mean pooling of the last two axes (None in output_size keeps an axis)."""
    function = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_Adaptive):
    """Adaptive mean pooling of the last three axes."""
    function = staticmethod(F.adaptive_avg_pool3d)


class AdaptiveMaxPool1d(_Adaptive):
    """Maximum over output_size adaptive bins of the last axis."""
    function = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(Cell):
    """Adaptive maximum pooling of the last two axes; return_indices also returns the flat
    int64 position h * W + w of each maximum.

        >>> ms.nn.AdaptiveMaxPool2d(2)(ms.ops.ones((1, 2, 5, 5))).shape
        (1, 2, 2, 2)
    """

    def __init__(self, output_size: ShapeLike, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = V.boolean(return_indices, "return_indices", "AdaptiveMaxPool2d")

    def construct(self, x: Tensor) -> Union[Tensor, tuple[Tensor, Tensor]]:
        return F.adaptive_max_pool2d(x, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(Cell):
    """Adaptive maximum pooling of the last three axes of (N, C, D, H, W) or (C, D, H, W);
    return_indices also returns the flat int64 position d * H * W + h * W + w of each maximum.

        >>> ms.nn.AdaptiveMaxPool3d((2, 2, 2))(ms.ops.ones((1, 2, 4, 5, 6))).shape
        (1, 2, 2, 2, 2)
    """

    def __init__(self, output_size: ShapeLike, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = V.boolean(return_indices, "return_indices", "AdaptiveMaxPool3d")

    def construct(self, x: Tensor) -> Union[Tensor, tuple[Tensor, Tensor]]:
        return F.adaptive_max_pool3d(x, self.output_size, self.return_indices)


class _LPPool(Cell):
    function: Callable[..., Tensor]  # the ops function; each subclass sets it

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = V.number_in(norm_type, "norm_type", type(self).__name__, 0,
                                     float("inf"), low_open=True)
        self.kernel_size, self.stride = kernel_size, stride
        self.ceil_mode = V.boolean(ceil_mode, "ceil_mode", type(self).__name__)

    def construct(self, x):
        return type(self).function(x, self.norm_type, self.kernel_size, self.stride,
                                   self.ceil_mode)


class LPPool1d(_LPPool):
    """Power-average pooling (sum of x^p over each window)^(1/p) along the last axis.

        >>> ms.nn.LPPool1d(2, 2)(ms.ops.ones((1, 1, 4))).shape
        (1, 1, 2)
    """
    function = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPool):
    """Power-average pooling of (N, C, H, W) inputs."""
    function = staticmethod(F.lp_pool2d)


class MaxUnpool2d(Cell):
    """Partial inverse of MaxPool2d(return_indices=True): construct(x, indices) writes each
    value at its argmax position in zeros.

        >>> out, idx = ms.nn.MaxPool2d(2, 2, return_indices=True)(ms.ops.ones((1, 1, 4, 4)))
        >>> ms.nn.MaxUnpool2d(2)(out, idx).shape
        (1, 1, 4, 4)
    """

    def __init__(self, kernel_size: ShapeLike, stride: Optional[ShapeLike] = None, padding: ShapeLike = 0, output_size: Optional[Sequence[int]] = ()) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.output_size = tuple(output_size) if output_size is not None else ()

    def construct(self, x: Tensor, indices: Tensor) -> Tensor:
        return F.max_unpool2d(x, indices, self.kernel_size, self.stride, self.padding,
                              self.output_size or None)


class _MaxUnpool(Cell):
    function: Callable[..., Tensor]  # the ops function; each subclass sets it

    def __init__(self, kernel_size: ShapeLike, stride: Optional[ShapeLike] = None,
                 padding: ShapeLike = 0, output_size: Optional[Sequence[int]] = ()) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.output_size = tuple(output_size) if output_size is not None else ()

    def construct(self, x: Tensor, indices: Tensor) -> Tensor:
        return type(self).function(x, indices, self.kernel_size, self.stride, self.padding,
                                   self.output_size or None)


class MaxUnpool1d(_MaxUnpool):
    """Partial inverse of 1-D max pooling: construct(x, indices) writes each value of (N, C, L)
    or (C, L) at its argmax position along L in zeros of length (L - 1) * stride -
    2 * padding + kernel_size (or output_size).

        >>> import numpy as np
        >>> x, idx = ms.Tensor([[[5.0, 7.0]]]), ms.Tensor(np.array([[[1, 2]]], np.int64))
        >>> ms.nn.MaxUnpool1d(2)(x, idx).tolist()
        [[[0.0, 5.0, 7.0, 0.0]]]
    """
    function = staticmethod(F.max_unpool1d)


class MaxUnpool3d(_MaxUnpool):
    """Partial inverse of MaxPool3d(return_indices=True): each value written at its flat
    argmax position d * H * W + h * W + w in zeros.

        >>> out, idx = ms.nn.MaxPool3d(2, 2, return_indices=True)(ms.ops.ones((1, 1, 4, 4, 4)))
        >>> ms.nn.MaxUnpool3d(2)(out, idx).shape
        (1, 1, 4, 4, 4)
    """
    function = staticmethod(F.max_unpool3d)
