"""MindSpore Primitive classes of ops.classes_zoo (layers, layout, reductions, scatter) and
ops.classes_optim (optimizer updates, random draws), each against the ops function it forwards
to or a numpy reference written from MindSpore's documented formula, in both modes."""
import numpy as np
import pytest
from helpers import assert_close, run_in_mode

import minispore as ms
from minispore import ops

MODES = ["pynative", "graph"]
T = ms.Tensor


def _rand(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _dot(a, b):
    return float((np.asarray(a, np.float64) * np.asarray(b, np.float64)).sum())


# ***** convolutions *****

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pad_mode, stride, pad", [("valid", 1, 0), ("same", 2, 0),
                                                   ("pad", 2, (1, 0, 2, 1))])
def test_conv2d_backprop_input_is_the_adjoint_of_conv2d(mode, pad_mode, stride, pad):
    x, w = _rand((2, 3, 7, 7), 0), _rand((4, 3, 3, 3), 1)
    y = ops.conv2d(T(x), T(w), None, stride, pad_mode, pad).asnumpy()
    dout = _rand(y.shape, 2)
    for cls in (ops.Conv2DBackpropInput, ops.Conv2DTranspose):
        prim = cls(4, 3, pad_mode=pad_mode, pad=pad, stride=stride)
        dx = run_in_mode(lambda d, k: prim(d, k, (2, 3, 7, 7)), mode, T(dout), T(w))
        assert dx.shape == x.shape
        assert _dot(y, dout) == pytest.approx(_dot(x, dx.asnumpy()), rel=1e-4, abs=1e-3)


@pytest.mark.parametrize("mode", MODES)
def test_conv3d_and_its_transpose(mode):
    x, w = _rand((1, 2, 4, 5, 6), 3), _rand((3, 2, 2, 2, 2), 4)
    conv = ops.Conv3D(3, 2, pad_mode="pad", pad=1, stride=(1, 1, 2, 2, 2))
    got = run_in_mode(lambda a, k: conv(a, k), mode, T(x), T(w))
    assert_close(got, ops.conv3d(T(x), T(w), None, 2, "pad", 1).asnumpy())
    y = ops.conv3d(T(x), T(w)).asnumpy()
    dout = _rand(y.shape, 5)
    dx = run_in_mode(lambda d, k: ops.Conv3DTranspose(3, 2, 2)(d, k), mode, T(dout), T(w))
    assert dx.shape == x.shape
    assert _dot(y, dout) == pytest.approx(_dot(x, dx.asnumpy()), rel=1e-4)


# ***** pooling *****

@pytest.mark.parametrize("mode", MODES)
def test_pool3d_and_adaptive_pools(mode):
    x = _rand((1, 2, 4, 4, 6), 6)
    blocks = x.reshape(1, 2, 2, 2, 2, 2, 3, 2)
    out = run_in_mode(lambda a: (ops.MaxPool3D(2, 2)(a), ops.AvgPool3D(2, 2)(a)), mode, T(x))
    assert_close(out[0], blocks.max((3, 5, 7)))
    assert_close(out[1], blocks.mean((3, 5, 7)), rtol=1e-5)
    img = _rand((2, 3, 4, 6), 7)
    got = run_in_mode(lambda a: (ops.AdaptiveAvgPool2D((2, 3))(a),
                                 ops.AdaptiveMaxPool2D((2, 3))(a)), mode, T(img))
    assert_close(got[0], img.reshape(2, 3, 2, 2, 3, 2).mean((3, 5)), rtol=1e-5)
    assert_close(got[1][0], img.reshape(2, 3, 2, 2, 3, 2).max((3, 5)))
    assert_close(run_in_mode(lambda a: ops.AdaptiveAvgPool3D(1)(a), mode, T(x)),
                 x.mean((2, 3, 4), keepdims=True), rtol=1e-5)
    y, argmax = ops.AdaptiveMaxPool3D()(T(x), (2, 2, 3))
    assert_close(y, blocks.max((3, 5, 7)))
    assert argmax.dtype == ms.int32


@pytest.mark.parametrize("mode", MODES)
def test_max_pool_with_argmax_and_unpool(mode):
    x = _rand((2, 3, 4, 6), 8)
    out, argmax = run_in_mode(lambda a: ops.MaxPoolWithArgmax(2, 2)(a), mode, T(x))
    windows = x.reshape(2, 3, 2, 2, 3, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 2, 3, 4)
    assert_close(out, windows.max(-1))
    assert argmax.dtype == ms.int32
    rows, cols = np.divmod(argmax.asnumpy(), 6)  # the flat index within each H * W plane
    picked = np.take_along_axis(x.reshape(2, 3, -1), argmax.asnumpy().reshape(2, 3, -1), -1)
    assert_close(picked.reshape(out.shape), windows.max(-1))
    assert ((rows // 2 == np.arange(2)[:, None]) & (cols // 2 == np.arange(3))).all()
    back = run_in_mode(lambda a, i: ops.MaxUnpool2D(2)(a, i), mode, out, argmax)
    want = np.zeros_like(x).reshape(2, 3, -1)
    np.put_along_axis(want, argmax.asnumpy().reshape(2, 3, -1), windows.max(-1).reshape(2, 3, -1),
                      -1)
    assert_close(back, want.reshape(x.shape))
    out2, arg2 = run_in_mode(lambda a: ops.MaxPoolWithArgmaxV2(2, 2)(a), mode, T(x))
    assert_close(out2, out)
    assert arg2.dtype == ms.int64 and (arg2.asnumpy() == argmax.asnumpy()).all()


# ***** padding and resizing *****

@pytest.mark.parametrize("mode", MODES)
def test_mirror_pad_and_pad_v3(mode):
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    pads = ((1, 2), (2, 1))
    got = run_in_mode(lambda a: (ops.MirrorPad()(a, pads), ops.MirrorPad("SYMMETRIC")(a, pads)),
                      mode, T(x))
    assert_close(got[0], np.pad(x, pads, "reflect"))
    assert_close(got[1], np.pad(x, pads, "symmetric"))
    flat = (2, 1, 1, 0)  # from the last axis: (left, right), then (top, bottom)
    np_pads = ((1, 0), (2, 1))
    for name, np_mode in (("reflect", "reflect"), ("edge", "edge"), ("circular", "wrap")):
        out = run_in_mode(lambda a: ops.PadV3(name)(a, flat), mode, T(x))
        assert_close(out, np.pad(x, np_pads, np_mode))
    out = run_in_mode(lambda a: ops.PadV3(paddings_contiguous=False)(a, (2, 1, 1, 0), 7.0),
                      mode, T(x))
    assert_close(out, np.pad(x, ((1, 0), (2, 1)), constant_values=7.0))


def _tf_resize_linear(x, out, align_corners, half_pixel):
    """TensorFlow's resize of the last axis (ResizeBilinearV2 per axis, ResizeLinear1D)."""
    n = x.shape[-1]
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        src = dst * ((n - 1) / (out - 1) if out > 1 else 0.0)
    elif half_pixel:
        src = (dst + 0.5) * n / out - 0.5
    else:
        src = dst * n / out
    lo = np.clip(np.floor(src), 0, n - 1).astype(int)
    hi = np.minimum(np.ceil(src), n - 1).astype(int)
    frac = src - np.floor(src)
    return x[..., lo] * (1 - frac) + x[..., hi] * frac


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("align_corners, half_pixel", [(False, False), (True, False),
                                                       (False, True)])
def test_resize_bilinear_v2_and_linear_1d(mode, align_corners, half_pixel):
    x = _rand((1, 2, 3, 5), 9)
    prim = ops.ResizeBilinearV2(align_corners, half_pixel)
    got = run_in_mode(lambda a: prim(a, (4, 8)), mode, T(x))
    want = _tf_resize_linear(_tf_resize_linear(x, 8, align_corners, half_pixel)
                             .swapaxes(-1, -2), 4, align_corners, half_pixel).swapaxes(-1, -2)
    assert_close(got, want.astype(np.float32), rtol=1e-5, atol=1e-6)
    transform = "align_corners" if align_corners else ("half_pixel" if half_pixel
                                                       else "asymmetric")
    line = x[0]
    got = run_in_mode(lambda a: ops.ResizeLinear1D(transform)(a, (9,)), mode, T(line))
    assert_close(got, _tf_resize_linear(line, 9, align_corners, half_pixel).astype(np.float32),
                 rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_upsample_3d(mode):
    x = _rand((1, 2, 2, 3, 2), 10)
    got = run_in_mode(lambda a: ops.UpsampleNearest3D()(a, None, (2.0, 1.0, 2.0)), mode, T(x))
    assert_close(got, x.repeat(2, axis=2).repeat(2, axis=4))
    got = run_in_mode(lambda a: ops.UpsampleTrilinear3D(True)(a, (3, 5, 3)), mode, T(x))
    assert_close(got, ops.interpolate(T(x), (3, 5, 3), mode="trilinear",
                                      align_corners=True).asnumpy())


# ***** layout *****

@pytest.mark.parametrize("mode", MODES)
def test_space_to_batch_and_back(mode):
    x = _rand((2, 3, 2, 4), 11)
    got = run_in_mode(lambda a: ops.SpaceToBatch(2, ((1, 1), (0, 0)))(a), mode, T(x))
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0)))
    want = np.stack([padded[:, :, i::2, j::2] for i in range(2) for j in range(2)])
    assert_close(got, want.reshape(8, 3, 2, 2))
    back = run_in_mode(lambda a: ops.BatchToSpace(2, ((1, 1), (0, 0)))(a), mode, got)
    assert_close(back, x)
    nd = run_in_mode(lambda a: ops.BatchToSpaceND((2, 2), ((1, 1), (0, 0)))(
        ops.SpaceToBatchND((2, 2), ((1, 1), (0, 0)))(a)), mode, T(x))
    assert_close(nd, x)


