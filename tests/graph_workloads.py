"""Representative Graph-mode programs, small enough for tests.

They produce the fused-group shapes real models produce: the 14-op chain of BENCHMARKS.md
workload 2 and its gradient, MLP train steps (SGD and Adam), softmax cross-entropy, a small
conv net with batch norm and pooling, layer norm with GELU. Each `WORKLOADS` entry is
`run(dtype) -> [numpy arrays]`, built from fixed seeds on the current device, so a test can
run it on CPU and GPU and compare, or intercept codegen to collect its fused groups.
"""
import itertools

import numpy as np

import minispore as ms
from minispore import nn, ops


def ew_chain(x):
    """Workload 2: 14 elementwise ops with xx = x*x shared."""
    xx = x * x
    return (ops.tanh(x * 0.5 + 0.1) * ops.sigmoid(x) + ops.exp(-xx) - 0.3 * xx
            + ops.log1p(ops.abs(x)))


def _normal(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def chain_forward(dtype):
    x = ms.Tensor(_normal(64, dtype))
    return [ms.jit(ew_chain)(x).asnumpy()]


def chain_gradient(dtype):
    x = ms.Tensor(_normal(64, dtype))
    return [ms.jit(ms.grad(lambda x: ew_chain(x).sum()))(x).asnumpy()]


class MLP(nn.Cell):
    def __init__(self, sizes, dtype):
        super().__init__()
        rng = np.random.default_rng(0)
        self.layers = nn.CellList([
            nn.Dense(n_in, n_out, bias_init="zeros", dtype=dtype, weight_init=ms.Tensor(
                (rng.standard_normal((n_out, n_in)) * np.sqrt(2.0 / n_in)).astype(dtype)))
            for n_in, n_out in itertools.pairwise(sizes)])
        self.relu = nn.ReLU()

    def construct(self, x):
        for layer in self.layers[:-1]:
            x = self.relu(layer(x))
        return self.layers[-1](x)


def compiled_train_step(model, optimizer):
    """A jitted train step(x, labels) -> cross-entropy loss: value_and_grad + optimizer, the
    MindSpore 2.x pattern."""
    loss_fn = nn.CrossEntropyLoss()
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(model(x), y), None, optimizer.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        return loss

    return step


def train_steps(model, optimizer, x, labels, steps):
    """`steps` compiled train steps; the losses and the final parameters."""
    step = compiled_train_step(model, optimizer)
    losses = [step(x, labels).asnumpy() for _ in range(steps)]
    return losses + [p.asnumpy() for p in model.trainable_params()]


def _classification_batch(batch, features, classes, dtype):
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal((batch,) + features).astype(dtype))
    return x, ms.Tensor(rng.integers(0, classes, batch).astype(np.int32))


def mlp_sgd(dtype, sizes=(12, 16, 16, 4), batch=8, steps=3):
    model = MLP(sizes, dtype)
    x, labels = _classification_batch(batch, sizes[:1], sizes[-1], dtype)
    optimizer = nn.SGD(model.trainable_params(), learning_rate=0.05)
    return train_steps(model, optimizer, x, labels, steps)


def mlp_adam(dtype, sizes=(12, 16, 4), batch=8, steps=3):
    model = MLP(sizes, dtype)
    x, labels = _classification_batch(batch, sizes[:1], sizes[-1], dtype)
    return train_steps(model, nn.Adam(model.trainable_params(), learning_rate=0.01), x, labels,
                       steps)


def softmax_cross_entropy(dtype):
    logits = ms.Tensor(_normal((8, 5), dtype))
    labels = ms.Tensor(np.random.default_rng(1).integers(0, 5, 8).astype(np.int32))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    value, grad = ms.jit(ms.value_and_grad(loss))(logits, labels)
    return [value.asnumpy(), grad.asnumpy(), ms.jit(ops.softmax)(logits).asnumpy()]


class SmallConvNet(nn.Cell):
    def __init__(self, dtype):
        super().__init__()
        ms.set_seed(0)
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid", has_bias=True, dtype=dtype)
        self.bn = nn.BatchNorm2d(4, dtype=dtype)
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.dense = nn.Dense(4 * 3 * 3, 3, dtype=dtype)

    def construct(self, x):
        return self.dense(self.flatten(self.pool(ops.relu(self.bn(self.conv(x))))))


def conv_net(dtype):
    model = SmallConvNet(dtype)
    model.set_train(True)
    x, labels = _classification_batch(4, (1, 8, 8), 3, dtype)
    return train_steps(model, nn.Momentum(model.trainable_params(), 0.01, 0.9), x, labels, 2)


def layer_norm_gelu(dtype):
    norm = nn.LayerNorm((6,), dtype=dtype)
    x = ms.Tensor(_normal((4, 6), dtype))

    def f(x):
        y = norm(x)
        return (ops.gelu(y) * ops.erf(y) + ops.rsqrt(ops.square(y) + 1.0)).sum()

    value, grad = ms.jit(ms.value_and_grad(f))(x)
    return [value.asnumpy(), grad.asnumpy()]


WORKLOADS = {
    "chain_forward": chain_forward,
    "chain_gradient": chain_gradient,
    "mlp_sgd": mlp_sgd,
    "mlp_adam": mlp_adam,
    "softmax_cross_entropy": softmax_cross_entropy,
    "conv_net": conv_net,
    "layer_norm_gelu": layer_norm_gelu,
}
