"""Activation Cells: ReLU, ReLU6, Sigmoid, Tanh, SiLU, LeakyReLU, ELU, GELU, Softmax, LogSoftmax
(more in activation_ext), and `get_activation(name)` for `Dense(activation='relu')`.

    >>> import minispore as ms
    >>> ms.nn.ReLU()(ms.Tensor([-1.0, 2.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 0.00000000e+00,  2.00000000e+00])
"""
from __future__ import annotations
from ...ops import functional as F
from ..cell import Cell
from .activation_ext import (
    CELU,
    GLU,
    FastGelu,
    Hardtanh,
    HShrink,
    HSigmoid,
    HSwish,
    LogSigmoid,
    Mish,
    PReLU,
    RReLU,
    SeLU,
    Softmax2d,
    Softmin,
    SoftShrink,
    Softsign,
    Tanhshrink,
    _elementwise,
)
from ...core.hints import Tensor, Axis

ReLU = _elementwise("ReLU", F.relu, "max(x, 0).", __name__)
ReLU6 = _elementwise("ReLU6", F.relu6, "min(max(x, 0), 6).", __name__)
Sigmoid = _elementwise("Sigmoid", F.sigmoid, "1 / (1 + exp(-x)).", __name__)
Tanh = _elementwise("Tanh", F.tanh, "tanh(x).", __name__)
SiLU = _elementwise("SiLU", F.silu, "x * sigmoid(x).", __name__)


class LeakyReLU(Cell):
    """x for x >= 0, alpha * x otherwise (MindSpore's default alpha is 0.2)."""

    def __init__(self, alpha: float = 0.2) -> None:
        super().__init__()
        self.alpha = alpha

    def construct(self, x: Tensor) -> Tensor:
        return F.leaky_relu(x, self.alpha)


class ELU(Cell):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = alpha

    def construct(self, x: Tensor) -> Tensor:
        return F.elu(x, self.alpha)


class GELU(Cell):
    """Gaussian error linear unit. As in MindSpore, `approximate=True` (the default) uses the
    tanh formula; False uses the exact erf form."""

    def __init__(self, approximate: bool = True) -> None:
        super().__init__()
        self.approximate = approximate

    def construct(self, x: Tensor) -> Tensor:
        return F.gelu(x, "tanh" if self.approximate else "none")


class Softmax(Cell):
    """exp(x) / sum(exp(x)) along `axis`."""

    def __init__(self, axis: Axis = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.axis)


class LogSoftmax(Cell):
    """log(softmax(x)) along `axis`, computed stably."""

    def __init__(self, axis: Axis = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.axis)


# MindSpore's names (lower case); Threshold has no defaults and is not named
_BY_NAME = {"relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "silu": SiLU,
            "leakyrelu": LeakyReLU, "elu": ELU, "gelu": GELU, "softmax": Softmax,
            "logsoftmax": LogSoftmax, "prelu": PReLU, "hswish": HSwish, "hsigmoid": HSigmoid,
            "mish": Mish, "selu": SeLU, "celu": CELU, "logsigmoid": LogSigmoid,
            "softsign": Softsign, "softmin": Softmin, "softshrink": SoftShrink,
            "hshrink": HShrink, "tanhshrink": Tanhshrink, "fast_gelu": FastGelu,
            "rrelu": RReLU, "hardtanh": Hardtanh, "glu": GLU, "softmax2d": Softmax2d}


def get_activation(name: str) -> Cell:
    """The activation Cell called `name` ('relu', 'sigmoid', 'tanh', 'gelu', 'mish',
    'hswish'...), built with its defaults.

        >>> type(ms.nn.get_activation("hswish")).__name__
        'HSwish'
    """
    if not isinstance(name, str) or name.lower() not in _BY_NAME:
        raise ValueError(f"get_activation: unknown activation {name!r}; known: {sorted(_BY_NAME)}")
    return _BY_NAME[name.lower()]()
