"""minispore.mint.optim: optimizers with PyTorch's arguments and formulas (AdamW, Adam,
SGD), as MindSpore's mint.optim.

    >>> from minispore import mint
    >>> opt = mint.optim.AdamW(ms.nn.Dense(3, 1).trainable_params(), lr=1e-3)
"""
from ...nn.optim.adam import _AdamBase
from ...nn.optim.sgd import SGD as _SGD
from ...ops import functional as F
from ...core.dtype import float32


class Adam(_AdamBase):
    """PyTorch's Adam: bias-corrected moments, eps added to sqrt(v_hat), weight decay as an
    L2 term in the gradient.

        p -= lr * m_hat / (sqrt(v_hat) + eps),  m_hat = m / (1 - beta1^t), v_hat likewise
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, maximize=False):
        if amsgrad or maximize:
            raise NotImplementedError(f"mint.optim.{type(self).__name__}: amsgrad and "
                                      f"maximize are not supported")
        super().__init__(params, lr, betas[0], betas[1], eps, weight_decay, 1.0,
                         ("exp_avg", "exp_avg_sq"))

    def _update(self, index, param, grad, lr):
        m, v = self._moments(index, grad)
        t = F.cast(F.add(self.global_step, 1), float32)
        m_hat = F.div(m, F.sub(1.0, F.pow(self.beta1, t)))
        v_hat = F.div(v, F.sub(1.0, F.pow(self.beta2, t)))
        step = F.div(m_hat, F.add(F.sqrt(v_hat), self.eps))
        F.assign(param, F.sub(param, F.mul(step, lr)))


class AdamW(Adam):
    """PyTorch's AdamW: Adam with decoupled weight decay, p *= 1 - lr * weight_decay first."""

    decoupled_weight_decay = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)

    def _update(self, index, param, grad, lr):
        if self._weight_decay[index]:
            F.assign(param, F.mul(param, F.sub(1.0, F.mul(lr, self._weight_decay[index]))))
        super()._update(index, param, grad, lr)


class SGD(_SGD):
    """SGD with PyTorch's arguments (momentum buffer b = momentum b + (1 - dampening) g)."""

    def __init__(self, params, lr, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, *, maximize=False):
        if maximize:
            raise NotImplementedError("mint.optim.SGD: maximize is not supported")
        super().__init__(params, lr, momentum, dampening, weight_decay, nesterov)
