"""Hand-written numba kernels that Graph mode runs on the CPU instead of a primitive's impl,
keyed by primitive: for rows whose numpy impl is many small calls (softmax over a short axis:
a dozen numpy calls, each costing more than the arithmetic). PyNative keeps the impl.

A `CpuKernel`'s source is a module body defining `kernel`, decorated
``@numba.njit(**KERNEL_FLAGS)``; numba_cpu pastes it after numpy, numba and the vectorisable
math of `fastmath` (exp, log... of the first input's float dtype, named DTYPE; a kernel exists
for float32 and float64), with `_acc_sum`/`_acc_max` to accumulate reductions.
`call(kernel, *arrays, **attrs)` is the primitive's result computed with `kernel`, or
NotImplemented where the kernel does not cover the inputs (the impl then runs).
"""
from typing import Callable, NamedTuple

import numpy as np

from ...ops import recurrence, rnn_recurrence
from ...ops import sparse_cross_entropy as cross_entropy
from ...ops.activation import log_softmax_p, softmax_p
from ...ops.attention import biased_softmax
from ...ops.overflow import all_finite_p


class CpuKernel(NamedTuple):
    source: str
    call: Callable


# ***** softmax and log_softmax *****

# Graph mode's kernel for both: one pass per row over the last axis, where numpy takes a dozen
# calls (each dearer than the arithmetic on a classifier's (N, 10) logits). Sums accumulate
# in float64; exp/log are the vectorisable ones of the kernel's dtype.
# Row i of x shifted by its max and exponentiated into out: (max, float64 sum of the exps).
# Shared with the cross-entropy kernels below.
ROW_EXPS_SOURCE = """
@numba.njit(inline="always", fastmath=_FLAGS, error_model="numpy")
def row_exps(x, i, out):
    top = x[i, 0]
    for j in range(1, x.shape[1]):
        top = _acc_max(top, x[i, j])
    total = 0.0
    for j in range(x.shape[1]):
        e = exp(x[i, j] - top)
        out[i, j] = e
        total = _acc_sum(total, np.float64(e))
    return top, total
"""

_ROWS_SOURCE = ROW_EXPS_SOURCE + """

@numba.njit(**KERNEL_FLAGS)
def kernel(x, out, take_log):
    rows, n = x.shape
    for i in range(rows):
        top, total = row_exps(x, i, out)
        if take_log:
            shift = log(DTYPE(total))
            for j in range(n):
                out[i, j] = (x[i, j] - top) - shift
        else:
            scale = 1.0 / total
            for j in range(n):
                out[i, j] = DTYPE(out[i, j] * scale)
"""


def _rows_kernel(take_log):
    def call(kernel, x, axis):
        if x.ndim == 0 or axis != (x.ndim - 1,) or x.size == 0:
            return NotImplemented
        rows = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
        out = np.empty_like(rows)
        kernel(rows, out, take_log)
        return out.reshape(x.shape)
    return CpuKernel(_ROWS_SOURCE, call)


# ***** softmax(x * scale + bias): attention weights with their masks, one pass *****

# Row i of x (the scores) reads bias row index[i]: the bias (a mask: (1, 1, L, S), (N, 1, 1, S)
# ...) stays its own small size instead of being broadcast to the scores' shape.
_BIASED_SOURCE = """
@numba.njit(**KERNEL_FLAGS)
def kernel(x, bias, index, scale, out):
    rows, n = x.shape
    for i in range(rows):
        b = index[i]
        top = x[i, 0] * scale + bias[b, 0]
        for j in range(1, n):
            top = _acc_max(top, x[i, j] * scale + bias[b, j])
        total = 0.0
        for j in range(n):
            e = exp(x[i, j] * scale + bias[b, j] - top)
            out[i, j] = e
            total = _acc_sum(total, np.float64(e))
        inverse = 1.0 / total
        for j in range(n):
            out[i, j] = DTYPE(out[i, j] * inverse)
"""


def _biased_softmax_call(kernel, x, bias, scale):
    if x.size == 0 or bias.dtype != x.dtype:
        return NotImplemented
    n = x.shape[-1]
    bias_rows = bias.shape[:-1]
    # the bias's rows, each widened to n columns; which of them each row of x reads
    table = np.ascontiguousarray(np.broadcast_to(bias, bias_rows + (n,))).reshape(-1, n)
    index = np.broadcast_to(np.arange(table.shape[0]).reshape(bias_rows), x.shape[:-1])
    rows = np.ascontiguousarray(x).reshape(-1, n)
    out = np.empty_like(rows)
    kernel(rows, table, np.ascontiguousarray(index).reshape(-1), x.dtype.type(scale), out)
    return out.reshape(x.shape)


