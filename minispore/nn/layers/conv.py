"""Conv2d: 2-D convolution over NCHW inputs (ops.conv2d with a learnt weight).

    >>> import minispore as ms
    >>> conv = ms.nn.Conv2d(3, 8, kernel_size=3)         # pad_mode='same': H, W kept
    >>> conv(ms.ops.ones((1, 3, 5, 5))).shape
    (1, 8, 5, 5)
"""
import math
import numbers

from ...core.dtype import float32, to_type
from ...core.initializer import HeUniform
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from .basic import default_bias_init, make_weight


class Conv2d(Cell):
    """2-D convolution with MindSpore's defaults: pad_mode='same', has_bias=False.

    Args:
        in_channels, out_channels: channel counts (both divisible by `group`).
        kernel_size, stride, dilation: an int or an (h, w) pair.
        pad_mode: 'same' (output size ceil(input / stride)), 'valid' (no padding) or 'pad'
            (explicit `padding`: an int or (top, bottom, left, right)).
        padding: must be 0 unless pad_mode is 'pad'.
        group: number of channel groups.
        has_bias: add a per-channel bias.
        weight_init, bias_init: initializers (defaults: HeUniform(sqrt(5)) and
            U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as MindSpore).

    The weight has shape (out_channels, in_channels / group, kh, kw).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCHW", dtype=float32):
        super().__init__()
        self.in_channels = V.positive_int(in_channels, "in_channels", "Conv2d")
        self.out_channels = V.positive_int(out_channels, "out_channels", "Conv2d")
        self.kernel_size = V.int_pair(kernel_size, "kernel_size", "Conv2d")
        self.stride = V.int_pair(stride, "stride", "Conv2d")
        self.dilation = V.int_pair(dilation, "dilation", "Conv2d")
        self.group = V.positive_int(group, "group", "Conv2d")
        self.has_bias = V.boolean(has_bias, "has_bias", "Conv2d")
        self.pad_mode = V.one_of(pad_mode.lower() if isinstance(pad_mode, str) else pad_mode,
                                 "pad_mode", "Conv2d", ("same", "valid", "pad"))
        V.one_of(data_format, "data_format", "Conv2d", ("NCHW",))
        if in_channels % group or out_channels % group:
            raise ValueError(f"Conv2d: in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must both be divisible by group ({group})")
        self.padding = _check_padding(padding, self.pad_mode)
        shape = (out_channels, in_channels // group) + self.kernel_size
        dtype = to_type(dtype)
        weight_init = HeUniform(negative_slope=math.sqrt(5)) if weight_init is None else weight_init
        self.weight = make_weight(weight_init, shape, dtype, "weight", "Conv2d")
        self.bias = None
        if has_bias:
            fan_in = (in_channels // group) * self.kernel_size[0] * self.kernel_size[1]
            bias_init = default_bias_init(fan_in) if bias_init is None else bias_init
            self.bias = make_weight(bias_init, (out_channels,), dtype, "bias", "Conv2d")

    def construct(self, x):
        return F.conv2d(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding,
                        self.dilation, self.group)

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}")


def _check_padding(padding, pad_mode):
    values = (padding,) if isinstance(padding, numbers.Integral) else tuple(padding)
    if len(values) not in (1, 4) or any(isinstance(v, bool) or not isinstance(v, numbers.Integral)
                                        or v < 0 for v in values):
        raise ValueError(f"Conv2d: padding must be a non-negative int or 4 of them (top, bottom, "
                         f"left, right), got {padding!r}")
    if pad_mode != "pad" and any(values):
        raise ValueError(f"Conv2d: padding must be 0 when pad_mode is {pad_mode!r} (use "
                         f"pad_mode='pad'), got {padding!r}")
    return padding if isinstance(padding, numbers.Integral) else tuple(values)
