"""SAMPLES of the recurrence primitives (minispore.ops.recurrence: LSTM;
minispore.ops.rnn_recurrence: Elman RNN and GRU), merged into test_registry's table, as
ctc_samples.

Each recurrence sample runs full-length sequences, then a masked batch (lengths 4, 2 and 0:
a finished and an empty sequence) in both directions, so the finite-difference check covers
the masked steps' pass-through too."""
import numpy as np

from minispore.ops.recurrence import lstm_recurrence
from minispore.ops.rnn_recurrence import rnn_recurrence, widths

FIRST_ORDER_ONLY = {
    name: "the backward of a recurrent layer; a second-order rule would differentiate the "
          "whole backward pass through time"
    for name in ("lstm_recurrence_grad", "rnn_recurrence_grad")
}
MODES = ("RNN_TANH", "RNN_RELU", "GRU")

STEPS, BATCH, HIDDEN = 4, 3, 2


def _inputs(rng, b):
    """gi (T, B, 4H), h0, c0 (B, H), w_hh (4H, H), bias (4H,)."""
    return (b.normal(rng, (STEPS, BATCH, 4 * HIDDEN)), b.normal(rng, (BATCH, HIDDEN)),
            b.normal(rng, (BATCH, HIDDEN)), b.normal(rng, (4 * HIDDEN, HIDDEN), 0.5),
            b.normal(rng, (4 * HIDDEN,)))


def _recurrence(rng, b):
    full = np.full(BATCH, STEPS, np.int32)
    masked = np.array([4, 2, 0], np.int64)
    return [b.sample(*_inputs(rng, b), full, reverse=False),
            b.sample(*_inputs(rng, b), masked, reverse=False),
            b.sample(*_inputs(rng, b), masked, reverse=True)]


def _gradient(rng, b):
    """The gradient's inputs as lstm_recurrence's bprop passes them: its reserve (activated
    gates, c_prev) from a forward run, and a cotangent for each of its six outputs."""
    gi, h0, c0, w_hh, bias = _inputs(rng, b)
    lengths = np.array([4, 2, 0], np.int64)
    _, _, _, gates, _, c_prev = lstm_recurrence.impl(np, gi, h0, c0, w_hh, bias, lengths,
                                                     reverse=True)
    sequence, state = (STEPS, BATCH, HIDDEN), (BATCH, HIDDEN)
    cotangents = [b.normal(rng, shape) for shape in (sequence, state, state, gates.shape,
                                                      sequence, sequence)]
    return b.sample(w_hh, gates, c_prev, lengths, *cotangents, reverse=True)


def _rnn_inputs(rng, b, mode):
    """gi (T, B, G * H), h0 (B, H), w_hh (G * H, H), b_ih, b_hh (G * H,). RELU's inputs stay
    away from its kink."""
    width = widths(mode)[0] * HIDDEN
    gi = b.normal(rng, (STEPS, BATCH, width))
    if mode == "RNN_RELU":
        gi = np.where(np.abs(gi) < 0.3, 0.3 * np.sign(gi) + gi, gi) * 2
    return (gi, b.normal(rng, (BATCH, HIDDEN)), b.normal(rng, (width, HIDDEN), 0.2),
            b.normal(rng, (width,), 0.1), b.normal(rng, (width,), 0.1))


def _rnn_recurrence(rng, b):
    masked = np.array([4, 2, 0], np.int64)
    return [b.sample(*_rnn_inputs(rng, b, mode), masked, mode=mode, reverse=reverse)
            for mode in MODES for reverse in (False, True)]


def _rnn_gradient(rng, b):
    samples = []
    for mode in MODES:
        gi, h0, w_hh, b_ih, b_hh = _rnn_inputs(rng, b, mode)
        lengths = np.array([4, 2, 0], np.int64)
        _, _, gates, h_prev = rnn_recurrence.impl(np, gi, h0, w_hh, b_ih, b_hh, lengths,
                                                  mode=mode, reverse=False)
        sequence = (STEPS, BATCH, HIDDEN)
        cotangents = [b.normal(rng, shape) for shape in (sequence, (BATCH, HIDDEN),
                                                          gates.shape, sequence)]
        samples.append(b.sample(w_hh, gates, h_prev, lengths, *cotangents, mode=mode,
                                reverse=False))
    return samples


def recipes(b):
    return {"lstm_recurrence": lambda rng: _recurrence(rng, b),
            "lstm_recurrence_grad": lambda rng: _gradient(rng, b),
            "rnn_recurrence": lambda rng: _rnn_recurrence(rng, b),
            "rnn_recurrence_grad": lambda rng: _rnn_gradient(rng, b)}
