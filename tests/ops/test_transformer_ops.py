"""Operators of recent Transformer models: rms_norm, swiglu, rotary_position_embedding and
gumbel_softmax. Values against numpy references written from MindSpore's formulas, gradients
against finite differences, in both modes."""
import numpy as np
import pytest
from helpers import assert_close, numeric_grad, run_in_mode

import minispore as ms
from minispore import ops

MODES = ["pynative", "graph"]


def _rand(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def _rms_norm(x, gamma, eps=1e-6):
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    rstd = 1 / np.sqrt((x * x).mean(axes, keepdims=True) + eps)
    return x * rstd * gamma, rstd


def _swiglu(x, dim=-1):
    a, b = np.split(x, 2, axis=dim)
    return a / (1 + np.exp(-a)) * b


def _rope(x, cos, sin, mode):
    if mode == 0:
        x1, x2 = np.split(x, 2, axis=-1)
        rotated = np.concatenate([-x2, x1], -1)
    else:
        rotated = np.stack([-x[..., 1::2], x[..., ::2]], -1).reshape(x.shape)
    return x * cos + rotated * sin


CASES = [  # (name, minispore fn of float64 tensors, numpy reference, input shapes)
    ("rms_norm", lambda x, g: ops.rms_norm(x, g)[0], lambda x, g: _rms_norm(x, g)[0],
     [(3, 4, 5), (4, 5)]),
    ("swiglu", lambda x: ops.swiglu(x), _swiglu, [(3, 6)]),
    ("swiglu dim 0", lambda x: ops.swiglu(x, 0), lambda x: _swiglu(x, 0), [(4, 3)]),
    ("rope half", lambda x, c, s: ops.rotary_position_embedding(x, c, s, 0),
     lambda x, c, s: _rope(x, c, s, 0), [(2, 3, 2, 8), (1, 3, 1, 8), (1, 3, 1, 8)]),
    ("rope interleaved", lambda x, c, s: ops.rotary_position_embedding(x, c, s, 1),
     lambda x, c, s: _rope(x, c, s, 1), [(2, 3, 2, 8), (1, 3, 1, 8), (1, 3, 1, 8)]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, fn, reference, shapes", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients(mode, name, fn, reference, shapes):
    arrays = [_rand(shape, seed) for seed, shape in enumerate(shapes)]
    tensors = [ms.Tensor(a) for a in arrays]
    assert_close(run_in_mode(fn, mode, *tensors), reference(*arrays), rtol=1e-10, atol=1e-12)
    weights = _rand(reference(*arrays).shape, 99)

    def loss(*xs):
        return ops.sum(fn(*xs) * ms.Tensor(weights))

    grads = run_in_mode(ms.grad(loss, tuple(range(len(tensors)))), mode, *tensors)
    for index, grad in enumerate(grads):
        want = numeric_grad(lambda a: float((reference(*a) * weights).sum()), arrays, index)
        assert_close(grad, want, rtol=1e-5, atol=1e-7)


def test_rms_norm_matches_mindspores_example_and_keeps_rstd():
    y, rstd = ops.rms_norm(ms.Tensor(np.array([[1, 2, 3], [1, 2, 3]], np.float32)),
                           ms.Tensor(np.ones(3, np.float32)))
    assert_close(y, np.array([[0.46290997, 0.92581993, 1.3887299]] * 2, np.float32))
    assert_close(rstd, np.array([[0.46290997]] * 2, np.float32))
    half, half_rstd = ops.rms_norm(ops.ones((2, 4), ms.float16), ops.ones(4, ms.float16))
    assert half.dtype == ms.float16 and half_rstd.dtype == ms.float32
    with pytest.raises(ValueError, match="last axes"):
        ops.rms_norm(ops.ones((2, 4)), ops.ones(3))
    with pytest.raises(TypeError, match="float dtype"):
        ops.rms_norm(ops.ones((2, 4)), ops.ones(4, ms.float16))


def test_argument_errors():
    with pytest.raises(ValueError, match="even"):
        ops.swiglu(ops.ones((2, 3)))
    with pytest.raises(ValueError, match="mode"):
        ops.rotary_position_embedding(ops.ones((1, 1, 1, 4)), ops.ones(4), ops.ones(4), 2)
    with pytest.raises(ValueError, match="even"):
        ops.rotary_position_embedding(ops.ones((1, 1, 1, 3)), ops.ones(3), ops.ones(3))
    with pytest.raises(ValueError, match="tau"):
        ops.gumbel_softmax(ops.ones((2, 3)), tau=0)


@pytest.mark.parametrize("mode", MODES)
def test_gumbel_softmax_samples_the_categorical_distribution(mode):
    probabilities = np.array([0.6, 0.3, 0.1], np.float32)
    logits = ms.Tensor(np.log(np.tile(probabilities, (20000, 1))))
    ms.set_seed(3)
    soft = run_in_mode(lambda x: ops.gumbel_softmax(x, tau=0.5), mode, logits).asnumpy()
    np.testing.assert_allclose(soft.sum(-1), 1.0, rtol=1e-5)
    hard = run_in_mode(lambda x: ops.gumbel_softmax(x, hard=True), mode, logits).asnumpy()
    assert set(np.unique(hard)) == {0.0, 1.0} and (hard.sum(-1) == 1).all()
    # P(argmax of logits + Gumbel noise = k) is exactly softmax(logits)_k
    np.testing.assert_allclose(hard.mean(0), probabilities, atol=0.015)


def test_gumbel_softmax_hard_passes_the_soft_gradient():
    logits = ms.Tensor(_rand((4, 5), 5).astype(np.float32))
    weights = ms.Tensor(_rand((4, 5), 6).astype(np.float32))

    def sample(hard):
        ms.set_seed(11)
        return ms.grad(lambda x: ops.sum(ops.gumbel_softmax(x, 0.7, hard) * weights))(logits)

    assert_close(sample(True), sample(False).asnumpy(), rtol=1e-6, atol=1e-7)
