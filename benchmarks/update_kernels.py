"""How a Graph-mode step updates its parameters: Adam over every parameter of a network, the
whole train step timed, three ways:

* multi-tensor: one kernel call updates every parameter whose update has one structure, each
  in its own buffers (the default);
* per parameter: one in-place kernel call per parameter;
* allocating: one kernel call per parameter, writing new buffers (no donation).

Each configuration runs in its own fresh process pinned to one core (taskset); the table
shows the median over processes of the median step, and each time over the multi-tensor one.

    python -m benchmarks.update_kernels [--repeat 3] [--steps 50]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

NETWORKS = {  # name -> (layer widths, batch)
    "12 x Dense(64, 64), batch 16": ([64] * 13, 16),
    "784-512-512-10, batch 128": ([784, 512, 512, 10], 128),
}
VARIANTS = ("multi-tensor", "per parameter", "allocating")


def measure(network, variant, steps):
    """Median seconds per train step of one configuration (run in this process)."""
    import minispore as ms
    from minispore import nn
    from minispore.compiler import executor

    if variant == "per parameter":
        executor.Program.merge_updates = False
    elif variant == "allocating":
        executor._can_donate = lambda step, pairs: None
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    widths, batch = NETWORKS[network]
    layers = []
    for n_in, n_out in zip(widths, widths[1:]):
        layers += [nn.Dense(n_in, n_out), nn.ReLU()]
    net = nn.SequentialCell(layers[:-1])
    optimizer = nn.Adam(net.trainable_params(), 1e-3)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal((batch, widths[0])).astype(np.float32))
    y = ms.Tensor(rng.integers(0, widths[-1], batch).astype(np.int32))
    for _ in range(5):  # compile (MINISPORE_SYNC_COMPILE) and warm up
        step(x, y)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        float(step(x, y))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per config")
    parser.add_argument("--steps", type=int, default=50, help="timed steps per process")
    parser.add_argument("--child", nargs=2, metavar=("NETWORK", "VARIANT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child, args.steps)))
        return
    load_before = os.getloadavg()[0]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MINISPORE_SYNC_COMPILE="1")
    results = {}
    for network in NETWORKS:
        for variant in VARIANTS:
            runs = []
            for _ in range(args.repeat):
                cmd = ["taskset", "-c", "1", sys.executable, "-m", "benchmarks.update_kernels",
                       "--steps", str(args.steps), "--child", network, variant]
                out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            results[network, variant] = statistics.median(runs)
    print(f"load average before/after: {load_before:.2f} / {os.getloadavg()[0]:.2f}; "
          f"{args.repeat} process(es) per config, {args.steps} timed steps each, one core")
    print("| network (Adam) | " + " | ".join(f"{v} (ms/step)" for v in VARIANTS) + " |")
    print("|---|" + "---|" * len(VARIANTS))
    for network in NETWORKS:
        base = results[network, VARIANTS[0]]
        cells = [f"{results[network, v] * 1e3:.3f} ({results[network, v] / base:.2f}x)"
                 for v in VARIANTS]
        print(f"| {network} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
