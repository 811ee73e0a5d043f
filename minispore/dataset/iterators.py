"""Iterators over a dataset: rows as lists (TupleIterator) or dicts (DictIterator) of Tensors.

Each `for` loop over an iterator runs one epoch of the dataset; the iterator can be looped
over again for the next epoch, up to `num_epochs` times (-1: without limit). `stop()` ends
the epoch in progress at once, shutting down its worker threads and processes (dropping the
iterator does the same).
"""
import numpy as np

from ..core.dtype import from_np
from ..core.tensor import Tensor


class _EpochIterator:
    def __init__(self, dataset, num_epochs, output_numpy):
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int) or (
                num_epochs < 1 and num_epochs != -1):
            raise ValueError(f"create iterator: num_epochs must be -1 or an int >= 1, "
                             f"got {num_epochs!r}")
        self._dataset = dataset
        self._epochs_left = num_epochs
        self._output_numpy = output_numpy
        self._rows = None

    def __iter__(self):
        return self

    def __next__(self):
        if self._rows is None:
            if self._epochs_left == 0:
                raise StopIteration
            if self._epochs_left > 0:
                self._epochs_left -= 1
            self._rows = self._dataset._epoch_rows(self._dataset._next_epoch())
        try:
            row = next(self._rows)
        except StopIteration:
            self._rows = None  # the epoch ended; the next loop starts the next one
            raise
        except BaseException:
            self.stop()
            raise
        return self._convert(row)

    def stop(self):
        """End the current epoch now; its workers shut down."""
        if self._rows is not None:
            self._rows.close()
            self._rows = None

    def get_col_names(self):
        return self._dataset.get_col_names()

    def _value(self, array):
        if self._output_numpy or not _tensor_can_hold(array.dtype):
            return array
        return Tensor(array)


def _tensor_can_hold(dtype):
    try:
        from_np(dtype)
    except TypeError:
        return False
    return True


class TupleIterator(_EpochIterator):
    """Rows as lists of Tensors (or numpy arrays), optionally only some `columns`."""

    def __init__(self, dataset, num_epochs=-1, output_numpy=False, columns=None):
        super().__init__(dataset, num_epochs, output_numpy)
        names = dataset.get_col_names()
        if columns is None:
            self._picks = list(range(len(names)))
        else:
            columns = [columns] if isinstance(columns, str) else list(columns)
            self._picks = [dataset._column_index(c, "create_tuple_iterator") for c in columns]

    def _convert(self, row):
        return [self._value(np.asarray(row[i])) for i in self._picks]


class DictIterator(_EpochIterator):
    """Rows as dicts column name -> Tensor (or numpy array)."""

    def _convert(self, row):
        return {name: self._value(np.asarray(v))
                for name, v in zip(self._dataset.get_col_names(), row)}
