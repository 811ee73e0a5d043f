"""Averaged SGD and resilient backpropagation (Rprop), MindSpore's formulas (PyTorch's too).

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> opt = ms.nn.ASGD(net.trainable_params(), learning_rate=0.1, lambd=1e-4)
    >>> opt = ms.nn.Rprop(net.trainable_params(), learning_rate=0.1, etas=(0.5, 1.2))

Both count steps from 1 (s below), as MindSpore's do after incrementing global_step.
"""
from __future__ import annotations
from typing import Any
from ...core.dtype import float32
from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ...ops import functional as F
from .. import validation as V
from .optimizer import Optimizer


class ASGD(Optimizer):
    """Averaged stochastic gradient descent. With g the gradient (+ weight_decay * p) and
    eta = lr at the first step:

        p = p * (1 - lambd * eta) - eta * g
        ax = p  if mu == 1  else  ax + (p - ax) * mu
        eta = lr / (1 + lambd * lr * s)^alpha;   mu = 1 / max(1, s - t0)

    The state is the scalar Parameters `eta_<name>` and `mu_<name>`, and `ax_.<name>` (the
    average). ASGD takes no loss_scale.
    """

    def __init__(self, params: Any, learning_rate: float = 0.1, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay)
        owner = "ASGD"
        self.lambd = V.number_in(lambd, "lambd", owner, -float("inf"), float("inf"))
        self.alpha = V.number_in(alpha, "alpha", owner, -float("inf"), float("inf"))
        self.t0 = V.number_in(t0, "t0", owner, -float("inf"), float("inf"))
        self.mu = ParameterTuple(_scalars("mu_", self._parameters, 1.0))
        self.eta = ParameterTuple(_scalars("eta_", self._parameters, 0.0))
        self.ax = self._state_like_parameters("ax_")

    def _update(self, index, param, grad, lr):
        mu, eta, ax = self.mu[index], self.eta[index], self.ax[index]
        s = self.step_index()
        eta_now = F.where(F.equal(s, 1.0), F.cast(lr, float32), eta)
        new = F.sub(F.mul(param, F.sub(1.0, F.mul(eta_now, self.lambd))), F.mul(grad, eta_now))
        F.assign(param, new)
        F.assign(ax, F.where(F.not_equal(mu, 1.0), F.add(ax, F.mul(F.sub(new, ax), mu)), new))
        F.assign(eta, F.div(lr, F.pow(F.add(F.mul(F.mul(lr, self.lambd), s), 1.0), self.alpha)))
        F.assign(mu, F.div(1.0, F.maximum(F.sub(s, self.t0), 1.0)))


def _scalars(prefix, params, value):
    return [Parameter(Tensor(value, float32), name=f"{prefix}{p.name}", requires_grad=False)
            for p in params]


class Rprop(Optimizer):
    """Resilient backpropagation: a step size per element, grown by etaplus while the
    gradient keeps its sign and shrunk by etaminus when it flips (the gradient then counts as
    0 for that step). With step sizes starting at lr:

        f = etaplus if g * prev > 0, etaminus if g * prev < 0, else 1
        step = clip(step * f, step_sizes[0], step_sizes[1])
        g = 0 where f == etaminus;   p -= sign(g) * step;   prev = g

    The state is the Parameters `prev.<name>` and `step_size.<name>`. Rprop takes no
    loss_scale.
    """

    def __init__(self, params: Any, learning_rate: float = 0.1, etas: Any = (0.5, 1.2), step_sizes: Any = (1e-6, 50.0),
                 weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay)
        owner = "Rprop"
        if not isinstance(etas, tuple) or len(etas) != 2:
            raise ValueError(f"{owner}: etas must be a tuple of two floats, got {etas!r}")
        if not isinstance(step_sizes, tuple) or len(step_sizes) != 2:
            raise ValueError(f"{owner}: step_sizes must be a tuple of two floats, "
                             f"got {step_sizes!r}")
        self.etaminus = V.number_in(etas[0], "etaminus", owner, 0.0, 1.0, low_open=True,
                                    high_open=True)
        self.etaplus = V.number_in(etas[1], "etaplus", owner, 1.0, float("inf"), low_open=True)
        low = V.number_in(step_sizes[0], "min step size", owner, 0.0, float("inf"))
        high = V.number_in(step_sizes[1], "max step size", owner, low, float("inf"))
        self.step_size_min, self.step_size_max = low, high
        self.prev = self._state_like_parameters("prev")
        self.step_size = self._state_like_parameters("step_size")

    def _update(self, index, param, grad, lr):
        prev, step_size = self.prev[index], self.step_size[index]
        start = F.mul(F.ones_like(step_size), lr)
        size = F.where(F.equal(self.step_index(), 1.0), start, step_size)
        sign = F.sign(F.mul(grad, prev))
        etaplus, etaminus = Tensor(self.etaplus, grad.dtype), Tensor(self.etaminus, grad.dtype)
        factor = F.where(F.greater(sign, 0.0), etaplus,
                         F.where(F.less(sign, 0.0), etaminus, Tensor(1.0, grad.dtype)))
        size = F.clip(F.mul(size, factor), self.step_size_min, self.step_size_max)
        kept = F.where(F.equal(factor, etaminus), F.zeros_like(grad), grad)
        F.assign(param, F.sub(param, F.mul(F.sign(kept), size)))
        F.assign(prev, kept)
        F.assign(step_size, size)
