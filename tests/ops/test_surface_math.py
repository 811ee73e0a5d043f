"""Elementwise math of the wider op surface (ops.math_ext), against numpy/scipy in both
modes; the new rows' fused-kernel templates compiled in one chain per float dtype; clip's
MindSpore 2.x keywords."""
import math

import numpy as np
import pytest
import scipy.special

import minispore as ms
from minispore import ops

from helpers import assert_close, run_in_mode

RNG = np.random.default_rng(0)
X = RNG.uniform(-0.9, 0.9, (3, 4))
Y = RNG.uniform(0.3, 2.0, (4,))


def test_composites_match_numpy(mode):
    def f(x, y):
        return (ops.logaddexp(x, y), ops.logaddexp2(x, y), ops.xlogy(x, y), ops.xdivy(x, y),
                ops.sinc(x), ops.heaviside(x, y), ops.frac(x * 3), ops.lerp(x, y, 0.25),
                ops.addcmul(x, x, y, value=0.5), ops.addcdiv(x, x, y, value=2),
                ops.fmax(x, y), ops.fmin(x, y), ops.ldexp(x, y), ops.deg2rad(x),
                ops.rad2deg(x), ops.logit(ops.abs(x), eps=1e-3), ops.digamma(y),
                ops.polygamma(1, y), ops.copysign(x, -y), ops.truncate_div(x * 5, y))
    got = run_in_mode(f, mode, ms.Tensor(X), ms.Tensor(Y))
    p = np.clip(np.abs(X), 1e-3, 1 - 1e-3)
    want = (np.logaddexp(X, Y), np.logaddexp2(X, Y), X * np.log(Y), X / Y, np.sinc(X),
            np.heaviside(X, Y), np.modf(X * 3)[0], X + 0.25 * (Y - X), X + 0.5 * X * Y,
            X + 2 * X / Y, np.fmax(X, Y), np.fmin(X, Y), X * 2 ** Y,
            np.deg2rad(X), np.rad2deg(X), np.log(p / (1 - p)), scipy.special.digamma(Y),
            scipy.special.polygamma(1, Y), np.copysign(X, -Y), np.trunc(X * 5 / Y))
    assert_close(got, want, rtol=1e-10, atol=1e-12)


def test_special_values():
    x = ms.Tensor([np.nan, np.inf, -np.inf, 0.0, -0.0, 2.0])
    assert ops.nan_to_num(x).tolist()[:3] == [0.0, np.finfo(np.float32).max,
                                              np.finfo(np.float32).min]
    assert ops.nan_to_num(x, 1.0, 5.0, -5.0).tolist() == [1.0, 5.0, -5.0, 0.0, -0.0, 2.0]
    assert ops.isneginf(x).tolist() == [False, False, True, False, False, False]
    assert ops.isposinf(x).tolist() == [False, True, False, False, False, False]
    assert ops.signbit(x).tolist() == [False, False, True, False, True, False]
    assert ops.sinc(ms.Tensor([0.0])).tolist() == [1.0]
    assert ops.xlogy(ms.Tensor([0.0]), ms.Tensor([0.0])).tolist() == [0.0]
    assert ops.isclose(x, x, equal_nan=True).tolist() == [True] * 6
    assert ops.isclose(x, x).tolist() == [False] + [True] * 5


def test_gradients_of_composites_at_their_special_points():
    # the select at 0 of sinc and xlogy must not leak nan into the gradient
    assert ms.grad(lambda x: ops.sinc(x).sum())(ms.Tensor([0.0, 0.5])).asnumpy()[0] == 0.0
    g = ms.grad(lambda y: ops.xlogy(ms.Tensor([0.0, 2.0]), y).sum())(ms.Tensor([0.0, 4.0]))
    assert_close(g, np.array([0.0, 0.5], np.float32))
    # logaddexp at equal arguments: each side gets half
    g = ms.grad(lambda a, b: ops.logaddexp(a, b), (0, 1))(ms.Tensor(1.0), ms.Tensor(1.0))
    assert_close(g, (np.float32(0.5), np.float32(0.5)))


def test_integer_functions():
    a, b = ms.Tensor([12, -7, 9]), ms.Tensor([8, 3, -2])
    assert ops.gcd(a, b).tolist() == np.gcd([12, -7, 9], [8, 3, -2]).tolist()
    assert ops.lcm(a, b).tolist() == np.lcm([12, -7, 9], [8, 3, -2]).tolist()
    assert ops.bitwise_xor(a, b).tolist() == [12 ^ 8, -7 ^ 3, 9 ^ -2]
    assert ops.bitwise_left_shift(a, ms.Tensor([1, 2, 70])).tolist() == \
        np.left_shift([12, -7, 9], [1, 2, 70]).tolist()
    assert ops.fmod(a, b).tolist() == np.fmod([12, -7, 9], [8, 3, -2]).tolist()
    assert ops.remainder(a, b).tolist() == np.remainder([12, -7, 9], [8, 3, -2]).tolist()
    with pytest.raises(ops.OpTypeError, match="bitwise_left_shift"):
        ops.bitwise_left_shift(ms.Tensor([True]), ms.Tensor([True]))


