"""Identity, Unflatten, channel dropout (Dropout1d/2d/3d), BiDense and TimeDistributed.

    >>> import minispore as ms
    >>> ms.nn.Unflatten(1, (2, 3))(ms.ops.ones((4, 6))).shape
    (4, 2, 3)
"""
from __future__ import annotations
from typing import Any, Callable
import math

from ...core.dtype import float32, to_type
from ...core.initializer import Uniform
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from .basic import make_weight
from ...core.hints import Tensor, Axis, DTypeLike


class Identity(Cell):
    """Returns its input unchanged (a placeholder layer)."""

    def construct(self, x: Tensor) -> Tensor:
        return x


class Unflatten(Cell):
    """Axis `axis` of the input split into the axes `unflattened_size` (ops.unflatten)."""

    def __init__(self, axis: Axis, unflattened_size: Any) -> None:
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"Unflatten: axis must be an int, got {axis!r}")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"Unflatten: unflattened_size must be a tuple or list, got "
                            f"{unflattened_size!r}")
        self.axis, self.unflattened_size = axis, tuple(unflattened_size)

    def construct(self, input: Tensor) -> Tensor:
        return F.unflatten(input, self.axis, self.unflattened_size)

    def extend_repr(self):
        return f"axis={self.axis}, unflattened_size={self.unflattened_size}"


class _ChannelDropout(Cell):
    """In training mode, zero each whole channel with probability p and scale the others by
    1 / (1 - p); in evaluation mode pass the input through."""
    _function: Callable[..., Tensor]  # the ops function; each subclass sets it

    def __init__(self, p=0.5):
        super().__init__()
        self.p = V.number_in(p, "p", type(self).__name__, 0.0, 1.0)

    def construct(self, x):
        if not self.training or self.p == 0.0:
            return x
        return type(self)._function(x, self.p, True)

    def extend_repr(self):
        return f"p={self.p}"


class Dropout1d(_ChannelDropout):
    """Channel dropout of (N, C, L) or (C, L) inputs (ops.dropout1d)."""
    _function = staticmethod(F.dropout1d)


class Dropout2d(_ChannelDropout):
    """Channel dropout of (N, C, H, W) or (C, H, W) inputs (ops.dropout2d)."""
    _function = staticmethod(F.dropout2d)


class Dropout3d(_ChannelDropout):
    """Channel dropout of (N, C, D, H, W) or (C, D, H, W) inputs (ops.dropout3d)."""
    _function = staticmethod(F.dropout3d)


class BiDense(Cell):
    """Bilinear layer y = x1^T A x2 + b of (*, in1_channels) and (*, in2_channels) inputs:
    weight (out_channels, in1_channels, in2_channels) and bias (out_channels,), both
    initialised U(-1/sqrt(in1), 1/sqrt(in1)) by default, as in MindSpore (ops.bidense).

        >>> import minispore as ms
        >>> ms.nn.BiDense(3, 4, 2)(ms.ops.ones((5, 3)), ms.ops.ones((5, 4))).shape
        (5, 2)
    """

    def __init__(self, in1_channels: Any, in2_channels: Any, out_channels: int, weight_init: Any = None,
                 bias_init: Any = None, has_bias: bool = True, dtype: DTypeLike = float32) -> None:
        super().__init__()
        self.in1_channels = V.positive_int(in1_channels, "in1_channels", "BiDense")
        self.in2_channels = V.positive_int(in2_channels, "in2_channels", "BiDense")
        self.out_channels = V.positive_int(out_channels, "out_channels", "BiDense")
        self.has_bias = V.boolean(has_bias, "has_bias", "BiDense")
        dtype, bound = to_type(dtype), 1.0 / math.sqrt(in1_channels)
        self.weight = make_weight(Uniform(bound) if weight_init is None else weight_init,
                                  (out_channels, in1_channels, in2_channels), dtype, "weight",
                                  "BiDense")
        self.bias = None
        if has_bias:
            self.bias = make_weight(Uniform(bound) if bias_init is None else bias_init,
                                    (out_channels,), dtype, "bias", "BiDense")

    def construct(self, input1: Tensor, input2: Tensor) -> Tensor:
        if input1.shape[-1:] != (self.in1_channels,) or input2.shape[-1:] != (self.in2_channels,):
            raise V.input_error("BiDense", input1, f"inputs of shapes {input1.shape} and "
                                f"{input2.shape} must end in {self.in1_channels} and "
                                f"{self.in2_channels}")
        return F.bidense(input1, input2, self.weight, self.bias)

    def extend_repr(self):
        return (f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
                f"output_channels={self.out_channels}, has_bias={self.has_bias}")


class TimeDistributed(Cell):
    """Applies `layer` to every time step of an input of at least 3 axes.

    Without `reshape_with_axis` the input is split along `time_axis`, `layer` runs on each
    slice and the results are stacked on `time_axis` again (works for any layer). With it,
    `time_axis` is moved next to `reshape_with_axis` and merged into it, `layer` runs once and
    the merged axis is split again (faster; the output keeps that axis order, as MindSpore's).

        >>> x = ms.ops.ones((32, 10, 3))
        >>> ms.nn.TimeDistributed(ms.nn.Dense(3, 6), time_axis=1, reshape_with_axis=0)(x).shape
        (32, 10, 6)
    """

    def __init__(self, layer: Callable[[Tensor], Tensor], time_axis: int,
                 reshape_with_axis: Any = None) -> None:
        super().__init__()
        if not callable(layer):
            raise TypeError(f"TimeDistributed: layer must be a Cell or a Primitive, "
                            f"got {type(layer).__name__}")
        for name, value in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"TimeDistributed: {name} must be an int, got {value!r}")
        self.layer, self.time_axis, self.reshape_with_axis = layer, time_axis, reshape_with_axis

    def construct(self, inputs: Tensor) -> Tensor:
        if inputs.ndim < 3:
            raise ValueError(f"TimeDistributed: the input must have at least 3 axes, got shape "
                             f"{tuple(inputs.shape)}")
        rank = inputs.ndim
        time = self.time_axis % rank
        if self.reshape_with_axis is None:
            steps = [self.layer(F.squeeze(s, time)) for s in F.split(inputs, 1, time)]
            return F.stack(steps, time)
        merge = self.reshape_with_axis % rank
        if merge == time:
            raise ValueError("TimeDistributed: reshape_with_axis must differ from time_axis")
        # the time axis goes right next to `merge` (after it, or before it when merge is last)
        new_time = rank - 2 if merge == rank - 1 else (merge + 1 if time > merge else merge - 1)
        first = min(new_time, merge)
        perm = list(range(rank))
        perm.insert(new_time, perm.pop(time))
        moved = F.transpose(inputs, tuple(perm))
        pair = tuple(moved.shape[first:first + 2])
        outputs = self.layer(F.reshape(moved, tuple(moved.shape[:first]) + (-1,)
                                       + tuple(moved.shape[first + 2:])))
        if first >= outputs.ndim or outputs.shape[first] != pair[0] * pair[1]:
            raise ValueError(f"TimeDistributed: the layer changed the merged axis {first} "
                             f"(output shape {tuple(outputs.shape)}); call it without "
                             f"reshape_with_axis")
        return F.reshape(outputs, tuple(outputs.shape[:first]) + pair
                         + tuple(outputs.shape[first + 1:]))
