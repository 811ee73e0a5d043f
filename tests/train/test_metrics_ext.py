"""The metrics beyond Accuracy/Loss/MAE/MSE: values against scikit-learn or the numpy
formulas of MindSpore's docs, accumulation over batches, set_indexes, Model.eval with them."""
import doctest
import importlib

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.metrics.pairwise import cosine_similarity

import minispore as ms
import minispore.dataset as ds
from minispore import nn
from minispore.train import Model

RNG = np.random.default_rng(0)
SCORES = RNG.random((40, 4))
LABELS = RNG.integers(0, 4, 40)
PRED = SCORES.argmax(axis=1)


def test_metrics_are_the_same_objects_in_nn_and_train():
    import minispore.train.metrics as train_metrics
    from minispore import train
    for name in ["Metric", "Accuracy", "Precision", "ROC", "auc", "ConfusionMatrixMetric",
                 "get_metric_fn", "names", "rearrange_inputs"]:
        assert getattr(nn, name) is getattr(train, name) is getattr(train_metrics, name)


@pytest.mark.parametrize("module", ["metric", "classification", "confusion_matrix", "curves",
                                    "similarity", "distance", "occlusion", "__init__"])
def test_docstring_examples_hold(module):
    name = "minispore.nn.metrics" + ("" if module == "__init__" else "." + module)
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("cls, sk", [(nn.Precision, skm.precision_score),
                                     (nn.Recall, skm.recall_score),
                                     (nn.F1, skm.f1_score)])
def test_per_class_scores_match_sklearn_over_batches(cls, sk):
    metric = cls()
    metric.update(ms.Tensor(SCORES[:25]), ms.Tensor(LABELS[:25]))
    metric.update(SCORES[25:], np.eye(4)[LABELS[25:]])  # one-hot labels too
    expected = sk(LABELS, PRED, average=None, zero_division=0)
    np.testing.assert_allclose(metric.eval(), expected, rtol=1e-12)
    assert metric.eval(average=True) == pytest.approx(expected.mean())


@pytest.mark.parametrize("beta", [0.5, 2, 3.0])
def test_fbeta_matches_sklearn(beta):
    got = nn.Fbeta(beta)(SCORES, LABELS)
    np.testing.assert_allclose(got, skm.fbeta_score(LABELS, PRED, beta=beta, average=None),
                               rtol=1e-12)


def test_multilabel_precision_and_recall_are_per_sample():
    y_pred = RNG.integers(0, 2, (12, 5)).astype(float)
    y = RNG.integers(0, 2, (12, 5)).astype(float)
    y_pred[0] = 0  # a sample with no predicted label: precision 0
    p, r = nn.Precision("multilabel"), nn.Recall("multilabel")
    for m in (p, r):
        m.update(y_pred[:5], y[:5])
        m.update(y_pred[5:], y[5:])
    tp = (y_pred * y).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        np.testing.assert_allclose(p.eval(), np.nan_to_num(tp / y_pred.sum(axis=1)))
        np.testing.assert_allclose(r.eval(), np.nan_to_num(tp / y.sum(axis=1)))
    assert p.eval(average=True) == pytest.approx(
        skm.precision_score(y, y_pred, average="samples", zero_division=0))
    assert r.eval(average=True) == pytest.approx(
        skm.recall_score(y, y_pred, average="samples", zero_division=0))


