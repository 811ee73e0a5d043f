"""Sources over Python data: in-memory arrays (NumpySlicesDataset) and Python objects,
generators or iterables (GeneratorDataset)."""
from ..engine import check_int, column_names, to_numpy
from .base import MappableSource

__all__ = ["NumpySlicesDataset", "GeneratorDataset"]


class GeneratorDataset(MappableSource):
    """Rows from Python: a random-accessible object, a generator function, or an iterable.

    Args:
        source: an object with ``__getitem__`` and ``__len__`` (random access: shuffling,
            samplers, shards and parallel reading work), or a callable returning an iterator
            (e.g. a generator function, called once per epoch), or an iterable. Each item is
            a tuple with one value per column (or a single value for one column).
        column_names: the column names (a str for a single column).
        column_types, schema, max_rowsize: accepted for MindSpore compatibility.
        num_samples: rows per epoch (default: all).
        num_parallel_workers: workers calling ``source[i]`` (random-access sources only).
        shuffle: shuffle every epoch; only random-accessible sources can be shuffled, and for
            them it is the default.
        sampler, num_shards, shard_id: see `samplers` (random-access sources only).
        python_multiprocessing: parallel workers are processes (default, as in MindSpore) or
            threads.

    Example:
        >>> import numpy as np
        >>> def squares():
        ...     for i in range(4):
        ...         yield np.array(i), np.array(i * i)
        >>> data = GeneratorDataset(squares, ["i", "square"])
        >>> [int(s) for _, s in data.create_tuple_iterator(output_numpy=True)]
        [0, 1, 4, 9]
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None):
        api = type(self).__name__
        if column_names is None:
            raise ValueError(f"{api}: column_names is required (a str or list of str)")
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not (self._random_access or callable(source) or hasattr(source, "__iter__")):
            raise TypeError(f"{api}: source must be callable, iterable or random-accessible "
                            f"(__getitem__ and __len__), got {type(source).__name__}")
        if not self._random_access:
            if shuffle:
                raise ValueError(f"{api}: shuffle=True needs a random-accessible source (with "
                                 f"__getitem__ and __len__); use .shuffle(buffer_size) instead")
            if sampler is not None or num_shards is not None:
                raise ValueError(f"{api}: sampler and num_shards need a random-accessible "
                                 f"source (with __getitem__ and __len__)")
            shuffle = False
        super().__init__(api, _column_names(column_names), num_samples, num_parallel_workers,
                         shuffle, sampler, num_shards, shard_id, python_multiprocessing)
        self._source = source
        if num_samples is not None:
            check_int(num_samples, 1, api, "num_samples")
        self._num_samples = num_samples

    def _row_count(self):
        return len(self._source)

    def _read(self, index):
        return self._row(self._source[index])

    def _known_size(self):
        if self._random_access:
            return super()._known_size()
        if not hasattr(self._source, "__len__"):
            return None
        n = len(self._source)
        return n if self._num_samples is None else min(n, self._num_samples)

    def _epoch_rows(self, epoch):
        if self._random_access:
            yield from super()._epoch_rows(epoch)
            return
        items = iter(self._source() if callable(self._source) else self._source)
        count = 0
        while self._num_samples is None or count < self._num_samples:
            try:
                row = self._row(next(items))
            except StopIteration:
                return
            except Exception as error:
                raise RuntimeError(f"{self._api}: the source failed on row {count}: "
                                   f"{type(error).__name__}: {error}") from error
            yield row
            count += 1

    def _split_by_indices(self, indices, randomize):
        if self._random_access:
            return super()._split_by_indices(indices, randomize)
        return self._steps["select"](self, indices)

    def _row(self, item):
        values = item if isinstance(item, tuple) else (item,)
        if len(values) != len(self._column_names):
            raise ValueError(f"the source gave {len(values)} value(s) per row for the "
                             f"{len(self._column_names)} column(s) {self._column_names}")
        return tuple(to_numpy(v) for v in values)


def _column_names(names):
    return column_names(names, ())


class NumpySlicesDataset(GeneratorDataset):
    """Rows sliced along the first axis of in-memory arrays.

    Args:
        data: a numpy array or list (one column), a tuple of arrays (one column each), or a
            dict column name -> array. Every column needs the same first dimension.
        column_names: names of the columns (default ``column_0``, ``column_1``, ...; a dict's
            keys for a dict).
        num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id: as for
            GeneratorDataset (shuffled by default).

    Example:
        >>> import numpy as np
        >>> x, y = np.zeros((100, 4), np.float32), np.arange(100)
        >>> data = NumpySlicesDataset((x, y), column_names=["x", "y"]).batch(32)
        >>> data.get_dataset_size()
        4
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        columns, default_names = _columns_of(data)
        names = _column_names(column_names) if column_names is not None else default_names
        if len(names) != len(columns):
            raise ValueError(f"NumpySlicesDataset: {len(names)} column name(s) {names} for "
                             f"{len(columns)} column(s) of data")
        lengths = {len(c) for c in columns}
        if len(lengths) != 1:
            shapes = {n: c.shape for n, c in zip(names, columns)}
            raise ValueError(f"NumpySlicesDataset: columns have different numbers of rows {shapes}")
        super().__init__(_Slices(columns), names, num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers, shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id,
                         python_multiprocessing=False)


class _Slices:
    """Random access to the rows of equally long arrays."""

    def __init__(self, columns):
        self.columns = columns

    def __len__(self):
        return len(self.columns[0])

    def __getitem__(self, index):
        return tuple(c[index] for c in self.columns)


def _columns_of(data):
    """(list of numpy columns, default column names) for NumpySlicesDataset's `data`."""
    if isinstance(data, dict):
        return [_column(v) for v in data.values()], [str(k) for k in data]
    if isinstance(data, tuple):
        columns = [_column(v) for v in data]
    else:
        try:
            columns = [_column(data)]
        except ValueError:  # numpy refuses ragged lists
            raise ValueError("NumpySlicesDataset: a list is one column and its items must have "
                             "one shape; pass a tuple of arrays for several columns") from None
    return columns, [f"column_{i}" for i in range(len(columns))]


def _column(value):
    array = to_numpy(value)
    if array.ndim == 0:
        raise ValueError(f"NumpySlicesDataset: a column needs at least one dimension to slice, "
                         f"got the scalar {array!r}")
    return array
