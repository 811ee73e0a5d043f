"""The base of every random-access source: a sampler picks the rows, workers read them.

A subclass says how many rows it has (`_row_count`) and how to read one (`_read(index)`, a
tuple of numpy arrays, one per column); this class adds MindSpore's `num_samples`,
`shuffle`, `sampler`, `num_shards` / `shard_id` and `num_parallel_workers` to it.
"""
import copy
import json
from typing import Any, Iterator

import numpy as np

from ...context import parallel
from .. import config
from ..engine import Dataset
from ..failures import failure_from
from ..randomness import ROWS_PER_BLOCK
from ..samplers import (
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    SubsetSampler,
    select_sampler,
)
from ..workers import run_ordered

__all__ = ["MappableSource"]


class MappableSource(Dataset):
    """A source whose rows can be read by index.

    Args:
        api: the source's name for messages.
        column_names: its columns.
        num_samples, shuffle, sampler, num_shards, shard_id: which rows an epoch reads, as in
            MindSpore (see `samplers.select_sampler`); shuffling is the default. In a
            data-parallel job (set_auto_parallel_context) the default shards by rank.
        num_parallel_workers: workers reading rows (threads, or processes with
            python_multiprocessing).
    """

    def __init__(self, api, column_names, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=False):
        super().__init__(column_names)
        self._api = api
        if num_shards is None and shard_id is None and sampler is None and \
                parallel.data_parallel():  # each process of a data-parallel job reads its part
            num_shards, shard_id = parallel.world().size, parallel.world().rank
        self._sampler = select_sampler(api, sampler, shuffle, num_samples, num_shards, shard_id)
        if hasattr(self._sampler, "bind"):  # PKSampler reads the source's labels
            self._sampler.bind(self)
        self._workers = config.check_workers(num_parallel_workers, api)
        self._processes = bool(python_multiprocessing)

    def _row_count(self):
        raise NotImplementedError

    def _read(self, index):
        raise NotImplementedError

    def _known_size(self):
        return self._sampler.count(self._row_count())

    def _is_sharded(self):
        return self._sampler.is_sharded()

    def _epoch_rows(self, epoch):
        indices = self._sampler.indices(self._row_count(), epoch.generator(self))
        tasks = (indices[i:i + ROWS_PER_BLOCK] for i in range(0, len(indices), ROWS_PER_BLOCK))
        for rows in run_ordered(_ReadJob(self), tasks, self._workers, self._processes,
                                self._api):
            yield from rows

    def _split_by_indices(self, indices, randomize):
        """One split of `split`: a copy of this source reading only rows `indices`."""
        if type(self._sampler) not in (RandomSampler, SequentialSampler) or getattr(
                self._sampler, "start_index", 0):
            return self._steps["select"](self, indices)
        part = copy.copy(self)
        part.__dict__.pop("_init_record", None)  # its arguments no longer describe it
        part._sampler = (SubsetRandomSampler if randomize else SubsetSampler)(np.sort(indices))
        part._size, part._epochs_started = None, 0
        return part


class _ReadJob:
    """Reads a block of rows by index (inline, in threads or in worker processes)."""

    def __init__(self, source):
        self.source = source

    def run(self, indices):
        rows = []
        for index in indices:
            try:
                rows.append(self.source._read(int(index)))
            except Exception as error:
                return failure_from(error, f"{self.source._api}: reading row {int(index)} "
                                           f"failed")
        return rows


def json_lines(api: str, path: str) -> Iterator[Any]:
    """The JSON value of each non-blank line of `path` (JSON Lines); a line that is not JSON
    is a RuntimeError naming the file and the line."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise RuntimeError(f"{api}: {path}:{number} is not JSON: {error}") from None
            yield record
