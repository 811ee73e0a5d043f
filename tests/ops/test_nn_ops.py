"""The nn ops (ops/conv.py, pool.py, normalization.py, dropout.py, loss.py, activation.py).

Values are compared with straightforward numpy references (loops for conv/pool); gradients
with float64 central differences on tiny shapes.
"""
import numpy as np
import pytest
from helpers import assert_close, numeric_grad, run_in_mode

import minispore as ms
from minispore import ops
from minispore.ops import conv, pool
from minispore.ops.primitive import OpError

RNG = np.random.default_rng(0)


def T(a):
    return ms.Tensor(np.asarray(a))


def randn(*shape):
    return RNG.standard_normal(shape)


# ***** helpers *****

def assert_grads_match(fn, *arrays, positions=None, atol=1e-6, rtol=1e-5):
    """ms.grad of fn (Tensors -> scalar Tensor) at float64 `arrays` equals finite
    differences, for each float position."""
    arrays = [np.asarray(a) for a in arrays]
    if positions is None:
        positions = tuple(i for i, a in enumerate(arrays) if a.dtype.kind == "f")
    grads = ms.grad(fn, grad_position=tuple(positions))(*map(T, arrays))
    value = lambda arrs: float(fn(*map(T, arrs)))  # noqa: E731
    for p, g in zip(positions, grads):
        np.testing.assert_allclose(g.asnumpy(), numeric_grad(value, arrays, p), atol=atol,
                                   rtol=rtol, err_msg=f"gradient of input {p}")


def projected(op, shape_of_out):
    """A scalar function <c, op(...)> with a fixed random cotangent c (tests every element)."""
    c = T(randn(*shape_of_out))
    return lambda *args: ops.sum(op(*args) * c)


def pad4(x, pads, value=0.0):
    t, b, l, r = pads
    return np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=value)


def conv_ref(x, w, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    x = pad4(x, pads)
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    ho, wo = (h - dh * (kh - 1) - 1) // sh + 1, (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, ho, wo))
    per_group = o // groups
    for b in range(n):
        for oc in range(o):
            g = oc // per_group
            for i in range(ho):
                for j in range(wo):
                    patch = x[b, g * cg:(g + 1) * cg, i * sh:i * sh + dh * (kh - 1) + 1:dh,
                              j * sw:j * sw + dw * (kw - 1) + 1:dw]
                    out[b, oc, i, j] = (patch * w[oc]).sum()
    return out


def pool_ref(x, kernel, stride, pads, reduce, dilation=(1, 1), pad_value=0.0):
    x = pad4(x, pads, pad_value)
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    ho, wo = (h - dh * (kh - 1) - 1) // sh + 1, (w - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            win = x[:, :, i * sh:i * sh + dh * (kh - 1) + 1:dh,
                    j * sw:j * sw + dw * (kw - 1) + 1:dw]
            out[:, :, i, j] = reduce(win.reshape(n, c, -1), axis=-1)
    return out


# ***** conv2d *****

CONV_CASES = [
    # x shape, w shape, kwargs, explicit pads of the reference
    ((2, 3, 6, 7), (4, 3, 3, 3), dict(), (0, 0, 0, 0)),
    ((1, 2, 7, 7), (3, 2, 3, 2), dict(stride=2, pad_mode="pad", padding=1), (1, 1, 1, 1)),
    ((1, 2, 6, 6), (2, 2, 2, 3), dict(pad_mode="pad", padding=(0, 2, 1, 0)), (0, 2, 1, 0)),
    ((1, 2, 8, 8), (2, 2, 3, 3), dict(dilation=2, stride=(1, 2)), (0, 0, 0, 0)),
    ((2, 4, 5, 5), (6, 2, 3, 3), dict(groups=2, pad_mode="pad", padding=1), (1, 1, 1, 1)),
    # 'same' with stride 2 on an even size: total pad 1 goes to the bottom/right
    ((1, 1, 5, 5), (1, 1, 2, 2), dict(stride=2, pad_mode="same"), (0, 1, 0, 1)),
    ((1, 1, 5, 6), (2, 1, 3, 3), dict(pad_mode="same"), (1, 1, 1, 1)),
    ((1, 2, 5, 5), (2, 2, 3, 3), dict(pad_mode="same", dilation=2), (2, 2, 2, 2)),
]


def _conv_kwargs_for_ref(kwargs):
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    return dict(stride=pair(kwargs.get("stride", 1)), dilation=pair(kwargs.get("dilation", 1)),
                groups=kwargs.get("groups", 1))


@pytest.mark.parametrize("x_shape, w_shape, kwargs, pads", CONV_CASES)
def test_conv2d_matches_loop_reference(x_shape, w_shape, kwargs, pads):
    x, w = randn(*x_shape).astype(np.float32), randn(*w_shape).astype(np.float32)
    out = ops.conv2d(T(x), T(w), **kwargs)
    assert out.dtype == ms.float32
    expected = conv_ref(x, w, pads=pads, **_conv_kwargs_for_ref(kwargs))
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4, atol=1e-4)


def test_conv2d_same_keeps_size_and_pads_bottom_right():
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 3, 3] = 1.0  # only the bottom-right window over the extra pad row/col sees it
    w = np.ones((1, 1, 2, 2))
    out = ops.conv2d(T(x), T(w), pad_mode="same").asnumpy()
    assert out.shape == (1, 1, 4, 4)
    assert out[0, 0, 3, 3] == 1.0 and out[0, 0, 2, 2] == 1.0 and out.sum() == 4.0


def test_conv2d_bias():
    x, w, b = randn(2, 2, 4, 4), randn(3, 2, 3, 3), randn(3)
    out = ops.conv2d(T(x), T(w), T(b)).asnumpy()
    np.testing.assert_allclose(out, conv_ref(x, w) + b[None, :, None, None], atol=1e-10)


@pytest.mark.parametrize("x_shape, w_shape, kwargs, pads", CONV_CASES[1:])
def test_conv2d_gradients(x_shape, w_shape, kwargs, pads):
    x, w = randn(*x_shape), randn(*w_shape)
    out_shape = ops.conv2d(T(x), T(w), **kwargs).shape
    fn = projected(lambda x, w: ops.conv2d(x, w, **kwargs), out_shape)
    assert_grads_match(fn, x, w)


def test_conv2d_bias_gradient():
    x, w, b = randn(1, 2, 4, 4), randn(3, 2, 2, 2), randn(3)
    fn = projected(lambda x, w, b: ops.conv2d(x, w, b, stride=2), (1, 3, 2, 2))
    assert_grads_match(fn, x, w, b)


