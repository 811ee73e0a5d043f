"""The thin cells over existing ops (math, linear algebra, image, Linear, EmbeddingLookup,
TimeDistributed, 1-D/3-D unpooling, AdaptiveMaxPool3d): values against numpy / scipy from
MindSpore's documented formulas, and against PyTorch where the operation is the same. Both
modes are covered by the parity walk (parity_cases_math_image.py)."""
import doctest

import numpy as np
import pytest
from scipy import special

import minispore as ms
from minispore import mint, nn

T = ms.Tensor


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("module", ["math_cells", "image", "basic", "misc", "pooling_ext"])
def test_docstring_examples_hold(module):
    import importlib
    result = doctest.testmod(importlib.import_module("minispore.nn.layers." + module),
                             extraglobs={"ms": ms, "np": np})
    assert result.attempted > 0 and result.failed == 0


# ***** Linear, reductions, special functions *****

def test_linear_is_dense_with_pytorch_arguments():
    layer = nn.Linear(4, 3, bias=False)
    assert layer.bias is None and tuple(layer.weight.shape) == (3, 4)
    x = rand(2, 5, 4)
    np.testing.assert_allclose(layer(T(x)).asnumpy(), x @ layer.weight.asnumpy().T, rtol=1e-5)
    with_bias = nn.Linear(4, 3, weight_init="ones", bias_init="zeros")
    np.testing.assert_allclose(with_bias(T(x)).asnumpy(), np.repeat(x.sum(-1, keepdims=True), 3,
                                                                    -1), rtol=1e-5)
    assert mint.nn.Linear is nn.Linear


def test_norm_reduce_log_sum_exp_moments():
    x = rand(3, 4, 5)
    np.testing.assert_allclose(nn.Norm()(T(x)).asnumpy(), np.linalg.norm(x), rtol=1e-5)
    np.testing.assert_allclose(nn.Norm((0, 2), keep_dims=True)(T(x)).asnumpy(),
                               np.sqrt((x ** 2).sum((0, 2), keepdims=True)), rtol=1e-5)
    big = x * 100 + 500  # exp overflows float32: the maximum must be taken out first
    np.testing.assert_allclose(nn.ReduceLogSumExp(1)(T(big)).asnumpy(),
                               special.logsumexp(big.astype(np.float64), 1), rtol=1e-6)
    np.testing.assert_allclose(nn.ReduceLogSumExp((0, 2), keep_dims=True)(T(x)).asnumpy(),
                               special.logsumexp(x, (0, 2), keepdims=True), rtol=1e-5)
    mean, var = nn.Moments(axis=(0, 1))(T(x))
    np.testing.assert_allclose(mean.asnumpy(), x.mean((0, 1)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), x.var((0, 1)), rtol=1e-5)
    mean, var = nn.Moments(keep_dims=True)(T(x))
    assert mean.shape == var.shape == (1, 1, 1)
    np.testing.assert_allclose(var.asnumpy().ravel(), [x.var()], rtol=1e-5)
    with pytest.raises(TypeError, match="axis must be"):
        nn.Norm(axis=1.5)


