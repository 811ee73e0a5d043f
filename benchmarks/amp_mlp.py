"""Mixed precision on a CPU: one training step of the 784-256-256-10 MLP (batch 128, Momentum)
in float32 and in amp O2 (float16 compute, float32 master weights, dynamic loss scaling), in
Graph mode and PyNative.

Each configuration runs in its own fresh process pinned to one core (taskset); a process warms
up, then times steps; the table shows the median over processes of the median step, and each
O2 time over the float32 time of the same mode measured in this run.

    python -m benchmarks.amp_mlp [--repeat 3] [--steps 30]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

CONFIGS = [(mode, level) for mode in ("graph", "pynative") for level in ("O0", "O2")]


def measure(mode, level, steps):
    """Median seconds per step of one configuration (run in this process)."""
    import minispore as ms
    from minispore import nn

    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(784, 256), nn.ReLU(), nn.Dense(256, 256), nn.ReLU(),
                             nn.Dense(256, 10)])
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    manager = ms.amp.DynamicLossScaleManager(2 ** 12, scale_window=1000) if level == "O2" else None
    step = ms.amp.build_train_network(net, opt, loss, level=level, loss_scale_manager=manager)
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal((128, 784)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, 128).astype(np.int32))
    for _ in range(5):                      # compile and warm up
        out = step(x, y)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        out = step(x, y)
        float(out[0] if isinstance(out, tuple) else out)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per config")
    parser.add_argument("--steps", type=int, default=30, help="timed steps per process")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "LEVEL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child, args.steps)))
        return
    load_before = os.getloadavg()[0]
    results = {}
    for mode, level in CONFIGS:
        runs = []
        for _ in range(args.repeat):
            cmd = ["taskset", "-c", "1", sys.executable, "-m", "benchmarks.amp_mlp",
                   "--steps", str(args.steps), "--child", mode, level]
            env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                       MINISPORE_SYNC_COMPILE="1")
            out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        results[mode, level] = statistics.median(runs)
    print(f"load average before/after: {load_before:.2f} / {os.getloadavg()[0]:.2f}; "
          f"{args.repeat} process(es) per config, {args.steps} timed steps each, one core")
    print("| mode | float32 (ms/step) | O2 (ms/step) | O2 / float32 |")
    print("|---|---|---|---|")
    for mode in ("graph", "pynative"):
        full, half = results[mode, "O0"], results[mode, "O2"]
        print(f"| {mode} | {full * 1e3:.2f} | {half * 1e3:.2f} | {half / full:.2f}x |")


if __name__ == "__main__":
    main()
