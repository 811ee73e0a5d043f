"""Scans, statistics, norms, products, einsum and decompositions of the wider surface against
numpy, in both modes; gradients of the composites that pick elements (median, quantile)."""
import numpy as np
import pytest

import minispore as ms
from minispore import ops

from helpers import assert_close, run_in_mode

T = ms.Tensor
RNG = np.random.default_rng(2)
A = RNG.standard_normal((3, 4))
M = RNG.standard_normal((3, 3)) + 3 * np.eye(3)


def test_scans_match_numpy(mode):
    x = A.copy()
    x[1, 2] = 0.0

    def f(t):
        return (ops.cumprod(t, 1), ops.cummax(t, 1), ops.cummin(t, 0), ops.logcumsumexp(t, 1))
    got = run_in_mode(f, mode, T(x))
    running_max, running_min = np.maximum.accumulate(x, 1), np.minimum.accumulate(x, 0)
    assert_close(got[0], np.cumprod(x, 1), rtol=1e-12)
    assert_close(got[1][0], running_max)
    assert_close(got[2][0], running_min)
    assert_close(got[3], np.logaddexp.accumulate(x, 1), rtol=1e-12)
    # the index is where the running value was reached (the later index on ties)
    for row, idx in zip(x, got[1][1].asnumpy()):
        assert all(row[i] == m for i, m in zip(idx, np.maximum.accumulate(row)))
    assert ops.cummax(T([1.0, 3.0, 3.0, 2.0]), 0)[1].tolist() == [0, 1, 2, 2]
    assert ops.cummin(T([1.0, 0.0, 2.0]), 0)[1].dtype == ms.int32


def test_logcumsumexp_keeps_small_terms():
    out = ops.logcumsumexp(T([-1000.0, 0.0]), 0).tolist()
    assert out[0] == -1000.0 and out[1] == 0.0


def test_statistics_match_numpy(mode):
    x = A.copy()
    x[0, 1] = np.nan

    def f(a, n):
        return (ops.var(a, 1), ops.std(a, (0, 1), 1, True), ops.var_mean(a, 0, 1),
                ops.std_mean(a), ops.median(a, 1), ops.nanmedian(n, 1)[0], ops.quantile(a, 0.3, 1),
                ops.quantile(a, T([0.25, 0.75])), ops.nanquantile(n, 0.5, 1), ops.nansum(n, 1),
                ops.nanmean(n), ops.count_nonzero(a > 0, 1), ops.aminmax(a, axis=1),
                ops.logsumexp(a, 1, True), ops.ptp(a, 1), ops.trapz(a), ops.trapz(a, a[0]))
    got = run_in_mode(f, mode, T(A), T(x))
    srt = np.sort(A, 1)
    nan_sorted = np.sort(x, 1)
    want = (A.var(1), A.std(ddof=1, keepdims=True), (A.var(0, ddof=1), A.mean(0)),
            (A.std(), A.mean()), (srt[:, 1], np.argsort(A, 1)[:, 1]),
            nan_sorted[:, 1],
            np.quantile(A, 0.3, 1), np.quantile(A, [0.25, 0.75]), np.nanquantile(x, 0.5, 1),
            np.nansum(x, 1), np.nanmean(x), (A > 0).sum(1).astype(np.int32),
            (A.min(1), A.max(1)), np.log(np.exp(A).sum(1, keepdims=True)), np.ptp(A, 1),
            np.trapezoid(A), np.trapezoid(A, A[0]))
    assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_norms_match_numpy(mode):
    def f(a):
        return (ops.norm(a), ops.norm(a, 1), ops.norm(a, "nuc"), ops.norm(a, 2), ops.norm(a, -2),
                ops.norm(a, float("inf")), ops.norm(a, None, 1), ops.norm(a, 3, 0, True),
                ops.vector_norm(a, 0), ops.vector_norm(a, float("-inf"), 1),
                ops.matrix_norm(a, -1), ops.matrix_norm(a, "fro", keepdims=True))
    got = run_in_mode(f, mode, T(A))
    la = np.linalg
    want = (la.norm(A), la.norm(A, 1), la.norm(A, "nuc"), la.norm(A, 2), la.norm(A, -2),
            la.norm(A, np.inf), la.norm(A, None, 1), la.norm(A, 3, 0, True), (A != 0).sum(),
            np.abs(A).min(1), la.norm(A, -1), la.norm(A, "fro", keepdims=True))
    assert_close(got, want, rtol=1e-10, atol=1e-12, check_dtype=False)


