"""Cells over math ops (MindSpore's nn/layer/math.py and a few of basic.py): reductions
(Norm, ReduceLogSumExp, Moments), special functions (LGamma, DiGamma, LBeta), linear algebra
(MatMul, MatInverse, MatDet, MatrixDiag, MatrixDiagPart, MatrixSetDiag), OneHot, Range and
L1Regularizer.

    >>> import numpy as np
    >>> ms.nn.Norm(axis=1)(ms.Tensor(np.array([[3.0, 4.0]], np.float32))).tolist()
    [5.0]
"""
from __future__ import annotations

import numbers
from typing import Optional, Sequence, Union

import numpy as np

from ...core.dtype import float32, int32, to_type
from ...core.hints import DTypeLike, Tensor
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell

__all__ = ["Norm", "ReduceLogSumExp", "Moments", "LGamma", "DiGamma", "LBeta", "MatMul",
           "MatInverse", "MatDet", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "OneHot",
           "Range", "L1Regularizer"]

_AxisArg = Union[int, Sequence[int]]


def _axis(axis: _AxisArg, owner: str) -> Optional[Union[int, tuple[int, ...]]]:
    """MindSpore's reduction axis: an int, or a tuple/list of ints where () means every axis."""
    if isinstance(axis, bool) or not isinstance(axis, (int, tuple, list)):
        raise TypeError(f"{owner}: axis must be an int, a tuple or a list, got {axis!r}")
    if isinstance(axis, int):
        return axis
    return tuple(int(a) for a in axis) or None


# ***** reductions *****

class Norm(Cell):
    """Euclidean norm sqrt(sum(x^2)) over `axis` (() means every axis).

        >>> import numpy as np
        >>> ms.nn.Norm()(ms.Tensor(np.array([[1.0, 2.0], [2.0, 4.0]], np.float32))).item()
        5.0
    """

    def __init__(self, axis: _AxisArg = (), keep_dims: bool = False) -> None:
        super().__init__()
        self.axis = _axis(axis, "Norm")
        self.keep_dims = V.boolean(keep_dims, "keep_dims", "Norm")

    def construct(self, x: Tensor) -> Tensor:
        return F.sqrt(F.reduce_sum(F.square(x), self.axis, self.keep_dims))


class ReduceLogSumExp(Cell):
    """log(sum(exp(x))) over `axis`, computed stably (the maximum is taken out first).

        >>> import numpy as np
        >>> x = ms.Tensor(np.zeros((2, 4), np.float32))
        >>> ms.nn.ReduceLogSumExp(1)(x).asnumpy().astype(float).round(4).tolist()
        [1.3863, 1.3863]
    """

    def __init__(self, axis: _AxisArg, keep_dims: bool = False) -> None:
        super().__init__()
        self.axis = _axis(axis, "ReduceLogSumExp")
        self.keep_dims = V.boolean(keep_dims, "keep_dims", "ReduceLogSumExp")

    def construct(self, x: Tensor) -> Tensor:
        return F.logsumexp(x, self.axis, self.keep_dims)


class Moments(Cell):
    """(mean, variance) of the input over `axis` (None: every axis); the variance is the
    biased one, mean((x - mean)^2).

        >>> import numpy as np
        >>> mean, var = ms.nn.Moments(axis=0)(ms.Tensor(np.array([1.0, 3.0], np.float32)))
        >>> mean.item(), var.item()
        (2.0, 1.0)
    """

    def __init__(self, axis: Optional[_AxisArg] = None, keep_dims: Optional[bool] = None) -> None:
        super().__init__()
        self.axis = None if axis is None else _axis(axis, "Moments")
        self.keep_dims = False if keep_dims is None else V.boolean(keep_dims, "keep_dims",
                                                                   "Moments")

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        mean = F.mean(x, self.axis, True)
        variance = F.mean(F.square(x - mean), self.axis, self.keep_dims)
        if not self.keep_dims:
            mean = F.mean(x, self.axis, False)
        return mean, variance


# ***** special functions *****

class LGamma(Cell):
    """log |Gamma(x)|, elementwise (+inf at the poles 0, -1, -2...).

        >>> import numpy as np
        >>> ms.nn.LGamma()(ms.Tensor(np.array([1.0, 3.0], np.float32))).asnumpy().astype(float).round(4).tolist()
        [0.0, 0.6931]
    """

    def construct(self, x: Tensor) -> Tensor:
        return F.lgamma(x)


class DiGamma(Cell):
    """digamma(x) = d/dx log Gamma(x), elementwise.

        >>> import numpy as np
        >>> ms.nn.DiGamma()(ms.Tensor(np.array([1.0], np.float32))).asnumpy().astype(float).round(4).tolist()
        [-0.5772]
    """

    def construct(self, x: Tensor) -> Tensor:
        return F.digamma(x)


class LBeta(Cell):
    """log |Beta(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y), elementwise (broadcast).

        >>> import numpy as np
        >>> x = ms.Tensor(np.array([2.0], np.float32))
        >>> ms.nn.LBeta()(x, x).asnumpy().astype(float).round(4).tolist()   # log(1/6)
        [-1.7918]
    """

    def construct(self, x: Tensor, y: Tensor) -> Tensor:
        return F.lgamma(x) + F.lgamma(y) - F.lgamma(x + y)


# ***** linear algebra *****

