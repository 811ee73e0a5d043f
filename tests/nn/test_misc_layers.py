"""Identity, Unflatten, Dropout1d/2d/3d, CellDict, SequentialCell from an OrderedDict,
Embedding's max_norm and BiDense: values, gradients, both modes, parameter names."""
from collections import OrderedDict

import numpy as np
import pytest
from helpers import run_in_mode, to_numpy
from nn_checks import T, check_cell_grads, check_fn_grads

import minispore as ms
from minispore import nn, ops

RNG = np.random.default_rng(11)


def test_identity_and_unflatten(mode):
    x = RNG.standard_normal((4, 6, 2))
    np.testing.assert_array_equal(to_numpy(run_in_mode(nn.Identity(), mode, T(x))), x)
    got = run_in_mode(nn.Unflatten(1, (2, -1)), mode, T(x))
    np.testing.assert_array_equal(to_numpy(got), x.reshape(4, 2, 3, 2))
    got = run_in_mode(nn.Unflatten(-1, (1, 2)), mode, T(x))
    assert to_numpy(got).shape == (4, 6, 1, 2)
    with pytest.raises(TypeError):
        nn.Unflatten(1.0, (2, 3))


@pytest.mark.parametrize("cls,shape", [(nn.Dropout1d, (4, 6, 5)), (nn.Dropout1d, (6, 5)),
                                       (nn.Dropout2d, (4, 6, 3, 3)),
                                       (nn.Dropout3d, (2, 6, 2, 2, 3))])
def test_channel_dropout_zeroes_whole_channels(cls, shape, mode):
    ms.set_seed(3)
    x = RNG.random(shape) + 0.5
    layer = cls(p=0.4)
    np.testing.assert_array_equal(to_numpy(run_in_mode(layer, mode, T(x))), x)  # eval: as is
    layer.set_train()
    y = to_numpy(run_in_mode(layer, mode, T(x)))
    # the axes before the spatial ones: (N, C) or (C,)
    channel_axes = len(shape) - {nn.Dropout1d: 1, nn.Dropout2d: 2, nn.Dropout3d: 3}[cls]
    planes = y.reshape(y.shape[:channel_axes] + (-1,)) / x.reshape(x.shape[:channel_axes] + (-1,))
    # each channel is either dropped or scaled by 1 / (1 - p), as a whole
    assert np.allclose(planes, planes[..., :1])
    assert set(np.round(np.unique(planes), 6)) <= {0.0, round(1 / 0.6, 6)}
    # the gradient is the same mask
    grad = ms.grad(lambda a: ops.sum(layer(a)))(T(x)) if mode == "pynative" else None
    if grad is not None:
        assert set(np.round(np.unique(grad.asnumpy()), 6)) <= {0.0, round(1 / 0.6, 6)}


def test_channel_dropout_functions_check_their_input():
    with pytest.raises(ValueError, match="dropout2d"):
        ops.dropout2d(ops.ones((2, 3)))
    with pytest.raises(ValueError):
        nn.Dropout3d(p=1.5)
    x = ops.ones((2, 3, 4))
    assert ops.dropout1d(x, 0.5, training=False) is x
    assert float(ops.sum(ops.dropout1d(x, 1.0))) == 0.0


def test_cell_dict_registers_and_names_its_cells(mode):
    heads = nn.CellDict([("up", nn.Dense(3, 4)), ("down", nn.Dense(3, 2))])
    assert heads.keys() == ["up", "down"] and len(heads) == 2 and "up" in heads
    assert [p.name for p in heads.get_parameters()] == ["up.weight", "up.bias", "down.weight",
                                                        "down.bias"]

    class TwoHeads(nn.Cell):
        def __init__(self):
            super().__init__()
            self.heads = heads

        def construct(self, x):
            return self.heads["up"](x).sum(-1) + self.heads["down"](x).sum(-1)

    net = TwoHeads()
    assert next(p.name for p in net.get_parameters()) == "heads.up.weight"
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    want = (x @ heads["up"].weight.asnumpy().T + heads["up"].bias.asnumpy()).sum(-1) + \
        (x @ heads["down"].weight.asnumpy().T + heads["down"].bias.asnumpy()).sum(-1)
    np.testing.assert_allclose(to_numpy(run_in_mode(net, mode, T(x))), want, rtol=1e-5)
    heads["extra"] = nn.ReLU()
    assert list(heads) == ["up", "down", "extra"]
    assert isinstance(heads.pop("extra"), nn.ReLU) and len(heads) == 2
    heads.update({"more": nn.Tanh()})
    assert [k for k, _ in heads.items()] == ["up", "down", "more"]
    with pytest.raises(TypeError):
        nn.CellDict({"a": 3})
    with pytest.raises(TypeError):
        nn.CellDict({1: nn.ReLU()})
    heads.clear()
    assert len(heads) == 0


