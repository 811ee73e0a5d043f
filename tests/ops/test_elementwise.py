"""Elementwise ops against numpy: values, broadcasting, MindSpore's dtype promotion, the
Primitive classes (ops.Add()...), in both modes."""
import numpy as np
import pytest
import scipy.special
from helpers import assert_close, run_in_mode

import minispore as ms
from minispore import ops

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype(np.float32)
POS = RNG.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
Y = RNG.standard_normal((4,)).astype(np.float32)  # broadcasts against X


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


UNARY = {  # name: (numpy reference, input)
    "neg": (np.negative, X), "abs": (np.abs, X), "exp": (np.exp, X), "log": (np.log, POS),
    "log1p": (np.log1p, POS), "sqrt": (np.sqrt, POS), "rsqrt": (lambda x: 1 / np.sqrt(x), POS),
    "square": (np.square, X), "sin": (np.sin, X), "cos": (np.cos, X), "tan": (np.tan, X),
    "tanh": (np.tanh, X), "sigmoid": (_sigmoid, X), "relu": (lambda x: np.maximum(x, 0), X),
    "gelu": (lambda x: 0.5 * x * (1 + scipy.special.erf(x / np.sqrt(2))), X),
    "softplus": (lambda x: np.log1p(np.exp(x)), X), "erf": (scipy.special.erf, X),
    "sign": (np.sign, X), "floor": (np.floor, X * 3), "ceil": (np.ceil, X * 3),
    "round": (np.round, np.array([0.5, 1.5, 2.5, -0.5, -1.7], np.float32)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_numpy(name, mode):
    reference, x = UNARY[name]
    got = run_in_mode(getattr(ops, name), mode, ms.Tensor(x))
    assert got.dtype == ms.float32
    assert_close(got, reference(x.astype(np.float64)).astype(np.float32), rtol=1e-5, atol=1e-6)


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "floor_div": np.floor_divide, "floor_mod": np.mod,
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcasts_like_numpy(name, mode):
    got = run_in_mode(getattr(ops, name), mode, ms.Tensor(X), ms.Tensor(Y))
    assert_close(got, BINARY[name](X, Y), rtol=1e-6)


def test_pow_with_tensor_and_scalar_exponents(mode):
    got = run_in_mode(lambda a, b: (ops.pow(a, b), a ** 2, 2.0 ** a), mode,
                      ms.Tensor(POS), ms.Tensor(Y))
    assert_close(got, (np.power(POS, Y), POS ** 2, np.float32(2.0) ** POS), rtol=1e-6)


def test_integer_floor_division_and_modulo_round_toward_minus_infinity():
    a, b = ms.Tensor([-7, 7, -7, 7], ms.int32), ms.Tensor([2, 2, -2, -2], ms.int32)
    assert (a // b).tolist() == [-4, 3, 3, -4]
    assert (a % b).tolist() == [1, 1, -1, -1]  # the sign of the divisor, as Python
    assert (a // b).dtype == ms.int32


# ***** dtype promotion (MindSpore's rules) *****

@pytest.mark.parametrize("make, dtype", [
    (lambda: ms.Tensor([1, 2], ms.int32) / ms.Tensor([2, 4], ms.int32), ms.float32),
    (lambda: ms.Tensor([1, 2], ms.int64) / 2, ms.float32),
    (lambda: ms.Tensor([1.0], ms.float32) + 1.5, ms.float32),
    (lambda: 1.5 * ms.Tensor([1.0], ms.float16), ms.float16),
    (lambda: ms.Tensor([1], ms.int32) + 1.5, ms.float32),
    (lambda: ms.Tensor([1], ms.int32) + 1, ms.int32),
    (lambda: ms.Tensor([1], ms.uint8) * 3, ms.uint8),
    (lambda: ms.Tensor([True]) + 1, ms.int64),
    (lambda: ms.Tensor([1], ms.int32) + ms.Tensor([1], ms.int64), ms.int64),
    (lambda: ms.Tensor([1], ms.int64) + ms.Tensor([1.0], ms.float16), ms.float16),
    (lambda: ms.Tensor([1.0], ms.float32) + ms.Tensor([1.0], ms.float64), ms.float64),
    (lambda: ms.Tensor([True]) * ms.Tensor([3], ms.int8), ms.int8),
    (lambda: ops.add(1, 2), ms.int64),
    (lambda: ops.mul(2.0, 3), ms.float32),
    (lambda: ms.Tensor([1], ms.int32) < 1.5, ms.bool_),
    (lambda: ops.exp(ms.Tensor([1], ms.int32)), ms.float32),
    (lambda: ops.sqrt(ms.Tensor([4], ms.int64)), ms.float32),
])
def test_promotion(make, dtype):
    assert make().dtype == dtype


def test_promoted_values_are_exact():
    assert_close(ms.Tensor([1, 3], ms.int32) / ms.Tensor([2, 4], ms.int32),
                 np.array([0.5, 0.75], np.float32))
    assert_close(ms.Tensor([1, 2], ms.int32) + 0.5, np.array([1.5, 2.5], np.float32))


def test_numpy_array_on_the_left_gives_a_tensor():
    t = ms.Tensor([1.0, 2.0])
    a = np.array([3.0, 4.0], np.float32)
    for got, want in [(a + t, [4, 6]), (a - t, [2, 2]), (a * t, [3, 8]), (a / t, [3, 2]),
                      (a ** t, [3, 16]), (a @ t, 11.0)]:
        assert isinstance(got, ms.Tensor), type(got)
        assert_close(got, np.array(want, np.float32))
    assert isinstance(a > t, ms.Tensor)


# ***** where, select, clip *****

def test_where_broadcasts_condition_and_scalar_branches(mode):
    cond = X > 0
    got = run_in_mode(lambda c, x: ops.where(c, x, 0.0), mode, ms.Tensor(cond), ms.Tensor(X))
    assert_close(got, np.where(cond, X, np.float32(0)))
    got = run_in_mode(ops.select, mode, ms.Tensor(Y > 0), ms.Tensor(X), ms.Tensor(-X))
    assert_close(got, np.where(Y > 0, X, -X))


@pytest.mark.parametrize("low, high", [(-0.5, 0.5), (None, 0.2), (-0.2, None)])
def test_clip_and_clamp(low, high, mode):
    want = np.clip(X, -np.inf if low is None else low, np.inf if high is None else high)
    assert_close(run_in_mode(lambda x: ops.clip(x, low, high), mode, ms.Tensor(X)), want)
    assert_close(ops.clamp(ms.Tensor(X), low, high), want)
    assert_close(ms.Tensor(X).clip(low, high), want)


def test_clip_with_tensor_bounds():
    got = ops.clip(ms.Tensor(X), ms.Tensor(-np.abs(Y)), ms.Tensor(np.abs(Y)))
    assert_close(got, np.clip(X, -np.abs(Y), np.abs(Y)))


def test_cast_and_stop_gradient_values():
    x = ms.Tensor([1.7, -2.2])
    assert ops.cast(x, ms.int32).tolist() == [1, -2]
    assert ops.cast(x, ms.float64).dtype == ms.float64
    assert ops.cast(x, ms.bool_).tolist() == [True, True]
    assert_close(ops.stop_gradient(x), np.array([1.7, -2.2], np.float32))
    grad = ms.grad(lambda v: ops.sum(ops.stop_gradient(v) * v))(x)
    assert grad.tolist() == pytest.approx([1.7, -2.2])


# ***** Primitive classes *****

@pytest.mark.parametrize("cls, reference, args", [
    ("Add", np.add, (X, Y)), ("Sub", np.subtract, (X, Y)), ("Mul", np.multiply, (X, Y)),
    ("Div", np.divide, (X, POS)), ("Maximum", np.maximum, (X, Y)), ("Minimum", np.minimum, (X, Y)),
    ("Sin", np.sin, (X,)), ("Cos", np.cos, (X,)), ("Exp", np.exp, (X,)), ("Log", np.log, (POS,)),
    ("Square", np.square, (X,)), ("Sqrt", np.sqrt, (POS,)), ("Tanh", np.tanh, (X,)),
    ("Sigmoid", _sigmoid, (X,)), ("ReLU", lambda x: np.maximum(x, 0), (X,)),
    ("OnesLike", np.ones_like, (X,)), ("ZerosLike", np.zeros_like, (X,)),
])
def test_primitive_classes(cls, reference, args, mode):
    op = getattr(ops, cls)()
    got = run_in_mode(op, mode, *(ms.Tensor(a) for a in args))
    assert_close(got, reference(*args).astype(np.float32), rtol=1e-6)


def test_cast_class_takes_the_dtype_at_call_time():
    out = ops.Cast()(ms.Tensor([1.5, 2.5]), ms.int32)
    assert out.dtype == ms.int32 and out.tolist() == [1, 2]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64,
                                   np.uint8, np.bool_])
def test_select_on_large_arrays_is_numpy_where_bit_for_bit(dtype):
    """Above _BLEND_MIN elements the host select is a bitwise blend (numpy's where branches
    per element): the same bits as np.where, nan, inf and -0.0 included, with broadcasting."""
    rng = np.random.default_rng(0)
    for c_shape, x_shape, y_shape in (((64, 1024), (64, 1024), ()),
                                      ((8, 64, 64), (8, 64, 64), (64,)),
                                      ((256, 256), (256, 1), (256, 256))):
        c = rng.random(c_shape) > 0.5
        x = np.asarray(rng.standard_normal(x_shape) * 100).astype(dtype)
        y = np.asarray(rng.standard_normal(y_shape) * 100).astype(dtype)
        if x.dtype.kind == "f" and x.size > 3:
            x.flat[:3] = [np.nan, -0.0, np.inf]
        got = ops.select(ms.Tensor(c), ms.Tensor(x), ms.Tensor(y)).asnumpy()
        want = np.where(c, x, y)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
