"""Loss Cells: `loss_fn(logits, labels)`, reduced by `reduction` ('mean', 'sum' or 'none').

    >>> import minispore as ms
    >>> loss = ms.nn.MSELoss()
    >>> loss(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 4.0]))
    Tensor(shape=[], dtype=Float32, value= 2)

Each Cell is a thin front for the `ops` function of the same name, which holds the formula.
"""
from __future__ import annotations
from typing import Any, Optional
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from ...core.hints import Tensor

_REDUCTIONS = ("mean", "sum", "none")


class LossBase(Cell):
    """Base of losses: holds `reduction`; `get_loss(x, weights)` applies it (MindSpore API)."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = V.one_of(reduction, "reduction", type(self).__name__, _REDUCTIONS)

    def get_loss(self, x, weights=1.0):
        """x * weights, then the reduction."""
        if not (isinstance(weights, (int, float)) and weights == 1.0):
            x = F.mul(x, weights)
        if self.reduction == "mean":
            return F.mean(x)
        if self.reduction == "sum":
            return F.sum(x)
        return x

    def extend_repr(self):
        return f"reduction={self.reduction}"


class MSELoss(LossBase):
    """(logits - labels)^2."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.mse_loss(logits, labels, self.reduction)


class L1Loss(LossBase):
    """|logits - labels|."""

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.l1_loss(logits, labels, self.reduction)


class SmoothL1Loss(LossBase):
    """0.5 d^2 / beta for d = |logits - labels| < beta, else d - 0.5 beta. As in MindSpore,
    the default reduction is 'none'."""

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__(reduction)
        self.beta = V.number_in(beta, "beta", "SmoothL1Loss", 0.0, float("inf"), low_open=True)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """-sum(labels * log_softmax(logits)) per sample; `sparse=True` takes class indices.
    As in MindSpore, the default reduction is 'none' (one loss per sample)."""

    def __init__(self, sparse: bool = False, reduction: str = "none") -> None:
        super().__init__(reduction)
        self.sparse = V.boolean(sparse, "sparse", "SoftmaxCrossEntropyWithLogits")

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.softmax_cross_entropy_with_logits(logits, labels, self.sparse, self.reduction)


class CrossEntropyLoss(LossBase):
    """Cross-entropy of logits (classes on axis 1) and class indices or class probabilities,
    with optional per-class `weight`, `ignore_index` and `label_smoothing` (ops.cross_entropy)."""

    def __init__(self, weight: Optional[Tensor] = None, ignore_index: int = -100, reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = V.number_in(label_smoothing, "label_smoothing", "CrossEntropyLoss",
                                           0.0, 1.0)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                               self.label_smoothing)


class NLLLoss(LossBase):
    """-weight[t] * logits[n, t] for class indices t; `logits` are log-probabilities."""

    def __init__(self, weight: Optional[Tensor] = None, ignore_index: int = -100, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = ignore_index

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Binary cross-entropy on logits: -[pos_weight y log s(x) + (1 - y) log(1 - s(x))] weight,
    s the sigmoid, computed without overflow."""

    def __init__(self, reduction: str = "mean", weight: Optional[Tensor] = None, pos_weight: Any = None) -> None:
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                  self.reduction)


class BCELoss(LossBase):
    """Binary cross-entropy on probabilities: -[y log p + (1 - y) log(1 - p)] weight."""

    def __init__(self, weight: Optional[Tensor] = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return F.binary_cross_entropy(logits, labels, self.weight, self.reduction)
