"""experimental.optim (PyTorch-style SGD, Adam, AdamW, lr_scheduler) against numpy references
of PyTorch's documented formulas, in both modes, with groups and schedules."""
import math

import numpy as np
import pytest
from optim_checks import START, assert_params_close, make_params, numpy_grad, run

from minispore.experimental import optim

STEPS = 4


def grouped(params, **w_options):
    w, gamma = params
    return [dict(params=[w], **w_options), {"params": [gamma]}]


def reference(rule, lr_of=lambda name, t: None, steps=STEPS):
    """`rule(name, p, g, t, state, lr)` run with numpy for each parameter (t from 1)."""
    out = {}
    for name in ("w", "gamma"):
        p, state = START[name].copy(), {}
        for t in range(1, steps + 1):
            p = rule(name, p, numpy_grad(name, p), t, state, lr_of(name, t))
        out[name] = p
    return out


@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd(nesterov, mode):
    params = make_params()
    opt = optim.SGD(grouped(params, lr=0.25, weight_decay=0.0625), lr=0.125, momentum=0.875,
                    nesterov=nesterov, dampening=0.0)

    def sgd(name, p, g, t, state, lr):
        g = g + (0.0625 * p if name == "w" else 0)
        b = state["b"] = g if t == 1 else 0.875 * state["b"] + g
        return p - lr * (g + 0.875 * b if nesterov else b)

    assert_params_close(run(opt, params, STEPS),
                        reference(sgd, lambda n, t: 0.25 if n == "w" else 0.125))
    assert [p.name for p in opt.momentum_buffer] == ["momentum_buffer.w", "momentum_buffer.gamma"]


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_and_adamw(amsgrad, mode):
    b1, b2, eps, lr = 0.75, 0.875, 1e-6, 0.125

    def adam(decoupled):
        def rule(name, p, g, t, state, _):
            decay = 0.0625 if name == "w" else 0.03125
            if decoupled:
                p = p * (1 - lr * decay)
            else:
                g = g + decay * p
            m = state["m"] = b1 * state.get("m", 0) + (1 - b1) * g
            v = state["v"] = b2 * state.get("v", 0) + (1 - b2) * g * g
            if amsgrad:
                v = state["vmax"] = np.maximum(state.get("vmax", 0), v)
            c1, c2 = 1 - b1 ** t, 1 - b2 ** t
            return p - lr / c1 * m / (np.sqrt(v) / math.sqrt(c2) + eps)
        return rule

    for cls, decoupled in ((optim.Adam, False), (optim.AdamW, True)):
        params = make_params()
        opt = cls(grouped(params, weight_decay=0.0625), lr=lr, betas=(b1, b2), eps=eps,
                  weight_decay=0.03125, amsgrad=amsgrad)
        # the bias corrections run in float32 (the step counter's dtype, as MindSpore's)
        assert_params_close(run(opt, params, STEPS), reference(adam(decoupled)),
                            rtol=1e-6)
        assert hasattr(opt, "max_exp_avg_sq") == amsgrad


def test_maximize_ascends():
    params = make_params()
    opt = optim.SGD(params, lr=0.125, maximize=True)
    got = run(opt, params, 2)
    want = reference(lambda n, p, g, t, s, lr: p + 0.125 * g, steps=2)
    assert_params_close(got, want)


# ***** schedulers: the rates over epochs *****

def rates(scheduler_of, epochs=7, lr=0.5):
    opt = optim.SGD(make_params(), lr=lr)
    scheduler = scheduler_of(opt)
    out = [float(scheduler.get_last_lr()[0])]
    for _ in range(epochs - 1):
        scheduler.step()
        out.append(float(scheduler.get_last_lr()[0]))
    return out


@pytest.mark.parametrize("make, formula", [
    (lambda o: optim.lr_scheduler.StepLR(o, 3, gamma=0.5), lambda e: 0.5 * 0.5 ** (e // 3)),
    (lambda o: optim.lr_scheduler.MultiStepLR(o, [2, 5], gamma=0.1),
     lambda e: 0.5 * 0.1 ** ((e >= 2) + (e >= 5))),
    (lambda o: optim.lr_scheduler.ExponentialLR(o, 0.8), lambda e: 0.5 * 0.8 ** e),
    (lambda o: optim.lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.1),
     lambda e: 0.1 + 0.4 * (1 + math.cos(math.pi * e / 4)) / 2),
    (lambda o: optim.lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=4),
     lambda e: 0.5 * (0.25 + 0.75 * min(e, 4) / 4)),
    (lambda o: optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3),
     lambda e: 0.25 if e < 3 else 0.5),
    (lambda o: optim.lr_scheduler.PolynomialLR(o, total_iters=4, power=2.0),
     lambda e: 0.5 * (1 - min(e, 4) / 4) ** 2),
    (lambda o: optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1)), lambda e: 0.5 / (e + 1)),
])
def test_schedules(make, formula):
    assert rates(make) == pytest.approx([formula(e) for e in range(7)], rel=1e-6)


def test_one_cycle_rates_and_momentum():
    def one_cycle(step, total=10, peak=1.0, pct=0.3):
        initial, low = peak / 25, peak / 25 / 1e4
        anneal = lambda a, b, f: b + (a - b) / 2 * (math.cos(math.pi * f) + 1)
        up = pct * total - 1
        if step <= up:
            return anneal(initial, peak, step / up), anneal(0.95, 0.85, step / up)
        f = (step - up) / (total - 1 - up)
        return anneal(peak, low, f), anneal(0.85, 0.95, f)

    opt = optim.SGD(make_params(), lr=0.1, momentum=0.9)
    scheduler = optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    for step in range(10):
        want_lr, want_momentum = one_cycle(step)
        assert float(opt.param_groups[0]["lr"]) == pytest.approx(want_lr, rel=1e-6)
        assert float(opt.param_groups[0]["momentum"]) == pytest.approx(want_momentum, rel=1e-6)
        if step < 9:
            scheduler.step()
    with pytest.raises(ValueError, match="cycle_momentum needs"):
        optim.lr_scheduler.OneCycleLR(_no_momentum_optimizer(), max_lr=1.0, total_steps=5)


def _no_momentum_optimizer():
    from minispore.experimental.optim.optimizer import Optimizer

    class Plain(Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

    return Plain(make_params())


def test_a_schedule_reaches_a_compiled_step(mode):
    """The scheduler assigns the lr Parameter: a Graph-mode step reads the new rate."""
    params = make_params()
    opt = optim.SGD(params, lr=0.5)
    scheduler = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    lrs = []
    for _ in range(3):
        lrs.append(float(opt.param_groups[0]["lr"]))
        run(opt, params, 1)
        scheduler.step()
    assert lrs == [0.5, 0.25, 0.125]
    want = reference(lambda n, p, g, t, s, lr: p - lr * g, lambda n, t: 0.5 * 0.5 ** (t - 1),
                     steps=3)
    assert_params_close({p.name: p.asnumpy() for p in params}, want)


def test_errors():
    with pytest.raises(ValueError, match="unknown key"):
        optim.SGD([{"params": make_params(), "speed": 1}], lr=0.1)
    with pytest.raises(ValueError, match="betas must be in"):
        optim.Adam(make_params(), betas=(1.0, 0.9))
    with pytest.raises(TypeError, match="experimental.optim Optimizer"):
        optim.lr_scheduler.StepLR(object(), 1)
