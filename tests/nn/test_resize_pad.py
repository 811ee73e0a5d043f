"""interpolate / Upsample / ResizeBilinear, pixel (un)shuffle, unfold / fold, ops.pad and the
padding Cells: values against closed forms and numpy (PyTorch when installed), gradients by
finite differences, the same values compiled."""
import numpy as np
import pytest
from nn_checks import T, check_fn_grads

import minispore as ms
from minispore import nn, ops

RNG = np.random.default_rng(2)


def randn(*shape):
    return RNG.standard_normal(shape)


def both_modes(fn, x):
    eager = fn(T(x)).asnumpy()
    np.testing.assert_allclose(ms.jit(fn)(T(x)).asnumpy(), eager, atol=1e-12)
    return eager


def linear_ref(x, out, align_corners):
    """1-D linear resize along the last axis from the definition of the source coordinate."""
    n = x.shape[-1]
    res = np.zeros(x.shape[:-1] + (out,))
    for i in range(out):
        src = i * (n - 1) / (out - 1) if align_corners else max((i + 0.5) * n / out - 0.5, 0)
        lo = min(int(np.floor(src)), n - 1)
        hi = min(lo + 1, n - 1)
        res[..., i] = x[..., lo] * (1 - (src - lo)) + x[..., hi] * (src - lo)
    return res


@pytest.mark.parametrize("align_corners", [True, False])
def test_linear_and_bilinear_follow_the_source_coordinates(align_corners):
    x = randn(2, 3, 5)
    got = both_modes(lambda a: ops.interpolate(a, size=8, mode="linear",
                                               align_corners=align_corners), x)
    np.testing.assert_allclose(got, linear_ref(x, 8, align_corners), atol=1e-12)
    x2 = randn(1, 2, 4, 6)
    got = both_modes(lambda a: ops.interpolate(a, size=(7, 3), mode="bilinear",
                                               align_corners=align_corners), x2)
    want = linear_ref(linear_ref(x2, 3, align_corners).swapaxes(-1, -2), 7,
                      align_corners).swapaxes(-1, -2)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_nearest_picks_floor_of_the_scaled_index():
    x = np.arange(6.0).reshape(1, 1, 2, 3)
    got = both_modes(lambda a: ops.interpolate(a, scale_factor=2.0), x)
    np.testing.assert_array_equal(got, x.repeat(2, 2).repeat(2, 3))


def test_bicubic_uses_the_a_minus_075_kernel():
    x = np.array([[[[0.0, 1.0, 4.0, 9.0]]]])
    got = both_modes(lambda a: ops.interpolate(a, size=(1, 7), mode="bicubic",
                                               align_corners=True), x)
    # source 1.5: weights W(1.5), W(0.5), W(0.5), W(1.5) = -0.09375, 0.59375, 0.59375, -0.09375
    np.testing.assert_allclose(got[0, 0, 0, 3], 0.59375 * 5 - 0.09375 * 9, atol=1e-12)
    np.testing.assert_allclose(got[0, 0, 0, ::2], x.ravel(), atol=1e-12)
    ones = both_modes(lambda a: ops.interpolate(a, size=(5, 9), mode="bicubic"),
                      np.ones((1, 1, 3, 4)))
    np.testing.assert_allclose(ones, 1.0, atol=1e-12)  # the weights sum to one


@pytest.mark.parametrize("mode, shape, size", [
    ("nearest", (1, 2, 4, 5), (7, 3)), ("bilinear", (1, 2, 4, 5), (6, 7)),
    ("bicubic", (1, 1, 4, 4), (5, 6)), ("trilinear", (1, 1, 3, 2, 3), (4, 3, 2)),
    ("area", (1, 2, 5, 4), (2, 3))])
def test_interpolate_gradients_match_finite_differences(mode, shape, size):
    check_fn_grads(lambda a: ops.interpolate(a, size=size, mode=mode), randn(*shape))


def test_resize_bilinear_legacy_coordinates():
    x = np.array([[[[1.0, 3.0]]]])
    # half_pixel_centers=False, align_corners=False: source i * in / out, clamped at the end
    got = nn.ResizeBilinear()(T(x), size=(1, 4)).asnumpy()
    np.testing.assert_allclose(got.ravel(), [1.0, 2.0, 3.0, 3.0])
    got = nn.ResizeBilinear()(T(x), size=(1, 3), align_corners=True).asnumpy()
    np.testing.assert_allclose(got.ravel(), [1.0, 2.0, 3.0])


def test_pixel_shuffle_round_trip_and_layout():
    x = randn(2, 8, 3, 4)
    up = both_modes(lambda a: ops.pixel_shuffle(a, 2), x)
    # out[n, c, h r + i, w r + j] = x[n, c r^2 + i r + j, h, w]
    np.testing.assert_array_equal(up[1, 1, 2 * 2 + 1, 3 * 2 + 0], x[1, 4 + 2 + 0, 2, 3])
    np.testing.assert_array_equal(both_modes(lambda a: ops.pixel_unshuffle(a, 2), up), x)


def test_unfold_and_fold_are_adjoint():
    x = randn(2, 3, 6, 5)
    cols = both_modes(lambda a: ops.unfold(a, (2, 3), 1, 1, (2, 1)), x)
    # column l of channel c, offset (i, j): the padded input at that window's cell
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    rows = (6 + 2 - 2) // 2 + 1
    width = (5 + 2 - 3) + 1
    assert cols.shape == (2, 3 * 6, rows * width)
    np.testing.assert_array_equal(cols[1, 2 * 6 + 1 * 3 + 2, 3 * width + 4],
                                  padded[1, 2, 3 * 2 + 1, 4 + 2])
    y = randn(*cols.shape)
    folded = both_modes(lambda a: ops.fold(a, (6, 5), (2, 3), 1, 1, (2, 1)), y)
    np.testing.assert_allclose((cols * y).sum(), (x * folded).sum(), rtol=1e-10)
    check_fn_grads(lambda a: ops.fold(a, (6, 5), (2, 3), 1, 1, (2, 1)), y)


