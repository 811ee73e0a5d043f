"""A user's numba kernel as an operator (ops.Custom, func_type="hybrid") inside a compiled train
step, against the same math written with built-in ops (which Graph mode fuses into its own
kernel). The activation is softsign, x / (1 + |x|), with its derivative 1 / (1 + |x|)^2 as a
second kernel; the network is Dense(512, 512) -> activation -> Dense(512, 10), batch 256, SGD.

Each variant runs in its own fresh process pinned to one core; the table shows the median over
processes of the median step time, and the Custom/built-in ratio measured in this run.

    python -m benchmarks.custom_op [--repeat 3] [--steps 40]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np


def softsign_kernel(x):
    y = output_tensor(x.shape, x.dtype)  # noqa: F821  (ops.Custom's hybrid DSL)
    xs, ys = x.reshape(x.size), y.reshape(y.size)   # flat views (inputs are C-contiguous)
    one = np.float32(1.0)
    for i in range(xs.size):
        ys[i] = xs[i] / (one + abs(xs[i]))
    return y


def softsign_grad_kernel(x, dout):
    y = output_tensor(x.shape, x.dtype)  # noqa: F821
    xs, ds, ys = x.reshape(x.size), dout.reshape(dout.size), y.reshape(y.size)
    one = np.float32(1.0)
    for i in range(xs.size):
        d = one + abs(xs[i])
        ys[i] = ds[i] / (d * d)
    return y


def measure(variant, steps):
    import minispore as ms
    from minispore import nn, ops

    grad_op = ops.Custom(softsign_grad_kernel, func_type="hybrid")
    custom = ops.Custom(softsign_kernel, func_type="hybrid",
                        bprop=lambda x, out, dout: (grad_op(x, dout),))
    activation = custom if variant == "custom_numba" else \
        (lambda x: x / (1.0 + ops.abs(x)))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Dense(512, 512), nn.Dense(512, 10)

        def construct(self, x):
            return self.fc2(activation(self.fc1(x)))

    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.01))
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((256, 512)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((256, 10)).astype(np.float32))
    for _ in range(5):
        step(x, y)
    from minispore.compiler.codegen import numba_cpu
    numba_cpu.COMPILER.wait()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step(x, y)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--variant")
    args = parser.parse_args()
    if args.variant:
        print(json.dumps(measure(args.variant, args.steps)))
        return
    with open("/proc/loadavg") as f:
        print(f"load average: {' '.join(f.read().split()[:3])}")
    results = {v: [] for v in ("builtin_ops", "custom_numba")}
    for _ in range(args.repeat):  # round-robin: machine load hits both alike
        for variant in results:
            out = subprocess.run(["taskset", "-c", "0", sys.executable, "-m",
                                  "benchmarks.custom_op", "--variant", variant,
                                  "--steps", str(args.steps)],
                                 capture_output=True, text=True, check=True)
            results[variant].append(json.loads(out.stdout.strip().splitlines()[-1]))
    base = statistics.median(results["builtin_ops"])
    print("| variant | ms/step | ratio |\n|---|---|---|")
    for variant, times in results.items():
        print(f"| {variant} | {statistics.median(times):.3f} | {statistics.median(times) / base:.2f} |")


if __name__ == "__main__":
    main()
