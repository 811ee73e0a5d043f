"""BatchNorm3d, GroupNorm, InstanceNorm1d/2d/3d, LayerNorm's axes and LRN against numpy
references written from MindSpore's formulas (and PyTorch where importable), their
gradients by finite differences, both modes, and MindSpore's parameter names and order."""
import numpy as np
import pytest
from helpers import run_in_mode, to_numpy
from nn_checks import T, check_cell_grads, check_fn_grads

import minispore as ms
from minispore import mint, nn, ops

RNG = np.random.default_rng(7)


def normalized(x, axes, eps):
    mean = x.mean(axes, keepdims=True)
    var = x.var(axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def group_norm_ref(x, groups, gamma, beta, eps):
    n, c = x.shape[:2]
    y = normalized(x.reshape(n, groups, -1), (2,), eps).reshape(x.shape)
    shape = (c,) + (1,) * (x.ndim - 2)
    return y * gamma.reshape(shape) + beta.reshape(shape)


def lrn_ref(x, r, bias, alpha, beta):
    c = x.shape[1]
    out = np.empty_like(x)
    for k in range(c):
        window = (x[:, max(0, k - r):min(c, k + r + 1)] ** 2).sum(1)
        out[:, k] = x[:, k] * (bias + alpha * window) ** -beta
    return out


# ***** parameters: MindSpore's order and names *****

@pytest.mark.parametrize("cls", [nn.BatchNorm1d, nn.BatchNorm2d, nn.InstanceNorm1d,
                                 nn.InstanceNorm2d, nn.InstanceNorm3d])
def test_statistics_come_first_with_mindspore_names(cls):
    cell = cls(3)
    assert [p.name for p in cell.get_parameters()] == ["mean", "variance", "gamma", "beta"]
    assert [n for n, _ in cell.parameters_and_names()] == ["moving_mean", "moving_variance",
                                                           "gamma", "beta"]
    net = nn.SequentialCell([cls(3)])
    assert [p.name for p in net.get_parameters()] == ["0.moving_mean", "0.moving_variance",
                                                      "0.gamma", "0.beta"]
    assert [p.name for p in net.trainable_params()] == ["0.gamma", "0.beta"]


def test_batchnorm3d_holds_a_batchnorm2d_as_mindspore_does():
    bn = nn.BatchNorm3d(2)
    assert [p.name for p in bn.get_parameters()] == ["bn2d.moving_mean", "bn2d.moving_variance",
                                                     "bn2d.gamma", "bn2d.beta"]
    assert [p.name for p in nn.GroupNorm(2, 4).get_parameters()] == ["gamma", "beta"]
    assert [p.name for p in nn.LayerNorm((3,)).get_parameters()] == ["gamma", "beta"]
    assert list(nn.LRN().get_parameters()) == []


# ***** values *****

def test_batchnorm3d_training_and_eval(mode):
    x = RNG.standard_normal((3, 2, 2, 3, 2)) * 2 + 1
    bn = nn.BatchNorm3d(2, momentum=0.8, dtype=ms.float64).set_train()
    got = run_in_mode(bn, mode, T(x))
    np.testing.assert_allclose(to_numpy(got), normalized(x, (0, 2, 3, 4), 1e-5), atol=1e-10)
    count = x.size // 2
    want_mean = 0.2 * x.mean((0, 2, 3, 4))
    want_var = 0.8 + 0.2 * x.var((0, 2, 3, 4)) * count / (count - 1)
    np.testing.assert_allclose(bn.bn2d.moving_mean.asnumpy(), want_mean, rtol=1e-10)
    np.testing.assert_allclose(bn.bn2d.moving_variance.asnumpy(), want_var, rtol=1e-10)
    bn.set_train(False)
    got = run_in_mode(bn, mode, T(x))
    shape = (1, 2, 1, 1, 1)
    want = (x - want_mean.reshape(shape)) / np.sqrt(want_var.reshape(shape) + 1e-5)
    np.testing.assert_allclose(to_numpy(got), want, atol=1e-10)


@pytest.mark.parametrize("shape,groups", [((2, 6, 3, 2), 3), ((3, 4, 5), 2), ((2, 4), 4),
                                          ((2, 4, 2, 2, 2), 1)])
def test_group_norm_values(shape, groups, mode):
    x = RNG.standard_normal(shape) * 3 + 2
    channels = shape[1]
    gamma, beta = RNG.standard_normal(channels), RNG.standard_normal(channels)
    gn = nn.GroupNorm(groups, channels, eps=1e-4, gamma_init=T(gamma), beta_init=T(beta),
                      dtype=ms.float64)
    got = run_in_mode(gn, mode, T(x))
    np.testing.assert_allclose(to_numpy(got), group_norm_ref(x, groups, gamma, beta, 1e-4),
                               atol=1e-10)
    got = run_in_mode(lambda a: ops.group_norm(a, groups, T(gamma), T(beta), 1e-4), mode, T(x))
    np.testing.assert_allclose(to_numpy(got), group_norm_ref(x, groups, gamma, beta, 1e-4),
                               atol=1e-10)


@pytest.mark.parametrize("cls,shape", [(nn.InstanceNorm1d, (2, 3, 5)),
                                       (nn.InstanceNorm2d, (2, 3, 4, 3)),
                                       (nn.InstanceNorm3d, (2, 3, 2, 3, 2))])
def test_instance_norm_values_and_moving_statistics(cls, shape, mode):
    x = RNG.standard_normal(shape) * 2 - 1
    gamma, beta = RNG.standard_normal(3), RNG.standard_normal(3)
    cell = cls(3, momentum=0.3, gamma_init=T(gamma), beta_init=T(beta), dtype=ms.float64)
    spatial = tuple(range(2, len(shape)))
    per_channel = (3,) + (1,) * (len(shape) - 2)
    want = normalized(x, spatial, 1e-5) * gamma.reshape(per_channel) + beta.reshape(per_channel)
    # evaluation: instance statistics too, and the moving statistics stay as they are
    np.testing.assert_allclose(to_numpy(run_in_mode(cell, mode, T(x))), want, atol=1e-10)
    assert cell.moving_mean.asnumpy().tolist() == [0.0] * 3
    cell.set_train()
    np.testing.assert_allclose(to_numpy(run_in_mode(cell, mode, T(x))), want, atol=1e-10)
    count = int(np.prod(shape[2:]))
    np.testing.assert_allclose(cell.moving_mean.asnumpy(), 0.3 * x.mean(spatial).mean(0),
                               rtol=1e-10)
    unbiased = x.var(spatial).mean(0) * count / (count - 1)
    np.testing.assert_allclose(cell.moving_variance.asnumpy(), 0.7 + 0.3 * unbiased, rtol=1e-10)


def test_instance_norm_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the second reference")
    x = RNG.standard_normal((2, 3, 4, 5))
    want = torch.nn.functional.instance_norm(torch.tensor(x)).numpy()
    got = nn.InstanceNorm2d(3, dtype=ms.float64)(T(x)).asnumpy()
    np.testing.assert_allclose(got, want, atol=1e-10)
    want = torch.nn.functional.group_norm(torch.tensor(x), 3).numpy()
    np.testing.assert_allclose(ops.group_norm(T(x), 3).asnumpy(), want, atol=1e-10)


@pytest.mark.parametrize("radius,bias,alpha,beta", [(5, 1.0, 1.0, 0.5), (1, 2.0, 0.3, 0.75),
                                                    (0, 1.0, 1e-4, 0.75)])
def test_lrn_values(radius, bias, alpha, beta, mode):
    x = RNG.standard_normal((2, 4, 3, 2))
    want = lrn_ref(x, radius, bias, alpha, beta)
    got = run_in_mode(nn.LRN(radius, bias, alpha, beta), mode, T(x))
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10)


