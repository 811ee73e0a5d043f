"""Transforms made of transforms: Compose, RandomApply, RandomChoice, RandomOrder."""
from .. import randomness
from .base import TensorOperation, check_prob

__all__ = ["Compose", "RandomApply", "RandomChoice", "RandomOrder"]


def _checked_list(transforms, api):
    if not isinstance(transforms, (list, tuple)) or not transforms:
        raise ValueError(f"{api}: transforms must be a non-empty list, got {transforms!r}")
    if not all(callable(t) for t in transforms):
        raise TypeError(f"{api}: every transform must be callable, got {transforms!r}")
    return list(transforms)


def apply_all(transforms, values):
    """Run `transforms` in turn, each on the previous one's outputs (a tuple of columns)."""
    for transform in transforms:
        result = transform(*values)
        values = result if isinstance(result, tuple) else (result,)
    return values


def _unpacked(values):
    return values[0] if len(values) == 1 else values


class Compose(TensorOperation):
    """Apply `transforms` one after another.

    Example:
        >>> import numpy as np
        >>> from minispore.dataset import transforms
        >>> op = transforms.Compose([lambda x: x + 1, lambda x: x * 10])
        >>> op(np.array([1, 2])).tolist()
        [20, 30]
    """

    def __init__(self, transforms):
        flat = []
        for t in _checked_list(transforms, "Compose"):
            flat.extend(t.transforms if isinstance(t, Compose) else [t])
        self.transforms = flat
        self.random = any(getattr(t, "random", True) for t in flat)

    def __call__(self, *columns):
        return _unpacked(apply_all(self.transforms, columns))


class RandomApply(TensorOperation):
    """Apply all of `transforms` (in order) with probability `prob`, else none."""

    random = True

    def __init__(self, transforms, prob=0.5):
        self.transforms = _checked_list(transforms, "RandomApply")
        self.prob = check_prob(prob, "RandomApply")

    def __call__(self, *columns):
        if not randomness.chance(self.prob):
            return _unpacked(columns)
        return _unpacked(apply_all(self.transforms, columns))


class RandomChoice(TensorOperation):
    """Apply one of `transforms`, chosen uniformly."""

    random = True

    def __init__(self, transforms):
        self.transforms = _checked_list(transforms, "RandomChoice")

    def __call__(self, *columns):
        choice = self.transforms[randomness.randint(0, len(self.transforms) - 1)]
        return _unpacked(apply_all([choice], columns))


class RandomOrder(TensorOperation):
    """Apply all of `transforms`, in a random order."""

    random = True

    def __init__(self, transforms):
        self.transforms = _checked_list(transforms, "RandomOrder")

    def __call__(self, *columns):
        order = randomness.generator().permutation(len(self.transforms))
        return _unpacked(apply_all([self.transforms[i] for i in order], columns))