def test_gamma_family_matches_scipy_with_gradients():
    x = np.abs(rand(6)) + 0.3
    y = np.abs(rand(6, seed=1)) + 0.3
    np.testing.assert_allclose(nn.LGamma()(T(x)).asnumpy(), special.gammaln(x), rtol=1e-5)
    np.testing.assert_allclose(nn.DiGamma()(T(x)).asnumpy(), special.digamma(x), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(nn.LBeta()(T(x), T(y)).asnumpy(), special.betaln(x, y), rtol=1e-5,
                               atol=1e-6)
    gx, gy = ms.grad(lambda a, b: nn.LBeta()(a, b).sum(), (0, 1))(T(x), T(y))
    np.testing.assert_allclose(gx.asnumpy(), special.digamma(x) - special.digamma(x + y),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gy.asnumpy(), special.digamma(y) - special.digamma(x + y),
                               rtol=1e-4, atol=1e-5)


# ***** linear algebra *****

@pytest.mark.parametrize("shapes, t1, t2", [(((2, 3, 4), (4, 5)), False, False),
                                            (((3, 4), (2, 5, 4)), False, True),
                                            (((4, 3), (4,)), True, False),
                                            (((4,), (2, 4, 3)), False, False)])
def test_matmul_broadcasts_like_numpy(shapes, t1, t2):
    a, b = rand(*shapes[0]), rand(*shapes[1], seed=1)
    want = np.matmul(np.swapaxes(a, -1, -2) if t1 else a, np.swapaxes(b, -1, -2) if t2 else b)
    got = nn.MatMul(t1, t2)(T(a), T(b)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_inverse_determinant_and_diagonals():
    m = rand(2, 3, 3) + 3 * np.eye(3, dtype=np.float32)
    np.testing.assert_allclose(nn.MatInverse()(T(m)).asnumpy(), np.linalg.inv(m), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(nn.MatDet()(T(m)).asnumpy(), np.linalg.det(m), rtol=1e-4)
    v = rand(2, 4)
    np.testing.assert_array_equal(nn.MatrixDiag()(T(v)).asnumpy(),
                                  np.stack([np.diag(r) for r in v]))
    rect = rand(2, 3, 5)
    np.testing.assert_array_equal(nn.MatrixDiagPart()(T(rect)).asnumpy(),
                                  np.diagonal(rect, 0, -2, -1))
    d = rand(2, 3, seed=2)
    want = rect.copy()
    want[:, range(3), range(3)] = d
    np.testing.assert_array_equal(nn.MatrixSetDiag()(T(rect), T(d)).asnumpy(), want)


# ***** OneHot, Range, L1Regularizer *****

def test_one_hot_axis_values_and_dtype():
    idx = np.array([[0, 2], [3, 1]], np.int32)
    out = nn.OneHot(axis=0, depth=4, on_value=5.0, off_value=-1.0, dtype=ms.float16)(T(idx))
    want = np.where(np.moveaxis(np.eye(4)[idx], -1, 0) == 1, 5.0, -1.0)
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy(), want)


def test_range_dtypes_and_errors():
    assert nn.Range(5)().tolist() == list(range(5))
    assert nn.Range(1, 8, 2)().dtype == ms.int32
    out = nn.Range(0.5, 2.0, 0.5)()
    assert out.dtype == ms.float32 and out.tolist() == [0.5, 1.0, 1.5]
    assert nn.Range(5, 1, -2)().tolist() == [5, 3]
    with pytest.raises(ValueError, match="delta can not be zero"):
        nn.Range(0, 4, 0)


def test_l1_regularizer():
    w = rand(3, 4)
    np.testing.assert_allclose(nn.L1Regularizer(0.25)(T(w)).asnumpy(), 0.25 * np.abs(w).sum(),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="> 0"):
        nn.L1Regularizer(0)
    with pytest.raises(TypeError, match="int or a float"):
        nn.L1Regularizer("1")


# ***** image cells *****

def test_image_gradients():
    img = rand(2, 3, 4, 5)
    dy, dx = nn.ImageGradients()(T(img))
    want_dy = np.zeros_like(img)
    want_dy[:, :, :-1] = img[:, :, 1:] - img[:, :, :-1]
    want_dx = np.zeros_like(img)
    want_dx[..., :-1] = img[..., 1:] - img[..., :-1]
    np.testing.assert_allclose(dy.asnumpy(), want_dy, rtol=1e-6)
    np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-6)
    dy, dx = nn.ImageGradients()(T(img[:, :, :1, :1]))
    assert not dy.asnumpy().any() and not dx.asnumpy().any()
    with pytest.raises(ValueError, match="4-D"):
        nn.ImageGradients()(T(img[0]))


def test_psnr_float_and_uint8():
    a, b = np.random.default_rng(0).random((2, 3, 6, 6)).astype(np.float32), \
        np.random.default_rng(1).random((2, 3, 6, 6)).astype(np.float32)
    mse = ((a - b) ** 2).mean((1, 2, 3))
    np.testing.assert_allclose(nn.PSNR()(T(a), T(b)).asnumpy(), 10 * np.log10(1 / mse), rtol=1e-5)
    np.testing.assert_allclose(nn.PSNR(2.0)(T(a), T(b)).asnumpy(), 10 * np.log10(4 / mse),
                               rtol=1e-5)
    ua, ub = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    mse8 = ((ua.astype(np.float64) - ub) ** 2).mean((1, 2, 3))
    np.testing.assert_allclose(nn.PSNR(255)(T(ua), T(ub)).asnumpy(),
                               10 * np.log10(255 ** 2 / mse8), rtol=1e-4)
    with pytest.raises(TypeError, match="same shape and dtype"):
        nn.PSNR()(T(a), T(b[:1]))


def _ssim_reference(a, b, size, sigma, k1, k2, max_val, with_cs=False):
    """The SSIM formula with numpy: 'valid' Gaussian-weighted local statistics (with_cs: the
    SSIM and contrast-structure maps)."""
    from numpy.lib.stride_tricks import sliding_window_view
    r = np.arange(size) - (size - 1) // 2 if size % 2 else np.arange(size) - size // 2 + 1
    g = np.exp(-(r[:, None] ** 2 + r[None, :] ** 2) / (2 * sigma ** 2))
    g /= g.sum()

    def blur(x):
        return np.einsum("nchwij,ij->nchw", sliding_window_view(x, (size, size), (2, 3)), g)
    a, b = a.astype(np.float64), b.astype(np.float64)
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu1, mu2 = blur(a), blur(b)
    s1, s2, s12 = blur(a * a) - mu1 ** 2, blur(b * b) - mu2 ** 2, blur(a * b) - mu1 * mu2
    ssim = (2 * mu1 * mu2 + c1) * (2 * s12 + c2) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s1 + s2 + c2))
    if with_cs:
        return ssim, (2 * s12 + c2) / (s1 + s2 + c2)
    return ssim.mean((1, 2, 3))


