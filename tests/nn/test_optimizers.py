"""Optimizers against numpy references of MindSpore's (and PyTorch's) update rules."""
from unittest import mock

import numpy as np
import pytest
from nn_checks import T
from optim_checks import assert_params_close, loss_of, make_params, reference, run

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.context.interpreter import STATE
from minispore.grad import tape

@pytest.mark.parametrize("momentum, dampening, nesterov, weight_decay", [
    (0.0, 0.0, False, 0.0), (0.9, 0.0, False, 0.0), (0.9, 0.3, False, 0.0),
    (0.8, 0.0, True, 0.0), (0.9, 0.1, False, 0.05)])
def test_sgd(momentum, dampening, nesterov, weight_decay):
    params = make_params()
    opt = nn.SGD(params, learning_rate=0.0625, momentum=momentum, dampening=dampening,
                 weight_decay=weight_decay, nesterov=nesterov)

    def update(name, p, g, t, state, decays):
        g = g + (weight_decay * p if decays else 0)
        if momentum:
            v = g if t == 0 else momentum * state["v"] + (1 - dampening) * g
            state["v"] = v
            g = g + momentum * v if nesterov else v
        return p - 0.0625 * g

    # weight_decay given for the whole optimizer skips 'gamma'/'beta' parameters (MindSpore)
    assert_params_close(run(opt, params, 4), reference(update, 4, decays=("w",)))


def momentum_reference(nesterov, steps):
    """MindSpore's ApplyMomentum: v = momentum * v + g; p -= lr * v, or with Nesterov
    p -= lr * (g + momentum * v)."""
    def update(name, p, g, t, state, decays):
        g = g + (0.01 * p if decays else 0)
        v = state["v"] = 0.9 * state.get("v", 0) + g
        return p - 0.125 * (g + 0.9 * v if nesterov else v)
    return reference(update, steps, decays=("w",))


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum(nesterov, mode):
    params = make_params()
    opt = nn.Momentum(params, learning_rate=0.125, momentum=0.9, weight_decay=0.01,
                      use_nesterov=nesterov)
    # on CPU MindSpore's ApplyMomentum kernel has no Nesterov branch: the flag changes nothing
    assert_params_close(run(opt, params, 5), momentum_reference(False, 5))
    assert [m.name for m in opt.moments] == ["moments.w", "moments.gamma"]


def test_momentum_nesterov_follows_the_gpu_kernel_off_cpu(monkeypatch):
    # MindSpore's GPU kernel does take the documented Nesterov step; a fake device target
    # shows the same code path here (the context key is read while the update is built)
    from minispore.context import config
    real = config.get_context
    monkeypatch.setattr(config, "get_context",
                        lambda key: "GPU" if key == "device_target" else real(key))
    params = make_params()
    opt = nn.Momentum(params, learning_rate=0.125, momentum=0.9, weight_decay=0.01,
                      use_nesterov=True)
    got = run(opt, params, 5)
    assert_params_close(got, momentum_reference(True, 5))
    assert not np.allclose(got["w"], momentum_reference(False, 5)["w"], rtol=0.05)


