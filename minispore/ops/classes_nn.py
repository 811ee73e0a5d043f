"""MindSpore's Primitive classes of the normalisation, channel-dropout and loss families
(`ops.LRN()(x)`, `ops.CTCLossV2(blank=0)(log_probs, targets, input_lengths, target_lengths)`),
each a front for the `ops` function holding the formula.

    >>> ops.SoftMarginLoss()(ms.Tensor([[0.3, 0.7]]), ms.Tensor([[-1.0, 1.0]])).shape
    ()
"""
from typing import Any, Callable

import numpy as np

from ..core.tensor import Tensor, host_value
from . import functional as F
from .classes_ext import _configured_class
from .ctc import ctc_loss_grad, ctc_loss_p


def _channel_dropout_and_mask(dropout, keep_prob, x):
    """(x with whole channels dropped, the bool keep-mask), as Dropout2D/3D return them."""
    scaled = dropout(F.ones_like(x), 1.0 - keep_prob)
    return F.mul(x, scaled), F.greater(scaled, 0)


def _nll_and_total_weight(self, logits, labels, weight):
    """NLLLoss's (loss, total_weight): the weights of the labels that count, summed."""
    counted = F.cast(F.not_equal(labels, self.ignore_index), weight.dtype)
    safe = F.where(F.not_equal(labels, self.ignore_index), labels, F.zeros_like(labels))
    total_weight = F.sum(F.mul(F.gather(weight, safe, 0), counted))
    return (F.nll_loss(logits, labels, weight, self.ignore_index, self.reduction),
            total_weight)


def _ctc_loss(self, x, labels_indices, labels_values, sequence_length):
    """MindSpore's (TensorFlow's) CTCLoss: (loss, gradient) of the (T, N, C) logits for sparse
    labels (labels_indices rows (sample, position), labels_values the labels), the blank the
    last class. The gradient is in the logits: log_softmax's backward of ctc_loss_grad."""
    if self.preprocess_collapse_repeated or not self.ctc_merge_repeated:
        raise ValueError("ops.CTCLoss: only preprocess_collapse_repeated=False with "
                         "ctc_merge_repeated=True is supported")
    steps, batch, classes = x.shape
    samples = F.reshape(F.slice_axis(labels_indices, 1, 0, 1), (-1,))
    targets = F.scatter_nd(labels_indices, F.cast(labels_values, np.int64), (batch, steps))
    target_lengths = F.unsorted_segment_sum(F.ones(samples.shape, np.int64), samples, batch)
    log_probs = F.log_softmax(x, -1)
    lengths = F.cast(sequence_length, np.int64)
    kept = F.less_equal(target_lengths, lengths)
    if self.ignore_longer_outputs_than_inputs:  # ctc_loss checks the lengths: clip, then mask
        target_lengths = F.minimum(target_lengths, lengths)
    args = (log_probs, targets, lengths, target_lengths)
    loss = ctc_loss_p(*args, blank=classes - 1, zero_infinity=False)
    grad = ctc_loss_grad(*args, F.ones((batch,), x.dtype), blank=classes - 1,
                         zero_infinity=False)
    grad = F.sub(grad, F.mul(F.exp(log_probs), F.sum(grad, -1, True)))
    if self.ignore_longer_outputs_than_inputs:
        loss = F.where(kept, loss, F.zeros_like(loss))
        grad = F.where(F.reshape(kept, (1, batch, 1)), grad, F.zeros_like(grad))
    return loss, grad


