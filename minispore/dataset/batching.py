"""Batching steps: `batch` (with per_batch_map and dynamic sizes), `padded_batch` and
`bucket_batch_by_length`, and the padding they share."""
import numpy as np

from . import config
from .engine import Dataset, check_int, column_names, to_numpy
from .failures import failure_from
from .workers import run_ordered

__all__ = ["BatchInfo", "BatchDataset", "BucketBatchByLengthDataset", "pad_end", "stack"]


class BatchInfo:
    """What a dynamic `batch_size` callable or a `per_batch_map` learns about the batch."""

    def __init__(self, batch_num, epoch_num):
        self._batch_num = batch_num
        self._epoch_num = epoch_num

    def get_batch_num(self):
        """The batch's index within the epoch (from 0)."""
        return self._batch_num

    def get_epoch_num(self):
        """The epoch's index (from 0)."""
        return self._epoch_num


class BatchDataset(Dataset, step="batch"):
    """`dataset.batch(...)` and `dataset.padded_batch(...)`.

    Args:
        batch_size: rows per batch, or a callable BatchInfo -> int evaluated per batch.
        drop_remainder: drop a last batch smaller than the batch size.
        num_parallel_workers: workers running `per_batch_map` (threads, or processes with
            python_multiprocessing).
        per_batch_map: callable(col_list_1, ..., col_list_n, batch_info) -> a tuple of
            column lists (or arrays) for `output_columns`; runs before stacking.
        input_columns: the columns per_batch_map gets (default: all).
        output_columns: names of its outputs (default: the input names).
        pad_info: padded_batch's column -> (shape or None, pad value); {} pads every column.
    """

    def __init__(self, child, batch_size, drop_remainder=False, num_parallel_workers=None,
                 per_batch_map=None, input_columns=None, output_columns=None,
                 python_multiprocessing=False, max_rowsize=None, pad_info=None):
        if not callable(batch_size):
            check_int(batch_size, 1, "Dataset.batch", "batch_size")
        if per_batch_map is not None and not callable(per_batch_map):
            raise TypeError(f"Dataset.batch: per_batch_map must be callable, got "
                            f"{type(per_batch_map).__name__}")
        names = child.get_col_names()
        inputs = column_names(input_columns, names)
        positions = [child._column_index(n, "Dataset.batch") for n in inputs]
        if per_batch_map is None:
            new_names = names
        else:
            outputs = column_names(output_columns, inputs)
            kept = [n for n in names if n not in inputs]
            new_names = kept + outputs if output_columns is not None else names
        super().__init__(new_names, [child])
        self._batch_size = batch_size
        self._drop_remainder = bool(drop_remainder)
        self._workers = config.check_workers(num_parallel_workers, "Dataset.batch")
        self._processes = bool(python_multiprocessing)
        renamed = per_batch_map is not None and output_columns is not None
        self._job = _BatchJob(names, positions, per_batch_map,
                              column_names(output_columns, ()) if renamed else None,
                              _pad_specs(pad_info, names))

    def get_batch_size(self):
        return self._batch_size if not callable(self._batch_size) else 1

    def _known_size(self):
        if callable(self._batch_size):
            return None
        rows = self._children[0].get_dataset_size()
        if rows == -1:
            return -1
        full, rest = divmod(rows, self._batch_size)
        return full + (1 if rest and not self._drop_remainder else 0)

    def _epoch_rows(self, epoch):
        tasks = self._groups(epoch)
        yield from run_ordered(self._job, tasks, self._workers, self._processes, "Dataset.batch")

    def _groups(self, epoch):
        """(rows, BatchInfo) per batch, the rows not yet stacked."""
        pending, batch_num = [], 0
        size = self._size_of(batch_num, epoch)
        for row in self._children[0]._epoch_rows(epoch):
            pending.append(row)
            if len(pending) == size:
                yield pending, BatchInfo(batch_num, epoch.number)
                pending, batch_num = [], batch_num + 1
                size = self._size_of(batch_num, epoch)
        if pending and not self._drop_remainder:
            yield pending, BatchInfo(batch_num, epoch.number)

    def _size_of(self, batch_num, epoch):
        if not callable(self._batch_size):
            return self._batch_size
        size = self._batch_size(BatchInfo(batch_num, epoch.number))
        check_int(size, 1, "Dataset.batch", "the batch_size callable's result")
        return size


