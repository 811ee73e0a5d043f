"""The losses beyond the basic ones (HuberLoss ... CTCLoss) and their ops functions against
numpy references written from MindSpore's formulas, MindSpore's own documented examples, and
PyTorch where importable; gradients by finite differences; both modes."""
import numpy as np
import pytest
from helpers import run_in_mode, to_numpy
from nn_checks import T, check_fn_grads

import minispore as ms
from minispore import nn, ops
from minispore.ops import OpShapeError

RNG = np.random.default_rng(3)
X, Y = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
SIGNS = np.where(RNG.random((4, 3)) > 0.5, 1.0, -1.0)


def reduce(loss, reduction):
    return {"mean": loss.mean(), "sum": loss.sum(), "none": loss}[reduction]


def log_sigmoid(x):
    return -np.logaddexp(0, -x)


def ctc_ref(log_probs, targets, input_lengths, target_lengths, blank):
    """-log p by brute force: the sum over every path of length T that collapses to the
    target (repeats merged, then blanks removed)."""
    import itertools
    losses = []
    for n in range(log_probs.shape[1]):
        t_n, target = input_lengths[n], list(targets[n, :target_lengths[n]])
        total = -np.inf
        for path in itertools.product(range(log_probs.shape[2]), repeat=t_n):
            merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
            if [c for c in merged if c != blank] == target:
                total = np.logaddexp(total, sum(log_probs[t, n, c] for t, c in enumerate(path)))
        losses.append(-total)
    return np.array(losses)


# ***** MindSpore's documented examples *****

F32 = np.float32
EXAMPLES = [
    (lambda: nn.HuberLoss()(T([1.0, 2.0, 3.0]), T([1.0, 2.0, 2.0])), 0.16666667),
    (lambda: nn.RMSELoss()(T(np.array([1, 2, 3], F32)), T(np.array([[1, 1, 1], [1, 2, 2]], F32))),
     1.0),
    (lambda: nn.MAELoss()(T(np.array([1, 2, 3], F32)), T(np.array([1, 2, 2], F32))), 0.33333334),
    (lambda: nn.SoftMarginLoss()(T(np.array([[0.3, 0.7], [0.5, 0.5]], F32)),
                                 T(np.array([[-1, 1], [1, -1]], F32))), 0.6764238),
    (lambda: nn.MarginRankingLoss(reduction="sum")(
        T(np.array([0.3864, -2.4093, -1.4076], F32)), T(np.array([-0.6012, -1.6681, 1.2928], F32)),
        T(np.array([-1, -1, 1], F32))), 3.6879997),
    (lambda: nn.CosineEmbeddingLoss()(T(np.array([[0.3, 0.8], [0.4, 0.3]], F32)),
                                      T(np.array([[0.4, 1.2], [-0.4, -0.9]], F32)),
                                      T(np.array([1, -1], np.int32))), 0.0003425479),
    (lambda: nn.TripletMarginLoss()(T(np.array([[0.3, 0.7], [0.5, 0.5]], F32)),
                                    T(np.array([[0.4, 0.6], [0.4, 0.6]], F32)),
                                    T(np.array([[0.2, 0.9], [0.3, 0.7]], F32))), 0.8881968),
    (lambda: nn.PoissonNLLLoss()(T(np.array([[0.3, 0.7], [0.5, 0.5]], F32)),
                                 T(np.array([[1.0, 2.0], [3.0, 4.0]], F32))), 0.3652635),
    (lambda: nn.MultiLabelSoftMarginLoss()(T(np.array([[0.3, 0.6, 0.6], [0.9, 0.4, 0.2]], F32)),
                                           T(np.array([[0, 0, 1], [0, 0, 1]], F32))), 0.84693956),
    (lambda: nn.MultiMarginLoss()(T(np.ones((3, 3), F32)), T(np.array([1, 2, 1], np.int64))),
     0.6666667),
    (lambda: nn.MultilabelMarginLoss()(T(np.array([[0.1, 0.2, 0.4, 0.8], [0.2, 0.3, 0.5, 0.7]],
                                                  F32)),
                                       T(np.array([[1, 2, 0, 3], [2, 3, -1, 1]], np.int32))),
     0.325),
    (lambda: nn.FocalLoss(weight=T([1, 2]), gamma=2.0)(
        T(np.array([[0.8, 1.4], [0.5, 0.9], [1.2, 0.9]], F32)),
        T(np.array([[1], [1], [0]], np.int32))), 0.12516622),
    (lambda: nn.DiceLoss()(T(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]], F32)),
                           T(np.array([[0, 1], [1, 0], [0, 1]], F32))), 0.38596618),
    (lambda: nn.MultiClassDiceLoss()(T(np.array([[0.2, 0.5, 0.7], [0.3, 0.1, 0.5],
                                                 [0.9, 0.6, 0.3]], F32)),
                                     T(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], F32))),
     0.54958105),
    (lambda: nn.KLDivLoss()(T(np.array([0.2, 0.7, 0.1], F32)), T(np.array([0, 1, 0], F32))),
     -0.23333333),
    (lambda: nn.GaussianNLLLoss()(T(np.arange(8).reshape(4, 2).astype(F32)),
                                  T(np.array([2, 3, 1, 4, 6, 4, 4, 9]).reshape(4, 2).astype(F32)),
                                  T(np.ones((4, 1), F32))), 1.4374993),
    (lambda: nn.HingeEmbeddingLoss()(
        T(np.array([0.9, -1.2, 2, 0.8, 3.9, 2, 1, 0, -1]).reshape(3, 3).astype(F32)),
        T(np.array([1, 1, -1, 1, -1, 1, -1, 1, 1]).reshape(3, 3).astype(F32))), 0.16666667),
]


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_mindspore_documented_examples(index):
    build, want = EXAMPLES[index]
    np.testing.assert_allclose(float(build()), want, rtol=1e-6)


