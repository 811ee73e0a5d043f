"""Adagrad, ProximalAdagrad and Adadelta, with the update rules of MindSpore's CPU kernels.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> opt = ms.nn.Adagrad(net.trainable_params(), accum=0.1, learning_rate=0.01)
    >>> opt = ms.nn.ProximalAdagrad(net.trainable_params(), l1=0.01, l2=0.001)
    >>> opt = ms.nn.Adadelta(net.trainable_params(), learning_rate=1.0, rho=0.9)

In each, g is the gradient after the base class's weight decay and loss scaling.
"""
from __future__ import annotations
from typing import Any
from ...ops import functional as F
from .. import validation as V
from .optimizer import Optimizer

# MindSpore's CPU ApplyAdagrad adds this inside the square root (its docs show no epsilon)
_ADAGRAD_EPS = 1e-6


class Adagrad(Optimizer):
    """Adagrad (MindSpore's ApplyAdagrad):

        accum += g^2   (only if update_slots);   p -= lr * g / sqrt(accum + 1e-6)

    The accumulators are the Parameters `accum.<name>`, starting at `accum`.
    """

    def __init__(self, params: Any, accum: float = 0.1, learning_rate: float = 0.001, update_slots: bool = True,
                 loss_scale: float = 1.0, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        start = V.number_in(accum, "accum", "Adagrad", 0.0, float("inf"))
        self.update_slots = V.boolean(update_slots, "update_slots", "Adagrad")
        self.accum = self._state_like_parameters("accum", init=start)

    def _update(self, index, param, grad, lr):
        accum = self.accum[index]
        if self.update_slots:
            F.assign(accum, F.add(accum, F.mul(grad, grad)))
        step = F.div(grad, F.sqrt(F.add(accum, _ADAGRAD_EPS)))
        F.assign(param, F.sub(param, F.mul(step, lr)))


class ProximalAdagrad(Optimizer):
    """Adagrad with a proximal step for l1/l2 regularisation (MindSpore's
    ApplyProximalAdagrad). With a = lr / sqrt(accum) after accum += g^2:

        prox = p - a * g
        p = sign(prox) * max(|prox| - a * l1, 0) / (1 + a * l2)    (l1 > 0)
        p = prox / (1 + a * l2)                                    (l1 = 0)

    The accumulators are the Parameters `accum.<name>`, starting at `accum`.
    """

    def __init__(self, params: Any, accum: float = 0.1, learning_rate: float = 0.001, l1: float = 0.0, l2: float = 0.0,
                 use_locking: bool = False, loss_scale: float = 1.0, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = "ProximalAdagrad"
        start = V.number_in(accum, "accum", owner, 0.0, float("inf"))
        self.l1 = V.number_in(l1, "l1", owner, 0.0, float("inf"))
        self.l2 = V.number_in(l2, "l2", owner, 0.0, float("inf"))
        self.use_locking = V.boolean(use_locking, "use_locking", owner)
        self.accum = self._state_like_parameters("accum", init=start)

    def _update(self, index, param, grad, lr):
        accum = self.accum[index]
        F.assign(accum, F.add(accum, F.mul(grad, grad)))
        rate = F.div(lr, F.sqrt(accum))
        prox = F.sub(param, F.mul(grad, rate))
        shrink = F.add(F.mul(rate, self.l2), 1.0)
        if self.l1 > 0:
            kept = F.maximum(F.sub(F.abs(prox), F.mul(rate, self.l1)), 0.0)
            prox = F.mul(F.sign(prox), kept)
        F.assign(param, F.div(prox, shrink))


class Adadelta(Optimizer):
    """Adadelta (MindSpore's ApplyAdadelta):

        accum = rho * accum + (1 - rho) * g^2
        update = sqrt(accum_update + epsilon) * g / sqrt(accum + epsilon)
        accum_update = rho * accum_update + (1 - rho) * update^2
        p -= lr * update

    The state is the Parameters `accum.<name>` and `accum_update.<name>`.
    """

    def __init__(self, params: Any, learning_rate: float = 1.0, rho: float = 0.9, epsilon: float = 1e-6, loss_scale: float = 1.0,
                 weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = V.number_in(rho, "rho", "Adadelta", 0.0, 1.0)
        self.epsilon = V.number_in(epsilon, "epsilon", "Adadelta", 0.0, float("inf"))
        self.accum = self._state_like_parameters("accum")
        self.accum_update = self._state_like_parameters("accum_update")

    def _update(self, index, param, grad, lr):
        accum, accum_update = self.accum[index], self.accum_update[index]
        F.assign(accum, F.add(F.mul(accum, self.rho), F.mul(F.mul(grad, grad), 1.0 - self.rho)))
        update = F.mul(F.sqrt(F.add(accum_update, self.epsilon)),
                       F.div(grad, F.sqrt(F.add(accum, self.epsilon))))
        F.assign(accum_update, F.add(F.mul(accum_update, self.rho),
                                     F.mul(F.mul(update, update), 1.0 - self.rho)))
        F.assign(param, F.sub(param, F.mul(update, lr)))
