"""Workload transformer_block: one Adam step of a Transformer encoder layer (post-norm, ReLU,
no dropout) — seq 128, batch 8, d_model 256, 4 heads, FFN 1024, batch first.

Weights from default_rng(0) (in MindSpore's layout: in_proj_weight (768, 256), Dense/Linear
weights (out, in)), LayerNorm gamma 1 and beta 0; input X ~ N(0, 1) of shape (8, 128, 256) and
a target ~ N(0, 1) from default_rng(1); the same batch every step; mean squared error; Adam,
lr 1e-3. The first 20 steps are the check (the first loss and a falling loss) and the
warm-up; then `ms` per step.

Framework idioms: MindSpore = nn.TransformerEncoderLayer + nn.Adam + ms.value_and_grad over
the optimizer's parameters (graph: ms.jit on the train step); torch = nn.TransformerEncoderLayer
+ optim.Adam (torch.compile compiles the loss function; the optimizer stays eager); jax =
the layer in jax.numpy with value_and_grad and Adam in one jitted step.

    python -m benchmarks.transformer_block --adapter minispore_graph
"""
import numpy as np

from . import harness
from .harness import Adapters, main, mindspore_train_step

SEQ, BATCH, D_MODEL, HEADS, FFN = 128, 8, 256, 4, 1024
LR = 1e-3
CHECK_STEPS = 20
LOSS_FIRST = 1.9949
KERNEL_WAIT_S = 300.0

ADAPTERS = Adapters()


def make_problem():
    """(weights by MindSpore name, x (N, L, E), target) as float32 numpy arrays."""
    rng = np.random.default_rng(0)

    def uniform(shape, fan_in):
        bound = 1 / np.sqrt(fan_in)
        return rng.uniform(-bound, bound, shape).astype(np.float32)

    weights = {
        "self_attn.in_proj_weight": uniform((3 * D_MODEL, D_MODEL), D_MODEL),
        "self_attn.in_proj_bias": uniform((3 * D_MODEL,), D_MODEL),
        "self_attn.out_proj.weight": uniform((D_MODEL, D_MODEL), D_MODEL),
        "self_attn.out_proj.bias": uniform((D_MODEL,), D_MODEL),
        "dense1.weight": uniform((FFN, D_MODEL), D_MODEL),
        "dense1.bias": uniform((FFN,), D_MODEL),
        "dense2.weight": uniform((D_MODEL, FFN), FFN),
        "dense2.bias": uniform((D_MODEL,), FFN),
    }
    data = np.random.default_rng(1)
    x = data.standard_normal((BATCH, SEQ, D_MODEL)).astype(np.float32)
    target = data.standard_normal((BATCH, SEQ, D_MODEL)).astype(np.float32)
    return weights, x, target


def run_and_check(ctx, step, after_first_step=None):
    """The check steps (warm-up included), then the median step time in ms."""
    return harness.check_and_time(ctx, step, CHECK_STEPS, LOSS_FIRST, None, after_first_step)


# ***** minispore *****

def minispore_problem(jit):
    import minispore as ms
    from minispore import nn

    weights, x, target = make_problem()
    layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=0.0, batch_first=True)
    for name, param in layer.parameters_and_names():
        if name in weights:
            param.set_data(ms.Tensor(weights[name]))
    optimizer = nn.Adam(layer.trainable_params(), learning_rate=LR)
    train_step = mindspore_train_step(ms, layer, nn.MSELoss(), optimizer, jit)
    data, label = ms.Tensor(x), ms.Tensor(target)
    return lambda: train_step(data, label)


@ADAPTERS.add("minispore_pynative")
def minispore_pynative(ctx):
    return {"transformer_block": {"ms": run_and_check(ctx, minispore_problem(jit=False))}}


@ADAPTERS.add("minispore_graph")
def minispore_graph(ctx):
    step = minispore_problem(jit=True)

    def wait_for_kernels():
        ready, waited = harness.wait_for_kernels(KERNEL_WAIT_S)
        ctx.info["kernel_wait_s"] = waited
        ctx.true("kernels_compiled", ready, f"waited {waited:.1f} s for the fused kernels")

    return {"transformer_block": {"ms": run_and_check(ctx, step, wait_for_kernels)}}