def test_a_bad_gradient_changes_nothing(mode):
    """Every gradient is checked before any state is written (issue 13), in both modes with
    the same exception classes."""
    ms.set_seed(0)
    net = nn.Dense(2, 2)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    bad_calls = [((ops.ones((2, 2)), ops.ones((7,))), ValueError, "gradient of bias has shape"),
                 ((ops.ones((2, 2)), ops.ones((2,), ms.int32)), TypeError, "dtype Int32"),
                 ((ops.ones((2, 2)),), ValueError, "got 1 gradient"),
                 ((ops.ones((2, 2)), "g"), TypeError, "must be a Tensor")]
    for grads, error, message in bad_calls:
        with pytest.raises(error, match=message):
            opt(grads)
        for p, b in zip(net.trainable_params(), before):
            np.testing.assert_array_equal(p.asnumpy(), b, err_msg=p.name)
        assert all(not m.asnumpy().any() for m in opt.accum)
        assert int(opt.global_step) == 0
    opt((ops.ones((2, 2)), ops.ones((2,))))        # a good call still works afterwards
    assert int(opt.global_step) == 1 and opt.accum[1].asnumpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_bias_correction(nesterov):
    params = make_params()
    opt = nn.Adam(params, learning_rate=0.01, beta1=0.8, beta2=0.95, eps=1e-6, weight_decay=0.1,
                  use_nesterov=nesterov)

    def update(name, p, g, t, state, decays):
        g = g + (0.1 * p if decays else 0)
        m = state["m"] = 0.8 * state.get("m", 0) + 0.2 * g
        v = state["v"] = 0.95 * state.get("v", 0) + 0.05 * g * g
        lr_t = 0.01 * np.sqrt(1 - 0.95 ** (t + 1)) / (1 - 0.8 ** (t + 1))
        direction = 0.8 * m + 0.2 * g if nesterov else m
        return p - lr_t * direction / (np.sqrt(v) + 1e-6)

    # the bias correction is computed in float32 (the learning rate's dtype)
    assert_params_close(run(opt, params, 5), reference(update, 5, decays=("w",)), rtol=1e-6)
    assert [m.name for m in opt.moment1] == ["moment1.w", "moment1.gamma"]
    assert int(opt.global_step) == 5


def test_adam_first_step_moves_each_weight_by_about_lr():
    p = Parameter(T(np.array([1.0, -1.0, 3.0])), name="p")
    opt = nn.Adam([p], learning_rate=0.125)
    g = np.array([5.0, -0.01, 2.0])
    opt((T(g),))
    # t = 1: m = 0.1 g, v = 0.001 g^2, and the corrected step is lr * sign(g) but for eps, which
    # MindSpore adds to sqrt(v) before the correction (so its effect grows as |g| shrinks)
    step = 0.125 * np.sqrt(0.001) / 0.1 * (0.1 * g) / (np.sqrt(0.001 * g * g) + 1e-8)
    np.testing.assert_allclose(p.asnumpy(), [1.0, -1.0, 3.0] - step, rtol=1e-6)
    assert np.abs(step - 0.125 * np.sign(g)).max() < 1e-5


def amsgrad_update(lr, beta1, beta2, eps, weight_decay, amsgrad):
    """MindSpore's Adam step (ApplyAdamWithAmsgrad with amsgrad): vhat is the running maximum
    of the raw second moment v; the bias correction stays in the step size."""
    def update(name, p, g, t, state, decays):
        g = g + (weight_decay * p if decays else 0)
        m = state["m"] = beta1 * state.get("m", 0) + (1 - beta1) * g
        v = state["v"] = beta2 * state.get("v", 0) + (1 - beta2) * g * g
        if amsgrad:
            v = state["vhat"] = np.maximum(state.get("vhat", 0), v)
        lr_t = lr * np.sqrt(1 - beta2 ** (t + 1)) / (1 - beta1 ** (t + 1))
        return p - lr_t * m / (np.sqrt(v) + eps)
    return update


# beta2 this small lets v fall within a few steps as the gradients shrink, so that the running
# maximum differs from v (else AMSGrad is plain Adam and the test could not tell them apart)
AMSGRAD = {"learning_rate": 0.25, "beta1": 0.5, "beta2": 0.6, "eps": 1e-6, "weight_decay": 0.1}


def amsgrad_reference(steps, amsgrad=True):
    settings = {("lr" if k == "learning_rate" else k): v for k, v in AMSGRAD.items()}
    return reference(amsgrad_update(amsgrad=amsgrad, **settings), steps, decays=("w",))


def test_adam_amsgrad_follows_the_running_maximum_of_v(mode):
    params = make_params()
    opt = nn.Adam(params, use_amsgrad=True, **AMSGRAD)
    got = run(opt, params, 6)
    if mode == "graph":   # the update was compiled, whole
        explanation = ms.explain(opt)
        assert explanation.graphs == 1 and explanation.compiled_whole, str(explanation)
    # the bias correction is computed in float32 (the learning rate's dtype)
    assert_params_close(got, amsgrad_reference(6), rtol=1e-6)
    plain = amsgrad_reference(6, amsgrad=False)
    assert not np.allclose(got["w"], plain["w"], rtol=1e-3)   # the maximum changed the steps
    # the state: vhat = max over steps of moment2, and here strictly above it somewhere
    assert [p.name for p in opt.vhat] == ["vhat.w", "vhat.gamma"]
    assert all(not p.requires_grad for p in opt.vhat)
    vhat, v = opt.vhat[0].asnumpy(), opt.moment2[0].asnumpy()
    assert (vhat >= v).all() and (vhat > v * 1.01).any()


