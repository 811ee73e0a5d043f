"""Mode-parity cases (see test_mode_parity.py) of the recurrent layers: RNN, LSTM, GRU and
RNNCell, LSTMCell, GRUCell. Each trains the layer through its output and final states."""
import numpy as np
from nn_checks import T
from parity_harness import Setup, randn

from minispore import nn, ops


class Recurrent(nn.Cell):
    """A recurrent layer's output and final state(s), flattened side by side per sample."""

    def __init__(self, layer, seq_length=None, with_hx=False):
        super().__init__()
        self.layer, self.with_hx = layer, with_hx
        self.seq_length = None if seq_length is None else T(np.array(seq_length, np.int32))

    def construct(self, x):
        hx = None
        if self.with_hx:  # an initial state computed from the data: trained through too
            first = x[:, 0, :] if self.layer.batch_first else x[0]
            count = self.layer.num_layers * self.layer.num_directions
            h = ops.tile(ops.expand_dims(ops.tanh(first[:, :self.layer.hidden_size]), 0),
                         (count, 1, 1))
            hx = (h, h * 0.5) if isinstance(self.layer, nn.LSTM) else h
        out, state = self.layer(x, hx, self.seq_length)
        states = state if isinstance(state, tuple) else (state,)
        batch_axis = 0 if self.layer.batch_first else 1
        parts = [ops.reshape(ops.swapaxes(out, 0, batch_axis), (out.shape[batch_axis], -1))]
        parts += [ops.reshape(ops.swapaxes(s, 0, 1), (s.shape[1], -1)) for s in states]
        return ops.concat(parts, 1)


class Stepped(nn.Cell):
    """A single-step cell run over the time axis of a (T, B, I) input from a zero state."""

    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def construct(self, x):
        batch, hidden = x.shape[1], self.cell.hidden_size
        h = ops.zeros((batch, hidden), x.dtype)
        state = (h, h) if isinstance(self.cell, nn.LSTMCell) else h
        outs = []
        for t in range(x.shape[0]):
            state = self.cell(x[t], state)
            outs.append(state[0] if isinstance(state, tuple) else state)
        return ops.concat(outs, 1)


def recurrent(layer, in_shape, **kwargs):
    net = Recurrent(layer, **kwargs)
    width = net(randn(in_shape, 0)).shape[1]
    return Setup(net, randn(in_shape, 5), randn((in_shape[1 if not layer.batch_first else 0],
                                                 width), 6))


def stepped(cell):
    return Setup(Stepped(cell), randn((3, 2, 3), 5), randn((2, 3 * cell.hidden_size), 6))


CASES = [
    (nn.LSTM, "", lambda: recurrent(nn.LSTM(3, 4), (4, 2, 3))),
    (nn.LSTM, "2-layer-bidirectional-seq-length",
     lambda: recurrent(nn.LSTM(3, 4, num_layers=2, bidirectional=True), (4, 3, 3),
                       seq_length=[4, 2, 3])),
    (nn.LSTM, "batch-first-hx-dropout",
     lambda: recurrent(nn.LSTM(3, 2, num_layers=2, batch_first=True, dropout=0.3), (2, 4, 3),
                       with_hx=True)),
    (nn.GRU, "", lambda: recurrent(nn.GRU(3, 4), (4, 2, 3))),
    (nn.GRU, "bidirectional-seq-length-hx",
     lambda: recurrent(nn.GRU(3, 3, bidirectional=True, batch_first=True), (3, 4, 3),
                       seq_length=[4, 1, 3], with_hx=True)),
    (nn.GRU, "no-bias", lambda: recurrent(nn.GRU(3, 4, has_bias=False), (4, 2, 3))),
    (nn.RNN, "tanh-2-layer", lambda: recurrent(nn.RNN(3, 4, num_layers=2), (4, 2, 3))),
    (nn.RNN, "relu-bidirectional-seq-length",
     lambda: recurrent(nn.RNN(3, 4, bidirectional=True, nonlinearity="relu"), (4, 2, 3),
                       seq_length=[3, 4])),
    (nn.RNNCell, "", lambda: stepped(nn.RNNCell(3, 4))),
    (nn.RNNCell, "relu-no-bias",
     lambda: stepped(nn.RNNCell(3, 4, has_bias=False, nonlinearity="relu"))),
    (nn.LSTMCell, "", lambda: stepped(nn.LSTMCell(3, 4))),
    (nn.GRUCell, "", lambda: stepped(nn.GRUCell(3, 4))),
]
