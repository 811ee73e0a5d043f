"""Stacked recurrent layers: RNN, LSTM, GRU (MindSpore 2.x's signatures, gate order, weight
layout and parameter names and order, so a MindSpore checkpoint of these layers loads).

Parameters, as MindSpore registers them (four ParameterTuples, in this order): every
`weight_ih_l{k}[_reverse]`, then every `weight_hh_l{k}[_reverse]`, `bias_ih_l{k}[_reverse]`,
`bias_hh_l{k}[_reverse]`; all U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

Each direction of a layer runs as one primitive (ops.recurrence.lstm_recurrence for LSTM,
ops.rnn_recurrence for RNN and GRU, as cuDNN's and oneDNN's fused RNNs): the input projections
of all time steps are one GEMM, then each step is one recurrent GEMM into a preallocated
buffer and one kernel over the gates (Graph mode: a numba kernel; PyNative: array
operations), and the backward the same in reverse with W_hh's gradient as one GEMM over all
steps. Not a graph of ops per step: unrolled, every step cost a dozen graph steps, the split
of its gates and an accumulation of W_hh's gradient (the LSTM LM step of
benchmarks/lstm_lm.py: 120 ms unrolled, 108 as one primitive); nor a `while_loop`, which
re-runs the forward for its gradient (benchmarks/lstm_recurrence_designs.py). `seq_length`
masks each step: past a sequence's length its state stays and its output is zero; the reverse
direction reads each sequence backwards from its own end, as MindSpore's ReverseSequence does.

    >>> import minispore as ms
    >>> lstm = ms.nn.LSTM(10, 16, num_layers=2, batch_first=True)
    >>> out, (h, c) = lstm(ms.ops.ones((3, 5, 10)))
    >>> out.shape, h.shape
    ((3, 5, 16), (2, 3, 16))
"""
from __future__ import annotations
import math
import numbers

import numpy as np

from ...core.dtype import float32, to_type
from ...core.initializer import Uniform
from ...core.parameter import ParameterTuple
from ...core.tensor import Tensor
from ...ops import functional as F
from ...ops.array import split_v
from ...ops.recurrence import lstm_recurrence
from ...ops.rnn_recurrence import rnn_recurrence
from .. import validation as V
from ..cell import Cell
from .basic import Dropout, make_weight
from .rnn_cells import GATES, cast_like
from ...core.hints import DTypeLike


def _unstack(x):
    """The slices x[0], x[1], ... of x's first axis (views; their gradient is one concat)."""
    if x.shape[0] == 1:
        return (F.reshape(x, x.shape[1:]),)
    return tuple(F.reshape(p, x.shape[1:]) for p in split_v(x, axis=0, sections=(1,) * x.shape[0]))


def _stack(xs):
    return F.concat([F.expand_dims(x, 0) for x in xs], 0)