def test_precision_errors():
    with pytest.raises(ValueError, match="eval_type"):
        nn.Precision("binary")
    with pytest.raises(RuntimeError, match="Precision cannot be calculated"):
        nn.Precision().eval()
    m = nn.Precision()
    m.update(SCORES, LABELS)
    with pytest.raises(ValueError, match="earlier batches had 4"):
        m.update(np.zeros((2, 3)), np.array([0, 1]))
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 4\)"):
        m.update(SCORES[:2], np.array([0, 7]))
    with pytest.raises(ValueError, match="only 0 and 1"):
        nn.Recall("multilabel").update(np.array([[0.3, 1.0]]), np.array([[0, 1]]))
    with pytest.raises(TypeError, match="average must be a bool"):
        m.eval(average=1)
    with pytest.raises(ValueError, match="beta must be"):
        nn.Fbeta(0)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_topk_matches_sklearn(k):
    metric = nn.TopKCategoricalAccuracy(k)
    metric.update(SCORES[:10], LABELS[:10])
    metric.update(SCORES[10:], LABELS[10:])
    assert metric.eval() == pytest.approx(
        skm.top_k_accuracy_score(LABELS, SCORES, k=k, labels=range(4)))


def test_top1_and_top5():
    scores = RNG.random((30, 8))
    labels = RNG.integers(0, 8, 30)
    assert nn.Top1CategoricalAccuracy()(scores, labels) == pytest.approx(
        np.mean(scores.argmax(1) == labels))
    assert nn.Top5CategoricalAccuracy()(scores, labels) == pytest.approx(
        skm.top_k_accuracy_score(labels, scores, k=5, labels=range(8)))
    with pytest.raises(ValueError, match="at least 1"):
        nn.TopKCategoricalAccuracy(0)
    with pytest.raises(TypeError, match="must be an int"):
        nn.TopKCategoricalAccuracy(2.0)


def test_perplexity_is_exp_of_the_mean_negative_log_likelihood():
    probs = RNG.random((3, 7, 5)) + 0.01
    probs /= probs.sum(axis=-1, keepdims=True)
    labels = RNG.integers(0, 5, (3, 7))
    nll = -np.log(np.take_along_axis(probs, labels[..., None], -1))[..., 0]
    assert nn.Perplexity()(probs, labels) == pytest.approx(np.exp(nll.mean()))
    keep = labels != 2
    assert nn.Perplexity(ignore_label=2)(probs, labels) == pytest.approx(np.exp(nll[keep].mean()))
    with pytest.raises(ValueError, match="one entry per row"):
        nn.Perplexity().update(probs, labels[:2])


@pytest.mark.parametrize("normalize, sk", [("no_norm", None), ("target", "true"),
                                           ("prediction", "pred"), ("all", "all")])
def test_confusion_matrix_matches_sklearn(normalize, sk):
    metric = nn.ConfusionMatrix(4, normalize=normalize)
    metric.update(SCORES[:20], LABELS[:20])  # (N, C) scores: the arg max
    metric.update(PRED[20:], LABELS[20:])    # (N,) class indices
    expected = skm.confusion_matrix(LABELS, PRED, labels=range(4), normalize=sk)
    np.testing.assert_allclose(metric.eval(), expected, rtol=1e-12)


def test_binary_confusion_matrix_thresholds_float_predictions():
    y_pred = np.array([0.2, 0.6, 0.5, 0.9, 0.1])
    y = np.array([0, 1, 0, 0, 1])
    got = nn.ConfusionMatrix(2, threshold=0.55)(y_pred, y)
    np.testing.assert_array_equal(got, skm.confusion_matrix(y, y_pred >= 0.55))
    with pytest.raises(TypeError, match="threshold must be a float"):
        nn.ConfusionMatrix(2, threshold=1)
    with pytest.raises(ValueError, match="normalize"):
        nn.ConfusionMatrix(2, normalize="rows")


def _binary_counts(y_pred, y):
    tp = float(((y_pred == 1) & (y == 1)).sum())
    fp = float(((y_pred == 1) & (y == 0)).sum())
    tn = float(((y_pred == 0) & (y == 0)).sum())
    fn = float(((y_pred == 0) & (y == 1)).sum())
    return tp, fp, tn, fn


