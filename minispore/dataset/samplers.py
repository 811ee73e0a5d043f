"""Samplers: which rows of a random-access source an epoch reads, in which order.

    >>> import numpy as np
    >>> import minispore.dataset as ds
    >>> shard = ds.NumpySlicesDataset(np.arange(10), ["n"], num_shards=3, shard_id=1,
    ...                               shuffle=False)
    >>> [int(n) for (n,) in shard.create_tuple_iterator(output_numpy=True)]
    [1, 4, 7, 0]

Sharding follows MindSpore's DistributedSampler: every shard gets ceil(N / num_shards) rows
(shard i takes rows i, i + num_shards, ...; the last shards wrap around to the first rows),
so every rank of a data-parallel job runs the same number of steps. With shuffling, all
shards cut from one permutation, drawn from the dataset seed and the epoch, so ranks that
share a seed read disjoint rows (exactly once each when num_shards divides N).
"""
import numpy as np

from .engine import check_int
from .serialization import record_init

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "DistributedSampler",
           "SubsetSampler", "SubsetRandomSampler", "WeightedRandomSampler", "PKSampler",
           "select_sampler"]


class Sampler:
    """Base class: `indices(num_rows, rng)` gives one epoch's row indices."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        record_init(cls)  # for serialize / deserialize

    def __init__(self, num_samples=None):
        if num_samples is not None:
            check_int(num_samples, 0, type(self).__name__, "num_samples")
        self.num_samples = num_samples or None  # 0 means all, as in MindSpore

    def indices(self, num_rows, rng):
        order = self._order(num_rows, rng)
        return order if self.num_samples is None else order[:self.num_samples]

    def count(self, num_rows):
        """Rows per epoch over a source of `num_rows` rows."""
        full = self._full_count(num_rows)
        return full if self.num_samples is None else min(full, self.num_samples)

    def get_num_samples(self):
        return self.num_samples

    def is_sharded(self):
        return False

    def _full_count(self, num_rows):
        return num_rows

    def _order(self, num_rows, rng):
        raise NotImplementedError


record_init(Sampler)


class SequentialSampler(Sampler):
    """Rows in order, from `start_index`."""

    def __init__(self, start_index=None, num_samples=None):
        super().__init__(num_samples)
        self.start_index = start_index or 0
        check_int(self.start_index, 0, "SequentialSampler", "start_index")

    def _full_count(self, num_rows):
        return max(num_rows - self.start_index, 0)

    def _order(self, num_rows, rng):
        return np.arange(self.start_index, num_rows)


class RandomSampler(Sampler):
    """Rows in a random order (a permutation, or draws with `replacement`)."""

    def __init__(self, replacement=False, num_samples=None):
        super().__init__(num_samples)
        self.replacement = bool(replacement)

    def _order(self, num_rows, rng):
        if self.replacement:
            return rng.integers(num_rows, size=self.count(num_rows))
        return rng.permutation(num_rows)


class DistributedSampler(Sampler):
    """Shard `shard_id` of `num_shards` (see the module docstring); `offset` starts the shard
    assignment that many shards later (MindSpore's uneven split for concatenated data)."""

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        super().__init__(num_samples)
        check_int(num_shards, 1, "DistributedSampler", "num_shards")
        check_int(shard_id, 0, "DistributedSampler", "shard_id")
        if shard_id >= num_shards:
            raise ValueError(f"DistributedSampler: shard_id must be in [0, {num_shards}), "
                             f"got {shard_id}")
        self.num_shards, self.shard_id = num_shards, shard_id
        self.shuffle = bool(shuffle)
        self.offset = offset

    def is_sharded(self):
        return self.num_shards > 1

    def _full_count(self, num_rows):
        if self.offset == -1:
            return -(-num_rows // self.num_shards)  # ceil: every shard the same size
        return len(self._positions(num_rows))

    def _positions(self, num_rows):
        if self.offset == -1:
            picks = np.arange(self._full_count(num_rows)) * self.num_shards + self.shard_id
            return picks % max(num_rows, 1)
        start = (self.shard_id - self.offset) % self.num_shards
        return np.arange(start, num_rows, self.num_shards)

    def _order(self, num_rows, rng):
        positions = self._positions(num_rows)
        return rng.permutation(num_rows)[positions] if self.shuffle else positions


class SubsetSampler(Sampler):
    """The given row indices, in the given order."""

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        self.subset = _int_list(indices, type(self).__name__)

    def _full_count(self, num_rows):
        return len(self.subset)

    def _order(self, num_rows, rng):
        return _checked(self.subset, num_rows, type(self).__name__)


class SubsetRandomSampler(SubsetSampler):
    """The given row indices, in a random order every epoch."""

    def _order(self, num_rows, rng):
        return rng.permutation(_checked(self.subset, num_rows, type(self).__name__))


class WeightedRandomSampler(Sampler):
    """`num_samples` rows drawn with probabilities proportional to `weights`."""

    def __init__(self, weights, num_samples=None, replacement=True):
        super().__init__(num_samples)
        weights = np.asarray(weights, dtype=np.float64)
        if weights.ndim != 1 or not len(weights) or (weights < 0).any() or weights.sum() == 0:
            raise ValueError("WeightedRandomSampler: weights must be a non-empty list of "
                             "non-negative numbers, not all zero")
        self.weights = weights
        self.replacement = bool(replacement)

    def _full_count(self, num_rows):
        return len(self.weights)

    def _order(self, num_rows, rng):
        n = self.count(num_rows)
        if not self.replacement and n > np.count_nonzero(self.weights):
            raise ValueError(f"WeightedRandomSampler: {n} draws without replacement need as "
                             f"many non-zero weights")
        picks = rng.choice(len(self.weights), size=n, replace=self.replacement,
                           p=self.weights / self.weights.sum())
        return _checked(picks, num_rows, type(self).__name__)


class PKSampler(Sampler):
    """P classes times K rows: `num_val` rows of every class of the source's `class_column`
    (rows of a class repeat when it has fewer), classes in label order (shuffled with
    `shuffle`, as are the rows picked within a class). For metric learning, e.g. triplet
    losses that need several rows of each class in a batch.

    Args:
        num_val: rows per class (K).
        num_class: not used (MindSpore reserves it too); every class is sampled.
        shuffle: draw the classes' order and each class's rows at random, every epoch.
        class_column: the column holding the integer class label (default "label").
        num_samples: at most this many rows per epoch.

    Example:
        >>> data = ds.ImageFolderDataset("/data/faces", sampler=ds.PKSampler(4))  # doctest: +SKIP
    """

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label",
                 num_samples=None):
        super().__init__(num_samples)
        check_int(num_val, 1, "PKSampler", "num_val")
        if num_class is not None:
            raise NotImplementedError("PKSampler: num_class is reserved in MindSpore; leave it "
                                      "None (every class is sampled)")
        if not isinstance(class_column, str):
            raise TypeError(f"PKSampler: class_column must be a column name, got "
                            f"{class_column!r}")
        self.num_val, self.shuffle, self.class_column = num_val, bool(shuffle), class_column
        self._source = None
        self._classes = None

    def bind(self, source):
        """The source this sampler picks rows of (called by the source)."""
        self._source = source
        self._classes = None

    def _rows_by_class(self, num_rows):
        if self._classes is None:
            if self._source is None:
                raise RuntimeError("PKSampler: not attached to a source (pass it as a "
                                   "source's sampler=)")
            column = self._source._column_index(self.class_column, "PKSampler")
            labels = getattr(self._source, "_labels", None)  # sources that keep them
            if column != 1 or not isinstance(labels, np.ndarray) or labels.ndim != 1 or \
                    len(labels) != num_rows:
                labels = [self._source._read(i)[column] for i in range(num_rows)]
            labels = np.asarray(labels)
            if labels.ndim != 1 or labels.dtype.kind not in "iu":
                raise TypeError(f"PKSampler: column {self.class_column!r} must hold integer "
                                f"scalars, got {labels.dtype} of shape {labels.shape[1:]}")
            self._classes = [np.flatnonzero(labels == c) for c in np.unique(labels)]
        return self._classes

    def _full_count(self, num_rows):
        return self.num_val * len(self._rows_by_class(num_rows))

    def _order(self, num_rows, rng):
        classes = self._rows_by_class(num_rows)
        order = rng.permutation(len(classes)) if self.shuffle else range(len(classes))
        picks = []
        for c in order:
            rows = rng.permutation(classes[c]) if self.shuffle else classes[c]
            picks.append(rows[np.arange(self.num_val) % len(rows)])
        return np.concatenate(picks) if picks else np.zeros(0, np.int64)


class _IterableSampler(Sampler):
    """A user's sampler: any iterable of row indices, iterated once per epoch."""

    def __init__(self, iterable):
        super().__init__(None)
        self._iterable = iterable

    def _full_count(self, num_rows):
        return len(self._iterable) if hasattr(self._iterable, "__len__") else num_rows

    def _order(self, num_rows, rng):
        return _checked(_int_list(iter(self._iterable), "sampler"), num_rows, "sampler")


def select_sampler(api, sampler, shuffle, num_samples, num_shards, shard_id):
    """The sampler a source's arguments describe, checked as MindSpore checks them."""
    if (num_shards is None) != (shard_id is None):
        raise ValueError(f"{api}: num_shards and shard_id go together; got num_shards="
                         f"{num_shards!r}, shard_id={shard_id!r}")
    if sampler is not None:
        if shuffle is not None or num_shards is not None:
            raise ValueError(f"{api}: give either sampler or shuffle / num_shards, not both")
        if num_samples is not None:
            raise ValueError(f"{api}: give num_samples to the sampler, not to the dataset")
        if isinstance(sampler, Sampler):
            return sampler
        if hasattr(sampler, "__iter__"):
            return _IterableSampler(sampler)
        raise TypeError(f"{api}: sampler must be a Sampler or an iterable of indices, got "
                        f"{type(sampler).__name__}")
    shuffle = True if shuffle is None else bool(shuffle)
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle, num_samples)
    return RandomSampler(num_samples=num_samples) if shuffle else SequentialSampler(
        num_samples=num_samples)


def _int_list(values, api):
    out = np.asarray(list(values))
    if out.ndim != 1 or (out.size and out.dtype.kind not in "iu"):
        raise TypeError(f"{api}: indices must be a list of ints")
    return out.astype(np.int64)


def _checked(indices, num_rows, api):
    indices = np.asarray(indices, dtype=np.int64)
    bad = indices[(indices < 0) | (indices >= num_rows)]
    if bad.size:
        raise ValueError(f"{api}: row index {int(bad[0])} is out of range for a source of "
                         f"{num_rows} rows")
    return indices
