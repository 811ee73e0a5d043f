"""The MLP train step of mlp_train_step with hidden layers 1024 wide, at batch 32, 512 and
2048, with one and with two threads (`ms.set_context(num_threads=...)`, torch.set_num_threads),
minispore Graph and PyNative beside PyTorch eager, in one process, rounds interleaved.

Unlike the other scripts this one is not pinned to one core (two threads need two): run it
on an otherwise idle machine, and read the load average it prints.

    python -m benchmarks.mlp_sizes [--width 1024] [--batches 32,512,2048] [--threads 1,2]
"""
import argparse
import os
import sys

# before the package pins the process to one core and its pools to one thread
os.environ["MINISPORE_BENCH_PIN"] = "0"
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_name] = str(os.cpu_count() or 1)

from . import harness, mlp_train_step  # noqa: E402

ROUNDS = 2


def _steps(torch):
    """name -> a step of the current sizes (kernels compiled)."""
    _, graph, data, label = mlp_train_step.minispore_train_step(jit=True)
    _, eager, data2, label2 = mlp_train_step.minispore_train_step(jit=False)
    graph(data, label)
    harness.wait_for_kernels(120.0)
    steps = {"minispore Graph": lambda: float(graph(data, label)),
             "minispore PyNative": lambda: float(eager(data2, label2))}
    if torch is not None:
        steps["PyTorch eager"] = mlp_train_step.torch_train_step(False)
    return steps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--batches", default="32,512,2048")
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args(argv)
    import minispore as ms
    torch = harness.import_torch() if harness.importlib.util.find_spec("torch") else None
    threads = [int(t) for t in args.threads.split(",")]
    print(f"MLP 784-{args.width}-{args.width}-10 train step, ms per step (best of {ROUNDS} "
          f"interleaved rounds); load average {os.getloadavg()[0]:.2f}\n")
    print("| batch | " + " | ".join(f"{name}, {t} thread(s)" for name in
                                     ("minispore Graph", "minispore PyNative", "PyTorch eager")
                                     for t in threads) + " |")
    print("|---" * (1 + 3 * len(threads)) + "|")
    for batch in (int(b) for b in args.batches.split(",")):
        mlp_train_step.resize(batch, args.width)
        steps, best = _steps(torch), {}
        calls = 20 if batch < 2048 else 6
        for _ in range(ROUNDS):
            for t in threads:
                ms.set_context(num_threads=t)
                if torch is not None:
                    torch.set_num_threads(t)
                for name, step in steps.items():
                    step()
                    ms_per_step = harness.median_of_calls(step, calls) * 1e3
                    best[name, t] = min(best.get((name, t), ms_per_step), ms_per_step)
        cells = [f"{best[name, t]:.2f}" if (name, t) in best else "-"
                 for name in ("minispore Graph", "minispore PyNative", "PyTorch eager")
                 for t in threads]
        print(f"| {batch} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
