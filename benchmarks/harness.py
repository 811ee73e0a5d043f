"""What every workload script shares: timing, checks, framework setup, the JSON line.

(The package's __init__ has already pinned every thread pool to one thread.) A workload
script registers adapters and hands over to `main`:

    ADAPTERS = Adapters()

    @ADAPTERS.add("numpy")
    def numpy_ref(ctx):
        ms_per_call = ctx.time(lambda: f(x)) * 1e3
        ctx.close("value", got, want, atol=1e-4)
        return {"ew_fwd": {"ms": ms_per_call}}

    if __name__ == "__main__":
        main("ew_fwd", ADAPTERS)

The child prints exactly one line starting with RESULT_MARKER; run.py parses it.
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

RESULT_MARKER = "BENCH_RESULT "


# ***** adapters *****

class Adapter(NamedTuple):
    fn: Callable
    needs: str | None         # module that must be importable, else the adapter is skipped
    slow: bool                # minutes of compilation: left out of --quick runs
    max_repeats: int | None   # cap on processes per run (cold compiles are slow and stable)


class Adapters(dict):
    """name -> Adapter, in registration order."""

    def add(self, name, needs=None, slow=False, max_repeats=None):
        def register(fn):
            self[name] = Adapter(fn, needs, slow, max_repeats)
            return fn
        return register

    def available(self, name):
        needs = self[name].needs
        return needs is None or importlib.util.find_spec(needs) is not None


# ***** timing *****

class Context:
    """Handed to an adapter: its time budget, the timer, and the checks it reports."""

    def __init__(self, quick):
        self.quick = quick
        self.budget_s = 0.25 if quick else 0.8   # sampling time per measured quantity
        self.checks = {}
        self.info = {}

    def time(self, fn, budget_s=None, warmup=2, min_samples=5, max_samples=300):
        """Median seconds per call of fn() (after warm-up). Calls shorter than ~1 ms are
        batched so that perf_counter's resolution and loop overhead do not matter."""
        for _ in range(warmup):
            fn()
        start = time.perf_counter()
        fn()
        one = time.perf_counter() - start
        inner = max(1, int(1e-3 / max(one, 1e-9)))
        budget = self.budget_s if budget_s is None else budget_s
        samples = []
        start = time.perf_counter()
        while len(samples) < max_samples and (len(samples) < min_samples
                                              or time.perf_counter() - start < budget):
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            samples.append((time.perf_counter() - t0) / inner)
        return statistics.median(samples)

    # ***** checks: each prints OK/FAIL and is reported; none stops the run *****

    def _report(self, name, ok, detail):
        self.checks[name] = bool(ok)
        print(f"check {name}: {'OK' if ok else 'FAIL'} ({detail})", file=sys.stderr)
        return ok

    def close(self, name, got, want, rtol=0.0, atol=0.0):
        """Elementwise |got - want| <= atol + rtol * |want| (arrays or scalars)."""
        got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
        if got.shape != want.shape:
            return self._report(name, False, f"shape {got.shape} != {want.shape}")
        err = np.abs(got - want)
        ok = bool(np.all(err <= atol + rtol * np.abs(want)))
        detail = (f"got {got.item():.6g}, want {want.item():.6g}" if got.size == 1
                  else f"max abs err {err.max():.3g}, max |want| {np.abs(want).max():.3g}")
        return self._report(name, ok, detail)

    def true(self, name, condition, detail=""):
        return self._report(name, condition, detail)


def check_and_time(ctx, step, count, loss_first, loss_last=None, after_first_step=None):
    """A training workload's check steps (the warm-up too): the first loss (and the last, when
    `loss_last` is given) against the reference, a falling loss; then the median ms per step.
    `after_first_step` runs once after the first (compiling) step."""
    losses = check_steps(ctx, step, count, after_first_step)
    ctx.close("loss_first", losses[0], loss_first, atol=5e-4)
    if loss_last is not None:
        ctx.close("loss_last", losses[-1], loss_last, atol=2e-3)
    ctx.true("loss_decreased", losses[-1] < losses[0], f"{losses[0]:.4f} -> {losses[-1]:.4f}")
    ctx.info.update(loss_first=losses[0], loss_last=losses[-1])
    return ctx.time(step) * 1e3


def median_of_calls(fn, n):
    """Median wall time of n single calls (for slow calls: compile, first call)."""
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


# ***** frameworks *****

