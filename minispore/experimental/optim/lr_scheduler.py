"""Learning-rate schedulers with PyTorch's arguments and formulas (MindSpore's
experimental.optim.lr_scheduler): `scheduler.step()` once per epoch (or per step for
OneCycleLR) assigns each group's lr Parameter, so a compiled training step sees it.

    >>> import minispore as ms
    >>> from minispore.experimental import optim
    >>> opt = optim.SGD(ms.nn.Dense(2, 1).trainable_params(), lr=0.1)
    >>> scheduler = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> for epoch in range(4):
    ...     scheduler.step()
    >>> [round(float(lr), 6) for lr in scheduler.get_last_lr()]
    [0.025]

Each scheduler computes the rate of epoch e in closed form from the groups' initial rates
(PyTorch's `_get_closed_form_lr`), which is what the chained updates give when one
scheduler drives the optimizer.
"""
import bisect
import math

from ...core.dtype import float32
from ...core.tensor import Tensor
from ...ops import functional as F
from .optimizer import Optimizer


class LRScheduler:
    """Base class: `_rate(base_lr, epoch)` is the rate of a group starting at base_lr."""

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(self).__name__}: optimizer must be an "
                            f"experimental.optim Optimizer, got {type(optimizer).__name__}")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", float(group["lr"]))
        elif any("initial_lr" not in group for group in optimizer.param_groups):
            raise KeyError(f"{type(self).__name__}: resuming (last_epoch={last_epoch}) needs "
                           f"'initial_lr' in every parameter group")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def get_last_lr(self):
        """The rates the last step() set, one per group (0-d float32 Tensors)."""
        return [Tensor(float(group["lr"]), float32) for group in self.optimizer.param_groups]

    def get_lr(self):
        """The rates of the current epoch, one float per group."""
        return [self._rate(base, self.last_epoch) for base in self.base_lrs]

    def step(self, epoch=None):
        """Advance one epoch (or go to `epoch`) and set every group's rate."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        for group, rate in zip(self.optimizer.param_groups, self.get_lr()):
            F.assign(group["lr"], Tensor(float(rate), float32))

    def _rate(self, base_lr, epoch):
        raise NotImplementedError(f"{type(self).__name__} must define _rate")


class StepLR(LRScheduler):
    """base_lr * gamma ** (epoch // step_size)."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = _positive_int(step_size, "step_size", "StepLR"), gamma
        super().__init__(optimizer, last_epoch)

    def _rate(self, base_lr, epoch):
        return base_lr * self.gamma ** (epoch // self.step_size)


class MultiStepLR(LRScheduler):
    """base_lr * gamma ** (number of milestones <= epoch)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = sorted(int(m) for m in milestones), gamma
        super().__init__(optimizer, last_epoch)

    def _rate(self, base_lr, epoch):
        return base_lr * self.gamma ** bisect.bisect_right(self.milestones, epoch)


class ExponentialLR(LRScheduler):
    """base_lr * gamma ** epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _rate(self, base_lr, epoch):
        return base_lr * self.gamma ** epoch


class CosineAnnealingLR(LRScheduler):
    """eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = _positive_int(T_max, "T_max", "CosineAnnealingLR"), eta_min
        super().__init__(optimizer, last_epoch)

    def _rate(self, base_lr, epoch):
        cosine = 1 + math.cos(math.pi * epoch / self.T_max)
        return self.eta_min + (base_lr - self.eta_min) * cosine / 2


class LinearLR(LRScheduler):
    """base_lr times a factor moving linearly from start_factor to end_factor over
    total_iters epochs, then staying."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if not 0 < start_factor <= 1 or not 0 <= end_factor <= 1:
            raise ValueError(f"LinearLR: start_factor must be in (0, 1] and end_factor in "
                             f"[0, 1], got {start_factor!r} and {end_factor!r}")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = _positive_int(total_iters, "total_iters", "LinearLR")
        super().__init__(optimizer, last_epoch)

    def _rate(self, base_lr, epoch):
        done = min(epoch, self.total_iters) / self.total_iters
        return base_lr * (self.start_factor + (self.end_factor - self.start_factor) * done)


class ConstantLR(LRScheduler):
    """base_lr * factor until total_iters epochs, then base_lr."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        self.factor, self.total_iters = factor, int(total_iters)
        super().__init__(optimizer, last_epoch)

    def _rate(self, base_lr, epoch):
        return base_lr * (self.factor if epoch < self.total_iters else 1.0)


class PolynomialLR(LRScheduler):
    """base_lr * (1 - min(epoch, total_iters) / total_iters) ** power."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = _positive_int(total_iters, "total_iters", "PolynomialLR")
        self.power = power
        super().__init__(optimizer, last_epoch)

    def _rate(self, base_lr, epoch):
        return base_lr * (1 - min(epoch, self.total_iters) / self.total_iters) ** self.power


class LambdaLR(LRScheduler):
    """base_lr * lr_lambda(epoch) (one function, or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        groups = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) \
            else [lr_lambda] * groups
        if len(self.lr_lambdas) != groups:
            raise ValueError(f"LambdaLR: {len(self.lr_lambdas)} functions for {groups} groups")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * fn(self.last_epoch) for base, fn in zip(self.base_lrs, self.lr_lambdas)]


class OneCycleLR(LRScheduler):
    """The 1cycle policy (step it once per batch): the rate rises from max_lr / div_factor to
    max_lr over pct_start of total_steps, then anneals ('cos' or 'linear') to
    initial / final_div_factor (three_phase: back to the initial rate first, then down).
    cycle_momentum moves SGD's momentum or Adam's beta1 the opposite way, between
    max_momentum and base_momentum."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("OneCycleLR: give total_steps, or epochs and steps_per_epoch")
            total_steps = epochs * steps_per_epoch
        self.total_steps = _positive_int(total_steps, "total_steps", "OneCycleLR")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', "
                             f"got {anneal_strategy!r}")
        self.anneal = _cos_anneal if anneal_strategy == "cos" else _linear_anneal
        groups = optimizer.param_groups
        max_lrs = list(max_lr) if isinstance(max_lr, (list, tuple)) else [max_lr] * len(groups)
        for group, peak in zip(groups, max_lrs):
            if last_epoch == -1:
                group["initial_lr"] = peak / div_factor
            group["max_lr"], group["min_lr"] = peak, group["initial_lr"] / final_div_factor
        ends = ([pct_start * total_steps - 1, 2 * pct_start * total_steps - 2, total_steps - 1]
                if three_phase else [pct_start * total_steps - 1, total_steps - 1])
        self.phases = [(end, start_key, end_key) for end, start_key, end_key in zip(
            ends, ("initial_lr", "max_lr", "initial_lr"),
            ("max_lr", "initial_lr", "min_lr") if three_phase else ("max_lr", "min_lr"))]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._momenta = [_momentum_of(group) for group in groups]
            if any(m is None for m in self._momenta):
                raise ValueError("OneCycleLR: cycle_momentum needs an optimizer with momentum "
                                 "(SGD) or betas (Adam); pass cycle_momentum=False")
            self.momentum_range = (max_momentum, base_momentum)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped {step + 1} times, beyond total_steps="
                             f"{self.total_steps}")
        rates = []
        for group in self.optimizer.param_groups:
            start = 0
            for end, start_key, end_key in self.phases:
                if step <= end or end == self.phases[-1][0]:
                    fraction = (step - start) / (end - start)
                    rates.append(self.anneal(group[start_key], group[end_key], fraction))
                    break
                start = end
        if self.cycle_momentum:
            self._set_momenta(step)
        return rates

    def _set_momenta(self, step):
        high, low = self.momentum_range
        # the momentum walks the phases backwards: high -> low while the rate rises, and back
        bounds = [(high, low), (low, high), (high, high)] if len(self.phases) == 3 \
            else [(high, low), (low, high)]
        start = 0
        for (end, _, _), (a, b) in zip(self.phases, bounds):
            if step <= end or end == self.phases[-1][0]:
                value = self.anneal(a, b, (step - start) / (end - start))
                break
            start = end
        for held in self._momenta:
            F.assign(held, Tensor(float(value), float32))


def _cos_anneal(start, end, fraction):
    return end + (start - end) / 2.0 * (math.cos(math.pi * fraction) + 1)


def _linear_anneal(start, end, fraction):
    return (end - start) * fraction + start


def _momentum_of(group):
    if "momentum" in group:
        return group["momentum"]
    if "betas" in group:
        return group["betas"][0]
    return None


def _positive_int(value, name, owner):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{owner}: {name} must be a positive int, got {value!r}")
    return value
