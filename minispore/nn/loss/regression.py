"""Regression, ranking and embedding losses: HuberLoss, RMSELoss, MAELoss, SoftMarginLoss,
MarginRankingLoss, HingeEmbeddingLoss, CosineEmbeddingLoss, TripletMarginLoss,
TripletMarginWithDistanceLoss, PoissonNLLLoss, GaussianNLLLoss, KLDivLoss (MindSpore's names, arguments and defaults).

    >>> import minispore as ms
    >>> ms.nn.HuberLoss()(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([1.0, 2.0, 2.0]))
    Tensor(shape=[], dtype=Float32, value= 0.166667)
"""
from __future__ import annotations
from typing import Any
import math

from ...ops import functional as F
from .. import validation as V
from .basic import LossBase
from ...core.hints import Tensor


class HuberLoss(LossBase):
    """0.5 d^2 where |d| < delta, else delta * (|d| - 0.5 delta), d = logits - labels
    (ops.huber_loss)."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction)
        self.delta = V.number_in(delta, "delta", "HuberLoss", 0.0, float("inf"), low_open=True)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.huber_loss(logits, labels, self.reduction, self.delta)


class RMSELoss(LossBase):
    """sqrt(mean((logits - label)^2)), a scalar (no reduction argument, as in MindSpore)."""

    def __init__(self) -> None:
        super().__init__()

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        for name, x in (("logits", logits), ("label", label)):
            if x.dtype.name.startswith("UInt"):
                raise TypeError(f"RMSELoss: {name} must not be unsigned, got {x.dtype}")
        return F.sqrt(F.mse_loss(logits, label))


class MAELoss(LossBase):
    """|logits - label|, reduced (the mean absolute error for 'mean')."""

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        return self.get_loss(F.abs(F.sub(logits, label)))


class SoftMarginLoss(LossBase):
    """log(1 + exp(-labels * logits)) for labels 1 or -1 (ops.soft_margin_loss)."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.soft_margin_loss(logits, labels, self.reduction)


class MarginRankingLoss(LossBase):
    """max(0, -target * (input1 - input2) + margin) (ops.margin_ranking_loss)."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = V.number_in(margin, "margin", "MarginRankingLoss", -math.inf, math.inf)

    def construct(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class HingeEmbeddingLoss(LossBase):
    """x where labels == 1, max(0, margin - x) where labels == -1
    (ops.hinge_embedding_loss)."""

    def __init__(self, margin: float = 1.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.margin = V.number_in(margin, "margin", "HingeEmbeddingLoss", -math.inf, math.inf)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class CosineEmbeddingLoss(LossBase):
    """1 - cos(x1, x2) for labels 1, max(0, cos(x1, x2) - margin) for labels -1, the cosine
    along axis 1 (ops.cosine_embedding_loss)."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if not isinstance(margin, float):
            raise TypeError(f"CosineEmbeddingLoss: margin must be a float, got {margin!r}")
        self.margin = V.number_in(margin, "margin", "CosineEmbeddingLoss", -1.0, 1.0)

    def construct(self, logits_x1: Any, logits_x2: Any, labels: Tensor) -> Tensor:
        return F.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin, self.reduction)


class TripletMarginLoss(LossBase):
    """max(d(x, positive) - d(x, negative) + margin, 0), d the p-norm distance
    (ops.triplet_margin_loss). A margin given to the constructor (other than 1.0) overrides
    the one given to the call, as in MindSpore."""

    def __init__(self, p: float = 2, swap: bool = False, eps: float = 1e-06, reduction: str = "mean", margin: float = 1.0) -> None:
        super().__init__(reduction)
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(f"TripletMarginLoss: p must be an int, got {p!r}")
        self.p, self.swap = p, V.boolean(swap, "swap", "TripletMarginLoss")
        self.eps = V.number_in(eps, "eps", "TripletMarginLoss", 0.0, math.inf)
        self.margin = margin

    def construct(self, x: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0) -> Tensor:
        if self.margin != 1.0:
            margin = self.margin
        return F.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap,
                                     self.reduction)


