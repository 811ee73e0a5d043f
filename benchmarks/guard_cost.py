"""What a compiled call's guards cost: the check that the Python state its trace read is
unchanged (graph_mode.guards), per call.

Two callers, each compiled once and then called in a loop on a 4-element tensor:
* a GRAPH_MODE Cell with 20 attributes (numbers, a flag, a string, a list of 20 floats);
* an `@ms.jit` function reading 10 module globals (numbers, a dict item, a config field).
`call_us` is the whole compiled call (guards, cache lookup, the program); `guard_us` is the
guard key alone. Medians of 5 rounds of 2000 calls, each configuration in a fresh process
pinned to one core; PYTHONPATH may point at another checkout to compare (same run).

    python -m benchmarks.guard_cost [--repeat 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import types

import numpy as np

CALLS, ROUNDS = 2000, 5
G0, G1, G2, G3, G4, G5, G6 = 1.0, 2.0, 0.5, 3.0, True, "tanh", (1.0, 2.0)
CFG = {"scale": 1.5}
SETTINGS = types.SimpleNamespace(shift=0.25, gain=1.0)


def timed(fn):
    best = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(CALLS):
            fn()
        best.append((time.perf_counter() - start) / CALLS * 1e6)
    return statistics.median(best)


def guard_key(guards, fn, args):
    """The guard key of one call, in this checkout's or an older one's API."""
    if hasattr(guards, "Reads"):
        jitted = getattr(fn, "jit", None)
        reads = jitted.reads if jitted is not None else guards.Reads(fn)
        return lambda: guards.snapshot(fn, args, reads)
    return lambda: guards.snapshot(fn, args)


def measure(case):
    import minispore as ms
    from minispore import nn, ops
    try:
        from minispore.graph_mode import guards
    except ImportError:  # an older checkout
        from minispore.compiler import guards
    x = ms.Tensor(np.ones(4, np.float32))
    if case == "cell_20_attributes":
        class Wide(nn.Cell):
            def __init__(self):
                super().__init__()
                for i in range(18):
                    setattr(self, f"a{i}", float(i))
                self.flag, self.weights = True, [0.5] * 20

            def construct(self, x):
                return x * self.a3 + self.weights[7] if self.flag else x
        net = Wide()
        ms.set_context(mode=ms.GRAPH_MODE)
        net(x)
        call = lambda: net(x)  # noqa: E731
        jit_fn = net.__dict__["_graph_jit"]
        fn, args = jit_fn.fn, (net, (x,), {})
    else:
        def step(x):
            y = x * G0 + G1 * G2 - G3 + CFG["scale"] + SETTINGS.shift * SETTINGS.gain
            return ops.tanh(y) if G4 and G5 == "tanh" and G6[0] else y
        jit_fn = ms.jit(step)
        jit_fn(x)
        call = lambda: jit_fn(x)  # noqa: E731
        fn, args = step, (x,)
    fn.jit = jit_fn
    call()
    return {"call_us": timed(call), "guard_us": timed(guard_key(guards, fn, args))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--case")
    args = parser.parse_args()
    if args.case:
        print(json.dumps(measure(args.case)))
        return
    with open("/proc/loadavg") as f:
        print(f"load average: {' '.join(f.read().split()[:3])}")
    print("| case | call_us | guard_us |\n|---|---|---|")
    for case in ("cell_20_attributes", "jit_10_globals"):
        runs = [json.loads(subprocess.run(
            ["taskset", "-c", "0", sys.executable, "-m", "benchmarks.guard_cost", "--case", case],
            capture_output=True, text=True, check=True, env=dict(os.environ)).stdout)
            for _ in range(args.repeat)]
        call = statistics.median(r["call_us"] for r in runs)
        guard = statistics.median(r["guard_us"] for r in runs)
        print(f"| {case} | {call:.2f} | {guard:.2f} |")


if __name__ == "__main__":
    main()