# ***** formulas, reductions, both modes *****

FORMULAS = {
    "huber": (lambda x, y, r: ops.huber_loss(x, y, r, 0.7),
              lambda x, y: np.where(np.abs(x - y) < 0.7, 0.5 * (x - y) ** 2,
                                    0.7 * (np.abs(x - y) - 0.35))),
    "soft_margin": (lambda x, y, r: ops.soft_margin_loss(x, T(SIGNS), r),
                    lambda x, y: np.logaddexp(0, -SIGNS * x)),
    "margin_ranking": (lambda x, y, r: ops.margin_ranking_loss(x, y, T(SIGNS), 0.3, r),
                       lambda x, y: np.maximum(0, -SIGNS * (x - y) + 0.3)),
    "hinge_embedding": (lambda x, y, r: ops.hinge_embedding_loss(x, T(SIGNS), 0.5, r),
                        lambda x, y: np.where(SIGNS == 1, x, np.maximum(0, 0.5 - x))),
    "gaussian_nll": (lambda x, y, r: ops.gaussian_nll_loss(x, y, ops.exp(y), True, 1e-6, r),
                     lambda x, y: 0.5 * (y + (x - y) ** 2 / np.exp(y)) + 0.5 * np.log(2 * np.pi)),
}


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_elementwise_loss_formulas(name, reduction, mode):
    fn, ref = FORMULAS[name]
    got = run_in_mode(lambda a, b: fn(a, b, reduction), mode, T(X), T(Y))
    np.testing.assert_allclose(to_numpy(got), reduce(ref(X, Y), reduction), rtol=1e-10)
    check_fn_grads(lambda a, b: fn(a, b, reduction), X, Y + 0.05)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_cosine_embedding_triplet_multi_margin_formulas(reduction, mode):
    a, b = RNG.standard_normal((5, 4)), RNG.standard_normal((5, 4))
    labels = np.array([1, -1, 1, -1, -1])
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    want = np.where(labels == 1, 1 - cos, np.maximum(0, cos - 0.2))
    got = run_in_mode(lambda u, v: ops.cosine_embedding_loss(u, v, T(labels), 0.2, reduction),
                      mode, T(a), T(b))
    np.testing.assert_allclose(to_numpy(got), reduce(want, reduction), rtol=1e-10)
    n = RNG.standard_normal((5, 4))

    def dist(u, v):
        return np.linalg.norm(u - v + 1e-6, axis=-1)
    want = np.maximum(dist(a, b) - np.minimum(dist(a, n), dist(b, n)) + 1.0, 0)
    got = run_in_mode(lambda u, v, w: ops.triplet_margin_loss(u, v, w, swap=True,
                                                              reduction=reduction),
                      mode, T(a), T(b), T(n))
    np.testing.assert_allclose(to_numpy(got), reduce(want, reduction), rtol=1e-10)
    target, weight = np.array([0, 3, 1, 1, 2]), RNG.random(4) + 0.5
    picked = a[np.arange(5), target][:, None]
    hinge = np.maximum(0, 0.8 - picked + a) ** 2
    hinge[np.arange(5), target] = 0
    want = hinge.sum(1) / 4 * weight[target]
    got = run_in_mode(lambda u: ops.multi_margin_loss(u, T(target), 2, 0.8, T(weight),
                                                      reduction), mode, T(a))
    np.testing.assert_allclose(to_numpy(got), reduce(want, reduction), rtol=1e-10)
    check_fn_grads(lambda u, v: ops.cosine_embedding_loss(u, v, T(labels), 0.2, reduction), a, b)
    check_fn_grads(lambda u, v, w: ops.triplet_margin_loss(u, v, w, reduction=reduction), a, b, n)
    check_fn_grads(lambda u: ops.multi_margin_loss(u, T(target), 2, 0.8, T(weight), reduction),
                   a)


