"""Normalisation: batch_norm (with its running statistics), layer_norm, group_norm, instance
statistics and lrn, exact composites (their gradients come from the ops they are made of)."""
from __future__ import annotations
from typing import Any, Optional
import numpy as np

from ..context import parallel
from . import functional as F
from .arguments import as_tensor, op_error
from .collective import ReduceOp, all_reduce_p
from .primitive import bind
from ..core.hints import Tensor

__all__ = ["batch_norm", "group_norm", "layer_norm", "lrn", "rms_norm"]


def batch_norm(input_x: Tensor, running_mean: Tensor, running_var: Tensor, weight: Tensor, bias: Tensor, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5, *, group: Any = None) -> Tensor:
    """Batch normalisation over every axis but the channel axis 1 of an (N, C, ...) input.

    y = (x - mean) / sqrt(var + eps) * weight + bias. training=True normalises with the
    batch's mean and biased variance and updates the running statistics in place
    (`ops.assign`) with MindSpore's functional convention:

        running = (1 - momentum) * running + momentum * batch_statistic

    using the *unbiased* batch variance for running_var (as MindSpore and PyTorch do).
    nn.BatchNorm2d(momentum=0.9) states the opposite convention (running = momentum * running
    + (1 - momentum) * batch): a layer passes ``1 - its_momentum`` here. training=False
    normalises with running_mean/running_var. weight/bias may be None (1 and 0).
    group (minispore): a communication group whose ranks' batches are normalised together, as
    one batch (nn.SyncBatchNorm): the statistics are all-reduced across its ranks.

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
        if group is not None:
            count *= parallel.world().group_size(group)
        if count < 2:
            raise op_error("batch_norm", (x,), "training needs more than one value per channel")
        mean = _batch_mean(x, axes, count, group)
        centered = F.sub(x, mean)
        var = _batch_mean(F.mul(centered, centered), axes, count, group)
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


def _batch_mean(x, axes, count, group):
    """The mean over `axes` of the batch: this process's, or every rank's of `group` at once."""
    if group is None:
        return F.mean(x, axes, True)
    total = bind(all_reduce_p, F.sum(x, axes, True), op=ReduceOp.SUM, group=group)
    return F.div(total, float(count))


def _update_running(running, batch_stat, momentum, correction):
    if running is None:
        return
    stat = F.stop_gradient(F.reshape(batch_stat, running.shape))
    if correction != 1.0:
        stat = F.mul(stat, correction)
    F.assign(running, F.add(F.mul(running, 1.0 - momentum), F.mul(F.cast(stat, running.dtype),
                                                                   momentum)))


def layer_norm(input: Tensor, normalized_shape: Any, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
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


def rms_norm(x: Tensor, gamma: Tensor, epsilon: float = 1e-6) -> tuple[Tensor, Tensor]:
    """Root-mean-square normalisation over x's last gamma.ndim axes (MindSpore's RmsNorm):
    (x * rstd * gamma, rstd) with rstd = 1 / sqrt(mean(x ** 2) + epsilon), kept with size-1
    normalised axes (in float32 for half inputs, which are normalised in float32 and rounded
    once).

        >>> y, rstd = ops.rms_norm(ms.Tensor([[1.0, 2.0, 3.0]]), ops.ones(3))
        >>> y.asnumpy().round(4).tolist(), rstd.shape
        ([[0.4629, 0.9258, 1.3887]], (1, 1))
    """
    x, gamma = as_tensor(x), as_tensor(gamma)
    if not (x.dtype.is_float and gamma.dtype == x.dtype):
        raise op_error("rms_norm", (x, gamma), "x and gamma must share one float dtype", TypeError)
    if not 0 < epsilon <= 1:
        raise op_error("rms_norm", (x, gamma), f"epsilon must be in (0, 1], got {epsilon}",
                       ValueError)
    if gamma.ndim > x.ndim or tuple(x.shape[x.ndim - gamma.ndim:]) != tuple(gamma.shape):
        raise op_error("rms_norm", (x, gamma), f"gamma's shape {gamma.shape} is not the last "
                       f"axes of x's {x.shape}", ValueError)
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    compute = np.float32 if x.dtype.itemsize == 2 else x.dtype  # half types: in float32
    wide = F.cast(x, compute)
    rstd = F.rsqrt(F.add(F.mean(F.mul(wide, wide), axes, keep_dims=True), epsilon))
    y = F.mul(F.mul(wide, rstd), F.cast(gamma, compute))
    return F.cast(y, x.dtype), rstd


def _normalized(x, axes, eps):
    """(x - mean) / sqrt(biased var + eps) over `axes`, and the mean and var (kept axes)."""
    mean = F.mean(x, axes, True)
    centered = F.sub(x, mean)
    var = F.mean(F.mul(centered, centered), axes, True)
    return F.mul(centered, F.rsqrt(F.add(var, eps))), mean, var


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Group normalisation of an (N, C, *) input: the C channels split into `num_groups`
    groups, each normalised over its channels and the spatial axes (biased variance), then
    * weight + bias per channel (shape (C,), or None).

        >>> x = ms.Tensor(np.arange(8.0).reshape(1, 4, 2))
        >>> ops.group_norm(x, 2).asnumpy()[0, :, 0].round(3).tolist()
        [-1.342, 0.447, -1.342, 0.447]
    """
    x = as_tensor(input)
    if x.ndim < 2 or isinstance(num_groups, bool) or not isinstance(num_groups, (int, np.integer)) \
            or num_groups <= 0 or x.shape[1] % num_groups:
        raise op_error("group_norm", (x,), f"input must be (N, C, ...) with C divisible by "
                       f"num_groups={num_groups!r}")
    n, channels = x.shape[0], x.shape[1]
    grouped = F.reshape(x, (n, int(num_groups), -1))
    y = F.reshape(_normalized(grouped, (2,), eps)[0], x.shape)
    per_channel = (channels,) + (1,) * (x.ndim - 2)
    if weight is not None:
        y = F.mul(y, F.reshape(weight, per_channel))
    if bias is not None:
        y = F.add(y, F.reshape(bias, per_channel))
    return y