class TripletMarginWithDistanceLoss(LossBase):
    """max(d(x, positive) - d(x, negative) + margin, 0) for any distance function
    `distance_function(a, b)` (default: the pairwise 2-norm distance, ops.pairwise_distance);
    swap=True uses min(d(x, negative), d(positive, negative)) as the negative distance."""

    def __init__(self, distance_function: Any = None, swap: bool = False, margin: float = 1.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if distance_function is not None and not callable(distance_function):
            raise TypeError(f"TripletMarginWithDistanceLoss: distance_function must be callable "
                            f"or None, got {distance_function!r}")
        self.distance_function = distance_function or F.pairwise_distance
        self.swap = V.boolean(swap, "swap", "TripletMarginWithDistanceLoss")
        self.margin = V.number_in(margin, "margin", "TripletMarginWithDistanceLoss", 0.0,
                                  math.inf)

    def construct(self, x: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        d_pos = self.distance_function(x, positive)
        d_neg = self.distance_function(x, negative)
        if self.swap:
            d_neg = F.minimum(d_neg, self.distance_function(positive, negative))
        return self.get_loss(F.relu(F.add(F.sub(d_pos, d_neg), self.margin)))


class PoissonNLLLoss(LossBase):
    """Poisson negative log-likelihood: exp(x) - target * x for log_input, else
    x - target * log(x + eps); full=True adds Stirling's approximation of log(target!) where
    target > 1: (target + 0.5) log(target) - target + 0.5 log(2 pi)."""

    def __init__(self, log_input: bool = True, full: bool = False, eps: float = 1e-08, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.log_input = V.boolean(log_input, "log_input", "PoissonNLLLoss")
        self.full = V.boolean(full, "full", "PoissonNLLLoss")
        self.eps = V.number_in(eps, "eps", "PoissonNLLLoss", 0.0, math.inf, low_open=True)

    def construct(self, input: Tensor, target: Tensor) -> Tensor:
        if input.ndim == 0 or target.ndim == 0:
            raise V.input_error("PoissonNLLLoss", input, f"inputs must not be scalars, got "
                                f"shapes {input.shape} and {target.shape}")
        target = F.cast(target, input.dtype)
        if self.log_input:
            loss = F.sub(F.exp(input), F.mul(target, input))
        else:
            loss = F.sub(input, F.mul(target, F.log(F.add(input, self.eps))))
        if self.full:
            t = F.maximum(target, self.eps)
            stirling = F.add(F.sub(F.mul(F.add(t, 0.5), F.log(t)), t), 0.5 * math.log(2 * math.pi))
            loss = F.add(loss, F.where(F.greater(t, 1.0), stirling, F.zeros_like(stirling)))
        return self.get_loss(loss)


class GaussianNLLLoss(LossBase):
    """0.5 (log(max(var, eps)) + (logits - labels)^2 / max(var, eps)) (+ 0.5 log(2 pi) when
    full) (ops.gaussian_nll_loss). Keyword-only arguments, as in MindSpore."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.full = V.boolean(full, "full", "GaussianNLLLoss")
        self.eps = V.number_in(eps, "eps", "GaussianNLLLoss", 0.0, math.inf, low_open=True)

    def construct(self, logits: Tensor, labels: Tensor, var: Tensor) -> Tensor:
        return F.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class KLDivLoss(LossBase):
    """labels * (log(labels) - logits) for log-probability logits (ops.kl_div); reduction
    'mean' (of the elements), 'batchmean' (the sum over the batch size), 'sum' or 'none'."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = V.one_of(reduction, "reduction", "KLDivLoss",
                                  ("mean", "batchmean", "sum", "none"))

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.kl_div(logits, labels, self.reduction)
