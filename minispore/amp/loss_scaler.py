"""Loss scalers for functional training loops (MindSpore's mindspore.amp.*LossScaler).

    >>> import minispore as ms
    >>> scaler = ms.amp.DynamicLossScaler(scale_value=2 ** 10, scale_factor=2, scale_window=50)
    >>> loss = scaler.scale(ms.Tensor(0.5))                    # backward on the scaled loss
    >>> grads = scaler.unscale((ms.Tensor([2048.0]),))           # then the true gradients
    >>> finite = ms.amp.all_finite(grads)
    >>> scaler.adjust(finite)                                    # shrink on overflow, grow later
    True

`scale` and `unscale` map over Tensors in nested tuples/lists. The state (the scale, the
counter) lives in Parameters, so a jitted step that calls adjust updates it in Graph mode too.
"""
from ..core.dtype import float32, int32
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..nn.loss_scale import all_finite
from ..ops import functional as F


def _map(fn, value):
    if isinstance(value, Tensor):
        return fn(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_map(fn, v) for v in value)
    return value


class LossScaler:
    """Base class: scale(inputs), unscale(inputs), adjust(grads_finite)."""

    def scale(self, inputs):
        raise NotImplementedError

    def unscale(self, inputs):
        raise NotImplementedError

    def adjust(self, grads_finite):
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """Multiplies by a fixed `scale_value` and divides by it again."""

    def __init__(self, scale_value):
        if isinstance(scale_value, bool) or not isinstance(scale_value, (int, float)) \
                or scale_value <= 0:
            raise ValueError(f"StaticLossScaler: scale_value must be a number > 0, "
                             f"got {scale_value!r}")
        self.scale_value = Parameter(Tensor(float(scale_value), float32), name="scale_value",
                                     requires_grad=False)

    def scale(self, inputs):
        return _map(lambda t: F.mul(t, F.cast(self.scale_value, t.dtype)), inputs)

    def unscale(self, inputs):
        return _map(lambda t: F.div(t, F.cast(self.scale_value, t.dtype)), inputs)

    def adjust(self, grads_finite):
        """A static scale never changes."""
        return False


class DynamicLossScaler(StaticLossScaler):
    """A scale that halves (divides by scale_factor, not below 1) after an overflow and grows
    by scale_factor after scale_window finite steps in a row (MindSpore's rule)."""

    def __init__(self, scale_value, scale_factor, scale_window):
        super().__init__(scale_value)
        if isinstance(scale_factor, bool) or not isinstance(scale_factor, (int, float)) \
                or scale_factor <= 1:
            raise ValueError(f"DynamicLossScaler: scale_factor must be a number > 1, "
                             f"got {scale_factor!r}")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) \
                or scale_window < 1:
            raise ValueError(f"DynamicLossScaler: scale_window must be an int >= 1, "
                             f"got {scale_window!r}")
        self.scale_factor, self.scale_window = float(scale_factor), scale_window
        self.counter = Parameter(Tensor(0, int32), name="counter", requires_grad=False)

    def adjust(self, grads_finite):
        """Update the scale from `grads_finite` (a bool Tensor, e.g. all_finite(grads))."""
        scale = self.scale_value
        grown = F.mul(scale, self.scale_factor)
        grown = F.where(all_finite([grown]), grown, scale)
        at_window = F.equal(self.counter, self.scale_window - 1)
        new_scale = F.where(grads_finite, F.where(at_window, grown, scale),
                            F.maximum(F.div(scale, self.scale_factor), 1.0))
        F.assign(self.scale_value, new_scale)
        counter = F.mul(F.floor_mod(F.add(self.counter, 1), self.scale_window),
                        F.cast(grads_finite, int32))
        F.assign(self.counter, counter)
        return True


__all__ = ["LossScaler", "StaticLossScaler", "DynamicLossScaler", "all_finite"]
