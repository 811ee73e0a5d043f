"""minispore.mint.nn.functional: PyTorch-style functional layers over minispore.ops.

    >>> from minispore.mint.nn import functional as F
    >>> F.linear(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[1.0, 1.0]])).tolist()
    [[3.0]]

Functions that other parts of minispore add to ops later (activations, losses) are looked
up there by name when their PyTorch signature is MindSpore's (`__getattr__` below).
"""
from ... import ops as _ops
from ...ops import functional as F
from ...ops.arguments import as_tensor
from ..forwarding import forwarder

# functions whose MindSpore and PyTorch argument lists agree
_FORWARDED = {
    "relu", "relu6", "sigmoid", "tanh", "gelu", "silu", "mish", "hardswish", "hardsigmoid",
    "softsign", "elu", "selu", "celu", "glu", "logsigmoid", "hardtanh", "threshold",
    "hardshrink", "softshrink", "tanhshrink", "mse_loss", "l1_loss", "smooth_l1_loss",
    "kl_div", "binary_cross_entropy", "cross_entropy", "nll_loss", "soft_margin_loss",
    "cosine_embedding_loss", "embedding", "normalize", "layer_norm", "batch_norm",
    "group_norm",
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
    """Constant padding; `pad` lists (before, after) pairs from the last axis backwards."""
    if mode != "constant":
        raise NotImplementedError(f"mint.nn.functional.pad: mode {mode!r} (only 'constant')")
    x = as_tensor(input)
    pairs = [(int(pad[i]), int(pad[i + 1])) for i in range(0, len(pad), 2)]
    paddings = [(0, 0)] * (x.ndim - len(pairs)) + pairs[::-1]
    return F.pad(x, paddings, value)


def flatten(input, start_dim=0, end_dim=-1):
    return F.flatten(input, start_dim=start_dim, end_dim=end_dim)


def relu_(input):
    """relu, written into input."""
    return F.assign(input, F.relu(input))


def sigmoid_(input):
    """sigmoid, written into input."""
    return F.assign(input, F.sigmoid(input))
