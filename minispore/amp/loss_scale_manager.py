"""Loss scale managers for Model and build_train_network (MindSpore's names and rules; also
exported by minispore.train, as MindSpore's train.loss_scale_manager).

    >>> import minispore as ms
    >>> manager = ms.amp.DynamicLossScaleManager(init_loss_scale=2 ** 10, scale_window=100)
    >>> manager.get_update_cell().get_loss_scale()
    1024.0
    >>> ms.amp.FixedLossScaleManager(128.0, drop_overflow_update=False).get_update_cell() is None
    True
"""
from .. import nn


class LossScaleManager:
    """Base class: get_loss_scale(), update_loss_scale(overflow), get_update_cell()."""

    def get_loss_scale(self):
        raise NotImplementedError

    def update_loss_scale(self, overflow):
        raise NotImplementedError

    def get_update_cell(self):
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A fixed loss scale. With drop_overflow_update (default) a step whose gradients overflow
    is skipped (the train cell checks them); without, the optimizer must be given the same
    loss_scale to divide the gradients by it, and no check is made."""

    def __init__(self, loss_scale: float = 128.0, drop_overflow_update: bool = True) -> None:
        if isinstance(loss_scale, bool) or not isinstance(loss_scale, (int, float)) \
                or loss_scale < 1:
            raise ValueError(f"FixedLossScaleManager: loss_scale must be a number >= 1, "
                             f"got {loss_scale!r}")
        if not isinstance(drop_overflow_update, bool):
            raise TypeError(f"FixedLossScaleManager: drop_overflow_update must be a bool, "
                            f"got {drop_overflow_update!r}")
        self._loss_scale, self._drop_overflow_update = float(loss_scale), drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """A fixed scale: nothing to update."""

    def get_update_cell(self):
        if not self._drop_overflow_update:
            return None
        return nn.FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale divided by scale_factor after an overflow (not below 1) and multiplied by
    it after scale_window steps without one."""

    def __init__(self, init_loss_scale: float = 2 ** 24, scale_factor: float = 2,
                 scale_window: int = 2000) -> None:
        if isinstance(init_loss_scale, bool) or not isinstance(init_loss_scale, (int, float)) \
                or init_loss_scale < 1:
            raise ValueError(f"DynamicLossScaleManager: init_loss_scale must be a number >= 1, "
                             f"got {init_loss_scale!r}")
        if not isinstance(scale_window, int) or isinstance(scale_window, bool) or scale_window < 1:
            raise ValueError(f"DynamicLossScaleManager: scale_window must be an int >= 1, "
                             f"got {scale_window!r}")
        if not isinstance(scale_factor, (int, float)) or scale_factor <= 1:
            raise ValueError(f"DynamicLossScaleManager: scale_factor must be > 1, "
                             f"got {scale_factor!r}")
        self.loss_scale = float(init_loss_scale)
        self.scale_factor, self.scale_window = scale_factor, scale_window
        self.increase_ratio, self.decrease_ratio = scale_factor, 1.0 / scale_factor
        self.cur_iter, self.last_overflow_iter = 1, 0
        self.bad_step_max, self.bad_step = 1000, 0

    def get_loss_scale(self):
        return self.loss_scale

    def get_drop_overflow_update(self):
        return True

    def update_loss_scale(self, overflow):
        """Host-side update (for loops that manage the scale themselves)."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1.0)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"DynamicLossScaleManager: {self.bad_step} overflowing steps in a "
                               f"row; the loss scale is {self.loss_scale}")
        self.cur_iter += 1

    def get_update_cell(self):
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)
