"""Augmentation policies without a learned table: RandAugment (Cubuk et al., 2019,
arXiv:1909.13719), TrivialAugmentWide (Mueller and Hutter, 2021, arXiv:2103.10158),
UniformAugment (a random subset of given transforms) and RandomSelectSubpolicy (a random row
of a user's policy table).

RandAugment and TrivialAugmentWide use torchvision's operation spaces and magnitude bins and
AutoAugment's Pillow operations; translations are in pixels here.
"""
from collections.abc import Callable, Sequence
from typing import Any, Union

import numpy as np
from PIL import Image

from .. import randomness
from ..transforms.base import TensorOperation
from ..transforms.compose import apply_all
from .autoaugment import _OPERATIONS, _affine
from .utils import PIL_FILTERS, ImageTransform, Inter, fill_tuple, pixels

__all__ = ["RandAugment", "TrivialAugmentWide", "UniformAugment", "RandomSelectSubpolicy"]

# (PIL image, signed magnitude, resample filter, fill color) -> PIL image, as in autoaugment
_OPS: dict[str, Callable[..., Image.Image]] = {
    **_OPERATIONS,
    "Identity": lambda im, m, r, f: im,
    "TranslateX": lambda im, m, r, f: _affine(im, (1, 0, -int(m), 0, 1, 0), r, f),
    "TranslateY": lambda im, m, r, f: _affine(im, (1, 0, 0, 0, 1, -int(m)), r, f),
}


def _posterize_bits(bins: int, spread: int) -> np.ndarray:
    """torchvision's posterize bits per bin: 8 down to 8 - spread."""
    return 8 - np.round(np.arange(bins) / ((bins - 1) / spread)).astype(np.int64)


def rand_augment_space(bins: int, height: int, width: int) -> dict[str, tuple[np.ndarray, bool]]:
    """RandAugment's operations: name -> (magnitude per bin, whether a random sign applies).

    Example:
        >>> float(rand_augment_space(31, 224, 224)["Rotate"][0][9])
        9.0
    """
    zero = np.zeros(bins)
    return {
        "Identity": (zero, False),
        "ShearX": (np.linspace(0.0, 0.3, bins), True),
        "ShearY": (np.linspace(0.0, 0.3, bins), True),
        "TranslateX": (np.linspace(0.0, 150.0 / 331.0 * width, bins), True),
        "TranslateY": (np.linspace(0.0, 150.0 / 331.0 * height, bins), True),
        "Rotate": (np.linspace(0.0, 30.0, bins), True),
        "Brightness": (np.linspace(0.0, 0.9, bins), True),
        "Color": (np.linspace(0.0, 0.9, bins), True),
        "Contrast": (np.linspace(0.0, 0.9, bins), True),
        "Sharpness": (np.linspace(0.0, 0.9, bins), True),
        "Posterize": (_posterize_bits(bins, 4), False),
        "Solarize": (np.linspace(255.0, 0.0, bins), False),
        "AutoContrast": (zero, False),
        "Equalize": (zero, False),
    }


def trivial_augment_space(bins: int) -> dict[str, tuple[np.ndarray, bool]]:
    """TrivialAugmentWide's operations (the "wide" ranges).

    Example:
        >>> trivial_augment_space(31)["Posterize"][0].tolist()[-1]
        2
    """
    zero = np.zeros(bins)
    return {
        "Identity": (zero, False),
        "ShearX": (np.linspace(0.0, 0.99, bins), True),
        "ShearY": (np.linspace(0.0, 0.99, bins), True),
        "TranslateX": (np.linspace(0.0, 32.0, bins), True),
        "TranslateY": (np.linspace(0.0, 32.0, bins), True),
        "Rotate": (np.linspace(0.0, 135.0, bins), True),
        "Brightness": (np.linspace(0.0, 0.99, bins), True),
        "Color": (np.linspace(0.0, 0.99, bins), True),
        "Contrast": (np.linspace(0.0, 0.99, bins), True),
        "Sharpness": (np.linspace(0.0, 0.99, bins), True),
        "Posterize": (_posterize_bits(bins, 6), False),
        "Solarize": (np.linspace(255.0, 0.0, bins), False),
        "AutoContrast": (zero, False),
        "Equalize": (zero, False),
    }


