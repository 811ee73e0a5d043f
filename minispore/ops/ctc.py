"""CTC (Connectionist Temporal Classification) loss: the forward-backward (alpha / beta)
recursions of Graves et al. 2006 as primitives, in log space.

    ctc_loss        (T, N, C) log-probabilities, (N, S) targets and the lengths -> -log p (N,)
    ctc_loss_grad   its exact gradient for the per-sample cotangent dout: the posterior
                    occupancy of each (time, class), from alpha and beta (the beta recursion
                    runs only here)
    ctc_log_alpha   the alpha table (N, T, 2S + 1), which ops.ctc_loss also returns; a value to
                    inspect, with no gradient

The recursions loop over time in Python with every sample and label position at once; the
work per step is a few (N, 2S + 1) array operations, on numpy or CuPy alike. Graph mode runs
the same impls (a CTC step is not an elementwise chain to fuse).

The gradient is d(-log p)/d log_probs itself: -sum over the positions s labelled c of
exp(log_alpha + log_beta - log_probs + nll). PyTorch and MindSpore return exp(log_probs) plus
that, the gradient with respect to the logits before a log_softmax: after log_softmax's own
backward both give the same logits' gradient.
"""
from __future__ import annotations
import numpy as np

from . import batching as B
from . import functional as F
from . import infer as I
from .arguments import as_tensor, op_error
from .loss import _check_reduction
from .primitive import ALL, Aval, OpShapeError, OpTypeError, Primitive
from ..core.hints import Tensor, TensorLike

__all__ = ["ctc_loss"]

_NEG_INF = -np.inf


# ***** the recursions (xp: numpy or CuPy; float64 inside) *****

def _check(xp, log_probs, targets, input_lengths, target_lengths, blank):
    t_max, _, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise ValueError(f"blank={blank} must be in [0, {classes})")
    if xp is not np:  # a device check would copy to the host on every step
        return
    if input_lengths.size and not (input_lengths.min() >= 1 and input_lengths.max() <= t_max):
        raise ValueError(f"input_lengths must be in [1, {t_max}], got {input_lengths.tolist()}")
    if target_lengths.size and not (target_lengths.min() >= 0
                                    and (target_lengths <= targets.shape[1]).all()
                                    and (target_lengths <= input_lengths).all()):
        raise ValueError(f"target_lengths must be in [0, min(S={targets.shape[1]}, "
                         f"input_lengths)], got {target_lengths.tolist()}")
    if targets.size and not (targets.min() >= 0 and targets.max() < classes):
        raise ValueError(f"targets must be class indices in [0, {classes})")