@pytest.mark.parametrize("mode", MODES)
def test_layout_classes(mode):
    x = _rand((2, 6, 3), 12)
    got = run_in_mode(lambda a: ops.ChannelShuffle(2)(a), mode, T(x))
    assert_close(got, x.reshape(2, 2, 3, 3).swapaxes(1, 2).reshape(2, 6, 3))
    lengths = np.array([2, 5], np.int32)
    got = run_in_mode(lambda a, n: ops.ReverseSequence(seq_dim=1)(a, n), mode, T(x), T(lengths))
    want = x.copy()
    for b, n in enumerate(lengths):
        want[b, :n] = x[b, :n][::-1]
    assert_close(got, want)
    parts = run_in_mode(lambda a: ops.SplitV((1, -1, 2), 1, 3)(a), mode, T(x))
    assert [p.shape[1] for p in parts] == [1, 3, 2]
    assert_close(parts[1], x[:, 1:4])
    with pytest.raises(ValueError, match="num_split"):
        ops.SplitV((1, 2), 1, 3)(T(x))


@pytest.mark.parametrize("mode", MODES)
def test_activation_and_normalisation_classes(mode):
    x = _rand((2, 3, 4), 13)
    gelu, log_sm, (y, rstd) = run_in_mode(lambda a: (
        ops.GeLU()(a), ops.LogSoftmaxExt()(a, -1), ops.RmsNorm(1e-5)(a, ops.ones(4))), mode, T(x))
    from math import erf
    assert_close(gelu, x * (1 + np.vectorize(erf)(x / np.sqrt(2))) / 2, rtol=1e-5, atol=1e-6,
                 check_dtype=False)
    shifted = x - x.max(-1, keepdims=True)
    assert_close(log_sm, shifted - np.log(np.exp(shifted).sum(-1, keepdims=True)), rtol=1e-5,
                 atol=1e-6)
    want_rstd = 1 / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-5)
    assert_close(rstd, want_rstd, rtol=1e-5)
    assert_close(y, x * want_rstd, rtol=1e-5, atol=1e-6)
    # dim None on a 2-D input: axis 1
    assert_close(ops.LogSoftmaxExt()(T(x[0])), ops.log_softmax(T(x[0]), 1).asnumpy())


# ***** reductions, linear algebra, special functions *****

@pytest.mark.parametrize("mode", MODES)
def test_norms_and_counts(mode):
    x = _rand((3, 4, 5), 14)
    x[0, 0, :2] = 0.0
    got = run_in_mode(lambda a: (ops.LpNorm((1, 2), p=3)(a), ops.EuclideanNorm(True)(a, (0,)),
                                 ops.CountNonZero((2,))(a), ops.CountNonZero()(a)), mode, T(x))
    assert_close(got[0], (np.abs(x) ** 3).sum((1, 2)) ** (1 / 3), rtol=1e-5)
    assert_close(got[1], np.sqrt((x ** 2).sum(0, keepdims=True)), rtol=1e-5)
    assert_close(got[2], (x != 0).sum(2).astype(np.int64))
    assert got[3].asnumpy() == 58
    eq = run_in_mode(lambda a, b: ops.EqualCount()(a, b), mode, T([1, 2, 3]), T([1, 0, 3]))
    assert eq.tolist() == [2]
    top = run_in_mode(lambda a, b: ops.InTopK(2)(a, b), mode,
                      T(np.array([[1.0, 3.0, 2.0], [4.0, 0.0, 1.0]], np.float32)),
                      T(np.array([0, 2], np.int32)))
    assert top.tolist() == [False, True]


@pytest.mark.parametrize("mode", MODES)
def test_renorm_quantile_nth_element(mode):
    x = _rand((3, 4), 15) * 3
    got = run_in_mode(lambda a: ops.Renorm(2, 0, 1.0)(a), mode, T(x))
    norms = np.sqrt((x ** 2).sum(1, keepdims=True))
    assert_close(got, np.where(norms > 1.0, x / norms, x), rtol=1e-5, atol=1e-6)
    q = run_in_mode(lambda a: (ops.Quantile()(a, T(0.25)), ops.Quantile(dim=1)(
        a, T(np.array([0.5, 0.9], np.float32)))), mode, T(x))
    assert_close(q[0], np.quantile(x, 0.25).astype(np.float32), rtol=1e-5)
    assert_close(q[1], np.quantile(x, [0.5, 0.9], axis=1).astype(np.float32), rtol=1e-5)
    nth = run_in_mode(lambda a: (ops.NthElement()(a, 1), ops.NthElement(True)(a, 0)), mode,
                      T(x))
    assert_close(nth, (np.sort(x, -1)[:, 1], x.max(-1)))
    with pytest.raises(ValueError, match="NthElement"):
        ops.NthElement()(T(x), 4)