# ***** sparse softmax cross-entropy, its gradient, and both *****

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
        raise cross_entropy.label_error(c, ignore_index)
    return cross_entropy.reduced_losses(losses, total, counted, reduction)




# Graph mode's kernel: each row's softmax minus the label's one, scaled, in one pass (the
# impl is about ten numpy calls); "mean" first counts the labels that count. It stops at the
# first label out of range, which the call reports, as the loss's kernel does.
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
        if label < 0 or label >= c:
            return i
        scale = share if mean else douts[min(i, douts.shape[0] - 1)]
        total = row_exps(logits, i, grad)[1]
        ratio = scale / total
        for j in range(c):
            grad[i, j] = DTYPE(grad[i, j] * ratio)
        grad[i, label] -= DTYPE(scale)
    return -1
"""


def _sparse_ce_grad_kernel_call(kernel, logits, labels, dout, ignore_index, reduction):
    n, c = logits.shape
    if n == 0 or c == 0:
        return NotImplemented
    grad = np.empty((n, c), logits.dtype)
    bad = kernel(np.ascontiguousarray(logits), np.ascontiguousarray(labels),
                 0 if ignore_index is None else ignore_index, ignore_index is not None,
                 np.asarray(dout, np.float64).reshape(-1), reduction == "mean", grad)
    if bad >= 0:
        raise cross_entropy.label_error(c, ignore_index)
    return grad




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
        raise cross_entropy.label_error(c, ignore_index)
    return cross_entropy.reduced_losses(losses, total, counted, reduction), grad


# ***** the LSTM recurrence and its gradient: a GEMM and one kernel per time step *****

# One step forward: `pre` (B, 4H) holds h_in @ W_hh^T; the kernel adds the input's projection
# gi (B, 4H) and the bias (4H,), writes the activated gates i, f, g, o (each its own (B, H)
# array: stores into four column windows of one array, or into strided views, would keep
# LLVM from vectorising the loop, 7x slower) and the step's output and next state. A
# finished sequence (alive[b] false) keeps its state and outputs 0.
_LSTM_STEP_SOURCE = """
@numba.njit(**KERNEL_FLAGS)
def kernel(pre, gi, bias, h_in, c_in, alive, gate_i, gate_f, gate_g, gate_o, out, h_out,
           c_out):
    rows, n = gate_i.shape
    for b in range(rows):
        for j in range(n):
            i = sigmoid(pre[b, j] + gi[b, j] + bias[j])
            f = sigmoid(pre[b, n + j] + gi[b, n + j] + bias[n + j])
            g = tanh(pre[b, 2 * n + j] + gi[b, 2 * n + j] + bias[2 * n + j])
            o = sigmoid(pre[b, 3 * n + j] + gi[b, 3 * n + j] + bias[3 * n + j])
            gate_i[b, j] = i
            gate_f[b, j] = f
            gate_g[b, j] = g
            gate_o[b, j] = o
            c = f * c_in[b, j] + i * g
            h = o * tanh(c)
            out[b, j] = h
            c_out[b, j] = c
            h_out[b, j] = h
        if not alive[b]:
            for j in range(n):
                out[b, j] = 0
                c_out[b, j] = c_in[b, j]
                h_out[b, j] = h_in[b, j]
