"""Every optimizer beyond SGD/Momentum/Adam against a numpy reference of MindSpore's formula,
over several steps with weight decay, parameter groups and a learning-rate schedule, in both
modes (so both modes end with the same parameters)."""
import numpy as np
import pytest
from optim_checks import assert_params_close, loss_of, make_params, reference, rule_reference, run

import minispore as ms
from minispore import Parameter, Tensor, nn

STEPS = 5
BASE_LR, GROUP_LR, BASE_DECAY, GROUP_DECAY = 0.125, (0.25, 0.5), 0.03125, 0.0625


def grouped(params):
    """w: its own schedule (InverseDecayLR) and weight decay; gamma: the optimizer's."""
    w, gamma = params
    return [{"params": [w], "lr": nn.InverseDecayLR(*GROUP_LR, 1), "weight_decay": GROUP_DECAY},
            {"params": [gamma]}]


def group_lr(name, t):
    """The rates `grouped` gives (the schedule is evaluated in float32, like MindSpore's)."""
    if name == "gamma":
        return BASE_LR
    rate, decay = np.float32(GROUP_LR[0]), np.float32(GROUP_LR[1])
    return float(rate / (np.float32(1) + decay * np.float32(t)))


def group_decay(name):
    # in groups, weight decay applies whatever the name (no 'gamma' exemption)
    return GROUP_DECAY if name == "w" else BASE_DECAY


def check_grouped(make_optimizer, rule, decoupled=False, rtol=1e-10):
    """rtol: 1e-10 where every step is float64; 1e-6 where MindSpore computes in float32
    (bias corrections, ASGD's eta)."""
    params = make_params()
    opt = make_optimizer(grouped(params))
    got = run(opt, params, STEPS)
    assert_params_close(got, rule_reference(rule, STEPS, group_lr, group_decay, decoupled), rtol)
    return opt


# ***** the rules, from MindSpore's kernels and docs (s: the step, from 1) *****

def adagrad(p, g, state, lr, s, wd):
    state["accum"] = state.get("accum", 0.1) + g * g
    return p - lr * g / np.sqrt(state["accum"] + 1e-6)


def proximal_adagrad(p, g, state, lr, s, wd, l1=0.05, l2=0.02):
    state["accum"] = state.get("accum", 0.1) + g * g
    rate = lr / np.sqrt(state["accum"])
    prox = p - rate * g
    return np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0) / (1 + rate * l2)


def adadelta(p, g, state, lr, s, wd, rho=0.9, eps=1e-6):
    accum = state["accum"] = rho * state.get("accum", 0) + (1 - rho) * g * g
    update = np.sqrt(state.get("accum_update", 0) + eps) * g / np.sqrt(accum + eps)
    state["accum_update"] = rho * state.get("accum_update", 0) + (1 - rho) * update ** 2
    return p - lr * update


def adamax(p, g, state, lr, s, wd, beta1=0.8, beta2=0.95, eps=1e-8):
    m = state["m"] = beta1 * state.get("m", 0) + (1 - beta1) * g
    v = state["v"] = np.maximum(beta2 * state.get("v", 0), np.abs(g))
    return p - lr / (1 - beta1 ** s) * m / (v + eps)


def adam(p, g, state, lr, s, wd, beta1=0.8, beta2=0.95, eps=1e-6):
    m = state["m"] = beta1 * state.get("m", 0) + (1 - beta1) * g
    v = state["v"] = beta2 * state.get("v", 0) + (1 - beta2) * g * g
    return p - lr * np.sqrt(1 - beta2 ** s) / (1 - beta1 ** s) * m / (np.sqrt(v) + eps)


def rmsprop(p, g, state, lr, s, wd, centered=False, decay=0.9, momentum=0.5, eps=1e-10):
    ms_ = state["ms"] = state.get("ms", 1.0) + (g * g - state.get("ms", 1.0)) * (1 - decay)
    denom = ms_ + eps
    if centered:
        mg = state["mg"] = state.get("mg", 0) + (g - state.get("mg", 0)) * (1 - decay)
        denom = ms_ - mg * mg + eps
    mom = state["mom"] = momentum * state.get("mom", 0) + lr * g / np.sqrt(denom)
    return p - mom


def lamb(p, g, state, lr, s, wd, beta1=0.8, beta2=0.95, eps=1e-6):
    m = state["m"] = beta1 * state.get("m", 0) + (1 - beta1) * g
    v = state["v"] = beta2 * state.get("v", 0) + (1 - beta2) * g * g
    m_hat, v_hat = m / (1 - beta1 ** s), v / (1 - beta2 ** s)
    ratio = np.linalg.norm(p) / np.linalg.norm(m_hat / np.sqrt(v_hat + eps) + wd * p)
    ratio = np.clip(ratio, 0, 10)
    return p - lr * ratio * (m_hat / (np.sqrt(v_hat) + eps) + wd * p)


