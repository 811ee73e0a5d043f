"""JIT fallback: a function with one tensor-dependent `if`, in three forms.

* minispore_pynative: eager, the baseline;
* minispore_graph_converted: `ms.jit`; the `if` is converted to a select, the whole function
  compiles into one program (and must run as one);
* minispore_graph_break: the same computation with a `return` inside the `if`, which the
  converter leaves to Python: the graph breaks at the condition, and every call re-runs the
  Python with the two segments compiled and cached (must not be slower than PyNative).

Input: 2^16 float32 (seed 0), a 12-op elementwise body on either side of the condition.

    python -m benchmarks.fallback_if --adapter minispore_graph_break
"""
import numpy as np  # noqa: E402

from . import harness
from .harness import Adapters, main

N = 1 << 16
ADAPTERS = Adapters()


def body(ops, x):
    return ops.tanh(x * 0.5 + 0.1) * ops.sigmoid(x) + ops.exp(-x * x) - 0.3 * x


def converted(x):
    from minispore import ops
    y = body(ops, x)
    if y.sum() > 0:
        z = body(ops, y) * 2.0
    else:
        z = body(ops, -y)
    return z


def breaking(x):
    from minispore import ops
    y = body(ops, x)
    if y.sum() > 0:
        return body(ops, y) * 2.0
    return body(ops, -y)


def _run(ctx, fn, name, compiled_whole):
    import minispore as ms
    x = ms.Tensor(np.random.default_rng(0).standard_normal(N).astype(np.float32))
    want = converted(x).asnumpy()
    f = ms.jit(fn) if compiled_whole is not None else fn
    f(x)
    if compiled_whole is not None:
        ready, waited = harness.wait_for_kernels(120.0)
        ctx.true("kernels_compiled", ready, f"waited {waited:.1f} s")
        ctx.true("compiled_whole" if compiled_whole else "breaks",
                 ms.explain(f).compiled_whole == compiled_whole, str(ms.explain(f)).splitlines()[0])
    ctx.close("value", f(x).asnumpy(), want, rtol=1e-5, atol=1e-5)
    return {"fallback_if": {"ms": ctx.time(lambda: f(x)) * 1e3}}


@ADAPTERS.add("minispore_pynative")
def minispore_pynative(ctx):
    return _run(ctx, converted, "pynative", None)


@ADAPTERS.add("minispore_graph_converted")
def minispore_graph_converted(ctx):
    return _run(ctx, converted, "converted", True)


@ADAPTERS.add("minispore_graph_break")
def minispore_graph_break(ctx):
    return _run(ctx, breaking, "break", False)


if __name__ == "__main__":
    main("fallback_if", ADAPTERS)
