"""Workload lstm_lm: one SGD step of an LSTM language model.

Embedding(1000, 256) -> LSTM(256, 256), one layer, time-major -> Dense(256, 1000) -> softmax
cross-entropy (mean) of the next token at each of the 64 positions of 32 sequences; plain
SGD, lr 0.1. Weights from default_rng(0): embedding N(0, 0.1^2); the LSTM's weight_ih,
weight_hh, bias_ih, bias_hh (MindSpore's and PyTorch's layout, gates i, f, g, o) and the
output layer's weight (1000, 256) U(-1/16, 1/16); output bias 0. Tokens U{0..999} of shape
(65, 32) from default_rng(1): inputs the first 64 steps, targets the last 64; the same batch
every step. Check: the first loss (6.9079, measured with PyTorch's float64 LSTM) and a falling
loss over the 20 warm-up steps; then `ms` per step.

Framework idioms: minispore = nn.Embedding + nn.LSTM + nn.Dense + nn.SGD with
ms.value_and_grad (graph: ms.jit on the train step); torch = nn.Embedding + nn.LSTM +
nn.Linear + optim.SGD (torch.compile compiles the loss function); jax = lax.scan over the
steps inside one jitted value_and_grad + SGD step.

    python -m benchmarks.lstm_lm --adapter minispore_graph
"""

import numpy as np

from . import harness
from .harness import Adapters, main, mindspore_train_step

VOCAB, EMBED, HIDDEN, SEQ, BATCH = 1000, 256, 256, 64, 32
LR = 0.1
CHECK_STEPS = 20
LOSS_FIRST = 6.9079
KERNEL_WAIT_S = 300.0

ADAPTERS = Adapters()


def make_problem():
    """(weights {name: array}, inputs (64, 32) int32, targets (64, 32) int32)."""
    rng = np.random.default_rng(0)
    bound = 1 / np.sqrt(HIDDEN)

    def uniform(*shape):
        return rng.uniform(-bound, bound, shape).astype(np.float32)

    weights = {"embedding": (rng.standard_normal((VOCAB, EMBED)) * 0.1).astype(np.float32),
               "weight_ih_l0": uniform(4 * HIDDEN, EMBED),
               "weight_hh_l0": uniform(4 * HIDDEN, HIDDEN),
               "bias_ih_l0": uniform(4 * HIDDEN), "bias_hh_l0": uniform(4 * HIDDEN),
               "fc_weight": uniform(VOCAB, HIDDEN), "fc_bias": np.zeros(VOCAB, np.float32)}
    tokens = np.random.default_rng(1).integers(0, VOCAB, (SEQ + 1, BATCH)).astype(np.int32)
    return weights, tokens[:-1], tokens[1:]


def run_and_check(ctx, step, after_first_step=None):
    """The check steps (warm-up included), then the median step time in ms."""
    return harness.check_and_time(ctx, step, CHECK_STEPS, LOSS_FIRST, None, after_first_step)


# ***** minispore *****

def minispore_step(jit):
    import minispore as ms
    from minispore import nn, ops

    weights, inputs, targets = make_problem()

    class LanguageModel(nn.Cell):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(VOCAB, EMBED,
                                          embedding_table=ms.Tensor(weights["embedding"]))
            self.lstm = nn.LSTM(EMBED, HIDDEN)
            for p in self.lstm.get_parameters():
                p.set_data(ms.Tensor(weights[p.name.split(".")[-1]]))
            self.fc = nn.Dense(HIDDEN, VOCAB, weight_init=ms.Tensor(weights["fc_weight"]),
                               bias_init=ms.Tensor(weights["fc_bias"]))

        def construct(self, tokens):
            out, _ = self.lstm(self.embedding(tokens))
            return self.fc(ops.reshape(out, (SEQ * BATCH, HIDDEN)))

    model = LanguageModel()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), learning_rate=LR)
    train_step = mindspore_train_step(ms, model, loss_fn, optimizer, jit)
    data, label = ms.Tensor(inputs), ms.Tensor(targets.reshape(-1))
    return lambda: train_step(data, label)