"""


def _lstm_call(kernel, gi, h0, c0, w_hh, bias, lengths, reverse=False):
    steps, batch, width = gi.shape
    hidden = width // 4
    if steps == 0 or batch == 0 or hidden == 0:
        return NotImplemented
    gi, bias, w_t = np.ascontiguousarray(gi), np.ascontiguousarray(bias), w_hh.T
    out = np.empty((steps, batch, hidden), gi.dtype)
    gates = np.empty((steps, 4, batch, hidden), gi.dtype)
    h_prev, c_prev = np.empty_like(out), np.empty_like(out)
    h_n, c_n, pre = np.empty_like(out[0]), np.empty_like(out[0]), np.empty_like(gi[0])
    everyone = np.ones(batch, np.bool_)
    masked = not recurrence.all_alive(np, lengths, steps)
    order = recurrence.time_order(steps, reverse)
    h_prev[order[0]], c_prev[order[0]] = h0, c0
    for k, t in enumerate(order):
        recurrence.product_into(np, h_prev[t], w_t, pre)
        last = k == steps - 1
        kernel(pre, gi[t], bias, h_prev[t], c_prev[t], lengths > t if masked else everyone,
               *gates[t], out[t], h_n if last else h_prev[order[k + 1]],
               c_n if last else c_prev[order[k + 1]])
    return out, h_n, c_n, gates, h_prev, c_prev


# One step back: dh and dc hold the gradient of the state after the step; the kernel writes
# the gate pre-activations' gradients (four (B, H) arrays, as the forward's gates) and turns
# dh, dc into the gradient of the state before the step, but for dgates @ W_hh, which the
# call then adds to dh. d_gates, d_hprev and d_cprev: the cotangents of the reserve outputs
# (zeros unless something reads them).
_LSTM_GRAD_SOURCE = """
@numba.njit(**KERNEL_FLAGS)
def kernel(gate_i, gate_f, gate_g, gate_o, c_prev, alive, d_out, dg_i, dg_f, dg_g, dg_o,
           d_hprev, d_cprev, dh, dc, d_i, d_f, d_g, d_o):
    rows, n = gate_i.shape
    for b in range(rows):
        if alive[b]:
            for j in range(n):
                i = gate_i[b, j]
                f = gate_f[b, j]
                g = gate_g[b, j]
                o = gate_o[b, j]
                tanh_c = tanh(f * c_prev[b, j] + i * g)
                dh_step = dh[b, j] + d_out[b, j]
                dc_step = dc[b, j] + dh_step * o * (1 - tanh_c * tanh_c)
                d_i[b, j] = (dc_step * g + dg_i[b, j]) * (i * (1 - i))
                d_f[b, j] = (dc_step * c_prev[b, j] + dg_f[b, j]) * (f * (1 - f))
                d_g[b, j] = (dc_step * i + dg_g[b, j]) * (1 - g * g)
                d_o[b, j] = (dh_step * tanh_c + dg_o[b, j]) * (o * (1 - o))
                dc[b, j] = dc_step * f + d_cprev[b, j]
                dh[b, j] = d_hprev[b, j]
        else:  # the state passed through: only the reserve's cotangents reach the gates
            for j in range(n):
                i = gate_i[b, j]
                f = gate_f[b, j]
                g = gate_g[b, j]
                o = gate_o[b, j]
                d_i[b, j] = dg_i[b, j] * (i * (1 - i))
                d_f[b, j] = dg_f[b, j] * (f * (1 - f))
                d_g[b, j] = dg_g[b, j] * (1 - g * g)
                d_o[b, j] = dg_o[b, j] * (o * (1 - o))
                dc[b, j] += d_cprev[b, j]
                dh[b, j] += d_hprev[b, j]
"""


def _lstm_grad_call(kernel, w_hh, gates, c_prev, lengths, d_out, d_hn, d_cn, d_gates, d_hprev,
                    d_cprev, reverse=False):
    steps, _, batch, hidden = gates.shape
    if steps == 0 or batch == 0 or hidden == 0:
        return NotImplemented
    gates, c_prev, d_out, d_gates, d_hprev, d_cprev = (
        np.ascontiguousarray(a) for a in (gates, c_prev, d_out, d_gates, d_hprev, d_cprev))
    dgi = np.empty((steps, batch, 4 * hidden), gates.dtype)
    step_grads = np.empty((4, batch, hidden), gates.dtype)
    dh, dc = np.array(d_hn, gates.dtype, order="C"), np.array(d_cn, gates.dtype, order="C")
    everyone = np.ones(batch, np.bool_)
    masked = not recurrence.all_alive(np, lengths, steps)
    for t in reversed(recurrence.time_order(steps, reverse)):
        kernel(*gates[t], c_prev[t], lengths > t if masked else everyone, d_out[t],
               *d_gates[t], d_hprev[t], d_cprev[t], dh, dc, *step_grads)
        dgi[t].reshape(batch, 4, hidden)[...] = step_grads.transpose(1, 0, 2)
        recurrence.add_product(np, dh, dgi[t], w_hh)
    return dgi, dh, dc

# ***** the Elman RNN and GRU recurrences (ops.rnn_recurrence), as the LSTM's *****

# One step forward: `hh` (B, G * H) holds h_in @ W_hh^T. RNN (G = 1): one gate, the new
# state; GRU (G = 3): r, z, n and the hidden side of n, each its own (B, H) array (see the
# LSTM kernel). Array tuples always hold four, so that both branches compile for either
# mode; an RNN's are four times its one array.
_RNN_STEP_SOURCE = """
@numba.njit(**KERNEL_FLAGS)
def kernel(hh, gi, b_ih, b_hh, h_in, alive, gru, relu, out, h_out, gates):
    rows, n = out.shape
    for b in range(rows):
        if gru:
            gate_r, gate_z, gate_n, gate_hn = gates
            for j in range(n):
                r = sigmoid(gi[b, j] + b_ih[j] + hh[b, j] + b_hh[j])
                z = sigmoid(gi[b, n + j] + b_ih[n + j] + hh[b, n + j] + b_hh[n + j])
                hn = hh[b, 2 * n + j] + b_hh[2 * n + j]
                c = tanh(gi[b, 2 * n + j] + b_ih[2 * n + j] + r * hn)
                h = c + z * (h_in[b, j] - c)
                gate_r[b, j] = r
                gate_z[b, j] = z
                gate_n[b, j] = c
                gate_hn[b, j] = hn
                out[b, j] = h
                h_out[b, j] = h
        else:
            gate = gates[0]
            for j in range(n):
                v = gi[b, j] + b_ih[j] + hh[b, j] + b_hh[j]
                h = max(v, 0) if relu else tanh(v)
                gate[b, j] = h
                out[b, j] = h
                h_out[b, j] = h
        if not alive[b]:
            for j in range(n):
                out[b, j] = 0
                h_out[b, j] = h_in[b, j]
