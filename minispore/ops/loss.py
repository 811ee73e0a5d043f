"""Losses: classification (cross_entropy, nll_loss, softmax_cross_entropy_with_logits,
binary cross-entropy, kl_div) and regression (mse, l1, smooth l1), reduced by `reduction`."""
import numpy as np

from ..runtime.dtype import is_float_np
from . import batching as B
from . import functional as F
from . import infer as I
from .activation import ROW_EXPS_SOURCE, log_softmax, shifted_by_max, short_last_axis, softmax_p
from .arguments import as_tensor, op_error
from .primitive import Aval, CpuKernel, OpShapeError, Primitive

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


def mse_loss(input, target, reduction="mean"):
    """(input - target)^2, reduced."""
    _check_reduction("mse_loss", reduction)
    diff = F.sub(input, target)
    return _reduce(F.mul(diff, diff), reduction)


def l1_loss(input, target, reduction="mean"):
    """|input - target|, reduced."""
    _check_reduction("l1_loss", reduction)
    return _reduce(F.abs(F.sub(input, target)), reduction)


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """0.5 d^2 / beta where d = |input - target| < beta, else d - 0.5 beta (MindSpore's default
    reduction here is 'none')."""
    _check_reduction("smooth_l1_loss", reduction)
    if beta <= 0:
        raise ValueError(f"ops.smooth_l1_loss: beta must be > 0, got {beta}")
    d = F.abs(F.sub(input, target))
    loss = F.where(F.less(d, beta), F.mul(F.mul(d, d), 0.5 / beta), F.sub(d, 0.5 * beta))
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(logits, label, weight=None, pos_weight=None,
                                     reduction="mean"):
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


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
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


def kl_div(logits, labels, reduction="mean", log_target=False):
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


# ***** softmax cross-entropy of class indices: the classifier head as one primitive *****
#
# Logits (N, C) and class indices (N,): one kernel forward, and a backward of
# (softmax - onehot) * scale. As log_softmax followed by nll_loss it took about ten ops each
# way, among them a gather and its scatter-add. Weights, label smoothing and other layouts
# take that composite path.

def _sparse_ce_infer(logits, labels, ignore_index, reduction):
    if len(logits.shape) != 2 or tuple(labels.shape) != tuple(logits.shape[:1]):
        raise OpShapeError(f"logits must be (N, C) and labels (N,), got {logits} and {labels}")
    I.require_float("logits", logits)
    I.require_int("labels", labels)
    return Aval(tuple(logits.shape[:1]) if reduction == "none" else (), logits.dtype)


def _label_error(n_classes, ignore_index):
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
            raise _label_error(n_classes, ignore_index)
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


# Graph mode's kernel: each row's max, sum of exps and loss in one pass (the numpy impl is
# about fifteen calls); it stops at the first label out of range, which the call reports.
_SPARSE_CE_SOURCE = """
@numba.njit(**KERNEL_FLAGS)
def kernel(logits, labels, ignore_index, ignoring, losses):
    n, c = logits.shape
    total = 0.0
    counted = 0
    for i in range(n):
        label = labels[i]
        if ignoring and label == ignore_index:
            losses[i] = 0
            continue
        if label < 0 or label >= c:
            return total, counted, i
        top = logits[i, 0]
        for j in range(1, c):
            top = _acc_max(top, logits[i, j])
        sum_exp = 0.0
        for j in range(c):
            sum_exp = _acc_sum(sum_exp, np.float64(exp(logits[i, j] - top)))
        loss = log(DTYPE(sum_exp)) - (logits[i, label] - top)
        losses[i] = loss
        total += loss
        counted += 1
    return total, counted, -1
"""


def _sparse_ce_kernel_call(kernel, logits, labels, ignore_index, reduction):
    n, c = logits.shape
    if n == 0 or c == 0:
        return NotImplemented
    losses = np.empty(n, logits.dtype)
    total, counted, bad = kernel(np.ascontiguousarray(logits), np.ascontiguousarray(labels),
                                 0 if ignore_index is None else ignore_index,
                                 ignore_index is not None, losses)
    if bad >= 0:
        raise _label_error(c, ignore_index)
    return _reduced_losses(losses, total, counted, reduction)


def _reduced_losses(losses, total, counted, reduction):
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
    grad[xp.arange(n), labels if counted is None else xp.where(counted, labels, 0)] -= 1
    # dout spread over the rows as the reduction gathered them
    if reduction == "none":
        scale = dout[:, None]
    elif reduction == "sum":
        scale = dout
    else:  # a mean over no counted label has gradient 0, as PyTorch's
        scale = dout / (max(n, 1) if counted is None else xp.maximum(counted.sum(), 1))
    grad = grad * scale
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


