"""SGD with PyTorch's arguments and formula (MindSpore's experimental.optim.SGD).

    >>> import minispore as ms
    >>> opt = ms.experimental.optim.SGD(ms.nn.Dense(3, 1).trainable_params(), lr=0.1,
    ...                                 momentum=0.9, nesterov=True)
"""
from ...ops import functional as F
from .optimizer import Optimizer, number


class SGD(Optimizer):
    """g += weight_decay * p; with momentum: b = g at the first step, else
    b = momentum * b + (1 - dampening) * g, and g = g + momentum * b (nesterov) or b;
    p -= lr * g. maximize ascends. The buffers are `momentum_buffer.<name>`."""

    scheduled = ("lr", "momentum")

    def __init__(self, params, lr, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, *, maximize=False):
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize}
        super().__init__(params, defaults)
        for group in self.param_groups:
            number(group, "dampening", "SGD")
            number(group, "weight_decay", "SGD")
            if group["nesterov"] and (float(group["momentum"]) <= 0 or group["dampening"] != 0):
                raise ValueError("SGD: nesterov needs momentum > 0 and dampening = 0")
        self.momentum_buffer = self._state("momentum_buffer")

    def _update(self, group, index, param, grad, step):
        if group["weight_decay"]:
            grad = F.add(grad, F.mul(param, group["weight_decay"]))
        momentum = group["momentum"]
        buffer = self.momentum_buffer[index]
        damped = F.mul(grad, 1.0 - group["dampening"])
        new_buffer = F.where(F.equal(step, 1.0), grad, F.add(F.mul(buffer, momentum), damped))
        F.assign(buffer, new_buffer)
        moved = F.add(grad, F.mul(new_buffer, momentum)) if group["nesterov"] else new_buffer
        # momentum is a Parameter (a scheduler may cycle it): at 0 the step is the gradient
        direction = F.where(F.greater(momentum, 0.0), moved, grad)
        F.assign(param, F.sub(param, F.mul(direction, group["lr"])))
