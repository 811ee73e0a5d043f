"""MindSpore Primitive classes of ops.classes_ext: attributes in __init__, inputs in the call
(values checked against numpy and MindSpore's documented examples)."""
import numpy as np
import pytest

import minispore as ms
from minispore import ops

from helpers import assert_close

T = ms.Tensor
X = np.array([[1.0, 0.0, 3.0], [4.0, 2.0, 1.0]])


def test_reductions_scans_and_selection():
    index, value = ops.ArgMaxWithValue(axis=1)(T(X))
    assert index.tolist() == [2, 0] and value.tolist() == [3.0, 4.0]
    assert_close(ops.CumSum(exclusive=True)(T(X), 1), np.array([[0.0, 1, 1], [0, 4, 6]]))
    # exclusive products with a zero: a shift, never a division
    assert_close(ops.CumProd(exclusive=True, reverse=True)(T(X), 1),
                 np.array([[0.0, 3, 1], [2, 1, 1]]))
    assert_close(ops.CumulativeLogsumexp(reverse=True)(T(X), 1),
                 np.flip(np.logaddexp.accumulate(np.flip(X, 1), 1), 1))
    values, indices = ops.TopK(sorted=True)(T(X), 2)
    assert_close(values, -np.sort(-X, 1)[:, :2])
    assert ops.Sort(axis=0, descending=True)(T(X))[0].tolist() == [[4, 2, 3], [1, 0, 1]]
    assert ops.Einsum("ij->i")(T(X)).tolist() == [4.0, 7.0]


def test_configured_classes_check_their_arguments():
    with pytest.raises(TypeError, match="TopK"):
        ops.TopK(largest=True)
    assert ops.Tril(1)(T(np.ones((2, 3)))).tolist() == [[1, 1, 0], [1, 1, 1]]
    assert repr(ops.Roll(shift=1, axis=0)) == "Roll(shift=1, axis=0)"


def test_indexing_and_linear_algebra_classes():
    assert ops.StridedSlice(shrink_axis_mask=1)(T(X), (1, 0), (2, 3), (1, 2)).tolist() == \
        [4.0, 1.0]
    assert ops.GatherNd()(T(X), T([[1, 2]])).tolist() == [1.0]
    assert ops.DiagPart()(ops.Diag()(T([1.0, 2.0]))).tolist() == [1.0, 2.0]
    assert ops.UnravelIndex()(T([5, 1]), (2, 3)).tolist() == [[1, 0], [2, 1]]
    m = np.array([[2.0, 1.0], [1.0, 3.0]])
    assert_close(ops.MatrixInverse()(T(m)), np.linalg.inv(m), rtol=1e-12)
    assert_close(ops.Cdist()(T(m), T(m)), np.linalg.norm(m[:, None] - m[None], axis=-1))
    assert_close(ops.DivNoNan()(T([1.0, 2.0]), T([0.0, 4.0])), np.float32([0.0, 0.5]))
    assert_close(ops.SquaredDifference()(T([1.0]), T([3.0])), np.float32([4.0]))


def test_random_classes_follow_the_seed():
    ms.set_seed(5)
    a = ops.StandardNormal()((3,))
    ms.set_seed(5)
    assert (ops.StandardNormal()((3,)).asnumpy() == a.asnumpy()).all()
    perm = ops.Randperm(max_length=5, pad=-1)(T(3)).tolist()
    assert sorted(perm[:3]) == [0, 1, 2] and perm[3:] == [-1, -1]
    output, mask = ops.Dropout(keep_prob=0.5)(T(np.ones((100,), np.float32)))
    assert set(np.unique(output.asnumpy())) <= {0.0, 2.0}
    assert_close(output, mask.asnumpy() * 2)


def test_nn_primitive_classes():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    assert_close(ops.Conv2D(2, 3, pad_mode="same")(T(x), T(w)),
                 ops.conv2d(T(x), T(w), None, 1, "same").asnumpy())
    assert_close(ops.MaxPool(2, 2)(T(x)), x.reshape(2, 3, 2, 2, 2, 2).max((3, 5)))
    assert_close(ops.AvgPool(2, 2)(T(x)), x.reshape(2, 3, 2, 2, 2, 2).mean((3, 5)), rtol=1e-6)
    gamma, beta = np.full((4,), 2.0, np.float32), np.full((4,), 0.5, np.float32)
    y, mean, var = ops.LayerNorm(-1, -1, 1e-5)(T(x), T(gamma), T(beta))
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * 2 + 0.5
    assert_close(y, want, rtol=1e-5, atol=1e-5)
    assert mean.shape == var.shape == (2, 3, 4, 1)
    moving_mean = ms.Parameter(T(np.zeros(3, np.float32)), name="moving_mean")
    moving_var = ms.Parameter(T(np.ones(3, np.float32)), name="moving_var")
    ones, zeros = T(np.ones(3, np.float32)), T(np.zeros(3, np.float32))
    y, batch_mean, batch_var, _, _ = ops.BatchNorm(is_training=True, momentum=0.1)(
        T(x), ones, zeros, moving_mean, moving_var)
    assert_close(batch_mean, x.mean((0, 2, 3)), rtol=1e-5, atol=1e-6)
    assert_close(moving_mean, 0.1 * x.mean((0, 2, 3)), rtol=1e-5, atol=1e-6)
    assert_close(y, (x - x.mean((0, 2, 3), keepdims=True))
                 / np.sqrt(x.var((0, 2, 3), keepdims=True) + 1e-5), rtol=1e-4, atol=1e-5)
