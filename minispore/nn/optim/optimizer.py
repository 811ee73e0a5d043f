"""Optimizer: the base of SGD, Momentum, Adam... Called as `optimizer(grads)`.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> opt = ms.nn.SGD(net.trainable_params(), learning_rate=0.1)
    >>> loss_fn = lambda x: net(x).sum()
    >>> _, grads = ms.value_and_grad(loss_fn, None, opt.parameters)(ms.ops.ones((2, 3)))
    >>> opt(grads)          # updates net's parameters in place
    True

Every update is written with ops and stored with `ops.assign`, with the tape paused: eagerly
the Parameters change now; while Graph mode traces a training step, the assigns become graph
outputs written back after the run. Optimizer state (moments, the step counter, the learning
rate) lives in Parameters with requires_grad=False, so checkpoints capture it. Every gradient
is checked (count, shapes, dtypes) before anything is written, so a bad call changes nothing.

`params` is a list of Parameters, or a list of dicts (groups, see param_groups). `learning_rate`
is a float, a 0-d Tensor, a list / 1-D Tensor (one rate per step; the last one repeats), a
LearningRateSchedule Cell, or any callable of the step Tensor. `weight_decay` is a number or a
Cell of the step (dynamic weight decay). Before an optimizer's own rule sees a gradient g of
parameter p, MindSpore's base class turns it into

    g = (g + weight_decay * loss_scale * p)     weight decay (unless the rule is decoupled)
    g = g - mean(g, axes 1..)                   grad_centralization groups, rank >= 2 and
                                                shape[1] a multiple of 16 (MindSpore's rule)
    g = g * (1 / loss_scale)

and so does this one. Ungrouped, weight decay skips parameters whose name contains 'beta' or
'gamma' (normalisation layers); a group's weight decay applies to all of its parameters.
"""
from __future__ import annotations
from typing import Any
import numbers

from ...core.dtype import float32, int32
from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ...grad import tape
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from .param_groups import parse_groups


