"""Softmax cross-entropy of class indices, the classifier head, as three primitives: the loss,
its gradient, and both at once (what a training step computes from the same logits).

Logits (N, C) and class indices (N,): one kernel forward in Graph mode (compiler.codegen's
CPU kernel table), and a backward of (softmax - onehot) * scale. As log_softmax followed by
nll_loss it took about ten ops each way, among them a gather and its scatter-add. Weights,
label smoothing and other layouts take that composite path (ops.loss).
"""
import numpy as np

from ..core.dtype import is_float_np
from . import batching as B
from . import functional as F
from . import infer as I
from .activation import shifted_by_max, short_last_axis, softmax_p
from .primitive import Aval, OpShapeError, Primitive

__all__ = ["sparse_softmax_cross_entropy", "sparse_softmax_cross_entropy_grad",
           "sparse_softmax_cross_entropy_and_grad"]


def _sparse_ce_infer(logits, labels, ignore_index, reduction):
    if len(logits.shape) != 2 or tuple(labels.shape) != tuple(logits.shape[:1]):
        raise OpShapeError(f"logits must be (N, C) and labels (N,), got {logits} and {labels}")
    I.require_float("logits", logits)
    I.require_int("labels", labels)
    return Aval(tuple(logits.shape[:1]) if reduction == "none" else (), logits.dtype)


def label_error(n_classes, ignore_index):
    return ValueError(f"labels must be class indices in [0, {n_classes})"
                      + ("" if ignore_index is None else f" or ignore_index={ignore_index}"))


def _class_indices(xp, labels, counted, n_classes, ignore_index):
    """(indices into the classes, mask of the labels out of range or None). Ignored labels
    index class 0. Host labels are checked: a clear error. Checking device labels would copy
    them to the host every step, so there a label out of range gets a nan loss instead."""
    classes = labels if counted is None else xp.where(counted, labels, 0)
    if xp is np:
        # numpy's index would wrap a negative label around; a large one fails less clearly
        if classes.size and not (0 <= classes.min() and classes.max() < n_classes):
            raise label_error(n_classes, ignore_index)
        return classes, None
    outside = (classes < 0) | (classes >= n_classes)
    return xp.where(outside, 0, classes), outside


def _sparse_ce_impl(xp, logits, labels, ignore_index, reduction):
    if not is_float_np(logits.dtype) or labels.dtype.kind not in "iu":  # as infer says
        raise TypeError("logits must be a float tensor and labels an integer tensor")
    n, c = logits.shape
    counted = None if ignore_index is None else labels != ignore_index
    if xp is np and counted is not None and counted.all():
        counted = None  # nothing to ignore: three masking steps fewer (a host read on numpy)
    classes, outside = _class_indices(xp, labels, counted, c, ignore_index)
    # classes first, (C, N): a contiguous copy where numpy reduces that axis faster so
    by_class = np.ascontiguousarray(logits.T) if short_last_axis(xp, logits, (1,)) else logits.T
    shifted = shifted_by_max(by_class, 0)
    # -log_softmax at the label: log(sum(exp(shifted))) - shifted[label]
    loss = xp.log(xp.exp(shifted).sum(axis=0)) - shifted[classes, xp.arange(n)]
    if outside is not None:
        loss = xp.where(outside, xp.nan, loss)
    if counted is not None:
        loss = xp.where(counted, loss, 0)
    if reduction == "none":
        return loss
    total = loss.sum()
    if reduction == "sum":
        return total
    with np.errstate(invalid="ignore"):  # no label counts: the mean is nan (PyTorch's too)
        return total / (n if counted is None else counted.sum().astype(logits.dtype))


def reduced_losses(losses, total, counted, reduction):
    """A kernel's per-row losses, their total and count, as `reduction` asks."""
    if reduction == "none":
        return losses
    if reduction == "mean":
        total = total / counted if counted else np.nan
    return np.asarray(total, losses.dtype)


