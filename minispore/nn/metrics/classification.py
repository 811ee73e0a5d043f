"""Classification metrics: Precision, Recall, Fbeta, F1, top-k accuracies, Perplexity.

Inputs follow MindSpore: y_pred (N, C) scores (the arg max is the predicted class; more axes
after C are more samples), y (N,) class indices or (N, C) one-hot. `eval()` gives one value
per class as a numpy array (eval(average=True) their mean); a class never predicted has
precision 0 (a denominator of 0 plus the smallest float, as MindSpore does).

    >>> import numpy as np
    >>> from minispore.nn import Precision
    >>> Precision()(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1]))
    array([0.5, 1. ])
"""
from __future__ import annotations

import math
import sys
from typing import Any, Optional, Union

import numpy as np

from .metric import Metric, _is_onehot, rearrange_inputs

__all__ = ["Precision", "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy",
           "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Perplexity"]

_EPS = sys.float_info.min  # keeps 0/0 at 0 without a warning, as in MindSpore


def _check_eval_type(api: str, eval_type: str) -> str:
    if eval_type not in ("classification", "multilabel"):
        raise ValueError(f"{api}: eval_type must be 'classification' or 'multilabel', "
                         f"got {eval_type!r}")
    return eval_type


def _check_average(api: str, average: Any) -> None:
    if not isinstance(average, bool):
        raise TypeError(f"{api}.eval: average must be a bool, got {type(average).__name__}")


