"""Workloads 2 and 3, ew_fwd and ew_fwd_bwd: a 14-op elementwise chain on 2^20 float32.

    y = tanh(x*0.5 + 0.1) * sigmoid(x) + exp(-x*x) - 0.3*x*x + log1p(abs(x))

with xx = x*x shared: mul, add, tanh, sigmoid, mul, mul(xx), neg, exp, add, mul(0.3), sub,
abs, log1p, add. ew_fwd times y = chain(x): `ms` per call and `gbps` (4 B read + 4 B write per
element). ew_fwd_bwd times d/dx sum(chain(x)) (forward + backward): frameworks use their
autodiff, numpy and numba the analytic gradient. numba_handwritten reports `ms` (serial loop
over libm) and `ms_fast` (polynomial exp/log, vectorised; see ew_kernels.py).

    python -m benchmarks.ew_fwd --adapter minispore_graph
"""
import functools
import time
from types import SimpleNamespace

import numpy as np

from . import harness
from .harness import Adapters, main

N = 1 << 20
BYTES_PER_CALL = 8 * N
KERNEL_WAIT_S = 120.0

ADAPTERS = Adapters()


def make_input():
    return np.random.default_rng(0).standard_normal(N).astype(np.float32)


def chain(ops, x):
    """The 14-op chain for any namespace with tanh, sigmoid, exp, log1p, abs."""
    xx = x * x
    return (ops.tanh(x * 0.5 + 0.1) * ops.sigmoid(x) + ops.exp(-xx) - 0.3 * xx
            + ops.log1p(ops.abs(x)))


def reference():
    """(forward, gradient) in float64."""
    from scipy.special import expit
    x = make_input().astype(np.float64)
    t, s = np.tanh(x * 0.5 + 0.1), expit(x)
    y = t * s + np.exp(-x * x) - 0.3 * x * x + np.log1p(np.abs(x))
    g = (0.5 * (1 - t * t) * s + t * s * (1 - s) - 2 * x * np.exp(-x * x) - 0.6 * x
         + np.sign(x) / (1 + np.abs(x)))
    return y, g


def _check(ctx, name, got, want):
    ctx.close(name, np.asarray(got).reshape(-1), want, atol=2e-5)


def _report(ctx, fwd_s, fwd_out, bwd_s, grad_out, extra_fwd=None, extra_bwd=None):
    """Check both outputs and build the two workloads' metrics."""
    y_ref, g_ref = reference()
    _check(ctx, "forward", fwd_out, y_ref)
    _check(ctx, "gradient", grad_out, g_ref)
    fwd = {"ms": fwd_s * 1e3, "gbps": BYTES_PER_CALL / fwd_s / 1e9}
    fwd.update(extra_fwd or {})
    bwd = {"ms": bwd_s * 1e3}
    bwd.update(extra_bwd or {})
    return {"ew_fwd": fwd, "ew_fwd_bwd": bwd}


def _first_call(ctx, name, fn):
    t0 = time.perf_counter()
    out = fn()
    ctx.info[f"first_call_s_{name}"] = time.perf_counter() - t0
    return out


# ***** numpy and numba *****

def _numpy_ops():
    from scipy.special import expit
    return SimpleNamespace(tanh=np.tanh, sigmoid=expit, exp=np.exp, log1p=np.log1p, abs=np.abs)


def numpy_fwd_bwd(x):
    """sum(chain(x)) and its analytic gradient, sharing t, s, exp(-x^2) and |x|."""
    from scipy.special import expit
    t, s = np.tanh(x * 0.5 + 0.1), expit(x)
    xx, ax = x * x, np.abs(x)
    e = np.exp(-xx)
    total = (t * s + e - 0.3 * xx + np.log1p(ax)).sum()
    grad = 0.5 * (1 - t * t) * s + t * s * (1 - s) - 2 * x * e - 0.6 * x + np.sign(x) / (1 + ax)
    return total, grad


@ADAPTERS.add("numpy")
def numpy_ref(ctx):
    x, ops = make_input(), _numpy_ops()
    fwd_s = ctx.time(lambda: chain(ops, x))
    bwd_s = ctx.time(lambda: numpy_fwd_bwd(x))
    return _report(ctx, fwd_s, chain(ops, x), bwd_s, numpy_fwd_bwd(x)[1])


