"""One step of an Elman RNN, an LSTM and a GRU, and the Cells of a single step: RNNCell,
LSTMCell, GRUCell (MindSpore's gate order, weight layout and parameter names).

A step takes the input's projection `gi = x @ weight_ih^T (+ biases)` computed beforehand
(nn.LSTM computes it for every time step in one GEMM) and does the recurrent GEMM
`h @ weight_hh^T` itself. The gate chunks are views (`split_v`) of the two GEMMs' outputs, so
everything after the GEMMs is one elementwise chain: Graph mode fuses it into one kernel per
step, and its gradient into one or two.

    >>> import minispore as ms
    >>> cell = ms.nn.LSTMCell(10, 16)
    >>> h, c = cell(ms.ops.ones((3, 10)), (ms.ops.zeros((3, 16)), ms.ops.zeros((3, 16))))
    >>> h.shape
    (3, 16)
"""
from __future__ import annotations
import math

from ...core.dtype import float32, to_type
from ...core.initializer import Uniform
from ...core.tensor import Tensor
from ...ops import functional as F
from ...ops.array import split_v
from .. import validation as V
from ..cell import Cell
from .basic import make_weight
from ...core.hints import DTypeLike

# gates per step: Elman RNN 1, GRU 3 (r, z, n), LSTM 4 (i, f, g, o)
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}


def chunks(x, n):
    """x's last axis cut into n equal views."""
    if n == 1:
        return (x,)
    return split_v(x, axis=x.ndim - 1, sections=(x.shape[-1] // n,) * n)


def input_projection(x, w_ih, b_ih, b_hh, mode):
    """x @ w_ih^T plus the biases that add to it unchanged: both for LSTM and Elman RNNs,
    b_ih alone for GRU (whose b_hh sits inside the reset gate's product)."""
    gi = F.matmul(x, w_ih, transpose_b=True)
    if b_ih is None:
        return gi
    gi = F.add(gi, b_ih)
    # added one after the other, both adds are one kernel over gi's shape
    return gi if mode == "GRU" else F.add(gi, b_hh)


def step(mode, gi, state, w_hh, b_hh_chunks):
    """The next state from the input projection gi (B, gates * H) and the state: h, or
    (h, c) for LSTM. b_hh_chunks: GRU's recurrent bias in its 3 chunks (None without bias)."""
    h = state[0] if mode == "LSTM" else state
    gh = F.matmul(h, w_hh, transpose_b=True)
    if mode == "RNN_TANH":
        return F.tanh(gi + gh)
    if mode == "RNN_RELU":
        return F.relu(gi + gh)
    n = GATES[mode]
    xs, hs = chunks(gi, n), chunks(gh, n)
    if mode == "LSTM":
        i = F.sigmoid(xs[0] + hs[0])
        f = F.sigmoid(xs[1] + hs[1])
        g = F.tanh(xs[2] + hs[2])
        o = F.sigmoid(xs[3] + hs[3])
        c = f * state[1] + i * g
        return o * F.tanh(c), c
    if b_hh_chunks is not None:
        hs = tuple(F.add(a, b) for a, b in zip(hs, b_hh_chunks))
    r = F.sigmoid(xs[0] + hs[0])
    z = F.sigmoid(xs[1] + hs[1])
    new = F.tanh(xs[2] + r * hs[2])
    return new + z * (h - new)


def cast_like(w, x):
    """A weight in the input's dtype (MindSpore runs the cell in x's dtype)."""
    return w if w is None or w.dtype == x.dtype else F.cast(w, x.dtype)


def check_state(owner, name, h, x, hidden_size):
    if not isinstance(h, Tensor):
        raise TypeError(f"{owner}: {name} must be a Tensor, got {type(h).__name__}")
    if h.ndim != 2 or h.shape[0] != x.shape[0] or h.shape[1] != hidden_size:
        raise V.input_error(owner, h, f"{name} of shape {h.shape} is not (batch_size, "
                            f"hidden_size) = ({x.shape[0]}, {hidden_size})")
    if h.dtype != x.dtype:
        raise TypeError(f"{owner}: {name} has dtype {h.dtype} but x has {x.dtype}")


class _RNNCellBase(Cell):
    """weight_ih (gates * hidden, input), weight_hh (gates * hidden, hidden), bias_ih and
    bias_hh (gates * hidden), all U(-1/sqrt(hidden), 1/sqrt(hidden)) as in MindSpore."""
    _mode: str  # "RNN_TANH", "LSTM"...: each subclass sets it

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True,
                 dtype=float32):
        super().__init__()
        owner = type(self).__name__
        self.input_size = V.positive_int(input_size, "input_size", owner)
        self.hidden_size = V.positive_int(hidden_size, "hidden_size", owner)
        self.has_bias = V.boolean(has_bias, "has_bias", owner)
        dtype, gates = to_type(dtype), GATES[self._mode] * hidden_size
        init = Uniform(1.0 / math.sqrt(hidden_size))
        self.weight_ih = make_weight(init, (gates, input_size), dtype, "weight_ih", owner)
        self.weight_hh = make_weight(init, (gates, hidden_size), dtype, "weight_hh", owner)
        self.bias_ih = self.bias_hh = None
        if has_bias:
            self.bias_ih = make_weight(init, (gates,), dtype, "bias_ih", owner)
            self.bias_hh = make_weight(init, (gates,), dtype, "bias_hh", owner)

    def _check_x(self, x):
        owner = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"{owner}: x must be a Tensor, got {type(x).__name__}")
        if x.ndim != 2 or x.shape[1] != self.input_size:
            raise V.input_error(owner, x, f"x of shape {x.shape} is not (batch_size, "
                                f"input_size={self.input_size})")

    def _step(self, x, state):
        mode = self._mode
        w_ih, w_hh = cast_like(self.weight_ih, x), cast_like(self.weight_hh, x)
        b_ih, b_hh = cast_like(self.bias_ih, x), cast_like(self.bias_hh, x)
        gi = input_projection(x, w_ih, b_ih, b_hh, mode)
        b_chunks = chunks(b_hh, 3) if mode == "GRU" and b_hh is not None else None
        return step(mode, gi, state, w_hh, b_chunks)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"has_bias={self.has_bias}")