class _RNNBase(Cell):
    """The stacked, optionally bidirectional recurrence shared by RNN, LSTM and GRU."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=float32):
        super().__init__()
        owner = type(self).__name__
        self.input_size = V.positive_int(input_size, "input_size", owner)
        self.hidden_size = V.positive_int(hidden_size, "hidden_size", owner)
        self.num_layers = V.positive_int(num_layers, "num_layers", owner)
        self.has_bias = V.boolean(has_bias, "has_bias", owner)
        self.batch_first = V.boolean(batch_first, "batch_first", owner)
        self.bidirectional = V.boolean(bidirectional, "bidirectional", owner)
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Real):
            raise TypeError(f"{owner}: dropout must be a float, got {dropout!r}")
        if not 0 <= dropout < 1:
            raise ValueError(f"{owner}: dropout must be in [0, 1), got {dropout!r}")
        self.dropout = float(dropout)
        self.mode = mode
        self.is_lstm = mode == "LSTM"
        self.dropout_op = Dropout(p=self.dropout)
        directions = 2 if bidirectional else 1
        self.num_directions = directions
        gates, dtype = GATES[mode] * hidden_size, to_type(dtype)
        init = Uniform(1.0 / math.sqrt(hidden_size))
        shapes = {"weight_ih": [], "weight_hh": [], "bias_ih": [], "bias_hh": []}
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else hidden_size * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes["weight_ih"].append((suffix, (gates, layer_input)))
                shapes["weight_hh"].append((suffix, (gates, hidden_size)))
                if has_bias:
                    shapes["bias_ih"].append((suffix, (gates,)))
                    shapes["bias_hh"].append((suffix, (gates,)))
        # MindSpore's order: all input weights, all recurrent weights, then the biases
        for kind, attr in (("weight_ih", "w_ih_list"), ("weight_hh", "w_hh_list"),
                           ("bias_ih", "b_ih_list"), ("bias_hh", "b_hh_list")):
            setattr(self, attr, ParameterTuple(
                make_weight(init, shape, dtype, kind + suffix, owner)
                for suffix, shape in shapes[kind]))

    # ***** the recurrence *****

    def _direction(self, x, state, weights, reverse, lengths):
        """One direction of a layer over x (T, B, I): one GEMM for every time step's input
        projection, then the recurrence as one primitive (ops.recurrence for LSTM,
        ops.rnn_recurrence for RNN and GRU), whose kernel adds the biases; (outputs
        (T, B, H), final state)."""
        seq_len, batch = x.shape[0], x.shape[1]
        w_ih, w_hh, b_ih, b_hh = weights
        gi = F.matmul(F.reshape(x, (seq_len * batch, x.shape[2])), w_ih, transpose_b=True)
        gi = F.reshape(gi, (seq_len, batch, gi.shape[-1]))
        if b_ih is None:
            b_ih = b_hh = F.zeros((w_hh.shape[0],), x.dtype)
        if self.is_lstm:
            out, h_n, c_n = lstm_recurrence(gi, state[0], state[1], w_hh, F.add(b_ih, b_hh),
                                            lengths, reverse=reverse)[:3]
            return out, (h_n, c_n)
        out, h_n = rnn_recurrence(gi, state, w_hh, b_ih, b_hh, lengths, mode=self.mode,
                                  reverse=reverse)[:2]
        return out, h_n

    def _layer_weights(self, index, x):
        w_ih = cast_like(self.w_ih_list[index], x)
        w_hh = cast_like(self.w_hh_list[index], x)
        if not self.has_bias:
            return w_ih, w_hh, None, None
        return w_ih, w_hh, cast_like(self.b_ih_list[index], x), cast_like(self.b_hh_list[index], x)

    def _stacked(self, x, states, lengths):
        """x (T, B, I) time-major; states: one initial state per (layer, direction); lengths:
        (B,) steps of each sequence."""
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(self.num_directions):
                index = layer * self.num_directions + direction
                out, final = self._direction(x, states[index], self._layer_weights(index, x),
                                             direction == 1, lengths)
                outs.append(out)
                finals.append(final)
            x = outs[0] if len(outs) == 1 else F.concat(outs, 2)
            if self.dropout and layer < self.num_layers - 1:
                x = self.dropout_op(x)
        return x, finals

    # ***** inputs and outputs *****

    def _initial_states(self, hx, x, batch):
        """One state per (layer, direction) from hx (zeros when None)."""
        owner, count = type(self).__name__, self.num_layers * self.num_directions
        expected = (count, batch, self.hidden_size)
        if hx is None:
            zeros = F.zeros((batch, self.hidden_size), x.dtype)
            return [(zeros, zeros) if self.is_lstm else zeros] * count
        if self.is_lstm:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"{owner}: hx must be a tuple (h_0, c_0), got "
                                f"{type(hx).__name__}")
            parts = list(hx)
        else:
            parts = [hx]
        for i, h in enumerate(parts):
            name = f"hx[{i}]" if self.is_lstm else "hx"
            if not isinstance(h, Tensor):
                raise TypeError(f"{owner}: {name} must be a Tensor, got {type(h).__name__}")
            if tuple(h.shape) != expected:
                raise V.input_error(owner, h, f"{name} of shape {h.shape} is not (num_directions"
                                    f" * num_layers, batch_size, hidden_size) = {expected}")
            if h.dtype != x.dtype:
                raise TypeError(f"{owner}: {name} has dtype {h.dtype} but x has {x.dtype}")
        per_part = [_unstack(h) for h in parts]
        return list(zip(*per_part)) if self.is_lstm else list(per_part[0])

    def _lengths(self, seq_length, seq_len, batch):
        """The (B,) steps of each sequence: seq_length, or seq_len each without it."""
        if seq_length is None:
            return Tensor(np.full(batch, seq_len, np.int32))
        owner = type(self).__name__
        if not isinstance(seq_length, Tensor):
            raise TypeError(f"{owner}: seq_length must be a Tensor, got "
                            f"{type(seq_length).__name__}")
        if seq_length.dtype.name not in ("Int32", "Int64"):
            raise TypeError(f"{owner}: seq_length must be int32 or int64, got {seq_length.dtype}")
        if tuple(seq_length.shape) != (batch,):
            raise V.input_error(owner, seq_length, f"seq_length of shape {seq_length.shape} is "
                                f"not (batch_size,) = ({batch},)")
        return seq_length

    def construct(self, x, hx=None, seq_length=None):
        owner = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"{owner}: x must be a Tensor, got {type(x).__name__}")
        if x.ndim != 3 or x.shape[2] != self.input_size:
            layout = "(batch_size, seq_len" if self.batch_first else "(seq_len, batch_size"
            raise V.input_error(owner, x, f"x of shape {x.shape} is not {layout}, "
                                f"input_size={self.input_size})")
        if not x.dtype.is_float:
            raise TypeError(f"{owner}: x must be a float tensor, got {x.dtype}")
        if self.batch_first:
            x = F.transpose(x, (1, 0, 2))
        seq_len, batch = x.shape[0], x.shape[1]
        states = self._initial_states(hx, x, batch)
        out, finals = self._stacked(x, states, self._lengths(seq_length, seq_len, batch))
        if self.batch_first:
            out = F.transpose(out, (1, 0, 2))
        if self.is_lstm:
            return out, (_stack([s[0] for s in finals]), _stack([s[1] for s in finals]))
        return out, _stack(finals)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"num_layers={self.num_layers}, has_bias={self.has_bias}, "
                f"batch_first={self.batch_first}, dropout={self.dropout}, "
                f"bidirectional={self.bidirectional}")


class RNN(_RNNBase):
    """Stacked Elman RNN layers: h_t = act(x_t @ W_ih^T + b_ih + h_{t-1} @ W_hh^T + b_hh).

    Args:
        input_size: features of the input.
        hidden_size: features of the hidden state.
        num_layers: stacked layers.
        has_bias: whether each layer has the biases b_ih and b_hh.
        batch_first: inputs and outputs are (batch, seq, feature) instead of (seq, batch, feature).
        dropout: probability of the Dropout on each layer's output but the last's (training only).
        bidirectional: run a second, reversed direction per layer (outputs concatenated).
        dtype: dtype of the parameters.
        nonlinearity: 'tanh' (default) or 'relu' (keyword only, as in MindSpore).

    Inputs: x, hx of shape (num_directions * num_layers, batch, hidden) (zeros when None),
    seq_length (batch,) int32/int64 (None: every sequence is full length).
    Returns (output, h_n): output (seq, batch, num_directions * hidden) (or batch first).

    Example:
        >>> rnn = ms.nn.RNN(10, 16, 2, batch_first=True)
        >>> out, h_n = rnn(ms.ops.ones((3, 5, 10)))
        >>> out.shape, h_n.shape
        ((3, 5, 16), (2, 3, 16))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 has_bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, dtype: DTypeLike = float32, *, nonlinearity: str = "tanh") -> None:
        V.one_of(nonlinearity, "nonlinearity", "RNN", ("tanh", "relu"))
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, has_bias, batch_first, dropout, bidirectional,
                         dtype)
        self.nonlinearity = nonlinearity


