"""The Metric base class and the metrics every tutorial uses: Accuracy, Loss, MAE, MSE.

A metric accumulates over batches with update(*inputs), reads the result with eval() and
resets with clear(). Inputs are Tensors, numpy arrays or lists; all the arithmetic is numpy
on the host, as in MindSpore.

    >>> import numpy as np
    >>> from minispore.nn import Accuracy
    >>> acc = Accuracy()
    >>> acc.update(np.array([[0.2, 0.8], [0.9, 0.1]]), np.array([1, 1]))
    >>> acc.eval()
    0.5
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Optional, TypeVar

import numpy as np

from ...core.tensor import Tensor

__all__ = ["Metric", "rearrange_inputs", "Accuracy", "Loss", "MAE", "MSE"]

_Update = TypeVar("_Update", bound=Callable[..., Any])


def rearrange_inputs(func: _Update) -> _Update:
    """Decorator for `update`: picks and reorders its inputs by the metric's `indexes`.

        >>> class Last(Metric):
        ...     def clear(self): self.seen = None
        ...     @rearrange_inputs
        ...     def update(self, *inputs): self.seen = inputs
        ...     def eval(self): return self.seen
        >>> m = Last().set_indexes([1, 0])
        >>> m.update(5, 9)
        >>> m.eval()
        (9, 5)
    """
    @functools.wraps(func)
    def wrapper(self: Metric, *inputs: Any) -> Any:
        indexes = self.indexes
        if indexes:
            if max(indexes) >= len(inputs) or min(indexes) < -len(inputs):
                raise ValueError(f"{type(self).__name__}.update: indexes {indexes} do not fit "
                                 f"{len(inputs)} inputs")
            inputs = tuple(inputs[i] for i in indexes)
        return func(self, *inputs)
    return wrapper  # type: ignore[return-value]


class Metric:
    """Base class: subclasses define clear(), update(*inputs) and eval().

    `set_indexes([2, 1])` makes update(a, b, c) see (c, b) (when update is decorated with
    `rearrange_inputs`, as every built-in metric's is); calling the metric runs
    clear/update/eval once.

        >>> import numpy as np
        >>> MAE()(np.array([1.0, 2.0]), np.array([1.5, 2.0]))
        0.25
    """

    def __init__(self) -> None:
        self._indexes: Optional[list[int]] = None
        self.clear()

    def clear(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define clear()")

    def update(self, *inputs: Any) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define update(*inputs)")

    def eval(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define eval()")

    @property
    def indexes(self) -> Optional[list[int]]:
        """The input positions update() uses (None: all, in order); see set_indexes."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes: list[int]) -> Metric:
        """Use inputs `indexes` of update(), in that order; returns the metric itself."""
        if not isinstance(indexes, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) for i in indexes):
            raise ValueError(f"{type(self).__name__}.set_indexes: indexes must be a list of ints, "
                             f"got {indexes!r}")
        self._indexes = indexes
        return self

    def __call__(self, *inputs: Any) -> Any:
        """clear(), update(*inputs), eval(): the metric of one batch."""
        self.clear()
        self.update(*inputs)
        return self.eval()

    @staticmethod
    def _convert_data(data: Any) -> np.ndarray:
        """A Tensor, list or number as a numpy array."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, (np.ndarray, list, tuple, int, float, np.number)):
            return np.asarray(data)
        raise TypeError(f"metric input must be a Tensor, numpy array or list, "
                        f"got {type(data).__name__}")

    def _check_inputs(self, inputs: tuple[Any, ...], count: int) -> list[np.ndarray]:
        if len(inputs) != count:
            raise ValueError(f"{type(self).__name__}.update takes {count} inputs, "
                             f"got {len(inputs)}")
        return [self._convert_data(x) for x in inputs]

    def _ratio(self, total: Any, count: Any, what: str) -> float:
        if count == 0:
            raise RuntimeError(f"{type(self).__name__} cannot be calculated: no {what} yet "
                               f"(call update first)")
        return float(total / count)

    def _check_updated(self, updated: bool) -> None:
        if not updated:
            raise RuntimeError(f"{type(self).__name__} cannot be calculated: call update "
                               f"before eval")


def _is_onehot(data: np.ndarray) -> bool:
    """Whether `data` (N, C, ...) holds 0/1 with exactly one 1 along axis 1 (MindSpore's test)."""
    if data.ndim < 2 or not np.all((data == 0) | (data == 1)):
        return False
    return bool(np.all(data.sum(axis=1) == 1))


class Accuracy(Metric):
    """Fraction of correctly predicted samples.

    update(y_pred, y): y_pred of shape (N, C) (scores; the arg max is the prediction), y of
    shape (N,) class indices or (N, C) one-hot. With ``eval_type="multilabel"``, y_pred holds
    0/1 probabilities per class (rounded) and a sample counts when every class is right.

        >>> import numpy as np
        >>> Accuracy()(np.array([[0.2, 0.8], [0.9, 0.1]]), np.array([1, 0]))
        1.0
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

    @rearrange_inputs
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
    """Average of the losses given to update(loss) (a 1-d loss counts as its mean).

        >>> Loss()(2.0)
        2.0
    """

    def clear(self) -> None:
        self._sum_loss = 0.0
        self._total_num = 0

    @rearrange_inputs
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

    @rearrange_inputs
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
    """Mean absolute error, as MindSpore computes it: sum |y_pred - y| / number of samples.

        >>> import numpy as np
        >>> MAE()(np.array([[1.0, 2.0]]), np.array([[0.0, 2.5]]))
        1.5
    """

    _error = staticmethod(np.abs)


class MSE(_ErrorSum):
    """Mean squared error, as MindSpore computes it: sum (y_pred - y)^2 / number of samples.

        >>> import numpy as np
        >>> MSE()(np.array([[1.0, 2.0]]), np.array([[0.0, 2.5]]))
        1.25
    """

    _error = staticmethod(np.square)