def test_conv2d_second_order_through_grad_of_grad():
    x, w = randn(1, 2, 5, 5), randn(2, 2, 3, 3)

    def grad_norm(x, w):
        gx, gw = ms.grad(lambda x, w: ops.sum(ops.tanh(ops.conv2d(x, w, stride=2))),
                         grad_position=(0, 1))(x, w)
        return ops.sum(gx * gx) + ops.sum(gw * gw)
    assert_grads_match(grad_norm, x, w, atol=1e-5)


def test_conv2d_channel_mismatch_names_op_and_shapes():
    x, w = T(np.zeros((1, 3, 5, 5), np.float32)), T(np.zeros((2, 2, 3, 3), np.float32))
    with pytest.raises(OpError) as info:
        ops.conv2d(x, w)
    text = str(info.value)
    assert "ops.conv2d" in text and "3 channels" in text
    assert "Float32[1, 3, 5, 5]" in text and "Float32[2, 2, 3, 3]" in text
    assert "test_nn_ops.py" in text  # the user's line


@pytest.mark.parametrize("x, w, kwargs, fragment", [
    (np.zeros((1, 2, 5, 5), np.float32), np.zeros((2, 2, 3, 3), np.float64), {}, "one dtype"),
    (np.zeros((1, 2, 2, 2), np.float32), np.zeros((2, 2, 3, 3), np.float32), {}, "does not fit"),
    (np.zeros((2, 5, 5), np.float32), np.zeros((2, 2, 3, 3), np.float32), {}, "4-D"),
    (np.zeros((1, 4, 5, 5), np.float32), np.zeros((3, 2, 3, 3), np.float32), dict(groups=2),
     "multiple of groups"),
])
def test_conv2d_bad_input_errors(x, w, kwargs, fragment):
    with pytest.raises(OpError, match=fragment) as info:
        ops.conv2d(T(x), T(w), **kwargs)
    assert "ops.conv2d" in str(info.value)


def test_conv2d_bad_arguments():
    x, w = T(np.zeros((1, 1, 5, 5))), T(np.zeros((1, 1, 3, 3)))
    with pytest.raises(ValueError, match="pad_mode"):
        ops.conv2d(x, w, pad_mode="full")
    with pytest.raises(ValueError, match="padding must be 0"):
        ops.conv2d(x, w, pad_mode="same", padding=1)
    with pytest.raises(ValueError, match="bias"):
        ops.conv2d(x, w, T(np.zeros(2)))


# ***** max pooling *****

MAX_POOL_CASES = [
    # kwargs of ops.max_pool2d, explicit pads of the reference (ceil_mode rows included)
    (dict(kernel_size=2), (0, 0, 0, 0)),
    (dict(kernel_size=3, stride=2), (0, 0, 0, 0)),
    (dict(kernel_size=(3, 2), stride=(1, 2), padding=1), (1, 1, 1, 1)),
    (dict(kernel_size=2, stride=1, dilation=2), (0, 0, 0, 0)),
    (dict(kernel_size=2, stride=2, ceil_mode=True), (0, 1, 0, 0)),  # input 7x6
]


def _max_pool_ref_args(kwargs):
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    kernel = pair(kwargs["kernel_size"])
    stride = pair(kwargs.get("stride", kwargs["kernel_size"]))
    return kernel, stride, pair(kwargs.get("dilation", 1))


@pytest.mark.parametrize("kwargs, pads", MAX_POOL_CASES)
def test_max_pool2d_matches_reference(kwargs, pads):
    x = randn(2, 3, 7, 6)
    kernel, stride, dilation = _max_pool_ref_args(kwargs)
    out = ops.max_pool2d(T(x), **kwargs).asnumpy()
    np.testing.assert_array_equal(out, pool_ref(x, kernel, stride, pads, np.max, dilation, -np.inf))


@pytest.mark.parametrize("kwargs, pads", MAX_POOL_CASES)
def test_max_pool2d_gradients(kwargs, pads):
    x = RNG.permutation(84).reshape(1, 2, 7, 6) * 0.1  # distinct values: argmax is stable
    out_shape = ops.max_pool2d(T(x), **kwargs).shape
    assert_grads_match(projected(lambda x: ops.max_pool2d(x, **kwargs), out_shape), x)


def test_max_pool2d_ties_route_gradient_to_first_max():
    x = np.array([[[[1.0, 3.0], [3.0, 3.0]]]])
    g = ms.grad(lambda x: ops.sum(ops.max_pool2d(x, 2)))(T(x)).asnumpy()
    np.testing.assert_array_equal(g, [[[[0.0, 1.0], [0.0, 0.0]]]])


def test_max_pool2d_overlapping_windows_accumulate():
    x = np.array([[[[0.0, 9.0, 0.0, 1.0]]]])
    g = ms.grad(lambda x: ops.sum(ops.max_pool2d(x, (1, 3), stride=1)))(T(x)).asnumpy()
    np.testing.assert_array_equal(g, [[[[0.0, 2.0, 0.0, 0.0]]]])


@pytest.mark.parametrize("stride", [(2, 1), (2, 2)])  # (2, 2): windows tile the input
def test_max_pool2d_gather_is_adjoint_of_grad(stride):
    x, g = randn(2, 2, 6, 6), randn(2, 2, 6, 6)
    attrs = dict(kernel_size=(2, 2), stride=stride, padding=(0, 0, 0, 0), dilation=(1, 1))
    _, index = pool.max_pool2d_p(T(x), **attrs)
    d = randn(*index.shape)
    scattered = pool.max_pool2d_grad(index, T(d), input_size=(6, 6), **attrs).asnumpy()
    gathered = pool.max_pool2d_gather(index, T(g), **attrs).asnumpy()
    assert np.isclose((scattered * g).sum(), (d * gathered).sum())


def test_max_pool2d_same_mode_and_int_input():
    x = np.arange(25, dtype=np.int32).reshape(1, 1, 5, 5)
    out = ops.max_pool2d(T(x), 2, 2, pad_mode="same")
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy()[0, 0], [[6, 8, 9], [16, 18, 19], [21, 23, 24]])


def test_max_pool2d_errors():
    with pytest.raises(ValueError, match="at most half"):
        ops.max_pool2d(T(randn(1, 1, 4, 4)), 2, padding=2)
    with pytest.raises(OpError, match="4-D") as info:
        ops.max_pool2d(T(randn(4, 4)), 2)
    assert "ops.max_pool2d" in str(info.value)
    with pytest.raises(OpError, match="does not fit"):
        ops.max_pool2d(T(randn(1, 1, 2, 2)), 3)


# ***** max pooling with indices (return_indices=True) *****

