"""minispore.mint.nn: PyTorch-style layers (`Linear(in_features, out_features, bias=True)`,
`Softmax(dim)`...) built on minispore.nn's Cells, so `mindspore.mint.nn` code runs.

    >>> from minispore import mint
    >>> layer = mint.nn.Linear(3, 2)
    >>> layer(ms.Tensor(np.ones((4, 3), np.float32))).shape
    (4, 2)

Layers whose PyTorch constructor is MindSpore's own (ReLU, Sigmoid, MSELoss...) are
minispore.nn's classes themselves, looked up by name (`__getattr__` below).
"""
from typing import Optional, Sequence, Union

from ... import nn as _nn
from ...core.tensor import Tensor
from ...ops import functional as F
from ..forwarding import forwarder
from . import functional  # noqa: F401

# layers whose MindSpore and PyTorch constructors take the same arguments
_FORWARDED = {
    "ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU", "Mish", "Hardswish", "Hardsigmoid",
    "Hardtanh", "LogSigmoid", "ELU", "PReLU", "Threshold", "MSELoss",
    "L1Loss", "BCELoss", "KLDivLoss", "SoftMarginLoss", "CosineEmbeddingLoss", "PixelShuffle",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d",
    "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "Fold",
    "GroupNorm", "Upsample",
}


__getattr__, _dir = forwarder(__name__, _nn, _FORWARDED)

# PyTorch's names for MindSpore layers that take the same arguments under another name
Hardswish, Hardsigmoid, Hardshrink, SELU = _nn.HSwish, _nn.HSigmoid, _nn.HShrink, _nn.SeLU


def __dir__():
    return _dir(globals())


# y = x W^T + b with W (out_features, in_features): MindSpore's nn.Linear is mint's
Linear = _nn.Linear
# the pooling layers with PyTorch's arguments are MindSpore's nn "Ext" layers
AvgPool1d, AvgPool2d, AvgPool3d = _nn.AvgPool1dExt, _nn.AvgPool2dExt, _nn.AvgPool3dExt


class Conv2d(_nn.Conv2d):
    """2-D convolution with PyTorch's arguments (padding an int, a pair, 'same' or
    'valid'; bias on by default)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", dtype=None):
        if padding_mode != "zeros":
            raise NotImplementedError(f"mint.nn.Conv2d: padding_mode {padding_mode!r}")
        if isinstance(padding, str):
            pad_mode, padding = padding, 0
        else:
            pad_mode = "pad"
            if isinstance(padding, (tuple, list)):  # (h, w) -> (top, bottom, left, right)
                padding = (padding[0], padding[0], padding[1], padding[1])
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, groups, has_bias=bias)


def _batch_norm(base):
    class BatchNorm(base):
        """Batch normalisation with PyTorch's arguments: momentum is the weight of the new
        batch statistics (MindSpore's is that of the old ones: 1 - momentum)."""

        def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                     track_running_stats=True, dtype=None):
            super().__init__(num_features, eps, 1.0 - momentum, affine,
                             use_batch_statistics=None if track_running_stats else True)
    BatchNorm.__name__ = BatchNorm.__qualname__ = base.__name__
    return BatchNorm


class SyncBatchNorm(_nn.SyncBatchNorm):
    """Batch normalisation over every rank's batch, with PyTorch's arguments (momentum: the
    weight of the new statistics; process_group: a group name from communication.create_group).

        >>> mint.nn.SyncBatchNorm(4)(ms.ops.ones((2, 4, 3, 3))).shape
        (2, 4, 3, 3)
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: Optional[str] = None, dtype: object = None) -> None:
        super().__init__(num_features, eps, 1.0 - momentum, affine,
                         use_batch_statistics=None if track_running_stats else True,
                         process_groups=process_group)


BatchNorm1d = _batch_norm(_nn.BatchNorm1d)
BatchNorm2d = _batch_norm(_nn.BatchNorm2d)
BatchNorm3d = _batch_norm(_nn.BatchNorm3d)


class Flatten(_nn.Flatten):
    pass


class Identity(_nn.Cell):
    """Returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, x):
        return x


class Softmax(_nn.Cell):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def construct(self, x):
        return F.softmax(x, self.dim)


class LogSoftmax(Softmax):
    def construct(self, x):
        return F.log_softmax(x, self.dim)


