"""Parameter initializers, with MindSpore's names, defaults and formulas.

    >>> import minispore as ms
    >>> from minispore.common.initializer import initializer, Normal, HeUniform
    >>> initializer("ones", (2, 3), ms.float32).shape
    (2, 3)
    >>> w = initializer(HeUniform(), (4, 3, 5, 5))      # fan_in = 3 * 5 * 5
    >>> w = initializer(Normal(sigma=0.02), [8, 8])

`initializer(init, shape, dtype)` returns a Tensor whose values are made lazily, as in
MindSpore: its shape and dtype are known at once, its data exists after `init_data()` (or the
first use that needs it: an op, `asnumpy()`, a Parameter built on it). `init` is a name
('normal', 'zeros', 'ones', 'uniform', 'truncatedNormal', 'xavier_uniform', 'xavier_normal',
'he_uniform', 'he_normal', 'orthogonal', 'identity', 'dirac', 'varianceScaling', and each class
name in lower case), an `Initializer` instance or class, a number (a constant) or a Tensor of
that shape. Random draws come from the generator `ms.set_seed` seeds, when the data is made.
Fans follow MindSpore: for a weight of shape (out, in, *kernel), fan_in = in * prod(kernel),
fan_out = out * prod(kernel).

    >>> t = initializer(Orthogonal(), (3, 5))
    >>> t.has_init, t.shape
    (True, (3, 5))
    >>> bool(np.allclose(t.init_data().asnumpy() @ t.asnumpy().T, np.eye(3), atol=1e-6))
    True
"""
import math
import numbers

import numpy as np

from . import seed as _seed
from .dtype import from_np, to_np
from .tensor import Tensor


class Initializer:
    """Base class: `_initialize(shape)` returns a float64 numpy array of that shape;
    `_validate(shape)` raises for shapes it cannot fill (checked when `initializer` is called,
    before the lazy data is made)."""

    def __call__(self, shape):
        shape = tuple(shape)
        self._validate(shape)
        return self._initialize(shape)

    def _validate(self, shape):
        """Nothing to check by default."""

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


class _FanBased(Initializer):
    """An initializer scaled by the fans: the tensor needs rank >= 2."""

    def _validate(self, shape):
        _fans(shape, type(self).__name__)


class XavierUniform(_FanBased):
    """U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)) (Glorot)."""

    def __init__(self, gain=1):
        self.gain = gain

    def _initialize(self, shape):
        fan_in, fan_out = _fans(shape, "XavierUniform")
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return _seed.generator().uniform(-bound, bound, shape)


