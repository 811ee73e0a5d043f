"""Metrics: accumulate over batches with update(), read with eval(), reset with clear().

MindSpore exports them from both `mindspore.nn` and `mindspore.train`; here they live in
`nn` and `train` re-exports the same objects.

    >>> import numpy as np
    >>> from minispore import nn
    >>> f1 = nn.get_metric_fn("F1")
    >>> f1.update(np.array([[0.2, 0.8], [0.9, 0.1]]), np.array([1, 1]))
    >>> f1.eval()
    array([0.        , 0.66666667])

`Model(metrics={"accuracy", "loss"})` builds them by name (see `get_metric_fn`, `names`).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence, Union

from .classification import (
    F1,
    Fbeta,
    Perplexity,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
)
from .confusion_matrix import ConfusionMatrix, ConfusionMatrixMetric
from .curves import ROC, auc
from .distance import HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance
from .metric import MAE, MSE, Accuracy, Loss, Metric, rearrange_inputs
from .occlusion import OcclusionSensitivity
from .similarity import BleuScore, CosineSimilarity, Dice

__all__ = ["Metric", "rearrange_inputs", "Accuracy", "Loss", "MAE", "MSE", "Precision",
           "Recall", "Fbeta", "F1", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "Perplexity", "ConfusionMatrix", "ConfusionMatrixMetric",
           "ROC", "auc", "Dice", "CosineSimilarity", "BleuScore", "HausdorffDistance",
           "MeanSurfaceDistance", "RootMeanSquareDistance", "OcclusionSensitivity", "names",
           "get_metric_fn", "get_metrics"]

# MindSpore's names for get_metric_fn (note 'F1' is upper case there too)
_BY_NAME: dict[str, Callable[..., Any]] = {
    "accuracy": Accuracy, "acc": Accuracy, "precision": Precision, "recall": Recall,
    "F1": F1, "dice": Dice, "roc": ROC, "auc": auc, "bleu_score": BleuScore,
    "cosine_similarity": CosineSimilarity, "topk": TopKCategoricalAccuracy,
    "top_1_accuracy": Top1CategoricalAccuracy, "top_5_accuracy": Top5CategoricalAccuracy,
    "mae": MAE, "mse": MSE, "loss": Loss, "perplexity": Perplexity,
    "confusion_matrix": ConfusionMatrix, "confusion_matrix_metric": ConfusionMatrixMetric,
    "hausdorff_distance": HausdorffDistance, "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance,
    "occlusion_sensitivity": OcclusionSensitivity,
}


def names() -> list[str]:
    """The metric names get_metric_fn knows, sorted.

        >>> "accuracy" in names()
        True
    """
    return sorted(_BY_NAME)


def get_metric_fn(name: str, *args: Any, **kwargs: Any) -> Any:
    """A new metric from its name ('accuracy', 'precision', 'F1', 'top_5_accuracy'...; see
    names()); `args` and `kwargs` go to its constructor.

        >>> get_metric_fn("topk", k=3).k
        3
    """
    if name not in _BY_NAME:
        raise ValueError(f"unknown metric {name!r}; known: {names()}")
    return _BY_NAME[name](*args, **kwargs)


def get_metrics(metrics: Union[Sequence[str], set[str], dict[str, Metric], None]
                ) -> dict[str, Metric]:
    """dict name -> Metric from a set/list of names or a dict name -> Metric (None -> {}).

        >>> sorted(get_metrics({"loss", "acc"}))
        ['acc', 'loss']
    """
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