def test_lrn_mindspore_example():
    x = T(np.array([[[[0.1], [0.2]], [[0.3], [0.4]]]], np.float32))
    np.testing.assert_allclose(ops.lrn(x).asnumpy().ravel(),
                               [0.09534626, 0.1825742, 0.2860388, 0.3651484], rtol=1e-6)


def test_lrn_matches_torch_with_its_alpha_convention():
    torch = pytest.importorskip("torch", reason="PyTorch is the second reference")
    x = RNG.standard_normal((2, 6, 3, 3))
    # PyTorch divides alpha by the window size n = 2 r + 1 and pads the window at the edges
    want = torch.nn.functional.local_response_norm(torch.tensor(x), 5, alpha=5 * 0.2, beta=0.75,
                                                   k=2.0).numpy()
    np.testing.assert_allclose(ops.lrn(T(x), 2, 2.0, 0.2, 0.75).asnumpy(), want, rtol=1e-10)


@pytest.mark.parametrize("norm_axis,params_axis,shape", [(1, 1, (3, 4)), (1, 2, (4,)),
                                                          (2, 1, (3, 4)), (-1, -1, (4,))])
def test_layer_norm_axes(norm_axis, params_axis, shape, mode):
    x = RNG.standard_normal((2, 3, 4)) + 1
    gamma, beta = RNG.standard_normal(shape), RNG.standard_normal(shape)
    cell = nn.LayerNorm(shape, norm_axis, params_axis, T(gamma), T(beta), 1e-6, ms.float64)
    axes = tuple(range(norm_axis % 3, 3))
    want = normalized(x, axes, 1e-6) * gamma + beta
    np.testing.assert_allclose(to_numpy(run_in_mode(cell, mode, T(x))), want, atol=1e-10)


