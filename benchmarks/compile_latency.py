"""Workload 5, compile_ew_fwd / compile_mlp_step: what the first call of a jitted function costs.

Every figure comes from a FRESH process (this script's adapter starts one per measurement):
`import_s` = the framework's import; `first_call_s` = wall time of the first call of the jitted
ew_fwd chain / MLP train step (tracing + compilation + one run, synced); `steady_ms` = later
calls.

* minispore_graph: cold = empty MINISPORE_CACHE_DIR, warm = a second fresh process reusing it.
  Graph mode compiles fused kernels on a background thread and runs numpy meanwhile, so the
  first call returns before the kernels exist: `compiled_s` adds the wait until they are
  ready (the time to reach steady-state speed).
* numba_handwritten (ew only): `first_call_s` = njit(cache=False) compile + run of the serial
  fused kernel; `cache_write_first_call_s` = cache=True in a new process with an empty
  NUMBA_CACHE_DIR; `cache_load_first_call_s` = a second new process loading that cache.
* jax_jit: no persistent cache. torch_compile: empty TORCHINDUCTOR_CACHE_DIR, FX/AOT caches off.

    python -m benchmarks.compile_latency --adapter minispore_graph
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from . import harness
from .harness import RESULT_MARKER, Adapters, Context, main

WORKLOADS = {"ew": "compile_ew_fwd", "mlp": "compile_mlp_step"}
KERNEL_WAIT_S = 120.0
FRESH_PROCESS_TIMEOUT_S = 600

ADAPTERS = Adapters()


# ***** what one fresh process measures *****

def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _minispore_fresh(ctx, workload):
    _, import_s = _timed(lambda: __import__("minispore"))
    import minispore as ms
    if workload == "ew":
        from .ew_fwd import chain, make_input, reference
        forward = ms.jit(lambda x: chain(ms.ops, x))
        x = ms.Tensor(make_input())
        call = lambda: forward(x)
        out, first_s = _timed(call)
        ctx.close("output", out.asnumpy(), reference()[0], atol=2e-5)
    else:
        from .mlp_train_step import LOSS_FIRST, minispore_train_step
        _, train_step, data, label = minispore_train_step(jit=True)
        call = lambda: train_step(data, label)
        loss, first_s = _timed(call)
        ctx.close("loss_first", float(loss), LOSS_FIRST, atol=5e-4)
    ready, waited = harness.wait_for_kernels(KERNEL_WAIT_S)
    ctx.true("kernels_compiled", ready, f"waited {waited:.1f} s for the fused kernels")
    return {"import_s": import_s, "first_call_s": first_s, "compiled_s": first_s + waited,
            "steady_ms": ctx.time(call) * 1e3}


def _numba_fresh(ctx, cache):
    """The serial libm kernel of ew_fwd (numba has no MLP adapter)."""
    _, import_s = _timed(lambda: __import__("numba"))
    from .ew_fwd import make_input, reference
    from .ew_kernels import compile_kernels
    kernel = compile_kernels(cache=cache)["chain_libm"]
    x = make_input()
    out = np.empty_like(x)
    _, first_s = _timed(lambda: kernel(x, out))
    ctx.close("output", out, reference()[0], atol=2e-5)
    return {"import_s": import_s, "first_call_s": first_s,
            "steady_ms": ctx.time(lambda: kernel(x, out)) * 1e3}


def _jax_fresh(ctx, workload):
    _, import_s = _timed(harness.import_jax)
    if workload == "ew":
        import jax

        from .ew_fwd import chain, jax_ops, make_input, reference
        ops = jax_ops(jax)
        forward = jax.jit(lambda x: chain(ops, x))
        x = jax.numpy.asarray(make_input())
        call = lambda: forward(x).block_until_ready()
        out, first_s = _timed(call)
        ctx.close("output", np.asarray(out), reference()[0], atol=2e-5)
    else:
        from .mlp_train_step import LOSS_FIRST, jax_train_step
        step, params, x, y = jax_train_step()
        call = lambda: step(params, x, y)[1].block_until_ready()
        loss, first_s = _timed(call)
        ctx.close("loss_first", float(loss), LOSS_FIRST, atol=5e-4)
    return {"import_s": import_s, "first_call_s": first_s, "steady_ms": ctx.time(call) * 1e3}


def _torch_compile_fresh(ctx, workload):
    torch, import_s = _timed(harness.import_torch)
    if workload == "ew":
        from .ew_fwd import chain, make_input, reference
        forward = torch.compile(lambda x: chain(torch, x))
        x = torch.from_numpy(make_input())
        call = lambda: forward(x)
        out, first_s = _timed(call)
        ctx.close("output", out.numpy(), reference()[0], atol=2e-5)
    else:
        from .mlp_train_step import LOSS_FIRST, torch_train_step
        call = torch_train_step(compile_loss=True)
        loss, first_s = _timed(call)
        ctx.close("loss_first", float(loss), LOSS_FIRST, atol=5e-4)
    return {"import_s": import_s, "first_call_s": first_s, "steady_ms": ctx.time(call) * 1e3}


FRESH = {
    "minispore_graph": _minispore_fresh,
    "numba_nocache": lambda ctx, workload: _numba_fresh(ctx, cache=False),
    "numba_cache": lambda ctx, workload: _numba_fresh(ctx, cache=True),
    "jax_jit": _jax_fresh,
    "torch_compile": _torch_compile_fresh,
}


def measure_here(kind, workload, quick):
    """The body of one fresh process: print its RESULT_MARKER line."""
    ctx = Context(quick)
    record = {"checks": ctx.checks}
    try:
        record["results"] = FRESH[kind](ctx, workload)
    except Exception as e:  # noqa: BLE001  (any failure is reported in the table)
        import traceback
        traceback.print_exc()
        record["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
    print(RESULT_MARKER + json.dumps(record), flush=True)
    sys.stderr.flush()
    os._exit(0)  # a kernel still compiling on a daemon thread must not hold the process


# ***** adapters: each starts the fresh processes it needs *****

def fresh_process(ctx, kind, workload, label, env=None):
    """Run `measure_here` in a new interpreter; merge its checks into ctx; return its metrics."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    argv = [sys.executable, "-m", "benchmarks.compile_latency", "--fresh", kind,
            "--workload", workload] + (["--quick"] if ctx.quick else [])
    done = subprocess.run(argv, check=False, cwd=root, env={**os.environ, **(env or {})}, text=True,
                          stdout=subprocess.PIPE, timeout=FRESH_PROCESS_TIMEOUT_S)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith(RESULT_MARKER)]
    if not lines:
        raise RuntimeError(f"{label}: the fresh process printed no result (exit {done.returncode})")
    record = json.loads(lines[-1][len(RESULT_MARKER):])
    for name, ok in record["checks"].items():
        ctx.checks[f"{label}.{name}"] = ok
    if "error" in record:
        raise RuntimeError(f"{label}: {record['error']}")
    return record["results"]


