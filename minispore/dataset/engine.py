"""Dataset pipelines: a source, then steps (map, batch, shuffle, repeat...), then an iterator.

    >>> import numpy as np
    >>> import minispore.dataset as ds
    >>> data = ds.NumpySlicesDataset((np.arange(6.0), np.arange(6)), ["x", "y"], shuffle=False)
    >>> [y.asnumpy().tolist() for x, y in data.batch(4).create_tuple_iterator()]
    [[0, 1, 2, 3], [4, 5]]

Every step returns a new Dataset; nothing runs until a dataset is iterated. A row is a tuple
of numpy arrays, one per column; iterators turn rows into Tensors at the end.

Randomness: epoch k of a pipeline is an `Epoch(seed, k)`, where seed is `config.get_seed()`
and k counts the epochs started on the dataset object being iterated. Each step that draws
(a shuffle, a sampler, a map's random transforms) seeds its own numpy Generator from (seed,
k, its depth in the pipeline, its kind), so a run is reproducible, every epoch gets a new
order even when each epoch uses a fresh iterator, the draws of one step do not depend on
when another step ran, and ranks of a data-parallel job with the same seed agree on the
shuffled order their shards are cut from.
"""
import zlib

import numpy as np

from ..core.tensor import Tensor
from . import config
from .iterators import DictIterator, TupleIterator
from .serialization import record_init

__all__ = ["Dataset", "Epoch", "check_int", "column_names", "split_sizes", "to_numpy"]


class Epoch:
    """One epoch of a pipeline: the seed and number every random choice in it derives from."""

    def __init__(self, seed, number, probe=False):
        self.seed = seed
        self.number = number
        self.probe = probe  # a pass that only inspects the pipeline (no DSCallback hooks)

    def key(self, node):
        """The entropy for `node`'s draws this epoch (a list of ints for numpy's SeedSequence)."""
        kind = zlib.crc32(type(node).__name__.encode())  # stable across processes, unlike hash()
        return [self.seed, self.number, node._depth, kind]

    def generator(self, node):
        return np.random.default_rng(self.key(node))


