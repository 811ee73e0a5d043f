"""Workload 1, op_overhead: the cost of one primitive op on tiny (16-element) tensors.

Exactly 1000 primitive ops, written the same way in every adapter:

    for _ in range(333):
        x = tanh((x + a) * b)      # add, mul, tanh
    return x + a                   # 1000th op

Eager adapters: `us_per_op` = call time / 1000, `call_us` = the whole call. The *_recording
adapters run the same forward while gradients are recorded (inside ms.grad / with
requires_grad) and time that forward alone; `grad_call_us` is the whole gradient call.
JIT adapters compile the function once: `us_per_op` = compiled-call latency / 1000.
numba_handwritten is one fused kernel; `dispatch_us` is the latency of a trivial njit call.

    python -m benchmarks.op_overhead --adapter minispore_pynative
"""
import functools
import statistics
import time

import numpy as np

from . import harness
from .harness import Adapters, main

N_OPS = 1000
N_LOOPS = 333
SIZE = 16
KERNEL_WAIT_S = 30.0          # a fused kernel that takes longer is reported, not awaited
KERNEL_WAIT_QUICK_S = 15.0

ADAPTERS = Adapters()


def make_inputs():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.0, 1.0, SIZE).astype(np.float32)
    a = rng.uniform(-0.1, 0.1, SIZE).astype(np.float32)
    b = rng.uniform(0.5, 1.0, SIZE).astype(np.float32)
    return x, a, b


def chain(tanh, x, a, b):
    """The 1000-op sequence for any framework whose tensors support + and *."""
    for _ in range(N_LOOPS):
        x = tanh((x + a) * b)
    return x + a


def reference():
    x, a, b = (v.astype(np.float64) for v in make_inputs())
    return chain(np.tanh, x, a, b)


def _result(ctx, call_s, out, **extra):
    ctx.close("output", out, reference(), atol=1e-5)
    metrics = {"us_per_op": call_s * 1e6 / N_OPS, "call_us": call_s * 1e6}
    metrics.update(extra)
    return {"op_overhead": metrics}


# ***** numpy and numba *****

@ADAPTERS.add("numpy")
def numpy_ref(ctx):
    x, a, b = make_inputs()
    return _result(ctx, ctx.time(lambda: chain(np.tanh, x, a, b)), chain(np.tanh, x, a, b))


@ADAPTERS.add("numba_handwritten")
def numba_handwritten(ctx):
    import math

    import numba

    @numba.njit(cache=False)
    def fused(x, a, b, out):
        for i in range(x.size):
            v, ai, bi = x[i], a[i], b[i]
            for _ in range(N_LOOPS):
                v = math.tanh((v + ai) * bi)
            out[i] = v + ai

    @numba.njit(cache=False)
    def trivial(x):
        return x

    x, a, b = make_inputs()
    out = np.empty_like(x)
    call_s = ctx.time(lambda: fused(x, a, b, out))
    dispatch_s = ctx.time(lambda: trivial(x))
    return _result(ctx, call_s, out, dispatch_us=dispatch_s * 1e6)


# ***** minispore *****

def _minispore_inputs():
    import minispore as ms
    return ms, [ms.Tensor(v) for v in make_inputs()]


@ADAPTERS.add("minispore_pynative")
def minispore_pynative(ctx):
    ms, (x, a, b) = _minispore_inputs()
    tanh = ms.ops.tanh
    call_s = ctx.time(lambda: chain(tanh, x, a, b))
    return _result(ctx, call_s, chain(tanh, x, a, b).asnumpy())


def _timed_forward_inside(ctx, make_grad_call, run_forward):
    """(median forward seconds while recording, median whole gradient-call seconds).

    make_grad_call(loss) returns a no-argument call computing the gradient of loss."""
    forward_s = []

    def loss(*args):
        t0 = time.perf_counter()
        y = run_forward(*args)
        forward_s.append(time.perf_counter() - t0)
        return y.sum()

    call_s = ctx.time(make_grad_call(loss))
    return statistics.median(forward_s[3:]), call_s  # the first 3 are ctx.time's warm-up


