"""Callbacks made of the user's functions: LambdaCallback (any hook) and
LearningRateScheduler (a new learning rate after each step), MindSpore's.

    >>> from minispore.train import LambdaCallback, LearningRateScheduler
    >>> printer = LambdaCallback(on_train_epoch_end=lambda rc: print(rc.original_args().cur_epoch_num))
    >>> decay = LearningRateScheduler(lambda lr, step: lr * 0.1 if step % 1000 == 0 else lr)
"""
from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..ops import functional as F
from .callback import Callback, RunContext

__all__ = ["LambdaCallback", "LearningRateScheduler"]

Hook = Optional[Callable[[RunContext], Any]]
_HOOKS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
          "on_train_step_end", "on_train_begin", "on_train_end", "on_eval_epoch_begin",
          "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_begin",
          "on_eval_end")


class LambdaCallback(Callback):
    """A callback whose hooks are the functions given (each takes the RunContext); the hooks
    not given do nothing.

        >>> cb = LambdaCallback(on_train_step_end=lambda rc: print(rc.original_args().cur_step_num))
    """

    def __init__(self, on_train_epoch_begin: Hook = None, on_train_epoch_end: Hook = None,
                 on_train_step_begin: Hook = None, on_train_step_end: Hook = None,
                 on_train_begin: Hook = None, on_train_end: Hook = None,
                 on_eval_epoch_begin: Hook = None, on_eval_epoch_end: Hook = None,
                 on_eval_step_begin: Hook = None, on_eval_step_end: Hook = None,
                 on_eval_begin: Hook = None, on_eval_end: Hook = None) -> None:
        given = dict(locals())
        for name in _HOOKS:
            hook = given[name]
            if hook is not None:
                if not callable(hook):
                    raise TypeError(f"LambdaCallback: {name} must be callable, got "
                                    f"{type(hook).__name__}")
                setattr(self, name, hook)


class LearningRateScheduler(Callback):
    """After each training step, set the optimizer's learning rate to
    `learning_rate_function(lr, cur_step_num)` (one rate: not a schedule, not per group).

        >>> def step_decay(lr, step):
        ...     return lr * 0.1 if step % 1000 == 0 else lr
        >>> model.train(3, dataset, callbacks=[LearningRateScheduler(step_decay)])  # doctest: +SKIP
    """

    def __init__(self, learning_rate_function: Callable[[float, int], float]) -> None:
        if not callable(learning_rate_function):
            raise TypeError("LearningRateScheduler: learning_rate_function must be callable")
        self.learning_rate_function = learning_rate_function

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        lr = cb_params.optimizer.learning_rate
        if not isinstance(lr, Parameter) or lr.ndim != 0:
            raise ValueError("LearningRateScheduler: the optimizer's learning rate must be one "
                             "number, not a schedule or per-group rates")
        current = float(lr.asnumpy())
        new = float(self.learning_rate_function(current, cb_params.cur_step_num))
        if not math.isclose(current, new, rel_tol=1e-10):
            F.assign(lr, Tensor(np.asarray(new, lr.dtype.np)))