class RNNCell(_RNNCellBase):
    """An Elman RNN cell: h' = act(x @ W_ih^T + b_ih + h @ W_hh^T + b_hh), act tanh or relu.

    Args:
        input_size: features of the input x, of shape (batch_size, input_size).
        hidden_size: features of the state hx, of shape (batch_size, hidden_size).
        has_bias: whether the cell has the biases bias_ih and bias_hh.
        nonlinearity: 'tanh' or 'relu'.
        dtype: dtype of the parameters.

    Example:
        >>> cell = ms.nn.RNNCell(10, 16)
        >>> cell(ms.ops.ones((3, 10)), ms.ops.zeros((3, 16))).shape
        (3, 16)
    """
    _mode = "RNN_TANH"  # (one gate either way; relu is set after the parameters)

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True,
                 nonlinearity: str = "tanh", dtype: DTypeLike = float32) -> None:
        V.one_of(nonlinearity, "nonlinearity", "RNNCell", ("tanh", "relu"))
        super().__init__(input_size, hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"

    def construct(self, x: Tensor, hx: Tensor) -> Tensor:
        self._check_x(x)
        check_state("RNNCell", "hx", hx, x, self.hidden_size)
        return self._step(x, hx)


class LSTMCell(_RNNCellBase):
    """An LSTM cell, gates in MindSpore's order i, f, g, o (chunks of the weights' rows):
    c' = sigmoid(f) * c + sigmoid(i) * tanh(g), h' = sigmoid(o) * tanh(c').

    Args:
        input_size: features of the input x, of shape (batch_size, input_size).
        hidden_size: features of h and c, each of shape (batch_size, hidden_size).
        has_bias: whether the cell has the biases bias_ih and bias_hh.
        dtype: dtype of the parameters.

    Returns (h', c') for x and hx = (h, c).

    Example:
        >>> cell = ms.nn.LSTMCell(10, 16)
        >>> h, c = cell(ms.ops.ones((3, 10)), (ms.ops.zeros((3, 16)), ms.ops.zeros((3, 16))))
    """
    _mode = "LSTM"

    def construct(self, x: Tensor, hx: Tensor) -> Tensor:
        self._check_x(x)
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise TypeError(f"LSTMCell: hx must be a tuple (h, c), got {type(hx).__name__}")
        check_state("LSTMCell", "hx[0]", hx[0], x, self.hidden_size)
        check_state("LSTMCell", "hx[1]", hx[1], x, self.hidden_size)
        return self._step(x, tuple(hx))


class GRUCell(_RNNCellBase):
    """A GRU cell, gates in MindSpore's order r, z, n: r = sigmoid(x_r + h_r),
    z = sigmoid(x_z + h_z), n = tanh(x_n + r * h_n), h' = n + z * (h - n) (x_* and h_* the
    chunks of x @ W_ih^T + b_ih and h @ W_hh^T + b_hh).

    Args:
        input_size: features of the input x, of shape (batch_size, input_size).
        hidden_size: features of the state hx, of shape (batch_size, hidden_size).
        has_bias: whether the cell has the biases bias_ih and bias_hh.
        dtype: dtype of the parameters.

    Example:
        >>> cell = ms.nn.GRUCell(10, 16)
        >>> cell(ms.ops.ones((3, 10)), ms.ops.zeros((3, 16))).shape
        (3, 16)
    """
    _mode = "GRU"

    def construct(self, x: Tensor, hx: Tensor) -> Tensor:
        self._check_x(x)
        check_state("GRUCell", "hx", hx, x, self.hidden_size)
        return self._step(x, hx)