@pytest.mark.parametrize("name, formula", [
    ("sensitivity", lambda tp, fp, tn, fn: tp / (tp + fn)),
    ("Specificity", lambda tp, fp, tn, fn: tn / (tn + fp)),
    ("precision", lambda tp, fp, tn, fn: tp / (tp + fp)),
    ("negative predictive value", lambda tp, fp, tn, fn: tn / (tn + fn)),
    ("miss rate", lambda tp, fp, tn, fn: fn / (fn + tp)),
    ("fall out", lambda tp, fp, tn, fn: fp / (fp + tn)),
    ("false discovery rate", lambda tp, fp, tn, fn: fp / (fp + tp)),
    ("false omission rate", lambda tp, fp, tn, fn: fn / (fn + tn)),
    ("threat score", lambda tp, fp, tn, fn: tp / (tp + fn + fp)),
    ("accuracy", lambda tp, fp, tn, fn: (tp + tn) / (tp + fp + tn + fn)),
    ("balanced accuracy", lambda tp, fp, tn, fn: (tp / (tp + fn) + tn / (tn + fp)) / 2),
    ("f1 score", lambda tp, fp, tn, fn: 2 * tp / (2 * tp + fn + fp)),
    ("matthews correlation coefficient", lambda tp, fp, tn, fn: (tp * tn - fp * fn) / np.sqrt(
        (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
    ("fowlkes mallows index", lambda tp, fp, tn, fn: np.sqrt(tp / (tp + fp) * tp / (tp + fn))),
    ("informedness", lambda tp, fp, tn, fn: tp / (tp + fn) + tn / (tn + fp) - 1),
    ("markedness", lambda tp, fp, tn, fn: tp / (tp + fp) + tn / (tn + fn) - 1),
    ("prevalence threshold", lambda tp, fp, tn, fn: (
        np.sqrt(tp / (tp + fn) * (1 - tn / (tn + fp))) + tn / (tn + fp) - 1)
        / (tp / (tp + fn) + tn / (tn + fp) - 1)),
])
def test_confusion_matrix_metric_rates(name, formula):
    # one-hot (N, C): the counts of every class of every sample are summed
    rng = np.random.default_rng(3)
    y_pred = np.eye(3)[rng.integers(0, 3, 30)]
    y = np.eye(3)[rng.integers(0, 3, 30)]
    metric = nn.ConfusionMatrixMetric(metric_name=name)
    metric.update(y_pred[:10], y[:10])
    metric.update(y_pred[10:], y[10:])
    got = metric.eval()
    assert got.shape == (1,)
    assert got[0] == pytest.approx(formula(*_binary_counts(y_pred, y)))


def test_confusion_matrix_metric_against_sklearn_and_per_sample_mode():
    y_pred = np.eye(2)[RNG.integers(0, 2, 50)]
    y = np.eye(2)[RNG.integers(0, 2, 50)]
    got = nn.ConfusionMatrixMetric(metric_name="mcc")(y_pred, y)
    tp, fp, tn, fn = _binary_counts(y_pred, y)  # both classes pooled
    assert got[0] == pytest.approx((tp * tn - fp * fn) / np.sqrt(
        (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))
    # skip_channel=False drops channel 0 (as MindSpore's code does): the binary rate of class 1
    recall = nn.ConfusionMatrixMetric(skip_channel=False, metric_name="tpr")(y_pred, y)
    assert recall[0] == pytest.approx(skm.recall_score(y[:, 1], y_pred[:, 1]))
    # segmentation masks (N, C, H, W): the rate per sample and class, averaged ("mean")
    masks_pred = RNG.integers(0, 2, (4, 2, 5, 5)).astype(float)
    masks = RNG.integers(0, 2, (4, 2, 5, 5)).astype(float)
    metric = nn.ConfusionMatrixMetric(metric_name="f1",
                                      calculation_method=True)
    metric.update(masks_pred[:2], masks[:2])
    metric.update(masks_pred[2:], masks[2:])
    p, t = masks_pred.reshape(4, 2, -1), masks.reshape(4, 2, -1)
    tp = (p * t).sum(-1)
    per = 2 * tp / (p.sum(-1) + t.sum(-1))
    assert metric.eval() == pytest.approx(per.mean())
    with pytest.raises(NotImplementedError, match="not implemented"):
        nn.ConfusionMatrixMetric(metric_name="kappa")
    with pytest.raises(ValueError, match="decrease"):
        nn.ConfusionMatrixMetric(decrease="max")


def test_roc_binary_matches_sklearn_and_auc():
    scores = np.round(RNG.random(60), 1)  # ties in the scores
    labels = RNG.integers(0, 2, 60)
    roc = nn.ROC(pos_label=1)
    roc.update(scores[:30], labels[:30])
    roc.update(ms.Tensor(scores[30:]), ms.Tensor(labels[30:]))  # batches accumulate
    fpr, tpr, thresholds = roc.eval()
    sk_fpr, sk_tpr, sk_thr = skm.roc_curve(labels, scores, drop_intermediate=False)
    np.testing.assert_allclose(fpr, sk_fpr)
    np.testing.assert_allclose(tpr, sk_tpr)
    np.testing.assert_allclose(thresholds[1:], sk_thr[1:])
    assert thresholds[0] == scores.max() + 1
    assert nn.auc(fpr, tpr) == pytest.approx(skm.roc_auc_score(labels, scores))


def test_roc_multiclass_is_one_vs_rest():
    fpr, tpr, _ = nn.ROC(class_num=4)(SCORES, LABELS)
    assert len(fpr) == len(tpr) == 4
    for c in range(4):
        sk_fpr, sk_tpr, _ = skm.roc_curve(LABELS == c, SCORES[:, c], drop_intermediate=False)
        np.testing.assert_allclose(fpr[c], sk_fpr)
        np.testing.assert_allclose(tpr[c], sk_tpr)


def test_roc_and_auc_errors():
    with pytest.raises(ValueError, match="pos_label must be None"):
        nn.ROC(class_num=4, pos_label=1).update(SCORES, LABELS)
    with pytest.raises(ValueError, match="class_num"):
        nn.ROC(class_num=3).update(SCORES, LABELS)
    with pytest.raises(ValueError, match="no negative sample"):
        nn.ROC()(np.array([0.1, 0.8]), np.array([1, 1]))
    with pytest.raises(ValueError, match="increasing or decreasing"):
        nn.auc(np.array([0.0, 1.0, 0.5]), np.array([0.0, 1.0, 1.0]))
    assert nn.auc(np.array([0.0, 1.0, 0.5]), np.array([0.0, 1.0, 1.0]), reorder=True) == \
        pytest.approx(skm.auc([0.0, 0.5, 1.0], [0.0, 1.0, 1.0]))
    assert nn.auc(np.array([1.0, 0.0]), np.array([1.0, 1.0])) == pytest.approx(1.0)
    with pytest.raises(TypeError, match="numpy arrays"):
        nn.auc([0, 1], [0, 1])


def test_dice_as_mindspore_computes_it():
    y_pred = RNG.random((3, 4, 4))
    y = RNG.integers(0, 2, (3, 4, 4)).astype(float)
    dice = nn.Dice(smooth=1e-3)
    dice.update(y_pred, y)
    dice.update(y_pred[:1], y[:1])
    one = lambda p, t: 2 * np.sum(p * t) / (np.sum(p * p) + np.sum(t * t) + 1e-3)
    assert dice.eval() == pytest.approx((one(y_pred, y) + one(y_pred[:1], y[:1])) / 4)
    with pytest.raises(ValueError, match="smooth"):
        nn.Dice(0.0)


@pytest.mark.parametrize("similarity, reduction, zero_diagonal", [
    ("cosine", "none", True), ("cosine", "mean", False), ("dot", "sum", True)])
def test_cosine_similarity_matrix(similarity, reduction, zero_diagonal):
    data = RNG.standard_normal((5, 3))
    metric = nn.CosineSimilarity(similarity, reduction, zero_diagonal)
    metric.update(ms.Tensor(data))
    expected = cosine_similarity(data) if similarity == "cosine" else data @ data.T
    if zero_diagonal:
        np.fill_diagonal(expected, 0)
    expected = {"none": expected, "mean": expected.mean(-1), "sum": expected.sum(-1)}[reduction]
    np.testing.assert_allclose(metric.eval(), expected, rtol=1e-6)
    np.testing.assert_allclose(metric.eval(), expected, rtol=1e-6)  # eval does not change it


def _bleu_reference(candidates, references, n_gram, smooth):
    """BLEU from its definition: clipped n-gram counts, brevity penalty."""
    from collections import Counter
    num, den, c, r = np.zeros(n_gram), np.zeros(n_gram), 0, 0
    for cand, refs in zip(candidates, references):
        c += len(cand)
        r += min((abs(len(ref) - len(cand)), len(ref)) for ref in refs)[1]
        for n in range(1, n_gram + 1):
            grams = Counter(tuple(cand[i:i + n]) for i in range(len(cand) - n + 1))
            best = Counter()
            for ref in refs:
                best |= Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            num[n - 1] += sum(min(k, best[g]) for g, k in grams.items())
            den[n - 1] += sum(grams.values())
    if num.min() == 0:
        return 0.0
    prec = (num + 1) / (den + 1) if smooth else num / den
    bp = 1.0 if c > r else np.exp(1 - r / c)
    return bp * np.exp(np.mean(np.log(prec)))


@pytest.mark.parametrize("n_gram, smooth", [(4, False), (2, True), (3, False)])
def test_bleu_score(n_gram, smooth):
    cands = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "ran", "in", "a", "park"]]
    refs = [[["the", "cat", "is", "on", "the", "mat"], ["there", "is", "a", "cat", "on", "mat"]],
            [["a", "dog", "runs", "in", "the", "park"]]]
    metric = nn.BleuScore(n_gram, smooth)
    metric.update(cands[:1], refs[:1])
    metric.update(cands[1:], refs[1:])
    assert float(metric.eval()) == pytest.approx(_bleu_reference(cands, refs, n_gram, smooth))
    with pytest.raises(ValueError, match="n_gram"):
        nn.BleuScore(5)


def test_set_indexes_picks_inputs_and_get_metric_fn_passes_arguments():
    metric = nn.Precision().set_indexes([2, 0])
    metric.update(LABELS, "ignored", SCORES)
    np.testing.assert_allclose(metric.eval(), skm.precision_score(LABELS, PRED, average=None))
    assert metric.indexes == [2, 0]
    with pytest.raises(ValueError, match="list of ints"):
        nn.Recall().set_indexes((0, 1))
    assert nn.get_metric_fn("topk", 2).k == 2
    assert isinstance(nn.get_metric_fn("F1"), nn.F1)
    assert "confusion_matrix_metric" in nn.names()
    assert nn.get_metric_fn("auc", np.array([0.0, 1.0]), np.array([1.0, 1.0])) == 1.0  # a function


class _MyMAE(nn.Metric):
    """A user metric, as MindSpore's tutorial writes one."""

    def clear(self):
        self._abs, self._n = 0.0, 0

    @nn.rearrange_inputs
    def update(self, *inputs):
        y_pred, y = inputs[0].asnumpy(), inputs[1].asnumpy()
        self._abs += np.abs(y - y_pred).sum()
        self._n += y.shape[0]

    def eval(self):
        return self._abs / self._n


def test_user_metric_with_set_indexes():
    x = ms.Tensor(np.array([[0.1, 0.2, 0.6, 0.9], [0.1, 0.2, 0.6, 0.9]]), ms.float32)
    y = ms.Tensor(np.array([[0.1, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.1]]), ms.float32)
    y2 = ms.Tensor(np.array([[0.1, 0.25, 0.7, 0.9], [0.1, 0.25, 0.7, 0.9]]), ms.float32)
    metric = _MyMAE().set_indexes([0, 2])
    metric.clear()
    metric.update(x, y, y2)
    assert metric.eval() == pytest.approx(0.3 / 2, rel=1e-5)  # |x - y2| summed, per sample


def test_model_eval_with_the_new_metrics(mode):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 4)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int32) + (x[:, 2] > 1).astype(np.int32)
    data = ds.NumpySlicesDataset((x, y), ["x", "y"], shuffle=False).batch(16)
    ms.set_seed(0)
    net = nn.Dense(4, 3)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    model = Model(net, loss_fn=loss, optimizer=opt,
                  metrics={"acc": nn.Accuracy(), "f1": nn.F1(), "top2": nn.TopKCategoricalAccuracy(2),
                           "cm": nn.ConfusionMatrix(3), "recall": nn.Recall(), "loss": nn.Loss()})
    model.train(3, data, progress_bar=False)
    result = model.eval(data)
    logits = model.predict(ms.Tensor(x)).asnumpy()
    pred = logits.argmax(1)
    assert result["acc"] == pytest.approx(np.mean(pred == y))
    np.testing.assert_allclose(result["f1"], skm.f1_score(y, pred, average=None,
                                                          labels=range(3), zero_division=0),
                               rtol=1e-6)
    np.testing.assert_allclose(result["recall"], skm.recall_score(
        y, pred, average=None, labels=range(3), zero_division=0), rtol=1e-6)
    assert result["top2"] == pytest.approx(skm.top_k_accuracy_score(y, logits, k=2,
                                                                    labels=range(3)))
    np.testing.assert_array_equal(result["cm"], skm.confusion_matrix(y, pred, labels=range(3)))
    assert result["loss"] > 0


