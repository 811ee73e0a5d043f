"""Callbacks: hooks `Model.train` and `Model.eval` call at each stage of a run.

    >>> from minispore.train import Callback
    >>> class PrintStep(Callback):
    ...     def on_train_step_end(self, run_context: RunContext) -> None:
    ...         cb_params = run_context.original_args()
    ...         print("step", cb_params.cur_step_num, "loss", float(cb_params.net_outputs))
    >>> model.train(1, dataset, callbacks=[PrintStep()])    # doctest: +SKIP

A callback overrides any of on_train_begin, on_train_epoch_begin, on_train_step_begin,
on_train_step_end, on_train_epoch_end, on_train_end (and the same six with ``on_eval_``).
As in MindSpore, the training hooks call the older names begin / epoch_begin / step_begin /
step_end / epoch_end / end by default, so callbacks written against either spelling work.

`run_context.original_args()` is the run's CallbackParams: network, train_network,
optimizer, loss_fn, epoch_num, batch_num (steps per epoch), cur_epoch_num, cur_step_num
(counted over the whole run), net_outputs (the last step's output, the loss when training),
train_dataset / valid_dataset, mode ("train" or "eval"), list_callback, dataset_sink_mode;
after an evaluation, metrics (and in Model.fit, until on_train_epoch_end, eval_results).
`run_context.request_stop()` ends training after the current step.
"""
from __future__ import annotations

import contextlib
from typing import Any, Sequence, Union

__all__ = ["Callback", "CallbackList", "CallbackParams", "RunContext"]


class Callback:
    """Base class of callbacks; every hook does nothing unless overridden."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return None

    # ----- the older MindSpore names, called by the training hooks below -----
    def begin(self, run_context: RunContext) -> None:
        """Once, before training starts."""

    def epoch_begin(self, run_context: RunContext) -> None:
        """Before each training epoch."""

    def step_begin(self, run_context: RunContext) -> None:
        """Before each training step."""

    def step_end(self, run_context: RunContext) -> None:
        """After each training step (cb_params.net_outputs holds its output)."""

    def epoch_end(self, run_context: RunContext) -> None:
        """After each training epoch."""

    def end(self, run_context: RunContext) -> None:
        """Once, after training ends."""

    # ----- training -----
    def on_train_begin(self, run_context: RunContext) -> None:
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_begin(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.step_end(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self.epoch_end(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        self.end(run_context)

    # ----- evaluation -----
    def on_eval_begin(self, run_context: RunContext) -> None:
        """Once, before evaluation starts."""

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        """Before the pass over the evaluation data."""

    def on_eval_step_begin(self, run_context: RunContext) -> None:
        """Before each evaluation step."""

    def on_eval_step_end(self, run_context: RunContext) -> None:
        """After each evaluation step."""

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        """After the pass over the evaluation data (cb_params.metrics holds the results)."""

    def on_eval_end(self, run_context: RunContext) -> None:
        """Once, after evaluation ends."""


class CallbackParams(dict):
    """The run's state, a dict whose keys are also attributes (``cb_params.cur_step_num``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"CallbackParams has no {name!r}; it has {sorted(self)}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


class RunContext:
    """What a callback receives: the run's CallbackParams and a way to stop the run."""

    def __init__(self, original_args: dict[str, Any]) -> None:
        if not isinstance(original_args, dict):
            raise TypeError(f"RunContext: original_args must be a dict, "
                            f"got {type(original_args).__name__}")
        self._original_args: Any = original_args  # the CallbackParams Model passes
        self._stop_requested = False

    def original_args(self) -> CallbackParams:
        """The CallbackParams of the run."""
        return self._original_args

    def request_stop(self) -> None:
        """Stop training after the current step."""
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        return self._stop_requested


_HOOKS = tuple(name for name in vars(Callback)
               if name.startswith("on_") or name in ("__enter__", "__exit__"))


def _has_every_hook(cb: Any) -> bool:
    """A callback from a layer that cannot derive from Callback (dataset.WaitedDSCallback)
    counts when it has every hook."""
    return all(callable(getattr(cb, name, None)) for name in _HOOKS)


class CallbackList(Callback):
    """Several callbacks called in order, as one. As a context manager it enters every
    callback and exits them all, also when the run raises (closing files, progress bars)."""

    def __init__(self, callbacks: Union[Callback, Sequence[Callback], None]) -> None:
        if callbacks is None:
            callbacks = []
        elif isinstance(callbacks, Callback):
            callbacks = [callbacks]
        callbacks = list(callbacks)
        for cb in callbacks:
            if not isinstance(cb, Callback) and not _has_every_hook(cb):
                raise TypeError(f"callbacks must be Callback instances, got {type(cb).__name__}")
        self.callbacks = callbacks
        self._stack = None

    def __enter__(self):
        self._stack = contextlib.ExitStack()
        for cb in self.callbacks:
            self._stack.enter_context(cb)
        return self

    def __exit__(self, *exc_info):
        stack, self._stack = self._stack, None
        return stack.__exit__(*exc_info)

    def _each(hook: str):  # type: ignore[misc]  # runs in the class body: one forwarding method
        def call(self, run_context):
            for cb in self.callbacks:
                getattr(cb, hook)(run_context)
        call.__name__ = hook
        return call

    on_train_begin = _each("on_train_begin")
    on_train_epoch_begin = _each("on_train_epoch_begin")
    on_train_step_begin = _each("on_train_step_begin")
    on_train_step_end = _each("on_train_step_end")
    on_train_epoch_end = _each("on_train_epoch_end")
    on_train_end = _each("on_train_end")
    on_eval_begin = _each("on_eval_begin")
    on_eval_epoch_begin = _each("on_eval_epoch_begin")
    on_eval_step_begin = _each("on_eval_step_begin")
    on_eval_step_end = _each("on_eval_step_end")
    on_eval_epoch_end = _each("on_eval_epoch_end")
    on_eval_end = _each("on_eval_end")
    del _each