def _bins(value: object, api: str, arg: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{api}: {arg} must be an int >= {low}, got {value!r}")
    return value


class _SearchFreeAugment(ImageTransform):
    """Shared by RandAugment and TrivialAugmentWide: Pillow operations on RGB uint8 images."""

    random = True

    def _options(self, interpolation: Inter, fill_value: Union[int, Sequence[int]]) -> None:
        self.interpolation = Inter(interpolation)
        self.fill_value = tuple(int(v) for v in fill_tuple(fill_value, type(self).__name__))
        resample = PIL_FILTERS[self.interpolation]
        if resample not in (Image.Resampling.NEAREST, Image.Resampling.BILINEAR,
                            Image.Resampling.BICUBIC):
            resample = Image.Resampling.BILINEAR  # Pillow warps with these three only
        self._resample = resample

    def _run(self, pil: Image.Image, name: str, magnitude: float) -> Image.Image:
        return _OPS[name](pil, magnitude, self._resample, self.fill_value)

    def _rgb(self, image: np.ndarray) -> Image.Image:
        if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            raise RuntimeError(f"{type(self).__name__}: expected an RGB uint8 image <H, W, 3>, "
                               f"got {image.dtype} of shape {image.shape}")
        return Image.fromarray(image, "RGB")


class RandAugment(_SearchFreeAugment):
    """Apply `num_ops` operations drawn uniformly (with repetition) from RandAugment's 14,
    all at bin `magnitude` of `num_magnitude_bins`, with a random sign where it applies;
    geometric ones resample with `interpolation` and fill with `fill_value`.

    Example:
        >>> import numpy as np
        >>> RandAugment(num_ops=3)(np.zeros((8, 8, 3), np.uint8)).shape
        (8, 8, 3)
    """

    def __init__(self, num_ops: int = 2, magnitude: int = 9, num_magnitude_bins: int = 31,
                 interpolation: Inter = Inter.NEAREST,
                 fill_value: Union[int, Sequence[int]] = 0) -> None:
        self.num_ops = _bins(num_ops, "RandAugment", "num_ops", 0)
        self.num_magnitude_bins = _bins(num_magnitude_bins, "RandAugment", "num_magnitude_bins",
                                        2)
        self.magnitude = _bins(magnitude, "RandAugment", "magnitude", 0)
        if magnitude >= num_magnitude_bins:
            raise ValueError(f"RandAugment: magnitude must be below num_magnitude_bins "
                             f"({num_magnitude_bins}), got {magnitude}")
        self._options(interpolation, fill_value)

    def _apply(self, image: np.ndarray) -> np.ndarray:
        pil = self._rgb(image)
        space = rand_augment_space(self.num_magnitude_bins, image.shape[0], image.shape[1])
        names = list(space)
        for _ in range(self.num_ops):
            name = names[randomness.randint(0, len(names) - 1)]
            values, signed = space[name]
            magnitude = float(values[self.magnitude])
            if signed and randomness.chance(0.5):
                magnitude = -magnitude
            pil = self._run(pil, name, magnitude)
        return pixels(pil)


class TrivialAugmentWide(_SearchFreeAugment):
    """Apply one operation drawn uniformly from TrivialAugment's 14 at a magnitude bin drawn
    uniformly from `num_magnitude_bins` (random sign where it applies).

    Example:
        >>> import numpy as np
        >>> TrivialAugmentWide()(np.zeros((8, 8, 3), np.uint8)).shape
        (8, 8, 3)
    """

    def __init__(self, num_magnitude_bins: int = 31, interpolation: Inter = Inter.NEAREST,
                 fill_value: Union[int, Sequence[int]] = 0) -> None:
        self.num_magnitude_bins = _bins(num_magnitude_bins, "TrivialAugmentWide",
                                        "num_magnitude_bins", 2)
        self._options(interpolation, fill_value)

    def _apply(self, image: np.ndarray) -> np.ndarray:
        pil = self._rgb(image)
        space = trivial_augment_space(self.num_magnitude_bins)
        names = list(space)
        name = names[randomness.randint(0, len(names) - 1)]
        values, signed = space[name]
        magnitude = float(values[randomness.randint(0, self.num_magnitude_bins - 1)])
        if signed and randomness.chance(0.5):
            magnitude = -magnitude
        return pixels(self._run(pil, name, magnitude))


def _unpacked(values: tuple) -> Any:
    return values[0] if len(values) == 1 else values


class UniformAugment(TensorOperation):
    """Draw `num_ops` distinct transforms of `transforms` in a random order and run each with
    a probability itself drawn uniformly from [0, 1) (MindSpore's rule: a drawn transform may
    not run).

    Example:
        >>> import numpy as np
        >>> op = UniformAugment([lambda x: x + 1, lambda x: x * 2], num_ops=2)
        >>> int(op(np.array(3))) in (3, 4, 6, 7, 8)
        True
    """

    random = True

    def __init__(self, transforms: Sequence[Callable], num_ops: int = 2) -> None:
        if not isinstance(transforms, (list, tuple)) or not transforms or \
                not all(callable(t) for t in transforms):
            raise TypeError(f"UniformAugment: transforms must be a non-empty list of callables, "
                            f"got {transforms!r}")
        self.transforms = list(transforms)
        self.num_ops = _bins(num_ops, "UniformAugment", "num_ops", 1)
        if self.num_ops > len(self.transforms):
            raise ValueError(f"UniformAugment: num_ops ({num_ops}) is more than the "
                             f"{len(self.transforms)} transforms")

    def __call__(self, *columns: Any) -> Any:
        rng = randomness.generator()
        chosen = rng.choice(len(self.transforms), size=self.num_ops, replace=False)
        for index in chosen:
            if rng.random() < rng.random():
                columns = apply_all([self.transforms[int(index)]], columns)
        return _unpacked(columns)


class RandomSelectSubpolicy(TensorOperation):
    """Pick one sub-policy of `policy` uniformly and run its (transform, probability) pairs
    in order, each with its probability.

    Example:
        >>> import numpy as np
        >>> policy = [[(lambda x: x + 1, 1.0), (lambda x: x * 10, 1.0)]]
        >>> int(RandomSelectSubpolicy(policy)(np.array(2)))
        30
    """

    random = True

    def __init__(self, policy: Sequence[Sequence[tuple[Callable, float]]]) -> None:
        if not isinstance(policy, (list, tuple)) or not policy or not all(
                isinstance(sub, (list, tuple)) and sub and all(
                    isinstance(pair, (list, tuple)) and len(pair) == 2 and callable(pair[0])
                    and isinstance(pair[1], (int, float)) and 0 <= pair[1] <= 1
                    for pair in sub) for sub in policy):
            raise ValueError(f"RandomSelectSubpolicy: policy must be a non-empty list of "
                             f"non-empty lists of (transform, prob) pairs, prob in [0, 1], got "
                             f"{policy!r}")
        self.policy = [list(sub) for sub in policy]

    def __call__(self, *columns: Any) -> Any:
        sub = self.policy[randomness.randint(0, len(self.policy) - 1)]
        for transform, prob in sub:
            if randomness.chance(prob):
                columns = apply_all([transform], columns)
        return _unpacked(columns)
