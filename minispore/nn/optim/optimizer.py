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
rate) lives in Parameters with requires_grad=False, so checkpoints capture it.

`params` is a list of Parameters, or a list of dicts (groups) with 'params' and optionally
'lr' and 'weight_decay' (plus an optional {'order_params': [...]} entry fixing the order in
which gradients arrive). `learning_rate` is a float, a 0-d Tensor, a list / 1-D Tensor (one
rate per step; the last one repeats), a LearningRateSchedule Cell, or any callable of the
step Tensor. As in MindSpore, a weight_decay given for the whole optimizer skips parameters
whose name contains 'beta' or 'gamma' (normalisation layers); a group's weight_decay applies
to every parameter of the group.
"""
import numbers

from ...core.dtype import float32, int32
from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ...grad import tape
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell

_GROUP_KEYS = ("params", "lr", "weight_decay", "grad_centralization")


class Optimizer(Cell):
    """Base class. Subclasses define `_update(index, param, grad, lr)` with ops and set
    `decoupled_weight_decay = True` if they apply weight decay themselves."""

    decoupled_weight_decay = False

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        owner = type(self).__name__
        groups, order = _parse_groups(parameters, learning_rate, weight_decay, owner)
        # the network's Parameters are not registered as this cell's own: they belong to the
        # network, and attaching the optimizer to a parent must not rename them
        object.__setattr__(self, "_parameters", ParameterTuple(order))
        self.loss_scale = V.number_in(loss_scale, "loss_scale", owner, 0.0, float("inf"),
                                      low_open=True)
        self.global_step = Parameter(Tensor(0, int32), name="global_step", requires_grad=False)

        lrs = [_LearningRate(learning_rate, owner, "learning_rate")]
        self.learning_rate = lrs[0].holder
        settings = {}  # id(param) -> (index in lrs, weight decay)
        for g, group in enumerate(groups):
            if group["own_lr"]:
                lrs.append(_LearningRate(group["lr"], owner, f"learning_rate_group{g}"))
                setattr(self, f"learning_rate_group{g}", lrs[-1].holder)
            for p in group["params"]:
                decays = group["grouped"] or ("beta" not in p.name and "gamma" not in p.name)
                settings[id(p)] = (len(lrs) - 1 if group["own_lr"] else 0,
                                   group["weight_decay"] if decays else 0.0)
        object.__setattr__(self, "_lrs", lrs)
        object.__setattr__(self, "_lr_index", [settings[id(p)][0] for p in order])
        object.__setattr__(self, "_weight_decay", [settings[id(p)][1] for p in order])
        self.is_group = any(group["grouped"] or group["own_lr"] for group in groups)
        self.is_group_lr = len(lrs) > 1
        self.dynamic_lr = any(lr.dynamic for lr in lrs)

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
        """The weight decay of each parameter (0 where none applies)."""
        return tuple(self._weight_decay)

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

    def construct(self, gradients):
        gradients = tuple(gradients)
        if len(gradients) != len(self._parameters):
            raise ValueError(f"{type(self).__name__}: got {len(gradients)} gradient(s) for "
                             f"{len(self._parameters)} parameter(s)")
        with tape.paused():
            rates = [lr.value(self.global_step) for lr in self._lrs]
            for i, (param, grad) in enumerate(zip(self._parameters, gradients)):
                if grad is None:
                    continue
                if tuple(grad.shape) != tuple(param.shape):
                    raise ValueError(f"{type(self).__name__}: the gradient of {param.name} has "
                                     f"shape {grad.shape}, the parameter {param.shape}")
                if self.loss_scale != 1.0:
                    grad = F.div(grad, self.loss_scale)
                if self._weight_decay[i] and not self.decoupled_weight_decay:
                    grad = F.add(grad, F.mul(param, self._weight_decay[i]))
                self._update(i, param, grad, rates[self._lr_index[i]])
            F.assign_add(self.global_step, 1)
        return True

    def _update(self, index, param, grad, lr):
        raise NotImplementedError(f"{type(self).__name__} must define _update")


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


def _parse_groups(parameters, learning_rate, weight_decay, owner):
    """(groups, order): groups [{'params', 'lr', 'own_lr', 'weight_decay', 'grouped'}] and the
    Parameters in gradient order."""
    if isinstance(parameters, Parameter):
        raise TypeError(f"{owner}: params must be a list of Parameters (or of group dicts), "
                        f"got a single Parameter")
    items = list(parameters)
    if not items:
        raise ValueError(f"{owner}: the parameter list is empty")
    weight_decay = V.number_in(weight_decay, "weight_decay", owner, 0.0, float("inf"))
    if not all(isinstance(item, dict) for item in items):
        _check_parameters(items, owner)
        return [{"params": items, "lr": learning_rate, "own_lr": False,
                 "weight_decay": weight_decay, "grouped": False}], items
    groups, order = [], None
    for item in items:
        if "order_params" in item:
            order = list(item["order_params"])
            continue
        unknown = set(item) - set(_GROUP_KEYS)
        if unknown or "params" not in item:
            raise ValueError(f"{owner}: a parameter group needs 'params' and may have "
                             f"{_GROUP_KEYS[1:]}; got keys {sorted(item)}")
        params = list(item["params"])
        _check_parameters(params, owner)
        decay = V.number_in(item.get("weight_decay", weight_decay), "weight_decay", owner,
                            0.0, float("inf"))
        groups.append({"params": params, "lr": item.get("lr"), "own_lr": "lr" in item,
                       "weight_decay": decay, "grouped": "weight_decay" in item})
    grouped = [p for g in groups for p in g["params"]]
    _check_unique(grouped, owner)
    if order is None:
        return groups, grouped
    if {id(p) for p in order} != {id(p) for p in grouped} or len(order) != len(grouped):
        raise ValueError(f"{owner}: order_params must list every grouped parameter exactly once")
    return groups, order


def _check_parameters(params, owner):
    for p in params:
        if not isinstance(p, Parameter):
            raise TypeError(f"{owner}: params must be Parameters, got {type(p).__name__}")
    _check_unique(params, owner)


def _check_unique(params, owner):
    seen = set()
    for p in params:
        if id(p) in seen:
            raise ValueError(f"{owner}: parameter {p.name} is given twice")
        seen.add(id(p))
