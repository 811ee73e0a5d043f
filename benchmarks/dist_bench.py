"""Data-parallel costs on this machine: MPI all-reduce latency and bandwidth beside a memcpy of
the same size, and the MLP train step's scaling efficiency with 2 ranks.

    python -m benchmarks.dist_bench            # launches itself under mpirun -n 2

Scaling efficiency = (2-rank samples per second) / (2 x 1-rank samples per second), 1.0 being
perfect, two ways:
* weak scaling (each rank keeps the batch of 256, as data-parallel training does: the global
  batch grows with the ranks; Horovod's and the GPU vendors' figure);
* strong scaling (the 2 ranks split one batch of 256: 128 each).
Each process is pinned to its own core with one BLAS thread. Report the load average beside
it: on a shared 2-core machine the second rank competes with everything else.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

SIZES = [1 << 10, 1 << 16, 1 << 20, 1 << 24]  # bytes


def timed(fn, repeat=20):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def mlp_step_seconds(batch, parallel):
    import minispore as ms
    from minispore import nn
    ms.reset_auto_parallel_context()
    if parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True)
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(784, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(),
                             nn.Dense(512, 10)])
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), 0.01))
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((batch, 784)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((batch, 10)).astype(np.float32))
    for _ in range(5):
        step(x, y)
    from minispore.compiler.codegen import numba_cpu
    numba_cpu.COMPILER.wait()
    return timed(lambda: step(x, y))


def worker():
    from minispore.communication import get_rank, init
    from minispore.communication.comm_func import barrier
    init()
    from minispore.context import parallel
    world = parallel.world()
    # importing `benchmarks` pinned this process to the first core; each rank takes its own
    os.sched_setaffinity(0, {world.local_rank % os.cpu_count()})
    rows = []
    for nbytes in SIZES:
        a = np.ones(nbytes // 4, np.float32)
        world.barrier()
        reduce_s = timed(lambda: world.all_reduce(a, "sum"))
        copy_s = timed(lambda: a.copy())
        rows.append((nbytes, reduce_s, copy_s))
    barrier()
    half = mlp_step_seconds(128, True)
    barrier()
    whole = mlp_step_seconds(256, True)
    if get_rank() == 0:
        print(json.dumps({"allreduce": rows, "mlp_2ranks_b128_each": half,
                          "mlp_2ranks_b256_each": whole}))


def _result(done):
    """The JSON line a run printed (mpirun may add terminal codes after it)."""
    return json.loads(next(line for line in reversed(done.stdout.splitlines())
                           if line.startswith("{")))


def main():
    if "--worker" in sys.argv:
        return worker()
    if "--single" in sys.argv:
        return print(json.dumps({"mlp_1rank_b256": mlp_step_seconds(256, False)}))
    mpirun = shutil.which("mpirun", path=os.path.dirname(sys.executable) + os.pathsep +
                          os.environ.get("PATH", ""))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_mpi_yield_when_idle="1")
    with open("/proc/loadavg") as f:
        print(f"load average: {' '.join(f.read().split()[:3])}")
    single = _result(subprocess.run([sys.executable, "-m", "benchmarks.dist_bench", "--single"],
                                    capture_output=True, text=True, env=env, check=True))
    multi = _result(subprocess.run([mpirun, "--oversubscribe", "-n", "2", sys.executable, "-m",
                                    "mpi4py", "-m", "benchmarks.dist_bench", "--worker"],
                                   capture_output=True, text=True, env=env, check=True))
    print("| bytes | allreduce us | GB/s | memcpy us |\n|---|---|---|---|")
    for nbytes, reduce_s, copy_s in multi["allreduce"]:
        print(f"| {nbytes} | {reduce_s * 1e6:.1f} | {nbytes / reduce_s / 1e9:.2f} | "
              f"{copy_s * 1e6:.1f} |")
    one, half, whole = (single["mlp_1rank_b256"], multi["mlp_2ranks_b128_each"],
                        multi["mlp_2ranks_b256_each"])
    print(f"\nMLP step (784-512-512-10, Graph), 1 rank batch 256: {one * 1e3:.2f} ms\n"
          f"2 ranks, batch 256 each: {whole * 1e3:.2f} ms, weak-scaling efficiency "
          f"{one / whole:.2f}\n"
          f"2 ranks, batch 128 each: {half * 1e3:.2f} ms, strong-scaling efficiency "
          f"{one / half / 2:.2f}")


if __name__ == "__main__":
    main()
