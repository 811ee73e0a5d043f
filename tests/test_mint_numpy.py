"""minispore.mint (PyTorch-style names and arguments, layers, optimizers) and minispore.numpy
against numpy / PyTorch's documented semantics, in both modes."""
import numpy as np
import pytest

import minispore as ms
import minispore.numpy as mnp
from minispore import mint, nn

from helpers import assert_close, run_in_mode

T = ms.Tensor
X = np.random.default_rng(4).standard_normal((3, 4))


def test_mint_functions(mode):
    idx = np.array([[1, 0], [3, 3], [0, 2]])

    def f(x):
        return (mint.sum(x, dim=1, keepdim=True), mint.max(x, dim=0)[1], mint.max(x),
                mint.gather(x, 1, T(idx)), mint.transpose(x, 0, 1), mint.cat([x, x], dim=1),
                mint.add(x, x, alpha=2), mint.sub(x, 1.0, alpha=3), mint.div(x, 0.3,
                                                                              rounding_mode="floor"),
                mint.std(x, dim=1), mint.var(x, dim=0, correction=0), mint.select(x, 1, 2),
                mint.index_add(x, 1, T([0, 0]), x[:, :2], alpha=2), mint.median(x),
                mint.argsort(x, dim=0, descending=True), mint.norm(x), mint.clamp(x, -0.5, 0.5),
                mint.scatter_add(x, 1, T(idx), x[:, :2]), mint.flatten(x), mint.squeeze(x[:1], 0))
    got = run_in_mode(f, mode, T(X))
    added = X.copy()
    added[:, 0] += 2 * (X[:, 0] + X[:, 1])
    scattered = X.copy()
    np.add.at(scattered, (np.arange(3)[:, None].repeat(2, 1), idx), X[:, :2])
    want = (X.sum(1, keepdims=True), X.argmax(0), X.max(), np.take_along_axis(X, idx, 1), X.T,
            np.concatenate([X, X], 1), 3 * X, X - 3, np.floor_divide(X, 0.3), X.std(1, ddof=1),
            X.var(0), X[:, 2], added, np.sort(X.ravel())[(X.size - 1) // 2],
            np.argsort(-X, 0, kind="stable"), np.linalg.norm(X), np.clip(X, -0.5, 0.5),
            scattered, X.ravel(), X[0])
    assert_close(got, want, rtol=1e-12, atol=1e-12, check_dtype=False)


def test_mint_creation_and_random():
    assert mint.zeros((2, 3), dtype=ms.int32).dtype == ms.int32
    assert mint.arange(1, 7, 2).tolist() == [1, 3, 5]
    ms.set_seed(0)
    a = mint.randn(2, 3)
    ms.set_seed(0)
    assert (mint.randn((2, 3)).asnumpy() == a.asnumpy()).all()
    assert mint.randint(0, 3, (5,)).shape == (5,)
    assert mint.bernoulli(T(np.ones(4, np.float32))).tolist() == [1, 1, 1, 1]


def test_mint_nn_layers_and_functional():
    layer = mint.nn.Linear(3, 2)
    x = T(np.ones((4, 3), np.float32))
    w, b = layer.weight.asnumpy(), layer.bias.asnumpy()
    assert_close(layer(x), np.ones((4, 3), np.float32) @ w.T + b, rtol=1e-6)
    assert_close(mint.nn.functional.linear(x, layer.weight, layer.bias), layer(x).asnumpy())
    assert_close(mint.nn.Softmax(dim=0)(T(X)), np.exp(X) / np.exp(X).sum(0), rtol=1e-6)
    assert mint.nn.ReLU is nn.ReLU
    assert mint.nn.functional.one_hot(T([0, 2]), 3).tolist() == [[1, 0, 0], [0, 0, 1]]
    padded = mint.nn.functional.pad(T(np.ones((1, 2), np.float32)), (1, 2))
    assert padded.tolist() == [[0, 1, 1, 0, 0]]
    conv = mint.nn.Conv2d(1, 2, 3, padding=1)
    assert conv(T(np.ones((1, 1, 4, 4), np.float32))).shape == (1, 2, 4, 4)
    bn = mint.nn.BatchNorm2d(2, momentum=0.1)
    assert abs(bn.momentum - 0.9) < 1e-12  # PyTorch's 0.1 is MindSpore's 0.9


def test_mint_adamw_follows_pytorch():
    """One AdamW step from p = 1, g = 2: decay then the bias-corrected step of size lr."""
    p = ms.Parameter(T(np.ones(2, np.float32)), name="p")
    opt = mint.optim.AdamW([p], lr=0.1, weight_decay=0.5)
    opt((T(np.full(2, 2.0, np.float32)),))
    # p * (1 - lr * wd) - lr * m_hat / (sqrt(v_hat) + eps), m_hat = 2, v_hat = 4
    assert_close(p, np.full(2, 1 * (1 - 0.05) - 0.1 * 2 / (2 + 1e-8), np.float32), rtol=1e-6)


def test_numpy_namespace(mode):
    def f(a):
        return (mnp.concatenate((a, a), axis=None), mnp.where(a > 0, a, 0), mnp.dot(a, a.T),
                mnp.mean(a, axis=1, keepdims=True), mnp.std(a, ddof=1), mnp.cumsum(a),
                mnp.average(a, axis=1, weights=mnp.arange(4.0)), mnp.pad(a, 1),
                mnp.split(a, 2, axis=1)[1], mnp.trace(a), mnp.cbrt(a), mnp.nanmax(a, 0),
                mnp.repeat(a, 2), mnp.transpose(a), mnp.take(a, mnp.array([0, 5])), mnp.cov(a),
                mnp.amax(a, axis=0), mnp.interp(a, mnp.array([-1.0, 1.0]), mnp.array([0.0, 2.0])))
    got = run_in_mode(f, mode, T(X))
    want = (np.concatenate((X, X), None), np.where(X > 0, X, 0), X @ X.T,
            X.mean(1, keepdims=True), X.std(ddof=1), np.cumsum(X),
            np.average(X, 1, np.arange(4.0)), np.pad(X, 1), np.split(X, 2, 1)[1], np.trace(X),
            np.cbrt(X), np.nanmax(X, 0), np.repeat(X, 2), X.T, np.take(X, [0, 5]), np.cov(X),
            X.max(0), np.interp(X, [-1.0, 1.0], [0.0, 2.0]))
    assert_close(got, want, rtol=1e-6, atol=1e-6, check_dtype=False)


def test_numpy_creation_defaults_to_float32():
    assert mnp.zeros((2,)).dtype == ms.float32 and mnp.linspace(0, 1, 5).dtype == ms.float32
    assert mnp.full((2,), 3).dtype == ms.int32 and mnp.eye(2, k=1).tolist() == [[0, 1], [0, 0]]
    assert mnp.unique(mnp.array([3, 1, 3])).tolist() == [1, 3]
    assert mnp.isin(mnp.array([1, 2, 3]), [2, 3]).tolist() == [False, True, True]
    counts, edges = mnp.histogram(mnp.array([1.0, 2.0, 2.0, 3.0]), 2)
    assert counts.tolist() == [1.0, 3.0] and edges.tolist() == [1.0, 2.0, 3.0]
    assert [t.tolist() for t in mnp.unravel_index(mnp.array([5]), (2, 3))] == [[1], [2]]
    assert mnp.mgrid[0:2, 0:2][1].tolist() == [[0, 1], [0, 1]]
    with pytest.raises(ValueError, match="split"):
        mnp.split(mnp.ones((3,)), 2)


def test_mint_nn_unfold_takes_pytorch_arguments_and_pytorch_names_resolve():
    x = ms.Tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4))
    got = mint.nn.Unfold(2, padding=1, stride=2)(x).asnumpy()
    padded = np.pad(x.asnumpy(), ((0, 0), (0, 0), (1, 1), (1, 1)))
    # columns: (channel, kernel row, kernel col) x (block row, block col), as PyTorch orders them
    want = np.stack([padded[0, :, i:i + 2, j:j + 2].reshape(-1)
                     for i in range(0, 5, 2) for j in range(0, 5, 2)], axis=1)[None]
    np.testing.assert_array_equal(got, want)
    assert mint.nn.Hardswish is nn.HSwish and mint.nn.SELU is nn.SeLU
    assert mint.nn.Hardsigmoid is nn.HSigmoid and mint.nn.Hardshrink is nn.HShrink