INDEX_CASES = MAX_POOL_CASES + [
    # kwargs, explicit pads of the reference (ceil_mode's extra column included), on 7x6
    ({"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}, (1, 1, 1, 2)),
    ({"kernel_size": 3, "stride": (2, 1), "padding": (2, 1), "dilation": 2}, (2, 2, 1, 1)),
]


def argmax_reference(x, kernel, stride, pads, dilation):
    """Flat position h * W + w in its input plane of each window's first maximum among its
    real cells (row-major; padding is never chosen), as PyTorch's max_pool2d indices."""
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    t, b, l, r = pads
    ho, wo = (h + t + b - dh * (kh - 1) - 1) // sh + 1, (w + l + r - dw * (kw - 1) - 1) // sw + 1
    argmax = np.zeros((n, c, ho, wo), np.int64)
    for b_, c_, i, j in np.ndindex(argmax.shape):
        cells = [(i * sh - t + p * dh, j * sw - l + q * dw) for p in range(kh) for q in range(kw)]
        cells = [(row, col) for row, col in cells if 0 <= row < h and 0 <= col < w]
        row, col = cells[int(np.argmax([x[b_, c_, row, col] for row, col in cells]))]
        argmax[b_, c_, i, j] = row * w + col
    return argmax


def gathered(x, argmax):
    """x at the flat positions `argmax` of each input plane."""
    n, c = x.shape[:2]
    flat = np.take_along_axis(x.reshape(n, c, -1), argmax.reshape(n, c, -1), axis=-1)
    return flat.reshape(argmax.shape)


@pytest.mark.parametrize("kwargs, pads", INDEX_CASES)
def test_max_pool2d_indices_are_the_first_maximum_positions(kwargs, pads, mode):
    x = RNG.integers(0, 3, (2, 3, 7, 6)).astype(np.float32)  # many ties: the first max wins
    out, argmax = run_in_mode(lambda x: ops.max_pool2d(x, return_indices=True, **kwargs),
                              mode, T(x))
    kernel, stride, dilation = _max_pool_ref_args(kwargs)
    want = argmax_reference(x, kernel, stride, pads, dilation)
    assert argmax.dtype == ms.int64
    np.testing.assert_array_equal(argmax.asnumpy(), want)
    np.testing.assert_array_equal(out.asnumpy(), gathered(x, argmax.asnumpy()))
    np.testing.assert_array_equal(out.asnumpy(), ops.max_pool2d(T(x), **kwargs).asnumpy())


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_max_pool2d_indices_never_point_into_the_padding(dtype, mode):
    # cells holding the lowest value tie with the padding: the first real cell must win
    lowest = -np.inf if dtype == np.float32 else np.iinfo(dtype).min
    x = np.full((1, 2, 5, 4), lowest, dtype)
    x[0, 1, 3, 2] = 7
    kwargs = {"kernel_size": 3, "stride": (1, 2), "padding": 1, "dilation": (1, 2)}
    out, argmax = run_in_mode(lambda x: ops.max_pool2d(x, return_indices=True, **kwargs),
                              mode, T(x))
    np.testing.assert_array_equal(argmax.asnumpy(), argmax_reference(
        x, (3, 3), (1, 2), (1, 1, 1, 1), (1, 2)))
    assert ((argmax.asnumpy() >= 0) & (argmax.asnumpy() < 20)).all()
    np.testing.assert_array_equal(out.asnumpy(), gathered(x, argmax.asnumpy()))


@pytest.mark.parametrize("kwargs, pads", INDEX_CASES[2::3])
def test_max_pool2d_with_indices_keeps_the_values_gradient(kwargs, pads, mode):
    x = RNG.permutation(84).reshape(1, 2, 7, 6) * 0.1  # distinct values: argmax is stable
    c = T(randn(*ops.max_pool2d(T(x), **kwargs).shape))

    def values_and_indices(x):
        out, argmax = ops.max_pool2d(x, return_indices=True, **kwargs)
        # the indices reach the loss too, but carry no gradient
        return ops.sum(out * c) + ops.sum(ops.cast(argmax, ms.float64))

    with_indices = run_in_mode(ms.grad(values_and_indices), mode, T(x)).asnumpy()
    values_only = ms.grad(lambda x: ops.sum(ops.max_pool2d(x, **kwargs) * c))(T(x)).asnumpy()
    np.testing.assert_array_equal(with_indices, values_only)
    assert_grads_match(lambda x: ops.sum(ops.max_pool2d(x, return_indices=True,
                                                        **kwargs)[0] * c), x)


def test_max_pool2d_return_indices_must_be_a_bool():
    with pytest.raises(TypeError, match="ops.max_pool2d: return_indices must be a bool"):
        ops.max_pool2d(T(randn(1, 1, 4, 4)), 2, return_indices="yes")


# (kernel, stride, pads, dilation) of the max_pool2d primitive: tiled windows take the fast
# path (reshapes, no window scan in the backward), the others the general one
ROUTE_CASES = [
    ((2, 2), (2, 2), (0, 0, 0, 0), (1, 1)),  # tiled
    ((3, 2), (3, 2), (0, 0, 0, 0), (1, 1)),  # tiled, non-square
    ((2, 2), (2, 2), (0, 1, 0, 0), (1, 1)),  # ceil_mode-like padding: general
    ((3, 3), (1, 2), (1, 1, 1, 1), (1, 1)),  # overlapping: general
    ((2, 2), (1, 1), (0, 0, 0, 0), (2, 1)),  # dilated: general
]


def first_max_reference(x, d, kernel, stride, pads, dilation):
    """(pooled values, kernel offset of each window's first maximum, d routed to it)."""
    xp = pad4(x, pads, -np.inf)
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    ho, wo = d.shape[2:]
    values, index = np.zeros(d.shape), np.zeros(d.shape, np.int64)
    grad = np.zeros(xp.shape)
    for n, c, i, j in np.ndindex(d.shape):
        rows, cols = i * sh + dh * np.arange(kh), j * sw + dw * np.arange(kw)
        k = int(np.argmax(xp[n, c][np.ix_(rows, cols)]))  # np.argmax: the first maximum
        values[n, c, i, j], index[n, c, i, j] = xp[n, c, rows[k // kw], cols[k % kw]], k
        grad[n, c, rows[k // kw], cols[k % kw]] += d[n, c, i, j]
    t, _, l, _ = pads
    return values, index, grad[:, :, t:t + x.shape[2], l:l + x.shape[3]]


def _pool_attrs(kernel, stride, pads, dilation):
    return dict(kernel_size=kernel, stride=stride, padding=pads, dilation=dilation)


@pytest.mark.parametrize("kernel, stride, pads, dilation", ROUTE_CASES)
def test_max_pool2d_index_and_gradient_follow_the_first_maximum(kernel, stride, pads,
                                                                dilation, mode):
    x = RNG.integers(0, 3, (2, 3, 6, 8)).astype(np.float32)  # many ties
    attrs = _pool_attrs(kernel, stride, pads, dilation)
    values, index = run_in_mode(lambda x: pool.max_pool2d_p(x, **attrs), mode, T(x))
    d = randn(*values.shape).astype(np.float32)
    want_values, want_index, want_grad = first_max_reference(x, d, kernel, stride, pads,
                                                             dilation)
    assert index.dtype == ms.int8
    np.testing.assert_array_equal(values.asnumpy(), want_values)
    np.testing.assert_array_equal(index.asnumpy(), want_index)
    grad = ms.grad(lambda x: ops.sum(pool.max_pool2d_p(x, **attrs)[0] * T(d)))
    np.testing.assert_allclose(run_in_mode(grad, mode, T(x)).asnumpy(), want_grad, rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("kernel, stride, pads, dilation", ROUTE_CASES[::3])
def test_max_pool2d_grad_keeps_a_non_finite_dout_at_the_maximum(kernel, stride, pads,
                                                                dilation):
    x = randn(1, 2, 6, 8)
    attrs = _pool_attrs(kernel, stride, pads, dilation)
    _, index = pool.max_pool2d_p(T(x), **attrs)
    d = randn(*index.shape)
    d[0, 0, 0, 0], d[0, 1, 1, 1] = np.inf, np.nan
    grad = pool.max_pool2d_grad(index, T(d), input_size=(6, 8), **attrs).asnumpy()
    # inf and nan reach only their window's maximum (a product with the mask would put
    # inf * 0 = nan on the rest of the window)
    np.testing.assert_allclose(grad, first_max_reference(x, d, kernel, stride, pads,
                                                         dilation)[2], rtol=1e-12)


def test_max_pool2d_grad_and_gather_reject_a_bad_index():
    attrs = _pool_attrs((2, 2), (2, 2), (0, 0, 0, 0), (1, 1))
    with pytest.raises(OpError, match="integer") as info:
        pool.max_pool2d_grad(T(np.zeros((1, 1, 2, 2))), T(randn(1, 1, 2, 2)),
                               input_size=(4, 4), **attrs)
    assert "ops.max_pool2d_grad" in str(info.value)
    with pytest.raises(OpError, match="pooled shape") as info:
        pool.max_pool2d_gather(T(np.zeros((1, 1, 3, 2), np.int8)), T(randn(1, 1, 4, 4)),
                                 **attrs)
    assert "ops.max_pool2d_gather" in str(info.value)


def test_max_pool2d_and_conv2d_take_an_empty_batch():
    x, w = T(np.zeros((0, 2, 8, 8), np.float32)), T(np.ones((3, 2, 3, 3), np.float32))
    assert ops.max_pool2d(ops.conv2d(x, w), 2).shape == (0, 3, 3, 3)
    gw = ms.grad(lambda w: ops.sum(ops.max_pool2d(ops.conv2d(x, w, pad_mode="same"), 2)))(w)
    np.testing.assert_array_equal(gw.asnumpy(), np.zeros((3, 2, 3, 3), np.float32))


def test_conv2d_family_on_lenet_shapes_in_float32():
    # the layout tricks (shifted copies, views of them fed to matmul) at realistic sizes, and
    # an input that is not contiguous
    x = np.ascontiguousarray(randn(12, 12, 6, 4).astype(np.float32)).transpose(3, 2, 1, 0)
    w, d = randn(16, 6, 5, 5).astype(np.float32), randn(4, 16, 8, 8).astype(np.float32)
    attrs = dict(stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1)
    x64, w64, d64 = (a.astype(np.float64) for a in (x, w, d))
    windows = np.lib.stride_tricks.sliding_window_view(x64, (5, 5), axis=(2, 3))
    np.testing.assert_allclose(conv.conv2d_p.impl(np, x, w, **attrs),
                               np.einsum("nchwij,ocij->nohw", windows, w64), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(
        conv.conv2d_filter_grad.impl(np, x, d, kernel_size=(5, 5), **attrs),
        np.einsum("nchwij,nohw->ocij", windows, d64), rtol=1e-4, atol=1e-3)
    full = np.lib.stride_tricks.sliding_window_view(pad4(d64, (4, 4, 4, 4)), (5, 5),
                                                    axis=(2, 3))
    np.testing.assert_allclose(
        conv.conv2d_input_grad.impl(np, d, w, input_size=(12, 12), **attrs),
        np.einsum("nohwij,ocij->nchw", full, w64[:, :, ::-1, ::-1]), rtol=1e-4, atol=1e-4)


# ***** average pooling *****

def avg_ref(x, kernel, stride, pads, count_include_pad, extra=(0, 0)):
    """Sum over windows of the zero-padded input, divided by the number of cells that are
    input (or explicit padding, with count_include_pad); `extra` ceil_mode rows never count."""
    total = (pads[0], pads[1] + extra[0], pads[2], pads[3] + extra[1])
    sums = pool_ref(x, kernel, stride, total, np.sum)
    ones = np.ones((1, 1) + x.shape[2:])
    counted = pad4(ones, pads, 1.0 if count_include_pad else 0.0)
    counted = np.pad(counted, ((0, 0), (0, 0), (0, extra[0]), (0, extra[1])))
    counts = pool_ref(counted, kernel, stride, (0, 0, 0, 0), np.sum)
    return sums / counts


@pytest.mark.parametrize("kwargs, pads, include, extra", [
    (dict(kernel_size=2, stride=2), (0, 0, 0, 0), True, (0, 0)),
    (dict(kernel_size=3), (0, 0, 0, 0), True, (0, 0)),  # MindSpore's stride default is 1
    (dict(kernel_size=3, stride=2, padding=1), (1, 1, 1, 1), True, (0, 0)),
    (dict(kernel_size=3, stride=2, padding=1, count_include_pad=False), (1, 1, 1, 1), False,
     (0, 0)),
    (dict(kernel_size=(2, 3), stride=2, padding=(1, 0, 0, 1)), (1, 0, 0, 1), True, (0, 0)),
    (dict(kernel_size=2, stride=2, ceil_mode=True), (0, 0, 0, 0), True, (1, 0)),
])
def test_avg_pool2d_matches_reference(kwargs, pads, include, extra):
    x = randn(2, 2, 7, 6)
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    kernel, stride = pair(kwargs["kernel_size"]), pair(kwargs.get("stride", 1))
    out = ops.avg_pool2d(T(x), **kwargs).asnumpy()
    np.testing.assert_allclose(out, avg_ref(x, kernel, stride, pads, include, extra), atol=1e-12)


def test_avg_pool2d_same_mode_averages_real_cells_only():
    x = np.ones((1, 1, 5, 5))
    out = ops.avg_pool2d(T(x), 2, 2, pad_mode="same").asnumpy()
    np.testing.assert_allclose(out, np.ones((1, 1, 3, 3)))


def test_avg_pool2d_divisor_override_and_gradient():
    x = randn(1, 2, 5, 5)
    out = ops.avg_pool2d(T(x), 2, 2, divisor_override=3).asnumpy()
    np.testing.assert_allclose(out, pool_ref(x, (2, 2), (2, 2), (0, 0, 0, 0), np.sum) / 3)
    op = lambda x: ops.avg_pool2d(x, 3, 2, padding=1, count_include_pad=False)  # noqa: E731
    assert_grads_match(projected(op, op(T(x)).shape), x)


def test_avg_pool2d_rejects_integer_input():
    with pytest.raises(OpError, match="float") as info:
        ops.avg_pool2d(T(np.ones((1, 1, 4, 4), np.int32)), 2, 2)
    assert "ops.avg_pool2d" in str(info.value)


# ***** batch_norm and layer_norm *****

def test_batch_norm_training_normalises_and_updates_running_stats():
    x = randn(4, 3, 2, 5)
    weight, bias = randn(3), randn(3)
    running_mean, running_var = T(np.full(3, 0.5)), T(np.full(3, 2.0))
    out = ops.batch_norm(T(x), running_mean, running_var, T(weight), T(bias), training=True,
                         momentum=0.1, eps=1e-5).asnumpy()
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))
    expected = (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5)
    np.testing.assert_allclose(out, expected * weight[:, None, None] + bias[:, None, None],
                               atol=1e-10)
    # functional convention: running = (1 - momentum) * running + momentum * batch (unbiased var)
    np.testing.assert_allclose(running_mean.asnumpy(), 0.9 * 0.5 + 0.1 * mean)
    unbiased = x.var(axis=(0, 2, 3), ddof=1)
    np.testing.assert_allclose(running_var.asnumpy(), 0.9 * 2.0 + 0.1 * unbiased)


def test_batch_norm_inference_uses_running_stats():
    x = randn(3, 2)
    mean, var, weight, bias = randn(2), np.abs(randn(2)) + 0.5, randn(2), randn(2)
    running_mean = T(mean)
    out = ops.batch_norm(T(x), running_mean, T(var), T(weight), T(bias), eps=1e-3).asnumpy()
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-3) * weight + bias, atol=1e-12)
    np.testing.assert_array_equal(running_mean.asnumpy(), mean)


def test_batch_norm_training_gradients():
    x, weight, bias = randn(3, 2, 2, 2), randn(2), randn(2)

    def fn(x, weight, bias):
        out = ops.batch_norm(x, T(np.zeros(2)), T(np.ones(2)), weight, bias, training=True)
        return ops.sum(out * T(np.arange(24.0).reshape(3, 2, 2, 2) % 5))
    assert_grads_match(fn, x, weight, bias, atol=1e-5)


def test_batch_norm_errors():
    with pytest.raises(OpError, match="more than one value per channel"):
        ops.batch_norm(T(randn(1, 3)), T(np.zeros(3)), T(np.ones(3)), None, None, training=True)
    with pytest.raises(OpError, match=r"weight must have shape \(3,\)"):
        ops.batch_norm(T(randn(2, 3)), T(np.zeros(3)), T(np.ones(3)), T(np.ones(2)), None)


def test_layer_norm_values_and_gradients():
    x, weight, bias = randn(2, 3, 4), randn(3, 4), randn(3, 4)
    out = ops.layer_norm(T(x), (3, 4), T(weight), T(bias), eps=1e-5).asnumpy()
    mean = x.mean(axis=(1, 2), keepdims=True)
    var = x.var(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5) * weight + bias, atol=1e-10)
    fn = projected(lambda x, w, b: ops.layer_norm(x, (4,), w, b), (2, 3, 4))
    assert_grads_match(fn, x, randn(4), randn(4), atol=1e-5)
    with pytest.raises(OpError, match="trailing axes"):
        ops.layer_norm(T(x), (3,))


# ***** dropout *****

def test_dropout_is_seeded_scaled_and_masks_the_gradient():
    x = T(np.ones((200, 50)))
    ms.set_seed(7)
    first = ops.dropout(x, p=0.3).asnumpy()
    ms.set_seed(7)
    again = ops.dropout(x, p=0.3).asnumpy()
    np.testing.assert_array_equal(first, again)
    assert set(np.unique(first)) <= {0.0, 1 / 0.7}
    assert abs((first == 0).mean() - 0.3) < 0.02
    assert not np.array_equal(first, ops.dropout(x, p=0.3).asnumpy())  # the stream moves on
    ms.set_seed(3)
    g = ms.grad(lambda x: ops.sum(ops.dropout(x, p=0.5) * 3.0))(x).asnumpy()
    ms.set_seed(3)
    mask = ops.dropout(x, p=0.5).asnumpy()
    np.testing.assert_array_equal(g, 3.0 * mask)


def test_dropout_identity_cases_and_op_seed():
    x = T(randn(4, 4))
    assert ops.dropout(x, p=0.5, training=False) is x
    assert ops.dropout(x, p=0.0) is x
    np.testing.assert_array_equal(ops.dropout(x, p=1.0).asnumpy(), np.zeros((4, 4)))
    ms.set_seed(1)
    a = ops.dropout(x, seed=5).asnumpy()
    ms.set_seed(1)
    b = ops.dropout(x, seed=5).asnumpy()
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="p must be"):
        ops.dropout(x, p=1.5)


# ***** classification losses *****

def log_softmax_ref(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def nll_ref(logp, target, weight, ignore_index, reduction, smoothing):
    """MindSpore's nll_loss on (N, C) log-probabilities, written as loops."""
    n, c = logp.shape
    weight = np.ones(c) if weight is None else weight
    losses, weights, smooth = np.zeros(n), np.zeros(n), np.zeros(n)
    for i, t in enumerate(target):
        if t == ignore_index:
            continue
        weights[i] = weight[t]
        losses[i] = -weight[t] * logp[i, t]
        smooth[i] = -logp[i].sum()
    if reduction == "mean":
        loss, smooth = losses.sum() / weights.sum(), smooth.mean()
    elif reduction == "sum":
        loss, smooth = losses.sum(), smooth.sum()
    else:
        loss = losses
    return (1 - smoothing) * loss + smoothing / c * smooth


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("use_weight, smoothing", [(False, 0.0), (True, 0.0), (True, 0.2)])
def test_cross_entropy_class_indices(reduction, use_weight, smoothing):
    logits, target = randn(5, 4), np.array([1, -100, 3, 0, 3])
    weight = np.abs(randn(4)) + 0.1 if use_weight else None
    out = ops.cross_entropy(T(logits), T(target), None if weight is None else T(weight),
                            ignore_index=-100, reduction=reduction, label_smoothing=smoothing)
    expected = nll_ref(log_softmax_ref(logits, 1), target, weight, -100, reduction, smoothing)
    np.testing.assert_allclose(out.asnumpy(), expected, atol=1e-12)


def test_cross_entropy_gradient_with_smoothing_weight_and_ignore_index():
    target, weight = T(np.array([2, 0, 7, 2])), T(np.array([0.5, 1.0, 2.0]))
    def fn(x):
        return ops.cross_entropy(x, target, weight, ignore_index=7, label_smoothing=0.1)
    assert_grads_match(fn, randn(4, 3))


def test_cross_entropy_spatial_targets_and_plain_value():
    logits, target = randn(2, 3, 2, 2), np.array([[[0, 1], [2, 1]], [[1, 1], [0, 2]]])
    out = ops.cross_entropy(T(logits), T(target), reduction="none").asnumpy()
    logp = log_softmax_ref(logits, 1)
    expected = -np.take_along_axis(logp, target[:, None], axis=1)[:, 0]
    np.testing.assert_allclose(out, expected, atol=1e-12)
    logits = np.array([[2.0, 0.0], [0.0, 2.0]], np.float32)
    assert np.isclose(float(ops.cross_entropy(T(logits), T([0, 1]))), np.log1p(np.exp(-2.0)))


def test_cross_entropy_probability_targets():
    logits, probs = randn(3, 4, 2), np.abs(randn(3, 4, 2))
    probs /= probs.sum(axis=1, keepdims=True)
    weight = np.abs(randn(4))
    out = ops.cross_entropy(T(logits), T(probs), T(weight), label_smoothing=0.3).asnumpy()
    smoothed = probs * 0.7 + 0.3 / 4
    terms = log_softmax_ref(logits, 1) * smoothed * weight[None, :, None]
    np.testing.assert_allclose(out, -terms.sum() / 6, atol=1e-12)
    fn = lambda x, p: ops.cross_entropy(x, p, reduction="sum", label_smoothing=0.3)  # noqa: E731
    assert_grads_match(fn, logits, probs)


def test_cross_entropy_bad_target_shape():
    with pytest.raises(OpError, match="class indices of shape") as info:
        ops.cross_entropy(T(randn(4, 3)), T(np.array([0, 1])))
    assert "ops.cross_entropy" in str(info.value)  # the op the user called
    with pytest.raises(ValueError, match="reduction"):
        ops.cross_entropy(T(randn(4, 3)), T(np.array([0, 1, 2, 0])), reduction="avg")


def softmax_ref(x, axis):
    return np.exp(log_softmax_ref(x, axis))


def values_and_grads(fn, mode, x, seed=0):
    """fn(x) (a Tensor) and the gradient of <c, fn(x)> for a random cotangent c, in `mode`."""
    c = T(np.random.default_rng(seed).standard_normal(np.shape(fn(T(x)))))
    value_and_grad = ms.value_and_grad(lambda x: ops.sum(fn(x) * c))
    _, grad = run_in_mode(value_and_grad, mode, T(x))
    return run_in_mode(fn, mode, T(x)).asnumpy(), grad.asnumpy(), c.asnumpy()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_of_class_indices_agrees_with_the_weighted_path(reduction, mode):
    """Without weight (or smoothing) cross_entropy runs one primitive; with weight=1 it runs
    log_softmax and nll_loss: the same values and gradients, ignored labels included."""
    logits, target = randn(6, 4), T(np.array([1, -100, 3, 0, 3, 2]))
    fast = values_and_grads(lambda x: ops.cross_entropy(x, target, reduction=reduction), mode,
                            logits)
    weighted = values_and_grads(lambda x: ops.cross_entropy(x, target, T(np.ones(4)),
                                                            reduction=reduction), mode, logits)
    for got, want in zip(fast[:2], weighted[:2]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_cross_entropy_gradient_is_softmax_minus_onehot(mode):
    logits, target = randn(5, 3), np.array([0, 2, 7, 1, 2])
    grad_fn = ms.grad(lambda x: ops.cross_entropy(x, T(target), ignore_index=7))
    grad = run_in_mode(grad_fn, mode, T(logits)).asnumpy()
    counted = target != 7
    onehot = (target[:, None] == np.arange(3)).astype(float)
    want = (softmax_ref(logits, 1) - onehot) * counted[:, None] / counted.sum()
    np.testing.assert_allclose(grad, want, rtol=1e-12, atol=1e-12)


EXTREME = np.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 0.0], [0.0, 0.0, 0.0]], np.float32)


@pytest.mark.parametrize("sparse_api", [False, True])
def test_cross_entropy_is_finite_and_exact_on_extreme_logits(sparse_api, mode):
    labels = T(np.array([1, 1, 2]))
    def loss(x):
        if sparse_api:
            return ops.softmax_cross_entropy_with_logits(x, labels, sparse=True, reduction="none")
        return ops.cross_entropy(x, labels, reduction="none")
    value, grad, c = values_and_grads(loss, mode, EXTREME)
    # -log_softmax at the label: 1e4 - (-1e4), 0, log(3)
    np.testing.assert_allclose(value, [2e4, 0.0, np.log(3.0)], rtol=1e-6)
    probs = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1 / 3] * 3])
    onehot = np.eye(3)[[1, 1, 2]]
    np.testing.assert_allclose(grad, (probs - onehot) * c[:, None], rtol=1e-6, atol=1e-7)
    mean = run_in_mode(lambda x: ops.cross_entropy(x, labels), mode, T(EXTREME))
    np.testing.assert_allclose(float(mean), (2e4 + np.log(3.0)) / 3, rtol=1e-6)