def _sparse_ce_bprop(logits, labels, out, dout, ignore_index, reduction):
    return sparse_softmax_cross_entropy_grad(logits, labels, dout, ignore_index=ignore_index,
                                             reduction=reduction), None


# ***** its gradient: (softmax - onehot) * scale, one primitive (one kernel in Graph mode) *****

def _sparse_ce_grad_infer(logits, labels, dout, ignore_index, reduction):
    _sparse_ce_infer(logits, labels, ignore_index, reduction)
    return Aval(tuple(logits.shape), logits.dtype)


def _sparse_ce_grad_impl(xp, logits, labels, dout, ignore_index, reduction):
    n, c = logits.shape
    grad = softmax_p.impl(xp, logits, (1,))
    counted = None if ignore_index is None else labels != ignore_index
    # labels are checked as the loss checks them (the loss itself may not run: grad only)
    classes, outside = _class_indices(xp, labels, counted, c, ignore_index)
    grad[xp.arange(n), classes] -= 1
    if outside is not None:
        grad = xp.where(outside[:, None], xp.nan, grad)
    # dout spread over the rows as the reduction gathered them
    if reduction == "none":
        scale = dout[:, None]
    elif reduction == "sum":
        scale = dout
    else:  # a mean over no counted label has gradient 0, as PyTorch's
        scale = dout / (max(n, 1) if counted is None else xp.maximum(counted.sum(), 1))
    grad *= scale  # in place (the rounding of grad * scale cast back): no second 8 MB array
    if counted is not None:  # an ignored row is 0 even where its logits or scale are not finite
        grad = xp.where(counted[:, None], grad, 0)
    return grad.astype(logits.dtype, copy=False)


def _sparse_ce_grad_bprop(logits, labels, dout, out, g, ignore_index, reduction):
    # out = (p - onehot) * mask * scale with p = softmax(logits): the logits' gradient is
    # softmax's rule applied to g * mask * scale, dout's is g contracted with out / dout
    n, c = logits.shape
    p = softmax_p(logits, axis=(1,))
    label_column = F.expand_dims(labels, 1)
    unscaled = F.sub(p, F.cast(F.equal(label_column, F.arange(c, dtype=labels.dtype)), p.dtype))
    if ignore_index is not None:
        counted = F.cast(F.not_equal(label_column, ignore_index), p.dtype)
        unscaled = F.mul(unscaled, counted)
    if reduction == "none":
        per_dout, ddout = F.expand_dims(dout, 1), F.sum(F.mul(g, unscaled), 1)
    else:
        ddout = F.sum(F.mul(g, unscaled))
        per_dout = dout
        if reduction == "mean":
            inverse_count = F.div(1.0, float(n) if ignore_index is None else F.sum(counted))
            ddout, per_dout = F.mul(ddout, inverse_count), F.mul(dout, inverse_count)
    h = F.mul(g, per_dout)
    if ignore_index is not None:
        h = F.mul(h, counted)
    dlogits = F.mul(p, F.sub(h, F.sum(F.mul(h, p), 1, True)))
    return dlogits, None, ddout


def _sparse_ce_grad_batch(prim, args, dims, axis_size, ignore_index, reduction):
    # the lanes join the samples, each row scaled by its own lane's share of dout
    logits, labels, dout = (B.batched_front(a, d, axis_size) for a, d in zip(args, dims))
    lanes, n, c = logits.shape
    if reduction != "none":
        if reduction == "mean":
            dout = F.div(dout, float(n) if ignore_index is None else
                         F.sum(F.cast(F.not_equal(labels, ignore_index), dout.dtype), 1))
        dout = F.broadcast_to(F.expand_dims(dout, 1), (lanes, n))
    grad = prim(F.reshape(logits, (lanes * n, c)), F.reshape(labels, (lanes * n,)),
                F.reshape(dout, (lanes * n,)), ignore_index=ignore_index, reduction="none")
    return F.reshape(grad, (lanes, n, c)), 0


