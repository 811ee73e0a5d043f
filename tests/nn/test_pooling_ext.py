"""3-D, adaptive, power-average pooling and unpooling: values against numpy references of the
definitions (PyTorch when installed), finite-difference gradients, compiled values."""
import numpy as np
import pytest
from conv_refs import adaptive_ref, pool_ref
from nn_checks import T, check_fn_grads

import minispore as ms
from minispore import nn, ops

RNG = np.random.default_rng(1)


def randn(*shape):
    return RNG.standard_normal(shape)


def both_modes(fn, *arrays):
    """fn's value eagerly, after checking that ms.jit gives the same."""
    eager = fn(*[T(a) for a in arrays])
    eager = eager if isinstance(eager, tuple) else (eager,)
    compiled = ms.jit(fn)(*[T(a) for a in arrays])
    compiled = compiled if isinstance(compiled, tuple) else (compiled,)
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(c.asnumpy(), e.asnumpy(), atol=1e-12)
    return [e.asnumpy() for e in eager]


def test_max_pool3d_matches_the_definition():
    x = randn(2, 3, 6, 5, 7)
    (got,) = both_modes(lambda a: ops.max_pool3d(a, (3, 2, 3), (2, 1, 2), padding=1), x)
    want = pool_ref(x, (3, 2, 3), (2, 1, 2), np.max, ((1, 1),) * 3, -np.inf)
    np.testing.assert_allclose(got, want)


def argmax3d_ref(x, kernel, stride, dilation, pads):
    """Flat input positions of each window's first maximum, scanning d, then h, then w."""
    n, c, d, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0)) + pads, constant_values=-np.inf)
    outs = [(s - dl * (k - 1) - 1) // st + 1
            for s, k, st, dl in zip(padded.shape[2:], kernel, stride, dilation)]
    got = np.zeros((n, c, *outs), np.int64)
    for i, j, k in np.ndindex(*outs):
        starts = [o * st for o, st in zip((i, j, k), stride)]
        cells = [(starts[0] + a * dilation[0], starts[1] + b * dilation[1],
                  starts[2] + e * dilation[2])
                 for a in range(kernel[0]) for b in range(kernel[1]) for e in range(kernel[2])]
        values = np.stack([padded[:, :, p, q, r] for p, q, r in cells], -1)
        best = np.array(cells)[values.argmax(-1)]          # (n, c, 3) padded coordinates
        best -= np.array([p[0] for p in pads])
        got[:, :, i, j, k] = best[..., 0] * h * w + best[..., 1] * w + best[..., 2]
    return got


def test_max_pool3d_indices_are_each_windows_first_maximum():
    x = np.round(randn(2, 3, 6, 5, 7), 1)                   # ties inside windows too
    out, index = both_modes(lambda a: ops.max_pool3d(a, (3, 2, 3), (2, 1, 2), padding=1,
                                                     dilation=(1, 2, 1), return_indices=True), x)
    pads = ((1, 1), (1, 1), (1, 1))
    np.testing.assert_array_equal(index, argmax3d_ref(x, (3, 2, 3), (2, 1, 2), (1, 2, 1), pads))
    assert index.dtype == np.int64
    np.testing.assert_array_equal(np.take_along_axis(x.reshape(2, 3, -1),
                                                     index.reshape(2, 3, -1), -1),
                                  out.reshape(2, 3, -1))
    layer = nn.MaxPool3d(2, 2, return_indices=True)
    got, where = layer(T(x))
    np.testing.assert_array_equal(where.asnumpy(),
                                  argmax3d_ref(x, (2, 2, 2), (2, 2, 2), (1, 1, 1), ((0, 0),) * 3))


@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool3d_matches_the_definition(count_include_pad):
    x = randn(1, 2, 5, 4, 6)
    (got,) = both_modes(lambda a: ops.avg_pool3d(a, 3, 2, 1, False, count_include_pad), x)
    sums = pool_ref(x, (3, 3, 3), (2, 2, 2), np.sum, ((1, 1),) * 3)
    counted = np.pad(np.ones(x.shape) if count_include_pad else np.zeros(x.shape),
                     ((0, 0), (0, 0)) + ((1, 1),) * 3, constant_values=float(count_include_pad))
    if not count_include_pad:
        counted[..., 1:-1, 1:-1, 1:-1] = 1
    counts = pool_ref(counted, (3, 3, 3), (2, 2, 2), np.sum)
    np.testing.assert_allclose(got, sums / counts, atol=1e-12)


