"""The base of the PyTorch-style optimizers (MindSpore's experimental.optim.Optimizer).

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> opt = ms.experimental.optim.SGD([{"params": [net.weight], "lr": 0.5},
    ...                                  {"params": [net.bias]}], lr=0.1)
    >>> [round(float(group["lr"]), 6) for group in opt.param_groups]
    [0.5, 0.1]

`param_groups` are dicts as in PyTorch: "params" plus each hyperparameter, a group's own value
or the optimizer's default. "lr" is a Parameter (a schedule in lr_scheduler assigns it, and a
compiled training step reads its current value), as are the hyperparameters a scheduler may
cycle (SGD's "momentum", Adam's beta1, see `scheduled`). `state_step` counts the steps.
Called as `optimizer(grads)` like minispore.nn's optimizers, with the same checks first.
"""
import numbers

from ...core.dtype import float32, int32
from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ...grad import tape
from ...nn.cell import Cell
from ...nn.optim.optimizer import checked_gradients
from ...nn.optim.param_groups import check_parameters
from ...ops import functional as F


class Optimizer(Cell):
    """Base class: subclasses define `_update(group, index, param, grad, step)` with ops (step:
    this step's number from 1, a float32 Tensor)."""

    scheduled = ("lr",)  # hyperparameters held in Parameters, which schedulers may assign

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        owner = type(self).__name__
        if isinstance(params, (Parameter, Tensor)):
            raise TypeError(f"{owner}: params must be a list of Parameters or of group dicts")
        items = list(params)
        if not items:
            raise ValueError(f"{owner}: the parameter list is empty")
        groups = [dict(item) if isinstance(item, dict) else None for item in items]
        if all(g is None for g in groups):
            groups = [{"params": items}]
        elif any(g is None for g in groups):
            raise TypeError(f"{owner}: params mixes Parameters and group dicts")
        ordered, held = [], []
        for g, group in enumerate(groups):
            if "params" not in group:
                raise ValueError(f"{owner}: parameter group {g} has no 'params'")
            group["params"] = list(group["params"])
            check_parameters(group["params"], owner)
            for key, value in defaults.items():
                group.setdefault(key, value)
            unknown = set(group) - set(defaults) - {"params", "initial_lr"}
            if unknown:
                raise ValueError(f"{owner}: unknown key(s) {sorted(unknown)} in parameter group "
                                 f"{g}; known: {sorted(defaults)}")
            for key in self.scheduled:
                group[key] = _hyper_parameter(group[key], key, owner, f"{key}_group_{g}")
                held.append(group[key])
            ordered.extend(group["params"])
        check_parameters(ordered, owner)  # no parameter in two groups
        object.__setattr__(self, "_parameters", ParameterTuple(ordered))
        object.__setattr__(self, "param_groups", groups)
        object.__setattr__(self, "defaults", dict(defaults))
        self.hyper_parameters = ParameterTuple(held)   # registered: checkpoints keep them
        self.state_step = Parameter(Tensor(0, int32), name="state_step", requires_grad=False)

    @property
    def parameters(self):
        """All the Parameters updated, in gradient order (group by group)."""
        return self._parameters

    def _state(self, prefix, init="zeros"):
        """One state Parameter per parameter, named `prefix.<name>` (not trainable)."""
        state = self._parameters.clone(prefix=prefix, init=init)
        for p in state:
            p.requires_grad = False
        return state

    def construct(self, gradients):
        gradients = checked_gradients(type(self).__name__, self._parameters, gradients)
        with tape.paused():
            F.assign_add(self.state_step, 1)
            step = F.cast(self.state_step, float32)
            index = 0
            for group in self.param_groups:
                for param in group["params"]:
                    if gradients[index] is not None:
                        grad = gradients[index]
                        if group.get("maximize"):
                            grad = F.neg(grad)
                        self._update(group, index, param, grad, step)
                    index += 1
        return True

    def _update(self, group, index, param, grad, step):
        raise NotImplementedError(f"{type(self).__name__} must define _update")


def _hyper_parameter(value, key, owner, name):
    if isinstance(value, Parameter):
        return value
    if isinstance(value, Tensor):
        value = float(value.asnumpy())
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < 0:
        raise ValueError(f"{owner}: {key} must be a non-negative number, got {value!r}")
    return Parameter(Tensor(float(value), float32), name=name, requires_grad=False)


def number(group, key, owner, low=0.0, high=float("inf")):
    """group[key] checked to lie in [low, high]."""
    value = group[key]
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not low <= value <= high:
        raise ValueError(f"{owner}: {key} must be a number in [{low}, {high}], got {value!r}")
    return float(value)
