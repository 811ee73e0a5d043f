"""minispore benchmarks: the workloads of shared/BENCHMARKS.md, one script each.

    python -m benchmarks.run [--quick] [--only NAME] [--output results.md]

Each workload script runs one adapter (numpy, minispore_pynative, minispore_graph, numba,
torch, jax...) per process and prints one JSON line; `run.py` runs them all in fresh
single-threaded processes, takes medians and prints ratios against numpy from the same run.

Importing this package pins every intra-op thread pool to one thread (unless the environment
already says otherwise) and the process to one core: it runs before any workload module loads
numpy or a framework.
"""
import os

SINGLE_THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
}
for _name, _value in SINGLE_THREAD_ENV.items():
    os.environ.setdefault(_name, _value)

# The knobs above are not enough: XLA's CPU client keeps its own worker pool (a jitted matmul
# used 1.9 cores of 2 with those flags). One core per process makes "one thread" true for every
# adapter. MINISPORE_BENCH_PIN=0 measures unpinned.
if hasattr(os, "sched_setaffinity") and os.environ.get("MINISPORE_BENCH_PIN", "1") != "0":
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
