"""RMSProp, plain and centered, with the update rules of MindSpore's CPU kernels.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> opt = ms.nn.RMSProp(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    >>> opt = ms.nn.RMSProp(net.trainable_params(), centered=True)
"""
from __future__ import annotations
from typing import Any
from ...ops import functional as F
from .. import validation as V
from .optimizer import Optimizer


class RMSProp(Optimizer):
    """Root-mean-square propagation (MindSpore's ApplyRMSProp / ApplyCenteredRMSProp). With g
    the gradient (+ weight_decay * p):

        ms += (g^2 - ms) * (1 - decay)
        mom = momentum * mom + lr * g / sqrt(ms + epsilon);   p -= mom

    centered also tracks the mean gradient and divides by an estimate of the variance:

        mg += (g - mg) * (1 - decay);   denom = ms - mg^2 + epsilon
        mom = momentum * mom + lr * g / sqrt(denom);   p -= mom     (where denom > 0)

    The state is the Parameters `mean_square.<name>` (starting at 1), `moment.<name>` and,
    centered, `mean_grad.<name>`.
    """

    def __init__(self, params: Any, learning_rate: float = 0.1, decay: float = 0.9, momentum: float = 0.0, epsilon: float = 1e-10,
                 use_locking: bool = False, centered: bool = False, loss_scale: float = 1.0, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = "RMSProp"
        self.decay_rate = V.number_in(decay, "decay", owner, 0.0, float("inf"))
        self.momentum = V.number_in(momentum, "momentum", owner, 0.0, float("inf"))
        self.epsilon = V.number_in(epsilon, "epsilon", owner, 0.0, float("inf"), low_open=True)
        self.use_locking = V.boolean(use_locking, "use_locking", owner)
        self.centered = V.boolean(centered, "centered", owner)
        if self.centered:
            self.mg = self._state_like_parameters("mean_grad")
        self.ms = self._state_like_parameters("mean_square", init="ones")
        self.moment = self._state_like_parameters("moment")

    def _update(self, index, param, grad, lr):
        mean_square, moment = self.ms[index], self.moment[index]
        keep = 1.0 - self.decay_rate
        squared = F.sub(F.mul(grad, grad), mean_square)
        F.assign(mean_square, F.add(mean_square, F.mul(squared, keep)))
        if not self.centered:
            denom = F.add(mean_square, self.epsilon)
            F.assign(moment, F.add(F.mul(moment, self.momentum),
                                   F.div(F.mul(grad, lr), F.sqrt(denom))))
            F.assign(param, F.sub(param, moment))
            return
        mean_grad = self.mg[index]
        F.assign(mean_grad, F.add(mean_grad, F.mul(F.sub(grad, mean_grad), keep)))
        denom = F.add(F.sub(mean_square, F.mul(mean_grad, mean_grad)), self.epsilon)
        positive = F.greater(denom, 0.0)
        # MindSpore's kernel leaves both untouched where the variance estimate is not positive
        safe = F.where(positive, denom, F.ones_like(denom))
        new_moment = F.add(F.mul(moment, self.momentum), F.div(F.mul(grad, lr), F.sqrt(safe)))
        F.assign(moment, F.where(positive, new_moment, moment))
        F.assign(param, F.where(positive, F.sub(param, new_moment), param))
