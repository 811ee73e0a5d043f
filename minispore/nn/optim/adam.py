"""The Adam family with MindSpore's formulas: Adam, LazyAdam, AdamWeightDecay, AdaMax.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> opt = ms.nn.Adam(net.trainable_params(), learning_rate=1e-3)
    >>> opt = ms.nn.Adam(net.trainable_params(), use_amsgrad=True)
    >>> opt = ms.nn.AdamWeightDecay(net.trainable_params(), weight_decay=0.01)
    >>> opt = ms.nn.AdaMax(net.trainable_params(), learning_rate=2e-3)

The bias corrections use t, the 1-based step (`Optimizer.step_index`), in float32.
"""
from __future__ import annotations
from typing import Any
from ...ops import functional as F
from .. import validation as V
from .optimizer import Optimizer


class _AdamBase(Optimizer):
    def __init__(self, params, learning_rate, beta1, beta2, eps, weight_decay, loss_scale,
                 prefixes):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = type(self).__name__
        self.beta1 = V.number_in(beta1, "beta1", owner, 0.0, 1.0, low_open=True, high_open=True)
        self.beta2 = V.number_in(beta2, "beta2", owner, 0.0, 1.0, low_open=True, high_open=True)
        self.eps = V.number_in(eps, "eps", owner, 0.0, float("inf"), low_open=True)
        first, second = prefixes
        setattr(self, first, self._state_like_parameters(first))
        setattr(self, second, self._state_like_parameters(second))
        object.__setattr__(self, "_moment_names", prefixes)

    def _moments(self, index, grad):
        """Update and return the first and second moments of parameter `index`."""
        m = getattr(self, self._moment_names[0])[index]
        v = getattr(self, self._moment_names[1])[index]
        F.assign(m, F.add(F.mul(m, self.beta1), F.mul(grad, 1.0 - self.beta1)))
        F.assign(v, F.add(F.mul(v, self.beta2), F.mul(F.mul(grad, grad), 1.0 - self.beta2)))
        return m, v

    def _bias_correction(self, power):
        """1 - beta^t for beta = beta1 or beta2 (as `power`) at this step."""
        return F.sub(1.0, F.pow(power, self.step_index()))


class Adam(_AdamBase):
    """Adam with bias correction, as MindSpore writes it (t = step + 1, g includes
    weight_decay * p):

        m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g^2
        p -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + eps)

    use_nesterov uses beta1 * m + (1 - beta1) * g in place of m in the update. use_amsgrad
    (AMSGrad, MindSpore's ApplyAdamWithAmsgrad) divides by the running maximum of the raw
    second moment instead of v (the bias correction stays in the step size):

        vhat = max(vhat, v);   p -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(vhat) + eps)

    The moments are the Parameters `moment1.<name>` and `moment2.<name>`, and with
    use_amsgrad `vhat.<name>`. use_locking is accepted for MindSpore compatibility (updates
    never run concurrently here).

        >>> opt = ms.nn.Adam(net.trainable_params(), use_amsgrad=True)
        >>> [p.name for p in opt.vhat]
        ['vhat.weight', 'vhat.bias']
    """

    def __init__(self, params: Any, learning_rate: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 use_locking: bool = False, use_nesterov: bool = False, weight_decay: float = 0.0, loss_scale: float = 1.0,
                 use_amsgrad: bool = False) -> None:
        super().__init__(params, learning_rate, beta1, beta2, eps, weight_decay, loss_scale,
                         ("moment1", "moment2"))
        self.use_nesterov = V.boolean(use_nesterov, "use_nesterov", "Adam")
        self.use_amsgrad = V.boolean(use_amsgrad, "use_amsgrad", "Adam")
        if self.use_amsgrad and self.use_nesterov:
            # MindSpore's AMSGrad kernel has no Nesterov form and silently drops the flag
            raise ValueError("Adam: use_amsgrad and use_nesterov cannot both be True "
                             "(AMSGrad has no Nesterov variant)")
        if self.use_amsgrad:
            self.vhat = self._state_like_parameters("vhat")

    def _update(self, index, param, grad, lr):
        m, v = self._moments(index, grad)
        correction = F.div(F.sqrt(self._bias_correction(self.beta2)),
                           self._bias_correction(self.beta1))
        direction = m
        if self.use_nesterov:
            direction = F.add(F.mul(m, self.beta1), F.mul(grad, 1.0 - self.beta1))
        second_moment = v
        if self.use_amsgrad:
            second_moment = self.vhat[index]
            F.assign(second_moment, F.maximum(second_moment, v))
        step = F.div(direction, F.add(F.sqrt(second_moment), self.eps))
        F.assign(param, F.sub(param, F.mul(step, F.mul(lr, correction))))


class AdamWeightDecay(_AdamBase):
    """Adam with decoupled weight decay, as MindSpore's AdamWeightDecay (no bias correction):

        m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g^2
        p -= lr * (m / (sqrt(v) + eps) + weight_decay * p)

    The moments are the Parameters `adam_m.<name>` and `adam_v.<name>`.
    """

    decoupled_weight_decay = True

    def __init__(self, params: Any, learning_rate: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-6,
                 weight_decay: float = 0.0, loss_scale: float = 1.0) -> None:
        super().__init__(params, learning_rate, beta1, beta2, eps, weight_decay, loss_scale,
                         ("adam_m", "adam_v"))

    def _update(self, index, param, grad, lr):
        m, v = self._moments(index, grad)
        update = F.div(m, F.add(F.sqrt(v), self.eps))
        if self.decay_flags[index]:
            update = F.add(update, F.mul(param, self.decay(index)))
        F.assign(param, F.sub(param, F.mul(update, lr)))


class LazyAdam(Adam):
    """Adam whose sparse updates touch only the rows a sparse gradient names (MindSpore's
    LazyAdam). Gradients here are dense, and on a dense gradient LazyAdam runs MindSpore's
    dense Adam rule, so the update is Adam's exactly; the moments are `moment1.<name>` and
    `moment2.<name>`.

        >>> opt = ms.nn.LazyAdam(net.trainable_params(), learning_rate=1e-3)
    """

    def __init__(self, params: Any, learning_rate: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 use_locking: bool = False, use_nesterov: bool = False, weight_decay: float = 0.0, loss_scale: float = 1.0) -> None:
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale)


class AdaMax(_AdamBase):
    """AdaMax, Adam with the infinity norm (MindSpore's ApplyAdaMax). With g the gradient
    (+ weight_decay * p) and t the step:

        m = beta1 * m + (1 - beta1) * g;   v = max(beta2 * v, |g|)
        p -= lr / (1 - beta1^t) * m / (v + eps)

    The moments are the Parameters `moment1.<name>` and `moment2.<name>`.

        >>> opt = ms.nn.AdaMax(net.trainable_params(), learning_rate=0.002, weight_decay=0.01)
    """

    def __init__(self, params: Any, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-08,
                 weight_decay: float = 0.0, loss_scale: float = 1.0) -> None:
        super().__init__(params, learning_rate, beta1, beta2, eps, weight_decay, loss_scale,
                         ("moment1", "moment2"))

    def _update(self, index, param, grad, lr):
        m, v = self.moment1[index], self.moment2[index]
        F.assign(m, F.add(F.mul(m, self.beta1), F.mul(grad, 1.0 - self.beta1)))
        F.assign(v, F.maximum(F.mul(v, self.beta2), F.abs(grad)))
        step = F.div(lr, self._bias_correction(self.beta1))
        F.assign(param, F.sub(param, F.mul(step, F.div(m, F.add(v, self.eps)))))
