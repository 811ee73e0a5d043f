"""Layout, triangular, gather/scatter and search ops of the wider surface against numpy, in
both modes (the ops whose output size depends on the values: eagerly, and in Graph mode
through a graph break); nn.Tril, nn.Triu, nn.Roll."""
import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops

from helpers import assert_close, run_in_mode

T = ms.Tensor
RNG = np.random.default_rng(1)
A = RNG.standard_normal((3, 4))
B3 = RNG.standard_normal((2, 3, 4))


def test_layout_ops_match_numpy(mode):
    def f(a, b):
        return (ops.flip(b, (0, 2)), ops.fliplr(a), ops.flipud(a), ops.roll(a, 1),
                ops.roll(b, (2, -1), (1, 2)), ops.rot90(a, 1, (0, 1)), ops.rot90(a, 3, (0, 1)),
                ops.movedim(b, 0, -1), ops.moveaxis(b, (0, 1), (2, 0)), ops.swapdims(b, 0, 2),
                ops.narrow(a, 1, 1, 2), ops.unflatten(a, 1, (2, 2)), ops.diff(a, 2, 1),
                ops.repeat_interleave(a, 2, 0), ops.expand_as(a[0], a), ops.t(a), ops.ravel(b),
                ops.hstack([a, a]), ops.vstack([a[0], a[1]]), ops.dstack([a, a]),
                ops.column_stack([a[0], a[1]]), ops.atleast_3d(a), ops.take(a, T([[0, 5]])))
    got = run_in_mode(f, mode, T(A), T(B3))
    want = (np.flip(B3, (0, 2)), np.fliplr(A), np.flipud(A), np.roll(A, 1),
            np.roll(B3, (2, -1), (1, 2)), np.rot90(A, 1), np.rot90(A, 3), np.moveaxis(B3, 0, -1),
            np.moveaxis(B3, (0, 1), (2, 0)), np.swapaxes(B3, 0, 2), A[:, 1:3],
            A.reshape(3, 2, 2), np.diff(A, 2, 1), np.repeat(A, 2, 0),
            np.broadcast_to(A[0], A.shape), A.T, B3.ravel(), np.hstack([A, A]),
            np.vstack([A[0], A[1]]), np.dstack([A, A]), np.column_stack([A[0], A[1]]),
            np.atleast_3d(A), np.take(A, [[0, 5]]))
    assert_close(got, want, rtol=0, atol=0)


