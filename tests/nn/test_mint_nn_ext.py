"""mint.nn / mint.nn.functional names added for PyTorch-style programs: values against
PyTorch (same inputs, same weights) in both modes, layers through the mode-parity harness."""
import doctest

import numpy as np
import pytest
from helpers import run_in_mode
from parity_harness import Setup, assert_same_training, on_input, randn

import minispore as ms
from minispore import mint, nn
from minispore.mint.nn import functional as MF

torch = pytest.importorskip("torch")
TF = torch.nn.functional
T = ms.Tensor


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def tt(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def check(mode, fn, torch_fn, *arrays, rtol=1e-5, atol=1e-5):
    got = run_in_mode(fn, mode, *[T(a) for a in arrays])
    want = torch_fn(*[tt(a) for a in arrays])
    got, want = (got if isinstance(got, tuple) else (got,)), (
        want if isinstance(want, tuple) else (want,))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("module", [MF, mint.nn])
def test_docstring_examples_hold(module):
    result = doctest.testmod(module, extraglobs={"ms": ms, "np": np, "mint": mint, "F": MF})
    assert result.attempted > 0 and result.failed == 0


# ***** functional, against torch.nn.functional *****

@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "padding": 2, "dilation": 2, "groups": 2},
                                    {"padding": "same"}, {"padding": "valid", "stride": 3}])
