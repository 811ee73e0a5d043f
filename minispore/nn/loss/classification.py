"""Classification, segmentation and sequence losses: MultiMarginLoss, MultilabelMarginLoss,
MultiLabelSoftMarginLoss, FocalLoss, DiceLoss, MultiClassDiceLoss, CTCLoss (MindSpore's
names, arguments and formulas).

    >>> import minispore as ms
    >>> logits = ms.Tensor([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]])
    >>> labels = ms.Tensor([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    >>> round(float(ms.nn.DiceLoss()(logits, labels)), 6)
    0.385965
"""
from __future__ import annotations
from typing import Any, Optional, Union
from ...core.dtype import int32
from ...core.tensor import Tensor
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from ..layers.activation import get_activation
from .basic import LossBase


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss of (N, C) scores and class indices (ops.multi_margin_loss); a
    weight given to the constructor overrides the one given to the call."""

    def __init__(self, p: float = 1, margin: float = 1.0, reduction: str = "mean", weight: Optional[Tensor] = None) -> None:
        super().__init__(reduction)
        V.one_of(p, "p", "MultiMarginLoss", (1, 2))
        self.p, self.margin, self.weight = p, V.number_in(margin, "margin", "MultiMarginLoss",
                                                          float("-inf"), float("inf")), weight

    def construct(self, x: Tensor, target: Tensor, weight: Optional[Tensor] = None) -> Tensor:
        weight = self.weight if self.weight is not None else weight
        return F.multi_margin_loss(x, target, self.p, self.margin, weight, self.reduction)


class MultilabelMarginLoss(LossBase):
    """Multi-label hinge loss of (N, C) scores and -1-padded target indices
    (ops.multilabel_margin_loss)."""

    def construct(self, x: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(x, target, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """-mean_c [y log sigmoid(x) + (1 - y) log sigmoid(-x)] * weight per sample of (N, C)
    scores (ops.multilabel_soft_margin_loss)."""

    def __init__(self, weight: Optional[Tensor] = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class FocalLoss(LossBase):
    """-(1 - p_t)^gamma log(p_t) (Lin et al. 2017) of logits (N, C, *) with softmax over C.

    `labels` are class indices of shape (N, 1, *) or per-class targets of logits' shape; the
    loss is averaged over the spatial positions ((N,) for indices, (N, C) for per-class
    targets), then reduced. `weight` (C,) rescales each class's log-probability (MindSpore's
    rule, applied after p_t is taken).
    """

    def __init__(self, weight: Optional[Tensor] = None, gamma: float = 2.0, reduction: str = "mean") -> None:
        super().__init__(reduction)
        if not isinstance(gamma, float):
            raise TypeError(f"FocalLoss: gamma must be a float, got {gamma!r}")
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"FocalLoss: weight must be a Tensor, got {type(weight).__name__}")
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"FocalLoss: weight must be 1-D, got {weight.ndim} dimensions")
        self.weight, self.gamma = weight, gamma

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        if labels.ndim != logits.ndim or logits.ndim < 2 or \
                labels.shape[1] not in (1, logits.shape[1]):
            raise V.input_error("FocalLoss", labels, f"labels of shape {labels.shape} do not fit "
                                f"logits of shape {logits.shape}")
        n, classes = logits.shape[:2]
        by_index = labels.shape[1] == 1
        logits = F.reshape(logits, (n, classes, -1))
        labels = F.reshape(labels, (n, labels.shape[1], -1))
        log_p = F.log_softmax(logits, 1)
        index = F.cast(labels, int32) if by_index else None
        if index is not None:
            log_p = F.squeeze(F.gather_elements(log_p, 1, index), 1)
        p = F.exp(log_p)
        if self.weight is not None:
            weight = F.cast(F.reshape(self.weight, (1, -1, 1)), log_p.dtype)
            weight = F.broadcast_to(weight, (n, classes, logits.shape[2]))
            log_p = F.mul(log_p, F.squeeze(F.gather_elements(weight, 1, index), 1)
                          if index is not None else weight)
        modulating = F.pow(F.sub(1.0, p), self.gamma)
        if by_index:
            return self.get_loss(F.mean(F.neg(F.mul(modulating, log_p)), 1))
        terms = F.mul(F.mul(modulating, F.cast(labels, log_p.dtype)), log_p)
        return self.get_loss(F.mean(F.neg(terms), -1))


class DiceLoss(LossBase):
    """1 - 2 sum(logits * labels) / (sum(logits^2) + sum(labels^2) + smooth), over every
    element (a scalar)."""

    def __init__(self, smooth: float = 1e-5) -> None:
        super().__init__()
        self.smooth = V.number_in(smooth, "smooth", "DiceLoss", 0.0, float("inf"), low_open=True)

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        if logits.ndim != label.ndim:
            raise V.input_error("DiceLoss", logits, f"logits of shape {logits.shape} and labels "
                                f"of shape {label.shape} must have the same rank")
        intersection = F.sum(F.mul(logits, label))
        union = F.add(F.sum(F.mul(logits, logits)), F.sum(F.mul(label, label)))
        return F.sub(1.0, F.div(F.mul(intersection, 2.0), F.add(union, self.smooth)))


class MultiClassDiceLoss(LossBase):
    """The mean over classes (axis 1 of (N, C, *) inputs) of the DiceLoss of each class
    after `activation` (applied along the last axis, as MindSpore's get_activation cells
    are); `weights` (C, dim) rescales class i's loss by its row i; class `ignore_indiex`
    (MindSpore's spelling) is left out of the sum but not of the count."""

    def __init__(self, weights: Optional[Tensor] = None, ignore_indiex: Optional[int] = None,
                 activation: Union[str, Cell, None] = "softmax") -> None:
        super().__init__()
        if weights is not None and (not isinstance(weights, Tensor) or weights.ndim != 2):
            raise ValueError("MultiClassDiceLoss: weights must be a 2-D Tensor or None")
        if ignore_indiex is not None and (isinstance(ignore_indiex, bool)
                                          or not isinstance(ignore_indiex, int)):
            raise TypeError(f"MultiClassDiceLoss: ignore_indiex must be an int or None, got "
                            f"{ignore_indiex!r}")
        known = ("softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid")
        if isinstance(activation, str):
            V.one_of(activation.lower(), "activation", "MultiClassDiceLoss", known)
            activation = get_activation(activation)
        if activation is not None and not isinstance(activation, Cell):
            raise TypeError(f"MultiClassDiceLoss: activation must be a name or a Cell, got "
                            f"{type(activation).__name__}")
        self.weights, self.ignore_indiex, self.activation = weights, ignore_indiex, activation
        self.binarydiceloss = DiceLoss(smooth=1e-5)

    def construct(self, logits: Tensor, label: Tensor) -> Tensor:
        if tuple(logits.shape) != tuple(label.shape) or logits.ndim < 2:
            raise V.input_error("MultiClassDiceLoss", logits, f"logits of shape {logits.shape} "
                                f"and labels of shape {label.shape} must match, rank >= 2")
        if self.activation is not None:
            logits = self.activation(logits)
        total: Tensor | float = 0.0
        for i in range(label.shape[1]):
            if i != self.ignore_indiex:
                dice = self.binarydiceloss(logits[:, i], label[:, i])
                if self.weights is not None:
                    dice = F.mul(dice, self.weights[i])
                total = F.add(dice, total)
        return F.div(total, float(label.shape[1]))


class CTCLoss(LossBase):
    """The CTC loss (ops.ctc_loss) of log_probs (T, N, C), or (T, C) with 1-D targets for a
    single sequence, for padded targets (N, S) and their lengths."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> None:
        super().__init__(reduction)
        if isinstance(blank, bool) or not isinstance(blank, int):
            raise TypeError(f"CTCLoss: blank must be an int, got {blank!r}")
        self.blank = blank
        self.zero_infinity = V.boolean(zero_infinity, "zero_infinity", "CTCLoss")

    def construct(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor, target_lengths: Tensor) -> Tensor:
        if log_probs.ndim == 2:
            if targets.ndim > 1:
                raise V.input_error("CTCLoss", targets, "with (T, C) log_probs the targets must "
                                    "be 1-D")
            loss, _ = F.ctc_loss(F.expand_dims(log_probs, -2), F.expand_dims(targets, 0),
                                 input_lengths, target_lengths, self.blank, self.reduction,
                                 self.zero_infinity)
            return F.squeeze(loss)
        loss, _ = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                             self.reduction, self.zero_infinity)
        return loss