def test_splitting_and_grids():
    x = T(np.arange(10))
    assert [t.tolist() for t in ops.chunk(x, 3)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert [t.shape for t in ops.tensor_split(x, 3)] == [(4,), (3,), (3,)]
    assert [t.tolist() for t in ops.tensor_split(x, [2, 5])] == [[0, 1], [2, 3, 4],
                                                                 [5, 6, 7, 8, 9]]
    assert [t.tolist() for t in ops.unbind(T([[1, 2], [3, 4]]), 1)] == [[1, 3], [2, 4]]
    gx, gy = ops.meshgrid(T([1, 2]), T([3, 4, 5]))
    wx, wy = np.meshgrid([1, 2], [3, 4, 5])
    assert gx.tolist() == wx.tolist() and gy.tolist() == wy.tolist()
    gi = ops.meshgrid(T([1, 2]), T([3, 4, 5]), indexing="ij")[0]
    assert gi.tolist() == np.meshgrid([1, 2], [3, 4, 5], indexing="ij")[0].tolist()
    assert ops.repeat_interleave(T([1, 2, 3]), T([1, 0, 2])).tolist() == [1, 3, 3]
    assert ops.cartesian_prod(T([1, 2]), T([3, 4])).tolist() == [[1, 3], [1, 4], [2, 3], [2, 4]]
    assert ops.range(0, 5, 2).tolist() == [0, 2, 4]


def test_triangles_and_diagonals_match_numpy(mode):
    m = RNG.standard_normal((2, 3, 4))

    def f(x):
        return (ops.tril(x), ops.triu(x, 1), ops.tril(x, -1), ops.diagonal(x, 1, 1, 2),
                ops.diagonal(x, -1, 2, 1), ops.trace(x[0]), ops.diag_embed(x[0, 0], -1),
                ops.diagflat(x[0, :2, :2]), ops.matrix_band_part(x, 1, 0), ops.diag(x[0, 0]))
    got = run_in_mode(f, mode, T(m))
    band = np.array([[np.triu(np.tril(s, 0), -1) for s in m]]).reshape(m.shape)
    want = (np.tril(m), np.triu(m, 1), np.tril(m, -1), np.diagonal(m, 1, 1, 2),
            np.diagonal(m, -1, 2, 1), np.trace(m[0]), np.diag(m[0, 0], -1),
            np.diagflat(m[0, :2, :2]), band, np.diag(m[0, 0]))
    assert_close(got, want, rtol=0, atol=0)
    assert ops.diag(T([[1, 2], [3, 4]])).shape == (2, 2, 2, 2)  # MindSpore's rank doubling
    rows, cols = np.tril_indices(3, 0, 4)
    assert ops.tril_indices(3, 4).tolist() == [rows.tolist(), cols.tolist()]
    assert ops.block_diag(T([[1, 2]]), T([[3], [4]])).tolist() == [[1, 2, 0], [0, 0, 3],
                                                                   [0, 0, 4]]


def test_tril_triu_roll_cells():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    assert_close(nn.Tril()(T(x), 1), np.tril(x, 1))
    assert_close(nn.Triu()(T(x)), np.triu(x))
    assert_close(nn.Roll((1, 2), (0, 1))(T(x)), np.roll(x, (1, 2), (0, 1)))
    assert_close(nn.Roll(3, 1)(T(x)), np.roll(x, 3, 1))


def test_gather_and_scatter_match_numpy(mode):
    idx = np.array([[2, 0, 1, 1], [0, 0, 2, 1]])
    nd = np.array([[0, 1], [2, 3], [0, 1]])

    def f(a):
        return (ops.gather_nd(a, T(nd)), ops.scatter(a, 0, T(idx[:, :1]), a[:2, :1] * 10),
                ops.tensor_scatter_elements(a, T(idx), a[:2] * 0 + 1, 0, "add"),
                ops.scatter_nd(T(nd), a[0, :3], (3, 4)), ops.tensor_scatter_add(a, T(nd), a[1, :3]),
                ops.tensor_scatter_sub(a, T(nd[:2]), a[1, :2]),
                ops.tensor_scatter_update(a, T(nd[:2]), a[2, :2]),
                ops.index_select(a, 1, T([3, 0])), ops.index_fill(a, 1, T([1]), -1.0),
                ops.masked_fill(a, a > 0, 0.5), ops.select_scatter(a, a[0], 0, 2),
                ops.slice_scatter(a, a[:, :2] * 2, 1, 1, 3))
    got = run_in_mode(f, mode, T(A))
    scattered = A.copy()
    scattered[idx[:, 0], 0] = A[:2, 0] * 10
    added = A.copy()
    np.add.at(added, (idx, np.arange(4)[None].repeat(2, 0)), 1.0)
    nd_sum = np.zeros((3, 4))
    np.add.at(nd_sum, tuple(nd.T), A[0, :3])
    nd_add = A.copy()
    np.add.at(nd_add, tuple(nd.T), A[1, :3])
    nd_sub, nd_set = A.copy(), A.copy()
    nd_sub[tuple(nd[:2].T)] -= A[1, :2]
    nd_set[tuple(nd[:2].T)] = A[2, :2]
    filled = A.copy()
    filled[:, 1] = -1
    selected, sliced = A.copy(), A.copy()
    selected[2] = A[0]
    sliced[:, 1:3] = A[:, :2] * 2
    want = (A[nd[:, 0], nd[:, 1]], scattered, added, nd_sum, nd_add, nd_sub, nd_set,
            A[:, [3, 0]], filled, np.where(A > 0, 0.5, A), selected, sliced)
    assert_close(got, want, rtol=1e-15, atol=0)


def test_scatter_gradients_reach_the_written_values():
    idx = T(np.array([[1], [0]]))
    g = ms.grad(lambda x, s: (ops.scatter(x, 1, idx, s) * T(np.arange(6.0).reshape(2, 3))).sum(),
                (0, 1))(T(np.ones((2, 3))), T(np.ones((2, 1))))
    assert_close(g, (np.array([[0.0, 0, 2], [0, 4, 5]]), np.array([[1.0], [3.0]])))


def test_parameter_updating_scatters():
    p = ms.Parameter(T(np.zeros((3, 2), np.float32)), name="p")
    ops.scatter_add(p, T([0, 2, 0]), T(np.ones((3, 2), np.float32)))
    assert p.asnumpy().tolist() == [[2, 2], [0, 0], [1, 1]]
    ops.scatter_update(p, T([1]), T(np.full((1, 2), 7, np.float32)))
    ops.index_add(p, T([0]), T(np.ones((1, 2), np.float32)), 0)
    assert p.asnumpy().tolist() == [[3, 3], [7, 7], [1, 1]]


def test_value_dependent_shapes(mode):
    x = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])

    def f(t):
        return (ops.nonzero(t), ops.argwhere(t) + 1, ops.masked_select(t, t > 0) * 2)
    got = run_in_mode(f, mode, T(x))
    assert_close(got, (np.argwhere(x), np.argwhere(x) + 1, x[x > 0] * 2))
    values, index = ops.unique(T([1, 5, 2, 5, 1, 3]))
    assert values.tolist() == [1, 5, 2, 3] and index.tolist() == [0, 1, 2, 1, 0, 3]
    values, inverse, counts = ops.unique_consecutive(T([1, 1, 2, 2, 3, 1]), True, True)
    assert (values.tolist(), inverse.tolist(), counts.tolist()) == \
        ([1, 2, 3, 1], [0, 0, 1, 1, 2, 3], [2, 2, 1, 1])
    assert ops.bincount(T([2, 4, 1, 0, 0]), minlength=7).tolist() == [2, 1, 1, 0, 1, 0, 0]
    assert ops.bincount(T([1, 1]), T([0.5, 0.25])).tolist() == [0.0, 0.75]
    assert ops.histc(T([1.0, 2.0, 1.0, 4.0]), bins=4, min=0.0, max=4.0).tolist() == \
        [0.0, 2.0, 1.0, 1.0]
    assert [t.tolist() for t in ops.nonzero(T(x), as_tuple=True)] == \
        [a.tolist() for a in np.nonzero(x)]