def _logsumexp(xp, *terms):
    top = terms[0]
    for term in terms[1:]:
        top = xp.maximum(top, term)
    safe_top = xp.where(xp.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        total = xp.log(sum(xp.exp(term - safe_top) for term in terms))
    return total + safe_top


def _shifted(xp, a, by):
    """a (N, L) moved `by` positions along L (right for by > 0), -inf filling the gap."""
    width = a.shape[1]
    gap = min(abs(by), width)
    filler = xp.full((a.shape[0], gap), _NEG_INF)
    if by > 0:
        return xp.concatenate([filler, a[:, :width - gap]], axis=1)
    return xp.concatenate([a[:, gap:], filler], axis=1)


class _Lattice:
    """The extended label sequence (blank, l1, blank, l2, ..., blank) of every sample and the
    log-probabilities along it."""

    def __init__(self, xp, log_probs, targets, input_lengths, target_lengths, blank):
        _check(xp, log_probs, targets, input_lengths, target_lengths, blank)
        n, s = targets.shape
        self.xp, self.blank = xp, blank
        self.labels = xp.full((n, 2 * s + 1), blank, dtype=np.int64)
        self.labels[:, 1::2] = targets
        self.lp = log_probs.astype(np.float64)
        # (T, N, L): the log-probability of each lattice position's label at each time
        index = xp.broadcast_to(self.labels[None], (self.lp.shape[0],) + self.labels.shape)
        self.emit = xp.take_along_axis(self.lp, index, axis=2)
        positions = xp.arange(2 * s + 1)[None]
        self.inside = positions < 2 * target_lengths[:, None].astype(np.int64) + 1
        # a label may be reached from two positions back: not a blank, not a repeat
        self.skip = xp.zeros(self.labels.shape, dtype=bool)
        self.skip[:, 2:] = (self.labels[:, 2:] != blank) & (self.labels[:, 2:] != self.labels[:, :-2])
        self.input_lengths = input_lengths.astype(np.int64)
        self.last = 2 * target_lengths.astype(np.int64)  # the final blank's position

    def alpha(self):
        xp, emit = self.xp, self.emit
        t_max = emit.shape[0]
        alpha = xp.full(emit.shape, _NEG_INF)
        first = xp.full(emit.shape[1:], _NEG_INF)
        first[:, 0] = emit[0, :, 0]
        if first.shape[1] > 1:
            first[:, 1] = xp.where(self.last > 0, emit[0, :, 1], _NEG_INF)
        alpha[0] = xp.where(self.inside, first, _NEG_INF)
        for t in range(1, t_max):
            prev = alpha[t - 1]
            two_back = xp.where(self.skip, _shifted(xp, prev, 2), _NEG_INF)
            step = _logsumexp(xp, prev, _shifted(xp, prev, 1), two_back) + emit[t]
            alpha[t] = xp.where(self.inside & (t < self.input_lengths)[:, None], step, _NEG_INF)
        return alpha

    def beta(self):
        xp, emit = self.xp, self.emit
        t_max, n, width = emit.shape
        beta = xp.full(emit.shape, _NEG_INF)
        rows = xp.arange(n)
        # position s + 2 may be reached from s when it may skip back to s
        skip_ahead = _shifted(xp, xp.where(self.skip, 0.0, _NEG_INF), -2)
        for t in range(t_max - 1, -1, -1):
            nxt = beta[t + 1] if t + 1 < t_max else xp.full((n, width), _NEG_INF)
            step = _logsumexp(xp, nxt, _shifted(xp, nxt, -1),
                              _shifted(xp, nxt, -2) + skip_ahead) + emit[t]
            start = xp.full((n, width), _NEG_INF)
            start[rows, self.last] = emit[t, rows, self.last]
            before_last = xp.maximum(self.last - 1, 0)
            start[rows, before_last] = xp.where(self.last > 0, emit[t, rows, before_last],
                                                start[rows, before_last])
            ends_here = (t == self.input_lengths - 1)[:, None]
            running = (t < self.input_lengths - 1)[:, None]
            beta[t] = xp.where(self.inside, xp.where(ends_here, start,
                                                     xp.where(running, step, _NEG_INF)), _NEG_INF)
        return beta

    def nll(self, alpha):
        xp = self.xp
        rows = xp.arange(alpha.shape[1])
        final = alpha[self.input_lengths - 1, rows]
        end = final[rows, self.last]
        before = xp.where(self.last > 0, final[rows, xp.maximum(self.last - 1, 0)], _NEG_INF)
        return -_logsumexp(xp, end, before)


def _zeroed(xp, nll, zero_infinity):
    infinite = xp.isinf(nll)
    return (xp.where(infinite, 0.0, nll) if zero_infinity else nll), infinite


# ***** ctc_loss: -log p per sample *****

def _ctc_infer(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    if len(log_probs.shape) != 3:
        raise OpShapeError(f"log_probs must be (T, N, C), got {log_probs}")
    _, n, classes = log_probs.shape
    if len(targets.shape) != 2 or targets.shape[0] != n:
        raise OpShapeError(f"targets must be ({n}, S), got {targets}")
    for name, lengths in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if tuple(lengths.shape) != (n,):
            raise OpShapeError(f"{name} must have shape ({n},), got {lengths}")
        I.require_int(name, lengths)
    I.require_float("log_probs", log_probs)
    I.require_int("targets", targets)
    if not 0 <= blank < classes:
        raise OpShapeError(f"blank={blank} must be in [0, {classes})")
    return Aval((n,), log_probs.dtype)


def _ctc_impl(xp, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    lattice = _Lattice(xp, log_probs, targets, input_lengths, target_lengths, blank)
    nll, _ = _zeroed(xp, lattice.nll(lattice.alpha()), zero_infinity)
    return nll.astype(log_probs.dtype)


def _ctc_bprop(log_probs, targets, input_lengths, target_lengths, out, dout, blank,
               zero_infinity):
    grad = ctc_loss_grad(log_probs, targets, input_lengths, target_lengths, dout, blank=blank,
                         zero_infinity=zero_infinity)
    return grad, None, None, None


def _lanes_into_batch(args, dims, axis_size):
    """The lanes of a vmap joined to the batch axis N: log_probs (T, L * N, C), the others
    (L * N, ...)."""
    log_probs, *rest = (B.batched_front(a, d, axis_size) for a, d in zip(args, dims))
    lanes, t_max, n, classes = log_probs.shape
    log_probs = F.reshape(F.transpose(log_probs, (1, 0, 2, 3)), (t_max, lanes * n, classes))
    rest = [F.reshape(a, (lanes * n,) + tuple(a.shape[2:])) for a in rest]
    return (log_probs, *rest), (lanes, t_max, n, classes)


def _ctc_batch(prim, args, dims, axis_size, blank, zero_infinity):
    joined, (lanes, _, n, _) = _lanes_into_batch(args, dims, axis_size)
    return F.reshape(prim(*joined, blank=blank, zero_infinity=zero_infinity), (lanes, n)), 0


ctc_loss_p = Primitive(
    "ctc_loss", infer=_ctc_infer, impl=_ctc_impl, bprop=_ctc_bprop, batch=_ctc_batch,
    doc="-log p(targets | log_probs) per sample by the CTC forward recursion (0 for an "
        "impossible alignment when zero_infinity)")


# ***** its gradient *****

def _ctc_grad_infer(log_probs, targets, input_lengths, target_lengths, dout, blank,
                    zero_infinity):
    _ctc_infer(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)
    if tuple(dout.shape) != (log_probs.shape[1],):
        raise OpShapeError(f"dout must have shape ({log_probs.shape[1]},), got {dout}")
    return Aval(tuple(log_probs.shape), log_probs.dtype)


def _ctc_grad_impl(xp, log_probs, targets, input_lengths, target_lengths, dout, blank,
                   zero_infinity):
    lattice = _Lattice(xp, log_probs, targets, input_lengths, target_lengths, blank)
    alpha, beta = lattice.alpha(), lattice.beta()
    nll, infinite = _zeroed(xp, lattice.nll(alpha), False)
    # the posterior probability of each lattice position at each time (T, N, L)
    # a label of log-probability -inf lies on no path: its occupancy is 0, not -inf - -inf
    with np.errstate(invalid="ignore"):
        log_occupancy = alpha + beta - lattice.emit + xp.where(infinite, 0.0, nll)[None, :, None]
    occupancy = xp.exp(xp.where(xp.isfinite(lattice.emit), log_occupancy, _NEG_INF))
    classes = log_probs.shape[2]
    one_hot = (lattice.labels[:, :, None] == xp.arange(classes)[None, None]).astype(np.float64)
    grad = -xp.einsum("tns,nsc->tnc", occupancy, one_hot)
    scale = dout.astype(np.float64)
    if zero_infinity:
        scale = xp.where(infinite, 0.0, scale)
    else:  # no alignment: the loss is inf, its gradient undefined
        grad = xp.where(infinite[None, :, None], xp.nan, grad)
    return (grad * scale[None, :, None]).astype(log_probs.dtype)


def _ctc_grad_bprop(log_probs, targets, input_lengths, target_lengths, dout, out, g, blank,
                    zero_infinity, *, needed=ALL):
    if needed[0]:
        raise OpTypeError("ops.ctc_loss: second-order gradients with respect to log_probs are "
                          "not supported")
    per_sample = ctc_loss_grad(log_probs, targets, input_lengths, target_lengths,
                               F.ones_like(dout), blank=blank, zero_infinity=zero_infinity)
    return None, None, None, None, F.sum(F.mul(g, per_sample), (0, 2))


def _ctc_grad_batch(prim, args, dims, axis_size, blank, zero_infinity):
    joined, (lanes, t_max, n, classes) = _lanes_into_batch(args, dims, axis_size)
    grad = prim(*joined, blank=blank, zero_infinity=zero_infinity)
    return F.reshape(grad, (t_max, lanes, n, classes)), 1


ctc_loss_grad = Primitive(
    "ctc_loss_grad", infer=_ctc_grad_infer, impl=_ctc_grad_impl, bprop=_ctc_grad_bprop,
    batch=_ctc_grad_batch,
    doc="d ctc_loss / d log_probs for the per-sample cotangent dout, from the alpha and beta "
        "recursions (first order only)")


# ***** the alpha table, returned for inspection *****

def _alpha_infer(log_probs, targets, input_lengths, target_lengths, blank):
    _ctc_infer(log_probs, targets, input_lengths, target_lengths, blank, False)
    return Aval((log_probs.shape[1], log_probs.shape[0], 2 * targets.shape[1] + 1),
                log_probs.dtype)


def _alpha_impl(xp, log_probs, targets, input_lengths, target_lengths, blank):
    lattice = _Lattice(xp, log_probs, targets, input_lengths, target_lengths, blank)
    return xp.transpose(lattice.alpha(), (1, 0, 2)).astype(log_probs.dtype)


def _alpha_batch(prim, args, dims, axis_size, blank):
    joined, (lanes, _, n, _) = _lanes_into_batch(args, dims, axis_size)
    alpha = prim(*joined, blank=blank)
    return F.reshape(alpha, (lanes, n) + tuple(alpha.shape[1:])), 0


ctc_log_alpha = Primitive(
    "ctc_log_alpha", infer=_alpha_infer, impl=_alpha_impl, batch=_alpha_batch,
    bprop=lambda lp, tg, il, tl, out, dout, blank: (None,) * 4,  # a table to inspect
    doc="log alpha (N, T, 2S + 1) of the CTC forward recursion (-inf where unreachable)")


# ***** the function *****

def _lengths(op, value, n, log_probs):
    lengths = as_tensor(value if not isinstance(value, (tuple, list)) else
                        np.asarray(value, np.int64))
    if not lengths.dtype.is_int:
        raise op_error(op, (log_probs, lengths), "lengths must be integers", OpTypeError)
    return F.broadcast_to(lengths, (n,)) if lengths.ndim == 0 else lengths


def ctc_loss(log_probs: TensorLike, targets: TensorLike, input_lengths: TensorLike, target_lengths: TensorLike, blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> tuple[Tensor, ...]:
    """The CTC loss of (T, N, C) log-probabilities (C classes, `blank` among them) for the
    (N, S) padded `targets`, sample n using the first input_lengths[n] times and the first
    target_lengths[n] labels. Returns (neg_log_likelihood, log_alpha): the loss, reduced by
    `reduction` ('mean' divides each sample's loss by its target length, clipped at 1, then
    averages over the batch, as MindSpore and PyTorch do), and the (N, T, 2S + 1) alpha
    table (no gradient). zero_infinity=True makes the loss and gradient of an impossible
    alignment 0.

        >>> lp = ops.log_softmax(ms.Tensor(np.zeros((3, 1, 2), np.float32)), 2)
        >>> loss, _ = ops.ctc_loss(lp, ms.Tensor([[1]]), (3,), (1,), reduction="none")
        >>> round(float(loss[0]), 4)    # -log(3 paths / 8)
        0.9808
    """
    _check_reduction("ctc_loss", reduction)
    log_probs, targets = as_tensor(log_probs), as_tensor(targets)
    if log_probs.ndim != 3:
        raise op_error("ctc_loss", (log_probs,), "log_probs must be (T, N, C)")
    n = log_probs.shape[1]
    input_lengths = _lengths("ctc_loss", input_lengths, n, log_probs)
    target_lengths = _lengths("ctc_loss", target_lengths, n, log_probs)
    loss = ctc_loss_p(log_probs, targets, input_lengths, target_lengths, blank=int(blank),
                      zero_infinity=bool(zero_infinity))
    log_alpha = ctc_log_alpha(log_probs, targets, input_lengths, target_lengths, blank=int(blank))
    if reduction == "sum":
        loss = F.sum(loss)
    elif reduction == "mean":
        divisor = F.maximum(F.cast(target_lengths, loss.dtype), 1.0)
        loss = F.mean(F.div(loss, divisor))
    return loss, log_alpha