class GELU(_nn.Cell):
    """GELU; approximate 'none' (the default: exact erf) or 'tanh'."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def construct(self, x):
        return F.gelu(x, self.approximate)


class BCEWithLogitsLoss(_nn.BCEWithLogitsLoss):
    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction, weight, pos_weight)


class CrossEntropyLoss(_nn.CrossEntropyLoss):
    pass


class Unfold(_nn.Cell):
    """Sliding blocks as columns with PyTorch's arguments (`kernel_size, dilation, padding,
    stride`), where `nn.Unfold` takes MindSpore's (`ksizes, strides, rates, padding`)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def construct(self, x):
        return F.unfold(x, self.kernel_size, self.dilation, self.padding, self.stride)


_Size = Union[int, Sequence[int]]


def _padding_mode(layer: str, padding_mode: str) -> None:
    if padding_mode != "zeros":
        raise NotImplementedError(f"mint.nn.{layer}: padding_mode {padding_mode!r} (only "
                                  f"'zeros')")


def _check_groups(layer: str, in_channels: int, out_channels: int, groups: int) -> None:
    if in_channels % groups or out_channels % groups:
        raise ValueError(f"mint.nn.{layer}: in_channels ({in_channels}) and out_channels "
                         f"({out_channels}) must be multiples of groups ({groups})")


def _conv_arguments(owner: str, rank: int, in_channels: int, out_channels: int, groups: int,
                    padding: Union[str, _Size], padding_mode: str) -> tuple[str, object]:
    """(MindSpore's pad_mode, pad) of a convolution given PyTorch's padding arguments."""
    _padding_mode(owner, padding_mode)
    _check_groups(owner, in_channels, out_channels, groups)
    pad_mode, pads = functional._conv_padding(padding, rank)
    return pad_mode, pads if pad_mode == "pad" else 0


class Conv1d(_nn.Conv1d):
    """1-D convolution with PyTorch's arguments (padding an int, 'same' or 'valid'; bias on
    by default); weight (out_channels, in_channels / groups, kernel_size).

        >>> mint.nn.Conv1d(2, 4, 3, padding=1)(ms.ops.ones((1, 2, 8))).shape
        (1, 4, 8)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _Size,
                 stride: _Size = 1, padding: Union[str, _Size] = 0, dilation: _Size = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 dtype: object = None) -> None:
        pad_mode, pads = _conv_arguments("Conv1d", 1, in_channels, out_channels, groups,
                                         padding, padding_mode)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, pads,
                         dilation, groups, has_bias=bias)


class Conv3d(_nn.Conv3d):
    """3-D convolution with PyTorch's arguments (padding an int, a triple, 'same' or 'valid';
    bias on by default).

        >>> mint.nn.Conv3d(2, 4, 3, padding=1)(ms.ops.ones((1, 2, 4, 4, 4))).shape
        (1, 4, 4, 4, 4)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _Size,
                 stride: _Size = 1, padding: Union[str, _Size] = 0, dilation: _Size = 1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 dtype: object = None) -> None:
        pad_mode, pads = _conv_arguments("Conv3d", 3, in_channels, out_channels, groups,
                                         padding, padding_mode)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, pads,
                         dilation, groups, has_bias=bias)


class ConvTranspose2d(_nn.Conv2dTranspose):
    """2-D transposed convolution with PyTorch's arguments (note: groups before bias and
    dilation); weight (in_channels, out_channels / groups, kh, kw).

        >>> layer = mint.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)
        >>> layer(ms.ops.ones((1, 2, 4, 4))).shape
        (1, 3, 8, 8)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _Size,
                 stride: _Size = 1, padding: _Size = 0, output_padding: _Size = 0,
                 groups: int = 1, bias: bool = True, dilation: _Size = 1,
                 padding_mode: str = "zeros", dtype: object = None) -> None:
        _padding_mode("ConvTranspose2d", padding_mode)
        _check_groups("ConvTranspose2d", in_channels, out_channels, groups)
        _, pads = functional._conv_padding(padding, 2)
        super().__init__(in_channels, out_channels, kernel_size, stride, "pad", pads,
                         output_padding, dilation, groups, has_bias=bias)


class MaxUnpool2d(_nn.Cell):
    """Partial inverse of MaxPool2d(return_indices=True): each value written at its index in
    a zero tensor; the output size may be given to construct, as in PyTorch.

        >>> pool = ms.nn.MaxPool2d(2, 2, return_indices=True)
        >>> values, indices = pool(ms.ops.ones((1, 1, 4, 4)))
        >>> mint.nn.MaxUnpool2d(2)(values, indices).shape
        (1, 1, 4, 4)
    """

    def __init__(self, kernel_size: _Size, stride: Optional[_Size] = None,
                 padding: _Size = 0) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, input: Tensor, indices: Tensor,
                  output_size: Optional[Sequence[int]] = None) -> Tensor:
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class SmoothL1Loss(_nn.SmoothL1Loss):
    """Smooth L1 loss with PyTorch's arguments and default reduction 'mean' (nn.SmoothL1Loss
    takes beta first and defaults to 'none').

        >>> mint.nn.SmoothL1Loss()(ms.Tensor([0.0, 3.0]), ms.Tensor([0.5, 0.0])).item()
        1.3125
    """

    def __init__(self, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(beta, reduction)


class _Upsampling2d(_nn.Cell):
    _mode: str
    _align_corners: Optional[bool]

    def __init__(self, size: Optional[_Size] = None,
                 scale_factor: Optional[Union[float, Sequence[float]]] = None) -> None:
        super().__init__()
        if (size is None) == (scale_factor is None):
            raise ValueError(f"mint.nn.{type(self).__name__}: give exactly one of size and "
                             f"scale_factor")
        self.size, self.scale_factor = size, scale_factor

    def construct(self, x: Tensor) -> Tensor:
        return F.interpolate(x, self.size, self.scale_factor, self._mode, self._align_corners)


class UpsamplingNearest2d(_Upsampling2d):
    """Nearest-neighbour upsampling of (N, C, H, W) to `size` or by `scale_factor`.

        >>> mint.nn.UpsamplingNearest2d(scale_factor=2)(ms.ops.ones((1, 1, 2, 3))).shape
        (1, 1, 4, 6)
    """

    _mode, _align_corners = "nearest", None


class UpsamplingBilinear2d(_Upsampling2d):
    """Bilinear upsampling of (N, C, H, W) with the corners aligned (align_corners=True, as
    PyTorch's UpsamplingBilinear2d).

        >>> mint.nn.UpsamplingBilinear2d(size=(3, 3))(ms.ops.ones((1, 1, 2, 2))).shape
        (1, 1, 3, 3)
    """

    _mode, _align_corners = "bilinear", True
