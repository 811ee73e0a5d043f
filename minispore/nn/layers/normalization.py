"""BatchNorm1d, BatchNorm2d and LayerNorm.

    >>> import minispore as ms
    >>> bn = ms.nn.BatchNorm2d(3).set_train()       # training: batch statistics, updates moving_*
    >>> bn(ms.ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)

BatchNorm keeps MindSpore's momentum convention: after a training step
``moving = momentum * moving + (1 - momentum) * batch_statistic`` (momentum=0.9), with the
unbiased batch variance for moving_variance. In evaluation mode it normalises with the moving
statistics.
"""
from ...core.dtype import float32, to_type
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from .basic import make_weight


class _BatchNorm(Cell):
    _ranks = ()  # input ranks the subclass accepts

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=float32):
        super().__init__()
        name = type(self).__name__
        self.num_features = V.positive_int(num_features, "num_features", name)
        self.eps = V.number_in(eps, "eps", name, 0.0, float("inf"), low_open=True)
        self.momentum = V.number_in(momentum, "momentum", name, 0.0, 1.0)
        self.affine = V.boolean(affine, "affine", name)
        if use_batch_statistics is not None:
            V.boolean(use_batch_statistics, "use_batch_statistics", name)
        self.use_batch_statistics = use_batch_statistics
        V.one_of(data_format, "data_format", name, ("NCHW", "NCL", "NC"))
        shape, dtype = (num_features,), to_type(dtype)
        self.gamma = make_weight(gamma_init, shape, dtype, "gamma", name)
        self.beta = make_weight(beta_init, shape, dtype, "beta", name)
        self.moving_mean = make_weight(moving_mean_init, shape, dtype, "moving_mean", name)
        self.moving_variance = make_weight(moving_var_init, shape, dtype, "moving_variance", name)
        self.gamma.requires_grad = self.beta.requires_grad = affine
        self.moving_mean.requires_grad = self.moving_variance.requires_grad = False

    def construct(self, x):
        if x.ndim not in self._ranks or x.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}: input of shape {x.shape} must have rank "
                             f"{' or '.join(map(str, self._ranks))} and {self.num_features} "
                             f"channels on axis 1")
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


class LayerNorm(Cell):
    """Normalise over the axes from `begin_norm_axis` on, then scale by gamma and shift by beta
    (shape `normalized_shape`, applied to the axes from `begin_params_axis` on).

        >>> import minispore as ms
        >>> ms.nn.LayerNorm((4,))(ms.ops.ones((2, 4))).shape
        (2, 4)
    """

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"LayerNorm: normalized_shape must be a tuple or list, got "
                            f"{type(normalized_shape).__name__}")
        self.normalized_shape = tuple(V.positive_int(s, "normalized_shape", "LayerNorm")
                                      for s in normalized_shape)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = V.number_in(epsilon, "epsilon", "LayerNorm", 0.0, float("inf"),
                                   low_open=True)
        dtype = to_type(dtype)
        self.gamma = make_weight(gamma_init, self.normalized_shape, dtype, "gamma", "LayerNorm")
        self.beta = make_weight(beta_init, self.normalized_shape, dtype, "beta", "LayerNorm")

    def construct(self, x):
        axes_fit = all(-x.ndim <= a < x.ndim for a in (self.begin_norm_axis,
                                                       self.begin_params_axis))
        norm_axis, params_axis = self.begin_norm_axis % x.ndim, self.begin_params_axis % x.ndim
        if not axes_fit or tuple(x.shape[params_axis:]) != self.normalized_shape:
            raise ValueError(f"LayerNorm: input of shape {x.shape} does not fit "
                             f"begin_norm_axis={self.begin_norm_axis}, begin_params_axis="
                             f"{self.begin_params_axis}, normalized_shape={self.normalized_shape}")
        y = F.layer_norm(x, tuple(x.shape[norm_axis:]), None, None, self.epsilon)
        return F.add(F.mul(y, self.gamma), self.beta)

    def extend_repr(self):
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis="
                f"{self.begin_norm_axis}, begin_params_axis={self.begin_params_axis}")
