"""Pipeline steps that reorder, cut, combine or relabel rows without computing on them:
shuffle, repeat, take, skip, filter, project, rename, zip, concat, and the selection that
split makes."""
import numpy as np

from .engine import Dataset, check_int, column_names

__all__ = ["ShuffleDataset", "RepeatDataset", "TakeDataset", "SkipDataset", "FilterDataset",
           "ProjectDataset", "RenameDataset", "ZipDataset", "ConcatDataset", "SelectDataset",
]


class _Step(Dataset):
    """A step over one child that keeps its columns (unless it says otherwise)."""

    def __init__(self, child, names=None):
        super().__init__(child.get_col_names() if names is None else names, [child])

    @property
    def _child(self):
        return self._children[0]


class ShuffleDataset(_Step, step="shuffle"):
    """`dataset.shuffle(buffer_size)`: MindSpore's buffer shuffle."""

    def __init__(self, child, buffer_size):
        check_int(buffer_size, 2, "Dataset.shuffle", "buffer_size")
        super().__init__(child)
        self._buffer_size = buffer_size

    def _known_size(self):
        return self._child.get_dataset_size()

    def _epoch_rows(self, epoch):
        rng = epoch.generator(self)
        buffer = []
        for row in self._child._epoch_rows(epoch):
            if len(buffer) < self._buffer_size:
                buffer.append(row)
                continue
            i = rng.integers(len(buffer))
            yield buffer[i]
            buffer[i] = row
        for i in rng.permutation(len(buffer)):
            yield buffer[i]


class RepeatDataset(_Step, step="repeat"):
    """`dataset.repeat(count)`: count passes of the child per epoch (None or -1: endless)."""

    def __init__(self, child, count=None):
        if count is None:
            count = -1
        if count != -1:
            check_int(count, 1, "Dataset.repeat", "count")
        super().__init__(child)
        self._count = count

    def get_repeat_count(self):
        return self._count

    def _known_size(self):
        return -1 if self._count == -1 else self._count * self._child.get_dataset_size()

    def _epoch_rows(self, epoch):
        passes = 0
        while self._count == -1 or passes < self._count:
            empty = True
            for row in self._child._epoch_rows(epoch):
                empty = False
                yield row
            if empty and self._count == -1:
                return  # an endless repeat of nothing would hang
            passes += 1


class TakeDataset(_Step, step="take"):
    """`dataset.take(count)`: the first `count` rows (-1: all)."""

    def __init__(self, child, count=-1):
        if count != -1:
            check_int(count, 1, "Dataset.take", "count")
        super().__init__(child)
        self._count = count

    def _known_size(self):
        size = self._child.get_dataset_size()
        if self._count == -1:
            return size
        return self._count if size == -1 else min(size, self._count)

    def _epoch_rows(self, epoch):
        if self._count == -1:
            yield from self._child._epoch_rows(epoch)
            return
        taken = 0
        rows = self._child._epoch_rows(epoch)
        try:
            while taken < self._count:
                try:
                    row = next(rows)
                except StopIteration:
                    return
                taken += 1
                yield row
        finally:
            rows.close()  # stop the child's workers now, not when garbage-collected


class SkipDataset(_Step, step="skip"):
    """`dataset.skip(count)`: every row after the first `count`."""

    def __init__(self, child, count):
        check_int(count, 0, "Dataset.skip", "count")
        super().__init__(child)
        self._count = count

    def _known_size(self):
        size = self._child.get_dataset_size()
        return -1 if size == -1 else max(size - self._count, 0)

    def _epoch_rows(self, epoch):
        for i, row in enumerate(self._child._epoch_rows(epoch)):
            if i >= self._count:
                yield row


