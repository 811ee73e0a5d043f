"""Workload resnet_cnn: one SGD-momentum step of the ResNet-style CNN of BENCHMARKS.md on the
CPU: a 3x3 stem 3->16 with BatchNorm and ReLU, 3 stages x 2 basic blocks (16/32/64 channels,
stride 2 and a 1x1 projection at the start of stages 2 and 3), global average pool, Dense to
10 classes; softmax cross-entropy (mean); momentum 0.9, lr 0.01; batch 64 of 3x32x32. The
model, weights and data are benchmarks.gpu_models' (He-normal from default_rng(0)), run here
on the CPU. Check: the first loss and a falling loss over the warm-up steps; then `ms` per
step.

Framework idioms: minispore = nn.Conv2d/BatchNorm2d/Dense + nn.Momentum with
ms.value_and_grad (graph: ms.jit on the train step); torch = the same nn.Module and
optim.SGD (torch.compile compiles the forward and loss); jax = the network in jax.numpy and
jax.lax.conv_general_dilated with value_and_grad and the momentum update in one jitted step.

    python -m benchmarks.resnet_cnn --adapter minispore_graph
"""
import numpy as np

from . import gpu_models, harness
from .harness import Adapters, main

CHECK_STEPS = 5
LOSS_FIRST = 2.5297
KERNEL_WAIT_S = 600.0

ADAPTERS = Adapters()


def run_and_check(ctx, step, after_first_step=None):
    """The check steps (warm-up included), then the median step time in ms."""
    return harness.check_and_time(ctx, step, CHECK_STEPS, LOSS_FIRST, None, after_first_step)


@ADAPTERS.add("minispore_pynative")
def minispore_pynative(ctx):
    import minispore as ms
    return {"resnet_cnn": {"ms": run_and_check(ctx, gpu_models.minispore_step(ms, "resnet_cnn",
                                                                             jit=False))}}


@ADAPTERS.add("minispore_graph")
def minispore_graph(ctx):
    import minispore as ms
    step = gpu_models.minispore_step(ms, "resnet_cnn", jit=True)

    def wait_for_kernels():
        ready, waited = harness.wait_for_kernels(KERNEL_WAIT_S)
        ctx.info["kernel_wait_s"] = waited
        ctx.true("kernels_compiled", ready, f"waited {waited:.1f} s for the fused kernels")

    return {"resnet_cnn": {"ms": run_and_check(ctx, step, wait_for_kernels)}}


@ADAPTERS.add("torch_eager", needs="torch")
def torch_eager(ctx):
    torch = harness.import_torch()
    return {"resnet_cnn": {"ms": run_and_check(
        ctx, gpu_models.torch_step(torch, "resnet_cnn", device="cpu"))}}


@ADAPTERS.add("torch_compile", needs="torch", slow=True, max_repeats=1)
def torch_compile(ctx):
    torch = harness.import_torch()
    return {"resnet_cnn": {"ms": run_and_check(
        ctx, gpu_models.torch_step(torch, "resnet_cnn", device="cpu", compile=True))}}


# ***** jax *****

def jax_step():
    jax = harness.import_jax()
    jnp = jax.numpy
    problem = gpu_models.make_resnet_problem(gpu_models.WORKLOADS["resnet_cnn"].batch)
    params = {name: jnp.asarray(w) for name, w in problem.weights.items()}
    for name, w in problem.weights.items():
        if name != "fc":  # every conv has a BatchNorm: scale 1, shift 0
            params[f"{name}.gamma"] = jnp.ones(w.shape[0], jnp.float32)
            params[f"{name}.beta"] = jnp.zeros(w.shape[0], jnp.float32)
    params["fc.bias"] = jnp.zeros(gpu_models.CLASSES, jnp.float32)

    def conv_bn(p, name, x, stride):
        w = p[name]
        pad = w.shape[2] // 2
        y = jax.lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad), (pad, pad)],
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
        mean = y.mean((0, 2, 3), keepdims=True)
        var = ((y - mean) ** 2).mean((0, 2, 3), keepdims=True)
        scale = p[f"{name}.gamma"][None, :, None, None] / jnp.sqrt(var + gpu_models.NORM_EPS)
        return (y - mean) * scale + p[f"{name}.beta"][None, :, None, None]

    def loss_fn(p, x, labels):
        h = jax.nn.relu(conv_bn(p, "stem", x, 1))
        for name, _, _, stride in gpu_models.resnet_blocks():
            branch = jax.nn.relu(conv_bn(p, f"{name}.conv1", h, stride))
            branch = conv_bn(p, f"{name}.conv2", branch, 1)
            shortcut = conv_bn(p, f"{name}.shortcut", h, stride) \
                if f"{name}.shortcut" in p else h
            h = jax.nn.relu(branch + shortcut)
        return harness.jax_cross_entropy(jax, h.mean((2, 3)) @ p["fc"].T + p["fc.bias"], labels)

    @jax.jit
    def step(p, v, x, labels):
        loss, g = jax.value_and_grad(loss_fn)(p, x, labels)
        v = jax.tree_util.tree_map(lambda v, g: gpu_models.SGD_MOMENTUM * v + g, v, g)
        p = jax.tree_util.tree_map(lambda p, v: p - gpu_models.SGD_LR * v, p, v)
        return p, v, loss

    return harness.jax_loop(step, [params, jax.tree_util.tree_map(jnp.zeros_like, params)],
                            jnp.asarray(problem.inputs), jnp.asarray(problem.targets))


@ADAPTERS.add("jax_jit", needs="jax")
def jax_jit(ctx):
    return {"resnet_cnn": {"ms": run_and_check(ctx, jax_step())}}


if __name__ == "__main__":
    main("resnet_cnn", ADAPTERS)