@ADAPTERS.add("numba_handwritten")
def numba_handwritten(ctx):
    from .ew_kernels import compile_kernels
    k = compile_kernels(cache=False)
    x = make_input()
    outs = {name: np.empty_like(x) for name in k}
    timed = {}
    for name, kernel in k.items():
        call = functools.partial(kernel, x, outs[name])
        _first_call(ctx, name, call)
        timed[name] = ctx.time(call)
    y_ref, g_ref = reference()
    _check(ctx, "forward_fast", outs["chain_fast"], y_ref)
    _check(ctx, "gradient_fast", outs["grad_fast"], g_ref)
    return _report(ctx, timed["chain_libm"], outs["chain_libm"], timed["grad_libm"],
                   outs["grad_libm"], {"ms_fast": timed["chain_fast"] * 1e3},
                   {"ms_fast": timed["grad_fast"] * 1e3})


# ***** minispore *****

def _minispore_functions():
    import minispore as ms
    ops = ms.ops
    forward = lambda x: chain(ops, x)
    gradient = ms.grad(lambda x: chain(ops, x).sum())
    return ms, forward, gradient


@ADAPTERS.add("minispore_pynative")
def minispore_pynative(ctx):
    ms, forward, gradient = _minispore_functions()
    x = ms.Tensor(make_input())
    fwd_s = ctx.time(lambda: forward(x))
    bwd_s = ctx.time(lambda: gradient(x))
    return _report(ctx, fwd_s, forward(x).asnumpy(), bwd_s, gradient(x).asnumpy())


@ADAPTERS.add("minispore_graph")
def minispore_graph(ctx):
    ms, forward, gradient = _minispore_functions()
    forward, gradient = ms.jit(forward), ms.jit(gradient)
    x = ms.Tensor(make_input())
    _first_call(ctx, "fwd", lambda: forward(x))
    _first_call(ctx, "fwd_bwd", lambda: gradient(x))
    ready, waited = harness.wait_for_kernels(KERNEL_WAIT_S)
    ctx.info["kernel_wait_s"] = waited
    ctx.true("kernels_compiled", ready, f"waited {waited:.1f} s for the fused kernels")
    fwd_s = ctx.time(lambda: forward(x))
    bwd_s = ctx.time(lambda: gradient(x))
    return _report(ctx, fwd_s, forward(x).asnumpy(), bwd_s, gradient(x).asnumpy())


# ***** torch and jax *****

def _torch_run(ctx, compile_fn):
    torch = harness.import_torch()
    forward = compile_fn(torch, lambda x: chain(torch, x))
    total = compile_fn(torch, lambda x: chain(torch, x).sum())
    x = torch.from_numpy(make_input())
    xg = x.clone().requires_grad_(True)

    def gradient():
        return torch.autograd.grad(total(xg), xg)[0]

    _first_call(ctx, "fwd", lambda: forward(x))
    _first_call(ctx, "fwd_bwd", gradient)
    fwd_s = ctx.time(lambda: forward(x))
    bwd_s = ctx.time(gradient)
    return _report(ctx, fwd_s, forward(x).numpy(), bwd_s, gradient().numpy())


@ADAPTERS.add("torch_eager", needs="torch")
def torch_eager(ctx):
    return _torch_run(ctx, lambda torch, fn: fn)


@ADAPTERS.add("torch_compile", needs="torch", slow=True)
def torch_compile(ctx):
    return _torch_run(ctx, lambda torch, fn: torch.compile(fn))


def jax_ops(jax):
    jnp = jax.numpy
    return SimpleNamespace(tanh=jnp.tanh, sigmoid=jax.nn.sigmoid, exp=jnp.exp, log1p=jnp.log1p,
                           abs=jnp.abs)


@ADAPTERS.add("jax_jit", needs="jax")
def jax_jit(ctx):
    jax = harness.import_jax()
    ops = jax_ops(jax)
    forward = jax.jit(lambda x: chain(ops, x))
    gradient = jax.jit(jax.grad(lambda x: chain(ops, x).sum()))
    x = jax.numpy.asarray(make_input())
    _first_call(ctx, "fwd", lambda: forward(x).block_until_ready())
    _first_call(ctx, "fwd_bwd", lambda: gradient(x).block_until_ready())
    fwd_s = ctx.time(lambda: forward(x).block_until_ready())
    bwd_s = ctx.time(lambda: gradient(x).block_until_ready())
    return _report(ctx, fwd_s, np.asarray(forward(x)), bwd_s, np.asarray(gradient(x)))


if __name__ == "__main__":
    main("ew_fwd", ADAPTERS)
