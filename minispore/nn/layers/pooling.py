"""MaxPool2d and AvgPool2d over NCHW inputs (MindSpore's defaults: kernel 1, stride 1, 'valid').

    >>> import minispore as ms
    >>> ms.nn.MaxPool2d(kernel_size=2, stride=2)(ms.ops.ones((1, 1, 4, 4))).shape
    (1, 1, 2, 2)
"""
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell


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

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        self.dilation = V.int_pair(dilation, "dilation", "MaxPool2d")
        self.return_indices = V.boolean(return_indices, "return_indices", "MaxPool2d")

    def construct(self, x):
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.return_indices, self.ceil_mode, pad_mode=self.pad_mode)


class AvgPool2d(_Pool2d):
    """Mean over each kernel_size window, moving by stride.

    pad_mode as MaxPool2d; with 'same' the mean counts only real input cells, with 'pad' the
    zero padding counts unless count_include_pad=False. divisor_override replaces the divisor.
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        self.count_include_pad = V.boolean(count_include_pad, "count_include_pad", "AvgPool2d")
        self.divisor_override = divisor_override

    def construct(self, x):
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override or 0,
                            pad_mode=self.pad_mode)
