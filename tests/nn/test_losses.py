"""Loss Cells against numpy formulas, reductions, gradients, errors."""
import numpy as np
import pytest
from nn_checks import T, check_fn_grads

import minispore as ms
from minispore import nn

RNG = np.random.default_rng(1)


def reduce(loss, reduction):
    return {"mean": loss.mean(), "sum": loss.sum(), "none": loss}[reduction]


def log_softmax(x, axis=-1):
    shifted = x - x.max(axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis, keepdims=True))


def softplus(x):
    return np.logaddexp(0, x)


X, Y = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
LOGITS = RNG.standard_normal((5, 4))
CLASSES = np.array([0, 3, 1, 1, 2])
PROBS = np.exp(log_softmax(RNG.standard_normal((5, 4))))
BINARY = (RNG.random((4, 3)) > 0.5).astype(np.float64)

CASES = {
    "MSELoss": (nn.MSELoss, {}, (X, Y), lambda: (X - Y) ** 2),
    "L1Loss": (nn.L1Loss, {}, (X, Y), lambda: np.abs(X - Y)),
    "SmoothL1Loss": (nn.SmoothL1Loss, {"beta": 0.5}, (X, Y),
                     lambda: np.where(np.abs(X - Y) < 0.5, 0.5 * (X - Y) ** 2 / 0.5,
                                      np.abs(X - Y) - 0.25)),
    "BCEWithLogitsLoss": (nn.BCEWithLogitsLoss, {}, (X, BINARY),
                          lambda: BINARY * softplus(-X) + (1 - BINARY) * softplus(X)),
    "SoftmaxCrossEntropyWithLogits": (nn.SoftmaxCrossEntropyWithLogits, {}, (LOGITS, PROBS),
                                      lambda: -(PROBS * log_softmax(LOGITS)).sum(-1)),
    "CrossEntropyLoss": (nn.CrossEntropyLoss, {}, (LOGITS, CLASSES),
                         lambda: -log_softmax(LOGITS)[np.arange(5), CLASSES]),
    "NLLLoss": (nn.NLLLoss, {}, (LOGITS, CLASSES), lambda: -LOGITS[np.arange(5), CLASSES]),
}


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_losses_match_numpy(name, reduction):
    cls, kwargs, inputs, reference = CASES[name]
    loss = cls(reduction=reduction, **kwargs)
    got = loss(*[T(a) for a in inputs])
    np.testing.assert_allclose(got.asnumpy(), reduce(reference(), reduction), rtol=1e-10,
                               atol=1e-12)
    if reduction == "mean":
        check_fn_grads(loss, *inputs)


def test_default_reductions_follow_mindspore():
    assert nn.MSELoss().reduction == "mean" and nn.CrossEntropyLoss().reduction == "mean"
    assert nn.SmoothL1Loss().reduction == "none"
    assert nn.SoftmaxCrossEntropyWithLogits().reduction == "none"


def test_sparse_softmax_cross_entropy_and_weighted_cross_entropy():
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    want = -log_softmax(LOGITS)[np.arange(5), CLASSES].mean()
    np.testing.assert_allclose(sparse(T(LOGITS), T(CLASSES.astype(np.int32))).asnumpy(), want)
    weight = np.array([1.0, 2.0, 0.5, 3.0])
    ce = nn.CrossEntropyLoss(weight=T(weight), ignore_index=1)
    keep = CLASSES != 1
    picked = -log_softmax(LOGITS)[np.arange(5), CLASSES] * weight[CLASSES]
    np.testing.assert_allclose(ce(T(LOGITS), T(CLASSES)).asnumpy(),
                               picked[keep].sum() / weight[CLASSES][keep].sum())
    smooth = nn.CrossEntropyLoss(label_smoothing=0.1)
    target = np.eye(4)[CLASSES] * 0.9 + 0.1 / 4
    np.testing.assert_allclose(smooth(T(LOGITS), T(CLASSES)).asnumpy(),
                               -(target * log_softmax(LOGITS)).sum(-1).mean())


