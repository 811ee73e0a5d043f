"""minispore.mint.nn.functional: PyTorch-style functional layers over minispore.ops.

    >>> from minispore.mint.nn import functional as F
    >>> F.linear(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[1.0, 1.0]])).tolist()
    [[3.0]]

Functions that other parts of minispore add to ops later (activations, losses) are looked
up there by name when their PyTorch signature is MindSpore's (`__getattr__` below).
"""
from typing import Optional, Sequence, Union

from ... import ops as _ops
from ...core.tensor import Tensor
from ...ops import functional as F
from ...ops.arguments import as_tensor
from ..forwarding import forwarder

_Size = Union[int, Sequence[int]]

# functions whose MindSpore and PyTorch argument lists agree
_FORWARDED = {
    "relu", "relu6", "sigmoid", "tanh", "gelu", "silu", "mish", "hardswish", "hardsigmoid",
    "softsign", "elu", "selu", "celu", "glu", "logsigmoid", "hardtanh", "threshold",
    "hardshrink", "softshrink", "tanhshrink", "mse_loss", "l1_loss", "smooth_l1_loss",
    "kl_div", "binary_cross_entropy", "cross_entropy", "nll_loss", "soft_margin_loss",
    "cosine_embedding_loss", "embedding", "normalize", "layer_norm", "batch_norm",
    "group_norm", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool2d", "fold", "unfold", "pixel_shuffle", "prelu", "interpolate",
    "upsample", "max_unpool2d", "grid_sample",
}


__getattr__, _dir = forwarder(__name__, _ops, _FORWARDED)


def __dir__():
    return _dir(globals())


def linear(input, weight, bias=None):
    """input @ weight^T + bias."""
    out = F.matmul(input, weight, transpose_b=True) if as_tensor(input).ndim >= 2 else \
        F.matmul(input, F.swap_last_axes(as_tensor(weight)))
    return out if bias is None else F.add(out, bias)


def softmax(input, dim=None, dtype=None):
    x = as_tensor(input) if dtype is None else F.cast(input, dtype)
    return F.softmax(x, -1 if dim is None else dim)


def log_softmax(input, dim=None, dtype=None):
    x = as_tensor(input) if dtype is None else F.cast(input, dtype)
    return F.log_softmax(x, -1 if dim is None else dim)


