"""Activation Cells: ReLU, ReLU6, Sigmoid, Tanh, SiLU, LeakyReLU, ELU, GELU, Softmax, LogSoftmax
(more, and `get_activation`, in activation_ext).

    >>> import minispore as ms
    >>> ms.nn.ReLU()(ms.Tensor([-1.0, 2.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 0.00000000e+00,  2.00000000e+00])
"""
from ...ops import functional as F
from ..cell import Cell


def _elementwise(name, fn, doc):
    """A Cell class without attributes whose construct is `fn(x)`."""
    def construct(self, x):
        return fn(x)
    return type(name, (Cell,), {"construct": construct, "__doc__": doc,
                                "__module__": __name__})


ReLU = _elementwise("ReLU", F.relu, "max(x, 0).")
ReLU6 = _elementwise("ReLU6", F.relu6, "min(max(x, 0), 6).")
Sigmoid = _elementwise("Sigmoid", F.sigmoid, "1 / (1 + exp(-x)).")
Tanh = _elementwise("Tanh", F.tanh, "tanh(x).")
SiLU = _elementwise("SiLU", F.silu, "x * sigmoid(x).")


class LeakyReLU(Cell):
    """x for x >= 0, alpha * x otherwise (MindSpore's default alpha is 0.2)."""

    def __init__(self, alpha=0.2):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return F.leaky_relu(x, self.alpha)


class ELU(Cell):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return F.elu(x, self.alpha)


class GELU(Cell):
    """Gaussian error linear unit. As in MindSpore, `approximate=True` (the default) uses the
    tanh formula; False uses the exact erf form."""

    def __init__(self, approximate=True):
        super().__init__()
        self.approximate = approximate

    def construct(self, x):
        return F.gelu(x, "tanh" if self.approximate else "none")


class Softmax(Cell):
    """exp(x) / sum(exp(x)) along `axis`."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return F.softmax(x, self.axis)


class LogSoftmax(Cell):
    """log(softmax(x)) along `axis`, computed stably."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return F.log_softmax(x, self.axis)
