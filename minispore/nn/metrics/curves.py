"""ROC curves and the area under a curve (auc).

    >>> import numpy as np
    >>> from minispore.nn import ROC, auc
    >>> roc = ROC(pos_label=1)
    >>> roc.update(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    >>> fpr, tpr, thresholds = roc.eval()
    >>> float(auc(fpr, tpr))
    0.75
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .metric import Metric, rearrange_inputs

__all__ = ["ROC", "auc"]


def _binary_clf_curve(preds: np.ndarray, target: np.ndarray,
                      pos_label: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """False and true positives at each distinct score, highest score first, and the scores."""
    order = np.argsort(-preds, kind="stable")
    preds, target = preds[order], target[order]
    # the last index of each run of equal scores: every sample at that score is counted
    last = np.append(np.nonzero(np.diff(preds))[0], target.shape[0] - 1)
    tps = np.cumsum(target == pos_label)[last]
    fps = 1 + last - tps
    return fps, tps, preds[last]


class ROC(Metric):
    """Receiver operating characteristic: false and true positive rates per threshold.

    update(y_pred, y): binary case y_pred (N,) scores and y (N,) labels (`pos_label`, default
    1, is the positive class); multiclass case y_pred (N, C) and y (N,) indices with
    ``class_num=C`` (one curve per class, as lists). Batches accumulate (MindSpore keeps only
    the last one; with a single update the two agree). eval() returns (fpr, tpr, thresholds);
    the first threshold is the highest score + 1, where nothing is predicted positive.

        >>> import numpy as np
        >>> fpr, tpr, thr = ROC(pos_label=2)(np.array([3, 1, 4, 2]), np.array([0, 1, 2, 3]))
        >>> fpr, tpr, thr
        (array([0.        , 0.        , 0.33333333, 0.66666667, 1.        ]), array([0., 1., 1., 1., 1.]), array([5, 4, 3, 2, 1]))
    """

    def __init__(self, class_num: Optional[int] = None, pos_label: Optional[int] = None) -> None:
        for arg, value in (("class_num", class_num), ("pos_label", pos_label)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"ROC: {arg} must be an int or None, got {value!r}")
        self.class_num = class_num
        self.pos_label = pos_label
        super().__init__()

    def clear(self) -> None:
        self._preds: list[np.ndarray] = []
        self._labels: list[np.ndarray] = []

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        if y_pred.ndim == y.ndim:  # one binary curve
            if self.class_num not in (None, 1):
                raise ValueError(f"ROC: y_pred and y of the same shape make a binary curve; "
                                 f"class_num must be None or 1, got {self.class_num}")
            self.class_num = 1
            self.pos_label = 1 if self.pos_label is None else self.pos_label
            y_pred = y_pred.reshape(-1, 1)
        elif y_pred.ndim == y.ndim + 1:
            if self.pos_label is not None:
                raise ValueError(f"ROC: with one score per class, each class in turn is the "
                                 f"positive one; pos_label must be None, got {self.pos_label}")
            if self.class_num != y_pred.shape[1]:
                raise ValueError(f"ROC: class_num ({self.class_num}) must equal the number of "
                                 f"classes of y_pred {y_pred.shape}")
            y_pred = np.moveaxis(y_pred, 1, -1).reshape(-1, y_pred.shape[1])
        else:
            raise ValueError(f"ROC: y_pred must have y's dimensions or one more (the classes), "
                             f"got shapes {y_pred.shape} and {y.shape}")
        y = y.reshape(-1)
        if y.shape[0] != y_pred.shape[0]:
            raise ValueError(f"ROC: {y_pred.shape[0]} scores but {y.shape[0]} labels")
        self._preds.append(y_pred)
        self._labels.append(y)

    def eval(self) -> tuple[Any, Any, Any]:
        """(fpr, tpr, thresholds): arrays for a binary curve, lists of arrays per class."""
        self._check_updated(bool(self._preds))
        preds, labels = np.concatenate(self._preds), np.concatenate(self._labels)
        if self.class_num == 1:
            assert self.pos_label is not None
            return self._curve(preds[:, 0], labels, self.pos_label)
        curves = [self._curve(preds[:, c], labels, c) for c in range(preds.shape[1])]
        fpr, tpr, thresholds = (list(part) for part in zip(*curves))
        return fpr, tpr, thresholds

    @staticmethod
    def _curve(preds: np.ndarray, labels: np.ndarray,
               pos_label: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        fps, tps, thresholds = _binary_clf_curve(preds, labels, pos_label)
        fps, tps = np.append(0, fps), np.append(0, tps)
        thresholds = np.append(thresholds[0] + 1, thresholds)
        if fps[-1] <= 0:
            raise ValueError("ROC: the labels hold no negative sample, the false positive rate "
                             "is undefined")
        if tps[-1] <= 0:
            raise ValueError("ROC: the labels hold no positive sample, the true positive rate "
                             "is undefined")
        return fps / fps[-1], tps / tps[-1], thresholds


def auc(x: np.ndarray, y: np.ndarray, reorder: bool = False) -> Any:
    """Area under the curve through the points (x, y), by the trapezoidal rule.

    x must be monotonic (increasing or decreasing) unless `reorder=True` sorts the points.

        >>> import numpy as np
        >>> float(auc(np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 1.0])))
        0.75
    """
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"auc: x and y must be numpy arrays, got {type(x).__name__} and "
                        f"{type(y).__name__}")
    for name, arr in (("x", x), ("y", y)):
        if not (arr.ndim == 1 or (arr.ndim == 2 and arr.shape[1] == 1)):
            raise ValueError(f"auc: {name} must be 1-d (or a column), got shape {arr.shape}")
    x, y = x.reshape(-1), y.reshape(-1)
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"auc: x and y have {x.shape[0]} and {y.shape[0]} points")
    if x.shape[0] < 2:
        raise ValueError(f"auc: at least 2 points are needed, got {x.shape[0]}")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError(f"auc: x must be increasing or decreasing (or pass "
                                 f"reorder=True), got {x}")
            direction = -1
    return direction * np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2.0)
