"""GPU figures (device_target="GPU", CuPy) beside PyTorch on the same GPU, in one process.

1. ew_fwd_gpu: the 14-op chain of workload 2 (ew_fwd.chain) on 2^24 float32 elements in Graph
   mode, one fused CUDA kernel. Achieved bandwidth is (4 B read + 4 B write) per element over
   time, against the device's peak (2 x memory clock x bus width) and a device-to-device copy
   measured in the same run. `kernel_ms` is GPU time alone (20 calls recorded into a CUDA graph
   and replayed: no host time in it); `call_ms` a whole jitted call as a program makes it
   (host dispatch included; calls overlap the GPU's work). Its gradient (workload 3) too.
2. mlp_train_step_gpu: one SGD step of the 784-256-256-10 ReLU MLP of workload 4 at batch
   1024: minispore Graph mode (ms.jit on the step; replayed as a CUDA graph), Graph mode step
   by step (MINISPORE_CUDA_GRAPHS=0) and PyNative, against PyTorch eager and torch.compile.
3. resnet_cnn / transformer_block: workloads 7 and 8 of BENCHMARKS.md (benchmarks.gpu_models),
   the same four ways.

    python -m benchmarks.gpu_bench [--windows 7] [--calls 20] [--only NAME,...] [--no-compile]

CUDA runs asynchronously, so a step's time is the median over windows of `calls` calls
followed by a device synchronize. Without CuPy or a GPU the script says why and exits 0. The
last line is the whole result as JSON (prefixed like the other workload scripts' results).
"""
import argparse
import itertools
import json
import os
import statistics
import sys
import time

import numpy as np

from .ew_fwd import chain
from .harness import RESULT_MARKER, mindspore_train_step
from .mlp_train_step import LR, SIZES

N = 1 << 24
BATCH = 1024
CHECK_STEPS = 5
# cudaDeviceAttr numbers (CUDA 13 dropped the clock fields from cudaDeviceProp)
_MEMORY_CLOCK_KHZ, _MEMORY_BUS_BITS = 36, 37


def device_info(cupy):
    """(name, theoretical peak memory bandwidth in bytes/s) of the current device."""
    runtime = cupy.cuda.runtime
    dev = cupy.cuda.Device().id
    props = runtime.getDeviceProperties(dev)
    try:
        clock_khz = runtime.deviceGetAttribute(_MEMORY_CLOCK_KHZ, dev)
        bus_bits = runtime.deviceGetAttribute(_MEMORY_BUS_BITS, dev)
    except Exception:
        clock_khz, bus_bits = props["memoryClockRate"], props["memoryBusWidth"]
    name = props["name"]
    return (name.decode() if isinstance(name, bytes) else name), 2 * clock_khz * 1e3 * bus_bits / 8


def timed(fn, sync, windows, calls, warmup=3):
    """Median seconds per call of fn(): windows of `calls` calls, each closed by sync()."""
    for _ in range(warmup):
        fn()
    sync()
    samples = []
    for _ in range(windows):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        samples.append((time.perf_counter() - start) / calls)
    return statistics.median(samples)


def gpu_time(cupy, fn, windows, calls):
    """Median seconds of GPU time per fn() call: `calls` calls recorded into one CUDA graph
    (the host's Python is not in it), replayed and timed with events."""
    pool = cupy.cuda.MemoryPool()
    stream = cupy.cuda.Stream(non_blocking=True)
    with cupy.cuda.using_allocator(pool.malloc), stream:
        stream.begin_capture()
        for _ in range(calls):
            fn()
        graph = stream.end_capture()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    samples = []
    for _ in range(windows + 1):  # the first launch uploads the graph
        start.record(stream)
        graph.launch(stream)
        end.record(stream)
        end.synchronize()
        samples.append(cupy.cuda.get_elapsed_time(start, end) / 1e3 / calls)
    return statistics.median(samples[1:])


def first_call(fn, sync):
    start = time.perf_counter()
    out = fn()
    sync()
    return out, time.perf_counter() - start


# ***** 1. the 14-op chain *****

def chain_reference(x):
    """(forward, gradient) in float64, as ew_fwd.reference."""
    from scipy.special import expit
    x = x.astype(np.float64)
    t, s = np.tanh(x * 0.5 + 0.1), expit(x)
    y = t * s + np.exp(-x * x) - 0.3 * x * x + np.log1p(np.abs(x))
    g = (0.5 * (1 - t * t) * s + t * s * (1 - s) - 2 * x * np.exp(-x * x) - 0.6 * x
         + np.sign(x) / (1 + np.abs(x)))
    return y, g


