"""Learning-rate schedules: Cells mapping the optimizer's step (an int Tensor) to a rate.

    >>> import minispore as ms
    >>> lr = ms.nn.ExponentialDecayLR(0.1, decay_rate=0.5, decay_steps=2)
    >>> float(lr(ms.Tensor(4, ms.int32)))        # 0.1 * 0.5 ** (4 / 2)
    0.025...
    >>> opt = ms.nn.SGD(ms.nn.Dense(2, 1).trainable_params(), learning_rate=lr)

Written with ops on the step tensor, so a schedule is traced into a compiled training step.
Formulas are MindSpore's (p is the step over decay_steps, floored when is_stair).
"""
from __future__ import annotations
from typing import Any
import math

from ..core.dtype import float32
from ..ops import functional as F
from . import validation as V
from .cell import Cell
from ..core.hints import Tensor


class LearningRateSchedule(Cell):
    """Base class: `construct(global_step)` returns the rate for that step."""

    def construct(self, global_step: Any) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step)")


def _float_step(global_step):
    return F.cast(global_step, float32)


class _DecayLR(LearningRateSchedule):
    """The arguments of the decays over steps: learning_rate, decay_rate, decay_steps,
    is_stair (MindSpore's checks)."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        owner = type(self).__name__
        self.learning_rate = V.number_in(learning_rate, "learning_rate", owner, 0.0, math.inf)
        self.decay_rate = V.number_in(decay_rate, "decay_rate", owner, 0.0, math.inf,
                                      low_open=True)
        self.decay_steps = V.positive_int(decay_steps, "decay_steps", owner)
        self.is_stair = V.boolean(is_stair, "is_stair", owner)


class ExponentialDecayLR(_DecayLR):
    """learning_rate * decay_rate ** p, p = step / decay_steps."""

    def construct(self, global_step: Any) -> Tensor:
        p = F.div(_float_step(global_step), float(self.decay_steps))
        if self.is_stair:
            p = F.floor(p)
        return F.mul(F.pow(self.decay_rate, p), self.learning_rate)


class NaturalExpDecayLR(_DecayLR):
    """learning_rate * e^(-decay_rate * p). MindSpore's code (its docs say step / decay_steps)
    takes p = step, floored to a multiple of decay_steps when is_stair; so does this.

        >>> float(ms.nn.NaturalExpDecayLR(0.1, 0.9, 4, True)(ms.Tensor(2, ms.int32)))
        0.1...
    """

    def construct(self, global_step: Any) -> Tensor:
        p = _float_step(global_step)
        if self.is_stair:
            p = F.mul(F.floor(F.div(p, float(self.decay_steps))), float(self.decay_steps))
        return F.mul(F.exp(F.mul(p, -self.decay_rate)), self.learning_rate)


class InverseDecayLR(_DecayLR):
    """learning_rate / (1 + decay_rate * p), p = step / decay_steps (floored when is_stair).

        >>> float(ms.nn.InverseDecayLR(0.1, 0.5, 2)(ms.Tensor(4, ms.int32)))   # 0.1 / (1 + 1)
        0.0500000...
    """

    def construct(self, global_step: Any) -> Tensor:
        p = F.div(_float_step(global_step), float(self.decay_steps))
        if self.is_stair:
            p = F.floor(p)
        return F.div(self.learning_rate, F.add(F.mul(p, self.decay_rate), 1.0))


class CosineDecayLR(LearningRateSchedule):
    """min_lr + (max_lr - min_lr) * (1 + cos(pi * p)) / 2,
    p = min(step, decay_steps) / decay_steps."""

    def __init__(self, min_lr: float, max_lr: float, decay_steps: int) -> None:
        super().__init__()
        self.min_lr = V.number_in(min_lr, "min_lr", "CosineDecayLR", 0.0, math.inf)
        self.max_lr = V.number_in(max_lr, "max_lr", "CosineDecayLR", self.min_lr, math.inf,
                                  low_open=True)
        self.decay_steps = V.positive_int(decay_steps, "decay_steps", "CosineDecayLR")

    def construct(self, global_step: Any) -> Tensor:
        p = F.div(F.minimum(_float_step(global_step), float(self.decay_steps)),
                  float(self.decay_steps))
        cosine = F.add(F.cos(F.mul(p, math.pi)), 1.0)
        return F.add(F.mul(cosine, 0.5 * (self.max_lr - self.min_lr)), self.min_lr)


class PolynomialDecayLR(LearningRateSchedule):
    """(learning_rate - end_learning_rate) * (1 - t / decay_steps) ** power + end_learning_rate,
    t = min(step, decay_steps); with update_decay_steps, decay_steps grows to the next multiple
    of itself past the step instead of t stopping."""

    def __init__(self, learning_rate: float, end_learning_rate: float, decay_steps: int, power: float,
                 update_decay_steps: bool = False) -> None:
        super().__init__()
        owner = "PolynomialDecayLR"
        self.learning_rate = V.number_in(learning_rate, "learning_rate", owner, 0.0, math.inf,
                                         low_open=True)
        self.end_learning_rate = V.number_in(end_learning_rate, "end_learning_rate", owner,
                                             0.0, math.inf)
        self.decay_steps = V.positive_int(decay_steps, "decay_steps", owner)
        self.power = V.number_in(power, "power", owner, 0.0, math.inf, low_open=True)
        self.update_decay_steps = V.boolean(update_decay_steps, "update_decay_steps", owner)

    def construct(self, global_step: Any) -> Tensor:
        step = _float_step(global_step)
        if self.update_decay_steps:
            decay_steps: Tensor | float = F.mul(F.maximum(F.ceil(F.div(step, float(self.decay_steps))), 1.0),
                                float(self.decay_steps))
        else:
            step = F.minimum(step, float(self.decay_steps))
            decay_steps = float(self.decay_steps)
        remaining = F.pow(F.sub(1.0, F.div(step, decay_steps)), self.power)
        return F.add(F.mul(remaining, self.learning_rate - self.end_learning_rate),
                     self.end_learning_rate)


class WarmUpLR(LearningRateSchedule):
    """learning_rate * min(step, warmup_steps) / warmup_steps."""

    def __init__(self, learning_rate: float, warmup_steps: int) -> None:
        super().__init__()
        self.learning_rate = V.number_in(learning_rate, "learning_rate", "WarmUpLR", 0.0, math.inf,
                                         low_open=True)
        self.warmup_steps = V.positive_int(warmup_steps, "warmup_steps", "WarmUpLR")

    def construct(self, global_step: Any) -> Tensor:
        fraction = F.div(F.minimum(_float_step(global_step), float(self.warmup_steps)),
                         float(self.warmup_steps))
        return F.mul(fraction, self.learning_rate)
