"""Metrics: values against hand-computed results, accumulation, clear(), errors."""
import numpy as np
import pytest

import minispore as ms
from minispore.train import MAE, MSE, Accuracy, Loss, get_metric_fn, get_metrics


def test_accuracy_accumulates_over_batches_and_clears():
    acc = Accuracy()
    acc.update(ms.Tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]]), ms.Tensor([1, 1, 1]))
    assert acc.eval() == pytest.approx(2 / 3)
    acc.update(np.array([[0.0, 1.0]]), np.array([[0, 1]]))  # one-hot labels
    assert acc.eval() == pytest.approx(3 / 4)
    acc.clear()
    with pytest.raises(RuntimeError, match="Accuracy cannot be calculated"):
        acc.eval()


def test_multilabel_accuracy_needs_every_class_right():
    acc = Accuracy("multilabel")
    acc.update(np.array([[0.9, 0.2, 0.6], [0.1, 0.8, 0.4]]), np.array([[1, 0, 1], [0, 1, 1]]))
    assert acc.eval() == 0.5


def test_accuracy_errors():
    with pytest.raises(ValueError, match="2 predictions but 3 labels"):
        Accuracy().update(np.zeros((2, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="takes 2 inputs, got 1"):
        Accuracy().update(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="eval_type"):
        Accuracy("top5")
    with pytest.raises(TypeError, match="metric input must be"):
        Accuracy().update("abc", np.zeros(3))


def test_loss_averages_batch_losses():
    loss = Loss()
    loss.update(ms.Tensor(1.0))
    loss.update(np.array([2.0, 4.0]))  # a 1-d loss counts as its mean
    assert loss.eval() == pytest.approx(2.0)
    with pytest.raises(ValueError, match="0-d or 1-d"):
        loss.update(np.zeros((2, 2)))


def test_mae_and_mse_divide_by_samples():
    y_pred = np.array([[1.0, 2.0], [3.0, 5.0]])
    y = np.array([[1.5, 2.0], [2.0, 3.0]])
    mae, mse = MAE(), MSE()
    mae.update(y_pred, y)
    mse.update(ms.Tensor(y_pred), ms.Tensor(y))
    assert mae.eval() == pytest.approx((0.5 + 0 + 1 + 2) / 2)
    assert mse.eval() == pytest.approx((0.25 + 0 + 1 + 4) / 2)


def test_metrics_by_name():
    assert isinstance(get_metric_fn("acc"), Accuracy)
    built = get_metrics({"loss", "accuracy", "mae"})
    assert list(built) == ["accuracy", "loss", "mae"]  # sorted: a set's order is not stable
    assert get_metrics(None) == {}
    with pytest.raises(ValueError, match="unknown metric 'f1'"):
        get_metrics({"f1"})
    with pytest.raises(TypeError, match=r"metrics\['a'\] must be a Metric"):
        get_metrics({"a": 1})
