"""MindSpore 2.x's top-level helpers: ms.tensor / from_numpy / is_tensor, the dtype aliases
and converters, the default generator's seed and state, set_device."""
import numpy as np
import pytest

import minispore as ms
from minispore import ops


def test_tensor_from_numpy_and_is_tensor():
    t = ms.tensor([[1, 2]], ms.float32)
    assert t.dtype == ms.float32 and t.shape == (1, 2)
    assert ms.tensor(shape=(2,), dtype=ms.int32, init="zeros").asnumpy().tolist() == [0, 0]
    a = np.zeros(3, np.float32)
    shared, copied = ms.from_numpy(a), ms.tensor(a)
    a[0] = 7
    assert float(shared[0]) == 7 and float(copied[0]) == 0
    assert ms.is_tensor(shared) and ms.is_tensor(ms.Parameter(shared, name="p"))
    assert not ms.is_tensor(a) and not ms.is_tensor(1.0)


def test_dtype_aliases_and_converters():
    assert (ms.half, ms.single, ms.double) == (ms.float16, ms.float32, ms.float64)
    assert (ms.byte, ms.short, ms.intc, ms.long, ms.ubyte) == \
        (ms.int8, ms.int16, ms.int32, ms.int64, ms.uint8)
    assert ms.dtype_to_nptype(ms.float16) is np.float16
    assert [ms.dtype_to_pytype(t) for t in (ms.bool_, ms.int32, ms.float32)] == [bool, int, float]
    assert [ms.pytype_to_dtype(t) for t in (bool, int, float, np.float32)] == \
        [ms.bool_, ms.int64, ms.float64, ms.float32]
    assert ms.get_py_obj_dtype(ms.tensor([1], ms.int8)) == ms.int8
    assert ms.get_py_obj_dtype(2.5) == ms.float64 and ms.get_py_obj_dtype(int) == ms.int64
    with pytest.raises(TypeError, match="str"):
        ms.pytype_to_dtype(str)


def test_manual_seed_and_rng_state_repeat_random_ops_in_both_modes(mode):
    draw = ms.jit(lambda: ops.rand(4)) if mode == ms.GRAPH_MODE else (lambda: ops.rand(4))
    ms.manual_seed(13)
    assert ms.initial_seed() == 13
    first = draw().asnumpy()
    ms.manual_seed(13)
    np.testing.assert_array_equal(draw().asnumpy(), first)
    state = ms.get_rng_state()
    after = draw().asnumpy()
    assert not np.array_equal(after, first)
    ms.set_rng_state(state)
    np.testing.assert_array_equal(draw().asnumpy(), after)
    fresh = ms.seed()
    assert ms.initial_seed() == fresh and fresh >= 0
    with pytest.raises(ValueError, match="get_rng_state"):
        ms.set_rng_state(ms.tensor([1, 2, 3], ms.uint8))
    with pytest.raises(ValueError, match="non-negative"):
        ms.manual_seed(-1)


def test_set_device_and_current_device():
    ms.set_device("CPU")
    assert ms.get_current_device() == ("CPU", 0)
    assert ms.get_context("device_target") == "CPU"
    with pytest.raises(ValueError, match="device_target"):
        ms.set_device("NPU")
    with pytest.raises(ValueError, match="device_id"):
        ms.set_device("CPU", -1)


def test_run_check_computes_in_both_modes_and_says_so(capsys):
    ms.run_check()
    out = capsys.readouterr().out
    assert f"MindSpore version: {ms.__version__}" in out
    assert "installed on platform [CPU] successfully!" in out
    ms.synchronize()  # the CPU has nothing queued: returns at once


def test_jit_class_instances_run_inside_compiled_functions(mode):
    @ms.jit_class
    class Affine:
        def __init__(self, scale, shift):
            self.scale, self.shift = scale, shift

        def __call__(self, x):
            return x * self.scale + self.shift

    f = ms.jit(lambda x: Affine(2.0, 1.0)(x))
    np.testing.assert_array_equal(f(ms.tensor([1.0, 2.0])).asnumpy(), [3.0, 5.0])
    assert Affine.__ms_class__
    with pytest.raises(TypeError, match="class"):
        ms.jit_class(lambda x: x)
    with pytest.raises(TypeError, match="Cell"):
        ms.jit_class(ms.nn.Dense)
