"""The global random state that random ops (dropout, ...) draw from.

One numpy Generator for the process; `set_seed(seed)` (what `ms.set_seed` calls) replaces it,
so a seeded script draws the same masks on every run. An op given its own `seed` draws from a
stream keyed by (global seed, op seed): reproducible, and still a new mask on every call, as
MindSpore's op-level seeds behave.

    >>> from minispore.ops import random
    >>> random.set_seed(0); a = random.get_generator().random(2)
    >>> random.set_seed(0); b = random.get_generator().random(2)
    >>> bool((a == b).all())
    True
"""
import numpy as np

_seed = None
_generator = np.random.default_rng()
_op_streams = {}


def set_seed(seed):
    """Reseed the global generator (None: fresh entropy) and restart every op-level stream."""
    global _seed, _generator
    if seed is not None and (not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"set_seed: seed must be a non-negative int or None, got {seed!r}")
    _seed = None if seed is None else int(seed)
    _generator = np.random.default_rng(_seed)
    _op_streams.clear()


def get_seed():
    """The global seed last set, or None."""
    return _seed


def get_generator(seed=None):
    """The global Generator, or (with an op-level `seed`) that seed's own stream."""
    if seed is None:
        return _generator
    key = (_seed, int(seed))
    if key not in _op_streams:
        _op_streams[key] = np.random.default_rng([0 if _seed is None else _seed + 1, int(seed)])
    return _op_streams[key]
