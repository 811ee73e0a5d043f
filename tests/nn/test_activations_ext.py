"""The activations of issue 15: values against numpy references written from MindSpore's
formulas (and PyTorch's functions, where torch is installed), gradients by finite differences,
both modes; the Cells' arguments, PReLU's parameter, get_activation's names."""
import numpy as np
import pytest
from helpers import run_in_mode
from nn_checks import T, fd_grad

import minispore as ms
from minispore import nn, ops

SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x):
    return np.logaddexp(0, x)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


# (name, minispore function of x, numpy reference from MindSpore's documented formula)
FORMULAS = [
    ("mish", ops.mish, lambda x: x * np.tanh(_softplus(x))),
    ("selu", ops.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    ("celu", lambda x: ops.celu(x, 1.5),
     lambda x: np.maximum(0, x) + np.minimum(0, 1.5 * np.expm1(x / 1.5))),
    ("logsigmoid", ops.logsigmoid, lambda x: np.log(_sigmoid(x))),
    ("softsign", ops.softsign, lambda x: x / (1 + np.abs(x))),
    ("softmin", lambda x: ops.softmin(x, 0), lambda x: _softmax(-x, 0)),
    ("softshrink", lambda x: ops.softshrink(x, 0.4),
     lambda x: np.where(x > 0.4, x - 0.4, np.where(x < -0.4, x + 0.4, 0))),
    ("hardshrink", lambda x: ops.hardshrink(x, 0.4), lambda x: np.where(np.abs(x) > 0.4, x, 0)),
    ("tanhshrink", ops.tanhshrink, lambda x: x - np.tanh(x)),
    ("threshold", lambda x: ops.threshold(x, 0.3, -2.0), lambda x: np.where(x > 0.3, x, -2.0)),
    ("hardtanh", lambda x: ops.hardtanh(x, -0.7, 1.2), lambda x: np.clip(x, -0.7, 1.2)),
    ("fast_gelu", ops.fast_gelu,   # MindSpore's own formula, computed as x * sigmoid(1.702 x)
     lambda x: x / (1 + np.exp(-1.702 * np.abs(x))) * np.exp(0.851 * (x - np.abs(x)))),
    ("glu", lambda x: ops.glu(x, 0), lambda x: x[:3] * _sigmoid(x[3:])),
    ("prelu", lambda x: ops.prelu(x, ops.cast(T([0.1, 0.2, 0.3, 0.4]), x.dtype)),  # slopes on axis 1
     lambda x: np.where(x > 0, x, x * np.array([0.1, 0.2, 0.3, 0.4]))),
    ("rrelu-eval", lambda x: ops.rrelu(x, 0.1, 0.3, training=False),
     lambda x: np.where(x >= 0, x, 0.2 * x)),
    ("hardswish", ops.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("hardsigmoid", ops.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
]


def _input(dtype=np.float64):
    # away from the kinks at 0, +-0.4, 0.3, -0.7, 1.2, -3 and 3 (finite differences)
    x = np.random.default_rng(0).uniform(-4, 4, (6, 4))
    kinks = np.array([0, 0.4, -0.4, 0.3, -0.7, 1.2, 3, -3])
    near = np.abs(x[..., None] - kinks).min(-1) < 0.02
    return np.where(near, x + 0.05, x).astype(dtype)


@pytest.mark.parametrize("name,fn,reference", FORMULAS, ids=[f[0] for f in FORMULAS])
def test_values_match_the_formula_in_both_modes(name, fn, reference, mode):
    x = _input()
    np.testing.assert_allclose(run_in_mode(fn, mode, T(x)).asnumpy(), reference(x), rtol=1e-6,
                               atol=1e-7)
    x32 = np.concatenate([_input(np.float32), [[-80.0, 80.0, -30.0, 30.0]]]).astype(np.float32)
    if name == "glu":
        x32 = x32[:6]
    got = run_in_mode(fn, mode, T(x32)).asnumpy()
    assert got.dtype == np.float32 and np.isfinite(got).all()
    np.testing.assert_allclose(got, reference(x32.astype(np.float64)), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name,fn,reference", FORMULAS, ids=[f[0] for f in FORMULAS])
def test_gradients_match_finite_differences_in_both_modes(name, fn, reference, mode):
    x = _input()
    cotangent = np.random.default_rng(1).standard_normal(reference(x).shape)

    def loss(t):
        return ops.sum(fn(t) * T(cotangent))

    got = run_in_mode(ms.grad(loss), mode, T(x)).asnumpy()
    want = fd_grad(lambda a: float((reference(a) * cotangent).sum()), [x], 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_saturated_inputs_have_finite_gradients():
    x = T(np.array([-1e4, -100.0, 100.0, 1e4], np.float32))
    for fn in (ops.mish, ops.selu, ops.logsigmoid, ops.celu, ops.fast_gelu, ops.softsign):
        g = ms.grad(lambda t, fn=fn: ops.sum(fn(t)))(x).asnumpy()
        assert np.isfinite(g).all(), fn.__name__


def _torch():
    return pytest.importorskip("torch", reason="reference values from PyTorch's activations")


@pytest.mark.parametrize("ours,theirs", [
    (lambda: nn.Mish(), "Mish()"), (lambda: nn.SeLU(), "SELU()"),
    (lambda: nn.CELU(0.7), "CELU(0.7)"), (lambda: nn.LogSigmoid(), "LogSigmoid()"),
    (lambda: nn.Softsign(), "Softsign()"), (lambda: nn.Softmin(1), "Softmin(1)"),
    (lambda: nn.SoftShrink(0.3), "Softshrink(0.3)"), (lambda: nn.HShrink(0.3), "Hardshrink(0.3)"),
    (lambda: nn.Tanhshrink(), "Tanhshrink()"), (lambda: nn.Threshold(0.2, 5.0), "Threshold(0.2, 5.0)"),
    (lambda: nn.Hardtanh(-2.0, 2.0), "Hardtanh(-2.0, 2.0)"), (lambda: nn.GLU(1), "GLU(1)"),
    (lambda: nn.HSwish(), "Hardswish()"), (lambda: nn.HSigmoid(), "Hardsigmoid()"),
    (lambda: nn.Softmax2d(), "Softmax2d()"), (lambda: nn.PReLU(4, 0.1), "PReLU(4, 0.1)"),
])
def test_cells_match_pytorch(ours, theirs, mode):
    torch = _torch()
    x = np.random.default_rng(2).standard_normal((3, 4, 2, 2)) * 3
    want = eval(f"torch.nn.{theirs}").double()(torch.tensor(x)).detach().numpy()
    cell = ours()
    if isinstance(cell, nn.PReLU):  # a Float32 slope: Float32 input
        x, want = x.astype(np.float32), want.astype(np.float32)
    np.testing.assert_allclose(cell(T(x)).asnumpy(), want, rtol=1e-6, atol=1e-7)


def test_prelu_parameter_name_shape_and_training():
    cell = nn.PReLU(channel=3, w=0.25)
    names = [name for name, _ in cell.parameters_and_names()]
    params = cell.trainable_params()
    assert len(params) == 1 and params[0].name == "a" and params[0].shape == (3,)
    assert names == ["a"] or names == ["w"]
    x = np.random.default_rng(3).standard_normal((2, 3, 4))
    grad = ms.grad(lambda t: ops.sum(cell(t)), None, cell.trainable_params())(T(x, ms.float32))
    want = np.where(x > 0, 0, x).sum((0, 2))
    np.testing.assert_allclose(grad[0].asnumpy(), want, rtol=1e-5)
    with pytest.raises(ValueError):
        nn.PReLU(channel=3, w=T(np.ones(2, np.float32)))


def test_rrelu_draws_slopes_in_range_while_training():
    cell = nn.RReLU(0.1, 0.3)
    cell.set_train(True)
    x = -np.ones((1000,), np.float32)
    slopes = -cell(T(x)).asnumpy()
    assert 0.1 <= slopes.min() and slopes.max() <= 0.3 and slopes.std() > 0.03
    cell.set_train(False)
    np.testing.assert_allclose(cell(T(x)).asnumpy(), -0.2 * np.ones(1000), rtol=1e-6)


def test_get_activation_knows_mindsporess_names():
    for name, cls in [("hswish", nn.HSwish), ("hsigmoid", nn.HSigmoid), ("mish", nn.Mish),
                      ("prelu", nn.PReLU), ("logsigmoid", nn.LogSigmoid), ("softsign", nn.Softsign),
                      ("fast_gelu", nn.FastGelu), ("rrelu", nn.RReLU), ("hshrink", nn.HShrink),
                      ("softshrink", nn.SoftShrink), ("relu", nn.ReLU)]:
        assert isinstance(nn.get_activation(name), cls)
    assert isinstance(nn.Dense(2, 2, activation="mish").activation, nn.Mish)
    with pytest.raises(ValueError, match="unknown activation"):
        nn.get_activation("swishy")


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        nn.Hardtanh(1.0, -1.0)
    with pytest.raises(ValueError):
        nn.CELU(0.0)
    with pytest.raises(ValueError):
        ops.glu(T(np.ones((3,), np.float32)))
    with pytest.raises(TypeError):
        ops.mish(T(np.ones((3,), np.int32)))
    with pytest.raises(ValueError):
        nn.Softmax2d()(T(np.ones((3,), np.float32)))


@pytest.mark.parametrize("cells", [
    [nn.Mish(), nn.SoftShrink(0.2), nn.Tanhshrink()],
    [nn.SeLU(), nn.CELU(0.5), nn.Hardtanh(-0.5, 0.5)],
    [nn.LogSigmoid(), nn.Softsign(), nn.FastGelu(), nn.HSwish(), nn.HShrink(0.1)],
    [nn.PReLU(), nn.Threshold(0.1, 2.0), nn.HSigmoid()],
], ids=["mish-softshrink-tanhshrink", "selu-celu-hardtanh", "smooth", "prelu-threshold"])
def test_activations_fuse_into_one_kernel_in_graph_mode(cells):
    """A chain of these activations compiles to one elementwise kernel, nothing else."""
    net = nn.SequentialCell(cells)
    f = ms.jit(lambda x: net(x))
    x = np.random.default_rng(4).standard_normal((4, 8)).astype(np.float32)
    np.testing.assert_allclose(f(T(x)).asnumpy(), net(T(x)).asnumpy(), rtol=2e-6, atol=1e-6)
    (executable,) = f.cache.values()
    labels = [s.label for s in executable.program.steps]
    assert len(labels) == 1 and labels[0].startswith("fused kernel"), labels


def test_primitive_classes_call_the_functions():
    x = _input(np.float32)
    t = T(x)
    for got, want in [
        (ops.CeLU(2.0)(t), ops.celu(t, 2.0)), (ops.Elu(0.5)(t), ops.elu(t, 0.5)),
        (ops.GLU(0)(t), ops.glu(t, 0)), (ops.HShrink(0.3)(t), ops.hardshrink(t, 0.3)),
        (ops.SoftShrink(0.3)(t), ops.softshrink(t, 0.3)), (ops.FastGeLU()(t), ops.fast_gelu(t)),
        (ops.FastGelu()(t), ops.fast_gelu(t)), (ops.HSigmoid()(t), ops.hardsigmoid(t)),
        (ops.HSwish()(t), ops.hardswish(t)), (ops.Mish()(t), ops.mish(t)),
        (ops.SeLU()(t), ops.selu(t)), (ops.Softsign()(t), ops.softsign(t)),
        (ops.PReLU()(t, T(np.full(4, 0.2, np.float32))), ops.prelu(t, T(np.full(4, 0.2, np.float32)))),
    ]:
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