class MatMul(Cell):
    """Matrix product with numpy's broadcasting of the leading axes; transpose_x1/x2 swap the
    last two axes of an operand first (a 1-D operand is a vector, as in numpy.matmul).

        >>> a = ms.ops.ones((2, 3, 4))
        >>> ms.nn.MatMul(transpose_x2=True)(a, ms.ops.ones((5, 4))).shape
        (2, 3, 5)
    """

    def __init__(self, transpose_x1: bool = False, transpose_x2: bool = False) -> None:
        super().__init__()
        self.transpose_x1 = V.boolean(transpose_x1, "transpose_x1", "MatMul")
        self.transpose_x2 = V.boolean(transpose_x2, "transpose_x2", "MatMul")

    def construct(self, x1: Tensor, x2: Tensor) -> Tensor:
        if self.transpose_x1 and x1.ndim >= 2:
            x1 = F.swap_last_axes(x1)
        if self.transpose_x2 and x2.ndim >= 2:
            x2 = F.swap_last_axes(x2)
        return F.matmul(x1, x2)


class MatInverse(Cell):
    """Inverse of each square matrix of the last two axes.

        >>> import numpy as np
        >>> x = ms.Tensor(np.array([[2.0, 0.0], [0.0, 4.0]], np.float32))
        >>> ms.nn.MatInverse()(x).tolist()
        [[0.5, 0.0], [0.0, 0.25]]
    """

    def construct(self, a: Tensor) -> Tensor:
        return F.matrix_inverse(a)


class MatDet(Cell):
    """Determinant of each square matrix of the last two axes.

        >>> import numpy as np
        >>> x = ms.Tensor(np.array([[2.0, 1.0], [1.0, 3.0]], np.float32))
        >>> round(ms.nn.MatDet()(x).item(), 4)
        5.0
    """

    def construct(self, a: Tensor) -> Tensor:
        return F.det(a)


class MatrixDiag(Cell):
    """Batched diagonal matrices from the last axis: (*, n) -> (*, n, n).

        >>> import numpy as np
        >>> ms.nn.MatrixDiag()(ms.Tensor(np.array([1.0, 2.0], np.float32))).tolist()
        [[1.0, 0.0], [0.0, 2.0]]
    """

    def construct(self, input_x: Tensor) -> Tensor:
        return F.diag_embed(input_x)


class MatrixDiagPart(Cell):
    """The main diagonal of each matrix of the last two axes: (*, m, n) -> (*, min(m, n)).

        >>> import numpy as np
        >>> x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        >>> ms.nn.MatrixDiagPart()(x).tolist()
        [0.0, 4.0]
    """

    def construct(self, input_x: Tensor) -> Tensor:
        return F.diagonal(input_x, 0, -2, -1)


class MatrixSetDiag(Cell):
    """The input with the main diagonal of each matrix replaced: construct(x, diagonal), x
    (*, m, n), diagonal (*, min(m, n)).

        >>> import numpy as np
        >>> x = ms.ops.zeros((2, 2))
        >>> ms.nn.MatrixSetDiag()(x, ms.Tensor(np.array([1.0, 2.0], np.float32))).tolist()
        [[1.0, 0.0], [0.0, 2.0]]
    """

    def construct(self, input_x: Tensor, diagonal: Tensor) -> Tensor:
        return F.matrix_set_diag(input_x, diagonal)


# ***** OneHot, Range, L1Regularizer *****

class OneHot(Cell):
    """One-hot encoding of integer indices: `on_value` at each index along a new axis `axis`
    of length `depth`, `off_value` elsewhere, in `dtype`.

        >>> import numpy as np
        >>> ms.nn.OneHot(depth=3)(ms.Tensor(np.array([0, 2], np.int32))).tolist()
        [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """

    def __init__(self, axis: int = -1, depth: int = 1, on_value: float = 1.0,
                 off_value: float = 0.0, dtype: DTypeLike = float32) -> None:
        super().__init__()
        self.axis = int(axis)
        self.depth = V.positive_int(depth, "depth", "OneHot")
        self.on_value, self.off_value = on_value, off_value
        self.dtype = to_type(dtype)

    def construct(self, indices: Tensor) -> Tensor:
        out = F.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis)
        return F.cast(out, self.dtype)


class Range(Cell):
    """The constant sequence start, start + delta, ... below limit (limit None: 0 to start),
    Int32 when every argument is an int, else Float32. construct() takes no input.

        >>> ms.nn.Range(1, 8, 2)().tolist()
        [1, 3, 5, 7]
    """

    def __init__(self, start: Union[int, float], limit: Optional[Union[int, float]] = None,
                 delta: Union[int, float] = 1) -> None:
        super().__init__()
        if delta == 0:
            raise ValueError("Range: delta can not be zero")
        data = np.arange(start, limit, delta)
        integral = all(isinstance(v, numbers.Integral) for v in (start, limit, delta)
                       if v is not None)
        self.result_tensor = Tensor(data.astype(np.int32 if integral else np.float32),
                                    int32 if integral else float32)

    def construct(self) -> Tensor:
        return self.result_tensor


class L1Regularizer(Cell):
    """scale * sum(|weights|), the L1 penalty of a weight tensor.

        >>> import numpy as np
        >>> ms.nn.L1Regularizer(0.5)(ms.Tensor(np.array([[1.0, -2.0]], np.float32))).item()
        1.5
    """

    def __init__(self, scale: Union[int, float]) -> None:
        super().__init__()
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise TypeError(f"L1Regularizer: scale must be an int or a float, got {scale!r}")
        if not scale > 0 or not np.isfinite(scale):
            raise ValueError(f"L1Regularizer: scale must be a finite number > 0, got {scale}")
        self.scale = float(scale)

    def construct(self, weights: Tensor) -> Tensor:
        return F.reduce_sum(F.abs(weights)) * self.scale
