"""Precomputed learning-rate lists (one rate per step), to pass as `learning_rate=` (MindSpore's
mindspore.nn.dynamic_lr). The optimizer uses entry `min(step, len - 1)` at each step.

    >>> import minispore as ms
    >>> ms.nn.piecewise_constant_lr([2, 5], [0.1, 0.05])
    [0.1, 0.1, 0.05, 0.05, 0.05]
"""
import math
from typing import Sequence

from . import validation as V


def piecewise_constant_lr(milestone: Sequence[int], learning_rates: Sequence[float]) -> list[float]:
    """learning_rates[j] for the steps from milestone[j - 1] up to milestone[j] (exclusive)."""
    if len(milestone) != len(learning_rates):
        raise ValueError(f"piecewise_constant_lr: {len(milestone)} milestone(s) but "
                         f"{len(learning_rates)} learning rate(s)")
    lrs, start = [], 0
    for end, rate in zip(milestone, learning_rates):
        end = V.positive_int(end, "milestone", "piecewise_constant_lr")
        if end <= start:
            raise ValueError(f"piecewise_constant_lr: milestones must increase, got {milestone}")
        lrs.extend([float(rate)] * (end - start))
        start = end
    return lrs


def _epochs(total_step, step_per_epoch, owner):
    total_step = V.positive_int(total_step, "total_step", owner)
    step_per_epoch = V.positive_int(step_per_epoch, "step_per_epoch", owner)
    return [i // step_per_epoch for i in range(total_step)]


def exponential_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                         decay_epoch: int, is_stair: bool = False) -> list[float]:
    """learning_rate * decay_rate ** (epoch / decay_epoch) per step (floored when is_stair)."""
    decay_epoch = V.positive_int(decay_epoch, "decay_epoch", "exponential_decay_lr")
    lrs = []
    for epoch in _epochs(total_step, step_per_epoch, "exponential_decay_lr"):
        p = epoch // decay_epoch if is_stair else epoch / decay_epoch
        lrs.append(learning_rate * decay_rate ** p)
    return lrs


def natural_exp_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                         decay_epoch: int, is_stair: bool = False) -> list[float]:
    """learning_rate * e^(-decay_rate * epoch) per step; with is_stair the epoch is floored to a
    multiple of decay_epoch (MindSpore's formula: decay_epoch only matters with is_stair).

    >>> [round(x, 6) for x in natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True)]
    [0.1, 0.1, 0.1, 0.1, 0.01653, 0.01653]
    """
    decay_epoch = V.positive_int(decay_epoch, "decay_epoch", "natural_exp_decay_lr")
    lrs = []
    for epoch in _epochs(total_step, step_per_epoch, "natural_exp_decay_lr"):
        p = epoch // decay_epoch * decay_epoch if is_stair else epoch
        lrs.append(learning_rate * math.e ** (-decay_rate * p))
    return lrs


def inverse_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int,
                     decay_epoch: int, is_stair: bool = False) -> list[float]:
    """learning_rate / (1 + decay_rate * epoch / decay_epoch) per step (the quotient floored
    when is_stair).

    >>> [round(x, 6) for x in inverse_decay_lr(0.1, 0.5, 4, 1, 1, True)]
    [0.1, 0.066667, 0.05, 0.04]
    """
    decay_epoch = V.positive_int(decay_epoch, "decay_epoch", "inverse_decay_lr")
    lrs = []
    for epoch in _epochs(total_step, step_per_epoch, "inverse_decay_lr"):
        p = epoch // decay_epoch if is_stair else epoch / decay_epoch
        lrs.append(learning_rate / (1 + decay_rate * p))
    return lrs


def polynomial_decay_lr(learning_rate: float, end_learning_rate: float, total_step: int,
                        step_per_epoch: int, decay_epoch: int, power: float,
                        update_decay_epoch: bool = False) -> list[float]:
    """(learning_rate - end_learning_rate) * (1 - e / d) ** power + end_learning_rate per step,
    with e = min(epoch, decay_epoch) and d = decay_epoch; with update_decay_epoch, e is the
    epoch and d the first multiple of decay_epoch not below it (at least decay_epoch).

    >>> [round(x, 6) for x in polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5)]
    [0.1, 0.1, 0.07364, 0.07364, 0.01, 0.01]
    """
    owner = "polynomial_decay_lr"
    decay_epoch = V.positive_int(decay_epoch, "decay_epoch", owner)
    V.number_in(power, "power", owner, 0.0, math.inf, low_open=True)
    lrs = []
    for epoch in _epochs(total_step, step_per_epoch, owner):
        if update_decay_epoch:
            span, e = decay_epoch * max(math.ceil(epoch / decay_epoch), 1), epoch
        else:
            span, e = decay_epoch, min(epoch, decay_epoch)
        lrs.append((learning_rate - end_learning_rate) * (1 - e / span) ** power
                   + end_learning_rate)
    return lrs


def cosine_decay_lr(min_lr: float, max_lr: float, total_step: int, step_per_epoch: int,
                    decay_epoch: int) -> list[float]:
    """min_lr + (max_lr - min_lr) * (1 + cos(pi * min(epoch, decay_epoch) / decay_epoch)) / 2."""
    decay_epoch = V.positive_int(decay_epoch, "decay_epoch", "cosine_decay_lr")
    return [min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * min(e, decay_epoch)
                                                             / decay_epoch))
            for e in _epochs(total_step, step_per_epoch, "cosine_decay_lr")]


def warmup_lr(learning_rate: float, total_step: int, step_per_epoch: int,
              warmup_epoch: int) -> list[float]:
    """learning_rate * min(epoch, warmup_epoch) / warmup_epoch per step."""
    warmup_epoch = V.positive_int(warmup_epoch, "warmup_epoch", "warmup_lr")
    return [learning_rate * min(e, warmup_epoch) / warmup_epoch
            for e in _epochs(total_step, step_per_epoch, "warmup_lr")]
