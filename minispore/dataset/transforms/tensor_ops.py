"""Column operations on numpy arrays: TypeCast, OneHot, Fill, Duplicate, Concatenate, Mask,
PadEnd, Slice and Unique (MindSpore's `dataset.transforms`)."""
import operator
from enum import IntEnum

import numpy as np

from ...core.dtype import to_np
from ..batching import pad_end
from .base import TensorOperation

__all__ = ["TypeCast", "OneHot", "Fill", "Duplicate", "Concatenate", "Relational", "Mask",
           "PadEnd", "Slice", "Unique", "numpy_dtype"]


def numpy_dtype(data_type, api):
    """A numpy dtype from a minispore dtype (ms.int32), a numpy dtype or its name."""
    if data_type in (str, np.str_, "str", "string"):
        return np.dtype(np.str_)
    try:
        return to_np(data_type)
    except TypeError:
        try:
            return np.dtype(data_type)
        except TypeError:
            raise TypeError(f"{api}: {data_type!r} is not a data type") from None


class TypeCast(TensorOperation):
    """Cast to `data_type` (a minispore dtype such as ``ms.int32``, or a numpy dtype).

    Example:
        >>> import numpy as np
        >>> import minispore as ms
        >>> TypeCast(ms.int32)(np.array([1.7, -2.5])).tolist()
        [1, -2]
    """

    def __init__(self, data_type):
        self.data_type = numpy_dtype(data_type, "TypeCast")

    def __call__(self, data):
        return np.asarray(data).astype(self.data_type)


class OneHot(TensorOperation):
    """One-hot encode a label (an int, or a 1-D array of them): shape (*, num_classes), the
    label's dtype. With `smoothing_rate` r > 0 the output is float32, 1 - r at the label
    and r / (num_classes - 1) elsewhere.

    Example:
        >>> import numpy as np
        >>> OneHot(3)(np.array(2)).tolist()
        [0, 0, 1]
    """

    def __init__(self, num_classes, smoothing_rate=0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be an int >= 1, got {num_classes!r}")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate!r}")
        self.num_classes = num_classes
        self.smoothing_rate = float(smoothing_rate)

    def __call__(self, label):
        label = np.asarray(label)
        if label.dtype.kind not in "iu" or label.ndim > 1:
            raise TypeError(f"OneHot: the label must be an int scalar or 1-D int array, got "
                            f"{label.dtype} of shape {label.shape}")
        if label.size and (label.min() < 0 or label.max() >= self.num_classes):
            raise ValueError(f"OneHot: labels must be in [0, {self.num_classes}), got "
                             f"{label.tolist()}")
        hot = np.arange(self.num_classes) == label[..., None]
        if self.smoothing_rate == 0:
            return hot.astype(label.dtype)
        off = self.smoothing_rate / max(self.num_classes - 1, 1)
        return np.where(hot, 1.0 - self.smoothing_rate, off).astype(np.float32)


class Fill(TensorOperation):
    """An array of the input's shape and dtype filled with `fill_value`."""

    def __init__(self, fill_value):
        if not isinstance(fill_value, (str, bytes, int, float, bool, np.generic)):
            raise TypeError(f"Fill: fill_value must be a scalar, got {fill_value!r}")
        self.fill_value = fill_value

    def __call__(self, data):
        data = np.asarray(data)
        if isinstance(self.fill_value, (str, bytes)) != (data.dtype.kind in "US"):
            raise TypeError(f"Fill: cannot fill a {data.dtype} array with {self.fill_value!r}")
        if data.dtype.kind in "US":
            return np.full(data.shape, self.fill_value)
        return np.full_like(data, self.fill_value)


class Duplicate(TensorOperation):
    """The input and a copy of it (two output columns)."""

    def __call__(self, data):
        data = np.asarray(data)
        return data, data.copy()


