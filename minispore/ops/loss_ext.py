"""More losses of MindSpore's ops, exact composites of other ops (so their gradients and
Graph-mode fusion come for free): huber, soft margin, margin ranking, hinge embedding, cosine
embedding, triplet margin, multi-class and multi-label margins, gaussian nll. Each reduces by
`reduction` ('mean', 'sum' or 'none'), as ops.loss does; ctc_loss lives in ops.ctc."""
from __future__ import annotations
from typing import Optional
import math

from . import functional as F
from .arguments import as_tensor, op_error
from .loss import _check_reduction, _reduce, _same_shape
from .primitive import OpTypeError
from ..core.hints import Tensor, TensorLike

__all__ = [
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
]


def _log_sigmoid(x):
    return F.neg(F.softplus(F.neg(x)))


def huber_loss(input: Tensor, target: TensorLike, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta * (|d| - 0.5 delta), d = input - target
    (broadcast), reduced.

        >>> ops.huber_loss(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([1.0, 2.0, 2.0]))
        Tensor(shape=[], dtype=Float32, value= 0.166667)
    """
    _check_reduction("huber_loss", reduction)
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or delta <= 0:
        raise ValueError(f"ops.huber_loss: delta must be a number > 0, got {delta!r}")
    d = F.abs(F.sub(input, target))
    loss = F.where(F.less(d, delta), F.mul(F.mul(d, d), 0.5),
                   F.mul(F.sub(d, 0.5 * delta), float(delta)))
    return _reduce(loss, reduction)


def soft_margin_loss(input: Tensor, target: TensorLike, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input)) (targets 1 or -1), reduced; computed as softplus."""
    _check_reduction("soft_margin_loss", reduction)
    input, target = as_tensor(input), as_tensor(target)
    _same_shape("soft_margin_loss", input, target)
    return _reduce(F.softplus(F.neg(F.mul(target, input))), reduction)


def margin_ranking_loss(input1: TensorLike, input2: TensorLike, target: TensorLike, margin: float = 0.0, reduction: str = "mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin) (targets 1 or -1), reduced."""
    _check_reduction("margin_ranking_loss", reduction)
    input1, input2, target = as_tensor(input1), as_tensor(input2), as_tensor(target)
    _same_shape("margin_ranking_loss", input1, input2)
    _same_shape("margin_ranking_loss", input1, target)
    loss = F.relu(F.add(F.neg(F.mul(target, F.sub(input1, input2))), float(margin)))
    return _reduce(loss, reduction)


def hinge_embedding_loss(inputs: TensorLike, targets: TensorLike, margin: float = 1.0, reduction: str = "mean") -> Tensor:
    """x where target == 1, max(0, margin - x) where target == -1 (both terms where the target
    is neither, as PyTorch), reduced."""
    _check_reduction("hinge_embedding_loss", reduction)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise TypeError(f"ops.hinge_embedding_loss: margin must be a float or int, got {margin!r}")
    x, y = as_tensor(inputs), as_tensor(targets)
    zeros = F.zeros_like(x)
    margin_part = F.where(F.not_equal(y, 1), F.relu(F.sub(float(margin), x)), zeros)
    self_part = F.where(F.not_equal(y, -1), x, zeros)
    return _reduce(F.add(margin_part, self_part), reduction)


def cosine_embedding_loss(input1: TensorLike, input2: TensorLike, target: TensorLike, margin: float = 0.0, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1,
    the cosine along axis 1 of (N, D, ...) inputs (target (N, ...)), reduced."""
    _check_reduction("cosine_embedding_loss", reduction)
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"ops.cosine_embedding_loss: margin must be in [-1, 1], got {margin}")
    x1, x2, y = as_tensor(input1), as_tensor(input2), as_tensor(target)
    _same_shape("cosine_embedding_loss", x1, x2)
    if x1.ndim < 2 or tuple(y.shape) != tuple(x1.shape[:1] + x1.shape[2:]):
        raise op_error("cosine_embedding_loss", (x1, y), "inputs must be (N, D, ...) and target "
                       "(N, ...)")
    dot = F.sum(F.mul(x1, x2), 1)
    norms = F.mul(F.sqrt(F.sum(F.mul(x1, x1), 1)), F.sqrt(F.sum(F.mul(x2, x2), 1)))
    cosine = F.div(dot, norms)
    zeros = F.zeros_like(cosine)
    positive = F.where(F.equal(y, 1), F.sub(1.0, cosine), zeros)
    negative = F.where(F.equal(y, -1), F.relu(F.sub(cosine, float(margin))), zeros)
    return _reduce(F.add(positive, negative), reduction)


def triplet_margin_loss(anchor: TensorLike, positive: TensorLike, negative: TensorLike, margin: float = 1.0, p: float = 2, eps: float = 1e-06, swap: bool = False,
                        reduction: str = "mean") -> Tensor:
    """max(d(a, p) - d(a, n) + margin, 0), d the p-norm of x - y + eps along the last axis;
    swap=True uses min(d(a, n), d(p, n)) as the negative distance. Reduced over the samples."""
    _check_reduction("triplet_margin_loss", reduction)
    a, pos, neg = as_tensor(anchor), as_tensor(positive), as_tensor(negative)
    if a.ndim < 1:
        raise op_error("triplet_margin_loss", (a, pos, neg), "inputs must not be scalars")
    d_pos = F.pairwise_distance(a, pos, p, eps)
    d_neg = F.pairwise_distance(a, neg, p, eps)
    if swap:
        d_neg = F.minimum(d_neg, F.pairwise_distance(pos, neg, p, eps))
    return _reduce(F.relu(F.add(F.sub(d_pos, d_neg), margin)), reduction)


def multi_margin_loss(input: Tensor, target: TensorLike, p: float = 1, margin: float = 1, weight: Optional[TensorLike] = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss of (N, C) scores and class indices (N,):
    sum_{i != y} weight[y] * max(0, margin - x[y] + x[i])^p / C per sample (p 1 or 2), reduced
    (MindSpore's kernel: the weight outside the power, as PyTorch)."""
    _check_reduction("multi_margin_loss", reduction)
    if p not in (1, 2):
        raise ValueError(f"ops.multi_margin_loss: p must be 1 or 2, got {p!r}")
    x, y = as_tensor(input), as_tensor(target)
    if x.ndim != 2 or tuple(y.shape) != x.shape[:1] or not y.dtype.is_int:
        raise op_error("multi_margin_loss", (x, y), "input must be (N, C) and target integer "
                       "class indices (N,)")
    column = F.expand_dims(y, 1)
    picked = F.gather_elements(x, 1, column)
    hinge = F.relu(F.add(F.sub(x, picked), float(margin)))
    if p == 2:
        hinge = F.mul(hinge, hinge)
    others = F.not_equal(F.arange(x.shape[1], dtype=y.dtype), column)
    hinge = F.where(others, hinge, F.zeros_like(hinge))
    loss = F.div(F.sum(hinge, 1), float(x.shape[1]))
    if weight is not None:
        loss = F.mul(loss, F.gather(as_tensor(weight), y, 0))
    return _reduce(loss, reduction)


def multilabel_margin_loss(input: Tensor, target: TensorLike, reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss of (N, C) or (C,) scores: each sample's targets are the leading
    non-negative entries of its row of `target` (padded with -1); the loss sums
    max(0, 1 - (x[target_j] - x[i])) over those targets j and the classes i that are not
    targets, divided by C, then reduced over the samples.

        >>> x = ms.Tensor([[0.1, 0.2, 0.4, 0.8], [0.2, 0.3, 0.5, 0.7]])
        >>> round(float(ops.multilabel_margin_loss(x, ms.Tensor([[1, 2, 0, 3], [2, 3, -1, 1]]))), 6)
        0.325
    """
    _check_reduction("multilabel_margin_loss", reduction)
    x, y = as_tensor(input), as_tensor(target)
    if tuple(x.shape) != tuple(y.shape) or x.ndim not in (1, 2) or not y.dtype.is_int:
        raise op_error("multilabel_margin_loss", (x, y), "input must be (N, C) or (C,) and "
                       "target integer class indices of the same shape")
    single = x.ndim == 1
    if single:
        x, y = F.expand_dims(x, 0), F.expand_dims(y, 0)
    classes = x.shape[1]
    # the targets that count: the leading run of non-negative entries
    valid = F.cast(F.cumprod(F.cast(F.greater_equal(y, 0), x.dtype), 1), x.dtype)
    safe = F.where(F.greater_equal(y, 0), y, F.zeros_like(y))
    one_hot = F.mul(F.one_hot(safe, classes, 1.0, 0.0), F.expand_dims(valid, 2))
    is_target = F.amax(F.cast(one_hot, x.dtype), 1)                   # (N, C)
    picked = F.gather_elements(x, 1, safe)                            # (N, J): x[target_j]
    hinge = F.relu(F.add(F.sub(F.expand_dims(x, 1), F.expand_dims(picked, 2)), 1.0))
    weights = F.mul(F.expand_dims(valid, 2), F.expand_dims(F.sub(1.0, is_target), 1))
    loss = F.div(F.sum(F.mul(hinge, weights), (1, 2)), float(classes))
    if single and reduction == "none":
        return F.squeeze(loss, 0)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: TensorLike, weight: Optional[TensorLike] = None, reduction: str = "mean") -> Tensor:
    """-mean_c [y log sigmoid(x) + (1 - y) log sigmoid(-x)] * weight_c per sample of (N, C)
    scores and 0/1 targets, reduced over the samples."""
    _check_reduction("multilabel_soft_margin_loss", reduction)
    x, y = as_tensor(input), as_tensor(target)
    _same_shape("multilabel_soft_margin_loss", x, y)
    if x.ndim != 2:
        raise op_error("multilabel_soft_margin_loss", (x, y), "input must be (N, C)")
    terms = F.add(F.mul(y, _log_sigmoid(x)), F.mul(F.sub(1.0, y), _log_sigmoid(F.neg(x))))
    if weight is not None:
        terms = F.mul(terms, weight)
    return _reduce(F.neg(F.mean(terms, 1)), reduction)


def gaussian_nll_loss(x: Tensor, target: TensorLike, var: TensorLike, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """0.5 * (log(max(var, eps)) + (x - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) if full),
    reduced. `var` may have one axis fewer than x (a trailing axis of 1 is added) or size-1
    axes, for broadcasting."""
    _check_reduction("gaussian_nll_loss", reduction)
    if not isinstance(full, bool):
        raise TypeError(f"ops.gaussian_nll_loss: full must be a bool, got {full!r}")
    if isinstance(eps, bool) or not isinstance(eps, float) or eps <= 0:
        raise ValueError(f"ops.gaussian_nll_loss: eps must be a float > 0, got {eps!r}")
    x, target, var = as_tensor(x), as_tensor(target), as_tensor(var)
    if not x.dtype.is_float or not var.dtype.is_float:
        raise op_error("gaussian_nll_loss", (x, var), "x and var must be float tensors",
                       OpTypeError)
    if var.ndim == x.ndim - 1 and tuple(var.shape) != tuple(x.shape):
        var = F.expand_dims(var, -1)
    # the clamp is not differentiated (PyTorch's rule): var below eps still gets a gradient
    var = F.add(var, F.stop_gradient(F.sub(F.maximum(var, eps), var)))
    diff = F.sub(x, target)
    loss = F.mul(F.add(F.log(var), F.div(F.mul(diff, diff), var)), 0.5)
    if full:
        loss = F.add(loss, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction)