class _BatchJob:
    """Turns a group of rows into one batch: per_batch_map, then padding, then stacking."""

    def __init__(self, names, positions, per_batch_map, output_names, pad_specs):
        self.names = names
        self.positions = positions
        self.per_batch_map = per_batch_map
        self.output_names = output_names  # None: the outputs replace the input columns
        self.pad_specs = pad_specs

    def run(self, task):
        rows, info = task
        try:
            columns = [[row[i] for row in rows] for i in range(len(self.names))]
            names = list(self.names)
            if self.per_batch_map is not None:
                columns, names = self._mapped(columns, info)
            return tuple(stack(c, n, self.pad_specs.get(n)) for c, n in zip(columns, names))
        except Exception as error:
            return failure_from(error, f"Dataset.batch: batch {info.get_batch_num()} of epoch "
                                       f"{info.get_epoch_num()} failed")

    def _mapped(self, columns, info):
        outputs = self.per_batch_map(*(columns[p] for p in self.positions), info)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        expected = self.output_names or self.positions
        if len(outputs) != len(expected):
            raise ValueError(f"per_batch_map returned {len(outputs)} column(s) for "
                             f"{len(expected)} output column(s); set output_columns")
        outputs = [[to_numpy(v) for v in column] for column in outputs]
        if self.output_names is not None:
            kept = [i for i in range(len(self.names)) if i not in self.positions]
            return ([columns[i] for i in kept] + outputs,
                    [self.names[i] for i in kept] + self.output_names)
        for p, column in zip(self.positions, outputs):
            columns[p] = column
        return columns, list(self.names)


def stack(values, name, pad_spec=None):
    """One batch column from its rows' arrays: padded to a common shape if asked, stacked."""
    values = [np.asarray(v) for v in values]
    if pad_spec is not None:
        shape, pad_value = pad_spec
        values = pad_to_shape(values, shape, pad_value, name)
    shapes = {v.shape for v in values}
    if len(shapes) > 1:
        raise ValueError(f"column {name!r} has rows of different shapes {sorted(shapes)}; they "
                         f"cannot be stacked into one batch (pad them with padded_batch)")
    return np.stack(values)


def pad_to_shape(values, shape, pad_value, name):
    """Every array padded at the end to `shape` (None entries: the batch's largest size)."""
    ranks = {v.ndim for v in values}
    if len(ranks) > 1:
        raise ValueError(f"padding column {name!r}: rows of different ranks {sorted(ranks)}")
    largest = np.max([v.shape for v in values], axis=0) if values[0].ndim else ()
    if shape is None:
        target = tuple(int(n) for n in largest)
    else:
        if len(shape) != values[0].ndim:
            raise ValueError(f"padding column {name!r}: pad shape {list(shape)} has rank "
                             f"{len(shape)}, the rows have rank {values[0].ndim}")
        target = tuple(int(largest[i]) if s is None else int(s) for i, s in enumerate(shape))
    return [pad_end(v, target, pad_value) for v in values]


def pad_end(value, target, pad_value=None):
    """`value` cut or padded at the end of each axis to shape `target` (pad_value None: 0, or
    '' for strings)."""
    if value.shape == tuple(target):
        return value
    if pad_value is None:
        pad_value = "" if value.dtype.kind in "US" else 0
    out = np.full(target, pad_value, dtype=value.dtype)
    kept = tuple(slice(0, min(a, b)) for a, b in zip(value.shape, target))
    out[kept] = value[kept]  # a longer row is cut to the pad shape, as MindSpore does
    return out


