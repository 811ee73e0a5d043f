"""Tensor methods of MindSpore 2.x: every reduction method with each keyword spelling
(axis/dim, keep_dims/keepdims/keepdim) in both modes, methods mirroring ops, in-place forms
(eagerly, under grad, and on a Parameter in Graph mode), properties."""
import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops

from helpers import assert_close, run_in_mode

T = ms.Tensor
X = np.random.default_rng(3).standard_normal((2, 3, 4))

REDUCTIONS = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "amax": np.max, "amin": np.min,
              "std": np.std, "var": np.var, "nansum": np.nansum, "all": np.all, "any": np.any}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_methods_take_every_keyword_spelling(name, mode):
    ref = REDUCTIONS[name]
    data = X > 0 if name in ("all", "any") else X

    def calls(t):
        method = getattr(t, name)
        out = [method(axis=1, keepdims=True), method(1, keepdims=True)]
        if name != "nansum":
            out.append(method(axis=1, keep_dims=True))
        out.append(method(dim=1, keepdim=True) if name not in ("std", "var", "nansum")
                   else method(axis=(0, 2)))
        return tuple(out)

    got = run_in_mode(calls, mode, T(data))
    keep = ref(data, axis=1, keepdims=True)
    last = ref(data, axis=(0, 2)) if name in ("std", "var", "nansum") else keep
    want = (keep, keep) + ((keep,) if name != "nansum" else ()) + (last,)
    assert_close(got, want, rtol=1e-12, atol=1e-12, check_dtype=False)


def test_sum_takes_dtype_and_keepdim_positionally():
    t = T(X)
    assert t.sum(1, True).shape == (2, 1, 4)
    assert t.sum(1, ms.float32).dtype == ms.float32
    assert t.sum(dim=(0, 1), keepdim=False, dtype=ms.float32).shape == (4,)


def test_max_min_argmax_spellings(mode):
    def calls(t):
        return (t.max(), t.max(axis=2), t.max(2)[1], t.max(dim=0, keepdim=True)[0],
                t.min(axis=1, keepdims=True), t.argmax(dim=2), t.argmin(axis=1, keepdims=True),
                t.argmax_with_value(1)[1])
    got = run_in_mode(calls, mode, T(X))
    want = (X.max(), X.max(2), X.argmax(2), X.max(0, keepdims=True), X.min(1, keepdims=True),
            X.argmax(2), X.argmin(1, keepdims=True), X.argmax(1))
    assert_close(got, want, check_dtype=False)


def test_ops_reductions_take_dim_and_keepdim():
    assert_close(ops.sum(T(X), dim=2, keepdim=True), X.sum(2, keepdims=True))
    assert_close(ops.mean(T(X), dim=(0, 1)), X.mean((0, 1)))
    assert_close(ops.amax(T(X), 0, keepdims=True), X.max(0, keepdims=True))
    assert ops.prod(T(X), 1, dtype=ms.float32).dtype == ms.float32


def test_methods_mirroring_ops(mode):
    a = X[0]

    def calls(t):
        return (t.flip(0), t.roll(1, 1), t.tril(), t.triu(1), t.masked_fill(t > 0, 0.0),
                t.norm(), t.cumprod(1), t.logsumexp(1), t.diagonal(), t.trace(), t.unsqueeze(0),
                t.movedim(0, 1), t.repeat(2, 1), t.expand(2, 3, 4), t.where(t > 0, 1.0),
                t.fmod(0.5), t.isclose(t), t.atan2(t), t.float().square(), t.median(1)[0],
                t.count_nonzero(), t.new_zeros((2,)), t.new_full((2,), 3.0), t.type_as(T([1])))
    got = run_in_mode(calls, mode, T(a))
    want = (np.flip(a, 0), np.roll(a, 1, 1), np.tril(a), np.triu(a, 1), np.where(a > 0, 0, a),
            np.linalg.norm(a), np.cumprod(a, 1), np.log(np.exp(a).sum(1)), np.diagonal(a),
            np.trace(a), a[None], a.T, np.tile(a, (2, 1)), np.broadcast_to(a, (2, 3, 4)),
            np.where(a > 0, a, 1.0), np.fmod(a, 0.5), np.ones(a.shape, bool),
            np.arctan2(a, a), a.astype(np.float32) ** 2, np.sort(a, 1)[:, 1],
            np.int32((a != 0).sum()), np.zeros(2), np.full(2, 3.0), a.astype(np.int64))
    assert_close(got, want, rtol=1e-6, atol=1e-6, check_dtype=False)