def bench_chain(ms, cupy, sync, peak, windows, calls):
    host = np.random.default_rng(0).standard_normal(N).astype(np.float32)
    x = ms.Tensor(host)
    forward = ms.jit(lambda x: chain(ms.ops, x))
    gradient = ms.jit(ms.grad(lambda x: chain(ms.ops, x).sum()))
    y, forward_first_s = first_call(lambda: forward(x), sync)
    g, gradient_first_s = first_call(lambda: gradient(x), sync)
    check = slice(0, 1 << 20)
    y_ref, g_ref = chain_reference(host[check])
    forward_error = float(np.max(np.abs(y.asnumpy()[check] - y_ref)))
    gradient_error = float(np.max(np.abs(g.asnumpy()[check] - g_ref)))

    copy_out = cupy.empty_like(x._data)
    copy_s = gpu_time(cupy, lambda: cupy.copyto(copy_out, x._data), windows, calls)
    call_s = timed(lambda: forward(x), sync, windows, calls)
    kernel_s = gpu_time(cupy, lambda: forward(x), windows, calls)
    gradient_call_s = timed(lambda: gradient(x), sync, windows, calls)
    gradient_kernel_s = gpu_time(cupy, lambda: gradient(x), windows, calls)
    moved = 8 * N  # 4 B read of x + 4 B write of y per element
    return {
        "elements": N,
        "kernel_ms": kernel_s * 1e3,
        "kernel_gbps": moved / kernel_s / 1e9,
        "kernel_fraction_of_peak": moved / kernel_s / peak,
        "kernel_fraction_of_copy": copy_s / kernel_s,
        "call_ms": call_s * 1e3,
        "call_gbps": moved / call_s / 1e9,
        "copy_gbps": moved / copy_s / 1e9,
        "gradient_kernel_ms": gradient_kernel_s * 1e3,
        "gradient_call_ms": gradient_call_s * 1e3,
        "first_call_s": {"forward": forward_first_s, "gradient": gradient_first_s},
        "max_abs_error": {"forward": forward_error, "gradient": gradient_error},
        "ok": forward_error < 2e-5 and gradient_error < 2e-5,
    }


# ***** 2. the MLP train step *****

def make_problem(batch):
    """Workload 4's weights (default_rng(0), He-normal, (in, out)) and data (default_rng(1)),
    at `batch` rows."""
    rng = np.random.default_rng(0)
    layers = [((rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32),
               np.zeros(n_out, np.float32)) for n_in, n_out in itertools.pairwise(SIZES)]
    data = np.random.default_rng(1)
    x = data.standard_normal((batch, SIZES[0])).astype(np.float32)
    return layers, x, data.integers(0, SIZES[-1], batch).astype(np.int32)


def minispore_mlp_step(ms, jit, batch):
    """The MindSpore 2.x pattern (as mlp_train_step.minispore_train_step): step() -> loss."""
    from minispore import nn

    layers, x, labels = make_problem(batch)
    dense = [nn.Dense(w.shape[0], w.shape[1], weight_init=ms.Tensor(w.T.copy()), bias_init="zeros")
             for w, _ in layers]
    model = nn.SequentialCell([dense[0], nn.ReLU(), dense[1], nn.ReLU(), dense[2]])
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), learning_rate=LR)
    train_step = mindspore_train_step(ms, model, loss_fn, optimizer, jit)
    data, label = ms.Tensor(x), ms.Tensor(labels)
    return lambda: train_step(data, label)


def torch_mlp_step(torch, batch, compile=False):
    """PyTorch on the GPU, as mlp_train_step.torch_train_step (torch.compile: the loss)."""
    layers, x, labels = make_problem(batch)
    params = [torch.tensor(a, device="cuda", requires_grad=True) for layer in layers for a in layer]
    data = torch.from_numpy(x).cuda()
    target = torch.from_numpy(labels.astype(np.int64)).cuda()
    optimizer = torch.optim.SGD(params, lr=LR)

    def loss_of(data, target):
        h = data
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = torch.relu(h)
        return torch.nn.functional.cross_entropy(h, target)

    loss_of = torch.compile(loss_of) if compile else loss_of

    def step():
        optimizer.zero_grad()
        loss = loss_of(data, target)
        loss.backward()
        optimizer.step()
        return loss.detach()

    return step


def stepwise(build):
    """The step build() returns, with CUDA-graph replay off for the programs it compiles
    (a program reads the switch when its first call builds it)."""
    step = build()

    def step_by_step():
        os.environ["MINISPORE_CUDA_GRAPHS"] = "0"
        try:
            return step()
        finally:
            del os.environ["MINISPORE_CUDA_GRAPHS"]

    return step_by_step


def compare(steps, sync, torch_sync, windows, calls):
    """{name: ms per step, first call, first loss} for each step(); the minispore Graph step's
    time over PyTorch eager's and whether their first losses agree."""
    result = {}
    for name, step in steps.items():
        sync_fn = torch_sync if name.startswith("torch") else sync
        loss, first_s = first_call(step, sync_fn)
        losses = [float(loss)] + [float(step()) for _ in range(CHECK_STEPS)]  # records replays
        result[name] = {"ms": timed(step, sync_fn, windows, calls) * 1e3, "first_call_s": first_s,
                        "loss_first": losses[0], "loss_decreased": losses[-1] < losses[0]}
    if "torch_eager" in result:
        graph, torch_eager = result["minispore_graph"], result["torch_eager"]
        result["graph_over_torch_eager"] = graph["ms"] / torch_eager["ms"]
        result["losses_agree"] = (abs(graph["loss_first"] - torch_eager["loss_first"])
                                  < 1e-3 * max(1.0, abs(torch_eager["loss_first"])))
    return result


