"""MindSpore's optimizer-update, random-draw and margin-loss Primitive classes
(`ops.Adam()(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, grad)`,
`ops.TruncatedNormal()((2, 3))`...), rows of CONFIGURED as in classes_ext.

The optimizer updates write the Parameters they are given with ops.assign, as MindSpore's
kernels do in place, and return what MindSpore returns (the updated var, or var with its
slots); they run eagerly and inside ms.jit alike.

    >>> var = ms.Parameter(ms.Tensor([1.0, 2.0]), name="var")
    >>> ops.ApplyProximalGradientDescent()(var, 0.5, 0.0, 0.0, ms.Tensor([2.0, 2.0])).tolist()
    [0.0, 1.0]
"""
import math
from typing import Any, Callable

import numpy as np

from ..core.tensor import Tensor
from . import functional as F
from .classes_ext import _configured_class


def _assign_all(*pairs):
    """Write each (Parameter, value) pair; the written values, in order."""
    return tuple(F.assign(param, value) for param, value in pairs)


def _shrink(prox, lr, l1, l2):
    """sign(prox) / (1 + lr * l2) * max(|prox| - lr * l1, 0): the proximal step of l1 + l2."""
    kept = F.maximum(F.sub(F.abs(prox), F.mul(lr, l1)), 0.0)
    return F.div(F.mul(F.sign(prox), kept), F.add(F.mul(lr, l2), 1.0))


# ***** optimizer updates (MindSpore's formulas) *****

def _sgd(self, param, grad, lr, accum, momentum, stat):
    """SGD with momentum: the first step (stat > 0) starts accum at the gradient."""
    if self.weight_decay:
        grad = F.add(grad, F.mul(param, self.weight_decay))
    first = F.greater(stat, 0)
    velocity = F.where(first, grad, F.add(F.mul(accum, momentum),
                                          F.mul(grad, 1.0 - self.dampening)))
    velocity = F.where(F.greater(momentum, 0), velocity, accum)
    step = F.add(grad, F.mul(velocity, momentum)) if self.nesterov else velocity
    step = F.where(F.greater(momentum, 0), step, grad)
    F.assign(accum, velocity)
    F.assign(stat, F.where(F.greater(momentum, 0), F.zeros_like(stat), stat))
    return F.assign(param, F.sub(param, F.mul(lr, step)))


# Rules shared with the sparse forms (classes_sparse_optim) are pure: the new values of the
# slots, in the order the slots are passed; the classes write them.

def adagrad_values(self, var, accum, lr, grad):
    """accum += grad ** 2 (with update_slots); var -= lr * grad / (sqrt(accum) + epsilon)."""
    new_accum = F.add(accum, F.square(grad)) if self.update_slots else accum
    denom = F.add(F.sqrt(new_accum), getattr(self, "epsilon", 0.0))
    return F.sub(var, F.div(F.mul(lr, grad), denom)), new_accum


def rms_prop_values(self, var, mean_square, moment, lr, grad, decay, momentum, epsilon):
    ms = F.add(F.mul(mean_square, decay), F.mul(F.square(grad), F.sub(1.0, decay)))
    mom = F.add(F.mul(moment, momentum), F.div(F.mul(lr, grad), F.sqrt(F.add(ms, epsilon))))
    return F.sub(var, mom), ms, mom


def adadelta_values(self, var, accum, accum_update, lr, rho, epsilon, grad):
    new_accum = F.add(F.mul(accum, rho), F.mul(F.square(grad), F.sub(1.0, rho)))
    update = F.mul(F.div(F.sqrt(F.add(accum_update, epsilon)),
                         F.sqrt(F.add(new_accum, epsilon))), grad)
    new_update = F.add(F.mul(accum_update, rho), F.mul(F.square(update), F.sub(1.0, rho)))
    return F.sub(var, F.mul(lr, update)), new_accum, new_update