@pytest.mark.parametrize("mode", MODES)
def test_linear_algebra_classes(mode):
    m = np.tril(_rand((3, 3), 16)) + 3 * np.eye(3, dtype=np.float32)
    full = m + np.triu(np.ones((3, 3), np.float32), 1)  # the upper part must be ignored
    rhs = _rand((3, 2), 17)
    got = run_in_mode(lambda a, b: (ops.MatrixTriangularSolve()(a, b),
                                    ops.MatrixTriangularSolve(adjoint=True)(a, b)), mode,
                      T(full), T(rhs))
    assert_close(got[0], np.linalg.solve(m, rhs), rtol=1e-4, atol=1e-5)
    assert_close(got[1], np.linalg.solve(m.T, rhs), rtol=1e-4, atol=1e-5)
    upper = run_in_mode(lambda a, b: ops.MatrixTriangularSolve(lower=False)(a, b), mode,
                        T(full.T), T(rhs))
    assert_close(upper, np.linalg.solve(m.T, rhs), rtol=1e-4, atol=1e-5)
    a = np.array([[0.0, 1.0], [-1.0, 0.0]], np.float32)  # exp: a rotation by one radian
    got = run_in_mode(lambda v: ops.MatrixExp()(v), mode, T(a))
    assert_close(got, np.array([[np.cos(1), np.sin(1)], [-np.sin(1), np.cos(1)]], np.float32),
                 rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_special_functions_and_windows(mode):
    x = np.abs(_rand((5,), 18)) + 0.1
    names = ["BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1",
             "BesselK0", "BesselK0e", "BesselK1", "BesselK1e", "BesselY0", "BesselY1"]
    got = run_in_mode(lambda a: tuple(getattr(ops, n)()(a) for n in names), mode, T(x))
    for name, value in zip(names, got):
        fn = getattr(ops, "bessel_" + name[6:].lower())
        assert_close(value, fn(T(x)).asnumpy(), rtol=1e-5)
    got = run_in_mode(lambda a, b: ops.NextAfter()(a, b), mode, T(x), T(np.zeros(5, np.float32)))
    assert_close(got, np.nextafter(x, np.float32(0)), rtol=0, atol=0)
    ints = np.array([0, 1, 7, 255, 1023], np.int16)
    got = run_in_mode(lambda a: ops.PopulationCount()(a), mode, T(ints))
    assert got.asnumpy().tolist() == [0, 1, 3, 8, 10]
    assert_close(ops.BartlettWindow()(T(6)), np.bartlett(7)[:-1].astype(np.float32))
    assert_close(ops.BlackmanWindow(False)(T(5)), np.blackman(5).astype(np.float32), atol=1e-7)
    assert_close(ops.HammingWindow(False)(T(5)), np.hamming(5).astype(np.float32), rtol=1e-6)
    n = np.arange(6)  # alpha - beta cos(2 pi n / N), periodic
    assert_close(ops.HammingWindow(alpha=0.6, beta=0.3, dtype=ms.float64)(T(6)),
                 0.6 - 0.3 * np.cos(2 * np.pi * n / 6), rtol=1e-12)


# ***** scatter and gather *****

@pytest.mark.parametrize("mode", MODES)
def test_scatter_classes_update_the_parameter(mode):
    base = np.arange(1.0, 7.0, dtype=np.float32).reshape(3, 2)
    indices, updates = np.array([0, 2], np.int32), np.full((2, 2), 4.0, np.float32)
    for name, op in (("ScatterMax", np.maximum), ("ScatterMin", np.minimum),
                     ("ScatterMul", np.multiply), ("ScatterDiv", np.divide)):
        var = ms.Parameter(T(base.copy()), name="var")
        prim = getattr(ops, name)()
        run_in_mode(lambda i, u: prim(var, i, u), mode, T(indices), T(updates))
        want = base.copy()
        want[indices] = op(want[indices], updates)
        assert_close(var.asnumpy(), want)
    nd_indices = np.array([[0, 1], [2, 0]], np.int32)
    nd_updates = np.array([3.0, 10.0], np.float32)
    for name, op in (("ScatterNdMax", np.maximum), ("ScatterNdMin", np.minimum),
                     ("ScatterNdMul", np.multiply), ("ScatterNdDiv", np.divide)):
        var = ms.Parameter(T(base.copy()), name="var")
        prim = getattr(ops, name)()
        run_in_mode(lambda i, u: prim(var, i, u), mode, T(nd_indices), T(nd_updates))
        want = base.copy()
        want[(0, 2), (1, 0)] = op(want[(0, 2), (1, 0)], nd_updates)
        assert_close(var.asnumpy(), want)
        got = run_in_mode(lambda x, i, u: getattr(ops, "TensorScatter" + name[9:])()(x, i, u),
                          mode, T(base), T(nd_indices), T(nd_updates))
        assert_close(got, want)


@pytest.mark.parametrize("mode", MODES)
def test_segment_gather_and_index_classes(mode):
    x = _rand((5, 2), 19)
    ids = np.array([0, 2, 0, 1, 2], np.int32)
    got = run_in_mode(lambda a, i: (ops.UnsortedSegmentMax()(a, i, 3),
                                    ops.UnsortedSegmentMin()(a, i, 3),
                                    ops.UnsortedSegmentProd()(a, i, 3)), mode, T(x), T(ids))
    for value, reduce in zip(got, (np.max, np.min, np.prod)):
        assert_close(value, np.stack([reduce(x[ids == s], 0) for s in range(3)]), rtol=1e-5)
    table = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    ids, rows = np.array([[3, 5], [6, 1]], np.int32), np.array([[3, 0], [2, 2]], np.int32)
    got = run_in_mode(lambda t, i, r: (ops.SparseGatherV2()(t, r, 0),
                                       ops.EmbeddingLookup()(t, i, 2)), mode, T(table), T(ids),
                      T(rows))
    assert_close(got[0], table[rows])
    local = np.array([[1, 3], [4, -1]])
    want = np.where(((local >= 0) & (local < 4))[..., None], table[np.clip(local, 0, 3)], 0.0)
    assert_close(got[1], want.astype(np.float32))
    var = ms.Parameter(T(np.zeros((3, 2), np.float32)), name="var")
    run_in_mode(lambda i, u: ops.InplaceIndexAdd(0)(var, i, u), mode,
                T(np.array([0, 2, 0], np.int32)), T(np.ones((3, 2), np.float32)))
    assert_close(var.asnumpy(), np.array([[2, 2], [0, 0], [1, 1]], np.float32))
    rows, cols = np.array([0, 1, 1], np.int32), np.array([2, 0, 0], np.int32)
    got = run_in_mode(lambda a, v, r, c: (ops.IndexPut()(a, v, (r, c)),
                                          ops.IndexPut(1)(a, v, (r, c))), mode,
                      T(np.ones((2, 3), np.float32)), T(np.array([5.0], np.float32)), T(rows),
                      T(cols))
    assert_close(got[0], np.array([[1, 1, 5], [5, 1, 1]], np.float32))
    assert_close(got[1], np.array([[1, 1, 6], [11, 1, 1]], np.float32))
    mask = np.array([[True, False, True], [False, False, True]])
    got = run_in_mode(lambda a, m, u: ops.MaskedScatter()(a, m, u), mode,
                      T(np.zeros((2, 3), np.float32)), T(mask),
                      T(np.array([1.0, 2.0, 3.0, 4.0], np.float32)))
    assert_close(got, np.array([[1, 0, 2], [0, 0, 3]], np.float32))


def test_zoo_classes_check_their_arguments():
    x = T(np.ones((1, 1, 2, 2), np.float32))
    with pytest.raises(ValueError, match="MirrorPad"):
        ops.MirrorPad("EDGE")(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    with pytest.raises(ValueError, match="PadV3"):
        ops.PadV3("symmetric")(x, (1, 1))
    with pytest.raises(ValueError, match="ResizeBilinearV2"):
        ops.ResizeBilinearV2(True, True)(x, (3, 3))
    with pytest.raises(ValueError, match="ResizeLinear1D"):
        ops.ResizeLinear1D("nearest")(T(np.ones((1, 1, 2), np.float32)), (3,))
    with pytest.raises(ValueError, match="exactly one"):
        ops.UpsampleNearest3D()(T(np.ones((1, 1, 2, 2, 2), np.float32)))
    with pytest.raises(TypeError, match="Conv3D"):
        ops.Conv3D(1, 1, padding=1)


# ***** optimizer updates: three steps against numpy, eagerly and inside ms.jit *****

def _check_updates(mode, slots, call, reference, returned):
    """Parameters made from `slots` go through call(params, grad) three times (in ms.jit in
    graph mode); after each step every Parameter equals the numpy `reference(slots, grad)`
    and the call returns the slots numbered in `returned` (an int: that slot alone)."""
    params = [ms.Parameter(T(s.astype(np.float32)), name=f"slot{i}") for i, s in enumerate(slots)]
    state = [s.astype(np.float64) for s in slots]
    step = (lambda g: call(params, g))
    step = ms.jit(step) if mode == "graph" else step
    for k in range(3):
        grad = _rand(slots[0].shape, 30 + k)
        out = step(T(grad))
        state = reference(state, grad.astype(np.float64))
        for p, want in zip(params, state):
            assert_close(p.asnumpy(), want, rtol=1e-4, atol=1e-5, check_dtype=False)
        picks = [returned] if isinstance(returned, int) else list(returned)
        outs = [out] if isinstance(returned, int) else list(out)
        assert len(outs) == len(picks)
        for got, i in zip(outs, picks):
            assert_close(got, state[i], rtol=1e-4, atol=1e-5, check_dtype=False)


W0 = np.array([1.0, -2.0, 0.5, 3.0])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("nesterov, weight_decay, dampening", [(False, 0.0, 0.0),
                                                               (True, 0.1, 0.2)])
def test_sgd(mode, nesterov, weight_decay, dampening):
    lr, momentum = 0.1, 0.9
    prim = ops.SGD(dampening, weight_decay, nesterov)

    def reference(s, g):
        w, accum, stat = s
        g = g + weight_decay * w
        accum = np.where(stat > 0, g, accum * momentum + (1 - dampening) * g)
        step = g + momentum * accum if nesterov else accum
        return [w - lr * step, accum, np.zeros_like(stat)]
    _check_updates(mode, [W0, np.zeros(4), np.ones(4)],
                   lambda p, g: prim(p[0], g, T(np.float32(lr)), p[1], T(np.float32(momentum)),
                                     p[2]), reference, 0)


@pytest.mark.parametrize("mode", MODES)
def test_adagrad_family(mode):
    lr, eps = 0.1, 1e-3

    def adagrad(s, g, epsilon=0.0):
        accum = s[1] + g * g
        return [s[0] - lr * g / (np.sqrt(accum) + epsilon), accum]
    _check_updates(mode, [W0, np.full(4, 0.1)],
                   lambda p, g: ops.ApplyAdagrad()(p[0], p[1], lr, g), adagrad, (0, 1))
    _check_updates(mode, [W0, np.full(4, 0.1)],
                   lambda p, g: ops.ApplyAdagradV2(eps)(p[0], p[1], lr, g),
                   lambda s, g: adagrad(s, g, eps), (0, 1))
    l1, l2 = 0.01, 0.1

    def proximal(s, g):
        accum = s[1] + g * g
        prox = s[0] - lr * g / np.sqrt(accum)
        return [np.sign(prox) / (1 + lr * l2) * np.maximum(np.abs(prox) - lr * l1, 0), accum]
    _check_updates(mode, [W0, np.full(4, 0.1)],
                   lambda p, g: ops.ApplyProximalAdagrad()(p[0], p[1], lr, l1, l2, g), proximal,
                   (0, 1))

    def proximal_gd(s, g):
        prox = s[0] - lr * g
        return [np.sign(prox) / (1 + lr * l2) * np.maximum(np.abs(prox) - lr * l1, 0)]
    _check_updates(mode, [W0], lambda p, g: ops.ApplyProximalGradientDescent()(
        p[0], lr, l1, l2, g), proximal_gd, 0)


@pytest.mark.parametrize("mode", MODES)
def test_rms_prop_family(mode):
    lr, decay, momentum, eps = 0.01, 0.9, 0.5, 1e-6

    def rms(s, g):
        ms_ = decay * s[1] + (1 - decay) * g * g
        mom = momentum * s[2] + lr * g / np.sqrt(ms_ + eps)
        return [s[0] - mom, ms_, mom]
    _check_updates(mode, [W0, np.ones(4), np.zeros(4)],
                   lambda p, g: ops.ApplyRMSProp()(p[0], p[1], p[2], lr, g, decay, momentum, eps),
                   rms, 0)

    def centered(s, g):
        mg = decay * s[1] + (1 - decay) * g
        ms_ = decay * s[2] + (1 - decay) * g * g
        mom = momentum * s[3] + lr * g / np.sqrt(ms_ - mg * mg + eps)
        return [s[0] - mom, mg, ms_, mom]
    _check_updates(mode, [W0, np.zeros(4), np.ones(4), np.zeros(4)],
                   lambda p, g: ops.ApplyCenteredRMSProp()(p[0], p[1], p[2], p[3], g, lr, decay,
                                                           momentum, eps), centered, 0)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_family(mode, nesterov):
    lr, b1, b2, eps, b1p, b2p = 0.01, 0.9, 0.999, 1e-8, 0.9, 0.999

    def adam(s, g):
        m = b1 * s[1] + (1 - b1) * g
        v = b2 * s[2] + (1 - b2) * g * g
        lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
        direction = b1 * m + (1 - b1) * g if nesterov else m
        return [s[0] - lr_t * direction / (np.sqrt(v) + eps), m, v]
    _check_updates(mode, [W0, np.zeros(4), np.zeros(4)],
                   lambda p, g: ops.Adam(use_nesterov=nesterov)(p[0], p[1], p[2], b1p, b2p, lr,
                                                                b1, b2, eps, g), adam, (0, 1, 2))

    def amsgrad(s, g):
        m = b1 * s[1] + (1 - b1) * g
        v = b2 * s[2] + (1 - b2) * g * g
        vhat = np.maximum(s[3], v)
        lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
        return [s[0] - lr_t * m / (np.sqrt(vhat) + eps), m, v, vhat]
    _check_updates(mode, [W0, np.zeros(4), np.zeros(4), np.zeros(4)],
                   lambda p, g: ops.ApplyAdamWithAmsgrad()(p[0], p[1], p[2], p[3], b1p, b2p, lr,
                                                           g), amsgrad, (0, 1, 2, 3))

    def ada_max(s, g):
        m = b1 * s[1] + (1 - b1) * g
        v = np.maximum(b2 * s[2], np.abs(g))
        return [s[0] - lr / (1 - b1p) * m / (v + eps), m, v]
    _check_updates(mode, [W0, np.zeros(4), np.zeros(4)],
                   lambda p, g: ops.ApplyAdaMax()(p[0], p[1], p[2], b1p, lr, b1, b2, eps, g),
                   ada_max, (0, 1, 2))


@pytest.mark.parametrize("mode", MODES)
def test_adadelta_ftrl_and_sign_updates(mode):
    lr, rho, eps = 1.0, 0.9, 1e-6

    def adadelta(s, g):
        accum = rho * s[1] + (1 - rho) * g * g
        update = np.sqrt(s[2] + eps) / np.sqrt(accum + eps) * g
        accum_update = rho * s[2] + (1 - rho) * update * update
        return [s[0] - lr * update, accum, accum_update]
    _check_updates(mode, [W0, np.zeros(4), np.zeros(4)],
                   lambda p, g: ops.ApplyAdadelta()(p[0], p[1], p[2], lr, rho, eps, g), adadelta,
                   (0, 1, 2))
    lr, l1, l2, power = 0.5, 0.01, 0.1, -0.5

    def ftrl(s, g):
        w, accum, linear = s
        new_accum = accum + g * g
        linear = linear + g - (new_accum ** -power - accum ** -power) / lr * w
        quadratic = new_accum ** -power / lr + 2 * l2
        w = np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quadratic, 0.0)
        return [w, new_accum, linear]
    _check_updates(mode, [W0, np.full(4, 0.1), np.zeros(4)],
                   lambda p, g: ops.ApplyFtrl()(p[0], p[1], p[2], g, lr, l1, l2, power), ftrl, 0)
    alpha, decay, beta, logbase = 1.0, 0.5, 0.9, np.e

    def add_sign(s, g):
        m = beta * s[1] + (1 - beta) * g
        return [s[0] - 0.1 * (alpha + decay * np.sign(g) * np.sign(m)) * g, m]
    _check_updates(mode, [W0, np.zeros(4)],
                   lambda p, g: ops.ApplyAddSign()(p[0], p[1], 0.1, alpha, decay, beta, g),
                   add_sign, (0, 1))

    def power_sign(s, g):
        m = beta * s[1] + (1 - beta) * g
        return [s[0] - 0.1 * np.exp(logbase * decay * np.sign(g) * np.sign(m)) * g, m]
    _check_updates(mode, [W0, np.zeros(4)],
                   lambda p, g: ops.ApplyPowerSign()(p[0], p[1], 0.1, logbase, decay, beta, g),
                   power_sign, (0, 1))

    def keras(s, g):
        accum = 0.9 * s[1] - 0.1 * g
        return [s[0] + accum, accum]
    _check_updates(mode, [W0, np.zeros(4)],
                   lambda p, g: ops.ApplyKerasMomentum()(p[0], p[1], 0.1, g, 0.9), keras, (0, 1))


# ***** random draws and the margin loss *****

def test_random_classes_follow_the_seed():
    draws = []
    for _ in range(2):
        ms.set_seed(11)
        draws.append([ops.TruncatedNormal()((2000,)), ops.RandomCategorical()(
            T(np.log(np.array([[0.2, 0.8]], np.float32))), 500),
            ops.MultinomialWithReplacement(6, True)(T(np.array([0.0, 1.0, 3.0], np.float32)), 0, 0),
            ops.RandpermV2()(T(np.array([6]))), ops.Cauchy((1000,), 1.0, 2.0)(),
            ops.LogNormalReverse(0.0, 0.5)(T(np.zeros((1000,), np.float32)))])
    for a, b in zip(*draws):
        assert (a.asnumpy() == b.asnumpy()).all()
    normal, categorical, multinomial, perm, cauchy, lognormal = (d.asnumpy() for d in draws[0])
    assert normal.dtype == np.float32 and np.abs(normal).max() <= 2.0
    assert abs(normal.std() - 0.88) < 0.05  # the std of a normal truncated at 2 sigma
    assert categorical.dtype == np.int64 and abs(categorical.mean() - 0.8) < 0.08
    assert set(np.unique(multinomial)) <= {1, 2}
    assert perm.dtype == np.int64 and sorted(perm.tolist()) == list(range(6))
    assert abs(np.median(cauchy) - 1.0) < 0.3
    assert lognormal.dtype == np.float32 and (lognormal > 0).all()
    assert abs(np.log(lognormal).std() - 0.5) < 0.05


@pytest.mark.parametrize("mode", MODES)
def test_multilabel_margin_loss(mode):
    x = _rand((2, 4), 20)
    target = np.array([[3, 0, -1, 1], [1, 2, 3, 0]], np.int64)
    loss, is_target = run_in_mode(lambda a, t: ops.MultilabelMarginLoss("none")(a, t), mode,
                                  T(x), T(target))
    want_loss, want_is = [], np.zeros_like(target)
    for i in range(2):
        labels = []
        for j in target[i]:
            if j < 0:
                break
            labels.append(j)
        want_is[i, labels] = 1
        others = [k for k in range(4) if k not in labels]
        want_loss.append(sum(max(0.0, 1 - (x[i, j] - x[i, k])) for j in labels for k in others) / 4)
    assert_close(loss, np.array(want_loss, np.float32), rtol=1e-5, atol=1e-6)
    assert_close(is_target, want_is)


def test_optimizer_classes_check_their_arguments():
    with pytest.raises(TypeError, match="Adam"):
        ops.Adam(nesterov=True)


# ***** ops.classes_array: segments, TensorFlow resizes, sparse, layout, small algebra *****

@pytest.mark.parametrize("mode", MODES)
def test_sorted_segment_reductions(mode):
    x = _rand((6, 2), 40)
    ids = np.array([0, 0, 2, 2, 2, 3], np.int32)
    names = ("SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd")
    got = run_in_mode(lambda a, i: tuple(getattr(ops, n)()(a, i) for n in names), mode, T(x),
                      T(ids))
    for name, value, reduce, empty in zip(names, got, (np.sum, np.mean, np.max, np.min, np.prod),
                                          (0, 0, 0, 0, 1)):
        want = np.stack([reduce(x[ids == s], 0) if (ids == s).any() else np.full(2, empty)
                         for s in range(4)]).astype(np.float32)
        assert_close(value, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="sorted"):
        ops.SegmentSum()(T(x), T(np.array([0, 2, 1, 2, 2, 3], np.int32)))


def _tf_bicubic_1d(x, out, align_corners, half_pixel):
    """TensorFlow's ResizeBicubic along the last axis, one output pixel at a time."""
    n = x.shape[-1]
    scale = (n - 1) / (out - 1) if align_corners and out > 1 else n / out
    a = -0.5 if half_pixel else -0.75

    def w(t):
        t = abs(t)
        return ((a + 2) * t - (a + 3)) * t * t + 1 if t <= 1 else \
            ((a * t - 5 * a) * t + 8 * a) * t - 4 * a if t < 2 else 0.0
    result = np.zeros(x.shape[:-1] + (out,))
    for o in range(out):
        src = (o + 0.5) * scale - 0.5 if half_pixel else o * scale
        base = int(np.floor(src))
        frac = round((src - base) * 1024) / 1024
        weights, total = [], 0.0
        for k in (-1, 0, 1, 2):
            tap = base + k
            if half_pixel and not 0 <= tap < n:
                continue
            weights.append((min(max(tap, 0), n - 1), w(frac - k)))
            total += weights[-1][1]
        for tap, weight in weights:
            result[..., o] += x[..., tap] * (weight / total if half_pixel else weight)
    return result


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("align_corners, half_pixel", [(False, False), (True, False),
                                                       (False, True)])
def test_tf_style_resizes(mode, align_corners, half_pixel):
    x = _rand((1, 2, 4, 5), 41)
    got = run_in_mode(lambda a: ops.ResizeBicubic(align_corners, half_pixel)(a, (7, 3)), mode,
                      T(x))
    want = _tf_bicubic_1d(_tf_bicubic_1d(x, 3, align_corners, half_pixel).swapaxes(-1, -2), 7,
                          align_corners, half_pixel).swapaxes(-1, -2)
    assert_close(got, want.astype(np.float32), rtol=1e-5, atol=1e-5)
    got = run_in_mode(lambda a: ops.ResizeNearestNeighborV2(align_corners, half_pixel)(
        a, (7, 3)), mode, T(x))

    def nearest(n, out):
        scale = (n - 1) / (out - 1) if align_corners and out > 1 else n / out
        src = (np.arange(out) + (0.5 if half_pixel else 0)) * scale
        return np.minimum(np.rint(src) if align_corners else np.floor(src), n - 1).astype(int)
    assert_close(got, x[:, :, nearest(4, 7)][:, :, :, nearest(5, 3)])
    with pytest.raises(ValueError, match="ResizeBicubic"):
        ops.ResizeBicubic(True, True)(T(x), (2, 2))


@pytest.mark.parametrize("mode", MODES)
def test_sparse_and_dense_classes(mode):
    indices = np.array([[0, 1], [2, 0]], np.int32)
    values = np.array([1.5, -2.0], np.float32)
    dense = np.zeros((3, 2), np.float32)
    dense[0, 1], dense[2, 0] = 1.5, -2.0
    other = _rand((3, 2), 42)
    got = run_in_mode(lambda i, v, o: (ops.SparseToDense()(i, v, (3, 2)),
                                       ops.SparseTensorDenseAdd()(i, v, (3, 2), o),
                                       ops.SparseTensorDenseMatmul(adjoint_dt=True)(
                                           i, v, (3, 2), o)), mode,
                      T(indices), T(values), T(other))
    assert_close(got, (dense, dense + other, dense @ other.T), rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_layout_and_format_classes(mode):
    x = _rand((2, 3, 4), 43)
    got = run_in_mode(lambda a: (ops.TensorShape()(a), ops.DynamicShape()(a),
                                 ops.ConjugateTranspose()(a, (2, 0, 1)),
                                 ops.IdentityN()((a, a))[1],
                                 ops.FillV2()((2, 2), T(np.float32(3.0))),
                                 ops.FillDiagonal(5.0, True)(ops.zeros((5, 2))),
                                 ops.InvertPermutation()(T(np.array([3, 4, 0, 2, 1], np.int32))),
                                 ops.DataFormatDimMap()(T(np.array([0, 1, 2, 3, -1], np.int32))),
                                 ops.DataFormatVecPermute()(T(np.array([1, 2, 3, 4], np.int32)))),
                      mode, T(x))
    assert got[0].tolist() == got[1].tolist() == [2, 3, 4]
    assert_close(got[2], x.transpose(2, 0, 1))
    assert_close(got[3], x)
    assert_close(got[4], np.full((2, 2), 3.0, np.float32))
    diagonal = np.zeros((5, 2), np.float32)
    np.fill_diagonal(diagonal, 5.0, wrap=True)
    assert_close(got[5], diagonal)
    assert got[6].tolist() == [2, 4, 3, 0, 1] and got[6].dtype == ms.int32
    assert got[7].tolist() == [0, 2, 3, 1, 1]
    assert got[8].tolist() == [1, 4, 2, 3]
    assert ops.InvertPermutation()((3, 4, 0, 2, 1)) == (2, 4, 3, 0, 1)
    assert ops.TupleToArray()((1, 2)).dtype == ms.int64
    assert ops.ScalarCast()(2.7, ms.int32) == 2
    assert ops.ScalarToTensor()(2, ms.float32).asnumpy() == np.float32(2.0)


@pytest.mark.parametrize("mode", MODES)
def test_counting_and_search_classes(mode):
    values = np.array([0, 1, 1, 5, 3], np.int32)
    weights = np.array([1.0, 2.0, 3.0, 4.0, 0.5], np.float32)
    got = run_in_mode(lambda v, w: (ops.Bincount()(v, 4, w), ops.Bincount()(v, 4, w[:0])), mode,
                      T(values), T(weights))
    assert_close(got[0], np.array([1.0, 5.0, 0.0, 0.5], np.float32))
    assert_close(got[1], np.array([1.0, 2.0, 0.0, 1.0], np.float32))
    seq = np.array([[1, 3, 5], [2, 4, 6]], np.int32)
    probe = np.array([[3, 6], [3, 0]], np.int32)
    got = run_in_mode(lambda s, v: (ops.LowerBound()(s, v), ops.UpperBound()(s, v)), mode,
                      T(seq), T(probe))
    for value, side in zip(got, ("left", "right")):
        assert value.dtype == ms.int32
        assert value.tolist() == [np.searchsorted(s, p, side).tolist() for s, p in zip(seq, probe)]
    x = np.array([0.5, 1.5, 1.6, 3.9, 7.0], np.float32)
    hist = run_in_mode(lambda a: ops.Histogram(4, 0.0, 4.0)(a), mode, T(x))
    assert hist.asnumpy().tolist() == [1, 2, 0, 1]
    bits = run_in_mode(lambda a: ops.CompareAndBitpack()(a, T(np.float32(0.5))), mode,
                       T(np.array([[1, 0, 0, 0, 0, 0, 0, 1], [0, 1, 1, 1, 1, 1, 1, 1]],
                                  np.float32)))
    assert bits.dtype == ms.uint8 and bits.tolist() == [[129], [127]]


@pytest.mark.parametrize("mode", MODES)
def test_small_linear_algebra_classes(mode):
    rng = np.random.default_rng(44)
    tall, wide = rng.standard_normal((4, 2)), rng.standard_normal((2, 4))
    rhs_tall, rhs_wide = rng.standard_normal((4, 1)), rng.standard_normal((2, 1))
    got = run_in_mode(lambda a, b, c, d: (ops.MatrixSolveLs()(a, b, T(0.5)),
                                          ops.MatrixSolveLs()(c, d, T(0.5))), mode,
                      T(tall), T(rhs_tall), T(wide), T(rhs_wide))
    assert_close(got[0], np.linalg.solve(tall.T @ tall + 0.5 * np.eye(2), tall.T @ rhs_tall),
                 rtol=1e-6)
    assert_close(got[1], wide.T @ np.linalg.solve(wide @ wide.T + 0.5 * np.eye(2), rhs_wide),
                 rtol=1e-6)
    sup, main, sub = (rng.standard_normal((1, 4)) for _ in range(3))
    rhs = rng.standard_normal((4, 3))
    got = run_in_mode(lambda a, b, c, d: ops.TridiagonalMatMul()(a, b, c, d), mode, T(sup),
                      T(main), T(sub), T(rhs))
    matrix = np.diag(main[0]) + np.diag(sup[0, :-1], 1) + np.diag(sub[0, 1:], -1)
    assert_close(got, matrix @ rhs, rtol=1e-6)
    m = rng.standard_normal((3, 3))
    got = run_in_mode(lambda a: (ops.NuclearNorm()(a), ops.Mvlgamma(2)(a * a + 2)), mode, T(m))
    assert_close(got[0], np.linalg.svd(m, compute_uv=False).sum(), rtol=1e-6)
    from math import lgamma, log, pi
    y = m * m + 2
    assert_close(got[1], 0.5 * log(pi) + np.vectorize(lgamma)(y) + np.vectorize(lgamma)(y - 0.5),
                 rtol=1e-6)
    got = run_in_mode(lambda s, e: ops.LogSpace(3, 2)(s, e), mode, T(1.0), T(3.0))
    assert_close(got, np.array([2.0, 4.0, 8.0], np.float32), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_grid_iou_and_scatter_axis_classes(mode):
    theta = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], np.float32)
    x = _rand((1, 2, 3, 4), 45)
    got = run_in_mode(lambda t, a: ops.GridSampler2D(align_corners=True)(
        a, ops.AffineGrid(True)(t, (1, 2, 3, 4))), mode, T(theta), T(x))
    assert_close(got, x, rtol=1e-5, atol=1e-6)  # the identity transform samples every pixel
    boxes = np.array([[0.0, 0.0, 2.0, 2.0]], np.float32)
    gt = np.array([[1.0, 1.0, 3.0, 3.0], [0.0, 0.0, 2.0, 2.0]], np.float32)
    got = run_in_mode(lambda a, b: ops.IOU()(a, b), mode, T(boxes), T(gt))
    assert_close(got, np.array([[1 / 7], [1.0]], np.float32), rtol=1e-5)
    got = run_in_mode(lambda a, i, u: ops.ScatterAddWithAxis(1)(a, i, u), mode,
                      T(np.zeros((2, 3), np.float32)), T(np.array([[0, 0], [2, 1]], np.int32)),
                      T(np.ones((2, 2), np.float32)))
    assert_close(got, np.array([[2, 0, 0], [0, 1, 1]], np.float32))


@pytest.mark.parametrize("mode", MODES)
def test_ctc_loss_with_sparse_labels(mode):
    steps, batch, classes = 6, 2, 4  # blank: the last class
    x = _rand((steps, batch, classes), 46)
    indices = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], np.int64)
    values = np.array([1, 1, 0, 2, 1], np.int32)
    lengths = np.array([6, 5], np.int32)
    loss, grad = run_in_mode(lambda a, i, v, n: ops.CTCLoss()(a, i, v, n), mode, T(x),
                             T(indices), T(values), T(lengths))
    dense = np.array([[1, 1, 0], [0, 2, 1]], np.int64)

    def total(logits):
        nll, _ = ops.ctc_loss(ops.log_softmax(logits, -1), T(dense), T(lengths.astype(np.int64)),
                              T(np.array([2, 3], np.int64)), blank=classes - 1, reduction="none")
        return nll.sum()
    want_loss, _ = ops.ctc_loss(ops.log_softmax(T(x), -1), T(dense), T(lengths.astype(np.int64)),
                                T(np.array([2, 3], np.int64)), blank=classes - 1,
                                reduction="none")
    assert_close(loss, want_loss.asnumpy(), rtol=1e-5)
    assert_close(grad, ms.grad(total)(T(x)).asnumpy(), rtol=1e-4, atol=1e-6)
    assert_close(grad[5, 1], np.zeros(classes, np.float32))  # past sample 1's length
    short = np.array([6, 2], np.int32)  # sample 1's 3 labels cannot fit in 2 steps
    loss, grad = ops.CTCLoss(ignore_longer_outputs_than_inputs=True)(
        T(x), T(indices), T(values), T(short))
    assert loss.asnumpy()[1] == 0 and (grad.asnumpy()[:, 1] == 0).all()
    with pytest.raises(ValueError, match="CTCLoss"):
        ops.CTCLoss(preprocess_collapse_repeated=True)(T(x), T(indices), T(values), T(lengths))


