"""Workload 4, mlp_train_step: one SGD step of a 784-256-256-10 ReLU MLP, batch 128.

Weights (in, out) He-normal from default_rng(0) in layer order, biases 0; X ~ N(0, 1) of shape
(128, 784) and labels U{0..9} from default_rng(1); the same batch every step; softmax
cross-entropy (mean); plain SGD, lr 0.01. The first 50 steps are the check (loss 3.0269 at the
first step, about 0.5626 at the 50th) and the warm-up; then `ms` per step.

Framework idioms: numpy = hand-written backward; MindSpore = nn.Cell + nn.SGD +
ms.value_and_grad(forward_fn, None, opt.parameters) (graph: ms.jit on train_step, the 2.x
tutorial pattern); torch = optim.SGD (torch.compile compiles the loss function, AOTAutograd the
backward, the optimizer stays eager); jax = value_and_grad + tree_map update (jit: whole step).

    python -m benchmarks.mlp_train_step --adapter minispore_graph
"""
import itertools

import numpy as np

from . import harness
from .harness import Adapters, main, mindspore_train_step

SIZES = (784, 256, 256, 10)
BATCH = 128
LR = 0.01
CHECK_STEPS = 50
LOSS_FIRST, LOSS_LAST = 3.0269, 0.5626
KERNEL_WAIT_S = 120.0

ADAPTERS = Adapters()


def resize(batch, width):
    """The same MLP with hidden layers `width` wide, on batches of `batch` (first_seconds and
    mlp_sizes; the loss checks hold for the default sizes only)."""
    global SIZES, BATCH
    SIZES, BATCH = (SIZES[0], width, width, SIZES[-1]), batch


def make_problem():
    """([(W (in, out), b), ...], X, labels) as float32 / int32 numpy arrays."""
    rng = np.random.default_rng(0)
    layers = []
    for fan_in, fan_out in itertools.pairwise(SIZES):
        w = (rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        layers.append((w, np.zeros(fan_out, np.float32)))
    data = np.random.default_rng(1)
    x = data.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    labels = data.integers(0, SIZES[-1], BATCH).astype(np.int32)
    return layers, x, labels


def run_and_check(ctx, step, after_first_step=None):
    """The 50 check steps (warm-up included), then the median step time in ms."""
    return harness.check_and_time(ctx, step, CHECK_STEPS, LOSS_FIRST, LOSS_LAST, after_first_step)


# ***** numpy *****

class NumpyMLP:
    """The MLP with a hand-written backward and in-place SGD."""

    def __init__(self, layers, x, labels):
        self.params = [(w.copy(), b.copy()) for w, b in layers]
        self.x, self.labels = x, labels
        self.rows = np.arange(len(labels))

    def step(self):
        (w1, b1), (w2, b2), (w3, b3) = self.params
        x, rows, labels = self.x, self.rows, self.labels
        a1 = x @ w1 + b1
        h1 = np.maximum(a1, 0)
        a2 = h1 @ w2 + b2
        h2 = np.maximum(a2, 0)
        z = h2 @ w3 + b3
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        total = e.sum(axis=1, keepdims=True)
        loss = (np.log(total[:, 0]) - z[rows, labels]).mean()
        dz = e / total
        dz[rows, labels] -= 1
        dz /= len(labels)
        dh2 = (dz @ w3.T) * (a2 > 0)
        dh1 = (dh2 @ w2.T) * (a1 > 0)
        grads = [(x.T @ dh1, dh1.sum(0)), (h1.T @ dh2, dh2.sum(0)), (h2.T @ dz, dz.sum(0))]
        for (w, b), (gw, gb) in zip(self.params, grads):
            w -= LR * gw
            b -= LR * gb
        return loss


@ADAPTERS.add("numpy")
def numpy_ref(ctx):
    return {"mlp_train_step": {"ms": run_and_check(ctx, NumpyMLP(*make_problem()).step)}}


# ***** minispore *****

def minispore_train_step(jit):
    """The MindSpore 2.x tutorial pattern; returns (ms, train_step, data, label)."""
    import minispore as ms
    from minispore import nn

    layers, x, labels = make_problem()

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            # nn.Dense keeps weights as (out, in): the same numbers, transposed
            self.fc1, self.fc2, self.fc3 = (
                nn.Dense(w.shape[0], w.shape[1], weight_init=ms.Tensor(w.T.copy()),
                         bias_init="zeros") for w, _ in layers)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

    model = MLP()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), learning_rate=LR)
    train_step = mindspore_train_step(ms, model, loss_fn, optimizer, jit)
    return ms, train_step, ms.Tensor(x), ms.Tensor(labels)


@ADAPTERS.add("minispore_pynative")
def minispore_pynative(ctx):
    _, train_step, data, label = minispore_train_step(jit=False)
    return {"mlp_train_step": {"ms": run_and_check(ctx, lambda: train_step(data, label))}}


@ADAPTERS.add("minispore_graph")
def minispore_graph(ctx):
    _, train_step, data, label = minispore_train_step(jit=True)

    def wait_for_kernels():
        ready, waited = harness.wait_for_kernels(KERNEL_WAIT_S)
        ctx.info["kernel_wait_s"] = waited
        ctx.true("kernels_compiled", ready, f"waited {waited:.1f} s for the fused kernels")

    ms_per_step = run_and_check(ctx, lambda: train_step(data, label), wait_for_kernels)
    return {"mlp_train_step": {"ms": ms_per_step}}


# ***** torch and jax *****

def torch_train_step(compile_loss):
    torch = harness.import_torch()
    layers, x, labels = make_problem()
    params = [torch.tensor(a, requires_grad=True) for layer in layers for a in layer]
    data, target = torch.from_numpy(x), torch.from_numpy(labels.astype(np.int64))

    def loss_fn(data, target):
        h = data
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = torch.relu(h)
        return torch.nn.functional.cross_entropy(h, target)

    return harness.torch_sgd_step(torch, loss_fn, params, LR, (data, target), compile_loss)


@ADAPTERS.add("torch_eager", needs="torch")
def torch_eager(ctx):
    return {"mlp_train_step": {"ms": run_and_check(ctx, torch_train_step(False))}}


@ADAPTERS.add("torch_compile", needs="torch", slow=True)
def torch_compile(ctx):
    return {"mlp_train_step": {"ms": run_and_check(ctx, torch_train_step(True))}}


def jax_train_step():
    """(jitted step(params, x, y) -> (params, loss), params, x, y)."""
    jax = harness.import_jax()
    jnp = jax.numpy
    layers, x, labels = make_problem()
    params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in layers]

    def loss_fn(params, x, y):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i + 1 < len(params):
                h = jax.nn.relu(h)
        return harness.jax_cross_entropy(jax, h, y)

    return harness.jax_sgd_step(jax, loss_fn, LR), params, jnp.asarray(x), jnp.asarray(labels)


@ADAPTERS.add("jax_jit", needs="jax")
def jax_jit(ctx):
    step, params, x, y = jax_train_step()
    return {"mlp_train_step": {"ms": run_and_check(ctx, harness.jax_loop(step, [params], x, y))}}


if __name__ == "__main__":
    main("mlp_train_step", ADAPTERS)
