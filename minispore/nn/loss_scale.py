"""Training with loss scaling: TrainOneStepWithLossScaleCell and the cells that update the scale.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(4, 2)
    >>> opt = ms.nn.Momentum(net.trainable_params(), 0.1, 0.9)
    >>> update = ms.nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 12, scale_factor=2,
    ...                                           scale_window=1000)
    >>> step = ms.nn.TrainOneStepWithLossScaleCell(ms.nn.WithLossCell(net, ms.nn.MSELoss()),
    ...                                            opt, scale_sense=update)
    >>> loss, overflow, scale = step(ms.ops.ones((3, 4)), ms.ops.zeros((3, 2)))
    >>> bool(overflow), float(scale)
    (False, 4096.0)

The gradients of loss * scale are divided by the scale; if any is not finite (an overflow in
half precision) the step is skipped: parameters and optimizer state keep their values, and a
dynamic scale shrinks. Written with selects, not Python branches, so a step compiles whole.
"""
from __future__ import annotations
from typing import Any
import numpy as np

from ..core.dtype import float32, int32
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..grad.api import GradOperation
from ..ops import functional as F
from ..ops import overflow
from . import validation as V
from .cell import Cell
from .wrap import TrainOneStepCell


def all_finite(inputs):
    """A bool Tensor: whether every element of every Tensor in `inputs` is finite (one pass
    over all of them: in Graph mode one kernel, whatever the number of gradients)."""
    return overflow.all_finite(*[t for t in inputs if t is not None and t.dtype.is_float])


class DynamicLossScaleUpdateCell(Cell):
    """Updates a loss scale Parameter from the overflow flag (MindSpore's rule): an overflow
    divides the scale by scale_factor (not below 1); scale_window steps after the last
    overflow (or increase) without one multiply it by scale_factor. Returns the flag."""

    def __init__(self, loss_scale_value: Any, scale_factor: float, scale_window: float) -> None:
        super().__init__()
        owner = "DynamicLossScaleUpdateCell"
        self.loss_scale_value = V.number_in(loss_scale_value, "loss_scale_value", owner, 0.0,
                                            float("inf"), low_open=True)
        self.scale_factor = V.number_in(scale_factor, "scale_factor", owner, 1.0, float("inf"),
                                        low_open=True)
        self.scale_window = V.positive_int(scale_window, "scale_window", owner)
        self.cur_iter = Parameter(Tensor(1, int32), name="current_iterator_step",
                                  requires_grad=False)
        self.last_overflow_iter = Parameter(Tensor(0, int32), name="last_overflow_iterator_step",
                                            requires_grad=False)

    def get_loss_scale(self):
        """The initial loss scale value."""
        return self.loss_scale_value

    def construct(self, loss_scale: Tensor, overflow: Tensor) -> Tensor:
        shrunk = F.maximum(F.div(loss_scale, self.scale_factor), 1.0)
        on_overflow = F.where(overflow, shrunk, loss_scale)
        should_grow = F.less_equal(self.scale_window, F.sub(self.cur_iter, self.last_overflow_iter))
        F.assign(self.last_overflow_iter, F.where(F.logical_or(overflow, should_grow),
                                                  self.cur_iter, self.last_overflow_iter))
        grow = F.logical_and(should_grow, F.logical_not(overflow))
        F.assign(loss_scale, F.where(grow, F.mul(on_overflow, self.scale_factor), on_overflow))
        F.assign(self.cur_iter, F.add(self.cur_iter, 1))
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A loss scale that never changes; returns the overflow flag."""

    def __init__(self, loss_scale_value: Any) -> None:
        super().__init__()
        self.loss_scale_value = V.number_in(loss_scale_value, "loss_scale_value",
                                            "FixedLossScaleUpdateCell", 0.0, float("inf"),
                                            low_open=True)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, _: Any, overflow: Any) -> Tensor:
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """One training step with loss scaling. `scale_sense` is an update cell (Dynamic... /
    FixedLossScaleUpdateCell) or a Tensor of shape () or (1,) (a fixed scale that
    `set_sense_scale` changes). Returns (loss, overflow, the loss scale used this step)."""

    def __init__(self, network: Any, optimizer: Any, scale_sense: Any) -> None:
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(scale_sense.get_loss_scale(), float32),
                                         name="scale_sense", requires_grad=False)
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((), (1,)):
                raise ValueError(f"TrainOneStepWithLossScaleCell: scale_sense must have shape () "
                                 f"or (1,), got {scale_sense.shape}")
            self.scale_sense = Parameter(F.cast(scale_sense, float32), name="scale_sense",
                                         requires_grad=False)
        else:
            raise TypeError(f"TrainOneStepWithLossScaleCell: scale_sense must be a Cell or a "
                            f"Tensor, got {type(scale_sense).__name__}")
        self.grad_sens = GradOperation(get_by_list=True, sens_param=True)

    def __call__(self, *inputs):
        # overflowing half-precision steps are expected here (that is what the scale is
        # tuned by): numpy's overflow warnings would only be noise
        with np.errstate(over="ignore", invalid="ignore"):
            return super().__call__(*inputs)

    def set_sense_scale(self, sens):
        """Set a Tensor loss scale to a new value."""
        if not isinstance(sens, Tensor):
            raise TypeError(f"TrainOneStepWithLossScaleCell.set_sense_scale: sens must be a "
                            f"Tensor, got {type(sens).__name__}")
        self.scale_sense.set_data(F.reshape(F.cast(sens, float32), self.scale_sense.shape))

    # (loss, overflow, scale) as MindSpore's, where TrainOneStepCell returns the loss alone
    def construct(self, *inputs: Any) -> tuple[Tensor, Tensor, Tensor]:  # type: ignore[override]
        scale = F.add(self.scale_sense, 0.0)   # this step's value (the update comes later)
        loss = self.network(*inputs)
        sens = F.mul(F.ones_like(loss), F.cast(F.reshape(scale, ()), loss.dtype))
        grads = self.grad_sens(self.network, self.weights)(*inputs, sens)
        grads = tuple(F.div(g, F.cast(F.reshape(scale, ()), g.dtype)) for g in grads)
        overflow = F.logical_not(all_finite(grads))
        if self.loss_scaling_manager is not None:
            overflow = self.loss_scaling_manager(self.scale_sense, overflow)
        self._step_unless(overflow, grads)
        return loss, overflow, scale

    def _step_unless(self, overflow, grads):
        """The optimizer's step, kept only where `overflow` is False: every Parameter it may
        write (the network's and its own state) gets its old value back otherwise."""
        state, seen = [], set()
        for p in list(self.weights) + list(self.optimizer.get_parameters()):
            if id(p) not in seen:
                seen.add(id(p))
                state.append(p)
        before = [F.stop_gradient(p) for p in state]   # an op: a traced step reads it too
        self.optimizer(grads)
        for p, old in zip(state, before):
            F.assign(p, F.where(overflow, old, p))