def test_bce_with_logits_weights():
    weight, pos_weight = RNG.random(3) + 0.5, RNG.random(3) + 0.5
    loss = nn.BCEWithLogitsLoss(reduction="sum", weight=T(weight), pos_weight=T(pos_weight))
    want = (pos_weight * BINARY * softplus(-X) + (1 - BINARY) * softplus(X)) * weight
    np.testing.assert_allclose(loss(T(X), T(BINARY)).asnumpy(), want.sum())


def test_bce_loss_on_probabilities():
    p = 1 / (1 + np.exp(-X))
    want = -(BINARY * np.log(p) + (1 - BINARY) * np.log(1 - p)).mean()
    np.testing.assert_allclose(nn.BCELoss()(T(p), T(BINARY)).asnumpy(), want)


def test_get_loss_and_bad_reduction():
    base = nn.LossBase(reduction="sum")
    assert float(base.get_loss(T(np.array([1.0, 2.0])), 3.0)) == 9.0
    with pytest.raises(ValueError, match="MSELoss: reduction must be one of"):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match="label_smoothing"):
        nn.CrossEntropyLoss(label_smoothing=2.0)
    with pytest.raises(ms.ops.OpError, match="binary_cross_entropy_with_logits"):
        nn.BCEWithLogitsLoss()(T(X), T(BINARY[:2]))


EXTREME = np.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 0.0], [0.0, 0.0, 0.0]], np.float32)
EXTREME_LABELS = np.array([1, 1, 2])


@pytest.mark.parametrize("loss", [nn.CrossEntropyLoss(reduction="sum"),
                                  nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")],
                         ids=["CrossEntropyLoss", "SoftmaxCrossEntropyWithLogits"])
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_classification_losses_on_extreme_logits(loss, mode):
    """Logits of +-1e4 in float32: exact finite losses and gradients (softmax - onehot)."""
    ms.set_context(mode=mode)
    try:
        value, grad = ms.value_and_grad(loss)(T(EXTREME), T(EXTREME_LABELS))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(float(value), 2e4 + np.log(3.0), rtol=1e-6)
    probs = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1 / 3] * 3])
    np.testing.assert_allclose(grad.asnumpy(), probs - np.eye(3)[EXTREME_LABELS], atol=1e-7)


def test_log_softmax_cell_on_extreme_logits():
    got = nn.LogSoftmax()(T(EXTREME)).asnumpy()
    np.testing.assert_allclose(got, log_softmax(EXTREME.astype(np.float64)), rtol=1e-6)
    assert np.isfinite(nn.Softmax()(T(EXTREME)).asnumpy()).all()


def test_cross_entropy_with_every_label_ignored_is_nan_with_zero_gradient(mode):
    # PyTorch's answer: the mean over no label is nan, and nothing reaches the logits
    labels = T(np.full(5, -100, np.int32))
    loss_fn = nn.CrossEntropyLoss()
    grad_fn = ms.value_and_grad(lambda z: loss_fn(z, labels))
    if mode == "graph":
        grad_fn = ms.jit(grad_fn)
    with np.errstate(all="raise"):  # and no warning on the way
        loss, grad = grad_fn(T(LOGITS))
    assert np.isnan(loss.asnumpy())
    np.testing.assert_array_equal(grad.asnumpy(), np.zeros(LOGITS.shape))


def test_cross_entropy_loss_ignore_index_without_weight():
    labels = np.array([0, 3, 1, 1, 2])
    picked = -log_softmax(LOGITS)[np.arange(5), labels]
    kept = labels != 1
    for reduction, want in [("none", np.where(kept, picked, 0.0)), ("sum", picked[kept].sum()),
                            ("mean", picked[kept].mean())]:
        loss = nn.CrossEntropyLoss(ignore_index=1, reduction=reduction)
        np.testing.assert_allclose(loss(T(LOGITS), T(labels)).asnumpy(), want, rtol=1e-12)
    check_fn_grads(nn.CrossEntropyLoss(ignore_index=1), LOGITS, labels)
