"""Layers against numpy references, and their gradients against finite differences."""
import math

import numpy as np
import pytest
from nn_checks import T, check_cell_grads, check_fn_grads

import minispore as ms
from minispore import nn, ops

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape)


# ***** Dense *****

def test_dense_values_shapes_and_defaults():
    dense = nn.Dense(3, 2)
    assert dense.weight.shape == (2, 3) and dense.bias.shape == (2,)
    bound = 1 / math.sqrt(3)      # HeUniform(sqrt(5)) and the bias both give U(-1/sqrt(in), ..)
    assert np.abs(dense.weight.asnumpy()).max() <= bound
    assert np.abs(dense.bias.asnumpy()).max() <= bound
    x = randn(4, 3).astype(np.float32)
    want = x @ dense.weight.asnumpy().T + dense.bias.asnumpy()
    np.testing.assert_allclose(dense(T(x)).asnumpy(), want, rtol=1e-5)
    x3 = randn(2, 5, 3).astype(np.float32)
    out = dense(T(x3))
    assert out.shape == (2, 5, 2)
    np.testing.assert_allclose(out.asnumpy(), x3 @ dense.weight.asnumpy().T + dense.bias.asnumpy(),
                               rtol=1e-5, atol=1e-6)
    assert dense(T(x[0])).shape == (2,)


def test_dense_activation_and_no_bias():
    w = randn(2, 3)
    dense = nn.Dense(3, 2, weight_init=T(w), has_bias=False, activation="relu", dtype=ms.float64)
    assert dense.bias is None and [p.name for p in dense.get_parameters()] == ["weight"]
    x = randn(4, 3)
    np.testing.assert_allclose(dense(T(x)).asnumpy(), np.maximum(x @ w.T, 0))
    assert isinstance(nn.Dense(3, 2, activation=nn.Tanh()).activation, nn.Tanh)


def test_dense_gradients():
    dense = nn.Dense(3, 2, activation="tanh", dtype=ms.float64)
    check_cell_grads(dense, randn(4, 3))


def test_dense_errors():
    with pytest.raises(ValueError, match=r"Dense: input of shape \(4, 5\).*in_channels=3"):
        nn.Dense(3, 2)(T(np.zeros((4, 5), np.float32)))
    with pytest.raises(ValueError, match="Dense: in_channels must be a positive int"):
        nn.Dense(0, 2)
    with pytest.raises(ValueError, match=r"weight_init has shape \(3, 2\), expected \(2, 3\)"):
        nn.Dense(3, 2, weight_init=T(np.zeros((3, 2), np.float32)))
    with pytest.raises(ValueError, match="unknown activation"):
        nn.Dense(3, 2, activation="swishy")


# ***** Conv2d *****

def conv2d_reference(x, w, stride, pads, dilation=(1, 1)):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), pads[:2], pads[2:]))
    span_h, span_w = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    oh = (x.shape[2] - span_h) // stride[0] + 1
    ow = (x.shape[3] - span_w) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride[0]:i * stride[0] + span_h:dilation[0],
                      j * stride[1]:j * stride[1] + span_w:dilation[1]]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


def test_conv2d_defaults_same_padding_and_values():
    conv = nn.Conv2d(3, 4, kernel_size=3)
    assert conv.pad_mode == "same" and conv.bias is None and conv.weight.shape == (4, 3, 3, 3)
    assert np.abs(conv.weight.asnumpy()).max() <= 1 / math.sqrt(27)
    x = randn(2, 3, 5, 6).astype(np.float32)
    out = conv(T(x))
    assert out.shape == (2, 4, 5, 6)
    want = conv2d_reference(x, conv.weight.asnumpy(), (1, 1), (1, 1, 1, 1))
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kwargs, pads, out_hw", [
    (dict(pad_mode="valid", stride=2), (0, 0, 0, 0), (3, 3)),
    (dict(pad_mode="same", stride=2), (1, 1, 1, 1), (4, 4)),      # ceil(7 / 2) = 4
    (dict(pad_mode="pad", padding=(1, 0, 2, 1)), (1, 0, 2, 1), (6, 8)),
    (dict(pad_mode="valid", dilation=2), (0, 0, 0, 0), (3, 3)),
])
def test_conv2d_pad_modes(kwargs, pads, out_hw):
    conv = nn.Conv2d(2, 3, 3, has_bias=True, dtype=ms.float64, **kwargs)
    x = randn(1, 2, 7, 7)
    out = conv(T(x))
    assert out.shape[2:] == out_hw
    want = conv2d_reference(x, conv.weight.asnumpy(), conv.stride, pads, conv.dilation)
    np.testing.assert_allclose(out.asnumpy(), want + conv.bias.asnumpy()[None, :, None, None],
                               rtol=1e-10, atol=1e-12)