"""


def _rnn_call(kernel, gi, h0, w_hh, b_ih, b_hh, lengths, mode="RNN_TANH", reverse=False):
    steps, batch, _ = gi.shape
    hidden = h0.shape[1]
    if steps == 0 or batch == 0 or hidden == 0:
        return NotImplemented
    gi, b_ih, b_hh = (np.ascontiguousarray(a) for a in (gi, b_ih, b_hh))
    out = np.empty((steps, batch, hidden), gi.dtype)
    gates = np.empty((steps, rnn_recurrence.widths(mode)[1], batch, hidden), gi.dtype)
    h_prev, h_n, hh = np.empty_like(out), np.empty_like(out[0]), np.empty_like(gi[0])
    everyone = np.ones(batch, np.bool_)
    masked = not recurrence.all_alive(np, lengths, steps)
    order = recurrence.time_order(steps, reverse)
    h_prev[order[0]] = h0
    for k, t in enumerate(order):
        recurrence.product_into(np, h_prev[t], w_hh.T, hh)
        kernel(hh, gi[t], b_ih, b_hh, h_prev[t], lengths > t if masked else everyone,
               mode == "GRU", mode == "RNN_RELU", out[t],
               h_n if k == steps - 1 else h_prev[order[k + 1]], _four(gates[t]))
    return out, h_n, gates, h_prev


def _four(arrays):
    """The (B, H) arrays of a step as the kernels take them: four (see _RNN_STEP_SOURCE)."""
    return tuple(arrays) if len(arrays) == 4 else (arrays[0],) * 4


# One step back: dh holds the gradient of the state after the step; the kernel writes the
# gradients of the input side's and the hidden side's pre-activations (RNN: one (B, H) array
# for both; GRU: r, z, n of the input side and n of the hidden side, four (B, H) arrays) and
# turns dh into the gradient of the state before the step, but for d_hidden @ W_hh.
_RNN_GRAD_SOURCE = """
@numba.njit(**KERNEL_FLAGS)
def kernel(gates, h_prev, alive, gru, relu, d_out, d_gates, d_hprev, dh, grads):
    rows, n = dh.shape
    for b in range(rows):
        live = alive[b]
        if gru:
            gate_r, gate_z, gate_n, gate_hn = gates
            dg_r, dg_z, dg_n, dg_hn = d_gates
            d_r, d_z, d_n, d_hn = grads
            for j in range(n):
                r = gate_r[b, j]
                z = gate_z[b, j]
                c = gate_n[b, j]
                dh_step = dh[b, j] + d_out[b, j] if live else DTYPE(0)
                kept = DTYPE(0) if live else dh[b, j]
                dn = (dh_step * (1 - z) + dg_n[b, j]) * (1 - c * c)
                d_r[b, j] = (dn * gate_hn[b, j] + dg_r[b, j]) * (r * (1 - r))
                d_z[b, j] = (dh_step * (h_prev[b, j] - c) + dg_z[b, j]) * (z * (1 - z))
                d_n[b, j] = dn
                d_hn[b, j] = dn * r + dg_hn[b, j]
                dh[b, j] = dh_step * z + kept + d_hprev[b, j]
        else:
            gate, d_gate, d_v = gates[0], d_gates[0], grads[0]
            for j in range(n):
                h = gate[b, j]
                dh_step = dh[b, j] + d_out[b, j] if live else DTYPE(0)
                kept = DTYPE(0) if live else dh[b, j]
                slope = (DTYPE(1) if h > 0 else DTYPE(0)) if relu else 1 - h * h
                d_v[b, j] = (dh_step + d_gate[b, j]) * slope
                dh[b, j] = kept + d_hprev[b, j]