def proximal_adagrad_values(self, var, accum, lr, l1, l2, grad):
    new_accum = F.add(accum, F.square(grad))
    prox = F.sub(var, F.div(F.mul(lr, grad), F.sqrt(new_accum)))
    return _shrink(prox, lr, l1, l2), new_accum


def ftrl_values(self, var, accum, linear, grad, lr, l1, l2, lr_power, l2_shrinkage=0.0):
    """FTRL-proximal: var = (sign(linear) l1 - linear) / quadratic where |linear| > l1, else 0
    (l2_shrinkage, FtrlV2's, adds 2 l2_shrinkage var to the gradient of the linear term)."""
    new_accum = F.add(accum, F.square(grad))
    power = F.neg(lr_power)
    sigma = F.div(F.sub(F.pow(new_accum, power), F.pow(accum, power)), lr)
    shrunk = F.add(grad, F.mul(var, 2.0 * l2_shrinkage)) if l2_shrinkage else grad
    new_linear = F.sub(F.add(linear, shrunk), F.mul(sigma, var))
    quadratic = F.add(F.div(F.pow(new_accum, power), lr), F.mul(l2, 2.0))
    solved = F.div(F.sub(F.mul(F.sign(new_linear), l1), new_linear), quadratic)
    new_var = F.where(F.greater(F.abs(new_linear), l1), solved, F.zeros_like(var))
    return new_var, new_accum, new_linear


def _dense(values: Callable[..., Any], slots: int, returned: Any) -> Callable[..., Any]:
    """A class call writing values(...)'s results into the first `slots` inputs; it returns
    the written slot `returned` (an int), or the tuple of those numbered in it."""
    def call(self, *args):
        written = _assign_all(*zip(args[:slots], values(self, *args)))
        return written[returned] if isinstance(returned, int) else \
            tuple(written[i] for i in returned)
    return call


def _centered_rms_prop(self, var, mean_grad, mean_square, moment, grad, lr, decay, momentum,
                       epsilon):
    mg = F.add(F.mul(mean_grad, decay), F.mul(grad, F.sub(1.0, decay)))
    ms = F.add(F.mul(mean_square, decay), F.mul(F.square(grad), F.sub(1.0, decay)))
    scale = F.sqrt(F.add(F.sub(ms, F.square(mg)), epsilon))
    mom = F.add(F.mul(moment, momentum), F.div(F.mul(lr, grad), scale))
    return _assign_all((mean_grad, mg), (mean_square, ms), (moment, mom),
                       (var, F.sub(var, mom)))[-1]