def test_conv2d_groups_and_gradients():
    conv = nn.Conv2d(4, 2, 2, group=2, pad_mode="valid", has_bias=True, dtype=ms.float64)
    assert conv.weight.shape == (2, 2, 2, 2)
    x = randn(1, 4, 3, 3)
    separate = [conv2d_reference(x[:, 2 * g:2 * g + 2], conv.weight.asnumpy()[g:g + 1], (1, 1),
                                 (0, 0, 0, 0)) for g in range(2)]
    want = np.concatenate(separate, 1) + conv.bias.asnumpy()[None, :, None, None]
    np.testing.assert_allclose(conv(T(x)).asnumpy(), want, rtol=1e-10)
    check_cell_grads(conv, x)


def test_conv2d_errors():
    with pytest.raises(ValueError, match="padding must be 0 when pad_mode is 'same'"):
        nn.Conv2d(1, 1, 3, padding=1)
    with pytest.raises(ValueError, match="divisible by group"):
        nn.Conv2d(3, 4, 3, group=2)
    with pytest.raises(ValueError, match="pad_mode must be one of"):
        nn.Conv2d(1, 1, 3, pad_mode="full")
    with pytest.raises(ops.OpError, match=r"(?s)ops.conv2d: input has 2 channels.*\[1, 2, 5, 5\]"):
        nn.Conv2d(3, 4, 3)(ops.ones((1, 2, 5, 5)))


# ***** pooling *****

def pool_reference(x, k, s, reduce):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = reduce(x[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return out


def test_pooling_values_and_defaults():
    x = randn(2, 3, 6, 6)
    np.testing.assert_allclose(nn.MaxPool2d(2, 2)(T(x)).asnumpy(), pool_reference(x, 2, 2, np.max))
    np.testing.assert_allclose(nn.AvgPool2d(3, 1)(T(x)).asnumpy(), pool_reference(x, 3, 1, np.mean))
    assert nn.MaxPool2d()(T(x)).shape == x.shape        # kernel 1, stride 1
    assert nn.MaxPool2d(3, 2, pad_mode="same")(T(x)).shape == (2, 3, 3, 3)
    same_avg = nn.AvgPool2d(2, 2, pad_mode="same")(T(randn(1, 1, 5, 5)))
    assert same_avg.shape == (1, 1, 3, 3)
    ones = nn.AvgPool2d(2, 2, pad_mode="same")(T(np.ones((1, 1, 5, 5))))
    np.testing.assert_allclose(ones.asnumpy(), np.ones((1, 1, 3, 3)))   # padding not counted


def test_pooling_gradients():
    x = RNG.permutation(36).reshape(1, 1, 6, 6) / 7.0   # distinct values: the max is unique
    check_cell_grads(nn.MaxPool2d(2, 2), x)
    check_cell_grads(nn.AvgPool2d(3, 2, pad_mode="same"), randn(1, 2, 5, 5))


def test_max_pool2d_returns_indices_in_both_modes(mode):
    x = RNG.integers(0, 3, (2, 3, 6, 5)).astype(np.float32)   # ties: the first max wins
    pool = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, return_indices=True, ceil_mode=True)
    out, argmax = pool(T(x))
    assert argmax.dtype == ms.int64 and argmax.shape == out.shape == (2, 3, 4, 3)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 2), (1, 2)), constant_values=-np.inf)
    for i, j in np.ndindex(4, 3):
        window = padded[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].reshape(2, 3, 9)
        k = window.argmax(-1)                                   # the first maximum
        want = (2 * i - 1 + k // 3) * 5 + 2 * j - 1 + k % 3
        np.testing.assert_array_equal(argmax.asnumpy()[:, :, i, j], want)
    flat = np.take_along_axis(x.reshape(2, 3, -1), argmax.asnumpy().reshape(2, 3, -1), -1)
    np.testing.assert_array_equal(out.asnumpy(), flat.reshape(out.shape))
    plain = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True)
    np.testing.assert_array_equal(out.asnumpy(), plain(T(x)).asnumpy())


def pool1d_reference(x, k, s, reduce):
    length = (x.shape[-1] - k) // s + 1
    return np.stack([reduce(x[..., i * s:i * s + k], axis=-1) for i in range(length)], -1)