# ***** gradients *****

def test_group_instance_lrn_gradients():
    x = RNG.standard_normal((2, 4, 3))
    gn = nn.GroupNorm(2, 4, gamma_init=T(RNG.standard_normal(4)), dtype=ms.float64)
    check_cell_grads(gn, x)
    inorm = nn.InstanceNorm1d(4, gamma_init=T(RNG.standard_normal(4)),
                              dtype=ms.float64).set_train()
    check_cell_grads(inorm, x)
    check_fn_grads(lambda a: ops.lrn(a, 1, 1.5, 0.4, 0.75), RNG.standard_normal((2, 3, 2, 2)))
    bn = nn.BatchNorm3d(2, dtype=ms.float64, gamma_init=T(RNG.standard_normal(2))).set_train()
    check_cell_grads(bn, RNG.standard_normal((2, 2, 2, 2, 2)))


# ***** errors *****

def test_bad_arguments_and_inputs():
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(3, 4)
    with pytest.raises(ValueError, match="InstanceNorm2d"):
        nn.InstanceNorm2d(3)(ops.ones((2, 3, 4)))
    with pytest.raises(ValueError, match="BatchNorm3d"):
        nn.BatchNorm3d(3)(ops.ones((2, 3, 4, 4)))
    with pytest.raises(ValueError, match="GroupNorm"):
        nn.GroupNorm(2, 4)(ops.ones((2, 3, 4)))
    with pytest.raises(ValueError, match="lrn"):
        ops.lrn(ops.ones((2, 3, 4)))
    with pytest.raises(ValueError, match="norm_region"):
        nn.LRN(norm_region="WITHIN_CHANNEL")
    with pytest.raises(ValueError, match="group_norm"):
        ops.group_norm(ops.ones((2, 4, 3)), 3)


def test_mint_names_reach_the_new_layers():
    bn = mint.nn.BatchNorm3d(2, momentum=0.25)   # PyTorch's momentum: the new statistic's weight
    assert abs(bn.bn2d.momentum - 0.75) < 1e-12
    x = RNG.standard_normal((2, 4, 3))
    np.testing.assert_allclose(mint.nn.functional.group_norm(T(x), 2).asnumpy(),
                               group_norm_ref(x, 2, np.ones(4), np.zeros(4), 1e-5), atol=1e-10)
    assert mint.nn.GroupNorm is nn.GroupNorm and mint.nn.KLDivLoss is nn.KLDivLoss
