"""Dataset pipelines: a source, then batch / shuffle / map / repeat steps, then an iterator.

    >>> import numpy as np
    >>> import minispore.dataset as ds
    >>> data = ds.NumpySlicesDataset((np.arange(6.0), np.arange(6)), ["x", "y"], shuffle=False)
    >>> [y.asnumpy().tolist() for x, y in data.batch(4).create_tuple_iterator()]
    [[0, 1, 2, 3], [4, 5]]

Every step returns a new Dataset; nothing runs until a dataset is iterated. A row is a tuple
of numpy arrays, one per column; iterators turn rows into Tensors at the end.

Randomness: epoch k of a dataset draws every shuffle in its pipeline from one numpy
Generator seeded with (seed, k), where seed is `config.get_seed()` and k counts the epochs
started on that dataset object. So a run is reproducible, and every epoch gets a new order
even when each epoch uses a fresh iterator.
"""
import numpy as np

from . import config

__all__ = ["Dataset", "BatchDataset", "ShuffleDataset", "MapDataset", "RepeatDataset"]


class Dataset:
    """Base class of every dataset: the pipeline steps and the iterators.

    Subclasses define `_epoch_rows(rng)`, a generator of one epoch's rows, and may define
    `_known_size()` (rows per epoch, or None when only a full pass can tell).
    """

    def __init__(self, column_names, child=None):
        self._column_names = list(column_names)
        self._child = child
        self._epochs_started = 0
        self._size = None

    # ----- pipeline steps -----
    def batch(self, batch_size, drop_remainder=False):
        """Stack every `batch_size` consecutive rows column by column (the last batch may be
        smaller unless `drop_remainder`)."""
        return BatchDataset(self, batch_size, drop_remainder)

    def shuffle(self, buffer_size):
        """Shuffle through a buffer of `buffer_size` rows (> 1); a buffer as large as the
        dataset gives a uniform shuffle."""
        return ShuffleDataset(self, buffer_size)

    def map(self, operations, input_columns=None, output_columns=None):
        """Apply `operations` (a callable or a list of them, chained) to `input_columns`
        (default: the first column) of every row; the outputs replace those columns, named
        `output_columns` (default: the input names)."""
        return MapDataset(self, operations, input_columns, output_columns)

    def repeat(self, count):
        """Run `count` epochs of this dataset as one."""
        return RepeatDataset(self, count)

    # ----- queries -----
    def get_col_names(self):
        return list(self._column_names)

    def get_dataset_size(self):
        """Rows per epoch (batches, after `batch`); a source without a length is counted by one
        full pass, once."""
        if self._size is None:
            size = self._known_size()
            if size is None:
                size = sum(1 for _ in self._epoch_rows(np.random.default_rng(config.get_seed())))
            self._size = size
        return self._size

    def get_batch_size(self):
        return self._child.get_batch_size() if self._child is not None else 1

    def _known_size(self):
        return None

    def _epoch_rows(self, rng):
        raise NotImplementedError

    def _next_epoch_rng(self):
        rng = np.random.default_rng((config.get_seed(), self._epochs_started))
        self._epochs_started += 1
        return rng

    # ----- iterators -----
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False):
        """An iterator of rows as lists of Tensors (numpy arrays with `output_numpy`).

        Each `for` loop over it runs one epoch; `num_epochs` limits how many (-1: no limit).
        `columns` picks and orders the columns (default: all).

            >>> for x, y in dataset.create_tuple_iterator():    # doctest: +SKIP
            ...     loss = train_step(x, y)
        """
        from .iterators import TupleIterator
        return TupleIterator(self, num_epochs, output_numpy, columns)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False):
        """Like `create_tuple_iterator`, but each row is a dict column name -> Tensor."""
        from .iterators import DictIterator
        return DictIterator(self, num_epochs, output_numpy)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))

    def _column_index(self, name, api):
        if name not in self._column_names:
            raise ValueError(f"{api}: no column named {name!r}; columns are {self._column_names}")
        return self._column_names.index(name)


def _check_int(value, low, api, arg):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{api}: {arg} must be an int >= {low}, got {value!r}")


