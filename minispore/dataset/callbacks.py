"""Dataset callbacks: hooks a `map` step calls as its rows flow (MindSpore's DSCallback).

    >>> import numpy as np
    >>> import minispore.dataset as ds
    >>> class Count(ds.DSCallback):
    ...     def ds_step_end(self, ds_run_context):
    ...         print("row", ds_run_context.cur_step_num)
    >>> data = ds.NumpySlicesDataset(np.arange(2), ["n"], shuffle=False)
    >>> data = data.map(lambda n: n * 2, "n", callbacks=Count())
    >>> rows = list(data.create_tuple_iterator(output_numpy=True, num_epochs=1))
    row 1
    row 2

Each epoch of the map step calls ds_epoch_begin, then for every `step_size`-th row (rows 1,
1 + step_size, ...) ds_step_begin before the row leaves the step and ds_step_end once the
next row is asked for, then ds_epoch_end; ds_begin once, before the first epoch. Passes
that only inspect the pipeline (get_dataset_size, output_shapes) call no hook. The hooks
run in the thread that iterates the pipeline (minispore's engine pulls rows on demand), so
"after the step" means "after the consumer took the row".

WaitedDSCallback is also a training callback (pass it to both `map(callbacks=...)` and
`Model.train(callbacks=...)`): from the second epoch (step) on, its ds_epoch_begin
(ds_step_begin) waits for training's epoch_end (step_end) and then calls sync_epoch_begin
(sync_step_begin) with both run contexts. With a map before `batch`, set step_size to the
batch size, as MindSpore advises; a WaitedDSCallback iterated without training waits
forever, as in MindSpore.
"""
import threading
from typing import Any, Iterable, Iterator, List, Optional, Sequence, Union

from .engine import check_int

__all__ = ["DSCallback", "WaitedDSCallback", "DSRunContext"]


class DSRunContext:
    """What a dataset hook receives: cur_epoch_num (from 1), cur_step_num_in_epoch (from 1)
    and cur_step_num (rows over every epoch, from 1)."""

    def __init__(self) -> None:
        self.cur_epoch_num = 0
        self.cur_step_num_in_epoch = 0
        self.cur_step_num = 0

    def __repr__(self) -> str:
        return (f"DSRunContext(cur_epoch_num={self.cur_epoch_num}, cur_step_num_in_epoch="
                f"{self.cur_step_num_in_epoch}, cur_step_num={self.cur_step_num})")


class DSCallback:
    """Base class of dataset callbacks; every hook does nothing unless overridden.

    Args:
        step_size: ds_step_begin / ds_step_end run on rows 1, 1 + step_size, ... of an epoch.

    Example:
        >>> class Log(DSCallback):
        ...     def ds_epoch_begin(self, ds_run_context):
        ...         print("epoch", ds_run_context.cur_epoch_num)
        >>> data = data.map(vision.HWC2CHW(), "image", callbacks=[Log()])  # doctest: +SKIP
    """

    def __init__(self, step_size: int = 1) -> None:
        check_int(step_size, 1, type(self).__name__, "step_size")
        self.step_size = step_size

    def ds_begin(self, ds_run_context: DSRunContext) -> None:
        """Once, before the first epoch's first row."""

    def ds_epoch_begin(self, ds_run_context: DSRunContext) -> None:
        """Before each epoch."""

    def ds_epoch_end(self, ds_run_context: DSRunContext) -> None:
        """After each epoch's last row."""

    def ds_step_begin(self, ds_run_context: DSRunContext) -> None:
        """Before every step_size-th row."""

    def ds_step_end(self, ds_run_context: DSRunContext) -> None:
        """After every step_size-th row."""


