"""Convolutions over NCL / NCHW / NCDHW inputs: Conv1d, Conv2d, Conv3d and the transposed
Conv1dTranspose, Conv2dTranspose, Conv3dTranspose, one base class for every rank (the ops
functions with a learnt weight).

    >>> import minispore as ms
    >>> conv = ms.nn.Conv2d(3, 8, kernel_size=3)         # pad_mode='same': H, W kept
    >>> conv(ms.ops.ones((1, 3, 5, 5))).shape
    (1, 8, 5, 5)
    >>> ms.nn.Conv2dTranspose(8, 3, 2, stride=2)(ms.ops.ones((1, 8, 5, 5))).shape
    (1, 3, 10, 10)
"""
from __future__ import annotations
from typing import Any, Callable
import math
import numbers

from ...core.dtype import float32, to_type
from ...core.initializer import HeUniform
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from .basic import default_bias_init, make_weight
from ...core.hints import Tensor, ShapeLike, DTypeLike

_FORMATS = {1: ("NCW", "NCL"), 2: ("NCHW",), 3: ("NCDHW",)}


def _ints(value, rank, name, owner):
    values = (value,) * rank if isinstance(value, numbers.Integral) else tuple(value)
    if len(values) != rank:
        raise ValueError(f"{owner}: {name} must be an int or {rank} ints, got {value!r}")
    return tuple(V.positive_int(v, name, owner) for v in values)