def test_pooling_1d_values_indices_and_unbatched_inputs(mode):
    x = randn(2, 3, 9)
    np.testing.assert_allclose(nn.MaxPool1d(3, 2)(T(x)).asnumpy(), pool1d_reference(x, 3, 2, np.max))
    np.testing.assert_allclose(nn.AvgPool1d(2, 2)(T(x)).asnumpy(),
                               pool1d_reference(x, 2, 2, np.mean), rtol=1e-6)
    np.testing.assert_allclose(nn.AvgPool1d(4, 1)(T(x[0])).asnumpy(),   # (C, L)
                               pool1d_reference(x[0], 4, 1, np.mean), rtol=1e-6)
    out, argmax = nn.MaxPool1d(3, 3, return_indices=True)(T(x))
    assert argmax.dtype == ms.int64 and argmax.shape == out.shape == (2, 3, 3)
    np.testing.assert_array_equal(argmax.asnumpy(), 3 * np.arange(3) + np.stack(
        [x[..., 3 * i:3 * i + 3].argmax(-1) for i in range(3)], -1))
    assert nn.MaxPool1d(3, 2, pad_mode="same")(T(x)).shape == (2, 3, 5)
    assert nn.AvgPool1d(3, 2, pad_mode="pad", padding=1)(T(x)).shape == (2, 3, 5)
    with pytest.raises(ValueError, match=r"MaxPool1d: input must be \(N, C, L\) or \(C, L\)"):
        nn.MaxPool1d(2)(T(randn(1, 1, 2, 2)))
    with pytest.raises(ValueError, match="kernel_size must be an int or a 1-tuple"):
        nn.AvgPool1d((2, 2))


def test_pooling_1d_gradients():
    x = RNG.permutation(18).reshape(1, 2, 9) / 7.0   # distinct values: the max is unique
    check_cell_grads(nn.MaxPool1d(3, 2), x)
    check_cell_grads(nn.AvgPool1d(3, 2, pad_mode="same"), randn(2, 2, 7))


def test_max_pool2d_with_indices_gradient():
    x = RNG.permutation(36).reshape(1, 1, 6, 6) / 7.0   # distinct values: the max is unique

    class Values(nn.Cell):
        def __init__(self):
            super().__init__()
            self.pool = nn.MaxPool2d(2, 2, return_indices=True)

        def construct(self, x):
            return self.pool(x)[0]

    check_cell_grads(Values(), x)


def test_pooling_errors():
    with pytest.raises(ValueError, match="MaxPool2d: padding must be 0 when pad_mode is 'valid'"):
        nn.MaxPool2d(2, 2, padding=1)
    with pytest.raises(TypeError, match="MaxPool2d: return_indices must be a bool"):
        nn.MaxPool2d(2, 2, return_indices=1)
    with pytest.raises(ValueError, match="AvgPool2d: kernel_size must be a positive int"):
        nn.AvgPool2d(0)
    with pytest.raises(ops.OpError, match=r"(?s)ops.max_pool2d: input must be a 4-D.*\[2, 5, 5\]"):
        nn.MaxPool2d(2, 2)(ops.ones((2, 5, 5)))


# ***** BatchNorm *****

def test_batchnorm_training_statistics_and_moving_update():
    bn = nn.BatchNorm2d(3, momentum=0.9, eps=1e-5, dtype=ms.float64).set_train()
    # MindSpore's order and names (issue 13): the statistics first, named 'mean' and
    # 'variance' until a parent prefixes them by their attribute path
    assert [p.name for p in bn.get_parameters()] == ["mean", "variance", "gamma", "beta"]
    assert [n for n, _ in bn.parameters_and_names()] == ["moving_mean", "moving_variance",
                                                         "gamma", "beta"]
    assert not bn.moving_mean.requires_grad and bn.gamma.requires_grad
    x1, x2 = randn(4, 3, 2, 2) * 2 + 1, randn(4, 3, 2, 2) - 3
    moving_mean, moving_var = np.zeros(3), np.ones(3)
    for x in (x1, x2):
        out = bn(T(x)).asnumpy()
        mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
        expect = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
        np.testing.assert_allclose(out, expect, rtol=1e-10, atol=1e-10)
        # MindSpore's convention: moving = momentum * moving + (1 - momentum) * batch
        moving_mean = 0.9 * moving_mean + 0.1 * mean
        moving_var = 0.9 * moving_var + 0.1 * x.var(axis=(0, 2, 3), ddof=1)
        np.testing.assert_allclose(bn.moving_mean.asnumpy(), moving_mean, rtol=1e-12)
        np.testing.assert_allclose(bn.moving_variance.asnumpy(), moving_var, rtol=1e-12)