def _cold_and_warm(ctx, kind, cache_env_name, workloads=("ew", "mlp"), extra_env=None):
    results = {}
    for workload in workloads:
        with tempfile.TemporaryDirectory(prefix="bench_compile_") as cache:
            env = {cache_env_name: cache, **(extra_env or {})}
            cold = fresh_process(ctx, kind, workload, f"{workload}_cold", env)
            warm = fresh_process(ctx, kind, workload, f"{workload}_warm", env)
        metrics = dict(cold)
        metrics.update({f"warm_{k}": v for k, v in warm.items() if k != "import_s"})
        results[WORKLOADS[workload]] = metrics
    return results


@ADAPTERS.add("minispore_graph")
def minispore_graph(ctx):
    return _cold_and_warm(ctx, "minispore_graph", "MINISPORE_CACHE_DIR")


@ADAPTERS.add("numba_handwritten")
def numba_handwritten(ctx):
    metrics = fresh_process(ctx, "numba_nocache", "ew", "ew_nocache")
    with tempfile.TemporaryDirectory(prefix="bench_numba_cache_") as cache:
        env = {"NUMBA_CACHE_DIR": cache}
        write = fresh_process(ctx, "numba_cache", "ew", "ew_cache_write", env)
        load = fresh_process(ctx, "numba_cache", "ew", "ew_cache_load", env)
    metrics.update(cache_write_first_call_s=write["first_call_s"],
                   cache_load_first_call_s=load["first_call_s"])
    return {WORKLOADS["ew"]: metrics}


@ADAPTERS.add("jax_jit", needs="jax")
def jax_jit(ctx):
    return {WORKLOADS[w]: fresh_process(ctx, "jax_jit", w, w) for w in ("ew", "mlp")}


@ADAPTERS.add("torch_compile", needs="torch", slow=True, max_repeats=1)
def torch_compile(ctx):
    results = {}
    for w in ("ew", "mlp"):
        with tempfile.TemporaryDirectory(prefix="bench_inductor_") as cache:
            env = {"TORCHINDUCTOR_CACHE_DIR": cache, "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
                   "TORCHINDUCTOR_AUTOGRAD_CACHE": "0"}
            results[WORKLOADS[w]] = fresh_process(ctx, "torch_compile", w, w, env)
    return results


def _fresh_main(argv):
    parser = argparse.ArgumentParser(description="one fresh-process compile measurement")
    parser.add_argument("--fresh", required=True, choices=list(FRESH))
    parser.add_argument("--workload", required=True, choices=list(WORKLOADS))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    measure_here(args.fresh, args.workload, args.quick)


if __name__ == "__main__":
    if "--fresh" in sys.argv:
        _fresh_main(sys.argv[1:])
    else:
        main("compile_latency", ADAPTERS)