def test_multilabel_poisson_focal_dice_formulas(mode):
    x, y = RNG.standard_normal((4, 3)), (RNG.random((4, 3)) > 0.5).astype(np.float64)
    w = RNG.random(3)
    want = -(w * (y * log_sigmoid(x) + (1 - y) * log_sigmoid(-x))).mean(1)
    got = run_in_mode(nn.MultiLabelSoftMarginLoss(T(w), "none"), mode, T(x), T(y))
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10)
    counts = np.array([[0.0, 1.0, 3.0], [2.0, 5.0, 1.0], [0.5, 4.0, 2.0], [1.0, 1.0, 7.0]])
    rate = np.exp(x)
    safe = np.maximum(counts, 1.0)  # the term counts only where counts > 1
    stirling = np.where(counts > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe),
                        0)
    want = rate - counts * np.log(rate + 1e-8) + stirling
    got = run_in_mode(nn.PoissonNLLLoss(log_input=False, full=True, reduction="none"), mode,
                      T(rate), T(counts))
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-8)
    logits, classes = RNG.standard_normal((3, 4, 5)), RNG.integers(0, 4, (3, 1, 5))
    log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    picked = np.take_along_axis(log_p, classes, 1)[:, 0]
    want = (-(1 - np.exp(picked)) ** 1.5 * picked).mean(1)
    got = run_in_mode(nn.FocalLoss(gamma=1.5, reduction="none"), mode, T(logits), T(classes))
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10)
    p, q = RNG.random((3, 4)), (RNG.random((3, 4)) > 0.5).astype(np.float64)
    want = 1 - 2 * (p * q).sum() / ((p ** 2).sum() + (q ** 2).sum() + 1e-5)
    np.testing.assert_allclose(float(run_in_mode(nn.DiceLoss(), mode, T(p), T(q))), want,
                               rtol=1e-10)


def test_triplet_margin_with_distance_loss(mode):
    a, p, n = (RNG.standard_normal((5, 4)) for _ in range(3))
    cell = nn.TripletMarginWithDistanceLoss(reduction="none")
    want = ops.triplet_margin_loss(T(a), T(p), T(n), reduction="none").asnumpy()
    got = run_in_mode(cell, mode, T(a), T(p), T(n))
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10)

    def l1(u, v):
        return ops.sum(ops.abs(u - v), -1)
    cell = nn.TripletMarginWithDistanceLoss(l1, swap=True, margin=0.5)
    def d(u, v):
        return np.abs(u - v).sum(-1)
    want = np.maximum(d(a, p) - np.minimum(d(a, n), d(p, n)) + 0.5, 0).mean()
    np.testing.assert_allclose(float(run_in_mode(cell, mode, T(a), T(p), T(n))), want,
                               rtol=1e-10)
    check_fn_grads(lambda u, v, w: nn.TripletMarginWithDistanceLoss(l1)(u, v, w), a, p, n)
    with pytest.raises(TypeError):
        nn.TripletMarginWithDistanceLoss(distance_function=3)


