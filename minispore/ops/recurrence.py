"""The LSTM recurrence over a whole sequence as one primitive, and its gradient as another.

nn.LSTM computes every time step's input projection `gi = x @ W_ih^T` in one GEMM; what is
left is the recurrence proper, a loop over time (bias = b_ih + b_hh):

    gates = gi[t] + bias + h @ W_hh^T
    i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of the gates' four chunks
    c = f * c + i * g ;  h = o * tanh(c) ;  out[t] = h

Run as one primitive (as cuDNN's and oneDNN's fused RNNs run it), a step costs one GEMM
into a preallocated gates buffer and one pass over the gates; unrolled into a graph of ops it
cost the split of the gates, a dozen graph steps and an accumulation of W_hh's gradient per
time step (benchmarks/lstm_lm.py: 120 ms a train step unrolled, 108 fused). Graph mode runs
both primitives with a numba kernel per time step (compiler/codegen/cpu_kernels.py); the
impls here are the same loop with array operations (numpy, or CuPy on a GPU).

    lstm_recurrence(gi (T, B, 4H), h0 (B, H), c0 (B, H), w_hh (4H, H), bias (4H,),
                    lengths (B,) int, reverse=False)
        -> out (T, B, H), h_n (B, H), c_n (B, H), and what the gradient reads (MindSpore's
           LSTM calls it `reserve`): gates (T, 4, B, H), the activated i, f, g, o of each
           step (each gate its own contiguous (B, H) block, so that a kernel writes four
           arrays rather than four column windows of one: LLVM vectorises only the former),
           and h_prev, c_prev (T, B, H), the state each step started from.

Sequence b runs for lengths[b] steps (nn.LSTM's seq_length): at a step t >= lengths[b] its
state stays and its output is 0; `reverse` walks time backwards (MindSpore's reverse
direction, which reads each sequence backwards from its own end, is exactly that with the
same mask). Every output has its exact gradient (reserve ones included, so the primitive is
an honest function of its inputs); W_hh's gradient is one GEMM over all steps,
dgates^T @ h_prev, written with ops in the bprop.
"""
from __future__ import annotations
import numpy as np

from ..core import blas, cublas
from . import batching as B
from . import functional as F
from . import infer as I
from .primitive import ALL, Aval, OpShapeError, OpTypeError, Primitive

__all__: list[str] = []  # primitives for nn.LSTM; no public function


# ***** products into preallocated buffers (numpy: minispore's BLAS; CuPy: cuBLAS) *****

def product_into(xp, a, b, out):
    """out <- a @ b for matrices (out C-contiguous)."""
    if xp is np and blas.matmul_into(a, b, out) is not None:
        return out
    out[...] = blas.matmul(a, b) if xp is np else cublas.matmul(a, b)
    return out


def add_product(xp, c, a, b):
    """c <- c + a @ b for matrices (c C-contiguous), by one accumulating BLAS call where
    minispore's BLAS runs the product."""
    accumulate = blas.addmm_into(c, a, b, 1.0) if xp is np else None
    if accumulate is not None:
        return accumulate()
    c += blas.matmul(a, b) if xp is np else cublas.matmul(a, b)
    return c


def time_order(steps, reverse):
    """The time steps in the order the recurrence visits them."""
    return range(steps - 1, -1, -1) if reverse else range(steps)


def all_alive(xp, lengths, steps):
    """Whether every sequence runs for all `steps` steps (no masking needed). On a GPU the
    answer would be read back to the host, which a CUDA-graph replay would not repeat (and
    would wait for the device): there every step is masked."""
    if xp is not np:
        return False
    return steps == 0 or lengths.size == 0 or bool(lengths.min() >= steps)


# ***** the forward recurrence *****

def _lstm_infer(gi, h0, c0, w_hh, bias, lengths, reverse=False):
    if len(gi.shape) != 3 or gi.shape[2] % 4:
        raise OpShapeError(f"gi must be (T, B, 4 * hidden), got {gi}")
    steps, batch, gates = gi.shape
    hidden = gates // 4
    for name, aval, shape in (("h0", h0, (batch, hidden)), ("c0", c0, (batch, hidden)),
                              ("w_hh", w_hh, (gates, hidden)), ("bias", bias, (gates,)),
                              ("lengths", lengths, (batch,))):
        if tuple(aval.shape) != shape:
            raise OpShapeError(f"{name} must have shape {shape} (gi is {gi.shape}), got {aval}")
    I.require_float("gi", gi)
    I.require_int("lengths", lengths)
    for name, aval in (("h0", h0), ("c0", c0), ("w_hh", w_hh), ("bias", bias)):
        if aval.dtype != gi.dtype:
            raise OpTypeError(f"{name} must have gi's dtype {gi.dtype}, got {aval}")
    state, sequence = Aval((batch, hidden), gi.dtype), Aval((steps, batch, hidden), gi.dtype)
    return sequence, state, state, Aval((steps, 4, batch, hidden), gi.dtype), sequence, sequence


