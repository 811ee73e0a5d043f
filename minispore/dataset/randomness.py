"""Random draws for random transforms: reproducible per sample, whoever runs the sample.

A pipeline runs the rows of a `map` in blocks (`ROWS_PER_BLOCK` consecutive rows); every
block gets its own numpy Generator seeded from (dataset seed, epoch, the map's place in the
pipeline, block number). A random transform draws from `generator()`, which is the block's
generator while the block runs (in the main thread, a worker thread or a worker process), so
the same seed gives the same augmentations whatever `num_parallel_workers` is. One
generator per block and not per row: creating a Generator costs ~10 us, a draw ~1 us.

Outside a pipeline (a transform called eagerly, `vision.RandomCrop(8)(image)`), draws come
from a generator seeded with `dataset.config.get_seed()`, re-seeded by every
`config.set_seed` call (and when the global seed changes).
"""
import threading
from contextlib import contextmanager

import numpy as np

from . import config

ROWS_PER_BLOCK = 16

_local = threading.local()  # worker threads run blocks at the same time: one generator each
_eager = {"state": None, "generator": None}


def generator() -> np.random.Generator:
    """The Generator the current sample's random choices come from."""
    current = getattr(_local, "generator", None)
    if current is not None:
        return current
    state = config.seed_state()
    if _eager["state"] != state:
        _eager.update(state=state, generator=np.random.default_rng(state[0]))
    return _eager["generator"]


@contextmanager
def seeded(key):
    """Draw from a Generator seeded with `key` (a list of ints) inside the block."""
    previous = getattr(_local, "generator", None)
    _local.generator = np.random.default_rng(key)
    try:
        yield
    finally:
        _local.generator = previous


def uniform(low: float, high: float) -> float:
    """A float in [low, high)."""
    return low + (high - low) * generator().random()


def randint(low: int, high: int) -> int:
    """An int in [low, high], both ends included."""
    return low + min(int(generator().random() * (high - low + 1)), high - low)


def chance(prob: float) -> bool:
    """True with probability `prob`."""
    return generator().random() < prob