sparse_softmax_cross_entropy_grad = Primitive(
    "sparse_softmax_cross_entropy_grad", infer=_sparse_ce_grad_infer, impl=_sparse_ce_grad_impl,
    bprop=_sparse_ce_grad_bprop, batch=_sparse_ce_grad_batch,
    doc="the logits' gradient of sparse_softmax_cross_entropy for the output cotangent dout")


def _sparse_ce_batch(prim, args, dims, axis_size, ignore_index, reduction):
    # the lanes join the batch of samples; each lane then reduces its own samples
    logits, labels = (B.batched_front(a, d, axis_size) for a, d in zip(args, dims))
    lanes, n, c = logits.shape
    loss = prim(F.reshape(logits, (lanes * n, c)), F.reshape(labels, (lanes * n,)),
                ignore_index=ignore_index, reduction="none")
    loss = F.reshape(loss, (lanes, n))
    if reduction == "none":
        return loss, 0
    total = F.sum(loss, 1)
    if reduction == "sum":
        return total, 0
    if ignore_index is None:
        return F.div(total, float(n)), 0
    return F.div(total, F.sum(F.cast(F.not_equal(labels, ignore_index), total.dtype), 1)), 0


sparse_softmax_cross_entropy = Primitive(
    "sparse_softmax_cross_entropy", infer=_sparse_ce_infer, impl=_sparse_ce_impl,
    bprop=_sparse_ce_bprop, batch=_sparse_ce_batch,
    doc="-log_softmax(logits)[n, labels[n]] of (N, C) logits, 0 where labels[n] == "
        "ignore_index; 'mean' divides the sum by the number of labels that count")


# ***** the loss and its gradient at once: a training step's classifier head *****
#
# A step computes the loss and, from the same logits, its gradient. Graph mode pairs the two
# rows into this one (the row declares the pair: see compiler.passes.fuse_joint_rows), whose kernel reads each row of
# logits once for both (TensorFlow's SparseSoftmaxCrossEntropyWithLogits returns both too).

def _sparse_ce_and_grad_infer(logits, labels, dout, ignore_index, reduction):
    return (_sparse_ce_infer(logits, labels, ignore_index, reduction),
            _sparse_ce_grad_infer(logits, labels, dout, ignore_index, reduction))


def _sparse_ce_and_grad_impl(xp, logits, labels, dout, ignore_index, reduction):
    return (_sparse_ce_impl(xp, logits, labels, ignore_index, reduction),
            _sparse_ce_grad_impl(xp, logits, labels, dout, ignore_index, reduction))


def _sparse_ce_and_grad_bprop(logits, labels, dout, out, douts, ignore_index, reduction):
    d_loss, d_grad = douts
    dlogits, _, ddout = _sparse_ce_grad_bprop(logits, labels, dout, out[1], d_grad,
                                              ignore_index=ignore_index, reduction=reduction)
    from_loss = sparse_softmax_cross_entropy_grad(logits, labels, d_loss,
                                                  ignore_index=ignore_index, reduction=reduction)
    return F.add(dlogits, from_loss), None, ddout


def _sparse_ce_and_grad_batch(prim, args, dims, axis_size, ignore_index, reduction):
    loss, loss_dim = _sparse_ce_batch(sparse_softmax_cross_entropy, args[:2], dims[:2],
                                      axis_size, ignore_index, reduction)
    grad, grad_dim = _sparse_ce_grad_batch(sparse_softmax_cross_entropy_grad, args, dims,
                                           axis_size, ignore_index, reduction)
    return (loss, grad), (loss_dim, grad_dim)


sparse_softmax_cross_entropy_and_grad = Primitive(
    "sparse_softmax_cross_entropy_and_grad", infer=_sparse_ce_and_grad_infer,
    impl=_sparse_ce_and_grad_impl, bprop=_sparse_ce_and_grad_bprop,
    batch=_sparse_ce_and_grad_batch, multiple_results=True,
    doc="(sparse_softmax_cross_entropy, sparse_softmax_cross_entropy_grad) of the same "
        "logits and labels, for the loss's cotangent dout")
