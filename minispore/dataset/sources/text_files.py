"""Text sources: CSVDataset (delimited files) and TextFileDataset (one row per line).

Files are read whole on first use and their rows kept in memory. `shuffle` takes MindSpore's
`Shuffle` modes: GLOBAL (or True, the default) shuffles all rows, FILES the order of the
files, INFILE the rows within each file; False reads in order. Sharding (`num_shards`)
applies to the rows, as for every source (see `samplers`).
"""
import csv
import glob
import os
from enum import Enum

import numpy as np

from ..samplers import Sampler
from .base import MappableSource

__all__ = ["Shuffle", "CSVDataset", "TextFileDataset"]


class Shuffle(str, Enum):
    """How a file-based source shuffles."""
    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"


class _FileSource(MappableSource):
    """Rows parsed from a list of files, kept per file."""

    def __init__(self, api, dataset_files, column_names, num_samples, num_parallel_workers,
                 shuffle, num_shards, shard_id):
        self._files = _expand(dataset_files, api)
        mode = Shuffle.GLOBAL if shuffle is True or shuffle is None else shuffle
        if mode is not False and not isinstance(mode, Shuffle):
            raise ValueError(f"{api}: shuffle must be a bool or a Shuffle mode, got {shuffle!r}")
        sampler = None
        if num_shards is None and mode in (Shuffle.FILES, Shuffle.INFILE):
            sampler = _FileOrderSampler(mode, num_samples, self._file_lengths)
            num_samples = None
        super().__init__(api, column_names, num_samples, num_parallel_workers,
                         None if sampler is not None else mode is not False, sampler,
                         num_shards, shard_id)
        self._rows = None

    def _all_rows(self):
        if self._rows is None:
            self._rows = [self._parse(path) for path in self._files]
        return self._rows

    def _file_lengths(self):
        return [len(rows) for rows in self._all_rows()]

    def _row_count(self):
        return sum(self._file_lengths())

    def _read(self, index):
        for rows in self._all_rows():
            if index < len(rows):
                return rows[index]
            index -= len(rows)
        raise IndexError(index)

    def _parse(self, path):
        raise NotImplementedError


class _FileOrderSampler(Sampler):
    """Shuffle.FILES: files in a random order, rows in order; INFILE: the reverse."""

    def __init__(self, mode, num_samples, file_lengths):
        super().__init__(num_samples)
        self._mode = mode
        self._file_lengths = file_lengths

    def _order(self, num_rows, rng):
        lengths = self._file_lengths()
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        files = rng.permutation(len(lengths)) if self._mode is Shuffle.FILES else range(
            len(lengths))
        parts = []
        for f in files:
            rows = np.arange(lengths[f])
            if self._mode is Shuffle.INFILE:
                rows = rng.permutation(rows)
            parts.append(starts[f] + rows)
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)


class TextFileDataset(_FileSource):
    """One row per non-empty line of the text files (column ``text``, a str).

    Args:
        dataset_files: a file, a glob pattern, or a list of them (read in sorted order).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id: see the module.
    """

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        super().__init__("TextFileDataset", dataset_files, ["text"], num_samples,
                         num_parallel_workers, shuffle, num_shards, shard_id)

    def _parse(self, path):
        with open(path, encoding="utf-8") as f:
            return [(np.array(line.rstrip("\r\n")),) for line in f if line.rstrip("\r\n")]


class CSVDataset(_FileSource):
    """Rows of delimited text files.

    Args:
        dataset_files: a file, a glob pattern, or a list of them (read in sorted order).
        field_delim: the field separator (default ",").
        column_defaults: one value per column whose type (int, float or str) is the column's
            type (int32, float32 or str) and which fills empty fields; default: every column
            is a str.
        column_names: the column names; default: the first line of each file is a header.
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id: see the module.
    """

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None,
                 num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        api = "CSVDataset"
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in "\"\r\n":
            raise ValueError(f"{api}: field_delim must be one character (not a quote or a line "
                             f"break), got {field_delim!r}")
        self._delim = field_delim
        self._header = column_names is None
        files = _expand(dataset_files, api)
        if self._header:
            with open(files[0], encoding="utf-8", newline="") as f:
                column_names = next(csv.reader(f, delimiter=field_delim), None)
            if not column_names:
                raise ValueError(f"{api}: {files[0]} is empty; no header to name the columns")
        column_names = list(column_names)
        if column_defaults is not None and len(column_defaults) != len(column_names):
            raise ValueError(f"{api}: {len(column_defaults)} column_defaults for "
                             f"{len(column_names)} columns {column_names}")
        self._defaults = column_defaults
        super().__init__(api, files, column_names, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

    def _parse(self, path):
        with open(path, encoding="utf-8", newline="") as f:
            lines = list(csv.reader(f, delimiter=self._delim))
        start = 1 if self._header else 0
        return [self._row(fields, path, n + 1) for n, fields in enumerate(lines[start:], start)
                if fields]

    def _row(self, fields, path, line):
        if len(fields) != len(self._column_names):
            raise RuntimeError(f"CSVDataset: {path}:{line} has {len(fields)} field(s), expected "
                               f"{len(self._column_names)} ({self._column_names})")
        if self._defaults is None:
            return tuple(np.array(v) for v in fields)
        return tuple(_typed(v, d, path, line) for v, d in zip(fields, self._defaults))


def _typed(text, default, path, line):
    if text == "":
        text = default
    try:
        if isinstance(default, bool) or not isinstance(default, (int, float)):
            return np.array(str(text))
        return np.array(text, dtype=np.int32 if isinstance(default, int) else np.float32)
    except ValueError:
        raise RuntimeError(f"CSVDataset: {path}:{line}: {text!r} is not a "
                           f"{type(default).__name__}") from None


def _expand(dataset_files, api):
    """Sorted list of files from a path, a glob pattern or a list of them."""
    patterns = [dataset_files] if isinstance(dataset_files, (str, os.PathLike)) else list(
        dataset_files)
    files = []
    for pattern in patterns:
        found = sorted(glob.glob(os.fspath(pattern)))
        if not found:
            raise ValueError(f"{api}: no file matches {os.fspath(pattern)!r}")
        files.extend(f for f in found if os.path.isfile(f))
    if not files:
        raise ValueError(f"{api}: {dataset_files!r} names no file")
    return sorted(files)
