"""Losses: classification (cross_entropy, nll_loss, softmax_cross_entropy_with_logits,
binary cross-entropy, kl_div) and regression (mse, l1, smooth l1), reduced by `reduction`."""
from __future__ import annotations
from typing import Any, Optional
import numpy as np

from . import functional as F
from .activation import log_softmax
from .arguments import as_tensor, op_error
from .sparse_cross_entropy import sparse_softmax_cross_entropy
from ..core.hints import Tensor, TensorLike

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "kl_div",
    "l1_loss",
    "mse_loss",
    "nll_loss",
    "smooth_l1_loss",
    "softmax_cross_entropy_with_logits",
]


_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(op, reduction, allowed=_REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"ops.{op}: reduction must be one of {allowed}, got {reduction!r}")


def _reduce(loss, reduction):
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.sum(loss)
    return loss


def _same_shape(op, input, target):
    if tuple(input.shape) != tuple(target.shape):
        raise op_error(op, (input, target), "input and target must have the same shape")


def mse_loss(input: Tensor, target: TensorLike, reduction: str = "mean") -> Tensor:
    """(input - target)^2, reduced."""
    _check_reduction("mse_loss", reduction)
    diff = F.sub(input, target)
    return _reduce(F.mul(diff, diff), reduction)


def l1_loss(input: Tensor, target: TensorLike, reduction: str = "mean") -> Tensor:
    """|input - target|, reduced."""
    _check_reduction("l1_loss", reduction)
    return _reduce(F.abs(F.sub(input, target)), reduction)


def smooth_l1_loss(input: Tensor, target: TensorLike, beta: float = 1.0, reduction: str = "none") -> Tensor:
    """0.5 d^2 / beta where d = |input - target| < beta, else d - 0.5 beta (MindSpore's default
    reduction here is 'none')."""
    _check_reduction("smooth_l1_loss", reduction)
    if beta <= 0:
        raise ValueError(f"ops.smooth_l1_loss: beta must be > 0, got {beta}")
    d = F.abs(F.sub(input, target))
    loss = F.where(F.less(d, beta), F.mul(F.mul(d, d), 0.5 / beta), F.sub(d, 0.5 * beta))
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(logits: TensorLike, label: TensorLike, weight: Optional[TensorLike] = None, pos_weight: Any = None,
                                     reduction: str = "mean") -> Tensor:
    """-[pos_weight * y * log sigmoid(x) + (1 - y) * log(1 - sigmoid(x))] * weight, computed
    from the logits without overflow (log sigmoid(x) = -softplus(-x))."""
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    logits, label = as_tensor(logits), as_tensor(label)
    _same_shape("binary_cross_entropy_with_logits", logits, label)
    # -log sigmoid(x) = softplus(-x); -log(1 - sigmoid(x)) = softplus(x)
    positive_term = F.softplus(F.neg(logits))
    if pos_weight is not None:
        positive_term = F.mul(positive_term, pos_weight)
    one_minus_label = F.sub(1.0, label)
    loss = F.add(F.mul(label, positive_term), F.mul(one_minus_label, F.softplus(logits)))
    if weight is not None:
        loss = F.mul(loss, weight)
    return _reduce(loss, reduction)


def binary_cross_entropy(logits: TensorLike, labels: TensorLike, weight: Optional[TensorLike] = None, reduction: str = "mean") -> Tensor:
    """-[y log p + (1 - y) log(1 - p)] * weight for probabilities p (`logits` in MindSpore's
    naming); each log is clamped at -100, as PyTorch does, so p = 0 or 1 stays finite."""
    _check_reduction("binary_cross_entropy", reduction)
    p, y = as_tensor(logits), as_tensor(labels)
    _same_shape("binary_cross_entropy", p, y)
    log_p = F.maximum(F.log(p), -100.0)
    log_q = F.maximum(F.log(F.sub(1.0, p)), -100.0)
    loss = F.neg(F.add(F.mul(y, log_p), F.mul(F.sub(1.0, y), log_q)))
    if weight is not None:
        loss = F.mul(loss, weight)
    return _reduce(loss, reduction)


def kl_div(logits: TensorLike, labels: TensorLike, reduction: str = "mean", log_target: bool = False) -> Tensor:
    """labels * (log(labels) - logits), with `logits` log-probabilities; 0 where labels == 0.
    reduction 'batchmean' divides the sum by the batch size."""
    _check_reduction("kl_div", reduction, _REDUCTIONS + ("batchmean",))
    logits, labels = as_tensor(logits), as_tensor(labels)
    if log_target:
        loss = F.mul(F.exp(labels), F.sub(labels, logits))
    else:
        positive = F.greater(labels, 0)
        log_labels = F.log(F.where(positive, labels, 1.0))
        loss = F.where(positive, F.mul(labels, F.sub(log_labels, logits)), 0.0)
    if reduction == "batchmean":
        return F.div(F.sum(loss), float(logits.shape[0]) if logits.ndim else 1.0)
    return _reduce(loss, reduction)


def _check_class_indices(op, inputs, target, class_axis):
    expected = tuple(s for i, s in enumerate(inputs.shape) if i != class_axis)
    if tuple(target.shape) != expected or not target.dtype.is_int:
        raise op_error(op, (inputs, target),
                       f"target must be integer class indices of shape {expected}")