class _Conv(Cell):
    """The shared constructor: validation, weight (and bias) creation, repr."""
    rank = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                 dilation, group, has_bias, weight_init, bias_init, dtype, output_padding=0):
        super().__init__()
        owner, rank = type(self).__name__, self.rank
        self.in_channels = V.positive_int(in_channels, "in_channels", owner)
        self.out_channels = V.positive_int(out_channels, "out_channels", owner)
        self.kernel_size = _ints(kernel_size, rank, "kernel_size", owner)
        self.stride = _ints(stride, rank, "stride", owner)
        self.dilation = _ints(dilation, rank, "dilation", owner)
        self.group = V.positive_int(group, "group", owner)
        self.has_bias = V.boolean(has_bias, "has_bias", owner)
        self.pad_mode = V.one_of(pad_mode.lower() if isinstance(pad_mode, str) else pad_mode,
                                 "pad_mode", owner, ("same", "valid", "pad"))
        if in_channels % group or out_channels % group:
            raise ValueError(f"{owner}: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must both be divisible by group ({group})")
        self.padding = _check_padding(padding, self.pad_mode, rank, owner)
        self.output_padding = output_padding
        if self.transposed:
            shape = (in_channels, out_channels // group) + self.kernel_size
        else:
            shape = (out_channels, in_channels // group) + self.kernel_size
        dtype = to_type(dtype)
        weight_init = HeUniform(negative_slope=math.sqrt(5)) if weight_init is None else weight_init
        self.weight = make_weight(weight_init, shape, dtype, "weight", owner)
        self.bias = None
        if has_bias:
            fan_in = shape[1] * math.prod(self.kernel_size)
            bias_init = default_bias_init(fan_in) if bias_init is None else bias_init
            self.bias = make_weight(bias_init, (out_channels,), dtype, "bias", owner)

    function: Callable[..., Tensor]  # the ops function, called with the layer's attributes

    def construct(self, x):
        self._check_input(x)
        extra = (self.output_padding,) if self.transposed else ()
        return type(self).function(x, self.weight, self.bias, self.stride, self.pad_mode,
                                   self.padding, *extra, self.dilation, self.group)

    def _check_input(self, x):
        if x.ndim != self.rank + 2:
            raise V.input_error(type(self).__name__, x, f"input must be {self.rank + 2}-D "
                                f"(N, C, *spatial), got shape {tuple(x.shape)}")

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}")


def _check_padding(padding, pad_mode, rank, owner):
    values = (padding,) if isinstance(padding, numbers.Integral) else tuple(padding)
    if len(values) not in (1, 2 * rank) or any(
            isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0 for v in values):
        raise ValueError(f"{owner}: padding must be a non-negative int or {2 * rank} of them "
                         f"(before, after per axis), got {padding!r}")
    if pad_mode != "pad" and any(values):
        raise ValueError(f"{owner}: padding must be 0 when pad_mode is {pad_mode!r} (use "
                         f"pad_mode='pad'), got {padding!r}")
    return padding if isinstance(padding, numbers.Integral) else tuple(values)


class Conv2d(_Conv):
    """2-D convolution with MindSpore's defaults: pad_mode='same', has_bias=False.

    Args:
        in_channels: input channels (divisible by `group`).
        out_channels: output channels (divisible by `group`).
        kernel_size: an int or an (h, w) pair; stride and dilation likewise.
        stride: step of the window.
        pad_mode: 'same' (output size ceil(input / stride)), 'valid' (no padding) or 'pad'
            (explicit `padding`: an int or (top, bottom, left, right)).
        padding: must be 0 unless pad_mode is 'pad'.
        dilation: spacing of the kernel taps.
        group: number of channel groups.
        has_bias: add a per-channel bias.
        weight_init: initializer (default HeUniform(sqrt(5)), as MindSpore).
        bias_init: initializer (default U(-1/sqrt(fan_in), 1/sqrt(fan_in))).
        data_format: 'NCHW' only.
        dtype: parameter dtype.

    The weight has shape (out_channels, in_channels / group, kh, kw).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: ShapeLike, stride: ShapeLike = 1, pad_mode: str = "same",
                 padding: ShapeLike = 0, dilation: ShapeLike = 1, group: int = 1, has_bias: bool = False, weight_init: Any = None,
                 bias_init: Any = None, data_format: str = "NCHW", dtype: DTypeLike = float32) -> None:
        V.one_of(data_format, "data_format", "Conv2d", ("NCHW",))
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, dtype)

    def construct(self, x: Tensor) -> Tensor:
        return F.conv2d(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding,
                        self.dilation, self.group)


class Conv1d(_Conv):
    """1-D convolution of (N, C, L) inputs; arguments as Conv2d with ints for kernel_size,
    stride, dilation and padding (an int or (left, right)). Weight (out, in / group, k).

        >>> ms.nn.Conv1d(2, 4, 3)(ms.ops.ones((1, 2, 10))).shape
        (1, 4, 10)
    """
    rank = 1
    function = staticmethod(F.conv1d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: ShapeLike, stride: ShapeLike = 1, pad_mode: str = "same",
                 padding: ShapeLike = 0, dilation: ShapeLike = 1, group: int = 1, has_bias: bool = False, weight_init: Any = None,
                 bias_init: Any = None, dtype: DTypeLike = float32) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, dtype)


class Conv3d(_Conv):
    """3-D convolution of (N, C, D, H, W) inputs; arguments as Conv2d with (d, h, w) triples
    and padding an int or (head, tail, top, bottom, left, right). Weight
    (out, in / group, kd, kh, kw).

        >>> ms.nn.Conv3d(2, 4, 3)(ms.ops.ones((1, 2, 5, 5, 5))).shape
        (1, 4, 5, 5, 5)
    """
    rank = 3
    function = staticmethod(F.conv3d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: ShapeLike, stride: ShapeLike = 1, pad_mode: str = "same",
                 padding: ShapeLike = 0, dilation: ShapeLike = 1, group: int = 1, has_bias: bool = False, weight_init: Any = None,
                 bias_init: Any = None, data_format: str = "NCDHW", dtype: DTypeLike = float32) -> None:
        V.one_of(data_format, "data_format", "Conv3d", ("NCDHW",))
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, dtype)


class _ConvTranspose(_Conv):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=float32):
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, dtype,
                         output_padding)


class Conv1dTranspose(_ConvTranspose):
    """1-D transposed convolution (the gradient of Conv1d in its input). Output length:
    'same' L * stride, 'valid' L * stride + max(span - stride, 0), 'pad'
    (L - 1) * stride - left - right + span + output_padding, span = dilation * (k - 1) + 1.
    Weight (in_channels, out_channels / group, k).

        >>> ms.nn.Conv1dTranspose(4, 2, 2, stride=2)(ms.ops.ones((1, 4, 5))).shape
        (1, 2, 10)
    """
    rank = 1
    function = staticmethod(F.conv_transpose1d)


class Conv2dTranspose(_ConvTranspose):
    """2-D transposed convolution (the gradient of Conv2d in its input), output sizes as
    Conv1dTranspose per axis. Weight (in_channels, out_channels / group, kh, kw).

        >>> ms.nn.Conv2dTranspose(4, 2, 3, stride=2, pad_mode='valid')(
        ...     ms.ops.ones((1, 4, 5, 5))).shape
        (1, 2, 11, 11)
    """
    function = staticmethod(F.conv_transpose2d)


class Conv3dTranspose(_ConvTranspose):
    """3-D transposed convolution (the gradient of Conv3d in its input), output sizes as
    Conv1dTranspose per axis. Weight (in_channels, out_channels / group, kd, kh, kw).

        >>> ms.nn.Conv3dTranspose(4, 2, 2, stride=2)(ms.ops.ones((1, 4, 2, 3, 3))).shape
        (1, 2, 4, 6, 6)
    """
    rank = 3
    function = staticmethod(F.conv_transpose3d)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: ShapeLike, stride: ShapeLike = 1, pad_mode: str = "same",
                 padding: ShapeLike = 0, dilation: ShapeLike = 1, group: int = 1, output_padding: ShapeLike = 0, has_bias: bool = False,
                 weight_init: Any = None, bias_init: Any = None, data_format: str = "NCDHW", dtype: DTypeLike = float32) -> None:
        V.one_of(data_format, "data_format", "Conv3dTranspose", ("NCDHW",))
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         output_padding, dilation, group, has_bias, weight_init, bias_init,
                         dtype)
