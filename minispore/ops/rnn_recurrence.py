"""The Elman RNN and GRU recurrences over a whole sequence as one primitive, and their
gradient as another: ops.recurrence's design (see there) for the single-state cells.

    rnn_recurrence(gi (T, B, G * H), h0 (B, H), w_hh (G * H, H), b_ih (G * H,), b_hh (G * H,),
                   lengths (B,) int, mode, reverse=False)
        -> out (T, B, H), h_n (B, H), and the reserve the gradient reads: gates (T, K, B, H)
           and h_prev (T, B, H), the state each step started from.

gi = x @ W_ih^T for every time step (one GEMM, before); per step, with hh = h @ W_hh^T + b_hh:

    mode RNN_TANH / RNN_RELU (G = 1, K = 1):  h = act(gi[t] + b_ih + hh); gates: h
    mode GRU (G = 3, chunks r, z, n; K = 4):   r = sigmoid(gi_r + b_ir + hh_r),
        z = sigmoid(gi_z + b_iz + hh_z), n = tanh(gi_n + b_in + r * hh_n),
        h = n + z * (h_prev - n); gates: r, z, n, hh_n

Masking by `lengths` and `reverse` are lstm_recurrence's. The gradient primitive returns the
gradients of the input side's pre-activations (gi + b_ih) and of the hidden side's (hh, which
differ from them in GRU's n chunk); W_hh's gradient is one GEMM over all steps in the bprop.
"""
from __future__ import annotations
import numpy as np

from . import functional as F
from . import infer as I
from .primitive import ALL, Aval, OpShapeError, OpTypeError, Primitive
from .recurrence import add_product, all_alive, lanes_rule, product_into, time_order

__all__: list[str] = []  # primitives for nn.RNN and nn.GRU; no public function

MODES = ("RNN_TANH", "RNN_RELU", "GRU")


def widths(mode: str) -> tuple[int, int]:
    """(gate chunks G of gi, reserve gates K) of a mode."""
    return (3, 4) if mode == "GRU" else (1, 1)


def sigmoid(xp, x):
    """The logistic function without overflow (exp(-x) overflows for x < -88 in float32)."""
    return 0.5 * xp.tanh(0.5 * x) + 0.5


# ***** the forward recurrence *****

def _rnn_infer(gi, h0, w_hh, b_ih, b_hh, lengths, mode="RNN_TANH", reverse=False):
    if mode not in MODES:
        raise OpShapeError(f"mode must be one of {MODES}, got {mode!r}")
    chunks, kept = widths(mode)
    if len(gi.shape) != 3 or gi.shape[2] % chunks:
        raise OpShapeError(f"gi must be (T, B, {chunks} * hidden), got {gi}")
    steps, batch, width = gi.shape
    hidden = width // chunks
    for name, aval, shape in (("h0", h0, (batch, hidden)), ("w_hh", w_hh, (width, hidden)),
                              ("b_ih", b_ih, (width,)), ("b_hh", b_hh, (width,)),
                              ("lengths", lengths, (batch,))):
        if tuple(aval.shape) != shape:
            raise OpShapeError(f"{name} must have shape {shape} (gi is {gi.shape}), got {aval}")
    I.require_float("gi", gi)
    I.require_int("lengths", lengths)
    for name, aval in (("h0", h0), ("w_hh", w_hh), ("b_ih", b_ih), ("b_hh", b_hh)):
        if aval.dtype != gi.dtype:
            raise OpTypeError(f"{name} must have gi's dtype {gi.dtype}, got {aval}")
    sequence = Aval((steps, batch, hidden), gi.dtype)
    return sequence, Aval((batch, hidden), gi.dtype), \
        Aval((steps, kept, batch, hidden), gi.dtype), sequence


def _rnn_impl(xp, gi, h0, w_hh, b_ih, b_hh, lengths, mode="RNN_TANH", reverse=False):
    steps, batch, _ = gi.shape
    hidden = h0.shape[1]
    out = xp.empty((steps, batch, hidden), gi.dtype)
    gates = xp.empty((steps, widths(mode)[1], batch, hidden), gi.dtype)
    h_prev = xp.empty_like(out)
    masked = not all_alive(xp, lengths, steps)
    h, w_t, hh = h0, w_hh.T, xp.empty_like(gi[0])
    for t in time_order(steps, reverse):
        h_prev[t] = h
        product_into(xp, h_prev[t], w_t, hh)
        hh += b_hh
        x = gi[t] + b_ih
        if mode == "GRU":
            r = sigmoid(xp, x[:, :hidden] + hh[:, :hidden])
            z = sigmoid(xp, x[:, hidden:2 * hidden] + hh[:, hidden:2 * hidden])
            n = xp.tanh(x[:, 2 * hidden:] + r * hh[:, 2 * hidden:])
            h_new = n + z * (h_prev[t] - n)
            for k, gate in enumerate((r, z, n, hh[:, 2 * hidden:])):
                gates[t, k] = gate
        else:
            h_new = xp.tanh(x + hh) if mode == "RNN_TANH" else xp.maximum(x + hh, 0)
            gates[t, 0] = h_new
        if masked:
            alive = (lengths > t)[:, None]
            out[t] = xp.where(alive, h_new, 0)
            h = xp.where(alive, h_new, h_prev[t])
        else:
            out[t], h = h_new, h_new
    return out, xp.array(h, copy=True), gates, h_prev