class XavierNormal(_FanBased):
    """N(0, s^2) with s = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, gain=1):
        self.gain = gain

    def _initialize(self, shape):
        fan_in, fan_out = _fans(shape, "XavierNormal")
        return _seed.generator().normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


class _He(_FanBased):
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


class VarianceScaling(_FanBased):
    """Samples scaled by n, the fan ('fan_in', 'fan_out', or their mean for 'fan_avg'):
    'truncated_normal' N(0, s^2) cut at 2 s, s = sqrt(scale / n) / 0.8796 (the cut's std);
    'untruncated_normal' N(0, scale / n); 'uniform' U(-sqrt(3 scale / n), sqrt(3 scale / n))."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or scale <= 0:
            raise ValueError(f"VarianceScaling: scale must be a number > 0, got {scale!r}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"VarianceScaling: mode must be 'fan_in', 'fan_out' or 'fan_avg', "
                             f"got {mode!r}")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"VarianceScaling: distribution must be 'uniform', "
                             f"'truncated_normal' or 'untruncated_normal', got {distribution!r}")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _initialize(self, shape):
        fan_in, fan_out = _fans(shape, "VarianceScaling")
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, fan)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return _seed.generator().uniform(-limit, limit, shape)
        if self.distribution == "untruncated_normal":
            return _seed.generator().normal(0.0, math.sqrt(variance), shape)
        from scipy.stats import truncnorm
        # 0.8796... is the standard deviation of N(0, 1) cut to [-2, 2]
        std = math.sqrt(variance) / 0.87962566103423978
        return truncnorm.rvs(-2.0, 2.0, scale=std, size=shape, random_state=_seed.generator())


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`: rows = shape[0], columns = the rest flattened;
    the Q of a QR decomposition of a standard normal matrix, signs fixed by diag(R)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def _validate(self, shape):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the tensor needs rank >= 2, got shape {shape}")

    def _initialize(self, shape):
        rows = shape[0]
        cols = math.prod(shape) // rows
        data = _seed.generator().normal(0.0, 1.0, (rows, cols))
        if rows < cols:
            data = data.T
        q, r = np.linalg.qr(data)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (q * self.gain).reshape(shape)


def _check_matrix(shape, who):
    if len(shape) != 2:
        raise ValueError(f"{who}: the tensor must be 2-D, got shape {shape}")


class Identity(Initializer):
    """The identity matrix (ones on the main diagonal of a 2-D tensor)."""

    def _validate(self, shape):
        _check_matrix(shape, "Identity")

    def _initialize(self, shape):
        return np.eye(*shape)


class Sparse(Initializer):
    """N(0, sigma^2) samples with ceil(sparsity * rows) random zeros in each column (2-D)."""

    def __init__(self, sparsity, sigma=0.01):
        self.sparsity, self.sigma = sparsity, sigma

    def _validate(self, shape):
        _check_matrix(shape, "Sparse")

    def _initialize(self, shape):
        rows, cols = shape
        rng = _seed.generator()
        data = rng.normal(0.0, self.sigma, shape)
        zeros = math.ceil(self.sparsity * rows)
        for col in range(cols):
            data[rng.permutation(rows)[:zeros], col] = 0.0
        return data


class Dirac(Initializer):
    """Dirac deltas for convolution weights (rank 3 to 5): the output keeps the input's
    channels; with `groups`, each group of output channels keeps its own."""

    def __init__(self, groups=1):
        self.groups = groups

    def _validate(self, shape):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: the tensor must have rank 3, 4 or 5, got shape {shape}")
        if shape[0] % self.groups:
            raise ValueError(f"Dirac: the first dimension {shape[0]} is not divisible by "
                             f"groups={self.groups}")

    def _initialize(self, shape):
        data = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for group in range(self.groups):
            for channel in range(min(per_group, shape[1])):
                data[(group * per_group + channel, channel) + centre] = 1.0
        return data


_BY_NAME = {
    "zeros": Zero, "zero": Zero, "ones": One, "one": One, "normal": Normal, "uniform": Uniform,
    "truncatednormal": TruncatedNormal, "xavier_uniform": XavierUniform,
    "xavieruniform": XavierUniform, "xavier_normal": XavierNormal, "xaviernormal": XavierNormal,
    "he_uniform": HeUniform, "heuniform": HeUniform, "he_normal": HeNormal, "henormal": HeNormal,
    "orthogonal": Orthogonal, "identity": Identity, "sparse": Sparse, "dirac": Dirac,
    "variancescaling": VarianceScaling,
}


def _shape_tuple(shape):
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"initializer: shape must not have negative dimensions, got {shape}")
    return shape


def initializer(init, shape=None, dtype="float32"):
    """A Tensor of `shape` and `dtype` that `init` fills when its data is first needed (see
    the module docstring); a Tensor given as `init` is returned converted to `dtype`.

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
    init._validate(shape)
    return LazyTensor(init, shape, np_dtype)


_DATA = Tensor.__dict__["_data"]  # the slot LazyTensor's property stands in front of


class LazyTensor(Tensor):
    """What `initializer` returns: a Tensor whose data `init` makes on `init_data()` or first
    use. Its shape and dtype are known without making the data."""

    __slots__ = ("init", "_lazy_shape", "_lazy_dtype")

    def __init__(self, init, shape, np_dtype):
        self.init, self._lazy_shape, self._lazy_dtype = init, shape, np.dtype(np_dtype)
        self._node = None

    @property
    def _data(self):
        if self.init is not None:
            self.init_data()
        return _DATA.__get__(self)

    @_data.setter
    def _data(self, value):
        _DATA.__set__(self, value)

    @property
    def shape(self):
        return self._lazy_shape if self.init is not None else tuple(self._data.shape)

    @property
    def dtype(self):
        return from_np(self._lazy_dtype if self.init is not None else self._data.dtype)

    def init_data(self, slice_index=None, shape=None, opt_shard_group=None):
        """Make the values now (once); returns this tensor."""
        if self.init is not None:
            values = np.asarray(self.init(self._lazy_shape)).astype(self._lazy_dtype)
            _DATA.__set__(self, Tensor(values)._data)
            self.init = None
        return self

    def __repr__(self):
        if self.init is not None:
            return (f"Tensor(shape={list(self._lazy_shape)}, dtype={self.dtype}, "
                    f"init={self.init!r})")
        return super().__repr__()


__all__ = ["Initializer", "initializer", "calculate_gain", "Zero", "One", "Constant", "Normal",
           "Uniform", "TruncatedNormal", "XavierUniform", "XavierNormal", "HeUniform", "HeNormal",
           "Orthogonal", "Identity", "Sparse", "Dirac", "VarianceScaling"]


# Tensor(shape=..., dtype=..., init=...) fills itself through `initializer` (core.tensor cannot
# import this module, which imports it)
Tensor._initial_values = staticmethod(initializer)