class WaitedDSCallback(DSCallback):
    """A DSCallback that is also a training callback and keeps the pipeline in step with
    training: override sync_epoch_begin / sync_step_begin (see the module docstring).

    Example:
        >>> class Lr(WaitedDSCallback):
        ...     def sync_step_begin(self, train_run_context, ds_run_context):
        ...         ...  # change a transform's parameter from training's state
        >>> cb = Lr(step_size=32)                                            # doctest: +SKIP
        >>> data = data.map(op, "image", callbacks=cb).batch(32)             # doctest: +SKIP
        >>> model.train(2, data, callbacks=[cb])                             # doctest: +SKIP
    """

    def __init__(self, step_size: int = 1) -> None:
        super().__init__(step_size)
        self.epoch_event = threading.Event()
        self.step_event = threading.Event()
        self.epoch_run_context: Any = None
        self.step_run_context: Any = None
        self.training_ended = False

    def sync_epoch_begin(self, train_run_context: Any, ds_run_context: DSRunContext) -> None:
        """Before each dataset epoch but the first, once training's previous epoch ended."""

    def sync_step_begin(self, train_run_context: Any, ds_run_context: DSRunContext) -> None:
        """Before each dataset step but the first, once training's previous step ended."""

    # ----- the dataset side -----
    def ds_epoch_begin(self, ds_run_context: DSRunContext) -> None:
        if ds_run_context.cur_epoch_num > 1:
            if self.epoch_run_context is None and not self.training_ended:
                self.epoch_event.wait()
            self.sync_epoch_begin(self.epoch_run_context, ds_run_context)
            self.epoch_run_context = None
            self.epoch_event.clear()

    def ds_step_begin(self, ds_run_context: DSRunContext) -> None:
        if ds_run_context.cur_step_num > self.step_size:
            if self.step_run_context is None and not self.training_ended:
                self.step_event.wait()
            self.sync_step_begin(self.step_run_context, ds_run_context)
            self.step_run_context = None
            self.step_event.clear()

    # ----- the training side (the hooks Model.train calls on a Callback) -----
    def __enter__(self) -> "WaitedDSCallback":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        return None

    def begin(self, run_context: Any) -> None:
        """Training starts (nothing to do)."""

    def epoch_begin(self, run_context: Any) -> None:
        """A training epoch starts (nothing to do)."""

    def step_begin(self, run_context: Any) -> None:
        """A training step starts (nothing to do)."""

    def step_end(self, run_context: Any) -> None:
        """A training step ended: release the dataset's waiting step."""
        self.step_run_context = run_context
        self.step_event.set()

    def epoch_end(self, run_context: Any) -> None:
        """A training epoch ended: release the dataset's waiting epoch."""
        self.epoch_run_context = run_context
        self.epoch_event.set()

    def end(self, run_context: Any) -> None:
        """Training ended: nothing will release the dataset any more, so stop waiting."""
        self.training_ended = True
        self.epoch_event.set()
        self.step_event.set()

    def on_train_begin(self, run_context: Any) -> None:
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: Any) -> None:
        self.epoch_begin(run_context)

    def on_train_step_begin(self, run_context: Any) -> None:
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: Any) -> None:
        self.step_end(run_context)

    def on_train_epoch_end(self, run_context: Any) -> None:
        self.epoch_end(run_context)

    def on_train_end(self, run_context: Any) -> None:
        self.end(run_context)

    def on_eval_begin(self, run_context: Any) -> None:
        """Evaluation hooks: nothing to do."""

    def on_eval_epoch_begin(self, run_context: Any) -> None:
        """Evaluation hooks: nothing to do."""

    def on_eval_step_begin(self, run_context: Any) -> None:
        """Evaluation hooks: nothing to do."""

    def on_eval_step_end(self, run_context: Any) -> None:
        """Evaluation hooks: nothing to do."""

    def on_eval_epoch_end(self, run_context: Any) -> None:
        """Evaluation hooks: nothing to do."""

    def on_eval_end(self, run_context: Any) -> None:
        """Evaluation hooks: nothing to do."""


def check_callbacks(callbacks: Union[None, DSCallback, Sequence[DSCallback]],
                    api: str) -> List[DSCallback]:
    """The list of DSCallbacks a step's `callbacks` argument names."""
    if callbacks is None:
        return []
    listed = [callbacks] if isinstance(callbacks, DSCallback) else list(callbacks)
    for cb in listed:
        if not isinstance(cb, DSCallback):
            raise TypeError(f"{api}: callbacks must be DSCallback instances, got "
                            f"{type(cb).__name__}")
    return listed


class CallbackRunner:
    """Calls a step's DSCallbacks around the rows of its epochs (one runner per step)."""

    def __init__(self, callbacks: List[DSCallback]) -> None:
        self.callbacks = callbacks
        self.context = DSRunContext()
        self.begun = False

    def rows(self, rows: Iterable[Any]) -> Iterator[Any]:
        context = self.context
        if not self.begun:
            self.begun = True
            for cb in self.callbacks:
                cb.ds_begin(context)
        context.cur_epoch_num += 1
        context.cur_step_num_in_epoch = 0
        for cb in self.callbacks:
            cb.ds_epoch_begin(context)
        for row in rows:
            context.cur_step_num_in_epoch += 1
            context.cur_step_num += 1
            due = [cb for cb in self.callbacks
                   if (context.cur_step_num_in_epoch - 1) % cb.step_size == 0]
            for cb in due:
                cb.ds_step_begin(context)
            yield row
            for cb in due:
                cb.ds_step_end(context)
        for cb in self.callbacks:
            cb.ds_epoch_end(context)


def run_hooks(runner: Optional[CallbackRunner], rows: Iterable[Any],
              probe: bool) -> Iterable[Any]:
    """`rows` with the runner's hooks around them (none for a probing pass)."""
    return rows if runner is None or probe else runner.rows(rows)