def asgd(p, g, state, lr, s, wd, lambd=0.05, alpha=0.75, t0=2.0):
    # eta is a float32 Parameter in MindSpore: keep it rounded like one
    eta = np.float32(lr) if s == 1 else state["eta"]
    p = p * (1 - np.float32(eta * np.float32(lambd))) - eta * g
    mu = state.get("mu", 1.0)
    state["ax"] = p if mu == 1 else state["ax"] + (p - state["ax"]) * mu
    state["eta"] = np.float32(lr / (1 + lambd * lr * s) ** alpha)
    state["mu"] = np.float32(1 / max(1.0, s - t0))
    return p


def rprop(p, g, state, lr, s, wd, etas=(0.5, 1.2), sizes=(1e-3, 0.2)):
    size = np.full_like(p, lr) if s == 1 else state["size"]
    sign = np.sign(g * state.get("prev", 0))
    factor = np.where(sign > 0, etas[1], np.where(sign < 0, etas[0], 1.0))
    size = state["size"] = np.clip(size * factor, *sizes)
    g = state["prev"] = np.where(factor == etas[0], 0, g)
    return p - np.sign(g) * size


# ***** one test per optimizer: groups + schedule + weight decay, both modes *****

def test_adagrad(mode):
    opt = check_grouped(lambda ps: nn.Adagrad(ps, learning_rate=BASE_LR, weight_decay=BASE_DECAY),
                        adagrad)
    assert [p.name for p in opt.accum] == ["accum.w", "accum.gamma"]


def test_proximal_adagrad(mode):
    check_grouped(lambda ps: nn.ProximalAdagrad(ps, learning_rate=BASE_LR, l1=0.05, l2=0.02,
                                                weight_decay=BASE_DECAY), proximal_adagrad)


def test_adadelta(mode):
    opt = check_grouped(lambda ps: nn.Adadelta(ps, learning_rate=BASE_LR,
                                               weight_decay=BASE_DECAY), adadelta)
    assert [p.name for p in opt.accum_update] == ["accum_update.w", "accum_update.gamma"]


def test_adamax(mode):
    check_grouped(lambda ps: nn.AdaMax(ps, learning_rate=BASE_LR, beta1=0.8, beta2=0.95,
                                       weight_decay=BASE_DECAY), adamax, rtol=1e-6)


def test_lazy_adam_on_dense_gradients_is_adam(mode):
    check_grouped(lambda ps: nn.LazyAdam(ps, learning_rate=BASE_LR, beta1=0.8, beta2=0.95,
                                         eps=1e-6, weight_decay=BASE_DECAY), adam, rtol=1e-6)


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop(centered, mode):
    opt = check_grouped(lambda ps: nn.RMSProp(ps, learning_rate=BASE_LR, momentum=0.5,
                                              centered=centered, weight_decay=BASE_DECAY),
                        lambda *a: rmsprop(*a, centered=centered))
    assert opt.ms[0].name == "mean_square.w" and hasattr(opt, "mg") == centered


def test_lamb(mode):
    opt = check_grouped(lambda ps: nn.Lamb(ps, learning_rate=BASE_LR, beta1=0.8, beta2=0.95,
                                           weight_decay=BASE_DECAY), lamb, decoupled=True,
                        rtol=1e-6)
    assert [p.name for p in opt.moments2] == ["lamb_v.w", "lamb_v.gamma"]


def test_asgd(mode):
    opt = check_grouped(lambda ps: nn.ASGD(ps, learning_rate=BASE_LR, lambd=0.05, t0=2.0,
                                           weight_decay=BASE_DECAY), asgd, rtol=1e-6)
    assert [p.name for p in opt.eta] == ["eta_w", "eta_gamma"] and opt.ax[0].name == "ax_.w"


def test_rprop(mode):
    check_grouped(lambda ps: nn.Rprop(ps, learning_rate=BASE_LR, step_sizes=(1e-3, 0.2),
                                      weight_decay=BASE_DECAY), rprop)


# ***** rules with their own parameter handling *****

def test_ftrl_decays_every_parameter_and_keeps_one_rate(mode):
    l1, l2, lr = 0.05, 0.02, 0.125

    def ftrl(p, g, state, rate, s, wd):
        accum = state.get("accum", 0.1)
        new_accum = accum + g * g
        linear = state["linear"] = state.get("linear", 0) + g - (
            np.sqrt(new_accum) - np.sqrt(accum)) / lr * p
        state["accum"] = new_accum
        quadratic = np.sqrt(new_accum) / lr + 2 * l2
        return np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quadratic, 0.0)

    params = make_params()
    opt = nn.FTRL(params, learning_rate=lr, l1=l1, l2=l2, weight_decay=BASE_DECAY)
    # ungrouped, yet 'gamma' decays too: MindSpore's FTRL has no name exemption
    want = rule_reference(ftrl, STEPS, lambda n, t: lr, lambda n: BASE_DECAY)
    assert_params_close(run(opt, params, STEPS), want)
    with pytest.raises(ValueError, match="dynamic learning rates are not supported"):
        nn.FTRL(make_params(), learning_rate=[0.1, 0.2])
    with pytest.raises(ValueError, match="group learning rates"):
        nn.FTRL([{"params": make_params(), "lr": 0.5}])


