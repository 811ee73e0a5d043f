"""Reductions, shape ops, gather/one_hot, indexing, matmul and their Primitive classes,
against numpy, in both modes."""
import numpy as np
import pytest
from helpers import assert_close, run_in_mode

import minispore as ms
from minispore import ops

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)
M = RNG.standard_normal((3, 4)).astype(np.float32)


# ***** reductions *****

@pytest.mark.parametrize("axis", [None, (), 0, -1, (0, 2), (-1, 1), [0, 1]])
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("name, reference", [
    ("sum", np.sum), ("mean", np.mean), ("amax", np.max), ("amin", np.min), ("prod", np.prod),
])
def test_reductions(name, reference, axis, keep_dims, mode):
    np_axis = None if axis in (None, ()) else tuple(axis) if isinstance(axis, list) else axis
    got = run_in_mode(lambda x: getattr(ops, name)(x, axis, keep_dims), mode, ms.Tensor(X))
    assert_close(got, reference(X, axis=np_axis, keepdims=keep_dims).astype(np.float32), rtol=1e-5)


def test_a_0d_tensor_has_one_axis_0_or_minus_1():
    x = ms.Tensor(2.5)
    for out in (ops.sum(x, 0), ops.mean(x, -1, True), ops.amax(x, 0), ops.cumsum(x, -1)):
        assert out.shape == () and out.item() == 2.5
    assert ops.argmax(x, 0, True).shape == () and ops.argmax(x, -1).item() == 0
    with pytest.raises(ms.ops.OpShapeError, match="axis 1"):
        ops.sum(x, 1)


def test_integer_sums_keep_their_dtype_and_means_become_float():
    x = ms.Tensor([[1, 2], [3, 4]], ms.int32)
    assert ops.sum(x).dtype == ms.int32 and ops.sum(x).item() == 10
    assert ops.mean(x).dtype == ms.float32 and ops.mean(x).item() == 2.5
    assert ops.sum(ms.Tensor([True, True, False])).item() == 2


@pytest.mark.parametrize("cls, reference", [
    ("ReduceSum", np.sum), ("ReduceMean", np.mean), ("ReduceMax", np.max), ("ReduceMin", np.min),
])
def test_reduce_classes(cls, reference):
    assert_close(getattr(ops, cls)(keep_dims=True)(ms.Tensor(X), 1), reference(X, 1, keepdims=True))
    assert_close(getattr(ops, cls)()(ms.Tensor(X), (0, 2)), reference(X, (0, 2)))
    assert_close(getattr(ops, cls)()(ms.Tensor(X)), reference(X).astype(np.float32), rtol=1e-6)


def test_tensor_reduction_methods():
    t = ms.Tensor(X)
    assert_close(t.sum(axis=1, keep_dims=True), X.sum(1, keepdims=True), rtol=1e-6)
    assert_close(t.mean(-1), X.mean(-1), rtol=1e-6)
    assert_close(t.max(axis=0), X.max(0))
    # MindSpore 2.x: a positional (or dim=) axis gives (values, indices), as torch.max
    assert_close(t.max(0), (X.max(0), X.argmax(0)))
    assert_close(t.min(), X.min())
    assert_close(t.argmax(1), X.argmax(1))
    assert_close(t.argmin(), np.int64(X.argmin()))


def test_max_and_min_return_values_and_indices(mode):
    values, indices = run_in_mode(lambda x: ops.max(x, 1), mode, ms.Tensor(X))
    assert_close(values, X.max(1))
    assert_close(indices, X.argmax(1))
    values, indices = ops.min(ms.Tensor(X), axis=-1, keepdims=True)
    assert_close(values, X.min(-1, keepdims=True))
    assert_close(indices, np.expand_dims(X.argmin(-1), -1))
    values, _ = ops.max(ms.Tensor(X))
    assert_close(values, X.max())


def test_argmax_takes_dim(mode):
    assert_close(run_in_mode(lambda x: ops.argmax(x, dim=2), mode, ms.Tensor(X)), X.argmax(2))
    assert_close(ops.argmax(ms.Tensor(X), dim=-2, keepdim=True), np.expand_dims(X.argmax(1), 1))
    assert_close(ops.argmax(ms.Tensor(X)), np.int64(X.argmax()))
    assert_close(ops.argmin(ms.Tensor(X), 0), X.argmin(0))
    out = ops.Argmax()(ms.Tensor(M))  # the class defaults to the last axis and Int32
    assert out.dtype == ms.int32 and out.tolist() == M.argmax(-1).tolist()