# ***** surface distances *****

def _surface_points(mask):
    """Coordinates of the mask pixels with a 4-/6-neighbour outside the mask (or the border)."""
    padded = np.pad(mask, 1)
    inner = np.ones_like(mask)
    for axis in range(mask.ndim):
        for shift in (-1, 1):
            inner &= np.roll(padded, shift, axis)[tuple(slice(1, -1) for _ in mask.shape)]
    return np.argwhere(mask & ~inner)


def _directed_distances(a, b, metric):
    diff = a[:, None, :] - b[None, :, :]
    dist = {"euclidean": np.sqrt((diff ** 2).sum(-1)), "chessboard": np.abs(diff).max(-1),
            "taxicab": np.abs(diff).sum(-1)}[metric]
    return dist.min(1)


@pytest.mark.parametrize("metric", ["euclidean", "chessboard", "taxicab"])
@pytest.mark.parametrize("shape", [(12, 11), (6, 7, 5)])
def test_surface_distances_match_brute_force(metric, shape):
    rng = np.random.default_rng(len(shape))
    y_pred = (rng.random(shape) > 0.55).astype(np.int32) * 2
    y = (rng.random(shape) > 0.5).astype(np.int32) * 2
    a, b = _surface_points(y_pred == 2), _surface_points(y == 2)
    ab, ba = _directed_distances(a, b, metric), _directed_distances(b, a, metric)
    assert nn.HausdorffDistance(metric)(y_pred, y, 2) == pytest.approx(max(ab.max(), ba.max()))
    assert nn.HausdorffDistance(metric, directed=True, crop=False)(ms.Tensor(y_pred), y, 2) == \
        pytest.approx(ab.max())
    assert nn.HausdorffDistance(metric, percentile=90.0, directed=True)(y_pred, y, 2) == \
        pytest.approx(np.percentile(ab, 90))
    assert nn.MeanSurfaceDistance(False, metric)(y_pred, y, 2) == pytest.approx(ab.mean())
    assert nn.MeanSurfaceDistance(True, metric)(y_pred, y, 2) == pytest.approx(
        (ab.mean() + ba.mean()) / 2)
    assert nn.RootMeanSquareDistance(False, metric)(y_pred, y, 2) == pytest.approx(
        np.sqrt((ab ** 2).mean()))
    assert nn.RootMeanSquareDistance(True, metric)(y_pred, y, 2) == pytest.approx(
        np.sqrt(((ab ** 2).mean() + (ba ** 2).mean()) / 2))


