"""The global random seed: `ms.set_seed(seed)` makes initializers and random ops repeatable.

    >>> import minispore as ms
    >>> ms.set_seed(1)
    >>> a = ms.common.initializer.initializer("normal", (2,))
    >>> ms.set_seed(1)
    >>> b = ms.common.initializer.initializer("normal", (2,))
    >>> bool((a == b).all())
    True

As in MindSpore, the seed also seeds `numpy.random` and the random ops (dropout...).
"""
import numpy as np

_seed = None
_generator = np.random.default_rng()


def set_seed(seed):
    """Seed initializers, random ops and `numpy.random` (a non-negative int)."""
    global _seed, _generator
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"set_seed: seed must be a non-negative int, got {seed!r}")
    _seed = int(seed)
    _generator = np.random.default_rng(_seed)
    np.random.seed(_seed)
    from ..ops import random as ops_random
    ops_random.set_seed(_seed)


def get_seed():
    """The seed given to `set_seed`, or None if it was never called."""
    return _seed


def generator():
    """The numpy Generator initializers draw from (reseeded by `set_seed`)."""
    return _generator