def _ctc_greedy_decoder(self, inputs, sequence_length):
    """Best class per step (blank: the last), blanks dropped and, with merge_repeated, runs
    merged: (decoded_indices, decoded_values, decoded_shape, log_probability) with the
    decoding as a sparse (batch, position) tensor; log_probability = -sum of each step's
    largest logit. The sparse part's size depends on the values: read on the host."""
    steps, batch, classes = inputs.shape
    counted = F.less(Tensor(np.arange(steps).reshape(steps, 1)),
                     F.reshape(F.cast(sequence_length, np.int64), (1, batch)))
    best_logits = F.where(counted, F.amax(inputs, -1), F.zeros((), inputs.dtype))
    log_probability = F.reshape(F.neg(F.sum(best_logits, 0)), (batch, 1))
    best = np.asarray(host_value(F.argmax(inputs, -1), "ops.CTCGreedyDecoder: the decoding"))
    lengths = np.asarray(host_value(sequence_length, "ops.CTCGreedyDecoder: sequence_length")
                         if isinstance(sequence_length, Tensor) else sequence_length)
    indices, values, widest = [], [], 0
    for b in range(batch):
        previous, labels = -1, []
        for t in range(int(lengths[b])):
            label = int(best[t, b])
            if label != classes - 1 and not (self.merge_repeated and label == previous):
                labels.append(label)
            previous = label
        indices += [(b, k) for k in range(len(labels))]
        values += labels
        widest = max(widest, len(labels))
    return (Tensor(np.array(indices, np.int64).reshape(-1, 2)), Tensor(np.array(values, np.int64)),
            Tensor(np.array([batch, widest], np.int64)), log_probability)


CONFIGURED: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {
    "CTCGreedyDecoder": ({"merge_repeated": True}, _ctc_greedy_decoder),
    "CTCLoss": ({"preprocess_collapse_repeated": False, "ctc_merge_repeated": True,
                 "ignore_longer_outputs_than_inputs": False}, _ctc_loss),
    "LRN": ({"depth_radius": 5, "bias": 1.0, "alpha": 1.0, "beta": 0.5,
             "norm_region": "ACROSS_CHANNELS"},
            lambda self, x: F.lrn(x, self.depth_radius, self.bias, self.alpha, self.beta,
                                  self.norm_region)),
    "Dropout2D": ({"keep_prob": 0.5},
                  lambda self, x: _channel_dropout_and_mask(F.dropout2d, self.keep_prob, x)),
    "Dropout3D": ({"keep_prob": 0.5},
                  lambda self, x: _channel_dropout_and_mask(F.dropout3d, self.keep_prob, x)),
    "SoftMarginLoss": ({"reduction": "mean"},
                       lambda self, x, y: F.soft_margin_loss(x, y, self.reduction)),
    "KLDivLoss": ({"reduction": "mean"}, lambda self, x, y: F.kl_div(x, y, self.reduction)),
    "SmoothL1Loss": ({"beta": 1.0, "reduction": "none"},
                     lambda self, x, y: F.smooth_l1_loss(x, y, self.beta, self.reduction)),
    "BCEWithLogitsLoss": ({"reduction": "mean"},
                          lambda self, x, y, weight, pos_weight:
                          F.binary_cross_entropy_with_logits(x, y, weight, pos_weight,
                                                             self.reduction)),
    "NLLLoss": ({"reduction": "mean", "ignore_index": -100}, _nll_and_total_weight),
    "MultiMarginLoss": ({"p": 1, "margin": 1.0, "reduction": "mean"},
                        lambda self, x, target, weight=None: F.multi_margin_loss(
                            x, target, self.p, self.margin, weight, self.reduction)),
    "TripletMarginLoss": ({"p": 2, "swap": False, "eps": 1e-06, "reduction": "mean"},
                          lambda self, x, positive, negative, margin: F.triplet_margin_loss(
                              x, positive, negative, margin, self.p, self.eps, self.swap,
                              self.reduction)),
    "CTCLossV2": ({"blank": 0, "reduction": "none", "zero_infinity": False},
                  lambda self, log_probs, targets, input_lengths, target_lengths: F.ctc_loss(
                      log_probs, targets, input_lengths, target_lengths, self.blank,
                      self.reduction, self.zero_infinity)),
}

__all__ = sorted(CONFIGURED)
for _name, (_defaults, _call) in CONFIGURED.items():
    globals()[_name] = _configured_class(_name, _defaults, _call)
