"""The Tensor API: construction defaults, dtypes, properties, host values, operators, repr."""
import numpy as np
import pytest
from helpers import assert_close, run_in_mode

import minispore as ms

# ***** construction and dtypes *****

@pytest.mark.parametrize("data, dtype", [
    (1, ms.int64), (1.0, ms.float32), (True, ms.bool_), ([1, 2], ms.int64), ([1, 2.0], ms.float32),
    ([[1, 2], [3, 4]], ms.int64), ((1.5, 2), ms.float32), ([True, False], ms.bool_),
    (np.array([1, 2], np.int32), ms.int32), (np.array([1.0], np.float64), ms.float64),
    (np.zeros((2, 2), np.float16), ms.float16), (np.array([1], np.uint8), ms.uint8),
    (np.float64(2.0), ms.float64), (ms.Tensor([1, 2], ms.int8), ms.int8),
])
def test_default_dtypes(data, dtype):
    assert ms.Tensor(data).dtype == dtype


def test_explicit_dtype_converts():
    t = ms.Tensor([1.7, -2.2], ms.int32)
    assert t.dtype == ms.int32 and t.tolist() == [1, -2]
    assert ms.Tensor(3, dtype=ms.float64).dtype == ms.float64
    assert ms.Tensor(ms.Tensor([1, 2]), ms.float32).tolist() == [1.0, 2.0]


def test_construction_copies_numpy_data():
    a = np.zeros(2, np.float32)
    t = ms.Tensor(a)
    a[0] = 5.0
    assert t.tolist() == [0.0, 0.0]


def test_construction_from_shape_and_init():
    t = ms.Tensor(shape=(2, 3), dtype=ms.float32, init="ones")
    assert t.shape == (2, 3) and t.dtype == ms.float32
    assert_close(t, np.ones((2, 3), np.float32))


def test_dtype_objects():
    assert str(ms.float32) == "Float32" and repr(ms.int64) == "Int64"
    types = (ms.bool_, ms.int8, ms.int16, ms.int32, ms.uint8, ms.float16, ms.float64)
    assert [str(t) for t in types] == ["Bool", "Int8", "Int16", "Int32", "UInt8", "Float16", "Float64"]
    assert ms.dtype.float32 is ms.float32
    assert ms.float32 == np.float32 and ms.float32 != ms.float64
    assert ms.float32.is_float and ms.int32.is_int and not ms.bool_.is_float
    assert len({ms.float32, ms.dtype.float32, ms.int32}) == 2  # hashable, usable as keys


def test_unsupported_element_types_are_rejected():
    with pytest.raises(TypeError, match="dtype"):
        ms.Tensor(np.array([1], np.uint16))
    with pytest.raises(TypeError):
        ms.Tensor(["a", "b"])


# ***** properties and host values *****

def test_shape_ndim_size_T():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = ms.Tensor(a)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, tuple)
    assert t.ndim == 3 and t.size == 24 and len(t) == 2
    assert_close(t.T, a.T)
    assert ms.Tensor(5.0).shape == () and ms.Tensor(5.0).size == 1


def test_host_values():
    a = np.array([[1.5, 2.0], [3.0, 4.0]], np.float32)
    t = ms.Tensor(a)
    assert isinstance(t.asnumpy(), np.ndarray) and t.asnumpy().dtype == np.float32
    assert t.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert ms.Tensor([7]).item() == 7 and isinstance(ms.Tensor([7]).item(), int)
    assert ms.Tensor(2.5).item() == 2.5
    assert np.asarray(t).shape == (2, 2)
    with pytest.raises(ValueError, match="one element"):
        t.item()


def test_python_number_conversions():
    assert float(ms.Tensor(2.5)) == 2.5 and int(ms.Tensor(3.9)) == 3
    assert bool(ms.Tensor(1)) is True and bool(ms.Tensor([0.0])) is False
    assert [10, 20, 30][ms.Tensor(1)] == 20  # __index__
    assert f"{ms.Tensor(2.5):.2f}" == "2.50"
    with pytest.raises(ValueError, match="ambiguous"):
        bool(ms.Tensor([1, 2]))


def test_astype_and_copy_are_new_tensors():
    t = ms.Tensor([1.5, 2.5])
    i = t.astype(ms.int32)
    assert i.dtype == ms.int32 and i.tolist() == [1, 2]
    assert t.astype(ms.float32).dtype == ms.float32
    c = t.copy()
    c[0] = 9.0
    assert t.tolist() == [1.5, 2.5] and c.tolist() == [9.0, 2.5]


# ***** operators *****

A = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
B = np.array([2.0, 4.0], np.float32)


