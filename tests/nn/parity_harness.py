"""The harness of the mode-parity walk: train a tiny seeded model around a class for a few
steps in PYNATIVE_MODE and in GRAPH_MODE (or under ms.jit) and compare losses and state, plus
the small models the cases are built from. test_mode_parity.py and every
parity_cases_<family>.py use it."""
from dataclasses import dataclass, field

import numpy as np
from nn_checks import T

import minispore as ms
from minispore import nn, ops

STEPS = 3
# Float32 tolerance: the compiled kernels (fastmath, their own exp/tanh/erf approximations
# of ~1 ulp) round differently from numpy, and three steps keep those differences at the
# float32 rounding level (measured: at most ~5e-6 relative, on Adam's moments).
RTOL, ATOL = 1e-5, 1e-6


# ***** the harness *****

@dataclass
class Setup:
    """A model around the class under test, its data and how it trains."""
    net: nn.Cell
    data: ms.Tensor
    label: ms.Tensor
    loss_fn: nn.Cell = field(default_factory=nn.MSELoss)
    # SGD keeps rounding differences linear; Adam's m / (sqrt(v) + eps) would amplify the
    # rounding noise of a near-zero gradient into a visible update
    make_optimizer: object = lambda params: nn.SGD(params, 0.1)
    training: bool = True   # set_train: Dropout active, BatchNorm on batch statistics


def randn(shape, seed, scale=1.0):
    data = np.random.default_rng(seed).standard_normal(shape) * scale
    return T(data.astype(np.float32))


def integers(high, shape, seed):
    return T(np.random.default_rng(seed).integers(0, high, shape).astype(np.int32))


def train(build, mode, jit_step=False):
    """(losses, [(name, value)] of every Parameter of the step) after STEPS training steps of
    build()'s model in `mode`; `jit_step` compiles a functional step with ms.jit instead."""
    ms.set_context(mode=mode)
    try:
        ms.set_seed(0)   # the same initial parameters and the same dropout masks
        setup = build()
        net_with_loss = nn.WithLossCell(setup.net, setup.loss_fn)
        optimizer = setup.make_optimizer(setup.net.trainable_params())
        trainer = nn.TrainOneStepCell(net_with_loss, optimizer)
        trainer.set_train(setup.training)
        step = trainer
        if jit_step:
            grad_fn = ms.value_and_grad(net_with_loss, None, optimizer.parameters)

            @ms.jit
            def step(data, label):
                loss, grads = grad_fn(data, label)
                optimizer(grads)
                return loss

        losses = [step(setup.data, setup.label).asnumpy() for _ in range(STEPS)]
        if mode == ms.GRAPH_MODE or jit_step:
            # one graph for all the steps, with no part left to the Python interpreter
            explanation = ms.explain(step)
            assert explanation.graphs == 1 and explanation.compiled_whole, str(explanation)
            assert not explanation.recompiles, str(explanation)
        return losses, [(p.name, p.asnumpy().copy()) for p in trainer.get_parameters()]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def assert_same_training(build, jit_step=False):
    eager_losses, eager_state = train(build, ms.PYNATIVE_MODE)
    # ms.jit compiles the step inside a PyNative program
    graph_losses, graph_state = train(build, ms.PYNATIVE_MODE if jit_step else ms.GRAPH_MODE,
                                      jit_step)
    assert np.isfinite(eager_losses).all()
    # the steps change the loss: parity of steps that train nothing would prove little
    assert not np.allclose(eager_losses[0], eager_losses[-1], rtol=1e-4)
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=RTOL, atol=ATOL,
                               err_msg="losses")
    assert [name for name, _ in graph_state] == [name for name, _ in eager_state]
    for (name, g), (_, e) in zip(graph_state, eager_state):
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL, err_msg=name)


# ***** models around each class *****

def dense_then(layer, scale=1.0):
    """Dense(4, 3) followed by `layer`, trained towards a random (5, 3) target."""
    return Setup(nn.SequentialCell([nn.Dense(4, 3), layer]), randn((5, 4), 1, scale),
                 randn((5, 3), 2))


def conv_then(layer, out_shape, training=True):
    """Conv2d(2, 3, 3) ('same' padding, with bias) on a (2, 2, 5, 5) input, then `layer`."""
    net = nn.SequentialCell([nn.Conv2d(2, 3, 3, has_bias=True), layer])
    return Setup(net, randn((2, 2, 5, 5), 3), randn(out_shape, 4), training=training)


def sequence_then(layer, out_shape):
    """Dense(4, 6) on a (2, 3, 4) input (an (N, C, L) sequence of length 6), then `layer`."""
    net = nn.SequentialCell([nn.Dense(4, 6), layer])
    return Setup(net, randn((2, 3, 4), 3), randn(out_shape, 4))


def on_input(layer, in_shape, out_shape):
    """`layer` alone on a random input (for layers with parameters of their own)."""
    return Setup(layer, randn(in_shape, 5), randn(out_shape, 6))


class WithK(nn.Cell):
    """`cell(x, k)` for a Cell taking a second argument (Tril, Triu)."""

    def __init__(self, cell, k):
        super().__init__()
        self.cell, self.k = cell, k

    def construct(self, x):
        return self.cell(x, self.k)


class ThroughCellList(nn.Cell):
    """Dense layers held in a CellList, applied in order."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4), nn.Tanh(), nn.Dense(4, 3)])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class PooledWithIndices(nn.Cell):
    """MaxPool2d(return_indices=True): the values, shifted by a (gradient-free) term of the
    indices so that both outputs reach the loss."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, return_indices=True)

    def construct(self, x):
        values, argmax = self.pool(x)
        return values + ops.cast(argmax, ms.float32) * 0.01


def embedding(**kwargs):
    return Setup(nn.Embedding(7, 3, **kwargs), integers(7, (4, 2), 7), randn((4, 2, 3), 8))


def classifier(loss_fn, label, head=None):
    """Dense(4, 3) logits (through `head` if given) on 5 samples, trained with `loss_fn`."""
    layers = [nn.Dense(4, 3)] + ([head] if head is not None else [])
    return Setup(nn.SequentialCell(layers), randn((5, 4), 1), label, loss_fn=loss_fn)


def probabilities(shape, seed):
    p = np.random.default_rng(seed).random(shape) + 0.1
    return T((p / p.sum(-1, keepdims=True)).astype(np.float32))


def bits(shape, seed):
    return T((np.random.default_rng(seed).random(shape) > 0.5).astype(np.float32))


def with_optimizer(make_optimizer):
    """A Dense -> Tanh -> Dense model trained with `make_optimizer`."""
    net = nn.SequentialCell([nn.Dense(4, 4), nn.Tanh(), nn.Dense(4, 3)])
    return Setup(net, randn((5, 4), 1), randn((5, 3), 2), make_optimizer=make_optimizer)