class _ClassCounts(Metric):
    """Per-class counts from (y_pred, y): predicted positives, actual positives, true positives."""

    _type = "classification"

    def clear(self) -> None:
        self._class_num = 0

    def _onehots(self, y_pred: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(predicted, actual) as 0/1 arrays (samples, classes); multilabel: (classes, samples)."""
        api = type(self).__name__
        if self._type == "classification" and y_pred.ndim == y.ndim and _is_onehot(y):
            y = y.argmax(axis=1)
        if y_pred.ndim < 2:
            raise ValueError(f"{api}: y_pred must be (N, C, ...) scores, got shape {y_pred.shape}")
        if self._type == "classification":
            if y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
                raise ValueError(f"{api}: y must be class indices of shape "
                                 f"{(y_pred.shape[0],) + y_pred.shape[2:]} or one-hot like y_pred "
                                 f"{y_pred.shape}, got shape {y.shape}")
        elif y_pred.shape != y.shape:
            raise ValueError(f"{api} (multilabel): y_pred shape {y_pred.shape} and y shape "
                             f"{y.shape} differ")
        elif not (np.all((y_pred == 0) | (y_pred == 1)) and np.all((y == 0) | (y == 1))):
            raise ValueError(f"{api} (multilabel): y_pred and y must hold only 0 and 1")
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"{api}: y_pred has {y_pred.shape[1]} classes, earlier batches had "
                             f"{self._class_num}")
        classes = self._class_num
        if self._type == "multilabel":
            return (y_pred.swapaxes(0, 1).reshape(classes, -1),
                    y.swapaxes(0, 1).reshape(classes, -1))
        labels = y.reshape(-1).astype(np.int64)
        if labels.size and (labels.max() >= classes or labels.min() < 0):
            raise ValueError(f"{api}: labels must lie in [0, {classes}) for y_pred with {classes} "
                             f"classes, got labels from {labels.min()} to {labels.max()}")
        eye = np.eye(classes)
        return eye[np.moveaxis(y_pred, 1, -1).reshape(-1, classes).argmax(axis=1)], eye[labels]

    def _check_updated(self, updated: bool) -> None:
        if not updated:
            raise RuntimeError(f"{type(self).__name__} cannot be calculated: no samples yet "
                               f"(call update first)")


class _PrecisionRecall(_ClassCounts):
    """Precision (true positives / predicted positives) or recall (/ actual positives)."""

    _of_predicted: bool  # True: precision, False: recall

    def __init__(self, eval_type: str = "classification") -> None:
        self._type = _check_eval_type(type(self).__name__, eval_type)
        super().__init__()

    def clear(self) -> None:
        super().clear()
        multilabel = self._type == "multilabel"
        self._true_positives: Any = np.empty(0) if multilabel else 0
        self._positives: Any = np.empty(0) if multilabel else 0
        self._ratio_sum = 0.0  # multilabel: sum of the per-sample ratios, and their count
        self._ratio_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        predicted, actual = self._onehots(y_pred, y)
        positives = (predicted if self._of_predicted else actual).sum(axis=0)
        true_positives = (predicted * actual).sum(axis=0)
        if self._type == "multilabel":  # one ratio per sample (over its classes)
            self._ratio_sum += float(np.sum(true_positives / (positives + _EPS)))
            self._ratio_num += len(positives)
            self._true_positives = np.concatenate((self._true_positives, true_positives))
            self._positives = np.concatenate((self._positives, positives))
        else:
            self._true_positives = self._true_positives + true_positives
            self._positives = self._positives + positives

    def eval(self, average: bool = False) -> Any:
        """One value per class (multilabel: per sample), or their mean with average=True."""
        self._check_updated(self._class_num != 0)
        _check_average(type(self).__name__, average)
        result = self._true_positives / (self._positives + _EPS)
        if not average:
            return result
        if self._type == "multilabel":
            return np.float64(self._ratio_sum / (self._ratio_num + _EPS))
        return result.mean()


class Precision(_PrecisionRecall):
    """Precision = true positives / (true positives + false positives), per class.

    eval_type "classification": y_pred (N, C) scores, y (N,) indices or (N, C) one-hot.
    "multilabel": y_pred and y (N, C) of 0/1; eval gives one precision per sample.

        >>> import numpy as np
        >>> m = Precision()
        >>> m.update(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1]))
        >>> m.eval(), float(m.eval(average=True))
        (array([0.5, 1. ]), 0.75)
    """

    _of_predicted = True


class Recall(_PrecisionRecall):
    """Recall = true positives / (true positives + false negatives), per class.

    Inputs as for Precision.

        >>> import numpy as np
        >>> Recall()(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1]))
        array([1. , 0.5])
    """

    _of_predicted = False


class Fbeta(_ClassCounts):
    r"""F-beta score per class: (1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp).

    update(y_pred, y): y_pred (N, C) scores, y (N,) indices or (N, C) one-hot.

        >>> import numpy as np
        >>> Fbeta(1)(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1]))
        array([0.66666667, 0.66666667])
    """

    def __init__(self, beta: Union[float, int]) -> None:
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0:
            raise ValueError(f"Fbeta: beta must be a number > 0, got {beta!r}")
        self.beta = beta
        super().__init__()

    def clear(self) -> None:
        super().clear()
        self._true_positives: Any = 0
        self._actual_positives: Any = 0
        self._positives: Any = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        predicted, actual = self._onehots(y_pred, y)
        self._positives = self._positives + predicted.sum(axis=0)
        self._actual_positives = self._actual_positives + actual.sum(axis=0)
        self._true_positives = self._true_positives + (predicted * actual).sum(axis=0)

    def eval(self, average: bool = False) -> Any:
        """One score per class, or their mean with average=True."""
        _check_average(type(self).__name__, average)
        self._check_updated(self._class_num != 0)
        b2 = self.beta ** 2
        fbeta = (1.0 + b2) * self._true_positives / (
            b2 * self._actual_positives + self._positives + _EPS)
        return fbeta.mean() if average else fbeta


class F1(Fbeta):
    """F1 score per class: Fbeta with beta = 1 (2 tp / (2 tp + fn + fp)).

        >>> import numpy as np
        >>> F1()(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1]))
        array([0.66666667, 0.66666667])
    """

    def __init__(self) -> None:
        super().__init__(1.0)


class TopKCategoricalAccuracy(Metric):
    """Fraction of samples whose label is among the k highest scores.

    update(y_pred, y): y_pred (N, C) scores, y (N,) indices or (N, C) one-hot. Ties go to the
    lower class index.

        >>> import numpy as np
        >>> x = np.array([[0.2, 0.5, 0.3, 0.6, 0.2], [0.1, 0.35, 0.5, 0.2, 0.],
        ...               [0.9, 0.6, 0.2, 0.01, 0.3]])
        >>> TopKCategoricalAccuracy(3)(x, np.array([2, 0, 1]))
        0.6666666666666666
    """

    def __init__(self, k: int) -> None:
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"TopKCategoricalAccuracy: k must be an int, got {type(k).__name__}")
        if k < 1:
            raise ValueError(f"TopKCategoricalAccuracy: k must be at least 1, got {k}")
        self.k = k
        super().__init__()

    def clear(self) -> None:
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        if y_pred.ndim == y.ndim and _is_onehot(y):
            y = y.argmax(axis=1)
        if y_pred.ndim != 2 or y.reshape(-1).shape[0] != y_pred.shape[0]:
            raise ValueError(f"{type(self).__name__}: y_pred must be (N, C) and y (N,) or (N, C), "
                             f"got shapes {y_pred.shape} and {y.shape}")
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]
        self._correct_num += int((top == y.reshape(-1, 1)).any(axis=1).sum())
        self._samples_num += y_pred.shape[0]

    def eval(self) -> float:
        return self._ratio(self._correct_num, self._samples_num, "samples")


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-1 categorical accuracy: TopKCategoricalAccuracy(1).

        >>> import numpy as np
        >>> Top1CategoricalAccuracy()(np.array([[0.1, 0.9], [0.7, 0.3]]), np.array([1, 1]))
        0.5
    """

    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-5 categorical accuracy: TopKCategoricalAccuracy(5).

        >>> import numpy as np
        >>> Top5CategoricalAccuracy()(np.eye(6)[[0, 1]], np.array([4, 1]))
        1.0
    """

    def __init__(self) -> None:
        super().__init__(5)


class Perplexity(Metric):
    """exp of the mean negative log-probability of the labels.

    update(preds, labels): preds (..., C) probabilities, labels (...) class indices; labels
    equal to `ignore_label` are left out. Probabilities are clipped below at 1e-10.

        >>> import numpy as np
        >>> Perplexity()(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1]))
        2.231443166940565
    """

    def __init__(self, ignore_label: Optional[int] = None) -> None:
        if ignore_label is not None and (isinstance(ignore_label, bool)
                                         or not isinstance(ignore_label, int)):
            raise TypeError(f"Perplexity: ignore_label must be an int or None, "
                            f"got {type(ignore_label).__name__}")
        self.ignore_label = ignore_label
        super().__init__()

    def clear(self) -> None:
        self._sum_metric = 0.0
        self._num_inst = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        preds, labels = self._check_inputs(inputs, 2)
        if preds.ndim < 1 or labels.size * preds.shape[-1] != preds.size:
            raise ValueError(f"Perplexity: labels must have one entry per row of preds, got "
                             f"preds {preds.shape} and labels {labels.shape}")
        labels = labels.reshape(-1)
        probs = preds.reshape(labels.size, -1)[np.arange(labels.size), labels.astype(np.int64)]
        keep = np.ones(labels.size, bool) if self.ignore_label is None else (
            labels != self.ignore_label)
        self._sum_metric -= float(np.sum(np.log(np.maximum(1e-10, probs[keep]))))
        self._num_inst += int(keep.sum())

    def eval(self) -> float:
        if self._num_inst == 0:
            raise RuntimeError("Perplexity cannot be calculated: no samples yet (call update first)")
        return math.exp(self._sum_metric / self._num_inst)