@pytest.mark.parametrize("mode", MODES)
def test_more_forwarding_classes(mode):
    b = _rand((3, 2), 47)
    x = _rand((2, 3), 48)
    got = run_in_mode(lambda v: (ops.Gelu()(v), ops.ComplexAbs()(v)), mode, T(x))
    assert_close(got[0], ops.gelu(T(x)).asnumpy())
    assert_close(got[1], np.abs(x))
    var = ms.Parameter(T(np.ones((3, 2), np.float32)), name="var")
    run_in_mode(lambda v: ops.AssignSub()(var, v), mode, T(b))
    assert_close(var.asnumpy(), 1 - b)
    var = ms.Parameter(T(np.zeros((3, 2), np.float32)), name="var")
    run_in_mode(lambda i, u: ops.ScatterNonAliasingAdd()(var, i, u), mode,
                T(np.array([[0, 1], [2, 0]], np.int32)), T(np.array([2.0, 3.0], np.float32)))
    assert_close(var.asnumpy(), np.array([[0, 2], [0, 0], [3, 0]], np.float32))
    got = run_in_mode(lambda v, u: ops.InplaceUpdateV2()(v, T(np.array([2, 0], np.int32)), u),
                      mode, T(b), T(np.zeros((2, 2), np.float32)))
    assert_close(got, np.stack([np.zeros(2), b[1], np.zeros(2)]).astype(np.float32))
    vol = _rand((1, 2, 2, 3, 4), 49)
    grid = np.zeros((1, 1, 1, 1, 3), np.float32)  # the centre of the volume
    got = run_in_mode(lambda v, g: ops.GridSampler3D(align_corners=True)(v, g), mode, T(vol),
                      T(grid))
    assert_close(got, ops.grid_sample(T(vol), T(grid), align_corners=True).asnumpy())


