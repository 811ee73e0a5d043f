"""Parameter: a Tensor that a Cell owns and optimizers update; ParameterTuple.

    >>> import minispore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    >>> w.set_data(ms.Tensor([3.0, 4.0])).asnumpy()
    array([3., 4.], dtype=float32)

A Parameter's shape and dtype are fixed when it is made: `set_data` refuses other shapes, and
other dtypes unless the new data is a Python number or list (converted to the parameter's
dtype). Values change in place through `set_data` or `ops.assign` (what optimizers use, so
that Graph mode can turn the update into a graph output).
"""
from typing import Any, Optional

import numpy as np

from .dtype import from_np
from .initializer import initializer
from .tensor import Tensor, _as_array

DEFAULT_NAME = "Parameter"  # a Cell renames a parameter still called this


class Parameter(Tensor):
    """A named tensor that Cells register and optimizers update.

    Args:
        default_input: Tensor, numpy array, Python number/list, or an initializer's output.
        name: the parameter's name; if None, the Cell attribute it is assigned to names it
            (and enclosing Cells add their prefixes: `fc1.weight`).
        requires_grad: whether `Cell.trainable_params` (hence optimizers) include it.
    """

    __slots__ = ("name", "requires_grad", "layerwise_parallel")

    def __init__(self, default_input: Any, name: Optional[str] = None, requires_grad: bool = True,
                 layerwise_parallel: bool = False) -> None:
        self._data = _owned_array(default_input, None)
        self._node = None
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Parameter: name must be a str or None, got {type(name).__name__}")
        self.name = name if name is not None else DEFAULT_NAME
        if not isinstance(requires_grad, bool):
            raise TypeError(f"Parameter {self.name}: requires_grad must be a bool, "
                            f"got {requires_grad!r}")
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel

    def set_data(self, data):
        """Replace the values in place; the shape must match, and so must the dtype of a
        Tensor or numpy array (Python numbers and lists are converted). Returns self."""
        incoming = data._data.dtype if isinstance(data, Tensor) else getattr(data, "dtype", None)
        if incoming is not None and np.dtype(incoming) != self._data.dtype:
            raise TypeError(f"Parameter {self.name}: set_data with dtype {_type_name(incoming)}, "
                            f"the parameter has dtype {self.dtype}; cast the data first")
        new = _owned_array(data, None if incoming is not None else self._data.dtype)
        if tuple(new.shape) != tuple(self._data.shape):
            raise ValueError(f"Parameter {self.name}: set_data with shape {tuple(new.shape)}, "
                             f"the parameter has shape {tuple(self._data.shape)}")
        self._data = new
        return self

    @property
    def data(self):
        return self

    def value(self):
        """The current values as a plain Tensor (a snapshot)."""
        return Tensor._wrap(self._data)

    def init_data(self):
        """MindSpore initialises parameters lazily; here they already hold data. Returns self."""
        return self

    def clone(self, init="same"):
        """A new Parameter with the same name and flags and a copy of the values (or values
        from the initializer `init`, e.g. 'zeros')."""
        if isinstance(init, str) and init == "same":
            data = Tensor._wrap(self._data)
        else:
            data = initializer(init, self.shape, self.dtype)
        clone = Parameter(data, self.name, self.requires_grad, self.layerwise_parallel)
        return clone

    def __repr__(self):
        return (f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    def __reduce__(self):
        return (Parameter, (Tensor(np.array(self.asnumpy())), self.name, self.requires_grad,
                            self.layerwise_parallel))

    def __deepcopy__(self, memo):
        return self.clone()


def _owned_array(value, np_dtype):
    """A fresh array with `value` (never shared with the caller's Tensor or numpy array)."""
    data = _as_array(value, np_dtype)
    if not isinstance(value, Tensor) and getattr(value, "dtype", None) is not None:
        data = data.copy()  # numpy input: asarray may have kept the caller's buffer
    return data


def _type_name(np_dtype):
    return str(from_np(np.dtype(np_dtype)))


class ParameterTuple(tuple):
    """A tuple of Parameters (what optimizers and `grad(weights=...)` take)."""

    def __new__(cls, params):
        params = tuple(params)
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple holds Parameters, got {type(p).__name__}")
        return super().__new__(cls, params)

    def clone(self, prefix, init="same"):
        """Copies of every Parameter, named `prefix.<name>` (optimizer state: moments...)."""
        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"ParameterTuple.clone: prefix must be a non-empty str, "
                             f"got {prefix!r}")
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            out.append(c)
        return ParameterTuple(out)
