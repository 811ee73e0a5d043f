"""MaxPool2d and AvgPool2d over NCHW inputs, MaxPool1d and AvgPool1d over NCL (or CL) inputs
(MindSpore's defaults: kernel 1, stride 1, 'valid').

    >>> import minispore as ms
    >>> ms.nn.MaxPool2d(kernel_size=2, stride=2)(ms.ops.ones((1, 1, 4, 4))).shape
    (1, 1, 2, 2)
    >>> ms.nn.AvgPool1d(kernel_size=3, stride=2)(ms.ops.ones((2, 4, 9))).shape
    (2, 4, 4)
"""
from __future__ import annotations
from typing import Any, Union
import numbers

from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from ...core.hints import Tensor, ShapeLike


class _Pool2d(Cell):
    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode, data_format):
        super().__init__()
        name = type(self).__name__
        self.kernel_size = V.int_pair(kernel_size, "kernel_size", name)
        self.stride = V.int_pair(stride, "stride", name)
        self.pad_mode = V.one_of(pad_mode.lower() if isinstance(pad_mode, str) else pad_mode,
                                 "pad_mode", name, ("same", "valid", "pad"))
        V.one_of(data_format, "data_format", name, ("NCHW",))
        if self.pad_mode != "pad" and padding not in (0, (0, 0), (0, 0, 0, 0)):
            raise ValueError(f"{name}: padding must be 0 when pad_mode is {self.pad_mode!r}, "
                             f"got {padding!r}")
        self.padding = padding
        self.ceil_mode = V.boolean(ceil_mode, "ceil_mode", name)

    def extend_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}")


class MaxPool2d(_Pool2d):
    """Maximum over each kernel_size window, moving by stride.

    pad_mode: 'valid' (no padding), 'same' (output size ceil(input / stride)) or 'pad'
    (explicit `padding`, int or (h, w), never chosen as the maximum). return_indices=True
    returns (output, argmax) as ops.max_pool2d does: argmax, int64, is the flat position
    h * W + w in its input plane of each window's first maximum.

        >>> x = ms.Tensor(np.array([[[[1.0, 4.0], [3.0, 2.0]]]], np.float32))
        >>> out, argmax = ms.nn.MaxPool2d(2, 2, return_indices=True)(x)
        >>> argmax.asnumpy().ravel().tolist()
        [1]
    """

    def __init__(self, kernel_size: ShapeLike = 1, stride: ShapeLike = 1, pad_mode: str = "valid", padding: ShapeLike = 0, dilation: ShapeLike = 1,
                 return_indices: bool = False, ceil_mode: bool = False, data_format: str = "NCHW") -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        self.dilation = V.int_pair(dilation, "dilation", "MaxPool2d")
        self.return_indices = V.boolean(return_indices, "return_indices", "MaxPool2d")

    def construct(self, x: Tensor) -> Union[Tensor, tuple[Tensor, Tensor]]:
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.return_indices, self.ceil_mode, pad_mode=self.pad_mode)


class AvgPool2d(_Pool2d):
    """Mean over each kernel_size window, moving by stride.

    pad_mode as MaxPool2d; with 'same' the mean counts only real input cells, with 'pad' the
    zero padding counts unless count_include_pad=False. divisor_override replaces the divisor.
    """

    def __init__(self, kernel_size: ShapeLike = 1, stride: ShapeLike = 1, pad_mode: str = "valid", padding: ShapeLike = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: Any = None, data_format: str = "NCHW") -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        self.count_include_pad = V.boolean(count_include_pad, "count_include_pad", "AvgPool2d")
        self.divisor_override = divisor_override

    def construct(self, x: Tensor) -> Tensor:
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override or 0,
                            pad_mode=self.pad_mode)


# ***** 1-D: a row of height 1 through the 2-D pools (their gradients, and one code path) *****

def _single(value, name, owner):
    """An int or a one-element tuple of ints, as an int."""
    if not isinstance(value, numbers.Integral):
        if len(tuple(value)) != 1:
            raise ValueError(f"{owner}: {name} must be an int or a 1-tuple, got {value!r}")
        (value,) = value
    return value


class _Pool1d(Cell):
    def __init__(self, pool, pad_mode, padding):
        super().__init__()
        self.pool = pool  # the 2-D pool over (N, C, 1, L)
        self.kernel_size, self.stride = pool.kernel_size[1], pool.stride[1]
        self.pad_mode, self.padding = pool.pad_mode, padding

    def extend_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}")

    def construct(self, x):
        if x.ndim not in (2, 3):
            raise V.input_error(type(self).__name__, x, f"input must be (N, C, L) or (C, L), "
                                f"got shape {tuple(x.shape)}")
        batched = x.ndim == 3
        rows = F.expand_dims(x if batched else F.expand_dims(x, 0), 2)
        out = self.pool(rows)
        if isinstance(out, tuple):  # MaxPool1d(return_indices=True): positions along L
            return tuple(self._unrow(o, batched) for o in out)
        return self._unrow(out, batched)

    @staticmethod
    def _unrow(out, batched):
        out = F.squeeze(out, 2)
        return out if batched else F.squeeze(out, 0)


class MaxPool1d(_Pool1d):
    """Maximum over each kernel_size window along the last axis of an (N, C, L) or (C, L)
    input, moving by stride. pad_mode, padding (an int), dilation, return_indices (int64
    positions along L of each window's first maximum) and ceil_mode as MaxPool2d.

        >>> x = ms.Tensor(np.array([[[1.0, 4.0, 3.0, 2.0]]], np.float32))
        >>> ms.nn.MaxPool1d(2, 2)(x).asnumpy().tolist()
        [[[4.0, 3.0]]]
    """

    def __init__(self, kernel_size: int = 1, stride: int = 1, pad_mode: str = "valid", padding: int = 0, dilation: int = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        owner = "MaxPool1d"
        padding = _single(padding, "padding", owner)
        super().__init__(MaxPool2d((1, _single(kernel_size, "kernel_size", owner)),
                                   (1, _single(stride, "stride", owner)), pad_mode,
                                   (0, padding), (1, _single(dilation, "dilation", owner)),
                                   return_indices, ceil_mode), pad_mode, padding)


class AvgPool1d(_Pool1d):
    """Mean over each kernel_size window along the last axis of an (N, C, L) or (C, L)
    input, moving by stride; pad_mode, padding (an int), ceil_mode and count_include_pad as
    AvgPool2d.

        >>> x = ms.Tensor(np.array([[[1.0, 4.0, 3.0, 2.0]]], np.float32))
        >>> ms.nn.AvgPool1d(2, 2)(x).asnumpy().tolist()
        [[[2.5, 2.5]]]
    """

    def __init__(self, kernel_size: int = 1, stride: int = 1, pad_mode: str = "valid", padding: int = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        owner = "AvgPool1d"
        padding = _single(padding, "padding", owner)
        super().__init__(AvgPool2d((1, _single(kernel_size, "kernel_size", owner)),
                                   (1, _single(stride, "stride", owner)), pad_mode,
                                   (0, padding), ceil_mode, count_include_pad), pad_mode, padding)