def test_batchnorm_eval_uses_moving_statistics():
    bn = nn.BatchNorm1d(2, moving_mean_init=T(np.array([1.0, -1.0], np.float32)),
                        moving_var_init=T(np.array([4.0, 0.25], np.float32)),
                        gamma_init=2.0, beta_init=0.5)
    x = randn(5, 2).astype(np.float32)
    want = (x - [1.0, -1.0]) / np.sqrt(np.array([4.0, 0.25]) + 1e-5) * 2.0 + 0.5
    np.testing.assert_allclose(bn(T(x)).asnumpy(), want, rtol=1e-5)
    assert bn.moving_mean.asnumpy().tolist() == [1.0, -1.0]      # eval: no update
    fixed = nn.BatchNorm1d(2, use_batch_statistics=True)
    out = fixed(T(x)).asnumpy()        # batch statistics even in evaluation mode
    np.testing.assert_allclose(out.mean(axis=0), [0.0, 0.0], atol=1e-6)


def test_batchnorm_gradients_in_training_mode():
    bn = nn.BatchNorm2d(2, gamma_init="normal", beta_init="normal", dtype=ms.float64).set_train()
    check_cell_grads(bn, randn(3, 2, 2, 2), atol=1e-5)
    check_cell_grads(nn.BatchNorm1d(3, dtype=ms.float64).set_train(), randn(4, 3, 2), atol=1e-5)


def test_batchnorm_errors():
    with pytest.raises(ValueError, match=r"BatchNorm2d: input of shape \(2, 3\) must have rank 4"):
        nn.BatchNorm2d(3)(T(np.zeros((2, 3), np.float32)))
    with pytest.raises(ValueError, match="momentum must be in"):
        nn.BatchNorm2d(3, momentum=1.5)


# ***** LayerNorm *****

def test_layernorm_values_and_axes():
    ln = nn.LayerNorm((4,), gamma_init="normal", beta_init="normal", dtype=ms.float64)
    x = randn(2, 3, 4)
    normed = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-7)
    np.testing.assert_allclose(ln(T(x)).asnumpy(), normed * ln.gamma.asnumpy() + ln.beta.asnumpy(),
                               rtol=1e-9, atol=1e-12)
    wide = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1, dtype=ms.float64)
    normed = (x - x.mean((1, 2), keepdims=True)) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-7)
    np.testing.assert_allclose(wide(T(x)).asnumpy(), normed, rtol=1e-9, atol=1e-12)
    mixed = nn.LayerNorm((4,), begin_norm_axis=1, begin_params_axis=-1, dtype=ms.float64)
    np.testing.assert_allclose(mixed(T(x)).asnumpy(), normed, rtol=1e-9, atol=1e-12)
    check_cell_grads(ln, x, atol=1e-5)
    with pytest.raises(ValueError, match="LayerNorm: input of shape"):
        ln(T(np.zeros((2, 5))))


# ***** Dropout *****

def test_dropout_modes_and_seed():
    x = T(np.ones((100, 100), np.float32))
    drop = nn.Dropout(p=0.25)
    assert drop(x) is x                        # evaluation mode (a new Cell's default)
    drop.set_train()
    ms.set_seed(5)
    out = drop(x).asnumpy()
    assert set(np.unique(out)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((out == 0).mean() - 0.25) < 0.02
    ms.set_seed(5)
    np.testing.assert_array_equal(drop(x).asnumpy(), out)
    assert not np.array_equal(drop(x).asnumpy(), out)
    assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)
    assert nn.Dropout().p == 0.5
    assert nn.Dropout(p=0.0).set_train()(x) is x
    with pytest.raises(ValueError, match=r"Dropout: p must be in \[0.0, 1.0\)"):
        nn.Dropout(p=1.0)
    with pytest.raises(ValueError, match="keep_prob"):
        nn.Dropout(keep_prob=0.0)


def test_dropout_gradient_uses_the_same_mask():
    drop = nn.Dropout(p=0.5).set_train()
    x = T(randn(20))
    ms.set_seed(1)
    out = drop(x)
    ms.set_seed(1)
    grad = ms.grad(lambda v: drop(v).sum())(x)
    np.testing.assert_allclose(grad.asnumpy(), np.where(out.asnumpy() != 0, 2.0, 0.0))


# ***** Flatten, Embedding *****

def test_flatten():
    x = T(randn(2, 3, 4, 5))
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(start_dim=0)(x).shape == (120,)
    assert nn.Flatten(1, 2)(x).shape == (2, 12, 5)


