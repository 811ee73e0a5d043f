"""FTRL-Proximal (follow the regularised leader), MindSpore's FTRL with ApplyFtrl's update.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> opt = ms.nn.FTRL(net.trainable_params(), learning_rate=0.01, l1=0.001, l2=0.001)
"""
from __future__ import annotations
from typing import Any
import numbers

from ...ops import functional as F
from .. import validation as V
from .optimizer import Optimizer


class FTRL(Optimizer):
    """FTRL. With g the gradient (+ weight_decay * p, on every parameter: MindSpore's FTRL has
    no 'beta'/'gamma' exemption) and p = -lr_power:

        accum' = accum + g^2
        linear += g - (accum'^p - accum^p) / lr * w
        w = (sign(linear) * l1 - linear) / (accum'^p / lr + 2 * l2)   if |linear| > l1, else 0

    The learning rate is one fixed float (MindSpore supports no schedule or group rate here).
    The state is the Parameters `moments.<name>` (accumulators, starting at initial_accum) and
    `linear.<name>`.
    """

    decays_every_parameter = True

    def __init__(self, params: Any, initial_accum: float = 0.1, learning_rate: float = 0.001, lr_power: float = -0.5, l1: float = 0.0,
                 l2: float = 0.0, use_locking: bool = False, loss_scale: float = 1.0, weight_decay: float = 0.0) -> None:
        owner = "FTRL"
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real):
            raise ValueError(f"{owner}: learning_rate must be a float (dynamic learning rates are "
                             f"not supported, as in MindSpore), got {learning_rate!r}")
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if self.is_group_lr:
            raise ValueError(f"{owner}: group learning rates are not supported (MindSpore's FTRL "
                             f"has none)")
        start = V.number_in(initial_accum, "initial_accum", owner, 0.0, float("inf"))
        self.lr = V.number_in(learning_rate, "learning_rate", owner, 0.0, float("inf"),
                              low_open=True)
        self.lr_power = V.number_in(lr_power, "lr_power", owner, -float("inf"), 0.0)
        self.l1 = V.number_in(l1, "l1", owner, 0.0, float("inf"))
        self.l2 = V.number_in(l2, "l2", owner, 0.0, float("inf"))
        self.use_locking = V.boolean(use_locking, "use_locking", owner)
        self.moments = self._state_like_parameters("moments", init=start)
        self.linear = self._state_like_parameters("linear")

    def _update(self, index, param, grad, lr):
        accum, linear = self.moments[index], self.linear[index]
        power = -self.lr_power
        new_accum = F.add(accum, F.mul(grad, grad))
        new_root = F.pow(new_accum, power)
        sigma = F.div(F.sub(new_root, F.pow(accum, power)), lr)
        F.assign(linear, F.sub(F.add(linear, grad), F.mul(sigma, param)))
        quadratic = F.add(F.div(new_root, lr), 2.0 * self.l2)
        shrunk = F.div(F.sub(F.mul(F.sign(linear), self.l1), linear), quadratic)
        F.assign(param, F.where(F.greater(F.abs(linear), self.l1), shrunk, F.zeros_like(param)))
        F.assign(accum, new_accum)