def test_conv1d(mode, kwargs):
    x, w, b = rand(2, 4, 11), rand(6, 4 // kwargs.get("groups", 1), 3, seed=1), rand(6, seed=2)
    check(mode, lambda x, w, b: MF.conv1d(x, w, b, **kwargs),
          lambda x, w, b: TF.conv1d(x, w, b, **kwargs), x, w, b)


def test_conv1d_unbatched(mode):
    x, w = rand(4, 9), rand(3, 4, 2, seed=1)
    check(mode, lambda x, w: MF.conv1d(x, w, padding=1), lambda x, w: TF.conv1d(x, w, padding=1),
          x, w)


@pytest.mark.parametrize("kwargs", [{}, {"stride": (2, 1, 2), "padding": (1, 0, 2), "groups": 2},
                                    {"padding": "same", "dilation": 2}])
def test_conv3d(mode, kwargs):
    x = rand(2, 4, 6, 5, 7)
    w, b = rand(2, 4 // kwargs.get("groups", 1), 3, 2, 3, seed=1), rand(2, seed=2)
    check(mode, lambda x, w, b: MF.conv3d(x, w, b, **kwargs),
          lambda x, w, b: TF.conv3d(x, w, b, **kwargs), x, w, b)


@pytest.mark.parametrize("kwargs", [{}, {"stride": 2, "padding": 1, "output_padding": 1},
                                    {"stride": (2, 3), "padding": (0, 1), "groups": 2,
                                     "dilation": (1, 2)}])
def test_conv_transpose2d(mode, kwargs):
    x, w, b = rand(2, 4, 5, 4), rand(4, 3, 3, 2, seed=1), rand(3 * kwargs.get("groups", 1),
                                                              seed=2)
    check(mode, lambda x, w, b: MF.conv_transpose2d(x, w, b, **kwargs),
          lambda x, w, b: TF.conv_transpose2d(x, w, b, **kwargs), x, w, b)


@pytest.mark.parametrize("args, kwargs", [((3,), {}), ((3, 2, 1), {"count_include_pad": False}),
                                          ((2,), {"ceil_mode": True, "stride": 3})])
def test_avg_pool1d(mode, args, kwargs):
    check(mode, lambda x: MF.avg_pool1d(x, *args, **kwargs),
          lambda x: TF.avg_pool1d(x, *args, **kwargs), rand(2, 3, 10))


@pytest.mark.parametrize("args, kwargs", [((2,), {}), ((3, 2, 1), {"count_include_pad": False}),
                                          ((2,), {"divisor_override": 3})])
def test_avg_pool3d(mode, args, kwargs):
    check(mode, lambda x: MF.avg_pool3d(x, *args, **kwargs),
          lambda x: TF.avg_pool3d(x, *args, **kwargs), rand(2, 2, 5, 6, 6))


def test_adaptive_pools(mode):
    x1, x2, x3 = rand(2, 3, 10), rand(2, 3, 7, 9), rand(1, 2, 5, 6, 7)
    check(mode, lambda x: MF.adaptive_avg_pool1d(x, 4), lambda x: TF.adaptive_avg_pool1d(x, 4),
          x1)
    check(mode, lambda x: MF.adaptive_avg_pool2d(x, (3, 4)),
          lambda x: TF.adaptive_avg_pool2d(x, (3, 4)), x2)
    check(mode, lambda x: MF.adaptive_avg_pool3d(x, (2, 3, 4)),
          lambda x: TF.adaptive_avg_pool3d(x, (2, 3, 4)), x3)
    check(mode, lambda x: MF.adaptive_max_pool1d(x, 3, return_indices=True),
          lambda x: TF.adaptive_max_pool1d(x, 3, return_indices=True), x1)
    check(mode, lambda x: MF.adaptive_max_pool1d(x, 4), lambda x: TF.adaptive_max_pool1d(x, 4),
          x1)
    check(mode, lambda x: MF.adaptive_max_pool2d(x, (3, 4), True),
          lambda x: TF.adaptive_max_pool2d(x, (3, 4), True), x2)


def test_fold_unfold_pixel_shuffle_prelu(mode):
    x = rand(2, 3, 6, 5)
    check(mode, lambda x: MF.unfold(x, (2, 3), dilation=1, padding=1, stride=2),
          lambda x: TF.unfold(x, (2, 3), dilation=1, padding=1, stride=2), x)
    cols = rand(2, 3 * 4, 9)
    check(mode, lambda c: MF.fold(c, (4, 4), 2, stride=1),
          lambda c: TF.fold(c, (4, 4), 2, stride=1), cols)
    check(mode, lambda x: MF.pixel_shuffle(x, 2), lambda x: TF.pixel_shuffle(x, 2),
          rand(2, 8, 3, 3))
    check(mode, lambda x, w: MF.prelu(x, w), lambda x, w: TF.prelu(x, w), x,
          np.array([0.1, 0.2, 0.3], np.float32))


@pytest.mark.parametrize("kwargs", [{"scale_factor": 2.0, "mode": "nearest"},
                                    {"size": (5, 7), "mode": "bilinear", "align_corners": True},
                                    {"size": (5, 7), "mode": "bilinear", "align_corners": False},
                                    {"scale_factor": 1.5, "mode": "bicubic",
                                     "align_corners": False}])
def test_interpolate_and_upsample(mode, kwargs):
    x = rand(1, 2, 4, 4)
    check(mode, lambda x: MF.interpolate(x, **kwargs), lambda x: TF.interpolate(x, **kwargs), x)
    check(mode, lambda x: MF.upsample(x, **kwargs), lambda x: TF.interpolate(x, **kwargs), x)


def test_max_unpool2d(mode):
    x = rand(2, 3, 6, 6)
    values, indices = TF.max_pool2d(tt(x), 2, return_indices=True)
    got = run_in_mode(lambda v, i: MF.max_unpool2d(v, i, 2), mode, T(values.numpy()),
                      T(indices.numpy()))
    np.testing.assert_allclose(got.asnumpy(), TF.max_unpool2d(values, indices, 2).numpy())


def test_in_place_activations_write_into_their_input():
    x = rand(3, 4) * 3
    for fn, ref in [(lambda t: MF.elu_(t, 0.5), lambda t: TF.elu_(t, 0.5)),
                    (lambda t: MF.hardtanh_(t, -0.5, 2.0), lambda t: TF.hardtanh_(t, -0.5, 2.0)),
                    (lambda t: MF.threshold_(t, 0.2, -7.0),
                     lambda t: TF.threshold_(t, 0.2, -7.0))]:
        mine, theirs = T(x.copy()), tt(x.copy())
        out = fn(mine)
        ref(theirs)
        np.testing.assert_allclose(mine.asnumpy(), theirs.numpy(), rtol=1e-6)
        np.testing.assert_allclose(out.asnumpy(), theirs.numpy(), rtol=1e-6)


def test_in_place_activation_in_graph_mode():
    @ms.jit
    def f(x):
        y = x * 1.0
        MF.hardtanh_(y)
        return y
    x = rand(3, 4) * 3
    np.testing.assert_allclose(f(T(x)).asnumpy(), np.clip(x, -1, 1))


def test_dropout2d_zeroes_whole_channels():
    ms.set_seed(3)
    x = np.ones((8, 16, 3, 3), np.float32)
    out = MF.dropout2d(T(x), 0.25).asnumpy()
    per_channel = out.reshape(8, 16, 9)
    assert set(np.unique(per_channel.std(-1))) == {0.0}  # a channel is all kept or all zero
    kept = per_channel[..., 0] != 0
    np.testing.assert_allclose(per_channel[kept], 1 / 0.75)
    assert 0.55 < kept.mean() < 0.95
    np.testing.assert_array_equal(MF.dropout2d(T(x), 0.25, training=False).asnumpy(), x)
    y = T(x.copy())
    MF.dropout2d(y, 0.5, inplace=True)
    assert (y.asnumpy() == 0).any()


# ***** layers: torch values with the same weights, and mode parity *****

def _copy_weights(mine, theirs):
    theirs.weight.data = tt(mine.weight.asnumpy())
    if theirs.bias is not None:
        theirs.bias.data = tt(mine.bias.asnumpy())


@pytest.mark.parametrize("make", [
    lambda: (mint.nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2),
             torch.nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 9)),
    lambda: (mint.nn.Conv1d(2, 3, 4, padding="same", bias=False),
             torch.nn.Conv1d(2, 3, 4, padding="same", bias=False), (2, 2, 7)),
    lambda: (mint.nn.Conv3d(2, 4, (2, 3, 3), padding=(1, 1, 0), dilation=(1, 1, 2)),
             torch.nn.Conv3d(2, 4, (2, 3, 3), padding=(1, 1, 0), dilation=(1, 1, 2)),
             (1, 2, 4, 5, 7)),
    lambda: (mint.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
             torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
             (2, 4, 4, 5)),
])
def test_conv_layers_match_torch(make):
    mine, theirs, shape = make()
    assert tuple(mine.weight.shape) == tuple(theirs.weight.shape)
    _copy_weights(mine, theirs)
    x = rand(*shape)
    np.testing.assert_allclose(mine(T(x)).asnumpy(), theirs(tt(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-5)


def test_pool_upsample_and_loss_layers_match_torch():
    x1, x2, x3 = rand(2, 3, 9), rand(2, 3, 4, 5), rand(1, 2, 4, 6, 6)
    pairs = [(mint.nn.AvgPool1d(3, 2, 1), torch.nn.AvgPool1d(3, 2, 1), x1),
             (mint.nn.AvgPool3d(2, divisor_override=5), torch.nn.AvgPool3d(2, divisor_override=5),
              x3),
             (mint.nn.UpsamplingNearest2d(scale_factor=2), torch.nn.UpsamplingNearest2d(
                 scale_factor=2), x2),
             (mint.nn.UpsamplingBilinear2d(size=(7, 9)), torch.nn.UpsamplingBilinear2d(
                 size=(7, 9)), x2)]
    for mine, theirs, x in pairs:
        np.testing.assert_allclose(mine(T(x)).asnumpy(), theirs(tt(x)).numpy(), rtol=1e-5,
                                   atol=1e-6)
    a, b = rand(4, 5) * 2, rand(4, 5, seed=1)
    for kwargs in ({}, {"reduction": "sum", "beta": 0.5}, {"reduction": "none", "beta": 2.0}):
        np.testing.assert_allclose(mint.nn.SmoothL1Loss(**kwargs)(T(a), T(b)).asnumpy(),
                                   torch.nn.SmoothL1Loss(**kwargs)(tt(a), tt(b)).numpy(),
                                   rtol=1e-6)
    values, indices = TF.max_pool2d(tt(x2), 2, return_indices=True)
    got = mint.nn.MaxUnpool2d(2)(T(values.numpy()), T(indices.numpy()), output_size=(4, 5))
    np.testing.assert_allclose(got.asnumpy(),
                               torch.nn.MaxUnpool2d(2)(values, indices, output_size=(4, 5)))
    with pytest.raises(ValueError, match="exactly one of size and scale_factor"):
        mint.nn.UpsamplingNearest2d()


def test_sync_batch_norm_on_one_process_is_batch_norm_with_torch_momentum():
    x = rand(4, 3, 5, 5)
    mine, theirs = mint.nn.SyncBatchNorm(3, momentum=0.3), torch.nn.BatchNorm2d(3, momentum=0.3)
    mine.set_train(True)
    np.testing.assert_allclose(mine(T(x)).asnumpy(), theirs(tt(x)).detach().numpy(), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(mine.moving_mean.asnumpy(), theirs.running_mean.numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mine.moving_variance.asnumpy(), theirs.running_var.numpy(),
                               rtol=1e-5)




@pytest.mark.parametrize("build", [
    lambda: on_input(mint.nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 9),
                     (2, 6, 5)),
    lambda: on_input(mint.nn.Conv3d(2, 3, 3, padding="same"), (2, 2, 4, 5, 5), (2, 3, 4, 5, 5)),
    lambda: on_input(mint.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1),
                     (2, 3, 4, 4), (2, 2, 8, 8)),
    lambda: Setup(nn.SequentialCell([mint.nn.Conv1d(3, 3, 3, padding=1), mint.nn.AvgPool1d(2)]),
                  randn((2, 3, 8), 1), randn((2, 3, 4), 2)),
    lambda: Setup(nn.SequentialCell([mint.nn.Conv3d(2, 2, 1), mint.nn.AvgPool3d(2)]),
                  randn((2, 2, 4, 4, 4), 1), randn((2, 2, 2, 2, 2), 2)),
    lambda: Setup(nn.SequentialCell([nn.Conv2d(2, 2, 3, has_bias=True),
                                     mint.nn.UpsamplingBilinear2d(scale_factor=2)]),
                  randn((2, 2, 3, 3), 1), randn((2, 2, 6, 6), 2)),
    lambda: Setup(nn.SequentialCell([nn.Conv2d(2, 2, 3, has_bias=True),
                                     mint.nn.UpsamplingNearest2d(size=(5, 4))]),
                  randn((2, 2, 3, 3), 1), randn((2, 2, 5, 4), 2)),
    lambda: Setup(nn.SequentialCell([nn.Conv2d(2, 3, 3, has_bias=True), mint.nn.SyncBatchNorm(3)]),
                  randn((2, 2, 4, 4), 1), randn((2, 3, 4, 4), 2)),
    lambda: Setup(nn.Dense(4, 3), randn((5, 4), 1), randn((5, 3), 2),
                  loss_fn=mint.nn.SmoothL1Loss(beta=0.5)),
    lambda: Setup(nn.SequentialCell([nn.Conv2d(2, 2, 3, has_bias=True), _UnpoolOnly()]),
                  randn((2, 2, 4, 4), 1), randn((2, 2, 4, 4), 2)),
], ids=["Conv1d", "Conv3d", "ConvTranspose2d", "AvgPool1d", "AvgPool3d", "UpsamplingBilinear2d",
        "UpsamplingNearest2d", "SyncBatchNorm", "SmoothL1Loss", "MaxUnpool2d"])
def test_layers_train_the_same_in_both_modes(build):
    assert_same_training(build)


class _UnpoolOnly(nn.Cell):
    """MaxPool2d with indices, then mint.nn.MaxUnpool2d with the output size at call time."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(2, 2, return_indices=True)
        self.unpool = mint.nn.MaxUnpool2d(2)

    def construct(self, x):
        values, indices = self.pool(x)
        return self.unpool(values, indices, (4, 4))


def test_mint_layer_errors():
    with pytest.raises(NotImplementedError, match="padding_mode 'reflect'"):
        mint.nn.Conv1d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="multiples of groups"):
        mint.nn.Conv3d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding must be an int"):
        MF.conv1d(T(rand(1, 2, 5)), T(rand(2, 2, 3)), padding="full")


# ***** grid_sample (ops.grid_sample, composed from ops) *****

@pytest.mark.parametrize("spatial", [2, 3])
@pytest.mark.parametrize("mode_name", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_torch(mode, spatial, mode_name, padding_mode, align_corners):
    rng = np.random.default_rng(spatial)
    shape, grid_shape = ((2, 3, 5, 6), (2, 4, 7, 2)) if spatial == 2 else \
        ((1, 2, 4, 5, 6), (1, 3, 2, 4, 3))
    x = rng.standard_normal(shape).astype(np.float32)
    grid = (rng.random(grid_shape) * 2.6 - 1.3).astype(np.float32)  # some points outside
    check(mode, lambda x, g: MF.grid_sample(x, g, mode_name, padding_mode, align_corners),
          lambda x, g: TF.grid_sample(x, g, mode_name, padding_mode, align_corners), x, grid)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_gradients_match_torch(mode, padding_mode):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 2, 5, 4)).astype(np.float32)
    grid = (rng.random((2, 3, 3, 2)) * 2.4 - 1.2).astype(np.float32)
    weights = rng.standard_normal((2, 2, 3, 3)).astype(np.float32)

    def loss(x, g):
        return (ms.ops.grid_sample(x, g, "bilinear", padding_mode, False) * T(weights)).sum()
    gx, gg = run_in_mode(lambda x, g: ms.grad(loss, (0, 1))(x, g), mode, T(x), T(grid))
    tx, tg = tt(x).requires_grad_(), tt(grid).requires_grad_()
    (TF.grid_sample(tx, tg, "bilinear", padding_mode, False) * tt(weights)).sum().backward()
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gg.asnumpy(), tg.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_grid_sample_errors():
    x = T(rand(1, 1, 3, 3))
    with pytest.raises(ValueError, match="mode must be one of"):
        ms.ops.grid_sample(x, T(rand(1, 2, 2, 2)), mode="bicubic")
    with pytest.raises(ValueError, match="padding_mode"):
        ms.ops.grid_sample(x, T(rand(1, 2, 2, 2)), padding_mode="wrap")
    with pytest.raises(Exception, match="grid"):
        ms.ops.grid_sample(x, T(rand(1, 2, 2, 3)))
    assert MF.grid_sample is ms.ops.grid_sample


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(mode, align_corners):
    rng = np.random.default_rng(3)
    for theta_shape, size in [((2, 2, 3), (2, 3, 4, 5)), ((2, 3, 4), (2, 1, 3, 4, 5))]:
        theta = rng.standard_normal(theta_shape).astype(np.float32)
        check(mode, lambda t: ms.ops.affine_grid(t, size, align_corners),
              lambda t: TF.affine_grid(t, size, align_corners), theta)
    with pytest.raises(Exception, match="theta must be"):
        ms.ops.affine_grid(T(rand(2, 2, 3)), (2, 1, 3, 4, 5))


def test_spatial_transformer_gradient_matches_torch(mode):
    """affine_grid then grid_sample: the gradient reaches theta, as in an STN."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 6, 5)).astype(np.float32)
    theta = (np.array([[1.0, 0.1, 0.05], [-0.1, 0.9, 0.0]]) + rng.normal(0, 0.1, (2, 2, 3))) \
        .astype(np.float32)

    def loss(t, x):
        grid = ms.ops.affine_grid(t, (2, 3, 4, 4), False)
        return (ms.ops.grid_sample(x, grid, "bilinear", "zeros", False) ** 2).sum()
    got = run_in_mode(lambda t, x: ms.grad(loss)(t, x), mode, T(theta), T(x))
    tt_theta = tt(theta).requires_grad_()
    grid = TF.affine_grid(tt_theta, (2, 3, 4, 4), False)
    (TF.grid_sample(tt(x), grid, "bilinear", "zeros", False) ** 2).sum().backward()
    np.testing.assert_allclose(got.asnumpy(), tt_theta.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_ops_channel_shuffle_and_avg_pool1d(mode):
    x = rand(2, 6, 3)
    check(mode, lambda x: ms.ops.channel_shuffle(x, 3),
          lambda x: torch.nn.functional.channel_shuffle(x, 3), x)
    x = rand(2, 3, 9)
    check(mode, lambda x: ms.ops.avg_pool1d(x, 3, 2, 1, False, False),
          lambda x: TF.avg_pool1d(x, 3, 2, 1, False, False), x)
    check(mode, lambda x: ms.ops.avg_pool1d(x, 2), lambda x: TF.avg_pool1d(x, 2, 1), x)


# ***** nn's "Ext" layers (what mint.nn is made of) *****

def test_ext_layers_match_torch():
    x1, x2, x3 = rand(2, 3, 9), rand(2, 3, 7, 6), rand(1, 2, 5, 6, 6)
    pairs = [(nn.AvgPool1dExt(3, 2, 1, count_include_pad=False),
              torch.nn.AvgPool1d(3, 2, 1, count_include_pad=False), x1),
             (nn.AvgPool1dExt(2), torch.nn.AvgPool1d(2), x1[0]),
             (nn.AvgPool2dExt(3, 2, 1, ceil_mode=True), torch.nn.AvgPool2d(3, 2, 1, ceil_mode=True),
              x2),
             (nn.AvgPool2dExt(2, divisor_override=3), torch.nn.AvgPool2d(2, divisor_override=3),
              x2[0]),
             (nn.AvgPool3dExt(2, 1, 1, count_include_pad=False),
              torch.nn.AvgPool3d(2, 1, 1, count_include_pad=False), x3),
             (nn.MaxPool2dExt(3, 2, 1, dilation=2), torch.nn.MaxPool2d(3, 2, 1, dilation=2), x2),
             (nn.MaxPool2dExt(2, ceil_mode=True), torch.nn.MaxPool2d(2, ceil_mode=True), x2[0]),
             (nn.LogSoftmaxExt(1), torch.nn.LogSoftmax(1), x2),
             (nn.LogSoftmaxExt(), torch.nn.LogSoftmax(-1), x2)]
    for mine, theirs, x in pairs:
        np.testing.assert_allclose(mine(T(x)).asnumpy(), theirs(tt(x)).numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=type(mine).__name__)
    values, indices = nn.MaxPool2dExt(2, return_indices=True)(T(x2))
    tv, ti = torch.nn.MaxPool2d(2, return_indices=True)(tt(x2))
    np.testing.assert_allclose(values.asnumpy(), tv.numpy())
    np.testing.assert_array_equal(indices.asnumpy(), ti.numpy())
    a, b = rand(4, 5), rand(4, 5, seed=1)
    for reduction in ("mean", "sum", "none"):
        np.testing.assert_allclose(nn.L1LossExt(reduction)(T(a), T(b)).asnumpy(),
                                   torch.nn.L1Loss(reduction=reduction)(tt(a), tt(b)).numpy(),
                                   rtol=1e-6)
    assert mint.nn.AvgPool2d is nn.AvgPool2dExt


def test_ext_dropout_layers():
    ms.set_seed(1)
    x = np.ones((64, 16), np.float32)
    drop = nn.DropoutExt(0.25)
    np.testing.assert_array_equal(drop(T(x)).asnumpy(), x)          # eval mode: identity
    drop.set_train(True)
    out = drop(T(x)).asnumpy()
    assert set(np.unique(out)) == {0.0, np.float32(1 / 0.75)}
    assert 0.2 < (out == 0).mean() < 0.3
    channels = nn.Dropout2dExt(0.5)
    channels.set_train(True)
    out = channels(T(np.ones((8, 16, 3, 3), np.float32))).asnumpy().reshape(8, 16, 9)
    assert set(np.unique(out.std(-1))) == {0.0}
    inplace = nn.DropoutExt(1.0, inplace=True)
    inplace.set_train(True)
    y = T(x.copy())
    inplace(y)
    assert not y.asnumpy().any()