def test_argmax_picks_the_first_of_ties():
    assert ops.argmax(ms.Tensor([1.0, 3.0, 3.0, 0.0])).item() == 1


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum(axis, mode):
    assert_close(run_in_mode(lambda x: ops.cumsum(x, axis), mode, ms.Tensor(X)),
                 np.cumsum(X, axis), rtol=1e-6, atol=1e-6)
    ints = ms.Tensor([[1, 2], [3, 4]], ms.int32)
    assert ops.cumsum(ints, 1).tolist() == [[1, 3], [3, 7]]
    assert ops.cumsum(ints, 0, ms.float32).dtype == ms.float32


def test_sort_and_topk(mode):
    values, indices = run_in_mode(lambda x: ops.sort(x), mode, ms.Tensor(M))
    assert_close(values, np.sort(M, -1))
    assert_close(indices, np.argsort(M, -1))
    values, indices = ops.sort(ms.Tensor(M), axis=0, descending=True)
    assert_close(values, -np.sort(-M, 0))
    assert_close(indices, np.argsort(-M, 0))
    values, indices = run_in_mode(lambda x: ops.topk(x, 2), mode, ms.Tensor(M))
    assert_close(values, -np.sort(-M, -1)[:, :2])
    assert_close(indices, np.argsort(-M, -1)[:, :2])
    values, _ = ops.topk(ms.Tensor(M), 2, dim=0, largest=False)
    assert_close(values, np.sort(M, 0)[:2])
    values, _ = ops.topk(ms.Tensor(M), 1, dim=None)
    assert_close(values, M.max(-1, keepdims=True))


def test_sort_is_stable_on_ties():
    _, indices = ops.sort(ms.Tensor([2.0, 1.0, 2.0, 1.0]))
    assert indices.tolist() == [1, 3, 0, 2]


# ***** shapes *****

def test_reshape_transpose_and_friends(mode):
    def fn(x):
        return (ops.reshape(x, (4, -1)), x.reshape(-1), ops.transpose(x, (2, 0, 1)), x.T,
                ops.expand_dims(x, -1), ops.expand_dims(x, 0),
                ops.squeeze(ops.expand_dims(x, 1), 1),
                ops.flatten(x), x.flatten(), ops.broadcast_to(x[:, :1], (3, -1, 2, 4)))
    got = run_in_mode(fn, mode, ms.Tensor(X))
    want = (X.reshape(4, -1), X.reshape(-1), X.transpose(2, 0, 1), X.T, X[..., None], X[None],
            X, X.reshape(2, -1), X.reshape(-1), np.broadcast_to(X[:, :1], (3, 2, 2, 4)))
    assert_close(got, want)


def test_squeeze_all_unit_axes_and_view():
    t = ms.Tensor(np.zeros((1, 3, 1, 2), np.float32))
    assert ops.squeeze(t).shape == (3, 2)
    assert t.squeeze(2).shape == (1, 3, 2)
    assert t.view(3, 2).shape == (3, 2)
    assert ms.Tensor(X).transpose().shape == (4, 3, 2)
    assert ms.Tensor(X).transpose(1, 0, 2).shape == (3, 2, 4)


def test_shape_classes():
    t = ms.Tensor(X)
    assert ops.Shape()(t) == (2, 3, 4)
    assert_close(ops.Reshape()(t, (6, 4)), X.reshape(6, 4))
    assert_close(ops.Transpose()(t, (1, 2, 0)), X.transpose(1, 2, 0))
    assert_close(ops.ExpandDims()(t, 1), X[:, None])
    assert_close(ops.Concat(axis=1)((t, t)), np.concatenate([X, X], 1))
    assert_close(ops.Concat()([t, t]), np.concatenate([X, X], 0))


def test_concat_stack_split_tile(mode):
    a, b = M, M[:, :2] * 2

    def fn(a, b):
        return (ops.concat((a, b), 1), ops.concat([a, a], -2), ops.stack([a, a], 0),
                ops.stack((a, a), -1), *ops.split(a, 2, 1), *ops.split(a, [1, 2], 0),
                ops.tile(b, (2, 1)), ops.tile(b, (2, 1, 3)))
    got = run_in_mode(fn, mode, ms.Tensor(a), ms.Tensor(b))
    want = (np.concatenate([a, b], 1), np.concatenate([a, a], 0), np.stack([a, a]),
            np.stack([a, a], -1), *np.split(a, 2, 1), a[:1], a[1:], np.tile(b, (2, 1)),
            np.tile(b, (2, 1, 3)))
    assert_close(got, want)


def test_concat_promotes_dtypes():
    out = ops.concat([ms.Tensor([1], ms.int32), ms.Tensor([2.5], ms.float32)])
    assert out.dtype == ms.float32 and out.tolist() == [1.0, 2.5]


