"""Gradient utilities: clipping (by value, norm, global norm; nn.ClipByNorm), gradients with ids
(ms.grad(return_ids=True), ops.get_grad), and the gradient-accumulation recipe of the README."""
import math

import numpy as np
import pytest
from nn_checks import T, check_fn_grads

import minispore as ms
from minispore import nn, ops

RNG = np.random.default_rng(0)
X, Y = RNG.standard_normal((2, 3)), RNG.standard_normal(4)


def test_clip_by_value_on_a_tensor_or_a_sequence():
    assert ops.clip_by_value(T(X), -0.5, 0.5).asnumpy().tolist() == np.clip(X, -0.5, 0.5).tolist()
    out = ops.clip_by_value((T(X), T(Y)), clip_value_max=0.1)
    assert isinstance(out, tuple)
    np.testing.assert_array_equal(out[1].asnumpy(), np.minimum(Y, 0.1))
    with pytest.raises(ValueError, match="clip_by_value: give"):
        ops.clip_by_value(T(X))


@pytest.mark.parametrize("clip_norm", [0.5, 100.0])
def test_clip_by_global_norm(clip_norm, mode):
    out = ms.jit(lambda a, b: ops.clip_by_global_norm([a, b], clip_norm))(T(X), T(Y))
    total = math.sqrt((X ** 2).sum() + (Y ** 2).sum())
    scale = clip_norm / max(total, clip_norm)          # MindSpore: t * clip / max(norm, clip)
    assert isinstance(out, list)
    np.testing.assert_allclose(out[0].asnumpy(), X * scale, rtol=1e-12)
    np.testing.assert_allclose(out[1].asnumpy(), Y * scale, rtol=1e-12)
    with pytest.raises(TypeError, match="must be a tuple or list"):
        ops.clip_by_global_norm(T(X))


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf])
def test_clip_by_norm_scales_by_the_total_norm(norm_type):
    total = {2.0: math.sqrt((X ** 2).sum() + (Y ** 2).sum()),
             1.0: np.abs(X).sum() + np.abs(Y).sum(),
             math.inf: max(np.abs(X).max(), np.abs(Y).max())}[norm_type]
    out = ops.clip_by_norm((T(X), T(Y)), 0.5, norm_type)
    coefficient = min(0.5 / (total + 1e-6), 1.0)
    np.testing.assert_allclose(out[0].asnumpy(), X * coefficient, rtol=1e-12)
    np.testing.assert_allclose(out[1].asnumpy(), Y * coefficient, rtol=1e-12)
    # under the bound: unchanged
    np.testing.assert_array_equal(ops.clip_by_norm(T(Y), 1e6).asnumpy(), Y)
    with pytest.raises(RuntimeError, match="total norm of order"):
        ops.clip_by_norm(T(np.array([np.inf])), 1.0, error_if_nonfinite=True)


def test_clip_gradients_are_finite_differences():
    check_fn_grads(lambda a, b: ops.clip_by_global_norm((a, b), 0.5)[0], X, Y)
    check_fn_grads(lambda a: ops.clip_by_norm(a, 0.5), X)


def test_clip_by_norm_cell(mode):
    x = np.array([[3.0, 4.0], [0.0, 0.0], [0.3, 0.4]], np.float32)
    out = nn.ClipByNorm(axis=1)(T(x), T(np.float32(1.0))).asnumpy()
    norms = np.sqrt((x ** 2).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(out, x / np.maximum(norms, 1.0), rtol=1e-6)
    assert out.dtype == np.float32
    whole = nn.ClipByNorm()(T(x), T(np.float32(2.5))).asnumpy()
    np.testing.assert_allclose(whole, x * 2.5 / max(np.sqrt((x ** 2).sum()), 2.5), rtol=1e-6)
    # a zero row keeps a finite gradient (the safe square root)
    grad = ms.grad(lambda a: ops.sum(nn.ClipByNorm(axis=1)(a, T(np.float32(1.0)))))(T(x))
    assert np.isfinite(grad.asnumpy()).all()


def test_grad_with_ids_and_get_grad(mode):
    net = nn.Dense(3, 1)
    weights = net.trainable_params()
    fn = ms.grad(lambda x, y: ops.sum(net(x) * y), (0, 1), weights, return_ids=True)
    x, y = T(np.ones((2, 3), np.float32)), T(np.full((2, 1), 2.0, np.float32))
    (inputs, params) = fn(x, y)
    assert [i for i, _ in inputs] == [0, 1] and [n for n, _ in params] == ["weight", "bias"]
    np.testing.assert_array_equal(ops.get_grad((inputs, params), net.bias).asnumpy(), [4.0])
    np.testing.assert_allclose(ops.get_grad((inputs, params), 1).asnumpy(),
                               net(x).asnumpy(), rtol=1e-6)
    one = ms.grad(lambda x: ops.sum(net(x)), 0, return_ids=True)(x)
    assert one[0] == 0 and one[1].shape == (2, 3)
    _, with_ids = ms.value_and_grad(lambda x: ops.sum(net(x)), None, weights, return_ids=True)(x)
    assert with_ids[0][0] == "weight"
    with pytest.raises(ValueError, match="no gradient for 5"):
        ops.get_grad((inputs, params), 5)
    with pytest.raises(TypeError, match="identifier must be"):
        ops.get_grad((inputs, params), "bias")


# ***** gradient accumulation: the README's recipe, verbatim *****

class Accumulator:
    """Sum the gradients of `steps` micro-batches, then take one optimizer step on their
    mean and start again."""

    def __init__(self, optimizer, steps):
        self.optimizer, self.steps, self.count = optimizer, steps, 0
        self.sums = optimizer.parameters.clone(prefix="accumulated", init="zeros")

    def __call__(self, grads):
        for total, g in zip(self.sums, grads):
            ops.assign_add(total, g)
        self.count += 1
        if self.count % self.steps == 0:
            self.optimizer(tuple(total / self.steps for total in self.sums))
            for total in self.sums:
                ops.assign(total, ops.zeros_like(total))


def test_accumulating_micro_batches_equals_one_big_batch(mode):
    data = RNG.standard_normal((8, 4)).astype(np.float32)
    label = RNG.standard_normal((8, 2)).astype(np.float32)

    def trained(micro_batches):
        ms.set_seed(1)
        net = nn.Dense(4, 2)
        loss_fn = nn.WithLossCell(net, nn.MSELoss())
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        grad_fn = ms.jit(ms.value_and_grad(loss_fn, None, opt.parameters))
        accumulate = Accumulator(opt, micro_batches)
        size = 8 // micro_batches
        for _ in range(2):                   # two optimizer steps
            for k in range(micro_batches):
                _, grads = grad_fn(T(data[k * size:(k + 1) * size]),
                                   T(label[k * size:(k + 1) * size]))
                accumulate(grads)
        return [p.asnumpy() for p in net.trainable_params()], int(opt.global_step)

    (big, big_steps), (small, small_steps) = trained(1), trained(4)
    assert big_steps == small_steps == 2
    for a, b in zip(small, big):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
