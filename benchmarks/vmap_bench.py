"""vmap and jacrev against the Python loops they replace (PyNative, and ms.jit where it applies).

    python -m benchmarks.vmap_bench [--repeat 31]

1. mlp: a per-example 64-128-10 tanh MLP on a batch of 256, ``vmap(f)(X)`` against
   ``stack([f(x) for x in X])`` (target: vmap >= 20x faster); also per-example gradients,
   ``vmap(grad(loss))`` against a loop of ``grad(loss)``; and ms.jit(vmap(f)).
2. jacobian: the 100 x 100 Jacobian of f(x) = tanh(A x) * x, ``jacrev(f)(x)`` (one vjp,
   vmapped over the identity's rows) against 100 calls of the vjp function (target: jacrev
   not slower).

Prints the median time per call of each variant and the median ratio over rounds that time
both variants back to back, all in this one run.
"""
import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one intra-op thread: ratios of the interpreters

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import minispore as ms  # noqa: E402
from minispore import Tensor, ops  # noqa: E402

BATCH, SIZES = 256, (64, 128, 10)
JACOBIAN_SIZE = 100


def warm_up(fn, seconds=0.3):
    """A few calls first: compilation for ms.jit, caches, the allocator's pools."""
    start = time.perf_counter()
    for calls in range(1, 1000):
        fn()
        if calls >= 3 and time.perf_counter() - start > seconds:
            break


def seconds_per_call(fn, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def compare(baseline, candidate, repeat):
    """(baseline ms, candidate ms, speed-up): medians over `repeat` rounds, each round timing
    both back to back, so the ratio holds even if the machine's load changes between rounds."""
    warm_up(baseline)
    warm_up(candidate)
    calls = max(1, int(0.02 / seconds_per_call(candidate, 3)))  # ~20 ms of candidate calls
    rounds = [(seconds_per_call(baseline, 1), seconds_per_call(candidate, calls))
              for _ in range(repeat)]
    base, cand = (statistics.median(r[k] for r in rounds) * 1e3 for k in (0, 1))
    return base, cand, statistics.median(b / c for b, c in rounds)


def mlp_problem():
    rng = np.random.default_rng(0)
    w1, w2 = (Tensor((rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32))
              for a, b in zip(SIZES[:-1], SIZES[1:]))
    b1, b2 = Tensor(np.zeros(SIZES[1], np.float32)), Tensor(np.zeros(SIZES[2], np.float32))
    x = Tensor(rng.standard_normal((BATCH, SIZES[0])).astype(np.float32))
    y = Tensor(rng.standard_normal((BATCH, SIZES[2])).astype(np.float32))

    def f(v):  # one example: a vector of 64 features
        return ops.matmul(ops.tanh(ops.matmul(v, w1) + b1), w2) + b2

    def loss(v, target):
        return ops.sum((f(v) - target) ** 2)

    return f, loss, x, y


def bench_mlp(repeat):
    f, loss, x, y = mlp_problem()
    rows, targets = [x[i] for i in range(BATCH)], [y[i] for i in range(BATCH)]
    loop = lambda: ops.stack([f(r) for r in rows])  # noqa: E731
    batched, compiled = ms.vmap(f), ms.jit(ms.vmap(f))
    np.testing.assert_allclose(batched(x).asnumpy(), loop().asnumpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(compiled(x).asnumpy(), loop().asnumpy(), rtol=1e-5, atol=1e-5)
    grad_fn = ms.grad(loss)
    grad_loop = lambda: ops.stack([grad_fn(r, t) for r, t in zip(rows, targets)])  # noqa: E731
    per_example = ms.vmap(grad_fn)
    np.testing.assert_allclose(per_example(x, y).asnumpy(), grad_loop().asnumpy(), rtol=1e-4,
                               atol=1e-5)
    t_loop, t_vmap, vmap_speedup = compare(loop, lambda: batched(x), repeat)
    _, t_jit, jit_speedup = compare(loop, lambda: compiled(x), repeat)
    t_grad_loop, t_grad_vmap, grad_speedup = compare(grad_loop, lambda: per_example(x, y),
                                                     max(3, repeat // 3))
    print(f"mlp {SIZES}, batch {BATCH} (PyNative unless marked)")
    print(f"  forward  loop {t_loop:9.2f} ms   vmap {t_vmap:7.3f} ms   "
          f"speed-up {vmap_speedup:6.1f}x (target >= 20x)")
    print(f"  forward  jit(vmap) {t_jit:7.3f} ms   speed-up over the loop {jit_speedup:6.1f}x")
    print(f"  per-example grads  loop {t_grad_loop:9.2f} ms   vmap(grad) {t_grad_vmap:7.3f} ms   "
          f"speed-up {grad_speedup:6.1f}x")


def bench_jacobian(repeat):
    rng = np.random.default_rng(1)
    a = Tensor(rng.standard_normal((JACOBIAN_SIZE, JACOBIAN_SIZE)) / np.sqrt(JACOBIAN_SIZE))
    x = Tensor(rng.standard_normal(JACOBIAN_SIZE))

    def f(v):
        return ops.tanh(ops.matmul(a, v)) * v

    basis = [Tensor(e) for e in np.eye(JACOBIAN_SIZE)]

    def by_vjp_calls():
        _, vjp_fn = ms.vjp(f, x)
        return ops.stack([vjp_fn(e)[0] for e in basis])

    jacobian = ms.jacrev(f)
    np.testing.assert_allclose(jacobian(x).asnumpy(), by_vjp_calls().asnumpy(), rtol=1e-12,
                               atol=1e-12)
    t_calls, t_jacrev, speedup = compare(by_vjp_calls, lambda: jacobian(x), repeat)
    print(f"jacobian {JACOBIAN_SIZE}x{JACOBIAN_SIZE} of tanh(A x) * x")
    print(f"  {JACOBIAN_SIZE} vjp calls {t_calls:8.2f} ms   jacrev {t_jacrev:7.3f} ms   "
          f"speed-up {speedup:6.1f}x (target >= 1x)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=31, help="timed calls per variant")
    args = parser.parse_args()
    bench_mlp(args.repeat)
    bench_jacobian(args.repeat)


if __name__ == "__main__":
    main()