def test_gather_gather_elements_one_hot(mode):
    idx = np.array([2, 0, 2], np.int64)
    got = run_in_mode(lambda x, i: (ops.gather(x, i, 0), ops.gather(x, i, 1)), mode,
                      ms.Tensor(M), ms.Tensor(idx))
    assert_close(got, (M[idx], M[:, idx]))
    index = np.array([[0, 3], [1, 1], [2, 0]], np.int64)
    got = run_in_mode(lambda x, i: ops.gather_elements(x, 1, i), mode,
                      ms.Tensor(M), ms.Tensor(index))
    assert_close(got, np.take_along_axis(M, index, 1))
    hot = ops.one_hot(ms.Tensor([0, 2, 1]), 3)
    assert hot.dtype == ms.float32
    assert_close(hot, np.eye(3, dtype=np.float32)[[0, 2, 1]])
    hot = ops.one_hot(ms.Tensor([1, 0], ms.int32), 2, ms.Tensor(5.0), ms.Tensor(-1.0))
    assert hot.tolist() == [[-1.0, 5.0], [5.0, -1.0]]


# ***** indexing *****

INDEXES = [
    1, -1, (0, -2), slice(None, None, 2), slice(-1, None, -1), (Ellipsis, 1), (None, 0),
    (slice(0, 2), None, Ellipsis, slice(1, 3)), [1, 0, 1], (slice(None), [2, 0]),
    (-1, slice(None), np.array([3, -4])), (np.array([[0, 1]]), np.array([[2], [1]])),
]


@pytest.mark.parametrize("index", INDEXES, ids=[repr(i) for i in INDEXES])
def test_getitem_matches_numpy(index, mode):
    t_index = tuple(ms.Tensor(i) if isinstance(i, np.ndarray) else i for i in index) \
        if isinstance(index, tuple) else index
    got = run_in_mode(lambda x: x[t_index], mode, ms.Tensor(X))
    assert_close(got, X[index])


def test_getitem_with_bool_masks():
    mask = M > 0
    assert_close(ms.Tensor(M)[ms.Tensor(mask)], M[mask])
    row_mask = np.array([True, False, True])
    assert_close(ms.Tensor(M)[ms.Tensor(row_mask)], M[row_mask])
    assert_close(ms.Tensor(M)[ms.Tensor(row_mask), 1:], M[row_mask, 1:])


def test_getitem_with_tensor_scalar_and_iteration():
    t = ms.Tensor(M)
    assert_close(t[ms.Tensor(2)], M[2])
    assert [row.shape for row in t] == [(4,)] * 3
    assert len(t) == 3


SET_CASES = [
    (1, 5.0), ((slice(None), 0), np.array([1, 2, 3], np.float32)), (slice(None, None, 2), -1.0),
    ((Ellipsis, -1), np.float32(7)), ([0, 2], np.ones(4, np.float32)),
    ((np.array([0, 2]), np.array([1, 3])), np.array([8.0, 9.0], np.float32)),
]


@pytest.mark.parametrize("index, value", SET_CASES, ids=[repr(c[0]) for c in SET_CASES])
def test_setitem_matches_numpy(index, value):
    t_index = tuple(ms.Tensor(i) if isinstance(i, np.ndarray) else i for i in index) \
        if isinstance(index, tuple) else index
    t = ms.Tensor(M.copy())
    t[t_index] = ms.Tensor(value) if isinstance(value, np.ndarray) else value
    want = M.copy()
    want[index] = value
    assert_close(t, want)


def test_setitem_with_bool_mask_and_dtype_of_value():
    t = ms.Tensor(M.copy())
    t[ms.Tensor(M > 0)] = 0
    assert_close(t, np.where(M > 0, 0, M).astype(np.float32))
    ints = ms.Tensor([1, 2, 3], ms.int32)
    ints[0] = 7.9  # the value takes the tensor's dtype
    assert ints.dtype == ms.int32 and ints.tolist() == [7, 2, 3]


def test_setitem_gradient_flows_to_tensor_and_value(mode):
    def f(x, v):
        y = x * 1.0
        y[1:3] = v * 2
        y[ms.Tensor([0])] = -1.0
        return ops.sum(y * y)
    x = ms.Tensor(np.arange(4, dtype=np.float64))
    v = ms.Tensor(np.array([5.0, 6.0]))
    dx, dv = run_in_mode(ms.grad(f, grad_position=(0, 1)), mode, x, v)
    assert_close(dx, np.array([0.0, 0.0, 0.0, 6.0]))  # overwritten entries get no gradient
    assert_close(dv, 2 * 2 * np.array([10.0, 12.0]))


# ***** matmul *****

