"""SAMPLES of the primitives of MindSpore's wider op surface (ops.elementwise_ext, scan,
scatter, search, random_ops, einsum, decompositions), merged into test_registry's table.

`recipes(b)` takes test_registry's sample builders (b.normal, b.sample...) so that this
module needs no import of test_registry (which imports it). The rules of test_registry's
docstring apply: float64 inputs, domains clear of kinks, one entry per primitive.
"""
import numpy as np


def _spd(rng, b, n, batch=()):
    """Symmetric positive-definite matrices: a a^T + n I."""
    a = b.normal(rng, batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _well_conditioned(rng, b, shape):
    """Matrices with singular values well apart (derivatives of svd/qr are stable there)."""
    return b.normal(rng, shape) + 3 * np.eye(*shape[-2:])


def recipes(b):
    unary, binary, sample = b.unary, b.binary, b.sample
    return {
        # ----- elementwise: inverse trigonometry and hyperbolic functions -----
        "asin": unary(lambda rng, s: b.uniform(rng, s, -0.8, 0.8)),
        "acos": unary(lambda rng, s: b.uniform(rng, s, -0.8, 0.8)),
        "atan": unary(b.normal),
        "sinh": unary(b.normal),
        "cosh": unary(b.normal),
        "asinh": unary(b.normal),
        "acosh": unary(lambda rng, s: b.uniform(rng, s, 1.2, 3.0)),
        "atanh": unary(lambda rng, s: b.uniform(rng, s, -0.8, 0.8)),
        "exp2": unary(b.normal),
        "log2": unary(b.positive),
        "log10": unary(b.positive),
        # ----- special functions -----
        "erfc": unary(b.normal),
        "lgamma": unary(lambda rng, s: b.uniform(rng, s, 0.5, 4.0)),
        "polygamma": lambda rng: [sample(b.uniform(rng, (2, 3), 0.5, 4.0), n=0),
                                  sample(b.uniform(rng, (3,), 0.5, 4.0), n=1)],
        "erfinv": unary(lambda rng, s: b.uniform(rng, s, -0.8, 0.8)),
        **{f"bessel_{name}": unary(lambda rng, s: b.uniform(rng, s, 0.5, 3.0))
           for name in ("j0", "j1", "y0", "y1", "i0", "i1", "i0e", "i1e", "k0", "k1", "k0e",
                        "k1e")},
        # ----- rounding and classification -----
        "trunc": unary(lambda rng, s: b.normal(rng, s, 3.0)),
        "isnan": lambda rng: sample(np.array([0.5, np.nan, np.inf, -1.0])),
        "isinf": lambda rng: sample(np.array([0.5, np.nan, np.inf, -np.inf])),
        "isfinite": lambda rng: sample(np.array([0.5, np.nan, np.inf, -2.0])),
        "signbit": lambda rng: sample(np.array([0.5, -0.0, 0.0, -2.0])),
        # ----- binary float functions -----
        "atan2": binary(b.normal, b.away_from_zero),
        "hypot": binary(b.away_from_zero),
        "copysign": binary(b.away_from_zero),
        "fmod": binary(lambda rng, s: b.normal(rng, s, 3.0), b.positive),
        # ----- bitwise and integer functions -----
        "bitwise_and": binary(lambda rng, s: b.ints(rng, s, 64, -64)),
        "bitwise_or": binary(lambda rng, s: b.ints(rng, s, 64, -64)),
        "bitwise_xor": binary(b.bools),
        "bitwise_left_shift": binary(lambda rng, s: b.ints(rng, s, 16),
                                     lambda rng, s: b.ints(rng, s, 5)),
        "bitwise_right_shift": binary(lambda rng, s: b.ints(rng, s, 1000),
                                      lambda rng, s: b.ints(rng, s, 5)),
        "nextafter": binary(b.normal),
        "population_count": unary(lambda rng, s: b.ints(rng, s, 1000, -1000)),
        "gcd": binary(lambda rng, s: b.ints(rng, s, 50, 1)),
        "lcm": binary(lambda rng, s: b.ints(rng, s, 20, 1)),
        # ----- scans -----
        "cumprod": lambda rng: [sample(b.away_from_zero(rng, (3, 4), 0.5, 1.5), axis=1),
                                # zeros: one per row, two in a row (the zero branches)
                                sample(b.normal(rng, (3, 5)) * [[1, 0, 1, 1, 1], [0, 1, 1, 0, 1],
                                                                 [1, 1, 1, 1, 0]], axis=1),
                                sample(b.normal(rng, ()), axis=0)],
        "cummax": lambda rng: [sample(b.distinct(rng, (3, 5)), axis=1),
                               sample(b.distinct(rng, (4, 2)), axis=0)],
        "cummin": lambda rng: [sample(b.distinct(rng, (3, 5)), axis=1),
                               sample(b.distinct(rng, ()), axis=0)],
        "logcumsumexp": lambda rng: [sample(b.normal(rng, (3, 4), 3.0), axis=1, reverse=False),
                                     sample(b.normal(rng, (4, 2)), axis=0, reverse=True)],
        # ----- scatter -----
        "scatter_along_axis": lambda rng: [
            # distinct indices per column: each written element comes from one update
            sample(b.normal(rng, (4, 3)), np.array([[2, 0, 1], [0, 3, 2]]),
                   b.normal(rng, (2, 3)), axis=0),
            sample(b.normal(rng, (2, 5)), np.array([[4, 1], [0, 2]]), b.normal(rng, (2, 2)),
                   axis=1)],
        "index_reduce": lambda rng: [
            # index 0 repeats (two updates combine there); values apart, so no ties
            b.with_index(b.distinct(rng, (4, 3)), (np.array([0, 2, 0]),),
                         b.distinct(rng, (3, 3)) * 1.3 + 0.05)._replace(
                attrs={"index": (("tensor", 0),), "reduce": reduce})
            for reduce in ("max", "min")] + [
            b.with_index(b.away_from_zero(rng, (4, 3), 0.5, 1.5), (np.array([1, 3, 1]),),
                         b.away_from_zero(rng, (3,), 0.5, 1.5))._replace(
                attrs={"index": (("tensor", 0),), "reduce": "mul"})],
        "searchsorted": lambda rng: [
            sample(np.sort(b.normal(rng, (6,))), b.normal(rng, (2, 3)), right=False,
                   dtype=b.I64),
            sample(np.sort(b.normal(rng, (2, 5)), -1), b.normal(rng, (2, 3)), right=True,
                   dtype=np.dtype(np.int32))],
        # ----- random: parameters whose draws are certain, so values are reproducible -----
        "random": lambda rng: [
            sample(distribution="integers", shape=(2, 3), dtype=b.I64, seed=None, extra=(4, 5)),
            sample(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]), distribution="categorical",
                   shape=(2, 4), dtype=np.dtype(np.int32), seed=None, extra=(4, True)),
            sample(np.zeros((3,)), distribution="poisson", shape=(3,), dtype=b.F64,
                   seed=None, extra=())],
        # ----- linear algebra -----
        "einsum": lambda rng: [
            sample(b.normal(rng, (2, 3)), b.normal(rng, (3, 4)), equation="ij,jk->ik"),
            sample(b.normal(rng, (2, 3, 4)), b.normal(rng, (2, 4)), equation="bij,bj->bi"),
            sample(b.normal(rng, (3, 3)), equation="ii->i"),        # a diagonal
            sample(b.normal(rng, (2, 3)), b.normal(rng, (4,)), equation="ij,k->jk"),
            sample(b.normal(rng, (3, 1, 2)), b.normal(rng, (4, 2)), equation="abc,dc->abd"),
            sample(b.normal(rng, (2, 2)), equation="ii->")],        # a trace
        "matrix_inverse": lambda rng: sample(_well_conditioned(rng, b, (2, 3, 3))),
        "det": lambda rng: sample(_well_conditioned(rng, b, (2, 3, 3))),
        "slogdet": lambda rng: sample(_well_conditioned(rng, b, (3, 3)) * [[-1], [1], [1]]),
        "cholesky": lambda rng: [sample(_spd(rng, b, 3, (2,)), upper=False),
                                 sample(_spd(rng, b, 2), upper=True)],
        "qr": lambda rng: [sample(_well_conditioned(rng, b, (4, 3)), mode="reduced"),
                           sample(_well_conditioned(rng, b, (2, 3, 3)), mode="reduced")],
        "svd": lambda rng: [sample(np.diag([3.0, 2.0, 1.0])[:, :2] + b.normal(rng, (3, 2), 0.1),
                                   full_matrices=False),
                            sample(np.diag([4.0, 2.5, 1.0]) + b.normal(rng, (3, 3), 0.1),
                                   full_matrices=False)],
        "matrix_exp": lambda rng: [sample(b.normal(rng, (3, 3), 0.5)),
                                   sample(b.normal(rng, (2, 2, 2), 0.5))],
        "eigh": lambda rng: sample(np.diag([1.0, 2.5, 4.0]) + _spd(rng, b, 3) * 0.05),
    }


NO_GRADIENT = {
    "trunc", "isnan", "isinf", "isfinite", "signbit", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm", "searchsorted",
    "nextafter", "population_count",
    "random",
}
