"""`dataset.sync_wait` / `dataset.sync_update`: hold a pipeline until training says go on.

    >>> import numpy as np
    >>> import minispore.dataset as ds
    >>> seen = []
    >>> data = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    >>> data = data.sync_wait("policy", callback=seen.append).batch(2)
    >>> for (x,) in data.create_tuple_iterator(output_numpy=True, num_epochs=1):
    ...     data.sync_update("policy", data={"loss": int(x.sum())})
    >>> seen
    [{'loss': 1}, {'loss': 5}]

A sync_wait step lets `num_batch` batches through (counted in rows of the `batch` built
above it), then waits for `sync_update(condition_name)` on the pipeline before each next
`num_batch` batches; sync_update calls the step's `callback(data)` first. minispore's
engine pulls rows in the iterating thread, so the update must come before the next batch is
asked for (as in the loop above) or from another thread; a step left waiting longer than
`SyncWaitDataset.TIMEOUT` seconds raises instead of hanging. For the same reason, put
sync_wait after the map steps, right before `batch`: a map reads its input ahead in blocks
of rows (its unit of work and of random seeding), so a sync_wait below a map would be asked
for rows of batches not yet released, by the thread that should release them.
"""
import threading
from typing import Any, Callable, Optional

from .engine import Dataset, check_int

__all__ = ["SyncWaitDataset"]


class SyncWaitDataset(Dataset, step="sync_wait"):
    """`dataset.sync_wait(condition_name, num_batch=1, callback=None)`."""

    TIMEOUT = 60.0

    def __init__(self, child: Dataset, condition_name: str, num_batch: int = 1,
                 callback: Optional[Callable[[Any], Any]] = None) -> None:
        if not isinstance(condition_name, str) or not condition_name:
            raise TypeError(f"Dataset.sync_wait: condition_name must be a non-empty str, got "
                            f"{condition_name!r}")
        check_int(num_batch, 1, "Dataset.sync_wait", "num_batch")
        if callback is not None and not callable(callback):
            raise TypeError("Dataset.sync_wait: callback must be callable")
        super().__init__(child.get_col_names(), [child])
        self.condition_name, self.num_batch, self.callback = condition_name, num_batch, callback
        self.batch_rows = 1  # set by a batch step built above
        self._condition = threading.Condition()
        self._released: float = 0  # updates received this epoch (in units of num_batch)

    def _known_size(self) -> Optional[int]:
        return self._children[0].get_dataset_size()

    def _epoch_rows(self, epoch: Any) -> Any:
        if epoch.probe:
            yield from self._children[0]._epoch_rows(epoch)
            return
        with self._condition:
            self._released = 0
        for index, row in enumerate(self._children[0]._epoch_rows(epoch)):
            batch = index // self.batch_rows
            with self._condition:
                while batch >= self.num_batch * (1 + self._released):
                    if not self._condition.wait(self.TIMEOUT):
                        raise RuntimeError(
                            f"Dataset.sync_wait({self.condition_name!r}): no sync_update "
                            f"within {self.TIMEOUT} s before batch {batch + 1}; call "
                            f"dataset.sync_update({self.condition_name!r}) after each "
                            f"{self.num_batch} batch(es), and put sync_wait after the map "
                            f"steps (a map reads rows ahead)")
            yield row

    @staticmethod
    def update(dataset: Dataset, condition_name: str, num_batch: Optional[int] = None,
               data: Any = None) -> None:
        """`dataset.sync_update`: see `sync_update`."""
        sync_update(dataset, condition_name, num_batch, data)

    @staticmethod
    def set_batch_rows(dataset: Dataset, batch_size: Any) -> None:
        """Called by `dataset.batch`: see `set_batch_rows`."""
        set_batch_rows(dataset, batch_size)

    def release(self, num_batch: Optional[int], data: Any) -> None:
        """Let `num_batch` (default: the step's) more batches through, after callback(data)."""
        if self.callback is not None:
            self.callback(data)
        steps = 1 if num_batch is None else num_batch / self.num_batch
        with self._condition:
            self._released += steps
            self._condition.notify_all()


def sync_update(dataset: Dataset, condition_name: str, num_batch: Optional[int] = None,
                data: Any = None) -> None:
    """Release the sync_wait steps named `condition_name` in `dataset`'s pipeline."""
    found = []
    stack = [dataset]
    while stack:
        node = stack.pop()
        if isinstance(node, SyncWaitDataset) and node.condition_name == condition_name:
            found.append(node)
        stack.extend(node._children)
    if not found:
        raise RuntimeError(f"Dataset.sync_update: the pipeline has no sync_wait step named "
                           f"{condition_name!r}")
    if num_batch is not None:
        check_int(num_batch, 1, "Dataset.sync_update", "num_batch")
    for node in found:
        node.release(num_batch, data)


def set_batch_rows(dataset: Dataset, batch_size: Any) -> None:
    """Tell the sync_wait steps under a new batch step how many rows make a batch."""
    if not isinstance(batch_size, int):
        return
    stack = list(dataset._children) + [dataset]
    while stack:
        node = stack.pop()
        if isinstance(node, SyncWaitDataset):
            node.batch_rows = batch_size
        if type(node).__name__ not in ("BatchDataset", "PaddedBatchDataset"):
            stack.extend(node._children)
