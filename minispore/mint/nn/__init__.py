"""minispore.mint.nn: PyTorch-style layers (`Linear(in_features, out_features, bias=True)`,
`Softmax(dim)`...) built on minispore.nn's Cells, so `mindspore.mint.nn` code runs.

    >>> from minispore import mint
    >>> layer = mint.nn.Linear(3, 2)
    >>> layer(ms.Tensor(np.ones((4, 3), np.float32))).shape
    (4, 2)

Layers whose PyTorch constructor is MindSpore's own (ReLU, Sigmoid, MSELoss...) are
minispore.nn's classes themselves, looked up by name (`__getattr__` below).
"""
from ... import nn as _nn
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


class Linear(_nn.Dense):
    """y = x W^T + b with W of shape (out_features, in_features)."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        super().__init__(in_features, out_features, weight_init=weight_init,
                         bias_init=bias_init, has_bias=bias)


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


class AvgPool2d(_nn.Cell):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.args = (kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)

    def construct(self, x):
        return functional.avg_pool2d(x, *self.args)


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