def _rnn_bprop(gi, h0, w_hh, b_ih, b_hh, lengths, out, dout, mode="RNN_TANH", reverse=False,
               *, needed=ALL):
    _, _, gates, h_prev = out
    dgi, d_hidden, dh0 = rnn_recurrence_grad(w_hh, gates, h_prev, lengths, *dout, mode=mode,
                                             reverse=reverse)
    steps, batch, width = dgi.shape
    dw_hh = None
    if needed[2]:  # every step's h_prev @ W_hh^T at once: one GEMM
        dw_hh = F.matmul(F.reshape(d_hidden, (steps * batch, width)),
                         F.reshape(h_prev, (steps * batch, h_prev.shape[2])), transpose_a=True)
    return (dgi, dh0, dw_hh, F.sum(dgi, (0, 1)) if needed[3] else None,
            F.sum(d_hidden, (0, 1)) if needed[4] else None, None)


rnn_recurrence = Primitive(
    "rnn_recurrence", infer=_rnn_infer, impl=_rnn_impl, bprop=_rnn_bprop,
    batch=lanes_rule((1, 0, None, None, None, 0), (1, 0, 2, 1)),
    multiple_results=True,
    doc="the Elman RNN or GRU recurrence over gi (T, B, G * H): (out, h_n, gates, h_prev)")


# ***** its gradient *****

def _grad_infer(w_hh, gates, h_prev, lengths, d_out, d_hn, d_gates, d_hprev, mode="RNN_TANH",
                reverse=False):
    chunks, kept = widths(mode)
    if len(gates.shape) != 4 or gates.shape[1] != kept:
        raise OpShapeError(f"gates must be (T, {kept}, B, hidden), got {gates}")
    steps, _, batch, hidden = gates.shape
    sequence, state = (steps, batch, hidden), (batch, hidden)
    for name, aval, shape in (("w_hh", w_hh, (chunks * hidden, hidden)),
                              ("h_prev", h_prev, sequence), ("lengths", lengths, (batch,)),
                              ("d_out", d_out, sequence), ("d_hn", d_hn, state),
                              ("d_gates", d_gates, tuple(gates.shape)),
                              ("d_hprev", d_hprev, sequence)):
        if tuple(aval.shape) != shape:
            raise OpShapeError(f"{name} must have shape {shape}, got {aval}")
    I.require_int("lengths", lengths)
    grads = Aval((steps, batch, chunks * hidden), gates.dtype)
    return grads, grads, Aval(state, gates.dtype)


def _grad_impl(xp, w_hh, gates, h_prev, lengths, d_out, d_hn, d_gates, d_hprev,
               mode="RNN_TANH", reverse=False):
    """Back through time, as lstm_recurrence_grad: per step the gradients of the input side's
    and the hidden side's pre-activations, then of the state before the step."""
    steps, _, batch, hidden = gates.shape
    width = widths(mode)[0] * hidden
    dgi = xp.empty((steps, batch, width), gates.dtype)
    d_hidden = xp.empty_like(dgi)
    dh = xp.array(d_hn, copy=True)
    masked = not all_alive(xp, lengths, steps)
    for t in reversed(time_order(steps, reverse)):
        dh_step, kept = dh + d_out[t], 0
        if masked:  # a finished sequence's state passes through the step unchanged
            alive = (lengths > t)[:, None]
            dh_step, kept = xp.where(alive, dh_step, 0), xp.where(alive, 0, dh)
        d = d_gates[t]
        if mode == "GRU":
            r, z, n, hh_n = gates[t]
            dn = (dh_step * (1 - z) + d[2]) * (1 - n * n)
            dr = (dn * hh_n + d[0]) * (r * (1 - r))
            dz = (dh_step * (h_prev[t] - n) + d[1]) * (z * (1 - z))
            dgi[t] = xp.concatenate([dr, dz, dn], axis=1)
            d_hidden[t] = xp.concatenate([dr, dz, dn * r + d[3]], axis=1)
            dh = dh_step * z + kept + d_hprev[t]
        else:
            h_new = gates[t, 0]
            slope = 1 - h_new * h_new if mode == "RNN_TANH" else (h_new > 0).astype(h_new.dtype)
            dgi[t] = d_hidden[t] = (dh_step + d[0]) * slope
            dh = kept + d_hprev[t]
        add_product(xp, dh, d_hidden[t], w_hh)
    return dgi, d_hidden, dh


def _grad_bprop(w_hh, gates, h_prev, lengths, d_out, d_hn, d_gates, d_hprev, out, dout,
                mode="RNN_TANH", reverse=False):
    raise OpTypeError(f"nn.{'GRU' if mode == 'GRU' else 'RNN'}: second-order gradients through "
                      f"the recurrence are not supported")


rnn_recurrence_grad = Primitive(
    "rnn_recurrence_grad", infer=_grad_infer, impl=_grad_impl, bprop=_grad_bprop,
    batch=lanes_rule((None, 2, 1, 0, 1, 0, 2, 1), (1, 1, 0)),
    multiple_results=True,
    doc="the gradients (d gi, d hidden pre-activations, d h0) of rnn_recurrence")