def test_nn_unfold_orders_channels_after_offsets():
    x = randn(1, 2, 3, 3)
    got = nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1])(T(x)).asnumpy()
    # channel (i kw + j) C + c
    np.testing.assert_array_equal(got[0, (1 * 2 + 0) * 2 + 1], x[0, 1, 1:3, 0:2])


@pytest.mark.parametrize("mode, numpy_mode", [("constant", "constant"), ("reflect", "reflect"),
                                              ("replicate", "edge"), ("circular", "wrap"),
                                              ("symmetric", "symmetric")])
def test_pad_modes_match_numpy(mode, numpy_mode):
    x = randn(2, 3, 4, 5)
    got = both_modes(lambda a: ops.pad(a, (2, 1, 0, 3), mode), x)
    np.testing.assert_array_equal(got, np.pad(x, ((0, 0), (0, 0), (0, 3), (2, 1)), numpy_mode))
    check_fn_grads(lambda a: ops.pad(a, (1, 2, 3, 0), mode), randn(1, 2, 4, 3))


def test_pad_crops_with_negative_values_and_fills_value():
    x = randn(3, 4)
    got = ops.pad(T(x), (-1, 2), value=7.0).asnumpy()
    np.testing.assert_array_equal(got, np.pad(x[:, 1:], ((0, 0), (0, 2)), constant_values=7.0))
    with pytest.raises(ms.ops.OpError, match="reflect"):
        ops.pad(T(x), (4, 0), "reflect")


@pytest.mark.parametrize("cell, numpy_pad, mode", [
    (nn.ZeroPad2d((1, 0, 2, 1)), ((2, 1), (1, 0)), "constant"),
    (nn.ZeroPad1d((1, 2)), ((0, 0), (1, 2)), "constant"),
    (nn.ZeroPad3d(1), ((1, 1), (1, 1), (1, 1)), "constant"),
    (nn.ConstantPad1d(2, 0.0), ((0, 0), (2, 2)), "constant"),
    (nn.ConstantPad3d((1, 0, 0, 1, 1, 1), 0.0), ((1, 1), (0, 1), (1, 0)), "constant"),
    (nn.ReflectionPad1d((2, 1)), ((0, 0), (2, 1)), "reflect"),
    (nn.ReflectionPad2d(1), ((1, 1), (1, 1)), "reflect"),
    (nn.ReflectionPad3d((0, 1, 1, 0, 1, 1)), ((1, 1), (1, 0), (0, 1)), "reflect"),
    (nn.ReplicationPad1d((0, 3)), ((0, 0), (0, 3)), "edge"),
    (nn.ReplicationPad2d((2, 0, 1, 1)), ((1, 1), (2, 0)), "edge"),
    (nn.ReplicationPad3d(1), ((1, 1), (1, 1), (1, 1)), "edge"),
])
def test_padding_cells(cell, numpy_pad, mode):
    x = randn(2, 3, 4, 5)[:, :, :, :] if len(numpy_pad) < 3 else randn(2, 3, 4, 5)
    x = x[0] if len(numpy_pad) == 2 and cell.rank == 1 else x
    lead = x.ndim - len(numpy_pad)
    got = both_modes(cell, x)
    np.testing.assert_array_equal(got, np.pad(x, ((0, 0),) * lead + numpy_pad, mode))


def test_constant_pad_value_and_nn_pad_modes():
    x = randn(2, 3)
    got = nn.ConstantPad2d((1, 0, 0, 1), -2.5)(T(x)).asnumpy()
    np.testing.assert_array_equal(got, np.pad(x, ((0, 1), (1, 0)), constant_values=-2.5))
    for mode, numpy_mode in (("CONSTANT", "constant"), ("REFLECT", "reflect"),
                             ("SYMMETRIC", "symmetric")):
        got = nn.Pad(((1, 1), (2, 1)), mode)(T(x)).asnumpy()
        np.testing.assert_array_equal(got, np.pad(x, ((1, 1), (2, 1)), numpy_mode))


def test_same_values_as_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the second reference")
    F = torch.nn.functional
    x = randn(2, 3, 5, 7)
    t = torch.tensor(x)
    for kwargs in (dict(size=(8, 4), mode="nearest"), dict(scale_factor=1.5, mode="bilinear"),
                   dict(size=(9, 11), mode="bicubic", align_corners=True),
                   dict(size=(3, 4), mode="area"), dict(size=(6, 9), mode="nearest-exact")):
        np.testing.assert_allclose(ops.interpolate(T(x), **kwargs).asnumpy(),
                                   F.interpolate(t, **kwargs).numpy(), atol=1e-12)
    for mode in ("reflect", "replicate", "circular"):
        np.testing.assert_allclose(ops.pad(T(x), (1, 2, 2, 1), mode).asnumpy(),
                                   F.pad(t, (1, 2, 2, 1), mode=mode).numpy())
    np.testing.assert_allclose(ops.unfold(T(x), 3, 2, 1, 2).asnumpy(),
                               F.unfold(t, 3, 2, 1, 2).numpy(), atol=1e-12)
