"""The user's view: what a fresh process gets from a training step in its first seconds.

A script or a notebook cell does not wait for kernels: it imports, builds the model and
calls the step in a loop. Each measurement here is a FRESH process that does exactly that for
`--seconds` (default 2) counted from the process start, without waiting for the background
compiler, then (outside the window) waits for the kernels and times the compiled step:

* `steps`: train steps finished inside the window (more is better);
* `first_call_s`: when the first step returned (from process start, import included);
* `speed_s`: when the first step at compiled speed (at most 1.25x the steady step) began;
  '-' if none did within the window;
* `steady_ms`: the step after the window, kernels compiled.

A third process runs cold and simply ends after its window, as a short script does (kernels
may still be compiling: what reaches the cache is what the next run of it loads); a fourth,
"the next run", shows what it left.

minispore_graph runs cold (empty caches) and then warm (a second process reusing them);
PyNative and PyTorch eager have nothing to cache; JAX jit compiles in its first call, every
process (no persistent compilation cache by default). The workload is the MLP of mlp_train_step
(784-256-256-10, batch 128, SGD; --batch/--width widen it), or with --workload the
Transformer block of transformer_block or the ResNet-style CNN of resnet_cnn (give them a
longer window: their kernels take longer to compile).

    python -m benchmarks.first_seconds [--seconds 2] [--batch 128] [--width 256]
    python -m benchmarks.first_seconds --workload resnet_cnn --seconds 40
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

START = time.perf_counter()  # the process's start, as near as this module can see it

from . import gpu_models, harness, mlp_train_step, resnet_cnn, transformer_block  # noqa: E402

MARKER = "FIRST_SECONDS "
KINDS = ("minispore_graph", "minispore_pynative", "torch_eager", "jax_jit")
WORKLOADS = ("mlp_train_step", "transformer_block", "resnet_cnn")


def _bigger_step(kind, workload):
    """A step of the Transformer block or the ResNet, returning a host float (synced)."""
    if kind == "jax_jit":
        step = (transformer_block if workload == "transformer_block" else resnet_cnn).jax_step()
        return lambda: float(step())
    if kind == "torch_eager":
        if workload == "transformer_block":
            return transformer_block.torch_step(False)
        return gpu_models.torch_step(harness.import_torch(), "resnet_cnn", device="cpu")
    jit = kind == "minispore_graph"
    if workload == "transformer_block":
        step = transformer_block.minispore_problem(jit)
    else:
        import minispore as ms
        step = gpu_models.minispore_step(ms, "resnet_cnn", jit)
    return lambda: float(step())


def _step(kind, workload="mlp_train_step"):
    if workload != "mlp_train_step":
        return _bigger_step(kind, workload)
    if kind == "torch_eager":
        return mlp_train_step.torch_train_step(False)
    if kind == "jax_jit":
        step, params, x, y = mlp_train_step.jax_train_step()
        return harness.jax_loop(step, [params], x, y)
    _, train_step, data, label = mlp_train_step.minispore_train_step(jit=kind == "minispore_graph")
    return lambda: float(train_step(data, label))


def measure_here(kind, seconds, leave=False, workload="mlp_train_step"):
    """The body of one fresh process: the loop for `seconds` from START, then steady timing
    (leave: none, the process just ends)."""
    step = _step(kind, workload)
    calls = []  # (start, duration) from START
    while True:
        t0 = time.perf_counter()
        if t0 - START >= seconds and calls:
            break
        step()
        calls.append((t0 - START, time.perf_counter() - t0))
    record = {"steps": len(calls), "first_call_s": calls[0][0] + calls[0][1],
              "speed_s": None, "steady_ms": None}
    if leave:  # end as a script does: a normal exit, kernels maybe still compiling
        print(MARKER + json.dumps(record), flush=True)
        sys.exit(0)
    if kind == "minispore_graph":
        harness.wait_for_kernels(600.0)
    steady = harness.median_of_calls(step, 10)
    fast = [start for start, duration in calls if duration <= 1.25 * steady]
    record.update(speed_s=fast[0] if fast else None, steady_ms=steady * 1e3)
    print(MARKER + json.dumps(record), flush=True)
    os._exit(0)  # the measurement is done: a kernel still compiling must not hold the process


def fresh(kind, args, env, leave=False):
    argv = [sys.executable, "-m", "benchmarks.first_seconds", "--fresh", kind,
            "--seconds", str(args.seconds), "--batch", str(args.batch), "--width", str(args.width),
            "--workload", args.workload]
    argv += ["--leave"] if leave else []
    done = subprocess.run(argv, env={**os.environ, **env}, text=True, stdout=subprocess.PIPE,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          timeout=1200, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith(MARKER)]
    return json.loads(lines[-1][len(MARKER):]) if lines else None


def _caches(scratch):
    return {"MINISPORE_CACHE_DIR": os.path.join(scratch, "ms"),
            "NUMBA_CACHE_DIR": os.path.join(scratch, "numba")}


def _row(name, record):
    if record is None:
        return f"| {name} | failed | | | |"
    speed = "-" if record["speed_s"] is None else f"{record['speed_s']:.2f}"
    steady = "-" if record["steady_ms"] is None else f"{record['steady_ms']:.2f}"
    return f"| {name} | {record['steps']} | {record['first_call_s']:.2f} | {speed} | {steady} |"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--batch", type=int, default=mlp_train_step.BATCH)
    parser.add_argument("--width", type=int, default=mlp_train_step.SIZES[1])
    parser.add_argument("--fresh", choices=KINDS)
    parser.add_argument("--leave", action="store_true")
    parser.add_argument("--workload", choices=WORKLOADS, default="mlp_train_step")
    args = parser.parse_args(argv)
    mlp_train_step.resize(args.batch, args.width)
    if args.fresh:
        measure_here(args.fresh, args.seconds, args.leave, args.workload)
    what = (f"MLP batch {args.batch} width {args.width}" if args.workload == "mlp_train_step"
            else args.workload)
    print(f"{what}, first {args.seconds:g} s of a fresh process; load average "
          f"{os.getloadavg()[0]:.2f}\n")
    print("| process | steps in window | first step done (s) | compiled speed from (s) | "
          "steady (ms) |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="first_seconds_") as scratch:
        caches = _caches(scratch)
        print(_row("minispore Graph, cold cache", fresh("minispore_graph", args, caches)))
        print(_row("minispore Graph, warm cache", fresh("minispore_graph", args, caches)))
    with tempfile.TemporaryDirectory(prefix="first_seconds_") as scratch:
        caches = _caches(scratch)
        print(_row("minispore Graph, cold, ends after the window",
                   fresh("minispore_graph", args, caches, leave=True)))
        print(_row("minispore Graph, the next run", fresh("minispore_graph", args, caches)))
    print(_row("minispore PyNative", fresh("minispore_pynative", args, {})))
    if harness.importlib.util.find_spec("torch") is not None:
        print(_row("PyTorch eager", fresh("torch_eager", args, {})))
    if harness.importlib.util.find_spec("jax") is not None:  # no persistent cache: always cold
        print(_row("JAX jit", fresh("jax_jit", args, {})))


if __name__ == "__main__":
    main()