def activate(xp, gates, hidden):
    """The gate pre-activations (B, 4H) turned in place into i, f, g, o: sigmoid of the 1st,
    2nd and 4th chunks and tanh of the 3rd, by one tanh over all of them
    (sigmoid(x) = (1 + tanh(x / 2)) / 2)."""
    g = gates[:, 2 * hidden:3 * hidden]
    gates *= 0.5
    g *= 2.0
    xp.tanh(gates, out=gates)
    gates *= 0.5
    gates += 0.5
    g *= 2.0
    g -= 1.0


def _lstm_impl(xp, gi, h0, c0, w_hh, bias, lengths, reverse=False):
    steps, batch, width = gi.shape
    hidden = width // 4
    out = xp.empty((steps, batch, hidden), gi.dtype)
    gates = xp.empty((steps, 4, batch, hidden), gi.dtype)
    h_prev, c_prev = xp.empty_like(out), xp.empty_like(out)
    masked = not all_alive(xp, lengths, steps)
    h, c = h0, c0
    w_t, g = w_hh.T, xp.empty_like(gi[0])
    for t in time_order(steps, reverse):
        h_prev[t], c_prev[t] = h, c
        product_into(xp, h_prev[t], w_t, g)
        g += gi[t]
        g += bias
        activate(xp, g, hidden)
        gates[t] = xp.transpose(g.reshape(batch, 4, hidden), (1, 0, 2))
        i, f, cell, o = gates[t]
        c_new = f * c_prev[t] + i * cell
        h_new = o * xp.tanh(c_new)
        if masked:
            alive = (lengths > t)[:, None]
            out[t] = xp.where(alive, h_new, 0)
            h, c = xp.where(alive, h_new, h_prev[t]), xp.where(alive, c_new, c_prev[t])
        else:
            out[t], h, c = h_new, h_new, c_new
    return out, xp.array(h, copy=True), xp.array(c, copy=True), gates, h_prev, c_prev