# ***** torch *****

_TORCH_NAMES = {"dense1": "linear1", "dense2": "linear2"}


def torch_step(compile_loss):
    torch = harness.import_torch()
    weights, x, target = make_problem()
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=0.0, batch_first=True)
    params = dict(layer.named_parameters())
    with torch.no_grad():
        for name, value in weights.items():
            prefix, _, rest = name.partition(".")
            params[f"{_TORCH_NAMES.get(prefix, prefix)}.{rest}"].copy_(torch.from_numpy(value))
    data, label = torch.from_numpy(x), torch.from_numpy(target)

    def loss_fn(data, label):
        return torch.nn.functional.mse_loss(layer(data), label)

    loss_fn = torch.compile(loss_fn) if compile_loss else loss_fn
    return harness.torch_train_step(loss_fn, torch.optim.Adam(layer.parameters(), lr=LR),
                                    data, label)


@ADAPTERS.add("torch_eager", needs="torch")
def torch_eager(ctx):
    return {"transformer_block": {"ms": run_and_check(ctx, torch_step(False))}}


@ADAPTERS.add("torch_compile", needs="torch", slow=True, max_repeats=1)
def torch_compile(ctx):
    return {"transformer_block": {"ms": run_and_check(ctx, torch_step(True))}}


# ***** jax *****

def jax_step():
    """A jitted Adam step of the same layer, written with jax.numpy (post-norm, ReLU)."""
    jax = harness.import_jax()
    jnp = jax.numpy
    weights, x, target = make_problem()
    params = {name: jnp.asarray(w) for name, w in weights.items()}
    for norm in ("norm1", "norm2"):
        params[f"{norm}.gamma"] = jnp.ones(D_MODEL, jnp.float32)
        params[f"{norm}.beta"] = jnp.zeros(D_MODEL, jnp.float32)

    def layer_norm(h, p, name):
        mean = h.mean(-1, keepdims=True)
        var = ((h - mean) ** 2).mean(-1, keepdims=True)
        return (h - mean) / jnp.sqrt(var + 1e-5) * p[f"{name}.gamma"] + p[f"{name}.beta"]

    def attention(h, p):
        qkv = h @ p["self_attn.in_proj_weight"].T + p["self_attn.in_proj_bias"]
        heads = qkv.reshape(BATCH, SEQ, 3, HEADS, D_MODEL // HEADS).transpose(2, 0, 3, 1, 4)
        q, k, v = heads[0], heads[1], heads[2]                       # (N, H, L, head)
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(D_MODEL // HEADS)
        out = jax.nn.softmax(scores, -1) @ v
        out = out.transpose(0, 2, 1, 3).reshape(BATCH, SEQ, D_MODEL)
        return out @ p["self_attn.out_proj.weight"].T + p["self_attn.out_proj.bias"]

    def loss_fn(p, data, label):
        h = layer_norm(data + attention(data, p), p, "norm1")
        ffn = jax.nn.relu(h @ p["dense1.weight"].T + p["dense1.bias"])
        h = layer_norm(h + ffn @ p["dense2.weight"].T + p["dense2.bias"], p, "norm2")
        return ((h - label) ** 2).mean()

    @jax.jit
    def step(p, m, v, t, data, label):
        loss, g = jax.value_and_grad(loss_fn)(p, data, label)
        t = t + 1
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        rate = LR * jnp.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        p = jax.tree_util.tree_map(lambda p, m, v: p - rate * m / (jnp.sqrt(v) + 1e-8), p, m, v)
        return p, m, v, t, loss

    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    return harness.jax_loop(step, [params, zeros, zeros, jnp.float32(0)], jnp.asarray(x),
                            jnp.asarray(target))


@ADAPTERS.add("jax_jit", needs="jax")
def jax_jit(ctx):
    return {"transformer_block": {"ms": run_and_check(ctx, jax_step())}}


if __name__ == "__main__":
    main("transformer_block", ADAPTERS)