def _ada_max(self, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    new_m = F.add(F.mul(m, beta1), F.mul(grad, F.sub(1.0, beta1)))
    new_v = F.maximum(F.mul(v, beta2), F.abs(grad))
    step = F.div(F.mul(F.div(lr, F.sub(1.0, beta1_power)), new_m), F.add(new_v, epsilon))
    out = _assign_all((m, new_m), (v, new_v), (var, F.sub(var, step)))
    return out[2], out[0], out[1]


def adam_values(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    """Adam (optionally Nesterov's): the new (var, m, v)."""
    new_m = F.add(F.mul(m, beta1), F.mul(grad, F.sub(1.0, beta1)))
    new_v = F.add(F.mul(v, beta2), F.mul(F.square(grad), F.sub(1.0, beta2)))
    lr_t = F.div(F.mul(lr, F.sqrt(F.sub(1.0, beta2_power))), F.sub(1.0, beta1_power))
    direction = (F.add(F.mul(new_m, beta1), F.mul(grad, F.sub(1.0, beta1)))
                 if self.use_nesterov else new_m)
    return F.sub(var, F.div(F.mul(lr_t, direction), F.add(F.sqrt(new_v), epsilon))), new_m, new_v


def _adam(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    new_var, new_m, new_v = adam_values(self, var, m, v, beta1_power, beta2_power, lr, beta1,
                                        beta2, epsilon, grad)
    out = _assign_all((m, new_m), (v, new_v), (var, new_var))
    return out[2], out[0], out[1]


def _adam_amsgrad(self, var, m, v, vhat, beta1_power, beta2_power, lr, grad):
    """AMSGrad: Adam with the running maximum vhat of v in the denominator (beta1, beta2,
    epsilon: the instance's attributes, or a dict of them for the V2 form's inputs)."""
    attrs = self if isinstance(self, dict) else vars(self)
    b1, b2, eps = attrs["beta1"], attrs["beta2"], attrs["epsilon"]
    new_m = F.add(F.mul(m, b1), F.mul(grad, F.sub(1.0, b1)))
    new_v = F.add(F.mul(v, b2), F.mul(F.square(grad), F.sub(1.0, b2)))
    new_vhat = F.maximum(vhat, new_v)
    lr_t = F.div(F.mul(lr, F.sqrt(F.sub(1.0, beta2_power))), F.sub(1.0, beta1_power))
    step = F.div(F.mul(lr_t, new_m), F.add(F.sqrt(new_vhat), eps))
    out = _assign_all((m, new_m), (v, new_v), (vhat, new_vhat), (var, F.sub(var, step)))
    return out[3], out[0], out[1], out[2]


def _adam_weight_decay(self, var, m, v, lr, beta1, beta2, epsilon, decay, grad):
    """Adam without bias correction, the decay added to the update: var -= lr * (m / (sqrt(v)
    + epsilon) + decay * var)."""
    new_m = F.add(F.mul(m, beta1), F.mul(grad, F.sub(1.0, beta1)))
    new_v = F.add(F.mul(v, beta2), F.mul(F.square(grad), F.sub(1.0, beta2)))
    update = F.add(F.div(new_m, F.add(F.sqrt(new_v), epsilon)), F.mul(var, decay))
    out = _assign_all((m, new_m), (v, new_v), (var, F.sub(var, F.mul(lr, update))))
    return out[2], out[0], out[1]


def _adam_no_update_param(self, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                          grad):
    """Adam's moments written; returns the step to add to the parameter (not applied)."""
    new_m = F.add(F.mul(m, beta1), F.mul(grad, F.sub(1.0, beta1)))
    new_v = F.add(F.mul(v, beta2), F.mul(F.square(grad), F.sub(1.0, beta2)))
    lr_t = F.div(F.mul(lr, F.sqrt(F.sub(1.0, beta2_power))), F.sub(1.0, beta1_power))
    direction = (F.add(F.mul(new_m, beta1), F.mul(grad, F.sub(1.0, beta1)))
                 if self.use_nesterov else new_m)
    _assign_all((m, new_m), (v, new_v))
    return F.neg(F.div(F.mul(lr_t, direction), F.add(F.sqrt(new_v), epsilon)))


def _adagrad_da(self, var, grad_accum, grad_squared_accum, grad, lr, l1, l2, global_step):
    """Adagrad dual averaging: var = -lr * shrunk(grad_accum) / (l2 * step * lr +
    sqrt(grad_squared_accum)), the accumulators updated first; returns (var,)."""
    accum = F.add(grad_accum, grad)
    squared = F.add(grad_squared_accum, F.square(grad))
    step = F.cast(global_step, accum.dtype)
    shrunk = F.mul(F.sign(accum), F.maximum(F.sub(F.abs(accum), F.mul(l1, step)), 0.0))
    tmp = F.where(F.greater(l1, 0), shrunk, accum)
    new_var = F.div(F.neg(F.mul(lr, tmp)), F.add(F.mul(F.mul(l2, step), lr), F.sqrt(squared)))
    return _assign_all((grad_accum, accum), (grad_squared_accum, squared), (var, new_var))[2:]


def _lars_update(self, weight, gradient, norm_weight, norm_gradient, weight_decay,
                 learning_rate):
    """The LARS gradient: ratio * (gradient + weight_decay * weight), ratio = hyperpara * |w| /
    (|g| + weight_decay * |w| + epsilon) (1 where a norm is 0; with use_clip, min(ratio / lr,
    1)); the norms are the square roots of the sums of squares passed in."""
    w_norm, g_norm = F.sqrt(norm_weight), F.sqrt(norm_gradient)
    ratio = F.div(F.mul(w_norm, self.hyperpara),
                  F.add(F.add(g_norm, F.mul(w_norm, weight_decay)), self.epsilon))
    both = F.logical_and(F.greater(w_norm, 0), F.greater(g_norm, 0))
    ratio = F.where(both, ratio, F.ones_like(ratio))
    if self.use_clip:
        ratio = F.minimum(F.div(ratio, learning_rate), 1.0)
    return F.mul(ratio, F.add(gradient, F.mul(weight, weight_decay)))


def _add_sign(self, var, m, lr, alpha, sign_decay, beta, grad):
    new_m = F.add(F.mul(m, beta), F.mul(grad, F.sub(1.0, beta)))
    agree = F.mul(F.sign(grad), F.sign(new_m))
    update = F.mul(F.add(alpha, F.mul(sign_decay, agree)), grad)
    return _assign_all((m, new_m), (var, F.sub(var, F.mul(lr, update))))[::-1]


def _power_sign(self, var, m, lr, logbase, sign_decay, beta, grad):
    new_m = F.add(F.mul(m, beta), F.mul(grad, F.sub(1.0, beta)))
    agree = F.mul(F.sign(grad), F.sign(new_m))
    update = F.mul(F.exp(F.mul(F.mul(logbase, sign_decay), agree)), grad)
    return _assign_all((m, new_m), (var, F.sub(var, F.mul(lr, update))))[::-1]


def _keras_momentum(self, var, accum, lr, grad, momentum):
    new_accum = F.sub(F.mul(accum, momentum), F.mul(lr, grad))
    step = (F.sub(F.mul(new_accum, momentum), F.mul(lr, grad)) if self.use_nesterov
            else new_accum)
    return _assign_all((accum, new_accum), (var, F.add(var, step)))[::-1]


# ***** random draws (from the ms.set_seed generator, as the other random ops) *****

def _int(value: Any) -> int:
    """A static int given as a number or a (constant) Tensor of one element."""
    return int(value.asnumpy().reshape(-1)[0]) if isinstance(value, Tensor) else int(value)


def _seed(value: Any) -> Any:
    return _int(value) or None


def _shape(value: Any) -> tuple:
    return tuple(int(v) for v in (value.asnumpy().tolist() if isinstance(value, Tensor)
                                  else value))


_PHI_2 = 0.5 * (1.0 + math.erf(2.0 / math.sqrt(2.0)))  # the standard normal's CDF at 2


def _truncated_normal(self, shape):
    """Standard normal values in [-2, 2]: the inverse CDF of a uniform draw on [Phi(-2), Phi(2)]."""
    u = F.uniform(_shape(shape), 1.0 - _PHI_2, _PHI_2, self.seed or None, np.float64)
    z = F.mul(F.erfinv(F.sub(F.mul(u, 2.0), 1.0)), math.sqrt(2.0))
    return F.cast(F.clamp(z, -2.0, 2.0), self.dtype)


def _cauchy(self):
    """median + sigma * tan(pi * (u - 1/2)), u uniform on (0, 1)."""
    u = F.uniform(_shape(self.size), 0.0, 1.0, None, np.float64)
    return F.cast(F.add(F.mul(F.tan(F.mul(F.sub(u, 0.5), math.pi)), self.sigma), self.median),
                  np.float32)


def _log_normal_reverse(self, x):
    """exp of normal(mean, std) draws, shaped and typed like x."""
    return F.cast(F.exp(F.normal(x.shape, self.mean, self.std)), x.dtype)


# ***** losses *****

def _multilabel_margin_loss(self, x, target):
    """(loss, is_target): is_target marks each row's classes listed in target before its
    first -1."""
    valid = F.cumprod(F.cast(F.not_equal(target, -1), np.int64), -1)
    safe = F.where(F.greater(valid, 0), target, F.zeros_like(target))
    hits = F.mul(F.one_hot(safe, x.shape[-1], 1, 0), F.expand_dims(valid, -1))
    is_target = F.cast(F.greater(F.sum(hits, -2), 0), target.dtype)
    return F.multilabel_margin_loss(x, target, self.reduction), is_target


CONFIGURED: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {
    "SGD": ({"dampening": 0.0, "weight_decay": 0.0, "nesterov": False}, _sgd),
    "ApplyAdagrad": ({"update_slots": True}, _dense(adagrad_values, 2, (0, 1))),
    "ApplyAdagradV2": ({"epsilon": 1e-6, "update_slots": True},
                       _dense(adagrad_values, 2, (0, 1))),
    "ApplyRMSProp": ({"use_locking": False}, _dense(rms_prop_values, 3, 0)),
    "ApplyCenteredRMSProp": ({"use_locking": False}, _centered_rms_prop),
    "ApplyAdaMax": ({}, _ada_max),
    "ApplyAdadelta": ({}, _dense(adadelta_values, 3, (0, 1, 2))),
    "ApplyProximalAdagrad": ({"use_locking": False}, _dense(proximal_adagrad_values, 2, (0, 1))),
    "ApplyProximalGradientDescent": ({}, lambda self, var, alpha, l1, l2, delta: F.assign(
        var, _shrink(F.sub(var, F.mul(alpha, delta)), alpha, l1, l2))),
    "Adam": ({"use_locking": False, "use_nesterov": False}, _adam),
    "ApplyAdamWithAmsgrad": ({"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8,
                              "use_locking": False}, _adam_amsgrad),
    "ApplyAdamWithAmsgradV2": ({"use_locking": False},
                               lambda self, var, m, v, vhat, beta1_power, beta2_power, lr, beta1,
                               beta2, epsilon, grad: _adam_amsgrad(
                                   {"beta1": beta1, "beta2": beta2, "epsilon": epsilon}, var, m,
                                   v, vhat, beta1_power, beta2_power, lr, grad)),
    "AdamWeightDecay": ({"use_locking": False}, _adam_weight_decay),
    "AdamNoUpdateParam": ({"use_locking": False, "use_nesterov": False}, _adam_no_update_param),
    "ApplyFtrl": ({"use_locking": False}, _dense(ftrl_values, 3, 0)),
    "ApplyAdagradDA": ({"use_locking": False}, _adagrad_da),
    "LARSUpdate": ({"epsilon": 1e-05, "hyperpara": 0.001, "use_clip": False}, _lars_update),
    "ApplyAddSign": ({}, _add_sign),
    "ApplyPowerSign": ({}, _power_sign),
    "ApplyKerasMomentum": ({"use_locking": False, "use_nesterov": False}, _keras_momentum),
    # random draws
    "TruncatedNormal": ({"seed": 0, "seed2": 0, "dtype": np.float32}, _truncated_normal),
    "RandomCategorical": ({"dtype": np.int64}, lambda self, logits, num_sample, seed=0:
                          F.random_categorical(logits, _int(num_sample), _seed(seed) or 0,
                                               self.dtype)),
    "MultinomialWithReplacement": ({"numsamples": 1, "replacement": False},
                                   lambda self, x, seed, offset: F.multinomial(
                                       x, self.numsamples, self.replacement, _seed(seed))),
    "RandpermV2": ({"seed": 0, "offset": 0, "dtype": np.int64}, lambda self, n: F.randperm(
        _int(n), self.seed, self.offset, self.dtype)),
    "Cauchy": ({"size": (1,), "median": 0.0, "sigma": 1.0}, _cauchy),
    "LogNormalReverse": ({"mean": 1.0, "std": 2.0}, _log_normal_reverse),
    # losses
    "MultilabelMarginLoss": ({"reduction": "mean"}, _multilabel_margin_loss),
}


__all__ = sorted(CONFIGURED)
for _name, (_defaults, _call) in CONFIGURED.items():
    globals()[_name] = _configured_class(_name, _defaults, _call)