class FilterDataset(_Step, step="filter"):
    """`dataset.filter(predicate, input_columns)`: rows whose predicate is true.

    The predicate runs in the pipeline's thread (num_parallel_workers is accepted for
    MindSpore compatibility).
    """

    def __init__(self, child, predicate, input_columns=None, num_parallel_workers=None):
        if not callable(predicate):
            raise TypeError(f"Dataset.filter: predicate must be callable, got "
                            f"{type(predicate).__name__}")
        super().__init__(child)
        names = column_names(input_columns, child.get_col_names())
        self._positions = [child._column_index(n, "Dataset.filter") for n in names]
        self._predicate = predicate

    def _epoch_rows(self, epoch):
        for i, row in enumerate(self._child._epoch_rows(epoch)):
            try:
                keep = self._predicate(*(row[p] for p in self._positions))
            except Exception as error:
                raise RuntimeError(f"Dataset.filter: the predicate failed on row {i}: "
                                   f"{type(error).__name__}: {error}") from error
            if bool(np.all(keep)):
                yield row


class ProjectDataset(_Step, step="project"):
    """`dataset.project(columns)`: only these columns, in this order."""

    def __init__(self, child, columns):
        names = column_names(columns, ())
        self._positions = [child._column_index(n, "Dataset.project") for n in names]
        super().__init__(child, names)

    def _known_size(self):
        return self._child.get_dataset_size()

    def _epoch_rows(self, epoch):
        for row in self._child._epoch_rows(epoch):
            yield tuple(row[p] for p in self._positions)


class RenameDataset(_Step, step="rename"):
    """`dataset.rename(input_columns, output_columns)`."""

    def __init__(self, child, input_columns, output_columns):
        old, new = column_names(input_columns, ()), column_names(output_columns, ())
        if len(old) != len(new):
            raise ValueError(f"Dataset.rename: {len(old)} input column(s) {old} but "
                             f"{len(new)} output column(s) {new}")
        names = child.get_col_names()
        for name, replacement in zip(old, new):
            names[child._column_index(name, "Dataset.rename")] = replacement
        if len(set(names)) != len(names):
            raise ValueError(f"Dataset.rename: the new column names {names} repeat a name")
        super().__init__(child, names)

    def _known_size(self):
        return self._child.get_dataset_size()

    def _epoch_rows(self, epoch):
        return self._child._epoch_rows(epoch)


class ZipDataset(Dataset, step="zip"):
    """`dataset.zip(datasets)`: rows side by side, as many as the shortest dataset has."""

    def __init__(self, datasets):
        names = [n for d in datasets for n in d.get_col_names()]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"Dataset.zip: column names must differ across the datasets; "
                             f"{repeated} appear more than once (rename them first)")
        super().__init__(names, datasets)

    def _known_size(self):
        sizes = [d.get_dataset_size() for d in self._children]
        finite = [s for s in sizes if s != -1]
        return min(finite) if finite else -1

    def _epoch_rows(self, epoch):
        streams = [d._epoch_rows(epoch) for d in self._children]
        try:
            for parts in zip(*streams):
                yield tuple(v for part in parts for v in part)
        finally:
            for stream in streams:
                stream.close()


class ConcatDataset(Dataset, step="concat"):
    """`dataset.concat(datasets)` / `a + b`: every dataset's rows in turn."""

    def __init__(self, datasets):
        names = datasets[0].get_col_names()
        for d in datasets[1:]:
            if d.get_col_names() != names:
                raise ValueError(f"Dataset.concat: every dataset needs the columns {names}, "
                                 f"got {d.get_col_names()}")
        super().__init__(names, datasets)

    def _known_size(self):
        sizes = [d.get_dataset_size() for d in self._children]
        return -1 if -1 in sizes else sum(sizes)

    def get_batch_size(self):
        return self._children[0].get_batch_size()

    def _epoch_rows(self, epoch):
        for dataset in self._children:
            yield from dataset._epoch_rows(epoch)


class SelectDataset(_Step, step="select"):
    """The rows of the child at given positions of its epoch stream (one split of `split`)."""

    def __init__(self, child, positions):
        super().__init__(child)
        self._positions = frozenset(int(p) for p in positions)

    def _known_size(self):
        return len(self._positions)

    def _epoch_rows(self, epoch):
        for i, row in enumerate(self._child._epoch_rows(epoch)):
            if i in self._positions:
                yield row