def dropout(input, p=0.5, training=True, inplace=False):
    return F.dropout(input, p, training)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return F.leaky_relu(input, negative_slope)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution; padding an int, a pair, or 'valid'/'same'."""
    if isinstance(padding, str):
        return F.conv2d(input, weight, bias, stride, padding, 0, dilation, groups)
    return F.conv2d(input, weight, bias, stride, "pad", padding, dilation, groups)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return F.max_pool2d(input, kernel_size, stride, padding, dilation, return_indices,
                        ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return F.avg_pool2d(input, kernel_size, kernel_size if stride is None else stride,
                        padding, ceil_mode, count_include_pad, divisor_override or 0)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    return F.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def one_hot(tensor, num_classes=-1):
    """Int64 one-hot rows (num_classes -1: the largest index + 1)."""
    indices = as_tensor(tensor)
    depth = int(F.amax(indices)) + 1 if num_classes == -1 else int(num_classes)
    return F.one_hot(indices, depth, 1, 0)


def pad(input, pad, mode="constant", value=0.0):
    """`pad` lists (before, after) pairs from the last axis backwards; mode 'constant',
    'reflect', 'replicate' or 'circular' (ops.pad)."""
    return F.pad(as_tensor(input), tuple(int(p) for p in pad), mode,
                 value=value if mode == "constant" else None)


def flatten(input, start_dim=0, end_dim=-1):
    return F.flatten(input, start_dim=start_dim, end_dim=end_dim)


def relu_(input):
    """relu, written into input."""
    return F.assign(input, F.relu(input))


def sigmoid_(input):
    """sigmoid, written into input."""
    return F.assign(input, F.sigmoid(input))


# ***** convolutions: PyTorch's padding (an int, one per axis, 'valid' or 'same') *****

def _conv_padding(padding: Union[str, _Size], rank: int) -> tuple[str, object]:
    """(pad_mode, padding) for minispore.ops from PyTorch's padding of a rank-d convolution:
    one int per axis becomes (before, after) pairs."""
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(f"padding must be an int, a tuple, 'valid' or 'same', got {padding!r}")
        return padding, 0
    per_axis = (int(padding),) * rank if isinstance(padding, int) else tuple(padding)
    if len(per_axis) != rank:
        raise ValueError(f"padding must be an int or {rank} ints, got {padding!r}")
    return "pad", tuple(p for p in per_axis for _ in range(2))


def _batched(conv, input: Tensor, rank: int, *args) -> Tensor:
    """Run `conv` on a batch; an input without the batch axis gets one and loses it again."""
    x = as_tensor(input)
    if x.ndim == rank + 1:
        return F.squeeze(conv(F.expand_dims(x, 0), *args), 0)
    return conv(x, *args)


def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: _Size = 1,
           padding: Union[str, _Size] = 0, dilation: _Size = 1, groups: int = 1) -> Tensor:
    """1-D convolution of (N, C_in, L) (or (C_in, L)) with an (C_out, C_in / groups, k) weight.

        >>> F.conv1d(ms.ops.ones((1, 2, 5)), ms.ops.ones((3, 2, 3)), padding=1).shape
        (1, 3, 5)
    """
    pad_mode, pads = _conv_padding(padding, 1)
    return _batched(lambda x: F.conv1d(x, weight, bias, stride, pad_mode, pads, dilation, groups),
                    input, 1)


def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: _Size = 1,
           padding: Union[str, _Size] = 0, dilation: _Size = 1, groups: int = 1) -> Tensor:
    """3-D convolution of (N, C_in, D, H, W) (or unbatched) with a (C_out, C_in / groups, kd,
    kh, kw) weight.

        >>> F.conv3d(ms.ops.ones((1, 2, 4, 4, 4)), ms.ops.ones((3, 2, 3, 3, 3)), padding=1).shape
        (1, 3, 4, 4, 4)
    """
    pad_mode, pads = _conv_padding(padding, 3)
    return _batched(lambda x: F.conv3d(x, weight, bias, stride, pad_mode, pads, dilation, groups),
                    input, 3)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: _Size = 1, padding: _Size = 0, output_padding: _Size = 0,
                     groups: int = 1, dilation: _Size = 1) -> Tensor:
    """2-D transposed convolution of (N, C_in, H, W) (or unbatched) with a (C_in, C_out /
    groups, kh, kw) weight; output H = (H_in - 1) stride - 2 padding + dilation (kh - 1) +
    output_padding + 1. Note PyTorch's order: groups before dilation.

        >>> F.conv_transpose2d(ms.ops.ones((1, 2, 3, 3)), ms.ops.ones((2, 4, 3, 3)), stride=2,
        ...                    padding=1, output_padding=1).shape
        (1, 4, 6, 6)
    """
    if isinstance(padding, str):
        raise ValueError(f"conv_transpose2d: padding must be an int or a pair, got {padding!r}")
    _, pads = _conv_padding(padding, 2)
    return _batched(lambda x: F.conv_transpose2d(x, weight, bias, stride, "pad", pads,
                                                 output_padding, dilation, groups), input, 2)


# ***** pooling *****

def avg_pool1d(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
               padding: _Size = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """1-D average pooling of (N, C, L) or (C, L); stride defaults to kernel_size.

        >>> F.avg_pool1d(ms.Tensor([[[1.0, 2.0, 3.0, 4.0]]]), 2).tolist()
        [[[1.5, 3.5]]]
    """
    def first(v: _Size) -> int:
        return int(v) if isinstance(v, int) else int(tuple(v)[0])
    k = first(kernel_size)
    s = k if stride is None else first(stride)
    rows = F.expand_dims(as_tensor(input), -2)  # (..., 1, L)
    out = _batched(lambda x: F.avg_pool2d(x, (1, k), (1, s), (0, first(padding)), ceil_mode,
                                          count_include_pad), rows, 2)
    return F.squeeze(out, -2)


def avg_pool3d(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
               padding: _Size = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    """3-D average pooling of (N, C, D, H, W) or (C, D, H, W); stride defaults to kernel_size.

        >>> F.avg_pool3d(ms.ops.ones((1, 1, 4, 4, 4)), 2).shape
        (1, 1, 2, 2, 2)
    """
    stride = kernel_size if stride is None else stride
    return _batched(lambda x: F.avg_pool3d(x, kernel_size, stride, padding, ceil_mode,
                                           count_include_pad, divisor_override or 0), input, 3)


def adaptive_max_pool1d(input: Tensor, output_size: int,
                        return_indices: bool = False) -> Union[Tensor, tuple[Tensor, Tensor]]:
    """Max over output_size adaptive windows of the last axis of (N, C, L) or (C, L); with
    return_indices also the positions of the maxima along L.

        >>> F.adaptive_max_pool1d(ms.Tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).tolist()
        [[[3.0, 2.0]]]
    """
    rows = F.expand_dims(as_tensor(input), -2)
    out = F.adaptive_max_pool2d(rows, (1, int(output_size)), return_indices)
    if return_indices:
        return F.squeeze(out[0], -2), F.squeeze(out[1], -2)
    return F.squeeze(out, -2)


# ***** dropout and in-place activations *****

def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) or (C, H, W) with probability p (the rest scaled
    by 1 / (1 - p)) when training; inplace writes the result into input.

        >>> F.dropout2d(ms.ops.ones((2, 3, 4, 4)), 0.5, training=False).shape
        (2, 3, 4, 4)
    """
    out = F.dropout2d(input, p, training)
    return F.assign(input, out) if inplace else out


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """elu, written into input.

        >>> x = ms.Tensor([-1.0, 2.0])
        >>> _ = F.elu_(x)
        >>> [round(v, 4) for v in x.tolist()]
        [-0.6321, 2.0]
    """
    return F.assign(input, F.elu(input, alpha))


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """hardtanh (clip to [min_val, max_val]), written into input.

        >>> x = ms.Tensor([-3.0, 0.5, 2.0])
        >>> F.hardtanh_(x).tolist()
        [-1.0, 0.5, 1.0]
    """
    return F.assign(input, F.hardtanh(input, min_val, max_val))


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """threshold (input where input > threshold, else value), written into input.

        >>> F.threshold_(ms.Tensor([0.5, 2.0]), 1.0, -1.0).tolist()
        [-1.0, 2.0]
    """
    return F.assign(input, F.threshold(input, threshold, value))