def test_sorting_and_searching(mode):
    seq = np.array([1.0, 3.0, 5.0, 7.0])
    rows = np.sort(RNG.standard_normal((2, 5)), -1)
    values = RNG.standard_normal((2, 3))

    def f(s, r, v):
        return (ops.searchsorted(s, v), ops.searchsorted(s, v * 4, right=True),
                ops.searchsorted(r, v, side="right"), ops.argsort(v, 1, True), ops.msort(v),
                ops.bucketize(v * 4, [1.0, 3.0, 5.0], right=True))
    got = run_in_mode(f, mode, T(seq), T(rows), T(values))
    want = (np.searchsorted(seq, values), np.searchsorted(seq, values * 4, "right"),
            np.stack([np.searchsorted(r, v, "right") for r, v in zip(rows, values)]),
            np.argsort(-values, 1, kind="stable").astype(np.int32), np.sort(values, 0),
            np.searchsorted([1.0, 3.0, 5.0], values * 4, "left").astype(np.int32))
    assert_close(got, want, rtol=0, atol=0)


def test_bad_arguments_name_the_op():
    with pytest.raises(ValueError, match="rot90"):
        ops.rot90(T(A), 1, (0, 0))
    with pytest.raises(ValueError, match="roll"):
        ops.roll(T(A), (1, 2), 0)
    with pytest.raises(ops.OpShapeError, match="flip"):
        ops.flip(T(A), 5)
    with pytest.raises(ops.OpShapeError, match="searchsorted"):
        ops.searchsorted(T(np.zeros((2, 3))), T(np.zeros((3, 1))))


