"""dataset.transforms against numpy, and in pipelines."""
import numpy as np
import pytest
from data_helpers import rows

import minispore as ms
import minispore.dataset as ds
from minispore.dataset import transforms as T


def test_type_cast_one_hot_fill_duplicate():
    assert T.TypeCast(ms.int32)(np.array([1.9, -1.9])).dtype == np.int32
    assert T.TypeCast(np.float16)(np.array([1])).dtype == np.float16
    np.testing.assert_array_equal(T.OneHot(4)(np.array([3, 0], np.int32)),
                                  np.eye(4, dtype=np.int32)[[3, 0]])
    assert T.OneHot(3)(np.uint32(1)).dtype == np.uint32
    smooth = T.OneHot(5, smoothing_rate=0.2)(np.array(1))
    np.testing.assert_allclose(smooth, [0.05, 0.8, 0.05, 0.05, 0.05], rtol=1e-6)
    with pytest.raises(ValueError, match=r"labels must be in \[0, 3\)"):
        T.OneHot(3)(np.array(3))
    with pytest.raises(TypeError, match="int scalar or 1-D"):
        T.OneHot(3)(np.array(1.0))
    filled = T.Fill(7)(np.zeros((2, 2), np.float32))
    assert filled.dtype == np.float32 and (filled == 7).all()
    assert T.Fill("x")(np.array(["ab", "c"])).tolist() == ["x", "x"]
    a, b = T.Duplicate()(np.arange(3))
    assert a.tolist() == b.tolist() == [0, 1, 2] and a is not b


def test_concatenate_mask_pad_end_slice_unique():
    joined = T.Concatenate(0, np.array([-1]), np.array([99]))(np.array([1, 2]), np.array([3]))
    assert joined.tolist() == [-1, 1, 2, 3, 99]
    x = np.array([1, 5, 3])
    for op, want in [(T.Relational.EQ, x == 3), (T.Relational.NE, x != 3),
                     (T.Relational.GT, x > 3), (T.Relational.GE, x >= 3),
                     (T.Relational.LT, x < 3), (T.Relational.LE, x <= 3)]:
        assert T.Mask(op, 3)(x).tolist() == want.tolist()
    assert T.Mask(T.Relational.GT, 2, ms.int32)(x).tolist() == [0, 1, 1]
    assert T.PadEnd([5], -1)(x).tolist() == [1, 5, 3, -1, -1]
    assert T.PadEnd([2])(x).tolist() == [1, 5]
    assert T.PadEnd([2, None])(np.ones((1, 2))).tolist() == [[1, 1], [0, 0]]
    assert T.PadEnd([3])(np.array(["a"])).tolist() == ["a", "", ""]
    m = np.arange(12).reshape(3, 4)
    assert T.Slice(1)(x).tolist() == [5]
    assert T.Slice([0, 2], slice(1, None, 2))(m).tolist() == m[[0, 2]][:, 1::2].tolist()
    assert T.Slice(Ellipsis, [-1])(m).tolist() == m[:, [-1]].tolist()
    values, index, counts = T.Unique()(np.array([5, 1, 5, 2, 1, 5]))
    assert values.tolist() == [5, 1, 2] and index.tolist() == [0, 1, 0, 2, 1, 0]
    assert counts.tolist() == [3, 2, 1] and index.dtype == counts.dtype == np.int32


def test_compose_and_random_compositions():
    add, double = (lambda x: x + 1), (lambda x: x * 2)
    composed = T.Compose([add, T.Compose([double, add])])
    assert len(composed.transforms) == 3 and composed(np.array(1)).tolist() == 5
    assert T.RandomApply([add, double], prob=1.0)(np.array(1)).tolist() == 4
    assert T.RandomApply([add, double], prob=0.0)(np.array(1)).tolist() == 1
    ds.config.set_seed(5)
    choices = {int(T.RandomChoice([add, double, lambda x: x - 10])(np.array(3)))
               for _ in range(60)}
    assert choices == {4, 6, -7}
    orders = {int(T.RandomOrder([add, double])(np.array(3))) for _ in range(60)}
    assert orders == {8, 7}  # (3+1)*2 and 3*2+1
    with pytest.raises(ValueError, match="non-empty list"):
        T.Compose([])
    with pytest.raises(TypeError, match="callable"):
        T.RandomChoice([1, 2])


def test_random_transforms_in_a_pipeline_are_reproducible():
    data = ds.NumpySlicesDataset(np.zeros(40, np.int64), ["x"], shuffle=False)
    noisy = data.map(T.RandomChoice([lambda x: x + 1, lambda x: x + 2]), "x")
    first = [r[0] for r in rows(noisy)]
    assert set(first) == {1, 2}
    assert [r[0] for r in rows(noisy)] != first  # a new epoch draws again
    fresh = data.map(T.RandomChoice([lambda x: x + 1, lambda x: x + 2]), "x")
    assert [r[0] for r in rows(fresh)] == first  # same seed, same pipeline: same draws