def test_class_index_losses_reject_labels_out_of_range(mode):
    for labels in ([0, 3], [0, -1]):  # -1 would wrap around to the last class unchecked
        with pytest.raises((OpError, RuntimeError), match=r"class indices in \[0, 3\)"):
            run_in_mode(lambda x, t: ops.cross_entropy(x, t), mode, T(randn(2, 3)),
                        T(np.array(labels)))
    with pytest.raises(OpError, match="sparse_softmax_cross_entropy.*in \\[0, 3\\)"):
        ops.softmax_cross_entropy_with_logits(T(randn(2, 3)), T(np.array([0, 3])), sparse=True)


def test_labels_out_of_range_on_a_device_give_a_nan_loss(monkeypatch):
    """Checking device labels would copy them to the host every step: a nan marks them."""
    from fake_device import FakeNamespace, Transfers

    from minispore.context import device
    fake = FakeNamespace()
    for name, value in (("_xp", fake), ("current_xp", fake), ("_scalars", {})):
        monkeypatch.setattr(device, name, value)
    logits, labels = T(randn(4, 3)), T(np.array([0, 3, -100, -1]))
    downloads = Transfers.downloads
    loss = ops.cross_entropy(logits, labels, reduction="none")
    assert Transfers.downloads == downloads
    loss = loss.asnumpy()
    assert np.isnan(loss[[1, 3]]).all() and loss[2] == 0.0 and np.isfinite(loss[0])