class Optimizer(Cell):
    """Base class. Subclasses define `_update(index, param, grad, lr)` with ops, and may define
    `_prepare_step()` (state shared by all parameters, e.g. AdaMax's beta1 power)."""

    decoupled_weight_decay = False  # the rule applies weight decay itself (see decay())
    decays_every_parameter = False  # no 'beta'/'gamma' name filter even ungrouped (FTRL)

    def __init__(self, learning_rate: float, parameters: Any, weight_decay: float = 0.0, loss_scale: float = 1.0) -> None:
        super().__init__(auto_prefix=False)
        owner = type(self).__name__
        groups, order = parse_groups(parameters, learning_rate, weight_decay, owner)
        # the network's Parameters are not registered as this cell's own: they belong to the
        # network, and attaching the optimizer to a parent must not rename them
        object.__setattr__(self, "_parameters", ParameterTuple(order))
        self.loss_scale = V.number_in(loss_scale, "loss_scale", owner, 0.0, float("inf"),
                                      low_open=True)
        self.global_step = Parameter(Tensor(0, int32), name="global_step", requires_grad=False)

        lrs = [_LearningRate(learning_rate, owner, "learning_rate")]
        self.learning_rate = lrs[0].holder
        settings = {}  # id(param) -> (index in lrs, weight decay, decays, centralizes)
        for g, group in enumerate(groups):
            if group["own_lr"]:
                lrs.append(_LearningRate(group["lr"], owner, f"learning_rate_group{g}"))
                setattr(self, f"learning_rate_group{g}", lrs[-1].holder)
            decay = group["weight_decay"]
            if isinstance(decay, Cell):
                setattr(self, f"weight_decay_schedule{g}", decay)
            for p in group["params"]:
                named_ok = "beta" not in p.name and "gamma" not in p.name
                decays = (isinstance(decay, Cell) or decay > 0) and (
                    group["grouped"] or named_ok or self.decays_every_parameter)
                settings[id(p)] = (len(lrs) - 1 if group["own_lr"] else 0, decay, decays,
                                   group["grad_centralization"])
        object.__setattr__(self, "_lrs", lrs)
        per_param = [settings[id(p)] for p in order]
        object.__setattr__(self, "_lr_index", [s[0] for s in per_param])
        object.__setattr__(self, "_weight_decay", [s[1] for s in per_param])
        object.__setattr__(self, "_decay_flags", [s[2] for s in per_param])
        object.__setattr__(self, "_centralize", [s[3] for s in per_param])
        object.__setattr__(self, "_step_decays", None)  # this step's decays, during construct
        self.is_group = len(groups) > 1 or groups[0]["grouped"]
        self.is_group_lr = len(lrs) > 1
        self.dynamic_lr = any(lr.dynamic for lr in lrs)
        self.dynamic_weight_decay = any(isinstance(d, Cell) for d in self._weight_decay)

    def _state_like_parameters(self, prefix, init="zeros"):
        """One state Parameter per parameter, named `prefix.<name>` (not trainable)."""
        state = self._parameters.clone(prefix=prefix, init=init)
        for p in state:
            p.requires_grad = False
        return state

    @property
    def parameters(self):
        """The Parameters this optimizer updates (a ParameterTuple, in gradient order)."""
        return self._parameters

    @property
    def weight_decay(self):
        """The weight decay of each parameter (0 where none applies; a Cell where dynamic)."""
        return tuple(d if flag else 0.0 for d, flag in zip(self._weight_decay, self._decay_flags))

    @property
    def decay_flags(self):
        """Whether weight decay applies to each parameter."""
        return tuple(self._decay_flags)

    def get_lr(self):
        """The learning rate of the current step (a tuple, one per parameter, with groups)."""
        values = [lr.value(self.global_step) for lr in self._lrs]
        if not self.is_group_lr:
            return values[0]
        return tuple(values[i] for i in self._lr_index)

    def get_lr_parameter(self, param):
        """The learning rate of the current step for `param` (or a list of Parameters)."""
        params = list(param) if isinstance(param, (list, tuple)) else [param]
        index = {id(p): i for i, p in enumerate(self._parameters)}
        missing = [p.name for p in params if id(p) not in index]
        if missing:
            raise ValueError(f"{type(self).__name__}.get_lr_parameter: {missing} are not "
                             f"parameters of this optimizer")
        values = [self._lrs[self._lr_index[index[id(p)]]].value(self.global_step) for p in params]
        return values if isinstance(param, (list, tuple)) else values[0]

    def get_weight_decay(self):
        """The weight decay of the current step, one per parameter (0 where none applies)."""
        return tuple(_decay_value(d, self.global_step) if flag else 0.0
                     for d, flag in zip(self._weight_decay, self._decay_flags))

    def decay(self, index):
        """During an update: the weight decay of parameter `index` this step (0 if none)."""
        return self._step_decays[index]

    def construct(self, gradients: Any) -> bool:
        gradients = self._checked_gradients(gradients)
        with tape.paused():
            rates = [lr.value(self.global_step) for lr in self._lrs]
            object.__setattr__(self, "_step_decays", self.get_weight_decay())
            try:
                self._prepare_step()
                for i, (param, grad) in enumerate(zip(self._parameters, gradients)):
                    if grad is not None:
                        grad = self._preprocess(i, param, grad)
                        self._update(i, param, grad, rates[self._lr_index[i]])
            finally:
                object.__setattr__(self, "_step_decays", None)
            F.assign_add(self.global_step, 1)
        return True

    def _checked_gradients(self, gradients):
        """The gradients as a tuple, after checking every one against its parameter."""
        return checked_gradients(type(self).__name__, self._parameters, gradients)

    def _preprocess(self, index, param, grad):
        """MindSpore's decay_weight, gradients_centralization and scale_grad, in that order."""
        if self._decay_flags[index] and not self.decoupled_weight_decay:
            grad = F.add(grad, F.mul(param, self.decay(index) * self.loss_scale))
        if self._centralize[index] and grad.ndim >= 2 and grad.shape[1] % 16 == 0:
            grad = F.sub(grad, F.mean(grad, tuple(range(1, grad.ndim)), keep_dims=True))
        if self.loss_scale != 1.0:
            grad = F.mul(grad, 1.0 / self.loss_scale)
        return grad

    def _prepare_step(self):
        """State shared by every parameter's update, advanced once per step (none here)."""

    def _update(self, index, param, grad, lr):
        raise NotImplementedError(f"{type(self).__name__} must define _update")

    def step_index(self):
        """The 1-based number of this step as a float32 Tensor (t in bias corrections)."""
        return F.cast(F.add(self.global_step, 1), float32)