@pytest.mark.parametrize("kwargs", [{}, {"filter_size": 4, "filter_sigma": 1.0},
                                    {"max_val": 2.0, "k1": 0.02, "k2": 0.05}])
def test_ssim_matches_its_formula(kwargs):
    rng = np.random.default_rng(0)
    a = rng.random((2, 3, 16, 14)).astype(np.float32)
    b = np.clip(a + rng.normal(0, 0.1, a.shape), 0, 1).astype(np.float32)
    full = {"max_val": 1.0, "filter_size": 11, "filter_sigma": 1.5, "k1": 0.01, "k2": 0.03,
            **kwargs}
    got = nn.SSIM(**kwargs)(T(a), T(b)).asnumpy()
    want = _ssim_reference(a, b, full["filter_size"], full["filter_sigma"], full["k1"],
                           full["k2"], full["max_val"])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(nn.SSIM(**kwargs)(T(a), T(a)).asnumpy(), [1.0, 1.0], rtol=1e-5)
    with pytest.raises(ValueError, match="smaller than the 20 pixels"):
        nn.SSIM(filter_size=20)(T(a), T(b))


def test_ms_ssim_matches_its_formula():
    rng = np.random.default_rng(1)
    a = rng.random((2, 3, 40, 36)).astype(np.float32)
    b = np.clip(a + rng.normal(0, 0.15, a.shape), 0, 1).astype(np.float32)
    powers = (0.2, 0.3, 0.5)
    got = nn.MSSSIM(power_factors=powers, filter_size=7, filter_sigma=1.2)(T(a), T(b)).asnumpy()
    x, y, factors = a.astype(np.float64), b.astype(np.float64), []
    for level in range(3):
        ssim, cs = _ssim_reference(x, y, 7, 1.2, 0.01, 0.03, 1.0, with_cs=True)
        factors.append(np.maximum((ssim if level == 2 else cs).mean((2, 3)), 0))
        n, c, h, w = x.shape
        x = x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).mean((3, 5))
        y = y[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).mean((3, 5))
    want = np.prod(np.stack(factors, -1) ** np.array(powers), -1).mean(-1)
    np.testing.assert_allclose(got, want, rtol=1e-4)
    uint8 = (a * 255).astype(np.uint8)
    assert nn.MSSSIM(255, powers, 7, 1.2)(T(uint8), T(uint8)).asnumpy() == pytest.approx([1, 1])
    with pytest.raises(ValueError, match="smaller than the 28 pixels"):
        nn.MSSSIM(power_factors=powers, filter_size=7)(T(a[:, :, :20]), T(b[:, :, :20]))


def test_central_crop():
    img = rand(2, 3, 7, 10)
    out = nn.CentralCrop(0.5)(T(img)).asnumpy()
    top, left = int((7 - np.float32(3.5)) / 2), int((10 - np.float32(5.0)) / 2)
    np.testing.assert_array_equal(out, img[:, :, top:7 - top, left:10 - left])
    assert nn.CentralCrop(0.5)(T(img[0])).shape == (3, 5, 6)
    assert nn.CentralCrop(1.0)(T(img)).shape == img.shape
    with pytest.raises(ValueError, match=r"\(0.0, 1.0\]"):
        nn.CentralCrop(1.5)
    with pytest.raises(TypeError, match="must be a float"):
        nn.CentralCrop(1)


def test_channel_shuffle_matches_torch():
    torch = pytest.importorskip("torch")
    x = rand(2, 6, 3, 4)
    np.testing.assert_array_equal(nn.ChannelShuffle(3)(T(x)).asnumpy(),
                                  torch.nn.ChannelShuffle(3)(torch.from_numpy(x)).numpy())
    with pytest.raises(ValueError, match="multiple of groups=4"):
        nn.ChannelShuffle(4)(T(x))


# ***** TimeDistributed, EmbeddingLookup *****