def mindspore_train_step(ms, model, loss_fn, optimizer, jit):
    """train_step(data, label) -> loss in the MindSpore 2.x tutorial pattern: value_and_grad
    over the optimizer's parameters, then optimizer(grads); jit=True compiles it (ms.jit)."""
    def forward_fn(data, label):
        return loss_fn(model(data), label)

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    return ms.jit(train_step) if jit else train_step


def check_steps(ctx, step, count, after_first_step=None):
    """The losses of `count` calls of step() (a workload's check and warm-up); records the
    first call's time and runs after_first_step (say, waiting for kernels) after it."""
    losses = []
    for i in range(count):
        t0 = time.perf_counter()
        losses.append(float(step()))
        if i == 0:
            ctx.info["first_step_s"] = time.perf_counter() - t0
            if after_first_step is not None:
                after_first_step()
    return losses


def torch_sgd_step(torch, loss_fn, params, lr, inputs, compile_loss):
    """step() -> loss: one torch.optim.SGD step of loss_fn(*inputs) (torch.compile compiles
    the loss function when compile_loss; AOTAutograd the backward, the optimizer stays eager)."""
    loss_fn = torch.compile(loss_fn) if compile_loss else loss_fn
    return torch_train_step(loss_fn, torch.optim.SGD(params, lr=lr), *inputs)


def import_torch():
    """torch with one intra-op and one inter-op thread."""
    import torch
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # only allowed before the first parallel work; already one then
        pass
    return torch


def torch_train_step(loss_fn, optimizer, *args):
    """step() -> loss: zero the gradients, loss_fn(*args), backward, optimizer step."""
    def step():
        optimizer.zero_grad()
        loss = loss_fn(*args)
        loss.backward()
        optimizer.step()
        return loss.detach()
    return step


def import_jax():
    """jax on the CPU, single-threaded through XLA_FLAGS (set at import of this module)."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    return jax


def jax_cross_entropy(jax, logits, labels):
    """Softmax cross-entropy (mean) of integer class labels, in jax.numpy."""
    log_probs = jax.nn.log_softmax(logits)
    return -jax.numpy.take_along_axis(log_probs, labels[:, None], axis=1).mean()


def jax_sgd_step(jax, loss_fn, lr):
    """A jitted step(params, *batch) -> (params, loss): value_and_grad and plain SGD."""
    @jax.jit
    def step(params, *batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), loss
    return step


def jax_loop(step, state, *batch):
    """A zero-argument call running step(*state, *batch) -> (*state, loss) on the state it
    keeps, and returning the loss once computed (JAX dispatches asynchronously)."""
    state = list(state)

    def one_step():
        *state[:], loss = step(*state, *batch)
        return loss.block_until_ready()
    return one_step


def wait_for_kernels(timeout_s):
    """Block until minispore's background kernel compiler is idle, at most timeout_s.

    Returns (ready, seconds waited). A kernel that takes longer keeps compiling on its
    daemon thread; the caller reports that its timings ran on the numpy fallback.
    """
    from minispore.compiler.codegen.numba_cpu import COMPILER
    waiter = threading.Thread(target=COMPILER.wait, daemon=True)
    start = time.perf_counter()
    waiter.start()
    waiter.join(timeout_s)
    return not waiter.is_alive(), time.perf_counter() - start


# ***** the child's command line *****

def main(script, adapters, argv=None):
    """Run one adapter of a workload script and print its RESULT_MARKER line."""
    parser = argparse.ArgumentParser(description=f"benchmark {script}: one adapter per process")
    parser.add_argument("--adapter", required=True, choices=list(adapters))
    parser.add_argument("--quick", action="store_true", help="shorter sampling")
    args = parser.parse_args(argv)
    record = {"script": script, "adapter": args.adapter, "results": {}, "checks": {}, "info": {}}
    if not adapters.available(args.adapter):
        record["skipped"] = f"needs {adapters[args.adapter].needs}, which is not installed"
    else:
        ctx = Context(args.quick)
        try:
            record["results"] = adapters[args.adapter].fn(ctx)
        except Exception as e:  # noqa: BLE001  (any failure is reported in the table)
            traceback.print_exc()
            record["error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        record["checks"] = ctx.checks
        record["info"] = ctx.info
    sys.stdout.flush()
    print(RESULT_MARKER + json.dumps(record), flush=True)
    sys.stderr.flush()
    # a fused kernel still compiling on a daemon thread (see wait_for_kernels) must not keep
    # the process alive, and nothing is left to clean up
    os._exit(0)