class Concatenate(TensorOperation):
    """All input columns (1-D) concatenated along `axis`, between `prepend` and `append`."""

    def __init__(self, axis=0, prepend=None, append=None):
        self.axis = axis
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)

    def __call__(self, *columns):
        parts = [p for p in (self.prepend, *map(np.asarray, columns), self.append)
                 if p is not None]
        if any(p.ndim != 1 for p in parts):
            raise ValueError(f"Concatenate: only 1-D arrays, got shapes {[p.shape for p in parts]}")
        return np.concatenate(parts, axis=self.axis)


class Relational(IntEnum):
    """The comparisons Mask can make."""
    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_COMPARE = {Relational.EQ: operator.eq, Relational.NE: operator.ne, Relational.GT: operator.gt,
            Relational.GE: operator.ge, Relational.LT: operator.lt, Relational.LE: operator.le}


class Mask(TensorOperation):
    """`input <operator> constant` elementwise, as `dtype` (default bool).

    Example:
        >>> import numpy as np
        >>> Mask(Relational.EQ, 2)(np.array([1, 2, 3])).tolist()
        [False, True, False]
    """

    def __init__(self, operator, constant, dtype=None):
        if not isinstance(operator, Relational):
            raise TypeError(f"Mask: operator must be a Relational, got {operator!r}")
        self.operator = operator
        self.constant = constant
        self.dtype = np.dtype(np.bool_) if dtype is None else numpy_dtype(dtype, "Mask")

    def __call__(self, data):
        data = np.asarray(data)
        if isinstance(self.constant, str) != (data.dtype.kind in "US"):
            raise TypeError(f"Mask: cannot compare a {data.dtype} array with "
                            f"{self.constant!r}")
        return _COMPARE[self.operator](data, self.constant).astype(self.dtype)


class PadEnd(TensorOperation):
    """Pad (or cut) the input at the end of each axis to `pad_shape` (None entries keep that
    axis) with `pad_value` (default 0, or '' for strings)."""

    def __init__(self, pad_shape, pad_value=None):
        self.pad_shape = list(pad_shape)
        self.pad_value = pad_value

    def __call__(self, data):
        data = np.asarray(data)
        if data.ndim != len(self.pad_shape):
            raise ValueError(f"PadEnd: pad_shape {self.pad_shape} has rank {len(self.pad_shape)}, "
                             f"the input has shape {data.shape}")
        target = [d if s is None else s for d, s in zip(data.shape, self.pad_shape)]
        return pad_end(data, target, self.pad_value)


class Slice(TensorOperation):
    """Select along each axis: an int, a list of ints, a slice, or None / Ellipsis (all).

    Example:
        >>> import numpy as np
        >>> Slice(slice(1, 3))(np.array([1, 2, 3])).tolist()
        [2, 3]
    """

    def __init__(self, *slices):
        self.slices = [self._checked(s) for s in slices]

    @staticmethod
    def _checked(option):
        if option is None or option is Ellipsis or option is True:
            return slice(None)
        if isinstance(option, (int, np.integer)) and not isinstance(option, bool):
            return [int(option)]
        if isinstance(option, slice) or (isinstance(option, list) and all(
                isinstance(i, int) for i in option)):
            return option
        raise TypeError(f"Slice: each option must be an int, a list of ints, a slice, None or "
                        f"Ellipsis, got {option!r}")

    def __call__(self, data):
        data = np.asarray(data)
        if len(self.slices) > data.ndim:
            raise ValueError(f"Slice: {len(self.slices)} slice options for a {data.ndim}-D input")
        for axis, option in enumerate(self.slices):
            index = [slice(None)] * data.ndim
            index[axis] = option
            data = data[tuple(index)]
        return data


class Unique(TensorOperation):
    """(the distinct values in order of first appearance, each input element's index into
    them, each distinct value's count); indices and counts are int32."""

    def __call__(self, data):
        data = np.asarray(data)
        values, first, inverse, counts = np.unique(data.ravel(), return_index=True,
                                                   return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")  # np.unique sorts; MindSpore keeps order
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return (values[order], rank[inverse].astype(np.int32).reshape(data.shape),
                counts[order].astype(np.int32))