# Graph mode's kernel: each row's softmax minus the label's one, scaled, in one pass (the
# impl is about ten numpy calls); "mean" first counts the labels that count.
_SPARSE_CE_GRAD_SOURCE = ROW_EXPS_SOURCE + """

@numba.njit(**KERNEL_FLAGS)
def kernel(logits, labels, ignore_index, ignoring, douts, mean, grad):
    n, c = logits.shape
    share = 0.0
    if mean:  # douts holds one value, spread over the labels that count
        counted = n
        if ignoring:
            counted = 0
            for i in range(n):
                counted += labels[i] != ignore_index
        share = douts[0] / counted
    for i in range(n):
        label = labels[i]
        if ignoring and label == ignore_index:
            for j in range(c):
                grad[i, j] = 0
            continue
        scale = share if mean else douts[min(i, douts.shape[0] - 1)]
        total = row_exps(logits, i, grad)[1]
        ratio = scale / total
        for j in range(c):
            grad[i, j] = DTYPE(grad[i, j] * ratio)
        if 0 <= label < c:
            grad[i, label] -= DTYPE(scale)
"""


def _sparse_ce_grad_kernel_call(kernel, logits, labels, dout, ignore_index, reduction):
    n, c = logits.shape
    if n == 0 or c == 0:
        return NotImplemented
    grad = np.empty((n, c), logits.dtype)
    kernel(np.ascontiguousarray(logits), np.ascontiguousarray(labels),
           0 if ignore_index is None else ignore_index, ignore_index is not None,
           np.asarray(dout, np.float64).reshape(-1), reduction == "mean", grad)
    return grad


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
    kernel=CpuKernel(_SPARSE_CE_GRAD_SOURCE, _sparse_ce_grad_kernel_call),
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
    kernel=CpuKernel(_SPARSE_CE_SOURCE, _sparse_ce_kernel_call),
    doc="-log_softmax(logits)[n, labels[n]] of (N, C) logits, 0 where labels[n] == "
        "ignore_index; 'mean' divides the sum by the number of labels that count")


# ***** the loss and its gradient at once: a training step's classifier head *****
#
# A step computes the loss and, from the same logits, its gradient. Graph mode pairs the two
# rows (passes.pair_losses_with_gradients) into this one, whose kernel reads each row of
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


# Graph mode's kernel: both kernels above in one pass over each row
_SPARSE_CE_AND_GRAD_SOURCE = ROW_EXPS_SOURCE + """

@numba.njit(**KERNEL_FLAGS)
def kernel(logits, labels, ignore_index, ignoring, douts, mean, losses, grad):
    n, c = logits.shape
    counted = n
    if ignoring:
        counted = 0
        for i in range(n):
            counted += labels[i] != ignore_index
    share = douts[0] / counted if mean else 0.0
    total = 0.0
    for i in range(n):
        label = labels[i]
        if ignoring and label == ignore_index:
            losses[i] = 0
            for j in range(c):
                grad[i, j] = 0
            continue
        if label < 0 or label >= c:
            return total, counted, i
        top, sum_exp = row_exps(logits, i, grad)
        loss = log(DTYPE(sum_exp)) - (logits[i, label] - top)
        losses[i] = loss
        total += loss
        scale = share if mean else douts[min(i, douts.shape[0] - 1)]
        ratio = scale / sum_exp
        for j in range(c):
            grad[i, j] = DTYPE(grad[i, j] * ratio)
        grad[i, label] -= DTYPE(scale)
    return total, counted, -1
"""


def _sparse_ce_and_grad_kernel_call(kernel, logits, labels, dout, ignore_index, reduction):
    n, c = logits.shape
    if n == 0 or c == 0:
        return NotImplemented
    losses, grad = np.empty(n, logits.dtype), np.empty((n, c), logits.dtype)
    total, counted, bad = kernel(
        np.ascontiguousarray(logits), np.ascontiguousarray(labels),
        0 if ignore_index is None else ignore_index, ignore_index is not None,
        np.asarray(dout, np.float64).reshape(-1), reduction == "mean", losses, grad)
    if bad >= 0:
        raise _label_error(c, ignore_index)
    return _reduced_losses(losses, total, counted, reduction), grad


sparse_softmax_cross_entropy_and_grad = Primitive(
    "sparse_softmax_cross_entropy_and_grad", infer=_sparse_ce_and_grad_infer,
    impl=_sparse_ce_and_grad_impl, bprop=_sparse_ce_and_grad_bprop,
    batch=_sparse_ce_and_grad_batch, multiple_results=True,
    kernel=CpuKernel(_SPARSE_CE_AND_GRAD_SOURCE, _sparse_ce_and_grad_kernel_call),
    doc="(sparse_softmax_cross_entropy, sparse_softmax_cross_entropy_grad) of the same "
        "logits and labels, for the loss's cotangent dout")


def _check_class_indices(op, inputs, target, class_axis):
    expected = tuple(s for i, s in enumerate(inputs.shape) if i != class_axis)
    if tuple(target.shape) != expected or not target.dtype.is_int:
        raise op_error(op, (inputs, target),
                       f"target must be integer class indices of shape {expected}")


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean",
             label_smoothing=0.0):
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
        weights = F.mul(weights, F.gather(weight, safe_target, 0))
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


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
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


def softmax_cross_entropy_with_logits(logits, labels, sparse=False, reduction="none"):
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
