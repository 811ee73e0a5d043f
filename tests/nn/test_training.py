"""Wrappers and whole training loops: the seed 000 and 004 examples, both modes."""
import numpy as np
import pytest
from nn_checks import T

import minispore as ms
from minispore import Parameter, Tensor, nn

RNG = np.random.default_rng(0)
X = Tensor(RNG.standard_normal((16, 5)).astype(np.float32))
Y = Tensor((RNG.random((16, 3)) > 0.5).astype(np.float32))


class SeedTrainOneStepCell(nn.Cell):
    """Seed 000's pure object-oriented training step, as the seed writes it."""

    def __init__(self, network, optimizer):
        super().__init__()
        self.network = network
        self.optimizer = optimizer
        self.grad_fn = ms.value_and_grad(self.network, None, self.optimizer.parameters)

    def construct(self, *inputs):
        loss, grads = self.grad_fn(*inputs)
        self.optimizer(grads)
        return loss


def test_seed000_object_oriented_training_matches_a_numpy_sgd():
    ms.set_seed(0)
    network = nn.Dense(5, 3)
    w0, b0 = network.weight.asnumpy().copy(), network.bias.asnumpy().copy()
    trainer = SeedTrainOneStepCell(nn.WithLossCell(network, nn.BCEWithLogitsLoss()),
                                   nn.SGD(network.trainable_params(), 0.5))
    losses = [float(trainer(X, Y)) for _ in range(30)]
    assert losses[-1] < 0.8 * losses[0]

    x, y = X.asnumpy().astype(np.float64), Y.asnumpy().astype(np.float64)
    w, b = w0.astype(np.float64), b0.astype(np.float64)
    for _ in range(30):
        z = x @ w.T + b
        dz = (1 / (1 + np.exp(-z)) - y) / z.size       # d mean(BCE) / d logits
        w, b = w - 0.5 * dz.T @ x, b - 0.5 * dz.sum(0)
    np.testing.assert_allclose(network.weight.asnumpy(), w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(network.bias.asnumpy(), b, rtol=1e-4, atol=1e-5)


def test_seed000_functional_plus_object_oriented_loop():
    ms.set_seed(1)
    net = nn.SequentialCell([nn.Dense(5, 8), nn.ReLU(), nn.Dense(8, 3)])
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Adam(net.trainable_params(), 0.01)
    labels = Tensor(RNG.integers(0, 3, 16).astype(np.int32))

    def forward_fn(inputs, targets):
        logits = net(inputs)
        return loss_fn(logits, targets), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(inputs, targets):
        (loss, logits), grads = grad_fn(inputs, targets)
        optimizer(grads)
        return loss, logits

    losses = []
    for _ in range(40):
        loss, logits = train_step(X, labels)
        losses.append(float(loss))
    assert logits.shape == (16, 3) and losses[-1] < 0.5 * losses[0]


def test_seed004_linear_fit():
    w = Parameter(Tensor(1.0, ms.float32), name="w")
    b = Parameter(Tensor(1.0, ms.float32), name="b")
    opt = nn.SGD([w, b], learning_rate=0.05)
    step = ms.value_and_grad(lambda x, t: 0.5 * ((w * x + b) - t) ** 2, None, opt.parameters)
    rng = np.random.default_rng(0)
    for _ in range(400):
        data = float(rng.uniform(-5, 5))
        _, grads = step(Tensor(data, ms.float32), Tensor(-data + 3, ms.float32))
        opt(grads)
    assert float(w) == pytest.approx(-1.0, abs=1e-3) and float(b) == pytest.approx(3.0, abs=1e-3)


def test_train_one_step_cell_sens_and_loss_value():
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros", dtype=ms.float64)
    trainer = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                  nn.SGD(net.trainable_params(), 0.125), sens=2.0)
    x, y = T(np.array([[1.0, 2.0]])), T(np.array([[1.0]]))
    assert float(trainer(x, y)) == 4.0                   # (3 - 1)^2, before the step
    # d loss / d w = 2 (3 - 1) x = [4, 8]; times sens 2, times lr 0.125
    np.testing.assert_allclose(net.weight.asnumpy(), [[0.0, -1.0]])
    assert [p.name for p in net.get_parameters()] == ["weight", "bias"]


def test_with_eval_cell():
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros", dtype=ms.float64)
    evaluate = nn.WithEvalCell(net, nn.L1Loss(), add_cast_fp32=True)
    loss, outputs, label = evaluate(T(np.array([[1.0, 2.0]])), T(np.array([[1.0]])))
    assert float(loss) == 2.0 and outputs.dtype == ms.float32 and label.dtype == ms.float32
    assert nn.WithLossCell(net, nn.L1Loss()).backbone_network is net


@pytest.mark.parametrize("make_optimizer", [
    lambda ps: nn.SGD(ps, 0.1, momentum=0.9, nesterov=True),
    lambda ps: nn.Adam(ps, nn.CosineDecayLR(0.001, 0.01, 3), weight_decay=0.01),
    lambda ps: nn.AdamWeightDecay([{"params": ps[:2], "lr": [0.01, 0.005]}, {"params": ps[2:]}],
                                  weight_decay=0.1),
], ids=["sgd", "adam-schedule", "adamw-groups"])
def test_training_step_gives_the_same_result_in_both_modes(make_optimizer):
    def train(mode):
        ms.set_context(mode=mode)
        try:
            ms.set_seed(2)
            # no bias before BatchNorm: its gradient is exactly zero, so what reaches it is
            # rounding noise, which Adam's m / (sqrt(v) + eps) amplifies into real updates
            net = nn.SequentialCell([nn.Dense(5, 4, has_bias=False), nn.BatchNorm1d(4), nn.ReLU(),
                                     nn.Dense(4, 3)])
            net.set_train()
            optimizer = make_optimizer(net.trainable_params())
            trainer = nn.TrainOneStepCell(nn.WithLossCell(net, nn.BCEWithLogitsLoss()), optimizer)
            losses = [float(trainer(X, Y)) for _ in range(4)]
            return losses, [p.asnumpy().copy() for p in trainer.get_parameters()]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)

    eager_losses, eager_params = train(ms.PYNATIVE_MODE)
    graph_losses, graph_params = train(ms.GRAPH_MODE)
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    assert eager_losses[-1] < eager_losses[0]
    for g, e in zip(graph_params, eager_params):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
