"""The global random state: `ms.set_seed(seed)` makes initializers and random ops repeatable.

    >>> import minispore as ms
    >>> ms.set_seed(1)
    >>> a = ms.common.initializer.initializer("normal", (2,))
    >>> ms.set_seed(1)
    >>> b = ms.common.initializer.initializer("normal", (2,))
    >>> bool((a == b).all())
    True

Two numpy Generators: one that initializers draw from (`generator`), one for random ops
(`get_generator`: dropout...). An op given its own `seed` draws from a stream keyed by
(global seed, op seed): reproducible, and still new values on every call, as MindSpore's
op-level seeds behave. As in MindSpore, `set_seed` also seeds `numpy.random`.
"""
from typing import Any, Optional

import numpy as np

_seed = None
_op_seed = None  # the seed of the default generator (random ops'), see manual_seed
_init_generator = np.random.default_rng()
_op_generator = np.random.default_rng()
_op_streams: dict[Any, np.random.Generator] = {}


def set_seed(seed: int) -> None:
    """Seed initializers, random ops and `numpy.random` (a non-negative int)."""
    global _seed, _init_generator, _op_generator, _op_seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"set_seed: seed must be a non-negative int, got {seed!r}")
    _seed = _op_seed = int(seed)
    _init_generator = np.random.default_rng(_seed)
    _op_generator = np.random.default_rng(_seed)
    _op_streams.clear()
    np.random.seed(_seed)


def manual_seed(seed: int) -> None:
    """Seed the default generator, the one random ops draw from (MindSpore 2.x); initializers
    and numpy.random keep their state (`set_seed` seeds them all).

        >>> ms.manual_seed(13); ms.initial_seed()
        13
    """
    global _op_generator, _op_seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"manual_seed: seed must be a non-negative int, got {seed!r}")
    _op_seed = int(seed)
    _op_generator = np.random.default_rng(_op_seed)


def seed() -> int:
    """Seed the default generator with a fresh non-deterministic seed, and return it."""
    fresh = int(np.random.SeedSequence().generate_state(2, np.uint64)[0] >> np.uint64(1))
    manual_seed(fresh)
    return fresh


def initial_seed() -> int:
    """The seed the default generator was last seeded with (by manual_seed, seed or set_seed;
    a non-deterministic one, drawn now, if none)."""
    return _op_seed if _op_seed is not None else seed()


def generator_state() -> dict:
    """The default generator's state (numpy's bit-generator state: plain data)."""
    return dict(_op_generator.bit_generator.state)


def restore_generator_state(state: dict) -> None:
    """Put the default generator back in a state `generator_state` returned."""
    global _op_generator
    generator = np.random.Generator(getattr(np.random, state["bit_generator"])())
    generator.bit_generator.state = state
    _op_generator = generator


def get_seed() -> Optional[int]:
    """The seed given to `set_seed`, or None if it was never called."""
    return _seed


def generator():
    """The numpy Generator initializers draw from (reseeded by `set_seed`)."""
    return _init_generator


def get_generator(seed=None):
    """The Generator random ops draw from, or (with an op-level `seed`) that seed's stream."""
    if seed is None:
        return _op_generator
    key = (_seed, int(seed))
    if key not in _op_streams:
        _op_streams[key] = np.random.default_rng([0 if _seed is None else _seed + 1, int(seed)])
    return _op_streams[key]