def test_products_match_numpy(mode):
    v, w = RNG.standard_normal(3), RNG.standard_normal(3)
    batch = RNG.standard_normal((2, 3, 4))

    def f(a, m, x, y, b):
        return (ops.dot(m, a), ops.inner(a, a), ops.outer(x, y), ops.kron(m[:2, :2], a),
                ops.cross(x, y), ops.tensordot(b, a, ([1, 2], [0, 1])), ops.mv(m, x),
                ops.addmv(x, m, y, beta=0.5, alpha=2), ops.addr(m, x, y, alpha=3),
                ops.baddbmm(b[:, :, :3], b, ops.swapaxes(b, 1, 2), beta=0.5),
                ops.matrix_power(m, 3), ops.matrix_power(m, -2), ops.vecdot(a, a, axis=0),
                ops.cdist(a, a[:2]), ops.cosine_similarity(a, a[::-1], 1),
                ops.normalize(a, 2.0, 1), ops.pairwise_distance(a, a[::-1]), ops.vander(x, 4))
    got = run_in_mode(f, mode, T(A), T(M), T(v), T(w), T(batch))
    inv = np.linalg.inv(M)
    want = (M @ A, A @ A.T, np.outer(v, w), np.kron(M[:2, :2], A), np.cross(v, w),
            np.tensordot(batch, A, ([1, 2], [0, 1])), M @ v, 0.5 * v + 2 * (M @ w),
            M + 3 * np.outer(v, w), 0.5 * batch[:, :, :3] + batch @ batch.transpose(0, 2, 1),
            M @ M @ M, inv @ inv, (A * A).sum(0),
            np.linalg.norm(A[:, None] - A[None, :2], axis=-1),
            (A * A[::-1]).sum(1) / (np.linalg.norm(A, axis=1) * np.linalg.norm(A[::-1], axis=1)),
            A / np.linalg.norm(A, axis=1, keepdims=True),
            np.linalg.norm(A - A[::-1] + 1e-6, axis=-1), np.vander(v, 4))
    assert_close(got, want, rtol=1e-10, atol=1e-12)


def test_einsum_matches_numpy(mode):
    b = RNG.standard_normal((2, 4, 5))
    cases = ["ij,jk->ik", "ij->ji", "ii->i", "ii", "bij,bjk->bik", "...j,jk->...k", "ij,ij",
             "i,j->ij"]
    operands = {"ij,jk->ik": (A, b[0]), "ij->ji": (A,), "ii->i": (M,), "ii": (M,),
                "bij,bjk->bik": (np.ones((2, 3, 4)), b), "...j,jk->...k": (b, b[0].T),
                "ij,ij": (A, A), "i,j->ij": (A[0], A[1])}
    for eq in cases:
        got = run_in_mode(lambda *xs: ops.einsum(eq, *xs), mode, *map(T, operands[eq]))
        assert_close(got, np.einsum(eq, *operands[eq]), rtol=1e-12, atol=1e-12)


def test_einsum_gradient_with_a_repeated_and_a_lone_letter():
    g = ms.grad(lambda m: ops.einsum("iij->j", m).sum())(T(np.ones((2, 2, 3))))
    assert_close(g, np.broadcast_to(np.eye(2)[:, :, None], (2, 2, 3)))


def test_decompositions_match_numpy(mode):
    spd = M @ M.T

    def f(m, s):
        return (ops.inverse(m), ops.det(m), ops.slogdet(m), ops.cholesky(s),
                ops.cholesky(s, upper=True), ops.svd(m, compute_uv=False), ops.eigh(s)[0],
                ops.pinv(m[:, :2]), ops.logdet(s), ops.matrix_solve(m, s),
                ops.cholesky_solve(s, ops.cholesky(s)))
    got = run_in_mode(f, mode, T(M), T(spd))
    la = np.linalg
    low = la.cholesky(spd)
    want = (la.inv(M), la.det(M), la.slogdet(M), low, low.T, la.svd(M, compute_uv=False),
            la.eigh(spd)[0], la.pinv(M[:, :2]), np.log(la.det(spd)), la.solve(M, spd),
            la.solve(spd, spd))
    assert_close(got, want, rtol=1e-9, atol=1e-10)
    q, r = ops.qr(T(M))
    s, u, v = ops.svd(T(M))
    assert_close(ops.matmul(q, r), M, rtol=1e-12, atol=1e-12)
    assert_close(ops.matmul(u * s[None], v.T), M, rtol=1e-12, atol=1e-12)


def test_order_statistic_gradients_reach_the_chosen_elements():
    x = T(np.array([[3.0, 1.0, 2.0, 4.0]]))
    assert_close(ms.grad(lambda t: ops.median(t)[0].sum())(x), np.array([[0.0, 0, 1, 0]]))
    # quantile 0.5 of 4 values: halfway between the 2nd and 3rd smallest (2 and 3)
    assert_close(ms.grad(lambda t: ops.quantile(t, 0.5))(x), np.array([[0.5, 0, 0.5, 0]]))


def test_bad_input():
    with pytest.raises(ops.OpShapeError, match="matrix_inverse"):
        ops.inverse(T(np.ones((2, 3))))
    with pytest.raises(ValueError, match="quantile"):
        ops.quantile(T(A), 1.5)
    with pytest.raises(ops.OpShapeError, match="einsum"):
        ops.einsum("ij,jk", T(A))


def test_lu_and_matrix_exp_match_scipy(mode):
    import scipy.linalg
    a = RNG.standard_normal((2, 4, 4))
    factors = [scipy.linalg.lu_factor(m) for m in a]
    lu = np.stack([f for f, _ in factors])
    pivots = np.stack([p + 1 for _, p in factors]).astype(np.int32)  # 1-based, as LAPACK
    b = RNG.standard_normal((2, 4, 2))
    got = run_in_mode(lambda m, f, piv, r: (ops.matrix_exp(m), ops.lu_solve(r, f, piv)), mode,
                      T(a), T(lu), T(pivots), T(b))
    assert_close(got, (scipy.linalg.expm(a), np.linalg.solve(a, b)), rtol=1e-9, atol=1e-12)
    p, low, up = ops.lu_unpack(T(lu), T(pivots))
    assert_close(ops.matmul(ops.matmul(p, low), up), a, rtol=1e-12, atol=1e-12)