def _pad_specs(pad_info, names):
    """column -> (shape or None, value) from pad_info (None: no padding; {}: pad all)."""
    if pad_info is None:
        return {}
    if not isinstance(pad_info, dict):
        raise TypeError(f"pad_info must be a dict column -> (shape, value), got "
                        f"{type(pad_info).__name__}")
    specs = {n: (None, 0) for n in names}
    for name, spec in pad_info.items():
        if name not in names:
            raise ValueError(f"pad_info names the column {name!r}, which is not one of {names}")
        shape, value = spec if spec is not None else (None, 0)
        specs[name] = (None if shape is None else list(shape), value)
    return specs


class BucketBatchByLengthDataset(Dataset, step="bucket_batch_by_length"):
    """`dataset.bucket_batch_by_length(...)`: rows batched with others of similar length."""

    def __init__(self, child, column_names_, bucket_boundaries, bucket_batch_sizes,
                 element_length_function=None, pad_info=None, pad_to_bucket_boundary=False,
                 drop_remainder=False):
        api = "Dataset.bucket_batch_by_length"
        names = column_names(column_names_, ())
        self._positions = [child._column_index(n, api) for n in names]
        boundaries = list(bucket_boundaries)
        if not boundaries or any(b <= 0 for b in boundaries) or any(
                a >= b for a, b in zip(boundaries, boundaries[1:])):
            raise ValueError(f"{api}: bucket_boundaries must be positive and strictly "
                             f"increasing, got {boundaries}")
        sizes = list(bucket_batch_sizes)
        if len(sizes) != len(boundaries) + 1:
            raise ValueError(f"{api}: bucket_batch_sizes needs len(bucket_boundaries) + 1 = "
                             f"{len(boundaries) + 1} entries, got {len(sizes)}")
        for size in sizes:
            check_int(size, 1, api, "each bucket batch size")
        if element_length_function is None and len(names) != 1:
            raise ValueError(f"{api}: without element_length_function, column_names must name "
                             f"exactly one column, got {names}")
        super().__init__(child.get_col_names(), [child])
        self._boundaries, self._sizes = boundaries, sizes
        self._length = element_length_function or _first_dim
        self._pad_specs = _pad_specs(pad_info, child.get_col_names())
        self._to_boundary = bool(pad_to_bucket_boundary)
        self._drop_remainder = bool(drop_remainder)

    def _epoch_rows(self, epoch):
        buckets = [[] for _ in self._sizes]
        for row in self._children[0]._epoch_rows(epoch):
            length = int(self._length(*(row[p] for p in self._positions)))
            bucket = int(np.searchsorted(self._boundaries, length, side="right"))
            buckets[bucket].append(row)
            if len(buckets[bucket]) == self._sizes[bucket]:
                yield self._batch(buckets[bucket], bucket)
                buckets[bucket] = []
        if not self._drop_remainder:
            for bucket, rows in enumerate(buckets):
                if rows:
                    yield self._batch(rows, bucket)

    def _batch(self, rows, bucket):
        try:
            return self._padded_batch(rows, bucket)
        except ValueError as error:  # data-dependent, like every pipeline error: RuntimeError
            raise RuntimeError(f"Dataset.bucket_batch_by_length: {error}") from None

    def _padded_batch(self, rows, bucket):
        batch = []
        for i, name in enumerate(self._column_names):
            spec = self._pad_specs.get(name)
            if spec is not None and self._to_boundary:
                spec = self._boundary_spec(spec, bucket, np.ndim(rows[0][i]))
            batch.append(stack([row[i] for row in rows], name, spec))
        return tuple(batch)

    def _boundary_spec(self, spec, bucket, rank):
        """pad_to_bucket_boundary: the first unknown dimension becomes boundary - 1."""
        shape, value = spec
        shape = [None] * rank if shape is None else list(shape)
        if None not in shape:
            return spec
        if bucket == len(self._boundaries):
            raise ValueError(f"a row of length >= {self._boundaries[-1]} cannot be padded to a "
                             f"bucket boundary (pad_to_bucket_boundary=True)")
        shape[shape.index(None)] = self._boundaries[bucket] - 1
        return shape, value


def _first_dim(value):
    value = np.asarray(value)
    return value.shape[0] if value.ndim else 0