def torch_or_none(compile):
    """(torch, sync) when PyTorch sees the GPU, else (None, None)."""
    try:
        import torch
    except ImportError:
        return None, None
    if not torch.cuda.is_available():
        return None, None
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 products, as CuPy's
    torch.backends.cudnn.allow_tf32 = False
    return torch, torch.cuda.synchronize


def bench_mlp(ms, sync, windows, calls, compile):
    steps = {"minispore_graph": minispore_mlp_step(ms, True, BATCH),
             "minispore_graph_stepwise": stepwise(lambda: minispore_mlp_step(ms, True, BATCH)),
             "minispore_pynative": minispore_mlp_step(ms, False, BATCH)}
    torch, torch_sync = torch_or_none(compile)
    if torch is not None:
        steps["torch_eager"] = torch_mlp_step(torch, BATCH)
        if compile:
            steps["torch_compile"] = torch_mlp_step(torch, BATCH, compile=True)
    return {"batch": BATCH, **compare(steps, sync, torch_sync, windows, calls)}


# ***** 3. the bigger models *****

def bench_model(ms, name, sync, windows, calls, compile):
    from . import gpu_models
    steps = {"minispore_graph": gpu_models.minispore_step(ms, name, jit=True),
             "minispore_graph_stepwise": stepwise(
                 lambda: gpu_models.minispore_step(ms, name, jit=True)),
             "minispore_pynative": gpu_models.minispore_step(ms, name, jit=False)}
    torch, torch_sync = torch_or_none(compile)
    if torch is not None:
        steps["torch_eager"] = gpu_models.torch_step(torch, name)
        if compile:
            steps["torch_compile"] = gpu_models.torch_step(torch, name, compile=True)
    return compare(steps, sync, torch_sync, windows, calls)


FRAMEWORKS = ("minispore_graph", "minispore_graph_stepwise", "minispore_pynative", "torch_eager",
              "torch_compile")


def table(results):
    """The step comparisons as a Markdown table (ms per step; x PyTorch eager)."""
    rows = ["| workload | " + " | ".join(FRAMEWORKS) + " |", "|---" * (len(FRAMEWORKS) + 1) + "|"]
    for name, result in results.items():
        if not isinstance(result, dict) or "minispore_graph" not in result:
            continue
        eager = result.get("torch_eager", {}).get("ms")
        cells = []
        for framework in FRAMEWORKS:
            if framework not in result:
                cells.append("—")
                continue
            ms_ = result[framework]["ms"]
            cells.append(f"{ms_:.3f}" + (f" ({ms_ / eager:.2f}x)" if eager else ""))
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu_bench", description=__doc__)
    parser.add_argument("--windows", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--only", default="chain,mlp,resnet_cnn,transformer_block")
    parser.add_argument("--no-compile", action="store_true", help="leave out torch.compile")
    args = parser.parse_args(argv)
    only = args.only.split(",")

    import minispore as ms
    try:
        ms.set_context(device_target="GPU")
    except RuntimeError as e:
        print(f"gpu_bench skipped: {e}")
        print(RESULT_MARKER + json.dumps({"skipped": str(e)}))
        return 0
    import cupy
    sync = cupy.cuda.Device().synchronize
    name, peak = device_info(cupy)
    print(f"{name}: peak memory bandwidth {peak / 1e9:.0f} GB/s", flush=True)
    results = {"device": name, "peak_gbps": peak / 1e9, "load_average": os.getloadavg()}
    compile = not args.no_compile
    if "chain" in only:
        c = results["ew_fwd_gpu"] = bench_chain(ms, cupy, sync, peak, args.windows, args.calls)
        print(f"14-op chain, 2^{N.bit_length() - 1} float32, Graph mode: kernel "
              f"{c['kernel_ms']:.4f} ms, {c['kernel_gbps']:.0f} GB/s = "
              f"{c['kernel_fraction_of_peak']:.0%} of peak, {c['kernel_fraction_of_copy']:.0%} of "
              f"a device copy ({c['copy_gbps']:.0f} GB/s); whole call {c['call_ms']:.4f} ms; "
              f"gradient kernels {c['gradient_kernel_ms']:.4f} ms, call "
              f"{c['gradient_call_ms']:.4f} ms", flush=True)
    if "mlp" in only:
        results["mlp_train_step_gpu"] = bench_mlp(ms, sync, args.windows, args.calls, compile)
    for model in ("resnet_cnn", "transformer_block"):
        if model in only:
            results[model] = bench_model(ms, model, sync, args.windows, args.calls, compile)
            print(f"{model} done", flush=True)
    print(table(results))
    print(RESULT_MARKER + json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
