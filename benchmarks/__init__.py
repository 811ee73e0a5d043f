"""minispore benchmarks: the workloads of shared/BENCHMARKS.md, one script each.

    python -m benchmarks.run [--quick] [--only NAME] [--output results.md]

Each workload script runs one adapter (numpy, minispore_pynative, minispore_graph, numba,
torch, jax...) per process and prints one JSON line; `run.py` runs them all in fresh
single-threaded processes, takes medians and prints ratios against numpy from the same run.

Importing this package pins every intra-op thread pool to one thread (unless the environment
already says otherwise): it runs before any workload module loads numpy or a framework.
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