def test_lu_classes_forward_to_ops():
    b = T(_rand((3, 2), 47))
    lu_data = T(np.array([[4.0, 1.0, 2.0], [0.5, 4.5, 0.0], [0.25, 0.3889, 5.5]], np.float32))
    pivots = T(np.array([1, 2, 3], np.int32))
    assert_close(ops.LuSolve()(b, lu_data, pivots), ops.lu_solve(b, lu_data, pivots).asnumpy())
    assert_close(ops.LuUnpack()(lu_data, pivots), tuple(
        t.asnumpy() for t in ops.lu_unpack(lu_data, pivots)))


@pytest.mark.parametrize("mode", MODES)
def test_adam_weight_decay_and_variants(mode):
    lr, b1, b2, eps, decay, b1p, b2p = 0.01, 0.9, 0.999, 1e-6, 0.01, 0.9, 0.999

    def adam_wd(s, g):
        m = b1 * s[1] + (1 - b1) * g
        v = b2 * s[2] + (1 - b2) * g * g
        return [s[0] - lr * (m / (np.sqrt(v) + eps) + decay * s[0]), m, v]
    _check_updates(mode, [W0, np.zeros(4), np.zeros(4)],
                   lambda p, g: ops.AdamWeightDecay()(p[0], p[1], p[2], lr, b1, b2, eps, decay,
                                                      g), adam_wd, (0, 1, 2))

    def amsgrad(s, g):
        m = b1 * s[1] + (1 - b1) * g
        v = b2 * s[2] + (1 - b2) * g * g
        vhat = np.maximum(s[3], v)
        return [s[0] - lr * np.sqrt(1 - b2p) / (1 - b1p) * m / (np.sqrt(vhat) + eps), m, v, vhat]
    _check_updates(mode, [W0, np.zeros(4), np.zeros(4), np.zeros(4)],
                   lambda p, g: ops.ApplyAdamWithAmsgradV2()(p[0], p[1], p[2], p[3], b1p, b2p, lr,
                                                             b1, b2, eps, g), amsgrad, (0, 1, 2, 3))
    m = ms.Parameter(T(np.zeros(4, np.float32)), name="m")
    v = ms.Parameter(T(np.zeros(4, np.float32)), name="v")
    g = _rand((4,), 50)
    step = run_in_mode(lambda grad: ops.AdamNoUpdateParam()(m, v, b1p, b2p, lr, b1, b2, eps, grad),
                       mode, T(g))
    want_m, want_v = (1 - b1) * g, (1 - b2) * g * g
    assert_close(m.asnumpy(), want_m, rtol=1e-5, check_dtype=False)
    assert_close(step, -lr * np.sqrt(1 - b2p) / (1 - b1p) * want_m / (np.sqrt(want_v) + eps),
                 rtol=1e-4, check_dtype=False)