def multilabel_margin_ref(x, target):
    losses = []
    for row, t in zip(x, target):
        count = next((k for k, v in enumerate(t) if v < 0), len(t))
        targets = set(t[:count].tolist())
        losses.append(sum(max(0.0, 1 - (row[j] - row[i])) for j in t[:count]
                          for i in range(len(row)) if i not in targets) / len(row))
    return np.array(losses)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss(reduction, mode):
    x = RNG.standard_normal((4, 5))
    target = np.array([[3, 0, -1, 2, 1], [1, -1, 0, 0, 0], [4, 3, 2, 1, 0], [-1, 2, 3, 0, 1]])
    want = reduce(multilabel_margin_ref(x, target), reduction)
    got = run_in_mode(lambda a: ops.multilabel_margin_loss(a, T(target), reduction), mode, T(x))
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10)
    check_fn_grads(lambda a: ops.multilabel_margin_loss(a, T(target), reduction), x)
    single = ops.multilabel_margin_loss(T(x[0]), T(target[0]), "none")
    assert single.shape == () and np.isclose(float(single), want[0] if reduction == "none"
                                             else multilabel_margin_ref(x, target)[0])


def test_losses_match_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the second reference")
    tf = torch.nn.functional
    t = torch.tensor
    a, b, n = (RNG.standard_normal((5, 4)) for _ in range(3))
    labels, target = np.array([1, -1, 1, -1, 1]), np.array([0, 3, 1, 1, 2])
    checks = [
        (ops.huber_loss(T(a), T(b), "mean", 0.5), tf.huber_loss(t(a), t(b), delta=0.5)),
        (ops.soft_margin_loss(T(a), T(np.sign(b))), tf.soft_margin_loss(t(a), t(np.sign(b)))),
        (ops.cosine_embedding_loss(T(a), T(b), T(labels), 0.1),
         tf.cosine_embedding_loss(t(a), t(b), t(labels), 0.1)),
        (ops.triplet_margin_loss(T(a), T(b), T(n), 0.5, 1, swap=True),
         tf.triplet_margin_loss(t(a), t(b), t(n), 0.5, 1, swap=True)),
        (ops.multi_margin_loss(T(a), T(target), 2, 0.7, T(np.arange(1.0, 5.0))),
         tf.multi_margin_loss(t(a), t(target), 2, 0.7, t(np.arange(1.0, 5.0)))),
        (ops.multilabel_soft_margin_loss(T(a), T((b > 0) * 1.0)),
         tf.multilabel_soft_margin_loss(t(a), t((b > 0) * 1.0))),
        (ops.gaussian_nll_loss(T(a), T(b), T(np.exp(n)), full=True),
         tf.gaussian_nll_loss(t(a), t(b), t(np.exp(n)), full=True)),
        (ops.hinge_embedding_loss(T(a), T(labels[:, None] * np.ones(4))),
         tf.hinge_embedding_loss(t(a), t(labels[:, None] * np.ones(4)))),
        (ops.margin_ranking_loss(T(a), T(b), T(np.sign(n)), 0.2),
         tf.margin_ranking_loss(t(a), t(b), t(np.sign(n)), 0.2)),
        (ops.multilabel_margin_loss(T(a), T(np.array([[1, 3, -1, 0]] * 5))),
         tf.multilabel_margin_loss(t(a), t(np.array([[1, 3, -1, 0]] * 5)))),
    ]
    for got, want in checks:
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-10)


# ***** CTC *****

def ctc_case(seed=0):
    rng = np.random.default_rng(seed)
    log_probs = rng.standard_normal((5, 3, 3))
    log_probs -= np.log(np.exp(log_probs).sum(2, keepdims=True))
    targets = np.array([[1, 1], [2, 1], [2, 0]])
    return log_probs, targets, np.array([5, 4, 3]), np.array([2, 2, 1])