UNARY = ("asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh", "exp2", "log2", "log10",
         "erfc", "lgamma", "trunc")
NUMPY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
         "atanh": np.arctanh, "erfc": scipy.special.erfc, "lgamma": scipy.special.gammaln}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_new_templates_fuse_into_one_kernel(dtype):
    """Every new elementwise row in one jitted chain: the fused kernel (numba, with the
    library functions its preamble imports) gives numpy's values."""
    x = np.linspace(-0.8, 0.8, 12, dtype=dtype).reshape(3, 4)
    y = np.linspace(0.5, 2.0, 12, dtype=dtype).reshape(3, 4)

    def chain(a, b):
        outs = [getattr(ops, name)(a * 1.0) for name in UNARY]
        outs += [ops.acosh(b + 1.0), ops.atan2(a, b) * 1.0, ops.hypot(a, b) * 1.0,
                 ops.copysign(b, a) * 1.0, ops.fmod(a, b * 0.3) * 1.0]
        flags = [ops.isnan(ops.log(a)), ops.isinf(1.0 / (a * 0.0)), ops.isfinite(ops.log(a)),
                 ops.signbit(a * 1.0)]
        return tuple(outs), tuple(flags)

    (values, flags) = ms.jit(chain)(ms.Tensor(x), ms.Tensor(y))
    want = [NUMPY.get(name, getattr(np, name, None))(x) for name in UNARY]
    want += [np.arccosh(y + 1), np.arctan2(x, y), np.hypot(x, y), np.copysign(y, x),
             np.fmod(x, y * 0.3)]
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for name, g, w in zip(UNARY + ("acosh", "atan2", "hypot", "copysign", "fmod"), values, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=tol, atol=tol, err_msg=name)
    with np.errstate(all="ignore"):
        want_flags = [np.isnan(np.log(x)), np.isinf(1 / (x * 0)), np.isfinite(np.log(x)),
                      np.signbit(x)]
    for g, w in zip(flags, want_flags):
        np.testing.assert_array_equal(g.asnumpy(), w)


def test_clip_takes_min_max_keywords(mode):
    x = ms.Tensor([-2.0, 0.5, 3.0])
    got = run_in_mode(lambda t: (ops.clip(t, min=-1.0, max=1.0), ops.clamp(t, max=0.0),
                                 t.clip(min=0.0), t.clamp(-1, 2), ops.clip(t, 1.0, -1.0)),
                      mode, x)
    assert_close(got, (np.float32([-1, 0.5, 1]), np.float32([-2, 0, 0]),
                       np.float32([0, 0.5, 3]), np.float32([-1, 0.5, 2]),
                       np.float32([-1, -1, -1])))
    with pytest.raises(ValueError, match="min, max"):
        ops.clip(x)


def test_float_power_and_classification():
    assert ops.float_power(ms.Tensor([2], ms.int32), 3).dtype == ms.float64
    assert ops.is_floating_point(ms.Tensor([1.0])) and not ops.is_complex(ms.Tensor([1.0]))
    assert ops.allclose(ms.Tensor([1.0]), ms.Tensor([1.0 + 1e-9]))
    assert math.isclose(float(ops.erfinv(ms.Tensor(0.5))), scipy.special.erfinv(0.5),
                        rel_tol=1e-6)


def test_bessel_functions_match_scipy(mode):
    x = np.array([-2.5, -0.7, 0.4, 1.3, 6.0])
    pos = np.abs(x) + 0.1
    names = ("j0", "j1", "i0", "i1", "i0e", "i1e")
    got = run_in_mode(lambda t, p: tuple(getattr(ops, f"bessel_{n}")(t) for n in names) + tuple(
        getattr(ops, f"bessel_{n}")(p) for n in ("y0", "y1", "k0", "k1", "k0e", "k1e")),
        mode, ms.Tensor(x), ms.Tensor(pos))
    want = tuple(getattr(scipy.special, n)(x) for n in names) + tuple(
        getattr(scipy.special, n)(pos) for n in ("y0", "y1", "k0", "k1", "k0e", "k1e"))
    assert_close(got, want, rtol=1e-12, atol=1e-14)
    assert_close(ops.i0(ms.Tensor(x)), scipy.special.i0(x), rtol=1e-12)
