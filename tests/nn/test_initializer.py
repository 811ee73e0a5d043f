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


# ***** the structured initializers, replayed with numpy's generator seeded the same way *****

def test_orthogonal_replays_the_documented_qr_construction():
    for shape, gain in [((3, 2, 4), 2.0), ((6, 4), 1.0)]:
        ms.set_seed(5)
        w = initializer(init.Orthogonal(gain=gain), shape, ms.float64).asnumpy()
        rows = shape[0]
        data = np.random.default_rng(5).normal(0.0, 1.0, (rows, math.prod(shape) // rows))
        flip = rows < data.shape[1]
        q, r = np.linalg.qr(data.T if flip else data)
        q = q * np.sign(np.diag(r))
        np.testing.assert_allclose(w, ((q.T if flip else q) * gain).reshape(shape), rtol=1e-12)
        flat = w.reshape(rows, -1) / gain
        small = flat @ flat.T if flip else flat.T @ flat      # orthonormal rows or columns
        np.testing.assert_allclose(small, np.eye(small.shape[0]), atol=1e-12)


def test_identity_and_dirac():
    assert initializer("identity", (2, 3)).asnumpy().tolist() == [[1, 0, 0], [0, 1, 0]]
    w = initializer(init.Dirac(groups=2), (4, 3, 3, 3)).asnumpy()
    want = np.zeros((4, 3, 3, 3))
    for out, inp in [(0, 0), (1, 1), (2, 0), (3, 1)]:   # two output channels per group
        want[out, inp, 1, 1] = 1
    np.testing.assert_array_equal(w, want)
    x = np.random.default_rng(0).standard_normal((1, 3, 5))
    k = initializer("dirac", (3, 3, 3)).asnumpy()        # a conv1d with it is the identity
    out = np.stack([sum(np.convolve(x[0, i], k[o, i][::-1], "same") for i in range(3))
                    for o in range(3)])
    np.testing.assert_allclose(out, x[0], atol=1e-6)


def test_sparse_zeroes_a_fraction_of_each_column():
    ms.set_seed(2)
    w = initializer(init.Sparse(sparsity=0.3, sigma=0.5), (10, 4), ms.float64).asnumpy()
    rng = np.random.default_rng(2)
    want = rng.normal(0.0, 0.5, (10, 4))
    for col in range(4):
        want[rng.permutation(10)[:3], col] = 0.0                # ceil(0.3 * 10) per column
    np.testing.assert_array_equal(w, want)
    assert ((w == 0).sum(axis=0) == 3).all()


@pytest.mark.parametrize("mode, n", [("fan_in", 36), ("fan_out", 72), ("fan_avg", 54)])
def test_variance_scaling(mode, n):
    ms.set_seed(4)
    u = initializer(init.VarianceScaling(2.0, mode, "uniform"), CONV, ms.float64).asnumpy()
    limit = math.sqrt(3 * 2.0 / n)
    np.testing.assert_array_equal(u, np.random.default_rng(4).uniform(-limit, limit, CONV))
    ms.set_seed(4)
    plain = initializer(init.VarianceScaling(2.0, mode, "untruncated_normal"), CONV,
                        ms.float64).asnumpy()
    np.testing.assert_array_equal(plain, np.random.default_rng(4).normal(0, math.sqrt(2 / n),
                                                                          CONV))
    big = initializer(init.VarianceScaling(2.0, mode), (400, 300) if mode == "fan_in" else
                      (300, 400)).asnumpy()
    fan = {"fan_in": 300, "fan_out": 300, "fan_avg": 350}[mode]
    std = math.sqrt(2.0 / fan)
    # truncated at 2 std of the pre-cut normal, scaled so the cut samples have std sqrt(2/n)
    assert abs(big.std() - std) < 0.02 * std and np.abs(big).max() <= 2 * std / 0.8796 * 1.0001


def test_lazy_initialisation():
    ms.set_seed(9)
    t = initializer("normal", (3, 4), ms.float16)
    assert t.has_init and isinstance(t.init, init.Normal)
    assert t.shape == (3, 4) and t.dtype == ms.float16 and "init=Normal" in repr(t)
    u = initializer("normal", (3, 4), ms.float16).init_data()   # drawn first
    assert t.init_data() is t and not t.has_init and t.init_data() is t
    rng = np.random.default_rng(9)
    first, second = rng.normal(0, 0.01, (3, 4)), rng.normal(0, 0.01, (3, 4))
    np.testing.assert_array_equal(u.asnumpy(), first.astype(np.float16))
    np.testing.assert_array_equal(t.asnumpy(), second.astype(np.float16))
    # any use makes the data: an op, or a Parameter built on it
    assert (initializer(2.0, (2,)) * 3).asnumpy().tolist() == [6.0, 6.0]
    p = ms.Parameter(initializer("ones", (2,)), name="p")
    assert p.asnumpy().tolist() == [1.0, 1.0] and not ms.Tensor([1.0]).has_init
    with pytest.raises(ValueError, match="Orthogonal: the tensor needs rank >= 2"):
        initializer("orthogonal", (4,))      # a bad shape is reported at once, not later
    with pytest.raises(ValueError, match="Dirac: the first dimension 3 is not divisible"):
        initializer(init.Dirac(2), (3, 2, 3))
    with pytest.raises(ValueError, match="VarianceScaling: mode"):
        init.VarianceScaling(mode="fan")