def test_sequential_cell_from_an_ordered_dict(mode):
    net = nn.SequentialCell(OrderedDict([("fc", nn.Dense(3, 4)), ("act", nn.ReLU()),
                                         ("out", nn.Dense(4, 2))]))
    assert [p.name for p in net.get_parameters()] == ["fc.weight", "fc.bias", "out.weight",
                                                      "out.bias"]
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    hidden = np.maximum(x @ net[0].weight.asnumpy().T + net[0].bias.asnumpy(), 0)
    want = hidden @ net[2].weight.asnumpy().T + net[2].bias.asnumpy()
    np.testing.assert_allclose(to_numpy(run_in_mode(net, mode, T(x))), want, rtol=1e-5)


def test_embedding_max_norm(mode):
    table = RNG.standard_normal((6, 4)) * 3
    emb = nn.Embedding(6, 4, embedding_table=T(table.astype(np.float32)), max_norm=1.5)
    ids = np.array([[0, 5], [2, 2]])
    rows = table[ids]
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    want = rows * np.minimum(1.5 / norms, 1.0)
    np.testing.assert_allclose(to_numpy(run_in_mode(emb, mode, T(ids))), want, rtol=1e-5)
    # the table itself is unchanged
    np.testing.assert_allclose(emb.embedding_table.asnumpy(), table, rtol=1e-6)
    small = nn.Embedding(6, 4, embedding_table=T(table.astype(np.float32)), max_norm=100.0,
                         padding_idx=1)
    np.testing.assert_allclose(small(T(ids)).asnumpy(), table[ids] * (ids != 1)[..., None],
                               rtol=1e-6)


def test_bidense_values_gradients_and_parameters(mode):
    layer = nn.BiDense(3, 4, 2, dtype=ms.float64)
    assert [p.name for p in layer.get_parameters()] == ["weight", "bias"]
    assert layer.weight.shape == (2, 3, 4) and layer.bias.shape == (2,)
    assert np.abs(layer.weight.asnumpy()).max() <= 1 / np.sqrt(3)
    x1, x2 = RNG.standard_normal((2, 5, 3)), RNG.standard_normal((2, 5, 4))
    w, b = layer.weight.asnumpy(), layer.bias.asnumpy()
    want = np.einsum("...i,oij,...j->...o", x1, w, x2) + b
    np.testing.assert_allclose(to_numpy(run_in_mode(layer, mode, T(x1), T(x2))), want,
                               rtol=1e-10)
    check_cell_grads(layer, x1, x2)
    check_fn_grads(lambda a, c, d: ops.bidense(a, c, d), x1[0], x2[0], w)
    torch = pytest.importorskip("torch", reason="PyTorch's bilinear is the same map")
    got = torch.nn.functional.bilinear(torch.tensor(x1), torch.tensor(x2), torch.tensor(w),
                                       torch.tensor(b)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_bidense_without_bias_and_bad_input():
    layer = nn.BiDense(2, 2, 3, has_bias=False)
    assert layer.bias is None and [p.name for p in layer.get_parameters()] == ["weight"]
    with pytest.raises(ValueError, match="BiDense"):
        layer(ops.ones((4, 3)), ops.ones((4, 2)))


def test_primitive_classes_of_the_family():
    x = RNG.standard_normal((2, 4, 3, 3))
    np.testing.assert_allclose(ops.LRN(2, 1.5, 0.3, 0.6)(T(x)).asnumpy(),
                               ops.lrn(T(x), 2, 1.5, 0.3, 0.6).asnumpy())
    ms.set_seed(1)
    out, mask = ops.Dropout2D(keep_prob=0.6)(T(x))
    assert mask.dtype == ms.bool_ and mask.shape == x.shape
    np.testing.assert_allclose(out.asnumpy(), x * mask.asnumpy() / 0.6, rtol=1e-12)
    a, b = RNG.standard_normal((3, 4)), np.sign(RNG.standard_normal((3, 4)))
    np.testing.assert_allclose(float(ops.SoftMarginLoss("sum")(T(a), T(b))),
                               np.logaddexp(0, -a * b).sum(), rtol=1e-12)
    logits, labels = RNG.standard_normal((4, 3)), np.array([0, 2, -100, 1], np.int32)
    weight = np.array([0.5, 1.0, 2.0])
    loss, total = ops.NLLLoss(ignore_index=-100)(T(logits), T(labels), T(weight))
    assert float(total) == 0.5 + 2.0 + 1.0
    np.testing.assert_allclose(float(loss), float(ops.nll_loss(T(logits), T(labels), T(weight))))
    lp = ops.log_softmax(T(RNG.standard_normal((4, 2, 3))), 2)
    nll, alpha = ops.CTCLossV2()(lp, T(np.array([[1, 2], [2, 2]])), T(np.array([4, 4])),
                                 T(np.array([2, 2])))
    assert nll.shape == (2,) and alpha.shape == (2, 4, 5)
