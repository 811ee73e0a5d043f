"""Parameter: a Tensor that a Cell owns and optimizers update; ParameterTuple.

    >>> import minispore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    >>> w.set_data(ms.Tensor([3.0, 4.0])).asnumpy()
    array([3., 4.], dtype=float32)
"""
import numpy as np

from ..runtime.tensor import Tensor, _as_array


class Parameter(Tensor):
    """A named, trainable tensor.

    Args:
        default_input: Tensor, numpy array, Python number, or an initializer's output.
        name: the parameter's name (a Cell gives it its attribute path if None).
        requires_grad: whether optimizers and `Cell.trainable_params` include it.
    """

    __slots__ = ("name", "requires_grad", "layerwise_parallel", "_auto_named")

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False):
        data = default_input._data if isinstance(default_input, Tensor) else _as_array(default_input, None)
        self._data = data.copy() if isinstance(default_input, Tensor) else data
        self._node = None
        self._auto_named = name is None
        self.name = name if name is not None else "Parameter"
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel

    def set_data(self, data):
        """Replace the values (same shape and dtype; nothing changes silently)."""
        new = data._data if isinstance(data, Tensor) else _as_array(data, self._data.dtype)
        if tuple(new.shape) != tuple(self._data.shape):
            raise ValueError(f"Parameter {self.name}: set_data with shape {tuple(new.shape)}, "
                             f"the parameter has shape {tuple(self._data.shape)}")
        if new.dtype != self._data.dtype:
            raise TypeError(f"Parameter {self.name}: set_data with dtype {new.dtype}, the parameter "
                            f"has dtype {self._data.dtype}; cast the data first")
        self._data = new.copy()
        return self

    @property
    def data(self):
        return self

    def clone(self, init="same"):
        """A new Parameter with a copy of the values (or re-initialised with `init`)."""
        if init == "same":
            data = self._data.copy()
        else:
            from ..common.initializer import initializer
            data = initializer(init, self.shape, self.dtype)._data
        clone = Parameter(Tensor._wrap(data), self.name, self.requires_grad)
        clone._auto_named = self._auto_named
        return clone

    def __repr__(self):
        return f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, requires_grad={self.requires_grad})"

    def __reduce__(self):
        return (Parameter, (Tensor._wrap(np.array(self.asnumpy())), self.name, self.requires_grad))


class ParameterTuple(tuple):
    """A tuple of Parameters (what optimizers and `grad(weights=...)` take)."""

    def __new__(cls, params):
        params = tuple(params)
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple holds Parameters, got {type(p).__name__}")
        return super().__new__(cls, params)

    def clone(self, prefix, init="same"):
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            out.append(c)
        return ParameterTuple(out)