@pytest.mark.parametrize("a_shape, b_shape", [
    ((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
])
def test_matmul_like_numpy(a_shape, b_shape, mode):
    a = RNG.standard_normal(a_shape).astype(np.float32)
    b = RNG.standard_normal(b_shape).astype(np.float32)
    got = run_in_mode(ops.matmul, mode, ms.Tensor(a), ms.Tensor(b))
    assert_close(got, np.matmul(a, b), rtol=1e-5, atol=1e-5)
    assert_close(ms.Tensor(a) @ ms.Tensor(b), np.matmul(a, b), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_class_transposes(ta, tb, mode):
    a = RNG.standard_normal((4, 3) if ta else (3, 4)).astype(np.float32)
    b = RNG.standard_normal((5, 4) if tb else (4, 5)).astype(np.float32)
    got = run_in_mode(ops.MatMul(transpose_a=ta, transpose_b=tb), mode, ms.Tensor(a), ms.Tensor(b))
    assert_close(got, (a.T if ta else a) @ (b.T if tb else b), rtol=1e-5, atol=1e-5)


def test_bmm_and_batch_matmul_class():
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    assert_close(ops.bmm(ms.Tensor(a), ms.Tensor(b)), a @ b, rtol=1e-5, atol=1e-6)
    assert_close(ops.BatchMatMul()(ms.Tensor(a), ms.Tensor(b)), a @ b, rtol=1e-5, atol=1e-6)


def test_matmul_promotes_int_with_float():
    out = ops.matmul(ms.Tensor([[1, 2]], ms.int32), ms.Tensor([[0.5], [0.25]]))
    assert out.dtype == ms.float32 and out.tolist() == [[1.0]]


def test_softmax_class_and_function():
    s = ops.Softmax(axis=0)(ms.Tensor(M))
    e = np.exp(M - M.max(0))
    assert_close(s, e / e.sum(0), rtol=1e-6)
    assert_close(ops.softmax(ms.Tensor(M)), np.exp(M) / np.exp(M).sum(-1, keepdims=True), rtol=1e-6)


# ***** creation and state *****

def test_creation_ops_and_their_default_dtypes():
    assert_close(ops.zeros((2, 3)), np.zeros((2, 3), np.float32))
    assert_close(ops.ones(3, ms.int32), np.ones(3, np.int32))
    assert_close(ops.full((2,), 7), np.full(2, 7, np.int64))
    assert_close(ops.full((2,), 0.5), np.full(2, 0.5, np.float32))
    assert_close(ops.zeros_like(ms.Tensor(M)), np.zeros_like(M))
    assert_close(ops.ones_like(ms.Tensor([1, 2], ms.int8)), np.ones(2, np.int8))
    assert_close(ops.arange(5), np.arange(5, dtype=np.int64))
    assert_close(ops.arange(1, 2, 0.25), np.arange(1, 2, 0.25, dtype=np.float32))
    assert_close(ops.arange(0, 6, 2, dtype=ms.float64), np.arange(0.0, 6.0, 2.0))
    assert_close(ops.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))


def test_assign_writes_in_place_and_keeps_the_dtype():
    w = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="w")
    out = ops.assign(w, ms.Tensor(np.array([1.0, 2.0, 3.0])))
    assert out is w and w.dtype == ms.float32 and w.tolist() == [1.0, 2.0, 3.0]
    ops.assign_add(w, ms.Tensor(np.ones(3, np.float32)))
    assert w.tolist() == [2.0, 3.0, 4.0]
    ops.Assign()(w, ms.Tensor(np.full(3, 5.0, np.float32)))
    assert w.tolist() == [5.0, 5.0, 5.0]
    assert ops.depend(ms.Tensor(1.0), w).item() == 1.0


def test_print_class_prints_tensors_and_strings(capsys):
    ops.Print()("value:", ms.Tensor([1, 2]))
    assert capsys.readouterr().out == "value: [1 2]\n"


def test_gradient_of_a_row_lookup_sums_repeated_and_negative_rows(mode):
    """An embedding-style lookup's gradient scatters rows back (a sparse product on the CPU,
    ops/array.py): repeated rows add up in order, negative indices count from the end."""
    rng = np.random.default_rng(0)
    table = rng.standard_normal((7, 5)).astype(np.float32)
    rows = np.array([[0, 3, -1], [3, 6, 3]])
    weight = rng.standard_normal((2, 3, 5)).astype(np.float32)
    grad = run_in_mode(ms.grad(lambda t: (t[ms.Tensor(rows)] * ms.Tensor(weight)).sum()), mode,
                       ms.Tensor(table))
    want = np.zeros_like(table)
    np.add.at(want, rows, weight)
    np.testing.assert_array_equal(grad.asnumpy(), want)
    nothing = run_in_mode(ms.grad(lambda t: t[ms.Tensor(np.zeros(0, np.int64))].sum()), mode,
                          ms.Tensor(table))
    np.testing.assert_array_equal(nothing.asnumpy(), np.zeros_like(table))