def test_adam_without_amsgrad_is_unchanged(mode):
    params = make_params()
    opt = nn.Adam(params, **AMSGRAD)          # use_amsgrad=False by default
    assert_params_close(run(opt, params, 6), amsgrad_reference(6, amsgrad=False), rtol=1e-6)
    assert not hasattr(opt, "vhat")
    assert [p.name for p in opt.get_parameters()] == [
        "global_step", "learning_rate", "moment1.w", "moment1.gamma", "moment2.w",
        "moment2.gamma"]


def test_adam_amsgrad_state_round_trips_through_a_checkpoint(tmp_path, mode):
    def trainer():
        ms.set_seed(3)
        net = nn.Dense(3, 2)
        return nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                   nn.Adam(net.trainable_params(), use_amsgrad=True, **AMSGRAD))

    rng = np.random.default_rng(0)
    x = T(rng.standard_normal((4, 3)).astype(np.float32))
    y = T(rng.standard_normal((4, 2)).astype(np.float32))
    first = trainer()
    for _ in range(3):
        first(x, y)
    path = str(tmp_path / "amsgrad.ckpt")
    ms.train.save_checkpoint(first, path)
    saved = ms.train.load_checkpoint(path)
    assert {"vhat.weight", "vhat.bias", "moment2.weight", "global_step"} <= set(saved)
    np.testing.assert_array_equal(saved["vhat.weight"].asnumpy(),
                                  first.optimizer.vhat[0].asnumpy())

    second = trainer()     # same initial weights, no steps taken: loads all of first's state
    assert ms.train.load_param_into_net(second, saved, strict_load=True) == ([], [])
    for _ in range(2):     # the resumed run continues exactly where the first one is
        np.testing.assert_array_equal(second(x, y).asnumpy(), first(x, y).asnumpy())
    for a, b in zip(first.get_parameters(), second.get_parameters()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy(), err_msg=a.name)


def test_adam_amsgrad_errors():
    p = Parameter(T(np.ones(2)), name="p")
    with pytest.raises(TypeError, match="Adam: use_amsgrad must be a bool"):
        nn.Adam([p], use_amsgrad=1)
    with pytest.raises(ValueError, match="use_amsgrad and use_nesterov cannot both be True"):
        nn.Adam([p], use_amsgrad=True, use_nesterov=True)


def test_adam_weight_decay_is_decoupled_without_bias_correction():
    params = make_params()
    opt = nn.AdamWeightDecay(params, learning_rate=0.015625, weight_decay=0.1)

    def update(name, p, g, t, state, decays):
        m = state["m"] = 0.9 * state.get("m", 0) + 0.1 * g
        v = state["v"] = 0.999 * state.get("v", 0) + 0.001 * g * g
        step = m / (np.sqrt(v) + 1e-6) + (0.1 * p if decays else 0)
        return p - 0.015625 * step

    assert_params_close(run(opt, params, 4), reference(update, 4, decays=("w",)))
    assert {p.name for p in opt.get_parameters()} >= {"adam_m.w", "adam_v.gamma", "global_step"}


def test_groups_have_their_own_lr_and_weight_decay():
    w, gamma = make_params()
    opt = nn.SGD([{"params": [w], "lr": 0.5}, {"params": [gamma], "weight_decay": 0.1},
                  {"order_params": [gamma, w]}], learning_rate=0.0625)
    assert list(opt.parameters) == [gamma, w] and opt.is_group and opt.is_group_lr
    assert [float(lr) for lr in opt.get_lr()] == [0.0625, 0.5]
    assert float(opt.get_lr_parameter(w)) == 0.5
    # a group's weight_decay applies even to a 'gamma' parameter
    want = reference(lambda n, p, g, t, s, d: p - (0.5 if n == "w" else 0.0625) * (
        g + (0.1 * p if n == "gamma" else 0)), 3)
    assert_params_close(run(opt, [w, gamma], 3), want)