class Dataset:
    """Base class of every dataset: the pipeline steps, the queries and the iterators.

    Subclasses define `_epoch_rows(epoch)`, a generator of one epoch's rows (tuples of numpy
    arrays), and may define `_known_size()` (rows per epoch, or None when only a full pass
    can tell).
    """


    # the steps of a pipeline (mapping.py, batching.py, steps.py) by the name this class's
    # methods build them with: each step class names itself (`class MapDataset(Dataset,
    # step="map")`), as those modules import this one
    _steps: dict = {}

    def __init_subclass__(cls, step=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if step is not None:
            Dataset._steps[step] = cls
        record_init(cls, "dataset")  # for serialize / deserialize

    def __init__(self, column_names, children=()):
        self._column_names = list(column_names)
        self._children = list(children)
        self._depth = 1 + max((c._depth for c in self._children), default=-1)
        self._epochs_started = 0
        self._size = None

    # ----- pipeline steps -----
    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
            python_multiprocessing=False, **kwargs):
        """Apply `operations` (a transform or callable, or a list of them, chained) to
        `input_columns` of every row (default: the first column); the outputs of the last one
        replace those columns, named `output_columns` (default: the input names).

        `num_parallel_workers` workers (threads, or processes with `python_multiprocessing`)
        transform blocks of rows while the consumer takes them in order; random transforms
        draw the same numbers whatever the worker count (see `randomness`).

            >>> import minispore.dataset.vision as vision                  # doctest: +SKIP
            >>> data = data.map([vision.Decode(), vision.HWC2CHW()], "image",
            ...                 num_parallel_workers=2)
        """
        return self._steps["map"](self, operations, input_columns, output_columns, num_parallel_workers,
                          python_multiprocessing, **kwargs)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack every `batch_size` consecutive rows column by column (the last batch may be
        smaller unless `drop_remainder`). `batch_size` may be a callable of a BatchInfo.
        Keyword arguments: `per_batch_map(col_lists..., batch_info)`, `input_columns`,
        `output_columns`, `python_multiprocessing` (see BatchDataset)."""
        batched = self._steps["batch"](self, batch_size, drop_remainder, num_parallel_workers,
                                       **kwargs)
        if "sync_wait" in self._steps:  # sync_wait steps below count in batches (sync.py)
            self._steps["sync_wait"].set_batch_rows(self, batch_size)
        return batched

    def sync_wait(self, condition_name, num_batch=1, callback=None):
        """Wait for `sync_update(condition_name)` after every `num_batch` batches, calling
        `callback(data)` at each update (see sync.py)."""
        return self._steps["sync_wait"](self, condition_name, num_batch, callback)

    def sync_update(self, condition_name, num_batch=None, data=None):
        """Release the pipeline's sync_wait step `condition_name` for `num_batch` batches
        (default: its own num_batch), calling its callback with `data`."""
        self._steps["sync_wait"].update(self, condition_name, num_batch, data)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
                     pad_info=None):
        """`batch`, padding the rows of each column to one shape first: `pad_info` maps a
        column to (shape or None, pad value); `{}` pads every column to its batch's largest
        shape with 0; None pads nothing."""
        return self._steps["batch"](self, batch_size, drop_remainder, num_parallel_workers,
                                    pad_info=pad_info)

    def bucket_batch_by_length(self, column_names, bucket_boundaries, bucket_batch_sizes,
                               element_length_function=None, pad_info=None,
                               pad_to_bucket_boundary=False, drop_remainder=False):
        """Batch rows of similar length together: a row goes to the bucket of its length
        (boundaries [b0, b1, ...] make buckets [0, b0), [b0, b1), ..., [b_last, inf)), and a
        bucket is padded and emitted when it holds its batch size."""
        return self._steps["bucket_batch_by_length"](self, column_names, bucket_boundaries,
                                          bucket_batch_sizes, element_length_function, pad_info,
                                          pad_to_bucket_boundary, drop_remainder)

    def shuffle(self, buffer_size):
        """Shuffle through a buffer of `buffer_size` rows (> 1); a buffer as large as the
        dataset gives a uniform shuffle."""
        return self._steps["shuffle"](self, buffer_size)

    def repeat(self, count=None):
        """Run `count` epochs of this dataset as one (None or -1: without end)."""
        return self._steps["repeat"](self, count)

    def take(self, count=-1):
        """The first `count` rows (-1: all)."""
        return self._steps["take"](self, count)

    def skip(self, count):
        """All rows but the first `count`."""
        return self._steps["skip"](self, count)

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """Keep the rows for which `predicate(*columns)` is true (`input_columns`: which
        columns it gets, default all)."""
        return self._steps["filter"](self, predicate, input_columns, num_parallel_workers)

    def project(self, columns):
        """Keep only `columns`, in that order."""
        return self._steps["project"](self, columns)

    def rename(self, input_columns, output_columns):
        """Rename columns `input_columns` to `output_columns`."""
        return self._steps["rename"](self, input_columns, output_columns)

    def zip(self, datasets):
        """Rows side by side with those of `datasets` (a Dataset or a tuple of them); the
        column names must differ; as many rows as the shortest."""
        if isinstance(datasets, Dataset):
            datasets = (datasets,)
        if not isinstance(datasets, tuple) or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError(f"Dataset.zip: expected a Dataset or a tuple of Datasets, got "
                            f"{type(datasets).__name__}")
        return self._steps["zip"]((self, *datasets))

    def concat(self, datasets):
        """This dataset's rows, then those of `datasets` (a Dataset or a list); the same
        columns everywhere. `a + b` is `a.concat(b)`."""
        if isinstance(datasets, Dataset):
            datasets = [datasets]
        if not isinstance(datasets, list) or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError(f"Dataset.concat: expected a Dataset or a list of Datasets, got "
                            f"{type(datasets).__name__}")
        return self._steps["concat"]([self, *datasets])

    def __add__(self, other):
        return self.concat(other)

    def split(self, sizes, randomize=True):
        """Non-overlapping datasets of `sizes` rows (ints summing to the dataset size, or
        fractions summing to 1, rounded as MindSpore does). `randomize` assigns rows to
        splits by a permutation drawn once from the dataset seed; else the splits are
        consecutive runs of rows."""
        if self._is_sharded():
            raise RuntimeError("Dataset.split: split the dataset before sharding it (num_shards "
                               "/ DistributedSampler), not after")
        total = self.get_dataset_size()
        absolute = split_sizes(sizes, total)
        order = np.arange(total)
        if randomize:
            order = np.random.default_rng([config.get_seed(), total]).permutation(total)
        bounds = np.cumsum([0] + absolute)
        parts = [order[bounds[i]:bounds[i + 1]] for i in range(len(absolute))]
        return [self._split_by_indices(part, randomize) for part in parts]

    def _split_by_indices(self, indices, randomize):
        """One split of `split`: a dataset of the rows at positions `indices` (sources pick
        their rows without reading the others)."""
        return self._steps["select"](self, indices)

    def apply(self, apply_func):
        """`apply_func(self)`, which must return a Dataset."""
        dataset = apply_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError(f"Dataset.apply: apply_func must return a Dataset, got "
                            f"{type(dataset).__name__}")
        return dataset

    # ----- queries -----
    def get_col_names(self):
        return list(self._column_names)

    def get_dataset_size(self):
        """Rows per epoch (batches, after `batch`); a pipeline whose size only a full pass can
        tell (a generator, a filter) is counted by one pass, once. -1 for endless repeats."""
        if self._size is None:
            size = self._known_size()
            if size is None:
                size = sum(1 for _ in self._epoch_rows(Epoch(config.get_seed(), 0, probe=True)))
            self._size = size
        return self._size

    def get_batch_size(self):
        return self._children[0].get_batch_size() if self._children else 1

    def get_repeat_count(self):
        return self._children[0].get_repeat_count() if self._children else 1

    def num_classes(self):
        """The number of classes of a labelled source (None when unknown)."""
        return self._children[0].num_classes() if self._children else None

    def output_shapes(self, estimate=False):
        """The shape of each column in the first row (a list of lists)."""
        return [list(v.shape) for v in self._first_row()]

    def output_types(self):
        """The numpy dtype of each column in the first row."""
        return [v.dtype for v in self._first_row()]

    def _first_row(self):
        for row in self._epoch_rows(Epoch(config.get_seed(), 0, probe=True)):
            return row
        raise RuntimeError(f"{type(self).__name__}: the dataset is empty; no row to inspect")

    def _known_size(self):
        return None

    def _is_sharded(self):
        return any(c._is_sharded() for c in self._children)

    def _epoch_rows(self, epoch):
        raise NotImplementedError

    def _next_epoch(self):
        epoch = Epoch(config.get_seed(), self._epochs_started)
        self._epochs_started += 1
        return epoch

    def _column_index(self, name, api):
        if name not in self._column_names:
            raise ValueError(f"{api}: no column named {name!r}; columns are {self._column_names}")
        return self._column_names.index(name)

    # ----- iterators -----
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=True):
        """An iterator of rows as lists of Tensors (numpy arrays with `output_numpy`; columns
        of strings, or of integer types minispore's Tensor lacks such as uint32, always stay
        numpy arrays).

        Each `for` loop over it runs one epoch; `num_epochs` limits how many (-1: no limit).
        `columns` picks and orders the columns (default: all).

            >>> for x, y in dataset.create_tuple_iterator():    # doctest: +SKIP
            ...     loss = train_step(x, y)
        """
        return TupleIterator(self, num_epochs, output_numpy, columns)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """Like `create_tuple_iterator`, but each row is a dict column name -> Tensor."""
        return DictIterator(self, num_epochs, output_numpy)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))


def split_sizes(sizes, total, api="Dataset.split"):
    """Absolute split sizes from ints (summing to `total`) or fractions (summing to 1), with
    MindSpore's rounding: the shortfall goes to the first split, an excess is taken from the
    first split large enough."""
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise TypeError(f"{api}: sizes must be a non-empty list, got {sizes!r}")
    if total is None or total <= 0:
        raise RuntimeError(f"{api}: the dataset size is unknown or zero; cannot split")
    if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        if any(s <= 0 for s in sizes) or sum(sizes) != total:
            raise RuntimeError(f"{api}: split sizes {list(sizes)} must be positive and sum to "
                               f"the dataset size {total}")
        return list(sizes)
    if not all(isinstance(s, float) and 0 < s < 1 for s in sizes) or abs(sum(sizes) - 1) > 1e-6:
        raise ValueError(f"{api}: fractional sizes must be floats in (0, 1) summing to 1, "
                         f"got {list(sizes)}")
    absolute = [int(round(s * total)) for s in sizes]
    if 0 in absolute:
        raise RuntimeError(f"{api}: a split of {sizes[absolute.index(0)]} of {total} rows "
                           f"is empty")
    difference = total - sum(absolute)
    if difference > 0:
        absolute[0] += difference
    else:
        for i, size in enumerate(absolute):
            if size + difference > 0:
                absolute[i] += difference
                break
    return absolute


def check_int(value, low, api, arg):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{api}: {arg} must be an int >= {low}, got {value!r}")


def column_names(columns, default):
    """A list of column names from a str, a list of str, or None (`default`)."""
    if columns is None:
        return list(default)
    names = [columns] if isinstance(columns, str) else list(columns)
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"column names must be a str or a non-empty list of str, got {columns!r}")
    return names


def to_numpy(value):
    """A row value as a numpy array (Tensors, PIL images and Python values included)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Tensor):
        return np.array(value.asnumpy())
    return np.array(value)  # not asarray: a PIL image's array would be read-only