def test_nll_loss_on_log_probabilities():
    logp, target = log_softmax_ref(randn(4, 3), 1), np.array([0, 2, 1, 1])
    out = float(ops.nll_loss(T(logp), T(target)))
    assert np.isclose(out, -logp[np.arange(4), target].mean())


@pytest.mark.parametrize("sparse", [True, False])
def test_softmax_cross_entropy_with_logits(sparse):
    logits, labels = randn(4, 5), np.array([0, 4, 2, 2])
    dense = np.eye(5)[labels]
    out = ops.softmax_cross_entropy_with_logits(T(logits), T(labels if sparse else dense),
                                                sparse=sparse).asnumpy()
    np.testing.assert_allclose(out, -(log_softmax_ref(logits, 1) * dense).sum(1), atol=1e-12)
    fn = lambda x: ops.softmax_cross_entropy_with_logits(  # noqa: E731
        x, T(labels if sparse else dense), sparse=sparse, reduction="mean")
    assert_grads_match(fn, logits)


# ***** binary and regression losses *****

def bce_logits_ref(x, y, weight=None, pos_weight=None):
    sig = 1 / (1 + np.exp(-x))
    pw = 1.0 if pos_weight is None else pos_weight
    loss = -(pw * y * np.log(sig) + (1 - y) * np.log(1 - sig))
    return loss * (1.0 if weight is None else weight)


