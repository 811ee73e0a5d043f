"""Built-in callbacks that report progress: LossMonitor, TimeMonitor, ProgressBar, History.

    >>> from minispore.train import LossMonitor, TimeMonitor
    >>> callbacks = [LossMonitor(per_print_times=50), TimeMonitor()]
    >>> model.train(10, dataset, callbacks=callbacks)              # doctest: +SKIP
    epoch: 1 step: 50, loss is 0.4312
    Train epoch time: 812.301 ms, per step time: 16.246 ms

Messages go through `tqdm.write`, so they do not tear a progress bar that is being drawn.
"""
from __future__ import annotations

import math
import sys
import time

import numpy as np
from tqdm import tqdm

from ..core.tensor import Tensor
from .callback import Callback
from typing import IO, Any, Optional
from .callback import RunContext

__all__ = ["History", "LossMonitor", "ProgressBar", "TimeMonitor"]


def _write(message):
    tqdm.write(message, file=sys.stdout)


def _loss_value(net_outputs):
    """The loss as a float from a step's output (a Tensor, or a tuple whose first item is it)."""
    if isinstance(net_outputs, (tuple, list)) and net_outputs:
        net_outputs = net_outputs[0]
    if isinstance(net_outputs, Tensor):
        return float(np.mean(net_outputs.asnumpy()))
    if isinstance(net_outputs, (int, float, np.number)):
        return float(net_outputs)
    return None


def _step_in_epoch(cb_params):
    return (cb_params.cur_step_num - 1) % cb_params.batch_num + 1


class LossMonitor(Callback):
    """Print the loss every `per_print_times` steps; stop with ValueError on a NaN/inf loss.
    In `Model.fit`, also print each evaluation's metrics ("Eval result: epoch 2, metrics:
    {...}") at the end of its epoch.

    Args:
        per_print_times: print every this many steps (0: never print, still check).
    """

    def __init__(self, per_print_times: int = 1) -> None:
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int) \
                or per_print_times < 0:
            raise ValueError(f"LossMonitor: per_print_times must be an int >= 0, "
                             f"got {per_print_times!r}")
        self._per_print_times = per_print_times
        self._last_print_step = 0

    def on_train_begin(self, run_context: RunContext) -> None:
        self._last_print_step = 0

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        loss = _loss_value(cb_params.net_outputs)
        if loss is None:
            return
        step = _step_in_epoch(cb_params)
        if not math.isfinite(loss):
            raise ValueError(f"epoch: {cb_params.cur_epoch_num} step: {step}. Invalid loss "
                             f"{loss}, terminating training.")
        if self._per_print_times and \
                cb_params.cur_step_num - self._last_print_step >= self._per_print_times:
            self._last_print_step = cb_params.cur_step_num
            _write(f"epoch: {cb_params.cur_epoch_num} step: {step}, loss is {loss:.6g}")

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        # in Model.fit, an epoch that ran an evaluation carries its metrics here
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            _write(f"Eval result: epoch {cb_params.cur_epoch_num}, metrics: {metrics}")


class TimeMonitor(Callback):
    """Print each epoch's wall time and time per step, and each evaluation's ("Eval epoch
    time: ...", per evaluation step).

    Args:
        data_size: steps per epoch to divide by (default: the dataset's batch count).
    """

    def __init__(self, data_size: Optional[int] = None) -> None:
        if data_size is not None and (isinstance(data_size, bool) or not isinstance(data_size, int)
                                      or data_size < 1):
            raise ValueError(f"TimeMonitor: data_size must be a positive int, got {data_size!r}")
        self._data_size = data_size
        self._epoch_start: Optional[float] = None
        self._eval_start: Optional[float] = None

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self._epoch_start = time.perf_counter()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        steps = self._data_size or run_context.original_args().batch_num
        _report_time("Train", self._epoch_start, steps)

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        self._eval_start = time.perf_counter()

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        _report_time("Eval", self._eval_start, run_context.original_args().batch_num)


def _report_time(what, start, steps):
    epoch_ms = (time.perf_counter() - start) * 1000
    _write(f"{what} epoch time: {epoch_ms:5.3f} ms, per step time: {epoch_ms / steps:5.3f} ms")


class ProgressBar(Callback):
    """A tqdm bar over all training steps, showing the epoch and the latest loss.

    Args:
        delay: seconds before the bar first appears, so short runs stay quiet.
        file: where to draw (default sys.stderr).
    """

    def __init__(self, delay: float = 0.0, file: Optional[IO[str]] = None) -> None:
        self._delay = delay
        self._file = file
        self._bar: Any = None  # a tqdm bar while an epoch runs
        self._last_epoch: Optional[int] = None

    def on_train_begin(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        # cur_epoch_num is still the number of epochs done before this run (initial_epoch)
        self._last_epoch = cb_params.cur_epoch_num + cb_params.epoch_num
        self._bar = tqdm(total=cb_params.epoch_num * cb_params.batch_num, unit="step",
                         delay=self._delay, dynamic_ncols=True, leave=True,
                         file=self._file if self._file is not None else sys.stderr)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        self._bar.set_description(f"epoch {cb_params.cur_epoch_num}/{self._last_epoch}",
                                  refresh=False)

    def on_train_step_end(self, run_context: RunContext) -> None:
        loss = _loss_value(run_context.original_args().net_outputs)
        if loss is not None:
            self._bar.set_postfix(loss=f"{loss:.4f}", refresh=False)
        self._bar.update(1)

    def on_train_end(self, run_context: RunContext) -> None:
        self._close()

    def __exit__(self, *exc_info):
        self._close()

    def _close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class History(Callback):
    """Record each epoch's training output and metrics (MindSpore's `train.History`):
    `history.epoch` is {"epoch": [1, 2, ...]}, `history.history` {"net_output": [loss per
    epoch, the last step's], and each metric of Model.fit's evaluations: [value per epoch]}.

        >>> history = History()
        >>> model.train(2, dataset, callbacks=[history])              # doctest: +SKIP
        >>> history.history["net_output"]                            # doctest: +SKIP
        [1.6079, 1.6034]
    """

    def __init__(self) -> None:
        self.epoch: dict[str, list] = {"epoch": []}
        self.history: dict[str, list] = {}

    def on_train_begin(self, run_context: RunContext) -> None:
        self.epoch = {"epoch": []}

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        self.epoch["epoch"].append(cb_params.get("cur_epoch_num", 1))
        output = cb_params.get("net_outputs")
        loss = _loss_value(output)
        record = {"net_output": output if loss is None else loss}
        record.update(cb_params.get("metrics") or {})
        for key, value in record.items():
            self.history.setdefault(key, []).append(value)