def nll_loss(inputs: TensorLike, target: TensorLike, weight: Optional[TensorLike] = None, ignore_index: int = -100, reduction: str = "mean",
             label_smoothing: float = 0.0) -> Tensor:
    """Negative log-likelihood of class indices `target` under log-probabilities `inputs`
    ((N, C) or (N, C, d1, ...), classes on axis 1; or (C,)), as MindSpore's ops.nll_loss.

    l_n = -weight[t_n] * inputs[n, t_n], 0 where t_n == ignore_index. 'mean' divides the sum
    by the summed weights of the targets that count. With label_smoothing e the loss is
    (1 - e) * nll + e / C * smooth, smooth_n = -sum_c inputs[n, c] (unweighted; 'mean' averages
    it over all N, ignored entries counting as 0 — MindSpore's rule, which PyTorch differs
    from when weights or ignored entries are present).
    """
    _check_reduction("nll_loss", reduction)
    inputs, target = as_tensor(inputs), as_tensor(target)
    class_axis = 0 if inputs.ndim == 1 else 1
    _check_class_indices("nll_loss", inputs, target, class_axis)
    target = F.expand_dims(target, class_axis)
    counted = F.not_equal(target, ignore_index)
    safe_target = F.where(counted, target, 0)
    picked = F.gather_elements(inputs, class_axis, safe_target)
    weights = F.cast(counted, inputs.dtype)
    if weight is not None:
        weights = F.mul(weights, F.gather(as_tensor(weight), safe_target, 0))
    loss = F.squeeze(F.neg(F.mul(picked, weights)), class_axis)
    if reduction == "mean":
        loss = F.div(F.sum(loss), F.sum(weights))
    elif reduction == "sum":
        loss = F.sum(loss)
    if not label_smoothing:
        return loss
    smooth = F.squeeze(F.neg(F.mul(F.sum(inputs, class_axis, True), F.cast(counted, inputs.dtype))),
                       class_axis)
    smooth = _reduce(smooth, reduction)
    n_classes = inputs.shape[class_axis]
    return F.add(F.mul(loss, 1.0 - label_smoothing), F.mul(smooth, label_smoothing / n_classes))


def cross_entropy(input: Tensor, target: TensorLike, weight: Optional[TensorLike] = None, ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy between logits `input` (classes on axis 1, or axis 0 for a 1-D input) and
    `target`: integer class indices (see nll_loss for weight, ignore_index and smoothing) or
    class probabilities of input's shape and float dtype, as MindSpore's ops.cross_entropy.
    Class indices of (N, C) logits without weight or smoothing must lie in [0, C) or equal
    ignore_index (an OpError otherwise).

    With probabilities: l = -sum_c weight_c * p_c * log_softmax(input)_c, where
    p = target * (1 - label_smoothing) + label_smoothing / C; 'mean' divides by N (times the
    extra spatial sizes).

        >>> logits = ms.Tensor(np.array([[2.0, 0.0], [0.0, 2.0]], np.float32))
        >>> round(float(ops.cross_entropy(logits, ms.Tensor([0, 1]))), 6)
        0.126928
    """
    input, target = as_tensor(input), as_tensor(target)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"ops.cross_entropy: label_smoothing must be in [0, 1], "
                         f"got {label_smoothing}")
    class_axis = 0 if input.ndim == 1 else 1
    if not target.dtype.is_float:
        _check_reduction("cross_entropy", reduction)
        _check_class_indices("cross_entropy", input, target, class_axis)
        if input.ndim == 2 and input.dtype.is_float and weight is None and not label_smoothing:
            return sparse_softmax_cross_entropy(input, target, ignore_index=int(ignore_index),
                                                reduction=reduction)
        return nll_loss(log_softmax(input, class_axis), target, weight, ignore_index, reduction,
                        label_smoothing)
    log_probs = log_softmax(input, class_axis)
    _check_reduction("cross_entropy", reduction)
    _same_shape("cross_entropy", input, target)
    n_classes = input.shape[class_axis]
    if label_smoothing:
        target = F.add(F.mul(target, 1.0 - label_smoothing), label_smoothing / n_classes)
    terms = F.mul(log_probs, target)
    if weight is not None:
        terms = F.mul(terms, F.reshape(weight, (-1,) + (1,) * (input.ndim - class_axis - 1)))
    if reduction == "mean":
        return F.div(F.neg(F.sum(terms)), float(input.size // n_classes))
    if reduction == "sum":
        return F.neg(F.sum(terms))
    return F.neg(F.sum(terms, class_axis))


def softmax_cross_entropy_with_logits(logits: TensorLike, labels: TensorLike, sparse: bool = False, reduction: str = "none") -> Tensor:
    """Per-sample -sum(labels * log_softmax(logits, -1), -1), reduced; what
    nn.SoftmaxCrossEntropyWithLogits computes. sparse=True: labels are class indices."""
    _check_reduction("softmax_cross_entropy_with_logits", reduction)
    logits, labels = as_tensor(logits), as_tensor(labels)
    if sparse:
        if tuple(labels.shape) != tuple(logits.shape[:-1]) or not labels.dtype.is_int:
            raise op_error("softmax_cross_entropy_with_logits", (logits, labels),
                           f"sparse labels must be class indices of shape {logits.shape[:-1]}")
        if logits.ndim == 2 and logits.dtype.is_float:
            return sparse_softmax_cross_entropy(logits, labels, ignore_index=None,
                                                reduction=reduction)
        labels = F.one_hot(labels, logits.shape[-1], 1.0, 0.0)
    else:
        _same_shape("softmax_cross_entropy_with_logits", logits, labels)
    labels = F.cast(labels, logits.dtype)
    loss = F.neg(F.sum(F.mul(labels, log_softmax(logits, -1)), -1))
    return _reduce(loss, reduction)