@pytest.mark.parametrize("time_axis, reshape_with_axis", [(1, 0), (0, 1), (1, None), (-2, 0),
                                                          (0, None)])
def test_time_distributed_applies_the_layer_per_step(time_axis, reshape_with_axis):
    ms.set_seed(0)
    dense = nn.Dense(4, 3)
    x = rand(2, 5, 4)
    out = nn.TimeDistributed(dense, time_axis, reshape_with_axis)(T(x)).asnumpy()
    w, b = dense.weight.asnumpy(), dense.bias.asnumpy()
    np.testing.assert_allclose(out, x @ w.T + b, rtol=1e-5, atol=1e-6)


def test_time_distributed_moves_the_time_axis_next_to_the_merged_one():
    x = rand(3, 2, 4, 5)
    layer = nn.Dense(5, 2)
    w, b = layer.weight.asnumpy(), layer.bias.asnumpy()
    # time (axis 0, 3 steps) goes right before axis 2: (2, 3, 4, 5) -> (2, 12, 5) -> Dense
    got = nn.TimeDistributed(layer, time_axis=0, reshape_with_axis=2)(T(x)).asnumpy()
    np.testing.assert_allclose(got, np.transpose(x, (1, 0, 2, 3)) @ w.T + b, rtol=1e-5,
                               atol=1e-6)
    # merged with the last axis: time goes just before it, (2, 4, 3, 5) -> (2, 4, 15)
    y = rand(3, 2, 4, 5, seed=1)
    conv_free = nn.TimeDistributed(nn.Tanh(), time_axis=0, reshape_with_axis=-1)(T(y))
    np.testing.assert_allclose(conv_free.asnumpy(), np.tanh(np.transpose(y, (1, 2, 0, 3))),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="at least 3 axes"):
        nn.TimeDistributed(layer, 0)(T(x[0, 0]))
    with pytest.raises(TypeError, match="Cell or a Primitive"):
        nn.TimeDistributed(3, 0)


def test_embedding_lookup_and_max_norm():
    table = nn.EmbeddingLookup(6, 4, param_init="uniform", target="DEVICE")
    ids = np.array([[0, 5], [2, 2]], np.int32)
    rows = table.embedding_table.asnumpy()[ids]
    np.testing.assert_array_equal(table(T(ids)).asnumpy(), rows)
    clipped = nn.EmbeddingLookup(6, 4, param_init=T(rows.reshape(-1, 4)[[0, 1, 2, 2, 3, 3]] * 5),
                                 max_norm=0.5)
    out = clipped(T(ids)).asnumpy()
    src = clipped.embedding_table.asnumpy()[ids]
    norms = np.linalg.norm(src, axis=-1, keepdims=True)
    np.testing.assert_allclose(out, src * 0.5 / np.maximum(norms, 0.5), rtol=1e-5)
    with pytest.raises(ValueError, match="target"):
        nn.EmbeddingLookup(6, 4, target="GPU")
    with pytest.raises(TypeError, match="integer tensor"):
        table(T(ids.astype(np.float32)))


# ***** pooling *****

def test_adaptive_max_pool3d_and_unpooling_match_torch():
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x = rand(2, 3, 5, 6, 7)
    values, indices = nn.AdaptiveMaxPool3d((2, 3, 4), return_indices=True)(T(x))
    tv, ti = tf.adaptive_max_pool3d(torch.from_numpy(x), (2, 3, 4), return_indices=True)
    np.testing.assert_allclose(values.asnumpy(), tv.numpy())
    np.testing.assert_array_equal(indices.asnumpy(), ti.numpy())
    pv, pi = tf.max_pool3d(torch.from_numpy(x), 2, return_indices=True)
    got = nn.MaxUnpool3d(2, output_size=(5, 6, 7))(T(pv.numpy()), T(pi.numpy()))
    np.testing.assert_allclose(got.asnumpy(), tf.max_unpool3d(pv, pi, 2, output_size=(5, 6, 7)))
    x1 = rand(2, 3, 9)
    pv, pi = tf.max_pool1d(torch.from_numpy(x1), 3, 2, 1, return_indices=True)
    got = nn.MaxUnpool1d(3, 2, 1)(T(pv.numpy()), T(pi.numpy()))
    np.testing.assert_allclose(got.asnumpy(), tf.max_unpool1d(pv, pi, 3, 2, 1).numpy())
    got = ms.ops.max_unpool1d(T(pv.numpy()[0]), T(pi.numpy()[0]), 3, 2, 1, output_size=(10,))
    np.testing.assert_allclose(got.asnumpy(),
                               tf.max_unpool1d(pv[0], pi[0], 3, 2, 1, output_size=(10,)).numpy())
