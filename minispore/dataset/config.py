"""Dataset configuration: the shuffle seed, default worker count and prefetch depth.

    >>> import minispore.dataset as ds
    >>> ds.config.set_seed(58)
    >>> ds.config.get_seed()
    58

Which seed applies, first match wins: `ds.config.set_seed`, then the global `ms.set_seed`
(when set), then MindSpore's default dataset seed, 5489.

`num_parallel_workers` is what `map`, `batch` and the sources use when given None. MindSpore
defaults to 8 threads; minispore to 1 (the pipeline's own thread), because Python
transforms hold the GIL and extra threads only pay for decode-heavy work: ask for workers
per `map` (`python_multiprocessing=True` for processes).
"""
from ..common import seed as global_seed_module

_DEFAULT_SEED = 5489
_seed = None
_seed_calls = 0  # set_seed calls so far: setting the same seed again restarts eager draws
_num_parallel_workers = 1
_prefetch_size = 2


def set_seed(seed):
    """Seed every shuffle and random transform in dataset pipelines iterated from now on."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"dataset.config.set_seed: seed must be an int in [0, 2**64), "
                         f"got {seed!r}")
    global _seed, _seed_calls
    _seed = seed
    _seed_calls += 1


def get_seed():
    """The seed dataset shuffles use now (see the module docstring for the order)."""
    if _seed is not None:
        return _seed
    global_seed = global_seed_module.get_seed()
    return _DEFAULT_SEED if global_seed is None else global_seed


def seed_state():
    """(seed, number of set_seed calls): changes whenever eager random draws must restart."""
    return get_seed(), _seed_calls


def set_num_parallel_workers(num):
    """Workers a pipeline step uses when its `num_parallel_workers` is None."""
    global _num_parallel_workers
    _num_parallel_workers = check_workers(num, "dataset.config.set_num_parallel_workers")


def get_num_parallel_workers():
    return _num_parallel_workers


def set_prefetch_size(size):
    """Blocks of rows each worker may have queued ahead of the consumer (default 2)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"dataset.config.set_prefetch_size: size must be an int >= 1, "
                         f"got {size!r}")
    global _prefetch_size
    _prefetch_size = size


def get_prefetch_size():
    return _prefetch_size


def check_workers(num, api):
    """`num` as a worker count (None: the configured default)."""
    if num is None:
        return _num_parallel_workers
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise ValueError(f"{api}: num_parallel_workers must be None or an int >= 1, got {num!r}")
    return num
