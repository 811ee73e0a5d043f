"""minispore benchmarks: the workloads of shared/BENCHMARKS.md, one script each.

    python -m benchmarks.run [--quick] [--only NAME] [--output results.md]

Each workload script runs one adapter (numpy, minispore_pynative, minispore_graph, numba,
torch, jax...) per process and prints one JSON line; `run.py` runs them all in fresh
single-threaded processes, takes medians and prints ratios against numpy from the same run.
"""
