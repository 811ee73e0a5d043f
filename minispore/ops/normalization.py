"""Normalisation: batch_norm (with its running statistics) and layer_norm, exact composites."""
import numpy as np

from . import functional as F
from .arguments import as_tensor, op_error

__all__ = ["batch_norm", "layer_norm"]


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-5):
    """Batch normalisation over every axis but the channel axis 1 of an (N, C, ...) input.

    y = (x - mean) / sqrt(var + eps) * weight + bias. training=True normalises with the
    batch's mean and biased variance and updates the running statistics in place
    (`ops.assign`) with MindSpore's functional convention:

        running = (1 - momentum) * running + momentum * batch_statistic

    using the *unbiased* batch variance for running_var (as MindSpore and PyTorch do).
    nn.BatchNorm2d(momentum=0.9) states the opposite convention (running = momentum * running
    + (1 - momentum) * batch): a layer passes ``1 - its_momentum`` here. training=False
    normalises with running_mean/running_var. weight/bias may be None (1 and 0).

        >>> x = ms.Tensor(np.array([[1.0], [3.0]], np.float32))
        >>> mean, var = ms.Tensor([0.0]), ms.Tensor([1.0])
        >>> ops.batch_norm(x, mean, var, None, None, training=True).asnumpy().round(4).tolist()
        [[-1.0], [1.0]]
        >>> mean.asnumpy().round(4).tolist(), var.asnumpy().round(4).tolist()  # 0.9 * 1 + 0.1 * 2
        ([0.2], [1.1])
    """
    x = as_tensor(input_x)
    if x.ndim < 2:
        raise op_error("batch_norm", (x,), "input must be (N, C) or (N, C, ...)")
    channels = x.shape[1]
    for name, p in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != (channels,):
            raise op_error("batch_norm", (x, p), f"{name} must have shape ({channels},)")
    axes = (0,) + tuple(range(2, x.ndim))
    per_channel = (1, channels) + (1,) * (x.ndim - 2)
    if training:
        count = x.size // channels
        if count < 2:
            raise op_error("batch_norm", (x,), "training needs more than one value per channel")
        mean = F.mean(x, axes, True)
        centered = F.sub(x, mean)
        var = F.mean(F.mul(centered, centered), axes, True)
        _update_running(running_mean, mean, momentum, 1.0)
        _update_running(running_var, var, momentum, count / (count - 1))
    else:
        if running_mean is None or running_var is None:
            raise op_error("batch_norm", (x,), "training=False needs running_mean and running_var")
        centered = F.sub(x, F.reshape(running_mean, per_channel))
        var = F.reshape(running_var, per_channel)
    y = F.mul(centered, F.rsqrt(F.add(var, eps)))
    if weight is not None:
        y = F.mul(y, F.reshape(weight, per_channel))
    if bias is not None:
        y = F.add(y, F.reshape(bias, per_channel))
    return y


def _update_running(running, batch_stat, momentum, correction):
    if running is None:
        return
    stat = F.stop_gradient(F.reshape(batch_stat, running.shape))
    if correction != 1.0:
        stat = F.mul(stat, correction)
    F.assign(running, F.add(F.mul(running, 1.0 - momentum), F.mul(F.cast(stat, running.dtype),
                                                                   momentum)))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing `normalized_shape` axes (biased variance), then
    * weight + bias (each of shape normalized_shape, or None)."""
    x = as_tensor(input)
    shape = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) \
        else tuple(int(s) for s in normalized_shape)
    if not shape or tuple(x.shape[x.ndim - len(shape):]) != shape or len(shape) > x.ndim:
        raise op_error("layer_norm", (x,), f"normalized_shape {shape} must match the trailing axes")
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    centered = F.sub(x, F.mean(x, axes, True))
    var = F.mean(F.mul(centered, centered), axes, True)
    y = F.mul(centered, F.rsqrt(F.add(var, eps)))
    if weight is not None:
        y = F.mul(y, weight)
    if bias is not None:
        y = F.add(y, bias)
    return y
