"""`dataset.map`: transforms applied to columns of every row, in blocks, by parallel workers.

Rows go to the transforms in blocks of `randomness.ROWS_PER_BLOCK` consecutive rows. A block
is the unit of work a worker gets and the unit random transforms are seeded by, so the
output (order and augmentations) is the same for any `num_parallel_workers`, threads or
processes. A transform that raises stops the pipeline with a RuntimeError naming the
transform, the sample's index in the epoch and the original error.
"""
from . import config, randomness
from .callbacks import CallbackRunner, check_callbacks, run_hooks
from .engine import Dataset, column_names, to_numpy
from .failures import Failure, failure_from
from .workers import run_ordered

__all__ = ["MapDataset", "transform_name"]


class MapDataset(Dataset, step="map"):
    """`dataset.map(operations, input_columns, output_columns, num_parallel_workers,
    python_multiprocessing, callbacks)`: `callbacks` are DSCallbacks (callbacks.py) called
    around each epoch and row; `max_rowsize`, `cache` and `offload` are accepted for
    MindSpore compatibility and have no effect."""

    def __init__(self, child, operations, input_columns=None, output_columns=None,
                 num_parallel_workers=None, python_multiprocessing=False, max_rowsize=None,
                 cache=None, callbacks=None, offload=None):
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(op) for op in ops):
            raise TypeError(f"Dataset.map: operations must be a callable or a list of callables, "
                            f"got {operations!r}")
        names = child.get_col_names()
        inputs = column_names(input_columns, names[:1])
        outputs = column_names(output_columns, inputs)
        positions = [child._column_index(n, "Dataset.map") for n in inputs]
        kept = [n for n in names if n not in inputs]
        first = min(positions)
        new_names = kept[:first] + outputs + kept[first:]
        if len(set(new_names)) != len(new_names):
            raise ValueError(f"Dataset.map: output columns {outputs} clash with columns {kept}")
        super().__init__(new_names, [child])
        self._workers = config.check_workers(num_parallel_workers, "Dataset.map")
        self._processes = bool(python_multiprocessing)
        self._what = f"Dataset.map({', '.join(transform_name(op) for op in ops)})"
        self._job = _MapJob(ops, positions, len(outputs), first, inputs)
        hooks = check_callbacks(callbacks, "Dataset.map")
        self._hooks = CallbackRunner(hooks) if hooks else None

    def _known_size(self):
        return self._children[0].get_dataset_size()

    def _epoch_rows(self, epoch):
        yield from run_hooks(self._hooks, self._mapped_rows(epoch), epoch.probe)

    def _mapped_rows(self, epoch):
        blocks = _blocks(self._children[0]._epoch_rows(epoch), epoch.key(self))
        for rows in run_ordered(self._job, blocks, self._workers, self._processes, self._what):
            yield from rows


class _Block:
    """A task: consecutive rows of one epoch and what seeds their random transforms."""

    def __init__(self, rows, key, number, first_index):
        self.rows = rows
        self.key = key
        self.number = number
        self.first_index = first_index

    @property
    def description(self):
        return f"samples {self.first_index}..{self.first_index + len(self.rows) - 1}"


def _blocks(rows, key):
    block, number, first = [], 0, 0
    for row in rows:
        block.append(row)
        if len(block) == randomness.ROWS_PER_BLOCK:
            yield _Block(block, key, number, first)
            number += 1
            first += len(block)
            block = []
    if block:
        yield _Block(block, key, number, first)


class _MapJob:
    """Applies the operation chain to the input columns of each row of a block."""

    def __init__(self, ops, positions, n_outputs, first, inputs):
        self.ops = ops
        self.names = [transform_name(op) for op in ops]
        self.positions = positions
        self.n_outputs = n_outputs
        self.first = first
        self.inputs = inputs

    def run(self, block):
        out = []
        with randomness.seeded(block.key + [block.number]):
            for offset, row in enumerate(block.rows):
                values = tuple(row[i] for i in self.positions)
                for op, name in zip(self.ops, self.names):
                    try:
                        result = op(*values)
                    except Exception as error:
                        return failure_from(error, self._where(name, block.first_index + offset))
                    values = result if isinstance(result, tuple) else (result,)
                if len(values) != self.n_outputs:
                    return Failure(f"{self._where(self.names[-1], block.first_index + offset)}: "
                                   f"the operations returned {len(values)} value(s) for "
                                   f"{self.n_outputs} output column(s); set output_columns")
                kept = [v for i, v in enumerate(row) if i not in self.positions]
                out.append(tuple(kept[:self.first]) + tuple(to_numpy(v) for v in values)
                           + tuple(kept[self.first:]))
        return out

    def _where(self, name, index):
        return (f"Dataset.map: transform {name} failed on sample {index} of the epoch "
                f"(input columns {self.inputs})")


def transform_name(op):
    """A readable name for a transform or callable (class name, function name, 'lambda')."""
    name = getattr(op, "__name__", None)
    if name is not None:
        return name.replace("<lambda>", "lambda")
    return type(op).__name__