@pytest.mark.parametrize("fn, shape, sizes, reduce", [
    (ops.adaptive_avg_pool1d, (2, 3, 7), (3,), np.mean),
    (ops.adaptive_avg_pool2d, (2, 3, 7, 5), (3, 4), np.mean),
    (ops.adaptive_avg_pool3d, (1, 2, 5, 4, 7), (2, 3, 4), np.mean),
    (ops.adaptive_max_pool1d, (2, 3, 7), (3,), np.max),
    (ops.adaptive_max_pool2d, (2, 3, 7, 5), (3, 4), np.max),
])
def test_adaptive_pooling_matches_the_bins(fn, shape, sizes, reduce):
    x = randn(*shape)
    (got,) = both_modes(lambda a: fn(a, sizes if len(sizes) > 1 else sizes[0]), x)
    np.testing.assert_allclose(got, adaptive_ref(x, sizes, reduce), atol=1e-12)
    check_fn_grads(lambda a: fn(a, sizes if len(sizes) > 1 else sizes[0]), x)


def test_adaptive_max_pool2d_indices_are_flat_positions():
    x = randn(2, 3, 7, 5)
    values, index = both_modes(lambda a: ops.adaptive_max_pool2d(a, (3, 2), True), x)
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, index.reshape(2, 3, -1), -1),
                                  values.reshape(2, 3, -1))
    assert index.dtype == np.int64


def test_adaptive_size_none_keeps_the_axis():
    assert ops.adaptive_avg_pool2d(ops.ones((1, 2, 5, 6)), (None, 3)).shape == (1, 2, 5, 3)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_lp_pool_is_the_p_norm_of_each_window(p):
    x = np.abs(randn(2, 3, 6, 7)) + 0.1
    (got,) = both_modes(lambda a: ops.lp_pool2d(a, p, (2, 3), (2, 2)), x)
    want = pool_ref(x ** p, (2, 3), (2, 2), np.sum) ** (1 / p)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    (got1,) = both_modes(lambda a: ops.lp_pool1d(a, p, 3), x[0])
    np.testing.assert_allclose(got1, pool_ref(x[0] ** p, (3,), (3,), np.sum) ** (1 / p),
                               rtol=1e-12)
    check_fn_grads(lambda a: ops.lp_pool2d(a, p, 2), x)


def test_pool3d_gradients_match_finite_differences():
    x = randn(1, 2, 4, 3, 5)
    check_fn_grads(lambda a: ops.max_pool3d(a, 2, (2, 1, 2), padding=(1, 0, 1)), x)
    check_fn_grads(lambda a: ops.avg_pool3d(a, 2, 1, 1, False, False), x)


def test_max_unpool2d_puts_the_maxima_back():
    x = randn(2, 3, 6, 4)
    out, index = ops.max_pool2d(T(x), 2, return_indices=True)
    (got,) = both_modes(lambda v, i: ops.max_unpool2d(v, i, 2), out.asnumpy(),
                        index.asnumpy())
    pooled = pool_ref(x, (2, 2), (2, 2), np.max)
    kept = np.where(np.isin(x, pooled), x, 0.0)
    np.testing.assert_array_equal(got, kept)
    unpool = nn.MaxUnpool2d(2, output_size=(6, 4))
    check_fn_grads(lambda v: unpool(v, index), out.asnumpy())


def test_cells_and_torch_agree():
    torch = pytest.importorskip("torch", reason="PyTorch is the second reference")
    F = torch.nn.functional
    x = randn(2, 3, 7, 6, 5).astype(np.float32)
    t = torch.tensor(x)
    checks = [
        (nn.MaxPool3d(3, 2, pad_mode="pad", padding=1, ceil_mode=True)(T(x)),
         F.max_pool3d(t, 3, 2, 1, ceil_mode=True)),
        (nn.AvgPool3d(2, 2, ceil_mode=True)(T(x)), F.avg_pool3d(t, 2, 2, ceil_mode=True)),
        (nn.AdaptiveAvgPool3d((3, 4, 2))(T(x)), F.adaptive_avg_pool3d(t, (3, 4, 2))),
        (nn.AdaptiveMaxPool2d((4, 3))(T(x[0])), F.adaptive_max_pool2d(t[0], (4, 3))),
        (nn.AdaptiveAvgPool1d(4)(T(x[0, 0])), F.adaptive_avg_pool1d(t[0, 0], 4)),
        (nn.LPPool2d(2, 3, 2, ceil_mode=True)(T(x[0])), F.lp_pool2d(t[0], 2, 3, 2, True)),
    ]
    for got, want in checks:
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    _, ours = nn.MaxPool3d(3, 2, pad_mode="pad", padding=1, return_indices=True)(T(x))
    _, theirs = F.max_pool3d(t, 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(ours.asnumpy(), theirs.numpy())


def test_bad_input_names_the_op():
    with pytest.raises(ms.ops.OpError, match="max_pool3d"):
        ops.max_pool3d(ops.ones((1, 2, 3, 3)), 2)
    with pytest.raises(ValueError, match="output_size"):
        ops.adaptive_avg_pool2d(ops.ones((1, 2, 3, 3)), (1, 2, 3))