def _lstm_bprop(gi, h0, c0, w_hh, bias, lengths, out, dout, reverse=False, *, needed=ALL):
    _, _, _, gates, h_prev, c_prev = out
    dgi, dh0, dc0 = lstm_recurrence_grad(w_hh, gates, c_prev, lengths, *dout, reverse=reverse)
    dbias = F.sum(dgi, (0, 1)) if needed[4] else None
    dw_hh = None
    if needed[3]:  # every step's h_prev @ W_hh^T at once: dgates^T @ h_prev, one GEMM
        steps, batch, width = dgi.shape
        dw_hh = F.matmul(F.reshape(dgi, (steps * batch, width)),
                         F.reshape(h_prev, (steps * batch, width // 4)), transpose_a=True)
    return dgi, dh0, dc0, dw_hh, dbias, None


# Lanes of a vmap join the batch axis B, at position `axis` of each input and output (None:
# a weight, shared by every lane; lanes with their own weights run one by one).

def _join_lanes(x, dim, axis_size, axis):
    """(L, ..., B, ...) -> (..., L * B, ...), B at `axis` of a lane."""
    x = B.move_axis(B.batched_front(x, dim, axis_size), 0, axis)
    shape = tuple(x.shape)
    return F.reshape(x, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])


def _split_lanes(x, axis_size, axis):
    """(..., L * B, ...) -> (..., L, B, ...): the lanes at `axis`."""
    shape = tuple(x.shape)
    return F.reshape(x, shape[:axis] + (axis_size, shape[axis] // axis_size) + shape[axis + 1:])


def lanes_rule(in_axes: tuple, out_axes: tuple):
    """The vmap rule of a recurrence primitive whose inputs and outputs have their batch axis
    at `in_axes` / `out_axes` (None: a weight)."""
    def rule(prim, args, dims, axis_size, **attrs):
        if any(d is not None for d, axis in zip(dims, in_axes) if axis is None):
            lanes = [prim(*(B.lane(a, d, k) for a, d in zip(args, dims)), **attrs)
                     for k in range(axis_size)]
            return tuple(F.stack([lane[n] for lane in lanes]) for n in range(len(out_axes))), \
                (0,) * len(out_axes)
        joined = [a if axis is None else _join_lanes(a, d, axis_size, axis)
                  for a, d, axis in zip(args, dims, in_axes)]
        outs = prim(*joined, **attrs)
        return tuple(_split_lanes(o, axis_size, axis) for o, axis in zip(outs, out_axes)), \
            tuple(out_axes)
    return rule


lstm_recurrence = Primitive(
    "lstm_recurrence", infer=_lstm_infer, impl=_lstm_impl, bprop=_lstm_bprop,
    batch=lanes_rule((1, 0, 0, None, None, 0), (1, 0, 0, 2, 1, 1)),
    multiple_results=True,
    doc="the LSTM recurrence over gi (T, B, 4H) plus bias: (out, h_n, c_n, gates, h_prev, "
        "c_prev)")


# ***** its gradient *****

def _grad_infer(w_hh, gates, c_prev, lengths, d_out, d_hn, d_cn, d_gates, d_hprev, d_cprev,
                reverse=False):
    if len(gates.shape) != 4 or gates.shape[1] != 4:
        raise OpShapeError(f"gates must be (T, 4, B, hidden), got {gates}")
    steps, _, batch, hidden = gates.shape
    sequence, state = (steps, batch, hidden), (batch, hidden)
    for name, aval, shape in (("w_hh", w_hh, (4 * hidden, hidden)), ("c_prev", c_prev, sequence),
                              ("lengths", lengths, (batch,)), ("d_out", d_out, sequence),
                              ("d_hn", d_hn, state), ("d_cn", d_cn, state),
                              ("d_gates", d_gates, tuple(gates.shape)),
                              ("d_hprev", d_hprev, sequence), ("d_cprev", d_cprev, sequence)):
        if tuple(aval.shape) != shape:
            raise OpShapeError(f"{name} must have shape {shape}, got {aval}")
    I.require_int("lengths", lengths)
    return Aval((steps, batch, 4 * hidden), gates.dtype), Aval(state, gates.dtype), \
        Aval(state, gates.dtype)


def _grad_impl(xp, w_hh, gates, c_prev, lengths, d_out, d_hn, d_cn, d_gates, d_hprev, d_cprev,
               reverse=False):
    """Back through time: at each step, the gradient of the state after it (dh, dc) and of
    its output give the gate pre-activations' gradient dgi[t], then the state before it."""
    steps, _, batch, hidden = gates.shape
    dgi = xp.empty((steps, batch, 4 * hidden), gates.dtype)
    dh, dc = xp.array(d_hn, copy=True), xp.array(d_cn, copy=True)
    masked = not all_alive(xp, lengths, steps)
    for t in reversed(time_order(steps, reverse)):
        i, f, cell, o = gates[t]
        tanh_c = xp.tanh(f * c_prev[t] + i * cell)
        dh_step, dc_step = dh + d_out[t], dc
        if masked:  # a finished sequence's state passes through the step unchanged
            alive = (lengths > t)[:, None]
            dh_step, dc_step = xp.where(alive, dh_step, 0), xp.where(alive, dc_step, 0)
            dh, dc = xp.where(alive, 0, dh), xp.where(alive, 0, dc)
        else:
            dh, dc = xp.zeros_like(dh), xp.zeros_like(dc)
        dc_step = dc_step + dh_step * o * (1 - tanh_c * tanh_c)
        d = d_gates[t]
        grads = (dc_step * cell + d[0], dc_step * c_prev[t] + d[1], dc_step * i + d[2],
                 dh_step * tanh_c + d[3])
        for k, (grad, gate) in enumerate(zip(grads, (i, f, cell, o))):
            slope = 1 - gate * gate if k == 2 else gate * (1 - gate)
            xp.multiply(grad, slope, out=dgi[t][:, k * hidden:(k + 1) * hidden])
        dc += dc_step * f + d_cprev[t]
        dh += d_hprev[t]
        add_product(xp, dh, dgi[t], w_hh)
    return dgi, dh, dc


def _grad_bprop(w_hh, gates, c_prev, lengths, d_out, d_hn, d_cn, d_gates, d_hprev, d_cprev,
                out, dout, reverse=False):
    raise OpTypeError("nn.LSTM: second-order gradients through the recurrence are not "
                      "supported")


lstm_recurrence_grad = Primitive(
    "lstm_recurrence_grad", infer=_grad_infer, impl=_grad_impl, bprop=_grad_bprop,
    batch=lanes_rule((None, 2, 1, 0, 1, 0, 0, 2, 1, 1), (1, 0, 0)),
    multiple_results=True,
    doc="the gradients (d gi, d h0, d c0) of lstm_recurrence for the cotangents of its outputs")