def instance_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    """Instance normalisation of an (N, C, *) input: each (sample, channel) plane normalised
    over its spatial axes (biased variance), * weight + bias per channel. training=True also
    updates running_mean / running_var (shape (C,)) with the batch average of the instance
    statistics: running = (1 - momentum) * running + momentum * statistic (unbiased variance),
    MindSpore's InstanceNorm rule. The layers nn.InstanceNorm1d/2d/3d call this."""
    spatial = tuple(range(2, x.ndim))
    y, mean, var = _normalized(x, spatial, eps)
    if training:
        count = int(np.prod(x.shape[2:]))
        _update_running(running_mean, F.mean(mean, (0,)), momentum, 1.0)
        _update_running(running_var, F.mean(var, (0,)), momentum,
                        count / (count - 1) if count > 1 else 1.0)
    per_channel = (x.shape[1],) + (1,) * (x.ndim - 2)
    return F.add(F.mul(y, F.reshape(weight, per_channel)), F.reshape(bias, per_channel))


def lrn(x: Tensor, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5, norm_region: str = "ACROSS_CHANNELS") -> Tensor:
    """Local response normalisation across the channels of an (N, C, H, W) input:
    b_c = a_c * (bias + alpha * sum_{|c' - c| <= depth_radius} a_{c'}^2) ^ -beta, the sum
    clipped to the existing channels (alpha is not divided by the window size, as in
    MindSpore and TensorFlow).

        >>> x = ms.Tensor(np.array([[[[0.1], [0.2]], [[0.3], [0.4]]]], np.float32))
        >>> ops.lrn(x).asnumpy().ravel().round(6).tolist()
        [0.095346, 0.182574, 0.286039, 0.365148]
    """
    x = as_tensor(x)
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"ops.lrn: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
    if isinstance(depth_radius, bool) or not isinstance(depth_radius, (int, np.integer)) \
            or depth_radius < 0:
        raise TypeError(f"ops.lrn: depth_radius must be a non-negative int, got {depth_radius!r}")
    if x.ndim != 4 or not x.dtype.is_float:
        raise op_error("lrn", (x,), "input must be a float (N, C, H, W) tensor")
    channels = x.shape[1]
    squares = F.mul(x, x)
    # the window sum as a sum of shifted channel slices: elementwise adds, which fuse
    window = squares
    for shift in range(1, min(int(depth_radius), channels - 1) + 1):
        zeros = F.zeros_like(squares[:, :shift])
        below = F.concat((squares[:, shift:], zeros), 1)           # a_{c + shift}^2
        above = F.concat((zeros, squares[:, :channels - shift]), 1)  # a_{c - shift}^2
        window = F.add(window, F.add(below, above))
    return F.mul(x, F.pow(F.add(F.mul(window, float(alpha)), float(bias)), -float(beta)))
