"""SGD and Momentum.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> opt = ms.nn.SGD(net.trainable_params(), learning_rate=0.1, momentum=0.9, nesterov=True)
    >>> opt = ms.nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
"""
from __future__ import annotations
from typing import Any
from ...context import config
from ...ops import functional as F
from .. import validation as V
from .optimizer import Optimizer


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening and Nesterov momentum
    (MindSpore's and PyTorch's formula). With g the gradient (+ weight_decay * p):

        v = momentum * v + (1 - dampening) * g      (v = g at the first step)
        p -= lr * (g + momentum * v)   if nesterov   else   p -= lr * v

    Without momentum, p -= lr * g. The velocities are the Parameters `accum.<name>`.
    """

    def __init__(self, params: Any, learning_rate: float = 0.1, momentum: float = 0.0, dampening: float = 0.0, weight_decay: float = 0.0,
                 nesterov: bool = False, loss_scale: float = 1.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = V.number_in(momentum, "momentum", "SGD", 0.0, float("inf"))
        self.dampening = V.number_in(dampening, "dampening", "SGD", 0.0, float("inf"))
        self.nesterov = V.boolean(nesterov, "nesterov", "SGD")
        if nesterov and (self.momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError("SGD: nesterov needs momentum > 0 and dampening = 0")
        if self.momentum > 0.0:
            self.accum = self._state_like_parameters("accum")

    def _update(self, index, param, grad, lr):
        step = grad
        if self.momentum > 0.0:
            velocity = self.accum[index]
            damped = grad
            if self.dampening != 0.0:
                # the first step starts the velocity at the undamped gradient
                damped = F.where(F.equal(self.global_step, 0), grad,
                                 F.mul(grad, 1.0 - self.dampening))
            F.assign(velocity, F.add(F.mul(velocity, self.momentum), damped))
            step = F.add(grad, F.mul(velocity, self.momentum)) if self.nesterov else velocity
        F.assign(param, F.sub(param, F.mul(step, lr)))


class Momentum(Optimizer):
    """Momentum SGD: MindSpore's ApplyMomentum. With g the gradient (+ weight_decay * p):

        v = momentum * v + g
        p -= lr * v

    use_nesterov follows ApplyMomentum on the device in use, as MindSpore does: its GPU
    kernel applies the documented Nesterov step p -= lr * (g + momentum * v), while its CPU
    kernel ignores the flag and always takes the plain step above (read in MindSpore's
    apply_momentum_cpu_kernel.cc: the kernel has no Nesterov branch), so a MindSpore program
    on CPU prints the plain-momentum numbers and so does this one with device_target "CPU".
    The velocities are the Parameters `moments.<name>`.
    """

    def __init__(self, params: Any, learning_rate: float, momentum: float, weight_decay: float = 0.0, loss_scale: float = 1.0,
                 use_nesterov: bool = False) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = V.number_in(momentum, "momentum", "Momentum", 0.0, float("inf"))
        self.use_nesterov = V.boolean(use_nesterov, "use_nesterov", "Momentum")
        self.moments = self._state_like_parameters("moments")

    def _update(self, index, param, grad, lr):
        velocity = self.moments[index]
        F.assign(velocity, F.add(F.mul(velocity, self.momentum), grad))
        nesterov = self.use_nesterov and config.get_context("device_target") != "CPU"
        step = F.add(grad, F.mul(velocity, self.momentum)) if nesterov else velocity
        F.assign(param, F.sub(param, F.mul(step, lr)))
