"""Metrics: accumulate over batches with update(), read with eval(), reset with clear().

    >>> import numpy as np
    >>> from minispore.train import Accuracy
    >>> acc = Accuracy()
    >>> acc.update(np.array([[0.2, 0.8], [0.9, 0.1]]), np.array([1, 1]))
    >>> acc.eval()
    0.5

`Model(metrics={"accuracy", "loss"})` builds them by name (see `get_metric_fn`).
"""
from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from typing import Any, Callable, Sequence, Union

__all__ = ["Metric", "Accuracy", "Loss", "MAE", "MSE", "get_metric_fn", "get_metrics"]


class Metric:
    """Base class: subclasses define clear(), update(*inputs) and eval()."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        raise NotImplementedError

    def update(self, *inputs: Any) -> None:
        raise NotImplementedError

    def eval(self) -> float:
        raise NotImplementedError

    @staticmethod
    def _convert_data(data):
        """A Tensor, list or number as a numpy array."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, (np.ndarray, list, tuple, int, float, np.number)):
            return np.asarray(data)
        raise TypeError(f"metric input must be a Tensor, numpy array or list, "
                        f"got {type(data).__name__}")

    def _check_inputs(self, inputs, count):
        if len(inputs) != count:
            raise ValueError(f"{type(self).__name__}.update takes {count} inputs, "
                             f"got {len(inputs)}")
        return [self._convert_data(x) for x in inputs]

    def _ratio(self, total, count, what):
        if count == 0:
            raise RuntimeError(f"{type(self).__name__} cannot be calculated: no {what} yet "
                               f"(call update first)")
        return float(total / count)


class Accuracy(Metric):
    """Fraction of correctly predicted samples.

    update(y_pred, y): y_pred of shape (N, C) (scores; the arg max is the prediction), y of
    shape (N,) class indices or (N, C) one-hot. With ``eval_type="multilabel"``, y_pred holds
    0/1 probabilities per class (rounded) and a sample counts when every class is right.
    """

    def __init__(self, eval_type: str = "classification") -> None:
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"Accuracy: eval_type must be 'classification' or 'multilabel', "
                             f"got {eval_type!r}")
        self._type = eval_type
        super().__init__()

    def clear(self) -> None:
        self._correct_num = 0
        self._total_num = 0

    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        if self._type == "multilabel":
            if y_pred.shape != y.shape:
                raise ValueError(f"Accuracy (multilabel): y_pred shape {y_pred.shape} and y shape "
                                 f"{y.shape} differ")
            correct = np.all(np.round(y_pred) == y, axis=tuple(range(1, y.ndim)))
        else:
            if y_pred.ndim != 2:
                raise ValueError(f"Accuracy: y_pred must be (N, C) scores, "
                                 f"got shape {y_pred.shape}")
            labels = y.argmax(axis=1) if y.ndim == 2 else y.reshape(-1)
            if labels.shape[0] != y_pred.shape[0]:
                raise ValueError(f"Accuracy: {y_pred.shape[0]} predictions but {labels.shape[0]} "
                                 f"labels (y_pred {y_pred.shape}, y {y.shape})")
            correct = y_pred.argmax(axis=1) == labels
        self._correct_num += int(correct.sum())
        self._total_num += correct.shape[0]

    def eval(self) -> float:
        return self._ratio(self._correct_num, self._total_num, "samples")


class Loss(Metric):
    """Average of the losses given to update(loss) (a 1-d loss counts as its mean)."""

    def clear(self) -> None:
        self._sum_loss = 0.0
        self._total_num = 0

    def update(self, *inputs: Any) -> None:
        (loss,) = self._check_inputs(inputs, 1)
        if loss.ndim > 1:
            raise ValueError(f"Loss: the loss must be 0-d or 1-d, got shape {loss.shape}")
        self._sum_loss += float(loss.mean())
        self._total_num += 1

    def eval(self) -> float:
        return self._ratio(self._sum_loss, self._total_num, "losses")


class _ErrorSum(Metric):
    """Sum of an elementwise error over all elements, divided by the number of samples."""

    _error: Callable[[Any], Any]  # the elementwise error; each subclass sets it

    def clear(self) -> None:
        self._error_sum = 0.0
        self._samples_num = 0

    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        if y.size != y_pred.size:
            raise ValueError(f"{type(self).__name__}: y_pred shape {y_pred.shape} and y shape "
                             f"{y.shape} have different sizes")
        self._error_sum += float(self._error(y_pred - y.reshape(y_pred.shape)).sum())
        self._samples_num += y.shape[0]

    def eval(self) -> float:
        return self._ratio(self._error_sum, self._samples_num, "samples")


class MAE(_ErrorSum):
    """Mean absolute error, as MindSpore computes it: sum |y_pred - y| / number of samples."""

    _error = staticmethod(np.abs)


class MSE(_ErrorSum):
    """Mean squared error, as MindSpore computes it: sum (y_pred - y)^2 / number of samples."""

    _error = staticmethod(np.square)


_BY_NAME = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss, "mae": MAE, "mse": MSE}


def get_metric_fn(name: str) -> Metric:
    """A new metric from its name: 'accuracy' ('acc'), 'loss', 'mae' or 'mse'."""
    if name not in _BY_NAME:
        raise ValueError(f"unknown metric {name!r}; known: {sorted(_BY_NAME)}")
    return _BY_NAME[name]()


def get_metrics(metrics: Union[Sequence[str], set[str], dict[str, Metric], None]) -> dict[str, Metric]:
    """dict name -> Metric from a set/list of names or a dict name -> Metric (None -> {})."""
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(metric, Metric):
                raise TypeError(f"metrics[{name!r}] must be a Metric, got {type(metric).__name__}")
        return dict(metrics)
    if isinstance(metrics, (set, frozenset)):
        metrics = sorted(metrics)  # a set's order changes between runs
    if isinstance(metrics, (list, tuple)):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"metrics must be a set of names or a dict name -> Metric, "
                    f"got {type(metrics).__name__}")
