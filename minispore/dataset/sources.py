"""Dataset sources: in-memory arrays (NumpySlicesDataset) and Python data (GeneratorDataset)."""
from .engine import Dataset, _check_int, _names, _to_numpy

__all__ = ["NumpySlicesDataset", "GeneratorDataset"]


class NumpySlicesDataset(Dataset):
    """Rows sliced along the first axis of in-memory arrays.

    Args:
        data: a numpy array or list (one column), a tuple of arrays (one column each), or a
            dict column name -> array. Every column needs the same first dimension.
        column_names: names of the columns (default ``column_0``, ``column_1``, ...; a dict's
            keys for a dict).
        num_samples: rows per epoch (default: all).
        shuffle: shuffle the rows every epoch (default True).

    Example:
        >>> import numpy as np
        >>> x, y = np.zeros((100, 4), np.float32), np.arange(100)
        >>> data = NumpySlicesDataset((x, y), column_names=["x", "y"]).batch(32)
        >>> data.get_dataset_size()
        4
    """

    def __init__(self, data, column_names=None, num_samples=None, shuffle=None):
        columns, default_names = _columns_of(data)
        names = _names(column_names, default_names)
        if len(names) != len(columns):
            raise ValueError(f"NumpySlicesDataset: {len(names)} column name(s) {names} for "
                             f"{len(columns)} column(s) of data")
        lengths = {len(c) for c in columns}
        if len(lengths) != 1:
            shapes = {n: c.shape for n, c in zip(names, columns)}
            raise ValueError(f"NumpySlicesDataset: columns have different numbers of rows {shapes}")
        super().__init__(names)
        self._columns = columns
        self._rows = _sample_count(lengths.pop(), num_samples, "NumpySlicesDataset")
        self._shuffle = True if shuffle is None else bool(shuffle)

    def _known_size(self):
        return self._rows

    def _epoch_rows(self, rng):
        n = len(self._columns[0])
        order = rng.permutation(n)[:self._rows] if self._shuffle else range(self._rows)
        for i in order:
            yield tuple(c[i] for c in self._columns)


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
    array = _to_numpy(value)
    if array.ndim == 0:
        raise ValueError(f"NumpySlicesDataset: a column needs at least one dimension to slice, "
                         f"got the scalar {array!r}")
    return array


def _sample_count(available, num_samples, api):
    if num_samples is None:
        return available
    _check_int(num_samples, 1, api, "num_samples")
    return min(num_samples, available)


class GeneratorDataset(Dataset):
    """Rows from Python: a generator function, an iterable, or a random-accessible object.

    Args:
        source: a callable returning an iterator (e.g. a generator function, called once
            per epoch), an iterable, or an object with ``__getitem__`` and ``__len__``. Each
            item is a tuple with one value per column (or a single value for one column).
        column_names: the column names (a str for a single column).
        num_samples: rows per epoch (default: all).
        shuffle: shuffle every epoch; only random-accessible sources can be shuffled, and for
            them it is the default.

    Example:
        >>> import numpy as np
        >>> def squares():
        ...     for i in range(4):
        ...         yield np.array(i), np.array(i * i)
        >>> data = GeneratorDataset(squares, ["i", "square"])
        >>> [int(s) for _, s in data.create_tuple_iterator(output_numpy=True)]
        [0, 1, 4, 9]
    """

    def __init__(self, source, column_names, num_samples=None, shuffle=None):
        if column_names is None:
            raise ValueError("GeneratorDataset: column_names is required (a str or list of str)")
        super().__init__(_names(column_names, ()))
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not (self._random_access or callable(source) or hasattr(source, "__iter__")):
            raise TypeError(f"GeneratorDataset: source must be callable, iterable or random-"
                            f"accessible (__getitem__ and __len__), got {type(source).__name__}")
        if shuffle and not self._random_access:
            raise ValueError("GeneratorDataset: shuffle=True needs a random-accessible source "
                             "(with __getitem__ and __len__); use .shuffle(buffer_size) instead")
        self._source = source
        self._shuffle = self._random_access if shuffle is None else bool(shuffle)
        if num_samples is not None:
            _check_int(num_samples, 1, "GeneratorDataset", "num_samples")
        self._num_samples = num_samples

    def _known_size(self):
        if not hasattr(self._source, "__len__"):
            return None
        n = len(self._source)
        return n if self._num_samples is None else min(n, self._num_samples)

    def _epoch_rows(self, rng):
        count = 0
        for item in self._items(rng):
            if self._num_samples is not None and count == self._num_samples:
                return
            yield self._row(item)
            count += 1

    def _items(self, rng):
        if self._random_access:
            n = len(self._source)
            order = rng.permutation(n) if self._shuffle else range(n)
            return (self._source[int(i)] for i in order)
        return iter(self._source() if callable(self._source) else self._source)

    def _row(self, item):
        values = item if isinstance(item, tuple) else (item,)
        if len(values) != len(self._column_names):
            raise ValueError(f"GeneratorDataset: the source gave {len(values)} value(s) per row "
                             f"for the {len(self._column_names)} column(s) "
                             f"{self._column_names}")
        return tuple(_to_numpy(v) for v in values)