def test_embedding_lookup_gradient_and_padding():
    emb = nn.Embedding(5, 3, padding_idx=0)
    table = emb.embedding_table.asnumpy()
    assert emb.embedding_table.shape == (5, 3) and not table[0].any()
    assert np.abs(table).max() < 0.1          # 'normal' init, sigma 0.01
    ids = T(np.array([[1, 4], [1, 0]], np.int32))
    np.testing.assert_array_equal(emb(ids).asnumpy(), table[[[1, 4], [1, 0]]])
    one_hot = nn.Embedding(5, 3, use_one_hot=True, embedding_table=T(table))
    np.testing.assert_allclose(one_hot(ids).asnumpy(), table[[[1, 4], [1, 0]]])
    for layer in (emb, one_hot):
        grad, = ms.grad(lambda i: layer(i).sum(), None, layer.trainable_params())(ids)
        assert grad.asnumpy()[:, 0].tolist() == [1.0, 2.0, 0.0, 0.0, 1.0]   # id 1 used twice
    with pytest.raises(TypeError, match="Embedding: ids must be an integer tensor"):
        emb(T(np.zeros(2, np.float32)))


# ***** activations *****

def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


@pytest.mark.parametrize("cell, reference", [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    (nn.Tanh(), np.tanh),
    (nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    (nn.LeakyReLU(), lambda x: np.where(x >= 0, x, 0.2 * x)),
    (nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    (nn.GELU(), gelu_tanh),
    (nn.Softmax(axis=0), lambda x: np.exp(x) / np.exp(x).sum(0)),
    (nn.LogSoftmax(), lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
], ids=lambda v: type(v).__name__ if isinstance(v, nn.Cell) else "")
def test_activations(cell, reference):
    x = randn(3, 4) * 4
    x[np.abs(x) < 1e-3] = 0.5                  # keep clear of kinks for finite differences
    x[np.abs(np.abs(x) - 6) < 1e-3] = 5.0
    np.testing.assert_allclose(cell(T(x)).asnumpy(), reference(x), rtol=1e-7, atol=1e-12)
    check_fn_grads(cell, x)


def test_gelu_exact_and_get_activation():
    from scipy.special import erf
    x = randn(5)
    np.testing.assert_allclose(nn.GELU(approximate=False)(T(x)).asnumpy(),
                               0.5 * x * (1 + erf(x / np.sqrt(2))), rtol=1e-7)
    assert isinstance(nn.get_activation("LeakyReLU"), nn.LeakyReLU)


# ***** containers *****

def test_sequential_cell():
    seq = nn.SequentialCell([nn.Dense(4, 3, dtype=ms.float64), nn.ReLU(),
                             nn.Dense(3, 2, dtype=ms.float64)])
    assert [n for n, _ in seq.parameters_and_names()] == ["0.weight", "0.bias", "2.weight",
                                                          "2.bias"]
    x = randn(5, 4)
    np.testing.assert_allclose(seq(T(x)).asnumpy(), seq[2](seq[1](seq[0](T(x)))).asnumpy())
    assert len(seq) == 3 and isinstance(seq[-1], nn.Dense) and len(seq[1:]) == 2
    assert [type(c).__name__ for c in seq] == ["Dense", "ReLU", "Dense"]
    check_cell_grads(seq, x)
    seq.append(nn.Tanh())
    assert len(seq) == 4 and list(seq.name_cells()) == ["0", "1", "2", "3"]
    del seq[1]
    assert list(seq.name_cells()) == ["0", "1", "2"]
    assert [n for n, _ in seq.parameters_and_names()] == ["0.weight", "0.bias", "1.weight",
                                                          "1.bias"]
    seq[2] = nn.Sigmoid()
    assert isinstance(seq[2], nn.Sigmoid)
    with pytest.raises(IndexError, match="index 7 is out of range"):
        seq[7]


def test_sequential_from_ordered_dict_and_args():
    from collections import OrderedDict
    named = nn.SequentialCell(OrderedDict([("fc", nn.Dense(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in named.parameters_and_names()] == ["fc.weight", "fc.bias"]
    assert len(nn.SequentialCell(nn.ReLU(), nn.Tanh())) == 2
    with pytest.raises(TypeError, match="entries must be Cells"):
        nn.SequentialCell([nn.ReLU(), ops.relu])


def test_cell_list_registers_parameters_in_its_parent():
    class Stack(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([nn.Dense(2, 2) for _ in range(2)])
            self.layers.append(nn.Dense(2, 1))

        def construct(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    net = Stack()
    assert [n for n, _ in net.parameters_and_names()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias",
        "layers.2.weight", "layers.2.bias"]
    assert net(T(np.ones((3, 2), np.float32))).shape == (3, 1)
    layers = nn.CellList()
    layers.extend([nn.ReLU(), nn.Tanh()])
    layers.insert(0, nn.Sigmoid())
    assert [type(c).__name__ for c in layers] == ["Sigmoid", "ReLU", "Tanh"]