class LSTM(_RNNBase):
    """Stacked LSTM layers, gates in MindSpore's order i, f, g, o (chunks of the weights' rows):
    c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g), h_t = sigmoid(o) * tanh(c_t).

    Args:
        input_size: features of the input.
        hidden_size: features of h and c.
        num_layers: stacked layers.
        has_bias: whether each layer has the biases b_ih and b_hh.
        batch_first: inputs and outputs are (batch, seq, feature) instead of (seq, batch, feature).
        dropout: probability of the Dropout on each layer's output but the last's (training only).
        bidirectional: run a second, reversed direction per layer (outputs concatenated).
        dtype: dtype of the parameters.

    Inputs: x, hx = (h_0, c_0) each (num_directions * num_layers, batch, hidden) (zeros when
    None), seq_length (batch,) int32/int64. Returns (output, (h_n, c_n)).

    Example:
        >>> lstm = ms.nn.LSTM(10, 16, 2, batch_first=True)
        >>> out, (h_n, c_n) = lstm(ms.ops.ones((3, 5, 10)))
        >>> out.shape
        (3, 5, 16)
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 has_bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, dtype: DTypeLike = float32) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, has_bias, batch_first,
                         dropout, bidirectional, dtype)


class GRU(_RNNBase):
    """Stacked GRU layers, gates in MindSpore's order r, z, n: n_t = tanh(x_n + r * h_n),
    h_t = n_t + z * (h_{t-1} - n_t) (x_* and h_* chunks of x_t @ W_ih^T + b_ih and
    h_{t-1} @ W_hh^T + b_hh).

    Args:
        input_size: features of the input.
        hidden_size: features of the hidden state.
        num_layers: stacked layers.
        has_bias: whether each layer has the biases b_ih and b_hh.
        batch_first: inputs and outputs are (batch, seq, feature) instead of (seq, batch, feature).
        dropout: probability of the Dropout on each layer's output but the last's (training only).
        bidirectional: run a second, reversed direction per layer (outputs concatenated).
        dtype: dtype of the parameters.

    Inputs: x, hx (num_directions * num_layers, batch, hidden) (zeros when None), seq_length
    (batch,) int32/int64. Returns (output, h_n).

    Example:
        >>> gru = ms.nn.GRU(10, 16, bidirectional=True)
        >>> out, h_n = gru(ms.ops.ones((5, 3, 10)))
        >>> out.shape, h_n.shape
        ((5, 3, 32), (2, 3, 16))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 has_bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, dtype: DTypeLike = float32) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, has_bias, batch_first,
                         dropout, bidirectional, dtype)
