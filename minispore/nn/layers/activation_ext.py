"""More activation Cells with MindSpore 2.x's arguments and defaults: PReLU (a learnt slope),
HSwish, HSigmoid, Mish, Hardtanh, SeLU, CELU, GLU, LogSigmoid, Softsign, Softmin, SoftShrink,
HShrink, Tanhshrink, Threshold, FastGelu, RReLU, Softmax2d (`nn.get_activation` knows them).

    >>> import minispore as ms
    >>> ms.nn.Hardtanh()(ms.Tensor([-3.0, 0.5])).asnumpy().tolist()
    [-1.0, 0.5]
"""
from __future__ import annotations
from typing import Callable

import numpy as np

from ...core.dtype import float32
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from ...core.hints import Axis


def _elementwise(name: str, fn: Callable[[Tensor], Tensor], doc: str,
                 module: str = __name__) -> type:
    """A Cell class without attributes whose construct is `fn(x)`."""
    def construct(self: Cell, x: Tensor) -> Tensor:
        return fn(x)
    return type(name, (Cell,), {"construct": construct, "__doc__": doc,
                                "__module__": module})


HSwish = _elementwise("HSwish", F.hardswish, "x * relu6(x + 3) / 6.")
HSigmoid = _elementwise("HSigmoid", F.hardsigmoid, "relu6(x + 3) / 6.")
Mish = _elementwise("Mish", F.mish, "x * tanh(softplus(x)).")
SeLU = _elementwise("SeLU", F.selu, "scale * elu(x, alpha) with SELU's fixed constants.")
LogSigmoid = _elementwise("LogSigmoid", F.logsigmoid, "log(sigmoid(x)), without overflow.")
Softsign = _elementwise("Softsign", F.softsign, "x / (1 + |x|).")
Tanhshrink = _elementwise("Tanhshrink", F.tanhshrink, "x - tanh(x).")
FastGelu = _elementwise("FastGelu", F.fast_gelu, "x * sigmoid(1.702 x) (MindSpore's FastGelu).")


class PReLU(Cell):
    """x where x > 0, w * x elsewhere, with a learnt slope `w` (Parameter named 'a') shared by
    all channels (channel=1) or one per channel (axis 1), initialised to `w` (0.25).

        >>> ms.nn.PReLU()(ms.Tensor([[-4.0, 1.0]])).asnumpy().tolist()
        [[-1.0, 1.0]]
    """

    def __init__(self, channel: int = 1, w: float = 0.25) -> None:
        super().__init__()
        channel = V.positive_int(channel, "channel", "PReLU")
        if isinstance(w, Tensor):
            data = w.asnumpy().astype(np.float32).reshape(-1)
            if data.size not in (1, channel):
                raise ValueError(f"PReLU: w has {data.size} values for {channel} channels")
            data = np.broadcast_to(data, (channel,)).copy()
        elif isinstance(w, (int, float, np.floating, np.integer)):
            data = np.full((channel,), float(w), np.float32)
        else:
            raise TypeError(f"PReLU: w must be a float or a Tensor, got {type(w).__name__}")
        self.w = Parameter(Tensor(data, float32), name="a")

    def construct(self, x: Tensor) -> Tensor:
        return F.prelu(x, self.w)


class Hardtanh(Cell):
    """x clipped to [min_val, max_val] (default [-1, 1])."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val {min_val} must not exceed max_val {max_val}")
        self.min_val, self.max_val = float(min_val), float(max_val)

    def construct(self, x: Tensor) -> Tensor:
        return F.hardtanh(x, self.min_val, self.max_val)


class CELU(Cell):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (alpha 1.0)."""

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        if alpha == 0:
            raise ValueError("CELU: alpha must not be 0")
        self.alpha = float(alpha)

    def construct(self, x: Tensor) -> Tensor:
        return F.celu(x, self.alpha)


class GLU(Cell):
    """a * sigmoid(b), a and b the halves of x along `axis` (-1)."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = int(axis)

    def construct(self, x: Tensor) -> Tensor:
        return F.glu(x, self.axis)


class Softmin(Cell):
    """softmax(-x) along `axis` (-1)."""

    def __init__(self, axis: Axis = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Tensor) -> Tensor:
        return F.softmin(x, self.axis)


class Softmax2d(Cell):
    """Softmax over the channels of (C, H, W) or (N, C, H, W) inputs (axis -3)."""

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim not in (3, 4):
            raise V.input_error("Softmax2d", x, f"input must be 3-D or 4-D, got shape {x.shape}")
        return F.softmax(x, -3)


class SoftShrink(Cell):
    """x - lambd above lambd, x + lambd below -lambd, 0 between (lambd 0.5)."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        if lambd < 0:
            raise ValueError(f"SoftShrink: lambd must be >= 0, got {lambd}")
        self.lambd = float(lambd)

    def construct(self, x: Tensor) -> Tensor:
        return F.softshrink(x, self.lambd)


class HShrink(Cell):
    """x where |x| > lambd, 0 elsewhere (lambd 0.5)."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = float(lambd)

    def construct(self, x: Tensor) -> Tensor:
        return F.hardshrink(x, self.lambd)


class Threshold(Cell):
    """x where x > threshold, `value` elsewhere."""

    def __init__(self, threshold: float, value: float) -> None:
        super().__init__()
        self.threshold, self.value = float(threshold), float(value)

    def construct(self, x: Tensor) -> Tensor:
        return F.threshold(x, self.threshold, self.value)


class RReLU(Cell):
    """Randomized leaky ReLU: negative inputs scaled by a slope drawn from U(lower, upper) per
    element while training, by (lower + upper) / 2 in evaluation."""

    def __init__(self, lower: float = 1 / 8, upper: float = 1 / 3) -> None:
        super().__init__()
        if not 0 <= lower <= upper:
            raise ValueError(f"RReLU: need 0 <= lower <= upper, got {lower}, {upper}")
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x: Tensor) -> Tensor:
        return F.rrelu(x, self.lower, self.upper, training=self.training)