@ADAPTERS.add("minispore_pynative")
def minispore_pynative(ctx):
    return {"lstm_lm": {"ms": run_and_check(ctx, minispore_step(jit=False))}}


@ADAPTERS.add("minispore_graph")
def minispore_graph(ctx):
    step = minispore_step(jit=True)

    def wait_for_kernels():
        ready, waited = harness.wait_for_kernels(KERNEL_WAIT_S)
        ctx.info["kernel_wait_s"] = waited
        ctx.true("kernels_compiled", ready, f"waited {waited:.1f} s for the fused kernels")

    return {"lstm_lm": {"ms": run_and_check(ctx, step, wait_for_kernels)}}


# ***** torch *****

def torch_step(compile_loss, dtype=None):
    torch = harness.import_torch()
    weights, inputs, targets = make_problem()
    embedding = torch.nn.Embedding(VOCAB, EMBED)
    lstm = torch.nn.LSTM(EMBED, HIDDEN)
    fc = torch.nn.Linear(HIDDEN, VOCAB)
    with torch.no_grad():
        embedding.weight.copy_(torch.from_numpy(weights["embedding"]))
        for name, p in lstm.named_parameters():
            p.copy_(torch.from_numpy(weights[name]))
        fc.weight.copy_(torch.from_numpy(weights["fc_weight"]))
        fc.bias.zero_()
    modules = torch.nn.ModuleList([embedding, lstm, fc])
    if dtype is not None:
        modules.to(dtype)
    data = torch.from_numpy(inputs.astype(np.int64))
    target = torch.from_numpy(targets.reshape(-1).astype(np.int64))

    def loss_fn(data, target):
        out, _ = lstm(embedding(data))
        return torch.nn.functional.cross_entropy(fc(out.reshape(SEQ * BATCH, HIDDEN)), target)

    return harness.torch_sgd_step(torch, loss_fn, modules.parameters(), LR, (data, target), compile_loss)


@ADAPTERS.add("torch_eager", needs="torch")
def torch_eager(ctx):
    return {"lstm_lm": {"ms": run_and_check(ctx, torch_step(False))}}


@ADAPTERS.add("torch_compile", needs="torch", slow=True)
def torch_compile(ctx):
    return {"lstm_lm": {"ms": run_and_check(ctx, torch_step(True))}}


# ***** jax *****

def jax_step():
    """A jitted SGD step of the same model: the LSTM as lax.scan over time, gates i, f, g, o."""
    jax = harness.import_jax()
    jnp = jax.numpy
    weights, inputs, targets = make_problem()
    params = {name: jnp.asarray(w) for name, w in weights.items()}

    def loss_fn(params, tokens, labels):
        xs = params["embedding"][tokens]                                    # (64, 32, 256)
        # the input projection of every step at once, as the frameworks' LSTMs do
        gates_x = xs @ params["weight_ih_l0"].T + params["bias_ih_l0"] + params["bias_hh_l0"]

        def cell(carry, gx):
            h, c = carry
            i, f, g, o = jnp.split(gx + h @ params["weight_hh_l0"].T, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h
        zeros = jnp.zeros((BATCH, HIDDEN), jnp.float32)
        _, hs = jax.lax.scan(cell, (zeros, zeros), gates_x)
        logits = hs.reshape(SEQ * BATCH, HIDDEN) @ params["fc_weight"].T + params["fc_bias"]
        return harness.jax_cross_entropy(jax, logits, labels)

    return harness.jax_loop(harness.jax_sgd_step(jax, loss_fn, LR), [params],
                            jnp.asarray(inputs), jnp.asarray(targets.reshape(-1)))


@ADAPTERS.add("jax_jit", needs="jax")
def jax_jit(ctx):
    return {"lstm_lm": {"ms": run_and_check(ctx, jax_step())}}


if __name__ == "__main__":
    main("lstm_lm", ADAPTERS)