def test_arithmetic_operators(mode):
    def fn(a, b):
        return (a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, a @ b, -a, +a, abs(a),
                2 + a, 2 - a, 2 * a, 2 / a, 7 // b, 7 % b, 2 ** b, 1.5 * a)
    got = run_in_mode(fn, mode, ms.Tensor(A), ms.Tensor(B))
    f2 = np.float32(2)
    want = (A + B, A - B, A * B, A / B, A // B, A % B, A ** 2, A @ B, -A, A, abs(A),
            f2 + A, f2 - A, f2 * A, f2 / A, np.float32(7) // B, np.float32(7) % B, f2 ** B,
            np.float32(1.5) * A)
    assert_close(got, want, rtol=1e-6)


def test_comparison_and_logic_operators(mode):
    def fn(a, b):
        return (a < b, a <= b, a > b, a >= b, a == b, a != b, (a > 0) & (b > 3), (a > 0) | (b > 3),
                ~(a > 0), 1 < a)
    got = run_in_mode(fn, mode, ms.Tensor(A), ms.Tensor(B))
    want = (A < B, A <= B, A > B, A >= B, A == B, A != B, (A > 0) & (B > 3), (A > 0) | (B > 3),
            ~(A > 0), 1 < A)
    assert_close(got, want)


def test_bitwise_not_on_integers():
    assert (~ms.Tensor([0, 5], ms.int8)).tolist() == [-1, -6]


def test_reflected_operators_with_numpy_and_lists_on_the_left():
    t = ms.Tensor(B)
    for got, want in [(A + t, A + B), (A - t, A - B), (A * t, A * B), (A / t, A / B),
                      (A @ t, A @ B), (A.tolist() @ t, A @ B),
                      ([1.0, 2.0] - t, np.array([1, 2]) - B)]:
        assert isinstance(got, ms.Tensor)
        assert_close(got, want.astype(np.float32))


def test_tensor_methods():
    t = ms.Tensor(A)
    assert_close(t.exp(), np.exp(A))
    assert_close(t.abs().log(), np.log(np.abs(A)))
    assert_close(t.abs().sqrt(), np.sqrt(np.abs(A)))
    assert_close(t.square(), A * A)
    assert_close(t.tanh(), np.tanh(A))
    assert_close(t.pow(3), A ** 3)
    assert_close(t.clip(0, 1), np.clip(A, 0, 1))
    assert_close(t.reshape(4), A.reshape(4))
    assert_close(t.reshape((1, 4)), A.reshape(1, 4))
    assert_close(t.expand_dims(0), A[None])
    assert_close(t.broadcast_to((3, 2, 2)), np.broadcast_to(A, (3, 2, 2)))
    assert_close(t.prod(1), A.prod(1))
    assert_close(t.matmul(ms.Tensor(B)), A @ B)
    assert (t > 0).all().item() is False and (t > 0).any().item() is True


# ***** repr / str *****

def test_repr_follows_mindspore():
    assert repr(ms.Tensor(0.070650816)) == "Tensor(shape=[], dtype=Float32, value= 0.0706508)"
    assert repr(ms.Tensor(-4.0)) == "Tensor(shape=[], dtype=Float32, value=-4)"
    assert repr(ms.Tensor(3)) == "Tensor(shape=[], dtype=Int64, value= 3)"
    assert repr(ms.Tensor([8.0, 16.0])) == \
        "Tensor(shape=[2], dtype=Float32, value= [ 8.00000000e+00,  1.60000000e+01])"
    assert repr(ms.Tensor([1, 2])) == "Tensor(shape=[2], dtype=Int64, value= [1, 2])"
    assert repr(ms.Tensor([[1.0, 2.0], [3.0, 4.0]])) == (
        "Tensor(shape=[2, 2], dtype=Float32, value=\n"
        "[[ 1.00000000e+00,  2.00000000e+00],\n"
        " [ 3.00000000e+00,  4.00000000e+00]])")


def test_str_prints_values_like_numpy():
    assert str(ms.Tensor([[1.0, 2.0], [3.0, 4.0]])) == "[[1. 2.]\n [3. 4.]]"
    assert str(ms.Tensor(0.7)) == "0.7"
    assert str(ms.Tensor([1, 2], ms.int32)) == "[1 2]"


# ***** the core's docstring examples *****

@pytest.mark.parametrize("module", ["minispore.ops.tensor_methods", "minispore.core.dtype",
                                    "minispore.grad.api", "minispore.ops"])
def test_docstring_examples_hold(module):
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_numpy_scalars_combine_with_tensors_as_python_numbers_do(mode):
    """x / np.sqrt(d) keeps x's dtype (MindSpore: np.float64 is a Python float; PyTorch and
    JAX treat every numpy scalar so); a numpy array keeps its own dtype."""
    f32, f16, i32 = ms.ops.ones(2), ms.ops.ones(2, ms.float16), ms.ops.ones(2, ms.int32)

    def combos(f32, f16, i32):
        return (f32 / np.sqrt(4.0), np.float64(2) * f32, f16 * np.float32(2), i32 * np.float64(2),
                i32 + np.int64(1), f32 + np.ones(2))

    out = ms.jit(combos)(f32, f16, i32) if mode == ms.GRAPH_MODE else combos(f32, f16, i32)
    assert [o.dtype for o in out] == [ms.float32, ms.float32, ms.float16, ms.float32, ms.int32,
                                      ms.float64]
    np.testing.assert_array_equal(out[0].asnumpy(), [0.5, 0.5])