def test_binary_cross_entropy_with_logits_values_and_gradients():
    x, y = randn(3, 4), (randn(3, 4) > 0).astype(np.float64)
    weight, pos_weight = np.abs(randn(3, 4)), np.abs(randn(4)) + 0.5
    out = ops.binary_cross_entropy_with_logits(T(x), T(y), T(weight), T(pos_weight),
                                               reduction="none").asnumpy()
    np.testing.assert_allclose(out, bce_logits_ref(x, y, weight, pos_weight), atol=1e-12)
    assert np.isclose(float(ops.binary_cross_entropy_with_logits(T(x), T(y))),
                      bce_logits_ref(x, y).mean())
    def fn(x):
        return ops.binary_cross_entropy_with_logits(x, T(y), T(weight), T(pos_weight))
    assert_grads_match(fn, x)


def test_binary_cross_entropy_with_logits_is_stable_and_exact_at_zero():
    x = T(np.array([-200.0, 200.0, 0.0], np.float32))
    y = T(np.array([1.0, 0.0, 1.0], np.float32))
    out = ops.binary_cross_entropy_with_logits(x, y, reduction="none").asnumpy()
    np.testing.assert_allclose(out, [200.0, 200.0, np.log(2.0)], rtol=1e-6)
    g = ms.grad(lambda x: ops.binary_cross_entropy_with_logits(x, y, reduction="sum"))(x).asnumpy()
    np.testing.assert_allclose(g, [-1.0, 1.0, -0.5], atol=1e-6)  # sigmoid(x) - y