@ADAPTERS.add("minispore_pynative_recording")
def minispore_pynative_recording(ctx):
    ms, (x, a, b) = _minispore_inputs()
    tanh = ms.ops.tanh
    forward_s, call_s = _timed_forward_inside(
        ctx, lambda loss: functools.partial(ms.grad(loss), x, a, b),
        lambda x, a, b: chain(tanh, x, a, b))
    with_grad = ms.grad(lambda x: chain(tanh, x, a, b).sum())(x).asnumpy()
    ctx.close("grad_finite", np.isfinite(with_grad).all(), True)
    return _result(ctx, forward_s, chain(tanh, x, a, b).asnumpy(), grad_call_us=call_s * 1e6)


def _minispore_graph(ctx):
    ms, (x, a, b) = _minispore_inputs()
    tanh = ms.ops.tanh
    compiled = ms.jit(lambda x, a, b: chain(tanh, x, a, b))
    t0 = time.perf_counter()
    compiled(x, a, b)
    ctx.info["first_call_s"] = time.perf_counter() - t0
    ready, waited = harness.wait_for_kernels(KERNEL_WAIT_QUICK_S if ctx.quick else KERNEL_WAIT_S)
    ctx.info["kernel_wait_s"] = waited
    ctx.info["kernels_ready"] = ready
    ctx.true("kernels_compiled", ready, f"waited {waited:.1f} s for the fused kernels")
    call_s = ctx.time(lambda: compiled(x, a, b))
    return _result(ctx, call_s, compiled(x, a, b).asnumpy())


@ADAPTERS.add("minispore_graph")
def minispore_graph(ctx):
    return _minispore_graph(ctx)


@ADAPTERS.add("minispore_graph_nofusion")
def minispore_graph_nofusion(ctx):
    """Graph mode's program interpreter alone (MINISPORE_FUSION=0): one impl call per op."""
    import os
    os.environ["MINISPORE_FUSION"] = "0"
    return _minispore_graph(ctx)


# ***** torch and jax *****

def _torch_inputs(requires_grad=False):
    torch = harness.import_torch()
    x, a, b = (torch.from_numpy(v) for v in make_inputs())
    return torch, x.requires_grad_(requires_grad), a, b


@ADAPTERS.add("torch_eager", needs="torch")
def torch_eager(ctx):
    torch, x, a, b = _torch_inputs()
    call_s = ctx.time(lambda: chain(torch.tanh, x, a, b))
    return _result(ctx, call_s, chain(torch.tanh, x, a, b).numpy())


@ADAPTERS.add("torch_eager_recording", needs="torch")
def torch_eager_recording(ctx):
    torch, x, a, b = _torch_inputs(requires_grad=True)
    forward_s, call_s = _timed_forward_inside(
        ctx, lambda loss: (lambda: torch.autograd.grad(loss(x, a, b), x)),
        lambda x, a, b: chain(torch.tanh, x, a, b))
    return _result(ctx, forward_s, chain(torch.tanh, x, a, b).detach().numpy(),
                   grad_call_us=call_s * 1e6)


@ADAPTERS.add("torch_compile", needs="torch", slow=True)
def torch_compile(ctx):
    torch, x, a, b = _torch_inputs()
    compiled = torch.compile(lambda x, a, b: chain(torch.tanh, x, a, b))
    t0 = time.perf_counter()
    compiled(x, a, b)
    ctx.info["first_call_s"] = time.perf_counter() - t0
    call_s = ctx.time(lambda: compiled(x, a, b))
    return _result(ctx, call_s, compiled(x, a, b).numpy())


@ADAPTERS.add("jax_jit", needs="jax")
def jax_jit(ctx):
    jax = harness.import_jax()
    x, a, b = (jax.numpy.asarray(v) for v in make_inputs())
    compiled = jax.jit(lambda x, a, b: chain(jax.numpy.tanh, x, a, b))
    t0 = time.perf_counter()
    compiled(x, a, b).block_until_ready()
    ctx.info["first_call_s"] = time.perf_counter() - t0
    call_s = ctx.time(lambda: compiled(x, a, b).block_until_ready())
    return _result(ctx, call_s, np.asarray(compiled(x, a, b)))


if __name__ == "__main__":
    main("op_overhead", ADAPTERS)
