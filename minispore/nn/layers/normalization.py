"""Normalisation layers: BatchNorm1d/2d/3d, LayerNorm, GroupNorm, InstanceNorm1d/2d/3d, LRN.

    >>> import minispore as ms
    >>> bn = ms.nn.BatchNorm2d(3).set_train()       # training: batch statistics, updates moving_*
    >>> bn(ms.ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)

BatchNorm keeps MindSpore's momentum convention: after a training step
``moving = momentum * moving + (1 - momentum) * batch_statistic`` (momentum=0.9), with the
unbiased batch variance for moving_variance. In evaluation mode it normalises with the moving
statistics.

Parameters are created in MindSpore's order and with its names, so that get_parameters() and
checkpoints line up with MindSpore's: moving_mean (named 'mean' until a parent cell prefixes
it by its attribute path, '<cell>.moving_mean'), moving_variance ('variance'), gamma, beta.
"""
from __future__ import annotations
from typing import Any, Optional
from ...core.dtype import float32, to_type
from ...ops import functional as F
from ...ops.normalization import instance_norm
from .. import validation as V
from ..cell import Cell
from .basic import make_weight
from ...core.hints import Tensor, DTypeLike


def _statistics_and_affine(cell, num_features, affine, inits, dtype, owner):
    """moving_mean, moving_variance, gamma, beta on `cell`, in MindSpore's order and names."""
    mean_init, var_init, gamma_init, beta_init = inits
    shape, dtype = (num_features,), to_type(dtype)
    cell.moving_mean = make_weight(mean_init, shape, dtype, "mean", owner)
    cell.moving_variance = make_weight(var_init, shape, dtype, "variance", owner)
    cell.gamma = make_weight(gamma_init, shape, dtype, "gamma", owner)
    cell.beta = make_weight(beta_init, shape, dtype, "beta", owner)
    cell.gamma.requires_grad = cell.beta.requires_grad = affine
    cell.moving_mean.requires_grad = cell.moving_variance.requires_grad = False


def _common_arguments(cell, num_features, eps, momentum, affine):
    """num_features, eps, momentum and affine checked and set on `cell`."""
    name = type(cell).__name__
    cell.num_features = V.positive_int(num_features, "num_features", name)
    cell.eps = V.number_in(eps, "eps", name, 0.0, float("inf"), low_open=True)
    cell.momentum = V.number_in(momentum, "momentum", name, 0.0, 1.0)
    cell.affine = V.boolean(affine, "affine", name)
    return name


def _check_channels(cell, x, ranks, channels):
    if x.ndim not in ranks or x.shape[1] != channels:
        raise V.input_error(type(cell).__name__, x, f"input of shape {x.shape} must have rank "
                            f"{' or '.join(map(str, ranks))} and {channels} channels on axis 1")


class _BatchNorm(Cell):
    _ranks: tuple[int, ...] = ()  # input ranks the subclass accepts

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=float32):
        super().__init__()
        name = _common_arguments(self, num_features, eps, momentum, affine)
        if use_batch_statistics is not None:
            V.boolean(use_batch_statistics, "use_batch_statistics", name)
        self.use_batch_statistics = use_batch_statistics
        V.one_of(data_format, "data_format", name, ("NCHW", "NCL", "NC"))
        _statistics_and_affine(self, num_features, affine, (moving_mean_init, moving_var_init,
                                                            gamma_init, beta_init), dtype, name)

    def construct(self, x):
        _check_channels(self, x, self._ranks, self.num_features)
        use_batch = self.use_batch_statistics
        if use_batch is None:
            use_batch = self.training
        # ops.batch_norm takes the functional convention (weight of the new statistic)
        return F.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma, self.beta,
                            training=use_batch, momentum=1.0 - self.momentum, eps=self.eps)

    def extend_repr(self):
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}"


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs, per channel C (see module doc)."""
    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs, per channel C (see module doc)."""
    _ranks = (4,)


class BatchNorm3d(Cell):
    """Batch normalisation of (N, C, D, H, W) inputs, per channel C (see module doc).

    As in MindSpore it holds a BatchNorm2d named `bn2d` (parameters `bn2d.moving_mean`...)
    applied to the input seen as (N, C, D * H, W), so MindSpore checkpoints load.

        >>> import minispore as ms
        >>> ms.nn.BatchNorm3d(2)(ms.ops.ones((1, 2, 3, 2, 2))).shape
        (1, 2, 3, 2, 2)
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True, gamma_init: str = "ones",
                 beta_init: str = "zeros", moving_mean_init: str = "zeros", moving_var_init: str = "ones",
                 use_batch_statistics: Optional[bool] = None, dtype: DTypeLike = float32) -> None:
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                moving_mean_init, moving_var_init, use_batch_statistics,
                                dtype=dtype)

    def construct(self, x: Tensor) -> Tensor:
        _check_channels(self, x, (5,), self.bn2d.num_features)
        n, c, d, h, w = x.shape
        return F.reshape(self.bn2d(F.reshape(x, (n, c, d * h, w))), x.shape)


class _InstanceNorm(Cell):
    """Instance normalisation: each (sample, channel) plane normalised over its spatial axes
    with its own statistics, in training and evaluation alike; training also tracks
    moving_mean / moving_variance (batch averages of the instance statistics, updated as
    moving = (1 - momentum) * moving + momentum * statistic, momentum=0.1), which are kept
    for checkpoints and never used to normalise."""
    _rank = 0

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=float32):
        super().__init__()
        name = _common_arguments(self, num_features, eps, momentum, affine)
        _statistics_and_affine(self, num_features, affine, ("zeros", "ones", gamma_init,
                                                            beta_init), dtype, name)

    def construct(self, x):
        _check_channels(self, x, (self._rank,), self.num_features)
        return instance_norm(x, self.gamma, self.beta, self.moving_mean, self.moving_variance,
                             self.training, self.momentum, self.eps)

    def extend_repr(self):
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}"


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) inputs (see _InstanceNorm).

        >>> import minispore as ms
        >>> ms.nn.InstanceNorm1d(3)(ms.ops.ones((2, 3, 5))).shape
        (2, 3, 5)
    """
    _rank = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) inputs (see _InstanceNorm)."""
    _rank = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) inputs (see _InstanceNorm)."""
    _rank = 5


