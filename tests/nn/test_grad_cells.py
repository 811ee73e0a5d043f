"""WithGradCell, ForwardValueAndGrad, Jvp and Vjp: values against closed forms, the same in
PyNative and GRAPH_MODE, and a custom training loop with ForwardValueAndGrad trained the same
way in both modes."""
import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops

T = ms.Tensor
MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}


def in_mode(mode, fn):
    ms.set_context(mode=MODES[mode])
    try:
        return fn()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def numpy_of(x):
    if isinstance(x, (tuple, list)):
        return [numpy_of(v) for v in x]
    return x.asnumpy()


class MatNet(nn.Cell):
    """MindSpore's example network: x @ weight, weight ones (2, 2)."""

    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(T(np.ones((2, 2), np.float32)), name="weight")

    def construct(self, x):
        return ops.matmul(x, self.weight)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_forward_value_and_grad_of_inputs_and_weights(mode):
    """MindSpore's example network with a one-hot label: logits (2, 2), softmax (1/2, 1/2),
    d loss / d logits = softmax - label."""
    net = nn.WithLossCell(MatNet(), nn.SoftmaxCrossEntropyWithLogits())
    cell = nn.ForwardValueAndGrad(net, weights=ms.ParameterTuple(net.trainable_params()),
                                  get_all=True, get_by_list=True)
    loss, (input_grads, weight_grads) = in_mode(
        mode, lambda: cell(T(np.ones((1, 2), np.float32)), T(np.array([[1.0, 0.0]], np.float32))))
    np.testing.assert_allclose(loss.asnumpy(), [np.log(2.0)], rtol=1e-6)
    np.testing.assert_allclose(input_grads[0].asnumpy(), [[0.0, 0.0]], atol=1e-7)
    np.testing.assert_allclose(input_grads[1].asnumpy(), [[np.log(2.0)] * 2], rtol=1e-6)
    np.testing.assert_allclose(weight_grads[0].asnumpy(), [[-0.5, 0.5], [-0.5, 0.5]], rtol=1e-6)


def _dense_mse():
    ms.set_seed(0)
    dense = nn.Dense(3, 2)
    return dense, nn.WithLossCell(dense, nn.MSELoss())


def _dense_mse_grads(dense, x, y, scale=1.0):
    """d mean((x W^T + b - y)^2) / d(W, b), in numpy."""
    w, b = dense.weight.asnumpy(), dense.bias.asnumpy()
    residual = 2 * (x @ w.T + b - y) / y.size * scale
    return [residual.T @ x, residual.sum(0)]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_with_grad_cell(mode):
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    y = np.random.default_rng(1).standard_normal((4, 2)).astype(np.float32)
    dense, net = _dense_mse()
    want = _dense_mse_grads(dense, x, y)
    for cell in (nn.WithGradCell(net), nn.WithGradCell(dense, nn.MSELoss())):
        got = in_mode(mode, lambda: cell(T(x), T(y)))
        for g, w in zip(numpy_of(got), want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    scaled = nn.WithGradCell(net, sens=T(np.float32(3.0)))
    for g, w in zip(numpy_of(in_mode(mode, lambda: scaled(T(x), T(y)))),
                    _dense_mse_grads(dense, x, y, 3.0)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_forward_value_and_grad_flags_and_sens(mode):
    x = np.random.default_rng(2).standard_normal((4, 3)).astype(np.float32)
    y = np.random.default_rng(3).standard_normal((4, 2)).astype(np.float32)
    dense, net = _dense_mse()
    w, b = dense.weight.asnumpy(), dense.bias.asnumpy()
    residual = 2 * (x @ w.T + b - y) / y.size
    first = nn.ForwardValueAndGrad(net)              # gradient of the first input
    loss, gx = in_mode(mode, lambda: first(T(x), T(y)))
    np.testing.assert_allclose(loss.asnumpy(), ((x @ w.T + b - y) ** 2).mean(), rtol=1e-5)
    np.testing.assert_allclose(gx.asnumpy(), residual @ w, rtol=1e-5, atol=1e-6)
    both = nn.ForwardValueAndGrad(net, get_all=True)
    _, (gx2, gy) = in_mode(mode, lambda: both(T(x), T(y)))
    np.testing.assert_allclose(gx2.asnumpy(), gx.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), -residual, rtol=1e-5, atol=1e-6)
    with_sens = nn.ForwardValueAndGrad(net, net.trainable_params(), get_by_list=True,
                                       sens_param=True)
    _, grads = in_mode(mode, lambda: with_sens(T(x), T(y), T(np.float32(0.5))))
    for g, want in zip(numpy_of(grads), _dense_mse_grads(dense, x, y, 0.5)):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="needs the Parameters"):
        nn.ForwardValueAndGrad(net, get_by_list=True)
    with pytest.raises(TypeError, match="get_all must be a bool"):
        nn.ForwardValueAndGrad(net, get_all=1)


def _train_with_forward_value_and_grad(mode):
    ms.set_seed(0)
    dense = nn.Dense(3, 2)
    net = nn.WithLossCell(dense, nn.MSELoss())
    opt = nn.SGD(net.trainable_params(), 0.1)

    class Step(nn.Cell):
        def __init__(self):
            super().__init__()
            self.value_and_grad = nn.ForwardValueAndGrad(net, opt.parameters, get_by_list=True)
            self.opt = opt

        def construct(self, x, y):
            loss, grads = self.value_and_grad(x, y)
            self.opt(grads)
            return loss

    step = Step()
    x = T(np.random.default_rng(4).standard_normal((5, 3)).astype(np.float32))
    y = T(np.random.default_rng(5).standard_normal((5, 2)).astype(np.float32))
    losses = in_mode(mode, lambda: [float(step(x, y).asnumpy()) for _ in range(3)])
    return losses, dense.weight.asnumpy().copy()


def test_custom_training_loop_trains_the_same_in_both_modes():
    eager_losses, eager_w = _train_with_forward_value_and_grad("pynative")
    graph_losses, graph_w = _train_with_forward_value_and_grad("graph")
    assert eager_losses[0] > eager_losses[-1]
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    np.testing.assert_allclose(graph_w, eager_w, rtol=1e-5, atol=1e-6)


class Cubic(nn.Cell):
    def construct(self, x, y):
        return x * x * y


@pytest.mark.parametrize("mode", sorted(MODES))
def test_jvp_and_vjp_cells(mode):
    x = np.array([1.0, 2.0, -1.5], np.float32)
    y = np.array([0.5, -1.0, 2.0], np.float32)
    v = np.array([0.3, 1.0, -2.0], np.float32)
    u = np.array([1.0, 0.5, 0.25], np.float32)
    out, tangent = in_mode(mode, lambda: nn.Jvp(Cubic())(T(x), T(y), (T(v), T(u))))
    np.testing.assert_allclose(out.asnumpy(), x * x * y, rtol=1e-6)
    np.testing.assert_allclose(tangent.asnumpy(), 2 * x * y * v + x * x * u, rtol=1e-5)
    out, (gx, gy) = in_mode(mode, lambda: nn.Vjp(Cubic())(T(x), T(y), T(v)))
    np.testing.assert_allclose(out.asnumpy(), x * x * y, rtol=1e-6)
    np.testing.assert_allclose(gx.asnumpy(), 2 * x * y * v, rtol=1e-5)
    np.testing.assert_allclose(gy.asnumpy(), x * x * v, rtol=1e-5)
    with pytest.raises(ValueError, match="followed by the tangent"):
        nn.Jvp(Cubic())(T(x))