def test_reducing_scatters_match_numpy(mode):
    idx = np.array([[0], [2], [0]])
    updates = RNG.standard_normal((3, 4))

    def f(a, u):
        return (ops.tensor_scatter_max(a, T(idx), u), ops.tensor_scatter_min(a, T(idx), u),
                ops.tensor_scatter_mul(a, T(idx), u), ops.tensor_scatter_div(a, T(idx), u),
                ops.unsorted_segment_max(u, T([1, 1, 0]), 3),
                ops.unsorted_segment_prod(u, T([1, 1, 0]), 2))
    got = run_in_mode(f, mode, T(A), T(updates))
    want = []
    for ufunc, values in ((np.maximum, updates), (np.minimum, updates),
                          (np.multiply, updates), (np.multiply, 1 / updates)):
        out = A.copy()
        ufunc.at(out, idx[:, 0], values)
        want.append(out)
    seg_max = np.full((3, 4), np.finfo(np.float64).min)
    np.maximum.at(seg_max, [1, 1, 0], updates)
    seg_prod = np.ones((2, 4))
    np.multiply.at(seg_prod, [1, 1, 0], updates)
    assert_close(got, tuple(want) + (seg_max, seg_prod), rtol=1e-15, atol=0)


def test_scatter_max_gradient_splits_ties():
    g = ms.grad(lambda b, u: ops.tensor_scatter_max(b, T([[0], [0]]), u).sum(), (0, 1))(
        T([2.0, 1.0]), T([2.0, 0.5]))
    assert_close(g, (np.array([0.5, 1.0], np.float32), np.array([0.5, 0.0], np.float32)))


def test_space_batch_and_sequence_helpers():
    x = np.arange(2 * 1 * 4 * 6, dtype=np.float32).reshape(2, 1, 4, 6)
    y = ops.space_to_batch_nd(T(x), (2, 3), ((0, 0), (0, 0)))
    # MindSpore's order: batch index (i0 * 3 + i1) * 2 + n holds x[n, :, i0::2, i1::3]
    want = np.stack([x[n, :, i0::2, i1::3] for i0 in range(2) for i1 in range(3)
                     for n in range(2)])
    assert_close(y, want)
    assert_close(ops.batch_to_space_nd(y, (2, 3), ((0, 1), (1, 0))), x[:, :, :3, 1:])
    seq = np.arange(8.0).reshape(2, 4)
    assert ops.reverse_sequence(T(seq), T([2, 4]), 1).tolist() == [[1, 0, 2, 3], [7, 6, 5, 4]]
    boxes = np.array([[0.0, 0, 2, 2], [1, 1, 3, 3]])
    assert_close(ops.iou(T(boxes[:1]), T(boxes)), np.array([[1.0], [1 / 7]]), rtol=1e-12)
    assert ops.intopk(T([[1.0, 3, 2], [5, 4, 6]]), T([2, 1]), 2).tolist() == [True, False]
    t = T(np.zeros(4, np.float32))
    ops.put_(t, T([3, 0]), T([1.0, 2.0]))
    assert t.tolist() == [2, 0, 0, 1]
    assert ops.population_count(T([7, -1], ms.int8)).tolist() == [3, 8]
    assert ops.nextafter(T([1.0]), T([2.0])).tolist() == [np.nextafter(np.float32(1), 2)]
