"""Layer-wise adaptive optimizers for large batches: Lamb and the LARS wrapper.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> opt = ms.nn.Lamb(net.trainable_params(), learning_rate=0.01, weight_decay=0.01)
    >>> opt = ms.nn.LARS(ms.nn.Momentum(net.trainable_params(), 0.1, 0.9), coefficient=0.02)
"""
from __future__ import annotations
from typing import Any
from ...grad import tape
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from .optimizer import Optimizer
from ...core.hints import Tensor


def _norm(x):
    return F.sqrt(F.sum(F.mul(x, x)))


class Lamb(Optimizer):
    """LAMB, as MindSpore's Lamb computes it (decoupled weight decay wd, t the step):

        m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g^2
        m_hat = m / (1 - beta1^t);         v_hat = v / (1 - beta2^t)
        update = m_hat / (sqrt(v_hat) + eps) + wd * p
        ratio = ||p|| / ||m_hat / sqrt(v_hat + eps) + wd * p||, 1 where ||p|| or ||g|| is 0,
                clipped to [0, 10]
        p -= lr * ratio * update

    As in MindSpore, the ratio's denominator includes wd * p even for a parameter that weight
    decay skips ('beta'/'gamma' names). Lamb takes no loss_scale. The moments are the
    Parameters `lamb_m.<name>` and `lamb_v.<name>`.
    """

    decoupled_weight_decay = True

    def __init__(self, params: Any, learning_rate: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-6, weight_decay: float = 0.0) -> None:
        super().__init__(learning_rate, params, weight_decay)
        owner = "Lamb"
        self.beta1 = V.number_in(beta1, "beta1", owner, 0.0, 1.0, low_open=True, high_open=True)
        self.beta2 = V.number_in(beta2, "beta2", owner, 0.0, 1.0, low_open=True, high_open=True)
        self.eps = V.number_in(eps, "eps", owner, 0.0, float("inf"), low_open=True)
        self.moments1 = self._state_like_parameters("lamb_m")
        self.moments2 = self._state_like_parameters("lamb_v")

    def _update(self, index, param, grad, lr):
        m, v = self.moments1[index], self.moments2[index]
        F.assign(m, F.add(F.mul(m, self.beta1), F.mul(grad, 1.0 - self.beta1)))
        F.assign(v, F.add(F.mul(v, self.beta2), F.mul(F.mul(grad, grad), 1.0 - self.beta2)))
        t = self.step_index()
        m_hat = F.div(m, F.sub(1.0, F.pow(self.beta1, t)))
        v_hat = F.div(v, F.sub(1.0, F.pow(self.beta2, t)))
        decay = self._ratio_decay(index)
        w_norm, g_norm = _norm(param), _norm(grad)
        g_norm_hat = _norm(F.add(F.mul(m_hat, F.rsqrt(F.add(v_hat, self.eps))),
                                 F.mul(param, decay)))
        ratio = F.where(F.greater(w_norm, 0.0),
                        F.where(F.greater(g_norm, 0.0), F.div(w_norm, g_norm_hat), 1.0), 1.0)
        ratio = F.clip(ratio, 0.0, 10.0)
        update = F.div(m_hat, F.add(F.sqrt(v_hat), self.eps))
        if self.decay_flags[index]:
            update = F.add(update, F.mul(param, decay))
        F.assign(param, F.sub(param, F.mul(update, F.mul(ratio, lr))))

    def _ratio_decay(self, index):
        """This step's weight decay of parameter `index`'s group, even where the name filter
        exempts the parameter (Lamb's trust ratio uses it there too)."""
        if self.decay_flags[index]:
            return self.decay(index)
        decay = self._weight_decay[index]
        return decay if isinstance(decay, float) else decay(self.global_step)


