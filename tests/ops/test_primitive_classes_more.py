"""MindSpore Primitive classes of the model zoo: the loss primitives, DepthToSpace /
SpaceToDepth, ResizeNearestNeighbor, ReduceStd and the optimizer update primitives, against
numpy references written from MindSpore's documented formulas, in both modes."""
import numpy as np
import pytest
from helpers import assert_close, run_in_mode

import minispore as ms
from minispore import ops

MODES = ["pynative", "graph"]


def _rand(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("mode", MODES)
def test_cross_entropy_primitives(mode):
    logits = _rand((4, 5), 0)
    labels = _softmax(_rand((4, 5), 1))
    loss, grad = run_in_mode(lambda a, b: ops.SoftmaxCrossEntropyWithLogits()(a, b), mode,
                             ms.Tensor(logits), ms.Tensor(labels))
    log_p = np.log(_softmax(logits))
    assert_close(loss, -(labels * log_p).sum(-1), rtol=1e-5)
    assert_close(grad, _softmax(logits) - labels, rtol=1e-5, atol=1e-6)

    classes = np.array([0, 3, 4, 1], np.int32)
    sparse = ops.SparseSoftmaxCrossEntropyWithLogits()
    sparse_grad = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)
    got = run_in_mode(lambda a, b: (sparse(a, b), sparse_grad(a, b)), mode, ms.Tensor(logits),
                      ms.Tensor(classes))
    assert_close(got[0], np.float32(-log_p[np.arange(4), classes].mean()), rtol=1e-5)
    assert_close(got[1], (_softmax(logits) - np.eye(5, dtype=np.float32)[classes]) / 4, rtol=1e-5, atol=1e-7)

    z = (np.random.default_rng(2).random((4, 5)) > 0.5).astype(np.float32)
    sigmoid_ce = run_in_mode(lambda a, b: ops.SigmoidCrossEntropyWithLogits()(a, b), mode,
                             ms.Tensor(logits), ms.Tensor(z))
    p = 1 / (1 + np.exp(-logits.astype(np.float64)))
    assert_close(sigmoid_ce, -(z * np.log(p) + (1 - z) * np.log(1 - p)), rtol=1e-5, atol=1e-6,
                 check_dtype=False)

    bce = run_in_mode(lambda a, b: ops.BinaryCrossEntropy("sum")(a, b), mode,
                      ms.Tensor(p.astype(np.float32)), ms.Tensor(z))
    assert_close(bce, np.float32(-(z * np.log(p) + (1 - z) * np.log(1 - p)).sum()), rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_depth_to_space_and_back(mode):
    x = _rand((2, 12, 3, 4), 3)
    out = run_in_mode(lambda a: ops.DepthToSpace(2)(a), mode, ms.Tensor(x))
    n, c = 2, 3
    want = np.empty((n, c, 6, 8), np.float32)
    for i in range(2):
        for j in range(2):  # channel (i * 2 + j) * C + c goes to offset (i, j) of each block
            want[:, :, i::2, j::2] = x[:, (i * 2 + j) * c:(i * 2 + j + 1) * c]
    assert_close(out, want)
    back = run_in_mode(lambda a: ops.SpaceToDepth(2)(a), mode, out)
    assert_close(back, x)


@pytest.mark.parametrize("mode", MODES)
def test_resize_nearest_neighbor_and_reduce_std(mode):
    x = _rand((1, 2, 2, 3), 4)
    out = run_in_mode(lambda a: ops.ResizeNearestNeighbor((4, 6))(a), mode, ms.Tensor(x))
    assert_close(out, x.repeat(2, axis=2).repeat(2, axis=3))
    y = _rand((3, 5), 5)
    std, mean = run_in_mode(lambda a: ops.ReduceStd(axis=1, unbiased=True)(a), mode,
                            ms.Tensor(y))
    assert_close(std, y.std(1, ddof=1), rtol=1e-5)
    assert_close(mean, y.mean(1), rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_apply_momentum_updates_the_parameters_in_place(mode, nesterov):
    w0, g = _rand((3,), 6), _rand((3,), 7)
    var = ms.Parameter(ms.Tensor(w0.copy()), name="var")
    accum = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="accum")
    apply = ops.ApplyMomentum(use_nesterov=nesterov)
    step = (lambda grad: apply(var, accum, 0.1, grad, 0.9))
    step = ms.jit(step) if mode == "graph" else step
    want_w, want_a = w0.astype(np.float64), np.zeros(3)
    for _ in range(3):
        step(ms.Tensor(g))
        want_a = want_a * 0.9 + g
        want_w = want_w - 0.1 * ((g + 0.9 * want_a) if nesterov else want_a)
    assert_close(accum.asnumpy(), want_a, rtol=1e-5, check_dtype=False)
    assert_close(var.asnumpy(), want_w, rtol=1e-5, check_dtype=False)
    descend = ops.ApplyGradientDescent()
    descend(var, 0.5, ms.Tensor(g))
    assert_close(var.asnumpy(), want_w - 0.5 * g, rtol=1e-5, check_dtype=False)