def test_binary_cross_entropy_values_gradients_and_clamp():
    p, y, w = 1 / (1 + np.exp(-randn(5))), np.array([0, 1, 1, 0, 1.0]), np.abs(randn(5))
    out = float(ops.binary_cross_entropy(T(p), T(y), T(w)))
    assert np.isclose(out, (-(y * np.log(p) + (1 - y) * np.log(1 - p)) * w).mean())
    assert_grads_match(lambda p: ops.binary_cross_entropy(p, T(y), reduction="sum"), p)
    with np.errstate(divide="ignore"):  # log(0) = -inf, then clamped
        edge = ops.binary_cross_entropy(T(np.array([0.0, 1.0])), T(np.array([1.0, 0.0])),
                                        reduction="none")
    np.testing.assert_array_equal(edge.asnumpy(), [100.0, 100.0])


def test_kl_div():
    logp, target = log_softmax_ref(randn(2, 3), 1), np.array([[0.2, 0.0, 0.8], [0.5, 0.25, 0.25]])
    pointwise = np.where(target > 0, target * (np.log(np.where(target > 0, target, 1)) - logp), 0)
    np.testing.assert_allclose(float(ops.kl_div(T(logp), T(target))), pointwise.mean())
    batchmean = float(ops.kl_div(T(logp), T(target), "batchmean"))
    np.testing.assert_allclose(batchmean, pointwise.sum() / 2)
    log_target = ops.kl_div(T(logp[1:]), T(np.log(target[1:])), "sum", log_target=True)
    assert np.isclose(float(log_target), pointwise[1].sum())
    assert_grads_match(lambda x: ops.kl_div(x, T(target), "sum"), logp)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses(reduction):
    x, y = randn(3, 4), randn(3, 4)
    reduce = {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction]
    d = np.abs(x - y)
    cases = [
        (ops.mse_loss, (x - y) ** 2, {}),
        (ops.l1_loss, d, {}),
        (ops.smooth_l1_loss, np.where(d < 0.7, 0.5 * d * d / 0.7, d - 0.35), dict(beta=0.7)),
    ]
    for op, pointwise, kwargs in cases:
        out = op(T(x), T(y), reduction=reduction, **kwargs).asnumpy()
        np.testing.assert_allclose(out, reduce(pointwise), atol=1e-12, err_msg=op.__name__)
        assert_grads_match(lambda x, y: ops.sum(op(x, y, reduction=reduction, **kwargs)), x, y)


def test_loss_argument_errors():
    with pytest.raises(ValueError, match="reduction"):
        ops.mse_loss(T(randn(2)), T(randn(2)), reduction="avg")
    with pytest.raises(ValueError, match="beta"):
        ops.smooth_l1_loss(T(randn(2)), T(randn(2)), beta=0.0)
    with pytest.raises(OpError, match="same shape"):
        ops.binary_cross_entropy_with_logits(T(randn(2, 3)), T(randn(3)))


# ***** activations *****

@pytest.mark.parametrize("axis", [-1, 0, (0, 2)])
def test_softmax_and_log_softmax_match_numpy(axis, mode):
    x = randn(3, 4, 5)
    want = log_softmax_ref(x, axis)
    got = run_in_mode(lambda t: (ops.softmax(t, axis), ops.log_softmax(t, axis)), mode, T(x))
    assert_close(got, (np.exp(want), want), rtol=1e-12, atol=1e-12)


def test_softmax_family_gradients_have_their_closed_forms(mode):
    x = randn(3, 4)
    probs = softmax_ref(x, 1)
    _, grad, c = values_and_grads(lambda t: ops.softmax(t, 1), mode, x)
    np.testing.assert_allclose(grad, probs * (c - (c * probs).sum(1, keepdims=True)),
                               rtol=1e-12, atol=1e-12)
    _, grad, c = values_and_grads(lambda t: ops.log_softmax(t, 1), mode, x)
    np.testing.assert_allclose(grad, c - probs * c.sum(1, keepdims=True), rtol=1e-12,
                               atol=1e-12)


