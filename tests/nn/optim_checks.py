"""A small problem for optimizer tests and a numpy runner for reference update rules.

loss = sum(a * p^2 + b * p) over two float64 parameters, 'w' (2x2) and 'gamma' (2,): the
gradient 2 a p + b depends on the parameters, so several steps exercise every state update.
"""
import numpy as np
from nn_checks import T

import minispore as ms
from minispore import Parameter, ops

A = {"w": np.array([[0.5, 1.5], [2.0, 0.3]]), "gamma": np.array([0.7, 1.2])}
B = {"w": np.array([[0.1, -0.4], [0.3, 0.2]]), "gamma": np.array([-0.5, 0.25])}
START = {"w": np.array([[1.0, -2.0], [0.5, 3.0]]), "gamma": np.array([2.0, -1.0])}
NAMES = ("w", "gamma")


def make_params():
    return [Parameter(T(START[n].copy()), name=n) for n in NAMES]


def loss_of(params):
    return sum(ops.sum(T(A[p.name]) * p * p + T(B[p.name]) * p) for p in params)


def numpy_grad(name, value):
    return 2 * A[name] * value + B[name]


def run(optimizer, params, steps):
    """`steps` optimizer steps on the problem; the parameters' values by name."""
    for _ in range(steps):
        grads = ms.grad(lambda: loss_of(params), None, optimizer.parameters)()
        optimizer(grads)
    return {p.name: p.asnumpy() for p in params}


def reference(update, steps, decays=NAMES):
    """Run `update(name, p, g, t, state, decays) -> p` with numpy for each parameter
    (t counts from 0; `decays` says whether weight decay applies to the parameter)."""
    out = {}
    for name in NAMES:
        p, state = START[name].copy(), {}
        for t in range(steps):
            p = update(name, p, numpy_grad(name, p), t, state, name in decays)
        out[name] = p
    return out


def rule_reference(rule, steps, lr, decay, decoupled=False):
    """Run `rule(p, g, state, lr, s, decay) -> p` (s counts from 1) for each parameter, with the
    base optimizer's weight decay added to g unless `decoupled`; `lr(name, t)` and
    `decay(name)` give each parameter's rate at step t (from 0) and weight decay."""
    def update(name, p, g, t, state, _):
        wd = decay(name)
        if not decoupled:
            g = g + wd * p
        return rule(p, g, state, lr(name, t), t + 1, wd)
    return reference(update, steps)


def assert_params_close(got, want, rtol=1e-10):
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=rtol, atol=1e-12, err_msg=name)