def _check_sparse(mode, slots, call, rule):
    """Two sparse steps on rows [2, 0] of (4, 2) slots: those rows follow the numpy dense
    `rule(rows, grad)`, the others stay; the call returns every slot."""
    params = [ms.Parameter(T(s.astype(np.float32)), name=f"slot{i}") for i, s in enumerate(slots)]
    state = [s.astype(np.float64) for s in slots]
    indices = np.array([2, 0], np.int32)
    step = (lambda g, i: call(params, g, i))
    step = ms.jit(step) if mode == "graph" else step
    for k in range(2):
        grad = _rand((2, 2), 60 + k)
        out = step(T(grad), T(indices))
        new_rows = rule([s[indices] for s in state], grad.astype(np.float64))
        for s, rows in zip(state, new_rows):
            s[indices] = rows
        for p, got, want in zip(params, out, state):
            assert_close(p.asnumpy(), want, rtol=1e-4, atol=1e-5, check_dtype=False)
            assert_close(got, want, rtol=1e-4, atol=1e-5, check_dtype=False)


SLOT = np.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 2.0], [4.0, 0.25]])


@pytest.mark.parametrize("mode", MODES)
def test_sparse_optimizer_updates(mode):
    lr, eps, l1, l2 = 0.1, 1e-3, 0.01, 0.1

    def adagrad(s, g, epsilon=0.0):
        accum = s[1] + g * g
        return [s[0] - lr * g / (np.sqrt(accum) + epsilon), accum]
    _check_sparse(mode, [SLOT, np.full((4, 2), 0.1)],
                  lambda p, g, i: ops.SparseApplyAdagrad(lr)(p[0], p[1], g, i), adagrad)
    _check_sparse(mode, [SLOT, np.full((4, 2), 0.1)],
                  lambda p, g, i: ops.SparseApplyAdagradV2(lr, eps)(p[0], p[1], g, i),
                  lambda s, g: adagrad(s, g, eps))

    def proximal(s, g):
        accum = s[1] + g * g
        prox = s[0] - lr * g / np.sqrt(accum)
        return [np.sign(prox) / (1 + lr * l2) * np.maximum(np.abs(prox) - lr * l1, 0), accum]
    _check_sparse(mode, [SLOT, np.full((4, 2), 0.1)],
                  lambda p, g, i: ops.SparseApplyProximalAdagrad()(p[0], p[1], lr, l1, l2, g, i),
                  proximal)

    def rms(s, g):
        ms_ = 0.9 * s[1] + 0.1 * g * g
        mom = 0.5 * s[2] + lr * g / np.sqrt(ms_ + 1e-6)
        return [s[0] - mom, ms_, mom]
    _check_sparse(mode, [SLOT, np.ones((4, 2)), np.zeros((4, 2))],
                  lambda p, g, i: ops.SparseApplyRMSProp(0.9, 0.5, 1e-6)(p[0], p[1], p[2], lr, g,
                                                                         i), rms)

    def ftrl(s, g, shrinkage=0.0):
        w, accum, linear = s
        new_accum = accum + g * g
        linear = linear + g + 2 * shrinkage * w - (np.sqrt(new_accum) - np.sqrt(accum)) / lr * w
        quadratic = np.sqrt(new_accum) / lr + 2 * l2
        w = np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quadratic, 0.0)
        return [w, new_accum, linear]
    _check_sparse(mode, [SLOT, np.full((4, 2), 0.1), np.zeros((4, 2))],
                  lambda p, g, i: ops.SparseApplyFtrl(lr, l1, l2, -0.5)(p[0], p[1], p[2], g, i),
                  ftrl)
    _check_sparse(mode, [SLOT, np.full((4, 2), 0.1), np.zeros((4, 2))],
                  lambda p, g, i: ops.SparseApplyFtrlV2(lr, l1, l2, 0.05, -0.5)(p[0], p[1], p[2],
                                                                                g, i),
                  lambda s, g: ftrl(s, g, 0.05))

    def adadelta(s, g):
        accum = 0.9 * s[1] + 0.1 * g * g
        update = np.sqrt(s[2] + 1e-6) / np.sqrt(accum + 1e-6) * g
        return [s[0] - 1.0 * update, accum, 0.9 * s[2] + 0.1 * update * update]
    _check_sparse(mode, [SLOT, np.zeros((4, 2)), np.zeros((4, 2))],
                  lambda p, g, i: ops.SparseApplyAdadelta(1e-6)(p[0], p[1], p[2], 1.0, 0.9, g, i),
                  adadelta)


# ***** ops.classes_detect: boxes, sampling, patches, histograms *****

@pytest.mark.parametrize("mode", MODES)
def test_bounding_box_encode_and_decode(mode):
    # MindSpore's documented examples (widths counted inclusively, + 1)
    anchors = np.array([[2.0, 2.0, 2.0, 3.0], [2.0, 2.0, 2.0, 3.0]], np.float32)
    truth = np.array([[1.0, 2.0, 1.0, 4.0], [1.0, 2.0, 1.0, 4.0]], np.float32)
    got = run_in_mode(lambda a, b: ops.BoundingBoxEncode()(a, b), mode, T(anchors), T(truth))
    assert_close(got, np.array([[-1.0, 0.25, 0.0, np.log(1.5)]] * 2, np.float32), rtol=1e-6)
    anchors = np.array([[4.0, 1.0, 2.0, 1.0], [2.0, 2.0, 2.0, 3.0]], np.float32)
    deltas = np.array([[3.0, 1.0, 2.0, 2.0], [1.0, 2.0, 1.0, 4.0]], np.float32)
    got = run_in_mode(lambda a, d: ops.BoundingBoxDecode((768, 1280), wh_ratio_clip=0.016)(a, d),
                      mode, T(anchors), T(deltas))
    e = np.e
    assert_close(got, np.array([[0.5 + e ** 2 / 2, 0, 0, 1.5 + e ** 2 / 2],
                                [3.5 - e / 2, 0, 2.5 + e / 2, 6 + e ** 4]], np.float32),
                 rtol=1e-5)
    # a round trip with means and stds
    rng = np.random.default_rng(51)
    corner = rng.uniform(0, 50, (5, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(5, 20, (5, 2))], 1).astype(np.float32)
    truth = (boxes + rng.uniform(-2, 2, (5, 4))).astype(np.float32)
    means, stds = (0.1, 0.0, -0.1, 0.0), (0.1, 0.1, 0.2, 0.2)
    got = run_in_mode(lambda a, b: ops.BoundingBoxDecode((100, 100), means, stds)(
        a, ops.BoundingBoxEncode(means, stds)(a, b)), mode, T(boxes), T(truth))
    assert_close(got, np.clip(truth, 0, 99), rtol=1e-4, atol=1e-3)


def test_random_choice_with_mask_follows_the_seed():
    x = np.array([[True, False, True], [False, True, False]])
    draws = []
    for _ in range(2):
        ms.set_seed(3)
        draws.append(ops.RandomChoiceWithMask(5)(T(x)))
    index, mask = draws[0]
    assert (index.asnumpy() == draws[1][0].asnumpy()).all()
    assert index.dtype == ms.int32 and index.shape == (5, 2) and mask.tolist() == [True] * 3 + [False] * 2
    assert sorted(map(tuple, index.asnumpy()[:3].tolist())) == [(0, 0), (0, 2), (1, 1)]
    assert (index.asnumpy()[3:] == 0).all()
    index, mask = ops.RandomChoiceWithMask(2)(T(x))
    assert mask.tolist() == [True, True] and all(x[tuple(i)] for i in index.asnumpy())