def test_properties_and_conversions():
    t = T(np.zeros((2, 3), np.float32))
    assert (t.nbytes, t.itemsize, t.strides, t.stride(), t.stride(0)) == (24, 4, (12, 4),
                                                                           (3, 1), 3)
    assert t.is_contiguous() and t.contiguous() is t and t.dim() == t.ndimension() == 2
    assert (t.numel(), t.nelement()) == (6, 6)
    assert t.mT.shape == (3, 2) and t.double().dtype == ms.float64 and t.int().dtype == ms.int32
    assert isinstance(t.numpy(), np.ndarray) and t.is_floating_point()
    array = np.arange(3.0)
    shared = ms.Tensor.from_numpy(array)
    array[0] = 7.0
    assert shared.asnumpy()[0] == 7.0  # zero-copy
    assert T([[1.0, 2.0]]).kthvalue(2, 1)[0].tolist() == [2.0]


def test_in_place_forms():
    t = T(np.ones(3, np.float32))
    assert t.add_(1).tolist() == [2, 2, 2] and t.tolist() == [2, 2, 2]
    t.mul_(T([1.0, 2.0, 3.0])).sub_(1, alpha=2)
    assert t.tolist() == [0, 2, 4]
    t.clamp_(1, 3).masked_fill_(T([True, False, False]), -1.0)
    assert t.tolist() == [-1, 2, 3]
    t.zero_()
    assert t.tolist() == [0, 0, 0]
    t.fill_(5).copy_(T([1.0, 2.0, 3.0]))
    assert t.tolist() == [1, 2, 3]
    m = T(np.zeros((2, 2), np.float32))
    m.index_add_(0, T([1, 1]), T(np.ones((2, 2), np.float32)))
    assert m.tolist() == [[0, 0], [2, 2]]


def test_in_place_forms_in_graph_mode_update_parameters():
    class Step(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(T(np.ones(3, np.float32)), name="w")

        def construct(self, x):
            self.w.add_(x)
            return self.w.sum()

    net = Step()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        assert float(net(T(np.ones(3, np.float32)))) == 6.0
        assert float(net(T(np.ones(3, np.float32)))) == 9.0
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert net.w.tolist() == [3, 3, 3]


def test_gradient_through_methods():
    g = ms.grad(lambda t: t.flip(1).cumprod(1).sum(dim=1).mean())(T(X[0]))
    want = np.zeros_like(X[0])
    for r, row in enumerate(X[0][:, ::-1]):
        for i in range(4):
            want[r, 3 - i] = sum(np.prod(np.delete(row[:j + 1], i)) for j in range(i, 4)) / 3
    assert_close(g, want, rtol=1e-10, atol=1e-12)


def test_element_and_shape_editing_methods():
    t = T(np.zeros((2, 3), np.float32))
    t.index_copy_(1, T([2, 0]), T(np.arange(4, dtype=np.float32).reshape(2, 2)))
    assert t.tolist() == [[1, 0, 0], [3, 0, 2]]
    t.itemset(4, 7.0)
    t.itemset((0, 1), 5.0)
    assert t.tolist() == [[1, 5, 0], [3, 7, 2]]
    assert t.resize(2, 4).tolist() == [[1, 5, 0, 3], [7, 2, 0, 0]]
    assert t.resize((4,)).tolist() == [1, 5, 0, 3]
    choices = [T([1.0, 2.0, 3.0]), T([10.0, 20.0, 30.0])]
    assert T([0, 5, 1]).choose(choices).tolist() == [1, 20, 30]
    assert T([0, 3, 1]).choose(choices, mode="wrap").tolist() == [1, 20, 30]