@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_loss_against_brute_force_paths(blank, mode):
    log_probs, targets, input_lengths, target_lengths = ctc_case()
    if blank == 2:
        targets = np.where(targets == 2, 0, targets)
    want = ctc_ref(log_probs, targets, input_lengths, target_lengths, blank)
    got = run_in_mode(lambda lp: ops.ctc_loss(lp, T(targets), T(input_lengths),
                                              T(target_lengths), blank, "none")[0],
                      mode, T(log_probs))
    np.testing.assert_allclose(to_numpy(got), want, rtol=1e-10)
    got = run_in_mode(lambda lp: ops.ctc_loss(lp, T(targets), T(input_lengths),
                                              T(target_lengths), blank, "mean")[0],
                      mode, T(log_probs))
    np.testing.assert_allclose(float(to_numpy(got)), (want / target_lengths).mean(), rtol=1e-10)


def test_ctc_gradient_by_finite_differences_and_alpha_table():
    log_probs, targets, input_lengths, target_lengths = ctc_case(1)
    check_fn_grads(lambda lp: ops.ctc_loss(lp, T(targets), T(input_lengths), T(target_lengths),
                                           reduction="none")[0], log_probs)
    # through log_softmax: the logits' gradient, as a model trains it
    check_fn_grads(lambda z: ops.ctc_loss(ops.log_softmax(z, 2), T(targets), T(input_lengths),
                                          T(target_lengths))[0], log_probs * 3)
    _, alpha = ops.ctc_loss(T(log_probs), T(targets), T(input_lengths), T(target_lengths))
    assert alpha.shape == (3, 5, 5)
    # the last time step's final states hold the sequence probability
    final = alpha.asnumpy()[0, 4, [3, 4]]
    want = ctc_ref(log_probs, targets, input_lengths, target_lengths, 0)[0]
    np.testing.assert_allclose(-np.logaddexp(*final), want, rtol=1e-10)


def test_ctc_matches_torch_and_zero_infinity(mode):
    torch = pytest.importorskip("torch", reason="PyTorch is the second reference")
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((12, 4, 6))
    targets = rng.integers(1, 6, (4, 5))
    input_lengths, target_lengths = np.array([12, 10, 7, 3]), np.array([5, 3, 2, 3])
    targets[3, :3] = 4  # three repeats need 5 frames: an impossible alignment in 3
    x = torch.tensor(logits, requires_grad=True)
    want = torch.nn.functional.ctc_loss(x.log_softmax(2), torch.tensor(targets),
                                        torch.tensor(input_lengths),
                                        torch.tensor(target_lengths), zero_infinity=True)
    want.backward()
    loss_fn = nn.CTCLoss(zero_infinity=True)

    def step(z):
        return ms.value_and_grad(lambda u: loss_fn(ops.log_softmax(u, 2), T(targets),
                                                   T(input_lengths), T(target_lengths)))(z)

    loss, grad = run_in_mode(step, mode, T(logits))
    np.testing.assert_allclose(float(to_numpy(loss)), want.item(), rtol=1e-10)
    np.testing.assert_allclose(to_numpy(grad), x.grad.numpy(), atol=1e-12)


def test_ctc_loss_cell_on_one_sequence():
    log_probs, targets, input_lengths, target_lengths = ctc_case()
    cell = nn.CTCLoss(reduction="none")
    got = cell(T(log_probs[:, 0]), T(targets[0]), T(input_lengths[:1]), T(target_lengths[:1]))
    want = ctc_ref(log_probs, targets, input_lengths, target_lengths, 0)[0]
    assert got.shape == ()
    np.testing.assert_allclose(float(got), want, rtol=1e-10)