@pytest.mark.parametrize("mode", MODES)
def test_patches_and_depthwise_convolution(mode):
    x = _rand((1, 2, 4, 6), 52)
    cols, back = run_in_mode(lambda a: (ops.Im2Col(2, 2)(a),
                                        ops.Col2Im(2, stride=2)(ops.Im2Col(2, 2)(a), (4, 6))),
                             mode, T(x))
    assert cols.shape == (1, 2, 4, 6)  # (N, C, kh * kw, L)
    want = x.reshape(1, 2, 2, 2, 3, 2).transpose(0, 1, 3, 5, 2, 4).reshape(1, 2, 4, 6)
    assert_close(cols, want)
    assert_close(back, x)  # non-overlapping patches fold back to the input
    w = _rand((3, 2, 3, 3), 53)  # channel multiplier 3
    got = run_in_mode(lambda a, k: ops.DepthwiseConv2dNative(3, 3, pad_mode="same")(a, k), mode,
                      T(x), T(w))
    for c in range(2):
        for k in range(3):
            single = ops.conv2d(T(x[:, c:c + 1]), T(w[k:k + 1, c:c + 1]), None, 1, "same")
            assert_close(got[:, c * 3 + k:c * 3 + k + 1], single.asnumpy(), rtol=1e-5, atol=1e-5)
    vol = _rand((1, 1, 2, 4, 4), 54)
    out, argmax = run_in_mode(lambda a: ops.MaxPool3DWithArgmax(2, 2)(a), mode, T(vol))
    assert argmax.dtype == ms.int64
    assert_close(out, vol.reshape(1, 1, 1, 2, 2, 2, 2, 2).max((3, 5, 7)))
    assert_close(np.take(vol.ravel(), argmax.asnumpy().ravel()), out.asnumpy().ravel())


@pytest.mark.parametrize("mode", MODES)
def test_histograms_padding_and_truncated_normal(mode):
    got = run_in_mode(lambda a, r: ops.HistogramFixedWidth(5)(a, r), mode,
                      T(np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], np.float32)),
                      T(np.array([0.0, 5.0], np.float32)))
    assert got.dtype == ms.int32 and got.tolist() == [2, 1, 1, 0, 2]  # MindSpore's example
    got = run_in_mode(lambda a, b, w: (ops.ConfusionMatrix(3)(a, b), ops.ConfusionMatrix(
        3, "float32")(a, b, w)), mode, T(np.array([0, 1, 1, 2], np.int32)),
        T(np.array([0, 2, 1, 2], np.int32)), T(np.array([1.0, 2.0, 3.0, 4.0], np.float32)))
    assert got[0].tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    assert got[1].tolist() == [[1, 0, 0], [0, 3, 2], [0, 0, 4]]
    got = run_in_mode(lambda a: ops.Padding(4)(a), mode, T(np.array([[8.0], [10.0]], np.float32)))
    assert_close(got, np.array([[8, 0, 0, 0], [10, 0, 0, 0]], np.float32))
    ms.set_seed(4)
    draw = ops.ParameterizedTruncatedNormal()((2, 4000), T(np.array([0.0, 5.0], np.float32)),
                                              T(np.array([1.0, 2.0], np.float32)),
                                              T(np.array([-1.0, 4.0], np.float32)),
                                              T(np.array([1.0, 10.0], np.float32))).asnumpy()
    assert draw.shape == (2, 4000)
    assert draw[0].min() >= -1 and draw[0].max() <= 1 and abs(draw[0].mean()) < 0.05
    assert draw[1].min() >= 4 and draw[1].max() <= 10
    assert abs(draw[0].std() - 0.5379) < 0.03  # std of N(0, 1) truncated to [-1, 1]


@pytest.mark.parametrize("mode", MODES)
def test_adagrad_da_and_lars_update(mode):
    lr, l1, l2 = 0.1, 0.01, 0.1

    def adagrad_da(s, g):  # global_step 2 on every call below
        accum, squared = s[1] + g, s[2] + g * g
        tmp = np.sign(accum) * np.maximum(np.abs(accum) - l1 * 2, 0)
        return [-lr * tmp / (l2 * 2 * lr + np.sqrt(squared)), accum, squared]
    _check_updates(mode, [W0, np.zeros(4), np.full(4, 0.1)],
                   lambda p, g: ops.ApplyAdagradDA()(p[0], p[1], p[2], g, lr, l1, l2,
                                                     T(np.int32(2))), adagrad_da, (0,))
    w, g = _rand((3, 4), 55), _rand((3, 4), 56)
    for clip in (False, True):
        got = run_in_mode(lambda a, b: ops.LARSUpdate(1e-5, 0.001, clip)(
            a, b, (a * a).sum(), (b * b).sum(), 0.01, 0.5), mode, T(w), T(g))
        wn, gn = np.sqrt((w.astype(np.float64) ** 2).sum()), np.sqrt((g.astype(np.float64) ** 2).sum())
        ratio = 0.001 * wn / (gn + 0.01 * wn + 1e-5)
        ratio = min(ratio / 0.5, 1.0) if clip else ratio
        assert_close(got, ratio * (g + 0.01 * w), rtol=1e-5, check_dtype=False)


def _tf_crop_and_resize(x, boxes, box_index, crop, method, extrapolation):
    """TensorFlow's crop_and_resize, one output pixel at a time."""
    _, height, width, depth = x.shape
    out = np.zeros((len(boxes), crop[0], crop[1], depth))
    for b, (y1, x1, y2, x2) in enumerate(boxes):
        image = x[box_index[b]]
        for i in range(crop[0]):
            y = (y1 * (height - 1) + i * (y2 - y1) * (height - 1) / (crop[0] - 1) if crop[0] > 1
                 else 0.5 * (y1 + y2) * (height - 1))
            for j in range(crop[1]):
                xx = (x1 * (width - 1) + j * (x2 - x1) * (width - 1) / (crop[1] - 1)
                      if crop[1] > 1 else 0.5 * (x1 + x2) * (width - 1))
                if not (0 <= y <= height - 1 and 0 <= xx <= width - 1):
                    out[b, i, j] = extrapolation
                elif method == "nearest":
                    out[b, i, j] = image[int(np.floor(y + 0.5)), int(np.floor(xx + 0.5))]
                else:
                    top, left = int(np.floor(y)), int(np.floor(xx))
                    bottom, right = int(np.ceil(y)), int(np.ceil(xx))
                    dy, dx = y - top, xx - left
                    upper = image[top, left] + (image[top, right] - image[top, left]) * dx
                    lower = image[bottom, left] + (image[bottom, right] - image[bottom, left]) * dx
                    out[b, i, j] = upper + (lower - upper) * dy
    return out.astype(np.float32)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize(mode, method):
    x = _rand((2, 5, 6, 3), 57)
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0], [-0.2, 0.3, 0.6, 1.3],
                      [0.5, 0.5, 0.5, 0.5]], np.float32)
    box_index = np.array([1, 0, 0, 1], np.int32)
    got = run_in_mode(lambda a, b, i: ops.CropAndResize(method, 7.0)(a, b, i, (4, 3)), mode,
                      T(x), T(boxes), T(box_index))
    assert_close(got, _tf_crop_and_resize(x, boxes, box_index, (4, 3), method, 7.0), rtol=1e-5,
                 atol=1e-5)


# ***** ops.classes_image: colour spaces, dilation *****

@pytest.mark.parametrize("mode", MODES)
def test_colour_space_classes(mode):
    import colorsys
    rgb = np.random.default_rng(58).random((4, 5, 3)).astype(np.float32)
    rgb[0, 0] = (0.3, 0.3, 0.3)  # a grey: hue 0, saturation 0
    rgb[0, 1] = 0.0  # black
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.reshape(-1, 3)]).reshape(rgb.shape)
    got = run_in_mode(lambda a: (ops.RGBToHSV()(a), ops.HSVToRGB()(ops.RGBToHSV()(a))), mode,
                      T(rgb))
    assert_close(got[0], hsv.astype(np.float32), rtol=1e-5, atol=1e-6)
    assert_close(got[1], rgb, rtol=1e-5, atol=1e-6)
    shifted = hsv.copy()
    shifted[..., 0] = (shifted[..., 0] + 0.3) % 1.0
    want = np.array([colorsys.hsv_to_rgb(*p) for p in shifted.reshape(-1, 3)]).reshape(rgb.shape)
    got = run_in_mode(lambda a: ops.AdjustHue()(a, 0.3), mode, T(rgb))
    assert_close(got, want.astype(np.float32), rtol=1e-5, atol=1e-5)
    saturated = hsv.copy()
    saturated[..., 1] = np.clip(saturated[..., 1] * 1.7, 0, 1)
    want = np.array([colorsys.hsv_to_rgb(*p) for p in saturated.reshape(-1, 3)]).reshape(rgb.shape)
    got = run_in_mode(lambda a: ops.AdjustSaturation()(a, 1.7), mode, T(rgb))
    assert_close(got, want.astype(np.float32), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pad_mode, stride, rate", [("VALID", 1, 1), ("SAME", 2, 1),
                                                     ("SAME", 1, 2)])
