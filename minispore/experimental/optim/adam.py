"""Adam and AdamW with PyTorch's arguments and formulas (MindSpore's experimental.optim).

    >>> import minispore as ms
    >>> opt = ms.experimental.optim.AdamW(ms.nn.Dense(3, 1).trainable_params(), lr=1e-3,
    ...                                   betas=(0.9, 0.999), weight_decay=0.01, amsgrad=True)
"""
from ...core.parameter import ParameterTuple
from ...ops import functional as F
from .optimizer import Optimizer, _hyper_parameter, number


class Adam(Optimizer):
    """With t the step, bias corrections c1 = 1 - beta1^t and c2 = 1 - beta2^t
    (g += weight_decay * p first):

        m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2
        p -= lr / c1 * m / (sqrt(v) / sqrt(c2) + eps)

    amsgrad divides by the running maximum of v instead. beta1 is a Parameter (OneCycleLR
    cycles it). The state is `exp_avg.<name>`, `exp_avg_sq.<name>` (and with amsgrad
    `max_exp_avg_sq.<name>`)."""

    decoupled_weight_decay = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, maximize=False):
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize}
        super().__init__(params, defaults)
        owner = type(self).__name__
        betas_held = []
        for g, group in enumerate(self.param_groups):
            beta1, beta2 = group["betas"]
            if not 0.0 <= float(beta1) < 1.0 or not 0.0 <= float(beta2) < 1.0:
                raise ValueError(f"{owner}: betas must be in [0, 1), got {group['betas']!r}")
            number(group, "eps", owner)
            number(group, "weight_decay", owner)
            beta1 = _hyper_parameter(beta1, "beta1", owner, f"beta1_group_{g}")
            group["betas"] = (beta1, float(beta2))
            betas_held.append(beta1)
        self.betas1 = ParameterTuple(betas_held)
        self.exp_avg = self._state("exp_avg")
        self.exp_avg_sq = self._state("exp_avg_sq")
        if any(group["amsgrad"] for group in self.param_groups):
            self.max_exp_avg_sq = self._state("max_exp_avg_sq")

    def _update(self, group, index, param, grad, step):
        beta1, beta2 = group["betas"]
        if group["weight_decay"] and not self.decoupled_weight_decay:
            grad = F.add(grad, F.mul(param, group["weight_decay"]))
        if group["weight_decay"] and self.decoupled_weight_decay:
            F.assign(param, F.mul(param, F.sub(1.0, F.mul(group["lr"], group["weight_decay"]))))
        m, v = self.exp_avg[index], self.exp_avg_sq[index]
        F.assign(m, F.add(F.mul(m, beta1), F.mul(grad, F.sub(1.0, beta1))))
        F.assign(v, F.add(F.mul(v, beta2), F.mul(F.mul(grad, grad), 1.0 - beta2)))
        second = v
        if group["amsgrad"]:
            second = self.max_exp_avg_sq[index]
            F.assign(second, F.maximum(second, v))
        c1 = F.sub(1.0, F.pow(beta1, step))
        c2 = F.sub(1.0, F.pow(beta2, step))
        denom = F.add(F.div(F.sqrt(second), F.sqrt(c2)), group["eps"])
        F.assign(param, F.sub(param, F.mul(F.div(m, denom), F.div(group["lr"], c1))))


class AdamW(Adam):
    """Adam with decoupled weight decay: p *= 1 - lr * weight_decay before Adam's step
    (weight_decay defaults to 0.01)."""

    decoupled_weight_decay = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