def test_surface_distance_documented_values_and_errors():
    x = np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]])
    y = np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]])
    assert nn.HausdorffDistance()(x, y, 0) == pytest.approx(1.4142135623730951)
    assert nn.MeanSurfaceDistance()(x, y, 0) == pytest.approx(0.8047378541243649)
    assert nn.RootMeanSquareDistance()(x, y, 0) == pytest.approx(1.0)
    empty = np.zeros((4, 4), int)
    one = empty.copy()
    one[1, 1] = 1
    assert nn.HausdorffDistance()(one, empty, 1) == np.inf
    with pytest.raises(ValueError, match="occurs in neither"):
        nn.HausdorffDistance()(x, y, 7)
    with pytest.raises(ValueError, match="3 inputs"):
        nn.MeanSurfaceDistance().update(x, y)
    with pytest.raises(ValueError, match="distance_metric"):
        nn.RootMeanSquareDistance(distance_metric="cosine")
    with pytest.raises(RuntimeError, match="call update"):
        nn.HausdorffDistance().eval()
    assert isinstance(nn.get_metric_fn("hausdorff_distance"), nn.HausdorffDistance)


# ***** occlusion sensitivity *****

@pytest.mark.parametrize("margin, b_box, n_batch", [(1, None, 128), ([1, 2], None, 7),
                                                    (2, [1, 3, 0, 4], 5), (1, [2, -1, 1, 2], 3)])