def test_softmax_family_is_finite_on_extreme_logits(mode):
    rows = np.array([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4], [1e4, 1e4, -1e4]], np.float32)
    probs, grad_probs, c = values_and_grads(ops.softmax, mode, rows)
    np.testing.assert_allclose(probs, [[1, 0, 0], [1 / 3] * 3, [0.5, 0.5, 0]], rtol=1e-6)
    np.testing.assert_allclose(grad_probs, probs * (c - (c * probs).sum(1, keepdims=True)),
                               rtol=1e-5, atol=1e-6)
    logp, grad_logp, c = values_and_grads(ops.log_softmax, mode, rows)
    log2, log3 = np.log(2.0), np.log(3.0)
    np.testing.assert_allclose(logp, [[0, -2e4, -1e4], [-log3] * 3, [-log2, -log2, -2e4 - log2]],
                               rtol=1e-6)
    np.testing.assert_allclose(grad_logp, c - probs * c.sum(1, keepdims=True), rtol=1e-5,
                               atol=1e-6)


def squared_gradient(fn):
    """t -> |grad fn(t)|^2: its gradient goes through fn's second derivatives."""
    first = ms.grad(fn)
    return lambda t: ops.sum(first(t) * first(t))


def test_softmax_family_and_cross_entropy_second_derivatives():
    x, target = randn(3, 4), T(np.array([1, 3, 0]))
    c = T(randn(3, 4))
    for fn in (lambda t: ops.sum(ops.softmax(t, 1) * c),
               lambda t: ops.sum(ops.log_softmax(t, 1) * c),
               lambda t: ops.cross_entropy(t, target)):
        assert_grads_match(squared_gradient(fn), x)


def test_softmax_family_dtypes_and_errors():
    assert ops.softmax(T(np.array([1, 2, 3]))).dtype == ms.float32  # integers compute in Float32
    assert float(ops.log_softmax(T(np.array(3.0)))) == 0.0  # a 0-d tensor is its own class
    with pytest.raises(OpError, match="ops.softmax: axis 2 is out of range") as info:
        ops.softmax(T(randn(2, 3)), axis=2)
    assert "test_nn_ops.py" in str(info.value)
    for mode in ("pynative", "graph"):
        with pytest.raises(OpError, match="log_softmax.*Bool"):
            run_in_mode(ops.log_softmax, mode, T(np.array([True, False])))


def test_activation_values():
    x = np.array([-5.0, -3.0, -1.0, 0.0, 0.5, 3.0, 6.0, 8.0])
    relu6 = np.clip(x, 0, 6)
    np.testing.assert_allclose(ops.relu6(T(x)).asnumpy(), relu6)
    np.testing.assert_allclose(ops.leaky_relu(T(x)).asnumpy(), np.where(x > 0, x, 0.2 * x))
    np.testing.assert_allclose(ops.elu(T(x), 0.5).asnumpy(), np.where(x > 0, x, 0.5 * np.expm1(x)))
    np.testing.assert_allclose(ops.hardsigmoid(T(x)).asnumpy(), np.clip(x + 3, 0, 6) / 6)
    np.testing.assert_allclose(ops.hardswish(T(x)).asnumpy(), x * np.clip(x + 3, 0, 6) / 6)
    assert np.isfinite(ops.elu(T(np.array([1000.0]))).asnumpy()).all()


def test_activation_gradients():
    x = np.array([-2.5, -0.7, 0.4, 1.3, 2.2, 5.1, 7.0])
    for op in (ops.relu6, ops.leaky_relu, ops.elu, ops.hardsigmoid, ops.hardswish):
        assert_grads_match(lambda x: ops.sum(op(x) * T(np.arange(1.0, 8.0))), x)
    # subgradients at the kinks follow PyTorch: 0 at both ends of relu6
    g = ms.grad(lambda x: ops.sum(ops.relu6(x)))(T(np.array([0.0, 6.0, 3.0]))).asnumpy()
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0])
    g = ms.grad(lambda x: ops.sum(ops.elu(x, 2.0)))(T(np.array([0.0]))).asnumpy()
    np.testing.assert_array_equal(g, [2.0])


# ***** both modes *****

def small_convnet_loss(running_mean, running_var):
    """A loss over conv, batch_norm (updating the given running stats), pools and losses."""
    def loss(x, w, gamma, beta, labels):
        h = ops.conv2d(x, w, pad_mode="same", stride=1)
        h = ops.batch_norm(h, running_mean, running_var, gamma, beta, training=True)
        h = ops.max_pool2d(ops.relu6(h), 2, 1, ceil_mode=True)
        h = ops.avg_pool2d(h, 2, 2, padding=1, count_include_pad=False)
        logits = ops.reshape(h, (h.shape[0], -1))
        soft_labels = ops.sigmoid(logits * 0.5)
        pos_weight = T(np.full(logits.shape[1:], 2.0))
        return (ops.cross_entropy(logits, labels, label_smoothing=0.1)
                + ops.binary_cross_entropy_with_logits(logits, soft_labels, pos_weight=pos_weight))
    return loss


def test_composites_agree_in_both_modes(mode):
    args = [T(randn(2, 3, 5, 5)), T(randn(2, 3, 3, 3)), T(randn(2)), T(randn(2)), T([3, 7])]
    # running stats are closed over, as a layer holds them (not jit arguments)
    stats = {run: (T(np.zeros(2)), T(np.ones(2))) for run in ("eager", "tested")}
    grad_fns = {run: ms.value_and_grad(small_convnet_loss(*stats[run]), grad_position=(0, 1, 2, 3))
                for run in stats}
    want = grad_fns["eager"](*args)
    got = run_in_mode(grad_fns["tested"], mode, *args)
    assert_close(got, want, rtol=1e-10, atol=1e-12)
    # the running statistics were updated once, the same way, in both modes
    assert_close(stats["tested"], stats["eager"], rtol=1e-12, atol=1e-12)
    assert not np.allclose(stats["tested"][0].asnumpy(), 0.0)


def test_dropout_draws_a_new_mask_on_every_run(mode):
    x = T(np.ones((8, 8)))
    drop = lambda x: ops.dropout(x, p=0.5)  # noqa: E731
    ms.set_seed(11)
    first, second = run_in_mode(drop, mode, x).asnumpy(), run_in_mode(drop, mode, x).asnumpy()
    assert not np.array_equal(first, second)
    ms.set_seed(11)
    np.testing.assert_array_equal(run_in_mode(drop, mode, x).asnumpy(), first)
