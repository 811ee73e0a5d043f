"""Parameter initializers, with MindSpore's names, defaults and formulas.

    >>> import minispore as ms
    >>> from minispore.common.initializer import initializer, Normal, HeUniform
    >>> initializer("ones", (2, 3), ms.float32).shape
    (2, 3)
    >>> w = initializer(HeUniform(), (4, 3, 5, 5))      # fan_in = 3 * 5 * 5
    >>> w = initializer(Normal(sigma=0.02), [8, 8])

`initializer(init, shape, dtype)` returns a Tensor; `init` is a name ('normal', 'zeros',
'ones', 'uniform', 'truncatedNormal', 'xavier_uniform', 'xavier_normal', 'he_uniform',
'he_normal'), an `Initializer` instance, a number (a constant) or a Tensor of that shape.
Random draws come from the generator `ms.set_seed` seeds. Fans follow MindSpore: for a
weight of shape (out, in, *kernel), fan_in = in * prod(kernel), fan_out = out * prod(kernel).
"""
import math
import numbers

import numpy as np

from . import seed as _seed
from .dtype import to_np
from .tensor import Tensor


class Initializer:
    """Base class: `_initialize(shape)` returns a float64 numpy array of that shape."""

    def __call__(self, shape):
        return self._initialize(tuple(shape))

    def _initialize(self, shape):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


def _fans(shape, who):
    if len(shape) < 2:
        raise ValueError(f"{who}: fan_in and fan_out need a shape of rank >= 2, got {shape}")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (as torch.nn.init.calculate_gain)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, numbers.Number):
            raise ValueError(f"calculate_gain: negative_slope must be a number, got {slope!r}")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain: unsupported nonlinearity {nonlinearity!r}")


class Zero(Initializer):
    def _initialize(self, shape):
        return np.zeros(shape)


class One(Initializer):
    def _initialize(self, shape):
        return np.ones(shape)


class Constant(Initializer):
    """Every element equal to `value`."""

    def __init__(self, value):
        self.value = value

    def _initialize(self, shape):
        return np.full(shape, self.value, dtype=np.float64)


class Normal(Initializer):
    """N(mean, sigma^2) samples."""

    def __init__(self, sigma=0.01, mean=0.0):
        self.sigma, self.mean = sigma, mean

    def _initialize(self, shape):
        return _seed.generator().normal(self.mean, self.sigma, shape)


class Uniform(Initializer):
    """U(-scale, scale) samples."""

    def __init__(self, scale=0.07):
        self.scale = scale

    def _initialize(self, shape):
        return _seed.generator().uniform(-self.scale, self.scale, shape)


class TruncatedNormal(Initializer):
    """N(mean, sigma^2) samples restricted to [a, b] (absolute bounds, as in MindSpore 2.x)."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _initialize(self, shape):
        from scipy.stats import truncnorm
        lo, hi = (self.a - self.mean) / self.sigma, (self.b - self.mean) / self.sigma
        return truncnorm.rvs(lo, hi, loc=self.mean, scale=self.sigma, size=shape,
                             random_state=_seed.generator())


class XavierUniform(Initializer):
    """U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)) (Glorot)."""

    def __init__(self, gain=1):
        self.gain = gain

    def _initialize(self, shape):
        fan_in, fan_out = _fans(shape, "XavierUniform")
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return _seed.generator().uniform(-bound, bound, shape)


class XavierNormal(Initializer):
    """N(0, s^2) with s = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        self.gain = gain

    def _initialize(self, shape):
        fan_in, fan_out = _fans(shape, "XavierNormal")
        return _seed.generator().normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


class _He(Initializer):
    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{type(self).__name__}: mode must be 'fan_in' or 'fan_out', "
                             f"got {mode!r}")
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _std(self, shape):
        fan_in, fan_out = _fans(shape, type(self).__name__)
        fan = fan_in if self.mode == "fan_in" else fan_out
        return calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)


class HeUniform(_He):
    """U(-b, b) with b = gain * sqrt(3 / fan) (Kaiming); gain from `nonlinearity` and
    `negative_slope`, fan from `mode`. HeUniform(math.sqrt(5)) is what Dense and Conv2d use."""

    def _initialize(self, shape):
        bound = math.sqrt(3.0) * self._std(shape)
        return _seed.generator().uniform(-bound, bound, shape)


class HeNormal(_He):
    """N(0, s^2) with s = gain / sqrt(fan) (Kaiming)."""

    def _initialize(self, shape):
        return _seed.generator().normal(0.0, self._std(shape), shape)


_BY_NAME = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal, "uniform": Uniform,
    "truncatednormal": TruncatedNormal, "xavier_uniform": XavierUniform,
    "xavieruniform": XavierUniform, "xavier_normal": XavierNormal, "xaviernormal": XavierNormal,
    "he_uniform": HeUniform, "heuniform": HeUniform, "he_normal": HeNormal, "henormal": HeNormal,
}


def _shape_tuple(shape):
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"initializer: shape must not have negative dimensions, got {shape}")
    return shape


def initializer(init, shape=None, dtype="float32"):
    """A Tensor of `shape` and `dtype` filled by `init` (see the module docstring).

    >>> import minispore as ms
    >>> initializer(0.5, (2,), ms.float32).asnumpy()
    array([0.5, 0.5], dtype=float32)
    """
    np_dtype = to_np(dtype) if dtype is not None else np.dtype(np.float32)
    if isinstance(init, Tensor):
        if shape is not None and tuple(init.shape) != _shape_tuple(shape):
            raise ValueError(f"initializer: the Tensor given as init has shape {init.shape}, "
                             f"but shape {tuple(shape)} was asked")
        return Tensor(init, np_dtype)
    if shape is None:
        raise ValueError("initializer: shape is required unless init is a Tensor")
    shape = _shape_tuple(shape)
    if isinstance(init, str):
        cls = _BY_NAME.get(init.lower())
        if cls is None:
            raise ValueError(f"initializer: unknown init {init!r}; known: {sorted(set(_BY_NAME))}")
        init = cls()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)
    elif isinstance(init, type) and issubclass(init, Initializer):
        init = init()
    if not isinstance(init, Initializer):
        raise TypeError(f"initializer: init must be a str, number, Tensor or Initializer, "
                        f"got {type(init).__name__}")
    return Tensor(np.asarray(init(shape)).astype(np_dtype))


__all__ = ["Initializer", "initializer", "calculate_gain", "Zero", "One", "Constant", "Normal",
           "Uniform", "TruncatedNormal", "XavierUniform", "XavierNormal", "HeUniform", "HeNormal"]


# Tensor(shape=..., dtype=..., init=...) fills itself through `initializer` (core.tensor cannot
# import this module, which imports it)
Tensor._initial_values = staticmethod(initializer)