def test_lars_scales_the_selected_gradients_then_steps_the_wrapped_optimizer(mode):
    coefficient, eps, lr, decay = 0.5, 1e-5, 0.125, 0.0625

    def lars_momentum(p, g, state, rate, s, wd, lars=True):
        if lars:
            w_norm, g_norm = np.linalg.norm(p), np.linalg.norm(g)
            g = coefficient * w_norm / (g_norm + wd * w_norm + eps) * (g + wd * p)
        v = state["v"] = 0.9 * state.get("v", 0) + g
        return p - rate * v

    params = make_params()
    inner = nn.Momentum(params, learning_rate=lr, momentum=0.9, weight_decay=decay)
    opt = nn.LARS(inner, epsilon=eps, coefficient=coefficient,
                  lars_filter=lambda p: p.name != "gamma")
    got = run(opt, params, STEPS)
    # 'gamma': outside the filter, and exempt from weight decay by name: a plain momentum step
    want = rule_reference(lambda p, g, st, r, s, wd: lars_momentum(p, g, st, r, s, wd, wd > 0),
                          STEPS, lambda n, t: lr, lambda n: decay if n == "w" else 0.0,
                          decoupled=True)
    assert_params_close(got, want)
    assert int(opt.global_step) == STEPS and opt.weight_decay == (decay, 0.0)


def test_dynamic_weight_decay_is_a_schedule_of_the_step(mode):
    params = make_params()
    opt = nn.SGD(params, learning_rate=BASE_LR, weight_decay=nn.ExponentialDecayLR(0.25, 0.5, 1))

    def sgd(name, p, g, t, state, decays):
        # a plain list: the schedule's decay 0.25 * 0.5^t applies to 'w' ('gamma' is exempt)
        return p - BASE_LR * (g + (0.25 * 0.5 ** t * p if decays else 0))

    assert_params_close(run(opt, params, STEPS), reference(sgd, STEPS, decays=("w",)))
    assert opt.dynamic_weight_decay


def test_grad_centralization_removes_the_mean_of_wide_weights(mode):
    rng = np.random.default_rng(0)
    start = rng.standard_normal((3, 16))
    w = Parameter(Tensor(start.copy()), name="w")
    narrow = Parameter(Tensor(start[:, :4].copy()), name="narrow")
    opt = nn.SGD([{"params": [w, narrow], "grad_centralization": True}], learning_rate=0.5)
    g = rng.standard_normal((3, 16))
    opt((Tensor(g), Tensor(g[:, :4])))
    centred = g - g.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(w.asnumpy(), start - 0.5 * centred, rtol=1e-12)
    # MindSpore centralizes only when shape[1] is a multiple of 16
    np.testing.assert_allclose(narrow.asnumpy(), start[:, :4] - 0.5 * g[:, :4], rtol=1e-12)


def test_loss_scale_divides_after_weight_decay():
    params = make_params()
    opt = nn.Adagrad(params, learning_rate=BASE_LR, weight_decay=BASE_DECAY, loss_scale=8.0)
    for _ in range(3):   # the gradients of a loss scaled by 8
        opt(tuple(g * 8.0 for g in ms.grad(lambda: loss_of(params), None, params)()))
    want = rule_reference(adagrad, 3, lambda n, t: BASE_LR,
                          lambda n: BASE_DECAY if n == "w" else 0.0)
    assert_params_close({p.name: p.asnumpy() for p in params}, want)


def test_argument_errors():
    p = make_params()
    with pytest.raises(ValueError, match="Rprop: etaplus must be in"):
        nn.Rprop(p, etas=(0.5, 0.9))
    with pytest.raises(ValueError, match="Rprop: max step size must be in"):
        nn.Rprop(p, step_sizes=(1.0, 0.5))
    with pytest.raises(ValueError, match="Adadelta: rho must be in"):
        nn.Adadelta(p, rho=1.5)
    with pytest.raises(ValueError, match="RMSProp: epsilon must be in"):
        nn.RMSProp(p, epsilon=0.0)
    with pytest.raises(TypeError, match="LARS: optimizer must be an Optimizer"):
        nn.LARS(p)
    with pytest.raises(ValueError, match="Lamb: beta2 must be in"):
        nn.Lamb(p, 0.1, beta2=1.0)