def checked_gradients(owner, parameters, gradients):
    """`gradients` as a tuple, each checked against its parameter (count, Tensor, shape,
    dtype; None skips a parameter) before any state is written."""
    if isinstance(gradients, Tensor) or not isinstance(gradients, (tuple, list)):
        raise TypeError(f"{owner}: gradients must be a tuple of Tensors (one per parameter), "
                        f"got {type(gradients).__name__}")
    gradients = tuple(gradients)
    if len(gradients) != len(parameters):
        raise ValueError(f"{owner}: got {len(gradients)} gradient(s) for "
                         f"{len(parameters)} parameter(s)")
    for param, grad in zip(parameters, gradients):
        if grad is None:
            continue
        if not isinstance(grad, Tensor):
            raise TypeError(f"{owner}: the gradient of {param.name} must be a Tensor, "
                            f"got {type(grad).__name__}")
        if tuple(grad.shape) != tuple(param.shape):
            raise ValueError(f"{owner}: the gradient of {param.name} has shape {grad.shape}, "
                             f"the parameter {param.shape}")
        if grad.dtype != param.dtype:
            raise TypeError(f"{owner}: the gradient of {param.name} has dtype {grad.dtype}, "
                            f"the parameter {param.dtype}")
    return gradients


def _decay_value(decay, step):
    if isinstance(decay, Cell):
        value = decay(step)
        return value if isinstance(value, Tensor) else Tensor(float(value), float32)
    return decay


class _LearningRate:
    """One learning rate of an optimizer. `holder` is what the optimizer registers (a
    Parameter, a schedule Cell, or a plain callable); `value(step)` is the rate at `step`."""

    def __init__(self, spec, owner, name):
        self.dynamic, self._table_size, self._schedule = False, None, None
        if isinstance(spec, Cell) or (callable(spec) and not isinstance(spec, Tensor)):
            self.holder, self._schedule, self.dynamic = spec, spec, True
            return
        if isinstance(spec, (list, tuple)) or (isinstance(spec, Tensor) and spec.ndim == 1):
            values = F.cast(spec, float32) if isinstance(spec, Tensor) else Tensor(spec, float32)
            if values.ndim != 1 or values.shape[0] == 0:
                raise ValueError(f"{owner}: a learning-rate list must be a non-empty 1-D sequence")
            self._table_size, self.dynamic = values.shape[0], True
            self.holder = Parameter(values, name=name, requires_grad=False)
            return
        if isinstance(spec, Tensor) and spec.ndim == 0:
            spec = float(spec.asnumpy())
        if isinstance(spec, bool) or not isinstance(spec, numbers.Real) or spec < 0:
            raise TypeError(f"{owner}: learning_rate must be a non-negative float, a 0-d or 1-D "
                            f"Tensor, a list, a LearningRateSchedule or a callable, got {spec!r}")
        self.holder = Parameter(Tensor(float(spec), float32), name=name, requires_grad=False)

    def value(self, step):
        if self._schedule is not None:
            rate = self._schedule(step)
            return rate if isinstance(rate, Tensor) else Tensor(float(rate), float32)
        if self._table_size is not None:
            return F.gather(self.holder, F.minimum(step, self._table_size - 1), 0)
        return self.holder
