"""GPU figures (device_target="GPU", CuPy), measured side by side in one process.

1. ew_fwd_gpu: the 14-op chain of workload 2 (ew_fwd.chain) on 2^24 float32 elements in Graph
   mode, one fused CUDA kernel: ms per call and achieved bandwidth, (4 B read + 4 B write) per
   element / time, against the device's peak (2 x memory clock x bus width) and against a
   device-to-device copy measured in the same run. Its gradient (workload 3) is reported too.
2. mlp_train_step_gpu: one SGD step of the 784-256-256-10 ReLU MLP of workload 4 at batch
   1024: minispore Graph mode (ms.jit on the step) and PyNative against PyTorch eager on the
   same GPU.

    python -m benchmarks.gpu_bench [--windows 7] [--calls 20]

CUDA runs asynchronously, so a time is the median over windows of `calls` calls followed by a
device synchronize. Without CuPy or a GPU the script says why and exits 0. The last line is the
whole result as JSON (prefixed like the other workload scripts' results).
"""
import argparse
import itertools
import json
import statistics
import sys
import time

import numpy as np

from .ew_fwd import chain
from .harness import RESULT_MARKER
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
    copy_s = timed(lambda: cupy.copyto(copy_out, x._data), sync, windows, calls)
    forward_s = timed(lambda: forward(x), sync, windows, calls)
    gradient_s = timed(lambda: gradient(x), sync, windows, calls)
    moved = 8 * N  # 4 B read of x + 4 B write of y per element
    return {
        "elements": N,
        "forward_ms": forward_s * 1e3,
        "forward_gbps": moved / forward_s / 1e9,
        "forward_fraction_of_peak": moved / forward_s / peak,
        "forward_fraction_of_copy": copy_s / forward_s,
        "copy_gbps": moved / copy_s / 1e9,
        "gradient_ms": gradient_s * 1e3,
        "gradient_gbps": moved / gradient_s / 1e9,
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


def minispore_step(ms, jit, batch):
    """The MindSpore 2.x pattern (as mlp_train_step.minispore_train_step): step() -> loss."""
    from minispore import nn

    layers, x, labels = make_problem(batch)
    dense = [nn.Dense(w.shape[0], w.shape[1], weight_init=ms.Tensor(w.T.copy()), bias_init="zeros")
             for w, _ in layers]
    model = nn.SequentialCell([dense[0], nn.ReLU(), dense[1], nn.ReLU(), dense[2]])
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), learning_rate=LR)
    grad_fn = ms.value_and_grad(lambda d, y: loss_fn(model(d), y), None, optimizer.parameters)

    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    train_step = ms.jit(train_step) if jit else train_step
    data, label = ms.Tensor(x), ms.Tensor(labels)
    return lambda: train_step(data, label)


def torch_step(torch, batch):
    """PyTorch eager on the GPU, as mlp_train_step.torch_train_step."""
    layers, x, labels = make_problem(batch)
    params = [torch.tensor(a, device="cuda", requires_grad=True) for layer in layers for a in layer]
    data = torch.from_numpy(x).cuda()
    target = torch.from_numpy(labels.astype(np.int64)).cuda()
    optimizer = torch.optim.SGD(params, lr=LR)

    def step():
        optimizer.zero_grad()
        h = data
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = torch.relu(h)
        loss = torch.nn.functional.cross_entropy(h, target)
        loss.backward()
        optimizer.step()
        return loss.detach()

    return step


def bench_mlp(ms, sync, windows, calls):
    steps = {"minispore_graph": minispore_step(ms, True, BATCH),
             "minispore_pynative": minispore_step(ms, False, BATCH)}
    torch_sync = sync
    try:
        import torch
        if torch.cuda.is_available():
            torch.backends.cuda.matmul.allow_tf32 = False  # float32 GEMMs, as CuPy's
            steps["torch_eager"] = torch_step(torch, BATCH)
            torch_sync = lambda: (sync(), torch.cuda.synchronize())
    except ImportError:
        pass
    result = {"batch": BATCH}
    for name, step in steps.items():
        losses = [float(step()) for _ in range(CHECK_STEPS)]  # warm-up; compiles the jit
        sync_fn = torch_sync if name.startswith("torch") else sync
        result[name] = {"ms": timed(step, sync_fn, windows, calls) * 1e3,
                        "loss_first": losses[0], "loss_decreased": losses[-1] < losses[0]}
    if "torch_eager" in result:
        result["graph_over_torch"] = result["minispore_graph"]["ms"] / result["torch_eager"]["ms"]
        result["losses_agree"] = abs(result["minispore_graph"]["loss_first"]
                                     - result["torch_eager"]["loss_first"]) < 1e-3
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu_bench", description=__doc__)
    parser.add_argument("--windows", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args(argv)

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
    results = {"device": name, "peak_gbps": peak / 1e9,
               "ew_fwd_gpu": bench_chain(ms, cupy, sync, peak, args.windows, args.calls),
               "mlp_train_step_gpu": bench_mlp(ms, sync, args.windows, args.calls)}
    chain_result, mlp = results["ew_fwd_gpu"], results["mlp_train_step_gpu"]
    print(f"{name}: peak memory bandwidth {peak / 1e9:.0f} GB/s")
    print(f"14-op chain, 2^{N.bit_length() - 1} float32, Graph mode: "
          f"{chain_result['forward_ms']:.3f} ms, {chain_result['forward_gbps']:.0f} GB/s = "
          f"{chain_result['forward_fraction_of_peak']:.0%} of peak "
          f"({chain_result['forward_fraction_of_copy']:.0%} of a device copy, "
          f"{chain_result['copy_gbps']:.0f} GB/s); gradient {chain_result['gradient_ms']:.3f} ms")
    for framework in ("minispore_graph", "minispore_pynative", "torch_eager"):
        if framework in mlp:
            print(f"MLP train step, batch {BATCH}, {framework}: {mlp[framework]['ms']:.3f} ms "
                  f"(first loss {mlp[framework]['loss_first']:.4f})")
    print(RESULT_MARKER + json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
