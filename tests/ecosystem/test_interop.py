"""Zero-copy exchange with numpy and PyTorch (DLPack, from_numpy, numpy 2's __array__)."""
import numpy as np
import pytest

import minispore as ms
from minispore import ops


def address(array):
    return np.asarray(array).__array_interface__["data"][0]


def test_from_numpy_shares_memory_both_ways():
    a = np.zeros((2, 3), np.float32)
    t = ms.Tensor.from_numpy(a)
    a[0, 0] = 5.0
    assert t.asnumpy()[0, 0] == 5.0
    t.asnumpy()[1, 2] = -1.0        # asnumpy() of a CPU tensor is the same buffer
    assert a[1, 2] == -1.0
    assert address(t) == address(a)
    # ops make new tensors: the user's array is never written by a computation
    assert ops.add(t, 1.0).asnumpy()[0, 0] == 6.0 and a[0, 0] == 5.0


def test_from_numpy_copies_a_non_contiguous_array_as_mindspore_does():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    t = ms.Tensor.from_numpy(a)
    np.testing.assert_array_equal(t.asnumpy(), a)
    a[0, 0] = 100.0
    assert t.asnumpy()[0, 0] == 0.0


def test_tensor_constructor_copies():
    a = np.ones(3, np.float32)
    t = ms.Tensor(a)
    a[0] = 9.0
    assert t.asnumpy()[0] == 1.0


def test_from_numpy_refuses_what_is_not_an_array_or_unsupported():
    with pytest.raises(TypeError, match="Tensor.from_numpy: expects a numpy array"):
        ms.Tensor.from_numpy([1.0, 2.0])
    with pytest.raises(TypeError):
        ms.Tensor.from_numpy(np.array(["a"]))


def test_numpy_round_trip_through_dlpack_keeps_the_buffer():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ms.from_dlpack(a)
    assert t.shape == (2, 3) and t.dtype == ms.float32 and address(t) == address(a)
    back = np.from_dlpack(t)
    assert address(back) == address(a)
    np.testing.assert_array_equal(back, a)
    assert ms.from_dlpack(t) is t


def test_array_protocol_copy_keyword():
    t = ms.Tensor([1.0, 2.0]) * 2.0
    assert address(np.asarray(t)) == address(t.asnumpy())                    # copy=None shares
    assert address(np.asarray(t, copy=True)) != address(t.asnumpy())
    assert address(np.asarray(t, copy=False)) == address(t.asnumpy())
    np.testing.assert_array_equal(np.asarray(t, dtype=np.float64), [2.0, 4.0])
    with pytest.raises(ValueError, match="without a copy"):
        np.asarray(t, dtype=np.float64, copy=False)


def test_numpy_operands_mix_as_in_mindspore():
    t = ms.Tensor([1.0, 2.0])
    # a numpy scalar or array on either side of an operator gives a Tensor
    for value in (t + np.float32(1), np.float32(1) + t, np.ones(2, np.float32) + t):
        assert isinstance(value, ms.Tensor)
        np.testing.assert_array_equal(value.asnumpy(), [2.0, 3.0])
    # a numpy ufunc with a Tensor operand runs as the minispore op (Tensor.__array_ufunc__)
    for value in (np.add(t, 1), np.multiply(np.float32(2), t) - t + 1, np.exp(t * 0) + t):
        assert isinstance(value, ms.Tensor) and value.dtype == ms.float32
        np.testing.assert_array_equal(value.asnumpy(), [2.0, 3.0])
    assert isinstance(np.add(t, 1, out=np.empty(2, np.float32)), np.ndarray)  # out=: numpy's
    assert isinstance(np.arctan(t), np.ndarray)  # no minispore op mapped: numpy on the values


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_numpy_ufuncs_are_differentiable_and_traceable(mode):
    def f(x):
        return ops.sum(np.multiply(x, x) + np.float32(1) * x)
    fn = ms.jit(f) if mode == "jit" else f
    x = ms.Tensor([1.0, 2.0, 3.0])
    assert float(fn(x)) == pytest.approx(20.0)
    np.testing.assert_allclose(ms.grad(fn)(x).asnumpy(), [3.0, 5.0, 7.0])


def test_from_dlpack_refuses_objects_without_the_protocol():
    with pytest.raises(TypeError, match="from_dlpack: expects an object with __dlpack__"):
        ms.from_dlpack([1.0, 2.0])


def test_torch_round_trip_without_copies():
    torch = pytest.importorskip("torch", reason="PyTorch not installed: DLPack with torch")
    src = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = ms.from_dlpack(src)
    assert address(t) == src.data_ptr()
    src[0, 0] = 42.0                 # aliasing, as documented: the buffer is shared
    assert t.asnumpy()[0, 0] == 42.0
    back = torch.from_dlpack(t)
    assert back.data_ptr() == src.data_ptr()
    mine = ops.exp(ms.Tensor([0.0, 1.0]))
    np.testing.assert_allclose(torch.from_dlpack(mine).numpy(), [1.0, np.e], rtol=1e-6)


def test_jax_round_trip_without_copies():
    jnp = pytest.importorskip("jax.numpy", reason="JAX not installed: DLPack with JAX")
    src = jnp.arange(4.0, dtype=jnp.float32)
    t = ms.from_dlpack(src)                        # JAX -> minispore: shared, read-only
    assert address(t) == src.unsafe_buffer_pointer()
    np.testing.assert_array_equal(t.asnumpy(), [0.0, 1.0, 2.0, 3.0])
    # minispore -> JAX: shared when the buffer meets XLA's alignment, else JAX copies it
    plain = ms.Tensor(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(jnp.from_dlpack(plain)), [0.0, 1.0, 2.0])
    # back to JAX: a copy, as documented (JAX's protocol cannot mark memory read-only)
    back = jnp.from_dlpack(t)
    np.testing.assert_array_equal(np.asarray(back), [0.0, 1.0, 2.0, 3.0])
    # a writable minispore tensor goes to JAX without a copy (JAX wants 64-byte alignment)
    raw = np.zeros(16 + 64, np.uint8)
    start = -raw.ctypes.data % 64
    mine = ms.Tensor.from_numpy(raw[start:start + 16].view(np.float32))
    mine.asnumpy()[:] = [1.0, 2.0, 3.0, 4.0]
    shared = jnp.from_dlpack(mine)
    assert shared.unsafe_buffer_pointer() == address(mine)
    np.testing.assert_array_equal(np.asarray(shared), [1.0, 2.0, 3.0, 4.0])
