"""common.initializer: names, classes, MindSpore's formulas and fans, seeding, errors."""
import math

import numpy as np
import pytest

import minispore as ms
from minispore.core import initializer as init
from minispore.core.initializer import initializer


def test_constant_initializers_and_dtypes():
    assert initializer("zeros", (2, 3)).asnumpy().tolist() == [[0.0] * 3] * 2
    ones = initializer("ones", [4], ms.float64)
    assert ones.dtype == ms.float64 and ones.asnumpy().tolist() == [1.0] * 4
    assert initializer(2.5, (2,), ms.float32).asnumpy().tolist() == [2.5, 2.5]
    assert initializer(init.Constant(3), (2,), ms.int32).asnumpy().tolist() == [3, 3]
    assert initializer("zeros", 3).shape == (3,)
    assert initializer(init.One(), (2, 2), "float16").dtype == ms.float16


def test_tensor_init_is_checked_against_shape():
    t = ms.Tensor(np.arange(6, dtype=np.float64).reshape(2, 3))
    out = initializer(t, (2, 3), ms.float32)
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*\(3, 2\)"):
        initializer(t, (3, 2))


@pytest.mark.parametrize("name, cls", [("normal", init.Normal), ("uniform", init.Uniform),
                                       ("truncatedNormal", init.TruncatedNormal),
                                       ("xavier_uniform", init.XavierUniform),
                                       ("xavier_normal", init.XavierNormal),
                                       ("he_uniform", init.HeUniform),
                                       ("he_normal", init.HeNormal)])
def test_names_give_the_class_defaults(name, cls):
    ms.set_seed(3)
    by_name = initializer(name, (20, 30)).asnumpy()
    ms.set_seed(3)
    by_class = initializer(cls(), (20, 30)).asnumpy()
    np.testing.assert_array_equal(by_name, by_class)
    assert by_name.dtype == np.float32 and by_name.shape == (20, 30)


def test_set_seed_makes_draws_repeatable():
    ms.set_seed(7)
    a = initializer("normal", (50,)).asnumpy()
    b = initializer("normal", (50,)).asnumpy()
    ms.set_seed(7)
    assert np.array_equal(initializer("normal", (50,)).asnumpy(), a)
    assert not np.array_equal(a, b)
    assert ms.get_seed() == 7


def test_normal_and_uniform_statistics():
    ms.set_seed(0)
    w = initializer(init.Normal(sigma=0.5, mean=1.0), (200, 200)).asnumpy()
    assert abs(w.mean() - 1.0) < 0.01 and abs(w.std() - 0.5) < 0.01
    u = initializer(init.Uniform(scale=0.3), (200, 200)).asnumpy()
    assert u.min() >= -0.3 and u.max() <= 0.3 and u.max() > 0.299
    assert abs(u.std() - 0.3 / math.sqrt(3)) < 0.003


def test_truncated_normal_respects_absolute_bounds():
    ms.set_seed(0)
    w = initializer(init.TruncatedNormal(sigma=1.0, a=-0.5, b=0.25), (100, 100)).asnumpy()
    assert w.min() >= -0.5 and w.max() <= 0.25 and w.min() < -0.49 and w.max() > 0.24


# conv kernel (out=8, in=4, 3x3): fan_in = 4 * 9 = 36, fan_out = 8 * 9 = 72
CONV = (8, 4, 3, 3)


def test_xavier_bounds_use_conv_fans():
    ms.set_seed(0)
    w = initializer(init.XavierUniform(gain=2.0), CONV).asnumpy()
    bound = 2.0 * math.sqrt(6.0 / (36 + 72))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    big = initializer(init.XavierNormal(), (300, 500)).asnumpy()
    assert abs(big.std() - math.sqrt(2.0 / 800)) < 0.002


@pytest.mark.parametrize("mode, fan", [("fan_in", 36), ("fan_out", 72)])
def test_he_uniform_bound(mode, fan):
    ms.set_seed(0)
    w = initializer(init.HeUniform(negative_slope=math.sqrt(5), mode=mode), CONV).asnumpy()
    bound = math.sqrt(6.0 / ((1 + 5) * fan))     # MindSpore: sqrt(6 / ((1 + a^2) fan))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound


def test_he_normal_std_and_gain():
    ms.set_seed(0)
    w = initializer(init.HeNormal(nonlinearity="relu"), (400, 250)).asnumpy()
    assert abs(w.std() - math.sqrt(2.0) / math.sqrt(250)) < 0.002
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))


def test_errors():
    with pytest.raises(ValueError, match="unknown init 'nope'"):
        initializer("nope", (2,))
    with pytest.raises(ValueError, match="XavierUniform.*rank >= 2"):
        initializer("xavier_uniform", (5,))
    with pytest.raises(TypeError, match="init must be"):
        initializer([1, 2], (2,))
    with pytest.raises(ValueError, match="mode"):
        init.HeUniform(mode="fan_avg")
    with pytest.raises(ValueError, match="non-negative int"):
        ms.set_seed(-1)


def test_tensor_with_shape_and_init():
    t = ms.Tensor(shape=(2, 2), dtype=ms.float32, init=init.One())
    assert t.asnumpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
