"""Dataset configuration: the seed that makes shuffling reproducible.

    >>> import minispore.dataset as ds
    >>> ds.config.set_seed(58)
    >>> ds.config.get_seed()
    58

Which seed applies, first match wins: `ds.config.set_seed`, then the global `ms.set_seed`
(when set), then MindSpore's default dataset seed, 5489.
"""
from ..common import seed as global_seed_module

_DEFAULT_SEED = 5489
_seed = None


def set_seed(seed):
    """Seed every shuffle in dataset pipelines iterated from now on."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"dataset.config.set_seed: seed must be an int in [0, 2**64), "
                         f"got {seed!r}")
    global _seed
    _seed = seed


def get_seed():
    """The seed dataset shuffles use now (see the module docstring for the order)."""
    if _seed is not None:
        return _seed
    global_seed = global_seed_module.get_seed()
    return _DEFAULT_SEED if global_seed is None else global_seed
