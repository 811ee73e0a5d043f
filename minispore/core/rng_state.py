"""The default generator's state as a Tensor, MindSpore 2.x's `get_rng_state` and
`set_rng_state`: save it, draw, restore it, and the same numbers come again.

    >>> state = ms.get_rng_state(); a = ms.ops.rand(3)
    >>> ms.set_rng_state(state); bool((ms.ops.rand(3) == a).all())
    True
"""
import json
from typing import Any

import numpy as np

from . import seed
from .tensor import Tensor


def get_rng_state() -> Tensor:
    """The default generator's state (the one random ops draw from) as a uint8 Tensor."""
    text = json.dumps(seed.generator_state())
    return Tensor(np.frombuffer(text.encode(), np.uint8).copy())


def set_rng_state(state: Any) -> None:
    """Restore the default generator to a state `get_rng_state` returned."""
    data = np.asarray(state.asnumpy() if isinstance(state, Tensor) else state)
    try:
        seed.restore_generator_state(json.loads(data.astype(np.uint8).tobytes().decode()))
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as e:
        raise ValueError(f"set_rng_state: not a state from get_rng_state ({e})") from None
