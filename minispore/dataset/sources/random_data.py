"""RandomDataset: rows of random values with a given (or random) schema, for tests and
pipeline benchmarks; and Schema, the column description it takes."""
import json

import numpy as np

from ...core.dtype import to_np
from .. import config
from ..engine import check_int
from .base import MappableSource

__all__ = ["Schema", "RandomDataset"]


class Schema:
    """Column names, element types and shapes.

    Args:
        schema_file: a MindSpore schema JSON file: {"columns": {name: {"type": "uint8",
            "shape": [2, 3]}, ...}, "numRows": n} (shape optional).

    Example:
        >>> import minispore as ms
        >>> schema = Schema()
        >>> schema.add_column("image", de_type=ms.uint8, shape=[4, 4, 3])
        >>> [c["name"] for c in schema.columns]
        ['image']
    """

    def __init__(self, schema_file=None):
        self.columns = []
        self.num_rows = None
        if schema_file is not None:
            with open(schema_file, encoding="utf-8") as f:
                spec = json.load(f)
            for name, column in spec.get("columns", {}).items():
                self.add_column(name, column["type"], column.get("shape"))
            self.num_rows = spec.get("numRows")

    def add_column(self, name, de_type, shape=None):
        """Add a column of element type `de_type` (a minispore or numpy dtype, or its name)
        and `shape` (None: a random shape, fixed for the dataset)."""
        self.columns.append({"name": str(name), "type": to_np(de_type),
                             "shape": None if shape is None else [int(s) for s in shape]})

    def to_json(self):
        return json.dumps({"columns": {c["name"]: {"type": c["type"].name, "shape": c["shape"]}
                                       for c in self.columns}, "numRows": self.num_rows})


class RandomDataset(MappableSource):
    """`total_rows` rows of random values: integers in [0, 255], floats in [0, 1), random
    bools. Every value derives from the dataset seed and the row's index, so rows are the
    same in every epoch and in every shard that reads them.

    Args:
        total_rows: rows (default: the schema's numRows, else random in [1, 1024]).
        schema: a Schema or a schema file (default: 1-4 random columns of random types and
            shapes).
        columns_list: the schema columns to produce (default: all).
        num_samples, num_parallel_workers, shuffle, num_shards, shard_id: as every source.
    """

    def __init__(self, total_rows=None, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, cache=None, shuffle=None, num_shards=None,
                 shard_id=None):
        self._seed = config.get_seed()
        setup = np.random.default_rng([self._seed, 0x5A4D])
        schema = Schema(schema) if isinstance(schema, str) else schema or _random_schema(setup)
        columns = [dict(c) for c in schema.columns
                   if columns_list is None or c["name"] in columns_list]
        for column in columns:
            if column["shape"] is None:
                column["shape"] = list(setup.integers(1, 8, size=setup.integers(1, 4)))
        if total_rows is None:
            total_rows = schema.num_rows or int(setup.integers(1, 1025))
        check_int(total_rows, 1, "RandomDataset", "total_rows")
        super().__init__("RandomDataset", [c["name"] for c in columns], num_samples,
                         num_parallel_workers, shuffle, None, num_shards, shard_id)
        self._columns, self._total = columns, total_rows

    def _row_count(self):
        return self._total

    def _read(self, index):
        rng = np.random.default_rng([self._seed, 0x5A4D, index])
        return tuple(_random_values(rng, c["type"], c["shape"]) for c in self._columns)


def _random_schema(rng):
    schema = Schema()
    for i in range(int(rng.integers(1, 5))):
        schema.add_column(f"c{i}", rng.choice(["uint8", "int32", "float32", "float64"]))
    return schema


def _random_values(rng, dtype, shape):
    if dtype.kind == "f":
        return rng.random(shape).astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    return rng.integers(0, 256, size=shape).astype(dtype)
