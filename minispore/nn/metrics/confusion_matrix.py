"""ConfusionMatrix (the matrix itself) and ConfusionMatrixMetric (rates read from it).

    >>> import numpy as np
    >>> from minispore.nn import ConfusionMatrix
    >>> ConfusionMatrix(num_classes=2)(np.array([1, 0, 1, 0]), np.array([1, 0, 0, 1]))
    array([[1., 1.],
           [1., 1.]])
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .metric import Metric, rearrange_inputs

__all__ = ["ConfusionMatrix", "ConfusionMatrixMetric"]


class ConfusionMatrix(Metric):
    """Confusion matrix: entry [i, j] counts samples of true class i predicted as class j.

    update(y_pred, y): y (N, ...) class indices; y_pred (N, C, ...) scores (arg max over C), or
    (N, ...) indices, or (N, ...) floats compared with `threshold` (binary case).
    `normalize`: "no_norm", "target" (rows sum to 1), "prediction" (columns) or "all".

        >>> import numpy as np
        >>> m = ConfusionMatrix(2, normalize="target")
        >>> m.update(np.array([0.9, 0.2, 0.7]), np.array([1, 0, 0]))
        >>> m.eval()
        array([[0.5, 0.5],
               [0. , 1. ]])
    """

    _NORMALIZE = ("no_norm", "target", "prediction", "all")

    def __init__(self, num_classes: int, normalize: str = "no_norm",
                 threshold: float = 0.5) -> None:
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise TypeError(f"ConfusionMatrix: num_classes must be a positive int, "
                            f"got {num_classes!r}")
        if normalize not in self._NORMALIZE:
            raise ValueError(f"ConfusionMatrix: normalize must be one of {self._NORMALIZE}, "
                             f"got {normalize!r}")
        if not isinstance(threshold, float):
            raise TypeError(f"ConfusionMatrix: threshold must be a float, "
                            f"got {type(threshold).__name__}")
        self.num_classes = num_classes
        self.normalize = normalize
        self.threshold = threshold
        super().__init__()

    def clear(self) -> None:
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.ndim != y.ndim:
            raise ValueError(f"ConfusionMatrix: y_pred must have y's dimensions or one more "
                             f"(the classes), got shapes {y_pred.shape} and {y.shape}")
        elif np.issubdtype(y_pred.dtype, np.floating):
            y_pred = (y_pred >= self.threshold).astype(np.int64)
        if y_pred.shape != y.shape:
            raise ValueError(f"ConfusionMatrix: predictions {y_pred.shape} and labels {y.shape} "
                             f"differ in shape")
        classes = self.num_classes
        index = y.reshape(-1).astype(np.int64) * classes + y_pred.reshape(-1).astype(np.int64)
        if index.size and (index.min() < 0 or index.max() >= classes * classes):
            raise ValueError(f"ConfusionMatrix: classes must lie in [0, {classes})")
        self.confusion_matrix += np.bincount(index, minlength=classes ** 2).reshape(classes, classes)
        self._is_update = True

    def eval(self) -> np.ndarray:
        self._check_updated(self._is_update)
        matrix = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return matrix
        total = {"target": matrix.sum(axis=1, keepdims=True),
                 "prediction": matrix.sum(axis=0, keepdims=True), "all": matrix.sum()}
        with np.errstate(invalid="ignore", divide="ignore"):
            matrix = matrix / total[self.normalize]
        return np.nan_to_num(matrix, nan=0.0)


# ----- the rates ConfusionMatrixMetric reads from (tp, fp, tn, fn) -----

def _rate(num: Any, den: Any) -> Any:
    """num / den, NaN where den is 0."""
    num, den = np.asarray(num, float), np.asarray(den, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)


def _prevalence_threshold(tp: Any, fp: Any, tn: Any, fn: Any) -> Any:
    tpr, tnr = _rate(tp, tp + fn), _rate(tn, tn + fp)
    with np.errstate(invalid="ignore"):
        return _rate(np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0)


def _matthews(tp: Any, fp: Any, tn: Any, fn: Any) -> Any:
    return _rate(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))


_RATES: dict[str, Callable[[Any, Any, Any, Any], Any]] = {
    "tpr": lambda tp, fp, tn, fn: _rate(tp, tp + fn),
    "tnr": lambda tp, fp, tn, fn: _rate(tn, tn + fp),
    "ppv": lambda tp, fp, tn, fn: _rate(tp, tp + fp),
    "npv": lambda tp, fp, tn, fn: _rate(tn, tn + fn),
    "fnr": lambda tp, fp, tn, fn: _rate(fn, tp + fn),
    "fpr": lambda tp, fp, tn, fn: _rate(fp, fp + tn),
    "fdr": lambda tp, fp, tn, fn: _rate(fp, fp + tp),
    "for": lambda tp, fp, tn, fn: _rate(fn, fn + tn),
    "pt": _prevalence_threshold,
    "ts": lambda tp, fp, tn, fn: _rate(tp, tp + fn + fp),
    "acc": lambda tp, fp, tn, fn: _rate(tp + tn, tp + fp + tn + fn),
    "ba": lambda tp, fp, tn, fn: (_rate(tp, tp + fn) + _rate(tn, tn + fp)) / 2.0,
    "f1": lambda tp, fp, tn, fn: _rate(2.0 * tp, 2.0 * tp + fn + fp),
    "mcc": _matthews,
    "fm": lambda tp, fp, tn, fn: np.sqrt(_rate(tp, tp + fp) * _rate(tp, tp + fn)),
    "bm": lambda tp, fp, tn, fn: _rate(tp, tp + fn) + _rate(tn, tn + fp) - 1.0,
    "mk": lambda tp, fp, tn, fn: _rate(tp, tp + fp) + _rate(tn, tn + fn) - 1.0,
}

# every name MindSpore accepts (spaces become underscores, case is ignored) -> its rate
_ALIASES = {
    "sensitivity": "tpr", "recall": "tpr", "hit_rate": "tpr", "true_positive_rate": "tpr",
    "specificity": "tnr", "selectivity": "tnr", "true_negative_rate": "tnr",
    "precision": "ppv", "positive_predictive_value": "ppv", "negative_predictive_value": "npv",
    "miss_rate": "fnr", "false_negative_rate": "fnr", "fall_out": "fpr",
    "false_positive_rate": "fpr", "false_discovery_rate": "fdr", "false_omission_rate": "for",
    "prevalence_threshold": "pt", "threat_score": "ts", "critical_success_index": "ts",
    "csi": "ts", "accuracy": "acc", "balanced_accuracy": "ba", "f1_score": "f1",
    "matthews_correlation_coefficient": "mcc", "fowlkes_mallows_index": "fm",
    "informedness": "bm", "bookmaker_informedness": "bm", "markedness": "mk", "deltap": "mk",
    **{short: short for short in _RATES},
}

_DECREASES = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel")


def _confusion_counts(y_pred: np.ndarray, y: np.ndarray, skip_channel: bool) -> np.ndarray:
    """(batch, class, 4) counts tp, fp, tn, fn of one-hot y_pred and y (N, C, ...)."""
    # MindSpore drops the first channel when skip_channel is False (its code does the
    # opposite of its docstring); the same numbers as MindSpore matter more here.
    if not skip_channel:
        y = y[:, 1:] if y.shape[1] > 1 else y
        y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
    if y.shape != y_pred.shape:
        raise ValueError(f"ConfusionMatrixMetric: y_pred shape {y_pred.shape} and y shape "
                         f"{y.shape} differ")
    batch, classes = y_pred.shape[:2]
    y_pred = y_pred.reshape(batch, classes, -1).astype(float)
    y = y.reshape(batch, classes, -1).astype(float)
    tp = ((y_pred + y) == 2).sum(axis=2).astype(float)
    tn = ((y_pred + y) == 0).sum(axis=2).astype(float)
    positives = y.sum(axis=2)
    fn = positives - tp
    fp = (y.shape[-1] - positives) - tn
    return np.stack([tp, fp, tn, fn], axis=-1)


def _decrease(chart: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray]:
    """Reduce a (batch, class) chart ignoring NaNs; returns (value, count of non-NaNs)."""
    counted = (~np.isnan(chart)).astype(float)
    chart = np.where(np.isnan(chart), 0.0, chart)

    def mean(total: np.ndarray, count: np.ndarray) -> np.ndarray:
        return np.where(count > 0, total / np.maximum(count, 1.0), 0.0)

    if how == "mean":  # per sample over classes, then over samples that had any
        per_sample, count = mean(chart.sum(axis=1), counted.sum(axis=1)), counted.sum(axis=1)
        present = (count > 0).astype(float).sum(axis=0)
        return mean(per_sample.sum(axis=0), present), present
    if how == "sum":
        return chart.sum(axis=(0, 1)), counted.sum(axis=(0, 1))
    if how == "mean_batch":
        return mean(chart.sum(axis=0), counted.sum(axis=0)), counted.sum(axis=0)
    if how == "sum_batch":
        return chart.sum(axis=0), counted.sum(axis=0)
    if how == "mean_channel":
        return mean(chart.sum(axis=1), counted.sum(axis=1)), counted.sum(axis=1)
    if how == "sum_channel":
        return chart.sum(axis=1), counted.sum(axis=1)
    return chart, counted


class ConfusionMatrixMetric(Metric):
    """A rate read from confusion counts (sensitivity, specificity, precision, f1, mcc...).

    update(y_pred, y): both one-hot / binarised (N, C, ...). With calculation_method=False
    (classification) the counts of all samples are summed and the rate is read once; with
    True (segmentation, inputs with spatial axes) the rate of each sample and class is
    reduced by `decrease` and averaged over batches. `metric_name` takes MindSpore's names
    and aliases ("tpr", "recall", "f1 score", "matthews correlation coefficient"...).

        >>> import numpy as np
        >>> m = ConfusionMatrixMetric(metric_name="tpr")
        >>> m.update(np.array([[[0], [1]], [[1], [0]]]), np.array([[[0], [1]], [[0], [1]]]))
        >>> m.eval()
        array([0.5])
    """

    def __init__(self, skip_channel: bool = True, metric_name: str = "sensitivity",
                 calculation_method: bool = False, decrease: str = "mean") -> None:
        for arg, value in (("skip_channel", skip_channel),
                           ("calculation_method", calculation_method)):
            if not isinstance(value, bool):
                raise TypeError(f"ConfusionMatrixMetric: {arg} must be a bool, got {value!r}")
        if not isinstance(metric_name, str):
            raise TypeError(f"ConfusionMatrixMetric: metric_name must be a str, got {metric_name!r}")
        key = metric_name.replace(" ", "_").lower()
        if key not in _ALIASES:
            raise NotImplementedError(f"ConfusionMatrixMetric: metric {metric_name!r} is not "
                                      f"implemented; known: {sorted(_ALIASES)}")
        if decrease not in _DECREASES:
            raise ValueError(f"ConfusionMatrixMetric: decrease must be one of {_DECREASES}, "
                             f"got {decrease!r}")
        self.skip_channel = skip_channel
        self.metric_name = metric_name
        self.calculation_method = calculation_method
        self.decrease = decrease
        self._rate = _RATES[_ALIASES[key]]
        super().__init__()

    def clear(self) -> None:
        self._total_num: Any = 0.0  # per-sample mode: sum of rate * count, and the counts
        self._class_num: Any = 0.0
        self._counts = np.zeros(4)  # tp, fp, tn, fn summed over everything
        self._per_sample = False
        self._updated = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("ConfusionMatrixMetric: y must be binarised (one-hot 0/1)")
        if y_pred.ndim < 2:
            raise ValueError(f"ConfusionMatrixMetric: y_pred must have at least 2 dimensions "
                             f"(N, C, ...), got shape {y_pred.shape}")
        counts = _confusion_counts(y_pred, y, self.skip_channel)
        spatial = not (y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1))
        if self.calculation_method and spatial:
            c = counts
            score, counted = _decrease(self._rate(c[..., 0], c[..., 1], c[..., 2], c[..., 3]),
                                       self.decrease)
            self._total_num = self._total_num + score * counted
            self._class_num = self._class_num + counted
            self._per_sample = True
        else:
            self._counts += counts.reshape(-1, 4).sum(axis=0)
        self._updated = True

    def eval(self) -> Any:
        """The rate: an array of one value (summed counts), or the per-sample average."""
        self._check_updated(self._updated)
        if self._per_sample:
            if np.all(np.asarray(self._class_num) == 0):
                raise RuntimeError("ConfusionMatrixMetric cannot be calculated: no sample had a "
                                   "defined value")
            with np.errstate(invalid="ignore", divide="ignore"):
                return self._total_num / self._class_num
        tp, fp, tn, fn = (self._counts[i:i + 1] for i in range(4))
        return self._rate(tp, fp, tn, fn)
