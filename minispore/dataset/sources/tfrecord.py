"""TFRecordDataset: tf.train.Example records from TFRecord files, parsed without TensorFlow.

A TFRecord file is a sequence of records: a little-endian uint64 length, a masked CRC-32C
of it, the data, a masked CRC-32C of the data (the CRCs are not checked here). Each record
is a serialized tf.train.Example protobuf, decoded by the small wire-format reader below:
Example{features=1: Features{feature=1: map<string, Feature>}}, Feature{bytes_list=1,
float_list=2, int64_list=3}, each a list of values (packed or not).
"""
import gzip
import struct
import zlib
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from .random_data import Schema
from .text_files import Shuffle, _expand, _FileSource

__all__ = ["TFRecordDataset", "read_tfrecord", "parse_example"]


def read_tfrecord(path: str, compression_type: Optional[str] = None) -> Iterator[bytes]:
    """The records of a TFRecord file (compression_type None/"", "GZIP" or "ZLIB").

        >>> records = list(read_tfrecord("train.tfrecord"))    # doctest: +SKIP
    """
    with open(path, "rb") as f:
        raw = f.read()
    kind = (compression_type or "").upper()
    if kind == "GZIP":
        raw = gzip.decompress(raw)
    elif kind == "ZLIB":
        raw = zlib.decompress(raw)
    elif kind:
        raise ValueError(f"TFRecordDataset: compression_type must be None, '', 'GZIP' or "
                         f"'ZLIB', got {compression_type!r}")
    at = 0
    while at < len(raw):
        if at + 12 > len(raw):
            raise RuntimeError(f"{path}: a truncated record header at byte {at}")
        (length,) = struct.unpack_from("<Q", raw, at)
        start = at + 12
        if start + length + 4 > len(raw):
            raise RuntimeError(f"{path}: the record at byte {at} announces {length} bytes, "
                               f"the file ends before")
        yield raw[start:start + length]
        at = start + length + 4


def _varint(data: bytes, at: int) -> Tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def _fields(data: bytes) -> Iterator[Tuple[int, int, Any]]:
    """(field number, wire type, value) of a protobuf message; value is an int or bytes."""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 1:
            value, at = data[at:at + 8], at + 8
        elif wire == 2:
            size, at = _varint(data, at)
            value, at = data[at:at + size], at + size
        elif wire == 5:
            value, at = data[at:at + 4], at + 4
        else:
            raise RuntimeError(f"TFRecordDataset: unsupported protobuf wire type {wire}")
        yield number, wire, value


def _feature(data: bytes) -> np.ndarray:
    for kind, _, payload in _fields(data):
        values: List[Any] = []
        for number, wire, value in _fields(payload):
            if number != 1:
                continue
            if kind == 1:
                values.append(bytes(value))
            elif kind == 2:
                values.extend(struct.unpack(f"<{len(value) // 4}f", value) if wire == 2
                              else struct.unpack("<f", value))
            elif kind == 3:
                if wire == 2:
                    at = 0
                    while at < len(value):
                        item, at = _varint(value, at)
                        values.append(item)
                else:
                    values.append(value)
        if kind == 1:
            return np.array(values, dtype=object if not values else None)
        if kind == 2:
            return np.asarray(values, np.float32)
        if kind == 3:
            return np.asarray([v - (1 << 64) if v >= 1 << 63 else v for v in values], np.int64)
    return np.zeros(0, np.float32)  # a Feature with no kind set


def parse_example(record: bytes) -> Dict[str, np.ndarray]:
    """The features of a serialized tf.train.Example: name -> 1-D array (bytes, float32 or
    int64).

        >>> features = parse_example(next(read_tfrecord("train.tfrecord")))  # doctest: +SKIP
    """
    out: Dict[str, np.ndarray] = {}
    for number, _, features in _fields(record):
        if number != 1:
            continue
        for entry_number, _, entry in _fields(features):
            if entry_number != 1:
                continue
            key, value = "", b""
            for field, _, item in _fields(entry):
                if field == 1:
                    key = bytes(item).decode("utf-8")
                elif field == 2:
                    value = item
            out[key] = _feature(value)
    return out


class TFRecordDataset(_FileSource):
    """Rows of tf.train.Example records in TFRecord files.

    Columns: the `schema`'s (a Schema or a schema JSON file; values cast to its types and
    reshaped to its shapes), narrowed by `columns_list`; default, the first record's feature
    names in order. Columns are 1-D arrays: bytes features as numpy bytes (a single value
    as a scalar), floats float32, ints int64.

    Args:
        dataset_files: a file, a glob pattern or a list of them (read in sorted order).
        shuffle: as TextFileDataset (Shuffle.GLOBAL by default, FILES, INFILE, False).
        compression_type: None/"" , "GZIP" or "ZLIB".
        shard_equal_rows: accepted (shards always get equal rows here).

    Example:
        >>> data = ds.TFRecordDataset("/data/train-*.tfrecord", columns_list=["image",
        ...                           "label"], shuffle=False)    # doctest: +SKIP
    """

    def __init__(self, dataset_files: Any, schema: Any = None,
                 columns_list: Optional[List[str]] = None, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 shard_equal_rows: bool = False, cache: Any = None,
                 compression_type: Optional[str] = None) -> None:
        api = "TFRecordDataset"
        files = _expand(dataset_files, api)
        self._compression = compression_type
        if isinstance(schema, str):
            schema = Schema(schema)
        self._types: Dict[str, Any] = {}
        if schema is not None:
            names = [c["name"] for c in schema.columns]
            self._types = {c["name"]: (c["type"], c["shape"]) for c in schema.columns}
        else:
            first = next(read_tfrecord(files[0], compression_type), None)
            if first is None:
                raise ValueError(f"{api}: {files[0]} holds no record to take the columns from")
            names = list(parse_example(first))
        if columns_list is not None:
            missing = [c for c in columns_list if c not in names]
            if missing:
                raise ValueError(f"{api}: columns_list names {missing}, not among {names}")
            names = list(columns_list)
        super().__init__(api, files, names, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

    def _parse(self, path: str) -> List[Tuple[np.ndarray, ...]]:
        rows = []
        for number, record in enumerate(read_tfrecord(path, self._compression)):
            features = parse_example(record)
            row = []
            for name in self._column_names:
                if name not in features:
                    raise RuntimeError(f"TFRecordDataset: {path}: record {number} has no "
                                       f"feature {name!r}")
                value = features[name]
                if value.dtype == object:
                    value = np.array(value.tolist(), dtype=bytes)
                    if value.size == 1 and name not in self._types:
                        value = value[0]
                if name in self._types:
                    dtype, shape = self._types[name]
                    if value.dtype.kind == "S" and np.dtype(dtype) == np.uint8:
                        value = np.frombuffer(b"".join(value.ravel().tolist()), np.uint8)
                    else:
                        value = value.astype(dtype)
                    if shape is not None:
                        value = value.reshape(shape)
                row.append(np.asarray(value))
            rows.append(tuple(row))
        return rows