"""


def _rnn_grad_call(kernel, w_hh, gates, h_prev, lengths, d_out, d_hn, d_gates, d_hprev,
                   mode="RNN_TANH", reverse=False):
    steps, kept, batch, hidden = gates.shape
    if steps == 0 or batch == 0 or hidden == 0:
        return NotImplemented
    gates, h_prev, d_out, d_gates, d_hprev = (
        np.ascontiguousarray(a) for a in (gates, h_prev, d_out, d_gates, d_hprev))
    gru = mode == "GRU"
    dgi = np.empty((steps, batch, rnn_recurrence.widths(mode)[0] * hidden), gates.dtype)
    d_hidden = np.empty_like(dgi) if gru else dgi
    step_grads = np.empty((kept, batch, hidden), gates.dtype)
    dh = np.array(d_hn, gates.dtype, order="C")
    everyone = np.ones(batch, np.bool_)
    masked = not recurrence.all_alive(np, lengths, steps)
    for t in reversed(recurrence.time_order(steps, reverse)):
        kernel(_four(gates[t]), h_prev[t], lengths > t if masked else everyone, gru,
               mode == "RNN_RELU", d_out[t], _four(d_gates[t]), d_hprev[t], dh,
               _four(step_grads if gru else dgi[t][None]))
        if gru:  # r, z and n of each side: the chunks of its (B, 3H) rows
            dgi[t].reshape(batch, 3, hidden)[...] = step_grads[:3].transpose(1, 0, 2)
            d_hidden[t].reshape(batch, 3, hidden)[...] = step_grads[[0, 1, 3]].transpose(1, 0, 2)
        recurrence.add_product(np, dh, d_hidden[t], w_hh)
    return dgi, (d_hidden if gru else dgi.copy()), dh

# ***** all_finite: the overflow check over every gradient of a step, one kernel *****

# x - x is 0 for a finite x and nan for inf or nan: one subtract and compare per element, an
# integer and-reduction LLVM vectorises (a float sum would need reassociation, not allowed)
_ALL_FINITE_SOURCE = """
@numba.njit(**KERNEL_FLAGS)
def kernel(arrays):
    for a in arrays:
        finite = True
        for i in range(a.shape[0]):
            finite &= (a[i] - a[i]) == 0
        if not finite:
            return False
    return True
"""


def _all_finite_call(kernel, *xs):
    if any(x.dtype != xs[0].dtype for x in xs):
        return NotImplemented  # one dtype per kernel: the impl checks mixed ones
    return np.asarray(kernel(tuple(np.ascontiguousarray(x).reshape(-1) for x in xs)))


CPU_KERNELS = {
    softmax_p: _rows_kernel(False),
    log_softmax_p: _rows_kernel(True),
    biased_softmax: CpuKernel(_BIASED_SOURCE, _biased_softmax_call),
    cross_entropy.sparse_softmax_cross_entropy:
        CpuKernel(_SPARSE_CE_SOURCE, _sparse_ce_kernel_call),
    cross_entropy.sparse_softmax_cross_entropy_grad:
        CpuKernel(_SPARSE_CE_GRAD_SOURCE, _sparse_ce_grad_kernel_call),
    cross_entropy.sparse_softmax_cross_entropy_and_grad:
        CpuKernel(_SPARSE_CE_AND_GRAD_SOURCE, _sparse_ce_and_grad_kernel_call),
    all_finite_p: CpuKernel(_ALL_FINITE_SOURCE, _all_finite_call),
    recurrence.lstm_recurrence: CpuKernel(_LSTM_STEP_SOURCE, _lstm_call),
    recurrence.lstm_recurrence_grad: CpuKernel(_LSTM_GRAD_SOURCE, _lstm_grad_call),
    rnn_recurrence.rnn_recurrence: CpuKernel(_RNN_STEP_SOURCE, _rnn_call),
    rnn_recurrence.rnn_recurrence_grad: CpuKernel(_RNN_GRAD_SOURCE, _rnn_grad_call),
}
