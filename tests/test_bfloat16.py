"""bfloat16 as a real dtype (numpy's, through ml_dtypes): round trips, arithmetic, promotion,
gradients, both modes, checkpoints (float16 too)."""
import ml_dtypes
import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops

BF16 = np.dtype(ml_dtypes.bfloat16)


def test_round_trip_and_names():
    values = np.array([1.0, -2.5, 3.140625, 2.0 ** 100, -0.0], np.float32)   # exact in bfloat16
    t = ms.Tensor(values, ms.bfloat16)
    assert t.dtype == ms.bfloat16 and str(t.dtype) == "BFloat16" and t.dtype.is_float
    assert t.asnumpy().dtype == BF16
    np.testing.assert_array_equal(t.asnumpy().astype(np.float32), values)
    assert ms.dtype.to_type("bfloat16") is ms.bfloat16
    assert ms.Tensor(t.asnumpy()).dtype == ms.bfloat16
    # float32 -> bfloat16 rounds to nearest even, keeping 8 bits of mantissa
    rounded = ops.cast(ms.Tensor([1.0 + 2 ** -9, 1.0 + 3 * 2 ** -9], ms.float32), ms.bfloat16)
    assert ops.cast(rounded, ms.float32).asnumpy().tolist() == [1.0, 1.0 + 2 ** -7]


def test_arithmetic_matches_float32_rounded_to_bfloat16(mode):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    x, w = ms.Tensor(a, ms.bfloat16), ms.Tensor(b, ms.bfloat16)
    out = ms.jit(lambda x, w: ops.tanh(ops.matmul(x, w) * 2.0 + x.sum()))(x, w)
    assert out.dtype == ms.bfloat16
    xa, wa = a.astype(BF16).astype(np.float32), b.astype(BF16).astype(np.float32)
    want = np.tanh((xa @ wa) * 2 + xa.sum())
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), want, rtol=2 ** -6, atol=2 ** -7)


def test_promotion():
    bf, half = ms.Tensor([1.0], ms.bfloat16), ms.Tensor([1.0], ms.float16)
    assert (bf + half).dtype == ms.float32          # neither holds the other
    assert (bf + ms.Tensor([1.0], ms.float64)).dtype == ms.float64
    assert (bf + ms.Tensor([1], ms.int32)).dtype == ms.bfloat16
    assert (bf * 3.0).dtype == ms.bfloat16 and ops.exp(bf).dtype == ms.bfloat16


def test_gradient_in_bfloat16(mode):
    x = ms.Tensor([0.5, -1.0, 2.0], ms.bfloat16)
    g = ms.jit(lambda a: ms.grad(lambda z: ops.sum(z * z * z))(a))(x)
    assert g.dtype == ms.bfloat16
    np.testing.assert_allclose(g.asnumpy().astype(np.float32), [0.75, 3.0, 12.0], rtol=2 ** -7)


class Half(nn.Cell):
    def __init__(self, dtype, fill=None):
        super().__init__()
        rng = np.random.default_rng(1)
        self.weight = ms.Parameter(ms.Tensor(rng.standard_normal((2, 3)) if fill is None else
                                             np.full((2, 3), fill), dtype))
        self.bias = ms.Parameter(ms.Tensor(rng.standard_normal(2) if fill is None else
                                           np.full(2, fill), dtype))

    def construct(self, x):
        return ops.matmul(x, self.weight.T) + self.bias


@pytest.mark.parametrize("dtype", [ms.float16, ms.bfloat16])
def test_checkpoints_keep_half_precision_parameters(dtype, tmp_path):
    net = Half(dtype)
    path = str(tmp_path / "half.ckpt")
    ms.save_checkpoint(net, path)
    loaded = ms.load_checkpoint(path)
    assert loaded["weight"].dtype == dtype
    fresh = Half(dtype, fill=0.0)
    assert ms.load_param_into_net(fresh, loaded, strict_load=True) == ([], [])
    for a, b in zip(net.trainable_params(), fresh.trainable_params()):
        assert b.dtype == dtype
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    x = ms.Tensor(np.ones((1, 3)), dtype)
    np.testing.assert_array_equal(fresh(x).asnumpy(), net(x).asnumpy())