def test_occlusion_sensitivity_of_a_linear_model(margin, b_box, n_batch):
    """Flatten + Dense: occluding a block changes the label's score by the block's weighted sum
    of (x - pad_val), so the sensitivity map has a closed form."""
    rng = np.random.default_rng(0)
    image = rng.standard_normal((1, 5, 6)).astype(np.float32)
    ms.set_seed(0)
    model = nn.SequentialCell([nn.Flatten(), nn.Dense(30, 3)])
    w = model[1].weight.asnumpy()[2].reshape(5, 6)
    metric = nn.OcclusionSensitivity(pad_val=0.5, margin=margin, n_batch=n_batch, b_box=b_box)
    metric.update(model, ms.Tensor(image), np.array([2]))
    margins = [margin, margin] if isinstance(margin, int) else margin
    low = [0, 0] if b_box is None else [b_box[0], b_box[2]]
    high = [4, 5] if b_box is None else [b_box[1] if b_box[1] >= 0 else 4, b_box[3]]
    want = np.zeros((high[0] - low[0] + 1, high[1] - low[1] + 1))
    for i in range(want.shape[0]):
        for j in range(want.shape[1]):
            r, c = i + low[0], j + low[1]
            block = (slice(max(0, r - margins[0]), min(5, r + margins[0])),
                     slice(max(0, c - margins[1]), min(6, c + margins[1])))
            want[i, j] = np.sum(w[block] * (image[0][block] - 0.5))
    np.testing.assert_allclose(metric.eval(), want, rtol=1e-4, atol=1e-5)


def test_occlusion_sensitivity_errors():
    model = nn.Dense(4, 2)
    with pytest.raises(RuntimeError, match="one image"):
        nn.OcclusionSensitivity().update(model, np.zeros((2, 4), np.float32), np.array(1))
    with pytest.raises(TypeError, match="must be a Cell"):
        nn.OcclusionSensitivity().update(lambda x: x, np.zeros((1, 4), np.float32), np.array(1))
    with pytest.raises(ValueError, match="b_box"):
        nn.OcclusionSensitivity(b_box=[0, 9]).update(model, np.zeros((1, 4), np.float32),
                                                     np.array(1))
    with pytest.raises(TypeError, match="pad_val"):
        nn.OcclusionSensitivity(pad_val=0)