def test_learning_rate_kinds():
    def sgd_steps(learning_rate, steps=4):
        p = Parameter(T(np.zeros(1)), name="p")
        opt = nn.SGD([p], learning_rate=learning_rate)
        rates = []
        for _ in range(steps):
            rates.append(float(opt.get_lr()))
            before = p.asnumpy().copy()
            opt((T(np.ones(1)),))
            np.testing.assert_allclose(before - p.asnumpy(), rates[-1], rtol=1e-6)
        return rates

    assert sgd_steps(0.1) == pytest.approx([0.1] * 4)
    assert sgd_steps(Tensor(0.2)) == pytest.approx([0.2] * 4)
    assert sgd_steps([0.3, 0.2, 0.1]) == pytest.approx([0.3, 0.2, 0.1, 0.1])
    table = Tensor(np.array([0.5, 0.4], np.float32))
    assert sgd_steps(table) == pytest.approx([0.5, 0.4, 0.4, 0.4])
    assert sgd_steps(nn.WarmUpLR(0.4, 4)) == pytest.approx([0.0, 0.1, 0.2, 0.3])
    inverse = sgd_steps(lambda step: 1.0 / (float(step) + 1))
    assert inverse == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4])


def test_state_is_parameters_and_checkpointable():
    net = nn.Dense(2, 1)
    opt = nn.Adam(net.trainable_params())
    names = [p.name for p in opt.get_parameters()]
    assert names == ["global_step", "learning_rate", "moment1.weight", "moment1.bias",
                     "moment2.weight", "moment2.bias"]
    assert all(not p.requires_grad for p in opt.get_parameters())
    assert isinstance(opt.parameters, ms.ParameterTuple)
    assert list(opt.parameters) == net.trainable_params()
    # attaching the optimizer to a parent does not rename the network's parameters
    trainer = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    assert [p.name for p in net.get_parameters()] == ["weight", "bias"]
    assert len(list(trainer.get_parameters())) == 8


def test_update_records_nothing_on_the_tape():
    params = make_params()
    opt = nn.Adam(params)
    grads = tuple(ops.ones_like(p) for p in params)
    with (mock.patch.object(STATE, "record", wraps=tape.record) as record,
          tape.recording(), tape.watching_parameters(params)):
        opt(grads)
        loss_of(params)
    assert record.call_count > 0                      # the loss was recorded ...
    assert all(call.args[0].name != "assign" for call in record.call_args_list)  # ... not the step


def test_loss_scale_and_none_gradients():
    p, q = Parameter(T(np.ones(2)), name="p"), Parameter(T(np.ones(2)), name="q")
    opt = nn.SGD([p, q], learning_rate=1.0, loss_scale=4.0)
    opt((T(np.array([4.0, 8.0])), None))
    assert p.asnumpy().tolist() == [0.0, -1.0] and q.asnumpy().tolist() == [1.0, 1.0]


def test_errors():
    p = Parameter(T(np.ones(2)), name="p")
    with pytest.raises(ValueError, match="SGD: got 2 gradient.*1 parameter"):
        nn.SGD([p])((T(np.ones(2)), T(np.ones(2))))
    with pytest.raises(ValueError, match="gradient of p has shape"):
        nn.SGD([p])((T(np.ones(3)),))
    with pytest.raises(ValueError, match="nesterov needs momentum > 0"):
        nn.SGD([p], nesterov=True)
    with pytest.raises(ValueError, match="Adam: the parameter list is empty"):
        nn.Adam([])
    with pytest.raises(ValueError, match="parameter p is given twice"):
        nn.SGD([p, p])
    with pytest.raises(TypeError, match="learning_rate must be"):
        nn.SGD([p], learning_rate="fast")
    with pytest.raises(ValueError, match="a parameter group needs 'params'"):
        nn.SGD([{"params": [p], "momentum": 0.9}])
    with pytest.raises(ValueError, match="beta1 must be in"):
        nn.Adam([p], beta1=1.0)
    with pytest.raises(TypeError, match="params must be Parameters"):
        nn.SGD([T(np.ones(2))])