class LayerNorm(Cell):
    """Normalise over the axes from `begin_norm_axis` on, then scale by gamma and shift by beta
    (shape `normalized_shape`, applied to the axes from `begin_params_axis` on).

        >>> import minispore as ms
        >>> ms.nn.LayerNorm((4,))(ms.ops.ones((2, 4))).shape
        (2, 4)
    """

    def __init__(self, normalized_shape: Any, begin_norm_axis: int = -1, begin_params_axis: int = -1,
                 gamma_init: str = "ones", beta_init: str = "zeros", epsilon: float = 1e-7, dtype: DTypeLike = float32) -> None:
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"LayerNorm: normalized_shape must be a tuple or list, got "
                            f"{type(normalized_shape).__name__}")
        self.normalized_shape = tuple(V.positive_int(s, "normalized_shape", "LayerNorm")
                                      for s in normalized_shape)
        for axis_name, axis in (("begin_norm_axis", begin_norm_axis),
                                ("begin_params_axis", begin_params_axis)):
            if isinstance(axis, bool) or not isinstance(axis, int):
                raise TypeError(f"LayerNorm: {axis_name} must be an int, got {axis!r}")
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = V.number_in(epsilon, "epsilon", "LayerNorm", 0.0, float("inf"),
                                   low_open=True)
        dtype = to_type(dtype)
        self.gamma = make_weight(gamma_init, self.normalized_shape, dtype, "gamma", "LayerNorm")
        self.beta = make_weight(beta_init, self.normalized_shape, dtype, "beta", "LayerNorm")

    def construct(self, x: Tensor) -> Tensor:
        axes_fit = all(-x.ndim <= a < x.ndim for a in (self.begin_norm_axis,
                                                       self.begin_params_axis))
        norm_axis, params_axis = self.begin_norm_axis % x.ndim, self.begin_params_axis % x.ndim
        if not axes_fit or tuple(x.shape[params_axis:]) != self.normalized_shape:
            raise V.input_error("LayerNorm", x, f"input of shape {x.shape} does not fit",
                                begin_norm_axis=self.begin_norm_axis,
                                begin_params_axis=self.begin_params_axis,
                                normalized_shape=self.normalized_shape)
        y = F.layer_norm(x, tuple(x.shape[norm_axis:]), None, None, self.epsilon)
        return F.add(F.mul(y, self.gamma), self.beta)

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis="
                f"{self.begin_norm_axis}, begin_params_axis={self.begin_params_axis}")


class GroupNorm(Cell):
    """Group normalisation of (N, C, *) inputs: the channels split into `num_groups` groups,
    each normalised over its channels and spatial axes, then gamma * y + beta per channel
    (ops.group_norm).

        >>> import minispore as ms
        >>> ms.nn.GroupNorm(2, 4)(ms.ops.ones((1, 4, 3, 3))).shape
        (1, 4, 3, 3)
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, gamma_init: str = "ones",
                 beta_init: str = "zeros", dtype: DTypeLike = float32) -> None:
        super().__init__()
        self.num_groups = V.positive_int(num_groups, "num_groups", "GroupNorm")
        self.num_channels = V.positive_int(num_channels, "num_channels", "GroupNorm")
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels={num_channels} must be divisible by "
                             f"num_groups={num_groups}")
        self.eps = V.number_in(eps, "eps", "GroupNorm", 0.0, float("inf"), low_open=True)
        self.affine = V.boolean(affine, "affine", "GroupNorm")
        dtype = to_type(dtype)
        self.gamma = make_weight(gamma_init, (num_channels,), dtype, "gamma", "GroupNorm")
        self.beta = make_weight(beta_init, (num_channels,), dtype, "beta", "GroupNorm")
        self.gamma.requires_grad = self.beta.requires_grad = affine

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise V.input_error("GroupNorm", x, f"input of shape {x.shape} must be (N, "
                                f"{self.num_channels}, ...)")
        return F.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class LRN(Cell):
    """Local response normalisation across channels of (N, C, H, W) inputs (ops.lrn):
    b_c = a_c * (bias + alpha * sum of a^2 over the 2 depth_radius + 1 nearest channels)^-beta.

        >>> import minispore as ms
        >>> ms.nn.LRN()(ms.ops.ones((1, 3, 2, 2))).shape
        (1, 3, 2, 2)
    """

    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
                 norm_region: str = "ACROSS_CHANNELS") -> None:
        super().__init__()
        if isinstance(depth_radius, bool) or not isinstance(depth_radius, int) \
                or depth_radius < 0:
            raise TypeError(f"LRN: depth_radius must be a non-negative int, got {depth_radius!r}")
        for name, value in (("bias", bias), ("alpha", alpha), ("beta", beta)):
            V.number_in(value, name, "LRN", float("-inf"), float("inf"))
        V.one_of(norm_region, "norm_region", "LRN", ("ACROSS_CHANNELS",))
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim != 4:
            raise V.input_error("LRN", x, f"input of shape {x.shape} must be (N, C, H, W)")
        return F.lrn(x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)

    def extend_repr(self):
        return (f"depth_radius={self.depth_radius}, bias={self.bias}, alpha={self.alpha}, "
                f"beta={self.beta}")