class LARS(Optimizer):
    """Layer-wise adaptive rate scaling around another optimizer (MindSpore's LARS with its
    LARSUpdate): for each parameter that `lars_filter` selects, with wd the wrapped optimizer's
    weight decay (LARS takes it over: the wrapped optimizer no longer applies it),

        ratio = coefficient * ||w|| / (||g|| + wd * ||w|| + epsilon)   (1 if ||w|| or ||g|| is 0)
        ratio = min(ratio / lr, 1)   with use_clip
        g = ratio * (g + wd * w)

    then the wrapped optimizer steps with the new gradients. Parameters the filter skips keep
    their gradient (and get no weight decay), as in MindSpore. Gradients are divided by the
    wrapped optimizer's loss_scale here, once.
    """

    def __init__(self, optimizer: Any, epsilon: float = 1e-05, coefficient: float = 0.001, use_clip: bool = False,
                 lars_filter: Any = lambda x: "LayerNorm" not in x.name and "bias" not in x.name) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"LARS: optimizer must be an Optimizer, got {type(optimizer).__name__}")
        # no state of its own (no step, no learning rate): the wrapped optimizer holds it
        Cell.__init__(self, auto_prefix=False)
        owner = "LARS"
        self.opt = optimizer
        self.epsilon = V.number_in(epsilon, "epsilon", owner, 0.0, float("inf"))
        self.coefficient = V.number_in(coefficient, "coefficient", owner, 0.0, float("inf"))
        self.use_clip = V.boolean(use_clip, "use_clip", owner)
        params = optimizer.parameters
        object.__setattr__(self, "_parameters", params)
        object.__setattr__(self, "_lars_flags", [bool(lars_filter(p)) for p in params])
        # take over the wrapped optimizer's weight decay and loss scale (MindSpore mutates the
        # wrapped optimizer the same way)
        object.__setattr__(self, "_decays", list(optimizer.weight_decay))
        object.__setattr__(self, "_inner_scale", optimizer.loss_scale)
        object.__setattr__(optimizer, "_decay_flags", [False] * len(params))
        optimizer.loss_scale = 1.0

    global_step = property(lambda self: self.opt.global_step)
    is_group = property(lambda self: self.opt.is_group)
    is_group_lr = property(lambda self: self.opt.is_group_lr)
    dynamic_lr = property(lambda self: self.opt.dynamic_lr)

    def get_lr(self):
        """The wrapped optimizer's learning rate this step."""
        return self.opt.get_lr()

    @property
    def weight_decay(self):
        """The weight decay LARS applies to each parameter."""
        return tuple(self._decays)

    def construct(self, gradients: Any) -> bool:
        gradients = self._checked_gradients(gradients)
        inner = self.opt
        with tape.paused():
            rates = inner.get_lr() if self.use_clip else None
            new = []
            for i, (param, grad) in enumerate(zip(self._parameters, gradients)):
                if grad is not None and self._inner_scale != 1.0:
                    grad = F.mul(grad, 1.0 / self._inner_scale)
                if grad is not None and self._lars_flags[i]:
                    lr = ((rates[i] if inner.is_group_lr else rates)  # type: ignore[index]  # use_clip: rates read above
                          if self.use_clip else None)
                    grad = self._scaled(param, grad, self._current_decay(i), lr)
                new.append(grad)
        return inner(tuple(new))

    def _current_decay(self, index):
        decay = self._decays[index]
        return decay if isinstance(decay, float) else decay(self.opt.global_step)

    def _scaled(self, param, grad, decay, lr):
        w_norm, g_norm = _norm(param), _norm(grad)
        ratio = F.div(F.mul(w_norm, self.coefficient),
                      F.add(F.add(g_norm, F.mul(w_norm, decay)), self.epsilon))
        if lr is not None:
            ratio = F.minimum(F.div(ratio, lr), 1.0)
        both = F.logical_and(F.greater(w_norm, 0.0), F.greater(g_norm, 0.0))
        ratio = F.where(both, ratio, 1.0)
        return F.mul(F.add(grad, F.mul(param, decay)), ratio)