def test_dilation2d(mode, pad_mode, stride, rate):
    x, w = _rand((1, 2, 6, 5), 59), _rand((2, 2, 3), 60)
    got = run_in_mode(lambda a, k: ops.Dilation2D((1, 1, stride, stride), (1, 1, rate, rate),
                                                  pad_mode)(a, k), mode, T(x), T(w))
    kh, kw = (np.array(w.shape[1:]) - 1) * rate + 1
    if pad_mode == "SAME":
        out_h, out_w = -(-6 // stride), -(-5 // stride)
        ph, pw = max((out_h - 1) * stride + kh - 6, 0), max((out_w - 1) * stride + kw - 5, 0)
        padded = np.pad(x, ((0, 0), (0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2)),
                        constant_values=-np.inf)
    else:
        padded = x
        out_h, out_w = (6 - kh) // stride + 1, (5 - kw) // stride + 1
    want = np.full((1, 2, out_h, out_w), -np.inf, np.float32)
    for i in range(out_h):
        for j in range(out_w):
            for a in range(w.shape[1]):
                for b in range(w.shape[2]):
                    value = padded[0, :, i * stride + a * rate, j * stride + b * rate] + w[:, a, b]
                    want[0, :, i, j] = np.maximum(want[0, :, i, j], value)
    assert_close(got, want, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("merge", [True, False])
def test_ctc_greedy_decoder(mode, merge):
    # best classes per step (blank = 3): sample 0: 1 1 3 1 2 0, sample 1 (length 4): 2 3 3 2 .
    best = np.array([[1, 2], [1, 3], [3, 3], [1, 2], [2, 0], [0, 1]])
    x = _rand((6, 2, 4), 61) * 0.1
    x[np.arange(6)[:, None], np.arange(2)[None, :], best] = 2.0
    got = run_in_mode(lambda a, n: ops.CTCGreedyDecoder(merge)(a, n), mode, T(x),
                      T(np.array([6, 4], np.int32)))
    decoded = ([[1, 1, 2, 0], [2, 2]] if merge else [[1, 1, 1, 2, 0], [2, 2]])
    assert got[0].tolist() == [[b, k] for b, row in enumerate(decoded) for k in range(len(row))]
    assert got[1].tolist() == [v for row in decoded for v in row]
    assert got[2].tolist() == [2, max(map(len, decoded))]
    want = -np.array([[x[:6, 0].max(-1).sum()], [x[:4, 1].max(-1).sum()]], np.float32)
    assert_close(got[3], want, rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_sparse_updates_sum_repeated_indices_and_fused_forms(mode):
    lr = 0.1
    var = ms.Parameter(T(SLOT.astype(np.float32)), name="var")
    accum = ms.Parameter(T(np.full((4, 2), 0.1, np.float32)), name="accum")
    grad = _rand((3, 2), 62)
    indices = np.array([1, 3, 1], np.int32)
    run_in_mode(lambda g, i: ops.SparseApplyAdagrad(lr)(var, accum, g, i), mode, T(grad),
                T(indices))
    summed = np.zeros((4, 2))
    np.add.at(summed, indices, grad)
    want_accum = np.full((4, 2), 0.1) + summed ** 2
    want_var = SLOT - lr * summed / np.sqrt(want_accum)
    assert_close(accum.asnumpy(), want_accum, rtol=1e-5, check_dtype=False)
    assert_close(var.asnumpy(), want_var, rtol=1e-5, check_dtype=False)

    b1, b2, eps, b1p, b2p = 0.9, 0.999, 1e-8, 0.9, 0.999
    for name, lazy in (("FusedSparseAdam", False), ("FusedSparseLazyAdam", True)):
        slots = [ms.Parameter(T(s.astype(np.float32)), name=f"s{k}")
                 for k, s in enumerate((SLOT, np.full((4, 2), 0.1), np.full((4, 2), 0.01)))]
        out = run_in_mode(lambda g, i: getattr(ops, name)()(*slots, b1p, b2p, lr, b1, b2, eps, g,
                                                             i), mode, T(grad), T(indices))
        assert [o.shape for o in out] == [(1,)] * 3
        m = b1 * 0.1 + (1 - b1) * summed
        v = b2 * 0.01 + (1 - b2) * summed ** 2
        w = SLOT - lr * np.sqrt(1 - b2p) / (1 - b1p) * m / (np.sqrt(v) + eps)
        rows = np.isin(np.arange(4), indices)[:, None] if lazy else np.ones((4, 1), bool)
        for param, want, old in zip(slots, (w, m, v), (SLOT, 0.1, 0.01)):
            assert_close(param.asnumpy(), np.where(rows, want, old), rtol=1e-5,
                         check_dtype=False)
    slots = [ms.Parameter(T(s.astype(np.float32)), name=f"f{k}")
             for k, s in enumerate((SLOT, np.full((4, 2), 0.1)))]
    out = run_in_mode(lambda g, i: ops.FusedSparseProximalAdagrad()(*slots, lr, 0.01, 0.1, g, i),
                      mode, T(grad), T(indices))
    new_accum = 0.1 + summed ** 2
    prox = SLOT - lr * summed / np.sqrt(new_accum)
    shrunk = np.sign(prox) / (1 + lr * 0.1) * np.maximum(np.abs(prox) - lr * 0.01, 0)
    rows = np.isin(np.arange(4), indices)[:, None]
    assert_close(slots[0].asnumpy(), np.where(rows, shrunk, SLOT), rtol=1e-5, check_dtype=False)
    assert [o.shape for o in out] == [(1,)] * 2
    slots = [ms.Parameter(T(s.astype(np.float32)), name=f"t{k}")
             for k, s in enumerate((SLOT, np.full((4, 2), 0.1), np.zeros((4, 2))))]
    run_in_mode(lambda g, i: ops.FusedSparseFtrl(lr, 0.01, 0.1, -0.5)(*slots, g, i), mode,
                T(grad), T(indices))
    new_accum = 0.1 + summed ** 2
    linear = summed - (np.sqrt(new_accum) - np.sqrt(0.1)) / lr * SLOT
    quadratic = np.sqrt(new_accum) / lr + 0.2
    w = np.where(np.abs(linear) > 0.01, (np.sign(linear) * 0.01 - linear) / quadratic, 0.0)
    assert_close(slots[0].asnumpy(), np.where(rows, w, SLOT), rtol=1e-5, atol=1e-6,
                 check_dtype=False)


@pytest.mark.parametrize("mode", MODES)
def test_no_repeat_ngram(mode):
    seq = np.array([[[1, 2, 1, 2, 5, 1, 2], [9, 3, 9, 5, 4, 1, 5]],
                    [[4, 8, 6, 4, 5, 6, 4], [4, 8, 8, 4, 3, 4, 8]]], np.int32)
    probs = np.random.default_rng(63).random((2, 2, 10)).astype(np.float32)
    got = run_in_mode(lambda s, p: ops.NoRepeatNGram(3)(s, p), mode, T(seq), T(probs))
    want = probs.copy()
    lowest = np.finfo(np.float32).min
    for b in range(2):
        for k in range(2):
            row = seq[b, k].tolist()
            for i in range(len(row) - 2):
                if row[i:i + 2] == row[-2:]:
                    want[b, k, row[i + 2]] = lowest
    # MindSpore's example: (1, 2) -> ban 1 and 5; (6, 4) -> ban 5; (4, 8) -> ban 8
    assert (want == lowest).sum() == 4
    assert_close(got, want)


@pytest.mark.parametrize("mode", MODES)
def test_matrix_diag_v3_family(mode):
    x = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 8, 7, 6]], np.float32)
    got = run_in_mode(lambda a: (ops.MatrixDiagPartV3()(a, (-1, 2), 9.0),
                                 ops.MatrixDiagPartV3("LEFT_RIGHT")(a, (-1, 2), 9.0),
                                 ops.MatrixDiagPartV3()(a, 1, 0.0)), mode, T(x))
    # TensorFlow's documented band of this matrix
    assert got[0].tolist() == [[9, 3, 8], [2, 7, 6], [1, 6, 7], [5, 8, 9]]
    assert got[1].tolist() == [[3, 8, 9], [2, 7, 6], [1, 6, 7], [9, 5, 8]]
    assert got[2].tolist() == [2, 7, 6]
    band = np.array([[9, 3, 8], [2, 7, 6], [1, 6, 7], [5, 8, 9]], np.float32)
    got = run_in_mode(lambda a, d: ops.MatrixSetDiagV3()(a, d, (-1, 2)), mode,
                      T(np.zeros((3, 4), np.float32)), T(band))
    want = np.triu(np.tril(x, 2), -1)  # the band of x, zeros elsewhere
    assert_close(got, want)
    got = run_in_mode(lambda d: (ops.MatrixDiagV3()(d, 1, -1, -1, 0.0),
                                 ops.MatrixDiagV3()(d, (0, 1), 3, 4, 7.0)), mode,
                      T(np.array([[1, 2, 3], [4, 5, 6]], np.float32)))
    assert got[0].shape == (2, 4, 4)  # one superdiagonal: the smallest square holding it
    assert_close(got[0][1], np.diag([4.0, 5.0, 6.0], 1).astype(np.float32))
    assert got[1].tolist() == [[4, 1, 7, 7], [7, 5, 2, 7], [7, 7, 6, 3]]  # both of length 3


# ***** ops.classes_control: composition and checks *****

@pytest.mark.parametrize("mode", MODES)
def test_map_hyper_map_partial_parallel_concat(mode):
    a, b = _rand((2,), 64), _rand((2,), 65)

    def body(x, y):
        nested = ops.HyperMap(ops.Mul())((x, (y, [x])), (y, (y, [y])))
        mapped = ops.Map()(ops.Sub(), (x, y), (y, x))
        scale = ops.Partial()(ops.mul, 3.0)
        joined = ops.ParallelConcat()((ops.expand_dims(x, 0), ops.expand_dims(y, 0)))
        return nested, mapped, scale(x), joined
    nested, mapped, scaled, joined = run_in_mode(body, mode, T(a), T(b))
    assert isinstance(nested[1][1], list)
    assert_close(nested[0], a * b)
    assert_close(nested[1][0], b * b)
    assert_close(nested[1][1][0], a * b)
    assert_close(mapped, (a - b, b - a))
    assert_close(scaled, 3 * a)
    assert_close(joined, np.stack([a, b]))
    order = []
    ops.Map(lambda v: order.append(v), reverse=True)((1, 2, 3))
    assert order == [3, 2, 1]
    with pytest.raises(ValueError, match="differ in length"):
        ops.HyperMap(ops.Add())((T(a),), (T(a), T(b)))


def test_assert_and_check_numerics():
    ops.Assert()(T(np.array([True, True])), [T(a) for a in (np.ones(2),)])
    with pytest.raises(ValueError, match="condition is False"):
        ops.Assert(2)(T(np.array([True, False])), [T(np.arange(5.0))])
    x = T(np.array([1.0, 2.0], np.float32))
    assert ops.CheckNumerics()(x) is x
    with pytest.raises(ValueError, match="NaN or Inf"):
        ops.CheckNumerics()(T(np.array([1.0, np.inf], np.float32)))
    with pytest.raises(ValueError, match="NaN or Inf"):
        ms.jit(lambda v: ops.CheckNumerics()(v * 0.0 / 0.0))(x)