def test_ctc_bad_input_is_a_clear_error_in_both_modes(mode):
    log_probs, targets, input_lengths, _ = ctc_case()
    # the same OpShapeError (a ValueError) naming the op and the user's line in both modes
    with pytest.raises(OpShapeError, match="target_lengths must be in") as info:
        run_in_mode(lambda lp: ops.ctc_loss(lp, T(targets), T(input_lengths),
                                            T(np.array([3, 2, 1])))[0], mode, T(log_probs))
    assert "ops.ctc_loss" in str(info.value) and "test_losses_ext.py" in str(info.value)
    with pytest.raises(OpShapeError, match="class indices"):
        run_in_mode(lambda lp: ops.ctc_loss(lp, T(targets + 5), T(input_lengths),
                                            T(np.array([2, 2, 1])))[0], mode, T(log_probs))
    with pytest.raises(OpShapeError, match="targets must be"):
        run_in_mode(lambda lp: ops.ctc_loss(lp, T(targets[:2]), T(input_lengths),
                                            T(np.array([2, 2, 1])))[0], mode, T(log_probs))


# ***** arguments *****

def test_constructor_arguments_are_checked():
    with pytest.raises(ValueError):
        nn.HuberLoss(delta=0.0)
    with pytest.raises(TypeError):
        nn.CosineEmbeddingLoss(margin=1)
    with pytest.raises(ValueError):
        nn.CosineEmbeddingLoss(margin=1.5)
    with pytest.raises(ValueError):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(TypeError):
        nn.FocalLoss(gamma=2)
    with pytest.raises(ValueError):
        nn.KLDivLoss(reduction="average")
    with pytest.raises(TypeError):
        nn.GaussianNLLLoss(True)   # keyword-only, as in MindSpore
    assert nn.KLDivLoss("batchmean").reduction == "batchmean"
    with pytest.raises(ValueError, match="MultiClassDiceLoss"):
        nn.MultiClassDiceLoss(activation="gelu")


def test_a_small_sequence_model_learns_to_spell_with_ctc(mode):
    """A per-frame classifier over 12 frames learns to emit the label sequences of its three
    inputs under CTCLoss, in either mode: the loss falls to a tenth, and greedy decoding
    (best class per frame, repeats merged, blanks dropped) spells the targets."""
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    frames, batch, features, classes = 12, 3, 6, 5
    data = T(rng.standard_normal((frames, batch, features)).astype(np.float32))
    targets = np.array([[1, 2, 3], [4, 4, 0], [2, 0, 0]], np.int32)
    target_lengths = np.array([3, 2, 1], np.int32)
    net = nn.SequentialCell([nn.Dense(features, 16, activation="tanh"),
                             nn.Dense(16, classes), nn.LogSoftmax(axis=-1)])
    loss_fn = nn.CTCLoss()
    lengths = (T(np.full(batch, frames, np.int32)), T(target_lengths))
    optimizer = nn.Adam(net.trainable_params(), learning_rate=0.05)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y, *lengths), None,
                                optimizer.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        return loss

    train = step if mode == "pynative" else ms.jit(step)
    losses = [float(train(data, T(targets))) for _ in range(60)]
    assert losses[-1] < 0.1 * losses[0]
    best = net(data).asnumpy().argmax(-1)
    for n in range(batch):
        path = best[:, n]
        spelled = [c for i, c in enumerate(path) if c != 0 and (i == 0 or c != path[i - 1])]
        assert spelled == targets[n, :target_lengths[n]].tolist()


def test_ctc_edge_cases_empty_targets_and_impossible_classes():
    rng = np.random.default_rng(2)
    log_probs = np.log(rng.dirichlet(np.ones(4), size=(5, 2)))
    log_probs[:, :, 3] = -np.inf   # a class with probability 0 lies on no path
    # targets with no columns at all: -log of the all-blank path
    loss, _ = ops.ctc_loss(T(log_probs), T(np.zeros((2, 0), np.int64)), (5, 4), (0, 0),
                           reduction="none")
    np.testing.assert_allclose(loss.asnumpy(), [-log_probs[:5, 0, 0].sum(),
                                                -log_probs[:4, 1, 0].sum()], rtol=1e-12)
    targets = np.array([[1, 2], [2, 2]])
    grad = ms.grad(lambda z: ops.ctc_loss(z, T(targets), (5, 5), (2, 2))[0])(T(log_probs))
    assert np.isfinite(grad.asnumpy()).all() and not grad.asnumpy()[..., 3].any()