class BatchDataset(Dataset):
    """`dataset.batch(batch_size, drop_remainder)`."""

    def __init__(self, child, batch_size, drop_remainder=False):
        _check_int(batch_size, 1, "Dataset.batch", "batch_size")
        super().__init__(child.get_col_names(), child)
        self._batch_size = batch_size
        self._drop_remainder = bool(drop_remainder)

    def get_batch_size(self):
        return self._batch_size

    def _known_size(self):
        rows = self._child.get_dataset_size()
        full, rest = divmod(rows, self._batch_size)
        return full + (1 if rest and not self._drop_remainder else 0)

    def _epoch_rows(self, rng):
        pending = []
        for row in self._child._epoch_rows(rng):
            pending.append(row)
            if len(pending) == self._batch_size:
                yield self._stack(pending)
                pending = []
        if pending and not self._drop_remainder:
            yield self._stack(pending)

    def _stack(self, rows):
        batch = []
        for i, name in enumerate(self._column_names):
            values = [row[i] for row in rows]
            shapes = {v.shape for v in values}
            if len(shapes) > 1:
                raise ValueError(f"Dataset.batch: column {name!r} has rows of different shapes "
                                 f"{sorted(shapes)}; they cannot be stacked into one batch")
            batch.append(np.stack(values))
        return tuple(batch)


class ShuffleDataset(Dataset):
    """`dataset.shuffle(buffer_size)`: MindSpore's buffer shuffle."""

    def __init__(self, child, buffer_size):
        _check_int(buffer_size, 2, "Dataset.shuffle", "buffer_size")
        super().__init__(child.get_col_names(), child)
        self._buffer_size = buffer_size

    def _known_size(self):
        return self._child.get_dataset_size()

    def _epoch_rows(self, rng):
        buffer = []
        for row in self._child._epoch_rows(rng):
            if len(buffer) < self._buffer_size:
                buffer.append(row)
                continue
            i = rng.integers(len(buffer))
            yield buffer[i]
            buffer[i] = row
        for i in rng.permutation(len(buffer)):
            yield buffer[i]


class MapDataset(Dataset):
    """`dataset.map(operations, input_columns, output_columns)`."""

    def __init__(self, child, operations, input_columns=None, output_columns=None):
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(op) for op in ops):
            raise TypeError(f"Dataset.map: operations must be a callable or a list of callables, "
                            f"got {operations!r}")
        names = child.get_col_names()
        inputs = _names(input_columns, names[:1])
        outputs = _names(output_columns, inputs)
        self._positions = [child._column_index(n, "Dataset.map") for n in inputs]
        kept = [n for n in names if n not in inputs]
        first = min(self._positions)
        new_names = kept[:first] + outputs + kept[first:]
        if len(set(new_names)) != len(new_names):
            raise ValueError(f"Dataset.map: output columns {outputs} clash with columns {kept}")
        super().__init__(new_names, child)
        self._ops, self._n_outputs, self._first = ops, len(outputs), first

    def _known_size(self):
        return self._child.get_dataset_size()

    def _epoch_rows(self, rng):
        for row in self._child._epoch_rows(rng):
            values = tuple(row[i] for i in self._positions)
            for op in self._ops:
                result = op(*values)
                values = tuple(result) if isinstance(result, tuple) else (result,)
            if len(values) != self._n_outputs:
                raise ValueError(f"Dataset.map: the operations returned {len(values)} value(s) "
                                 f"for {self._n_outputs} output column(s); set output_columns")
            kept = [v for i, v in enumerate(row) if i not in self._positions]
            yield tuple(kept[:self._first]) + tuple(_to_numpy(v) for v in values) + tuple(
                kept[self._first:])


class RepeatDataset(Dataset):
    """`dataset.repeat(count)`."""

    def __init__(self, child, count):
        _check_int(count, 1, "Dataset.repeat", "count")
        super().__init__(child.get_col_names(), child)
        self._count = count

    def _known_size(self):
        return self._count * self._child.get_dataset_size()

    def _epoch_rows(self, rng):
        for _ in range(self._count):
            yield from self._child._epoch_rows(rng)


def _names(columns, default):
    if columns is None:
        return list(default)
    names = [columns] if isinstance(columns, str) else list(columns)
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"column names must be a str or a non-empty list of str, got {columns!r}")
    return names


def _to_numpy(value):
    """A row value as a numpy array (Tensors and Python numbers included)."""
    from ..core.tensor import Tensor
    return np.array(value.asnumpy()) if isinstance(value, Tensor) else np.asarray(value)
