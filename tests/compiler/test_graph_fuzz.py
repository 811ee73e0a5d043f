"""Differential fuzzing: random op graphs give the same values (and gradients) in Graph mode,
PyNative mode and a numpy float64 reference.

Each graph is a random DAG over a few float32 inputs with broadcasting shapes: unary and
binary elementwise ops, comparisons feeding selects, reductions and matmuls (by a constant,
and x (x^T x), whose transposes Graph mode folds into the products' flags). Seeds are fixed,
so a failure reproduces; there are few graphs because each distinct fused kernel compiles.
"""
import numpy as np
import pytest

import minispore as ms
from minispore import ops

UNARY = {
    "tanh": (ops.tanh, np.tanh),
    "sigmoid": (ops.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
    "sin": (ops.sin, np.sin),
    "neg": (ops.neg, np.negative),
    "abs": (ops.abs, np.abs),
    "exp_clipped": (lambda t: ops.exp(ops.clip(t, -5.0, 5.0)), lambda a: np.exp(np.clip(a, -5, 5))),
    "relu": (ops.relu, lambda a: np.maximum(a, 0)),
    "log1p_abs": (lambda t: ops.log1p(ops.abs(t)), lambda a: np.log1p(np.abs(a))),
}
BINARY = {
    "add": (ops.add, np.add),
    "sub": (ops.sub, np.subtract),
    "mul": (ops.mul, np.multiply),
    "max": (ops.maximum, np.maximum),
    "safe_div": (lambda a, b: a / (ops.abs(b) + 1.0), lambda a, b: a / (np.abs(b) + 1)),
    "select": (lambda a, b: ops.where(a > b, a, b * 0.5), lambda a, b: np.where(a > b, a, b * 0.5)),
}
SHAPES = [(4, 6), (1, 6), (4, 1), ()]


def random_program(seed, n_ops=10):
    """(input shapes, list of steps); a step is (kind, name, operand indices)."""
    rng = np.random.default_rng(seed)
    shapes = [(4, 6)] + [SHAPES[i] for i in rng.integers(0, len(SHAPES), 2)]
    steps, n_values = [], len(shapes)
    for _ in range(n_ops):
        kind = rng.choice(["unary", "binary", "binary", "reduce", "matmul", "gram"],
                          p=[.33, .24, .24, .1, .05, .04])
        if kind == "unary":
            steps.append(("unary", rng.choice(sorted(UNARY)), (int(rng.integers(n_values)),)))
        elif kind == "binary":
            steps.append(("binary", rng.choice(sorted(BINARY)),
                          (int(rng.integers(n_values)), int(rng.integers(n_values)))))
        elif kind == "reduce":
            steps.append(("reduce", int(rng.integers(0, 2)), (int(rng.integers(n_values)),)))
        else:
            steps.append((str(kind), None, (int(rng.integers(n_values)),)))
        n_values += 1
    return shapes, steps


# (minispore, numpy) spellings of the structural steps; `side` picks one
REDUCE = (lambda t, axis: t.sum(axis=axis, keep_dims=True), lambda a, axis: a.sum(axis=axis, keepdims=True))
HALF_EYE = (lambda t: ops.matmul(t, ms.Tensor(np.eye(6, dtype=np.float32) * 0.5)),
            lambda a: a @ (np.eye(6) * 0.5))
GRAM = (lambda t: ops.matmul(t, ops.matmul(ops.transpose(t, (1, 0)), t)) * 0.05,
        lambda a: a @ (a.T @ a) * 0.05)


def run_program(steps, inputs, side):
    """Evaluate the program with minispore (side 0) or numpy (side 1); the sum of every value."""
    values = list(inputs)
    for kind, name, args in steps:
        xs = [values[i] for i in args]
        if kind == "unary":
            out = UNARY[name][side](xs[0])
        elif kind == "binary":
            out = BINARY[name][side](*xs)
        elif kind == "reduce":
            out = REDUCE[side](xs[0], name) if xs[0].ndim == 2 else xs[0] * 1.0
        else:  # (.., 6) @ (6, 6) keeps shapes broadcast-compatible
            product = (HALF_EYE if kind == "matmul" else GRAM)[side]
            out = product(xs[0]) if xs[0].ndim == 2 and xs[0].shape[-1] == 6 else xs[0]
        values.append(out)
    return sum(v.sum() for v in values[len(inputs):])


@pytest.mark.parametrize("seed", range(10))
def test_random_graph_matches_pynative_and_numpy(seed):
    shapes, steps = random_program(seed)
    rng = np.random.default_rng(100 + seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    tensors = [ms.Tensor(a) for a in arrays]

    def f(*xs):
        return run_program(steps, xs, 0)

    want = run_program(steps, [a.astype(np.float64) for a in arrays], 1)
    eager = f(*tensors).asnumpy()
    graph = ms.jit(f)(*tensors).asnumpy()
    np.testing.assert_allclose(eager, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-5)

    g_eager = ms.grad(f, grad_position=0)(*tensors).asnumpy()
    g_graph = ms.jit(ms.grad(f, grad_position=0))(*tensors).asnumpy()
    np.testing.assert_allclose(g_graph, g_eager, rtol=1e-4, atol=1e-5)
