"""Tone and detail transforms: Gaussian blur, sharpness, AutoContrast, Equalize, Posterize,
Solarize, PCA lighting noise, and their random versions.

AutoContrast, Equalize, sharpness and color use Pillow's ImageOps / ImageEnhance band by band
(as MindSpore's Python implementation and torchvision do); the blur, Posterize, Solarize and
the lighting noise are numpy. Random draws come from `randomness`, reproducible per sample.
"""
from collections.abc import Sequence
from typing import Optional, Union

import numpy as np
from PIL import ImageEnhance, ImageOps

from .. import randomness
from ..transforms.base import check_prob
from .utils import ImageTransform, pil_apply

__all__ = ["GaussianBlur", "AdjustSharpness", "RandomAdjustSharpness", "RandomSharpness",
           "RandomColor", "AutoContrast", "RandomAutoContrast", "Equalize", "RandomEqualize",
           "Posterize", "RandomPosterize", "Solarize", "RandomSolarize", "RandomInvert",
           "RandomLighting"]

Number = Union[int, float]


def _number(value: object, api: str, arg: str, low: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < low:
        raise ValueError(f"{api}: {arg} must be a number >= {low}, got {value!r}")
    return float(value)


def _range(value: object, api: str, arg: str, low: float = 0.0,
           high: Optional[float] = None) -> tuple[float, float]:
    """A (min, max) pair inside [low, high]."""
    if not (isinstance(value, (list, tuple)) and len(value) == 2 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)) or \
            value[0] > value[1] or value[0] < low or (high is not None and value[1] > high):
        bounds = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{api}: {arg} must be a (min, max) pair in {bounds}, got {value!r}")
    return float(value[0]), float(value[1])


def _uint8(image: np.ndarray, api: str) -> np.ndarray:
    if image.dtype != np.uint8:
        raise RuntimeError(f"{api}: expected a uint8 image, got {image.dtype}")
    return image


def _pillow_bands(image: np.ndarray, api: str, operation) -> np.ndarray:
    """`operation(pil_image)` on a uint8 image: RGB whole, other channel counts band by band."""
    return pil_apply(_uint8(image, api), lambda pil, fill: operation(pil))


# ----- Gaussian blur -----

def gaussian_kernel(size: int, sigma: float) -> np.ndarray:
    """The normalized 1-D Gaussian of `size` taps (odd) and standard deviation `sigma`.

    Example:
        >>> gaussian_kernel(3, 1.0).round(3).tolist()
        [0.274, 0.452, 0.274]
    """
    x = np.arange(size, dtype=np.float64) - (size - 1) / 2
    kernel = np.exp(-0.5 * (x / sigma) ** 2)
    return kernel / kernel.sum()


def _blur_axis(image: np.ndarray, kernel: np.ndarray, axis: int) -> np.ndarray:
    """Correlate along `axis` with reflect-101 borders (OpenCV's default, numpy's 'reflect')."""
    radius = len(kernel) // 2
    widths = [(0, 0)] * image.ndim
    widths[axis] = (radius, radius)
    if image.shape[axis] > 1:
        padded = np.pad(image, widths, mode="reflect")
    else:
        padded = np.pad(image, widths, mode="edge")
    length = image.shape[axis]
    out = np.zeros(image.shape, np.float64)
    for tap, weight in enumerate(kernel):
        out += weight * np.take(padded, np.arange(tap, tap + length), axis=axis)
    return out


def gaussian_blur(image: np.ndarray, kernel_size: tuple[int, int],
                  sigma: tuple[float, float]) -> np.ndarray:
    """Blur an HW / HWC image by a separable Gaussian: `kernel_size` and `sigma` are (x, y).

    Example:
        >>> gaussian_blur(np.full((3, 3), 8, np.uint8), (3, 3), (1.0, 1.0)).tolist()[1]
        [8, 8, 8]
    """
    out = _blur_axis(image.astype(np.float64), gaussian_kernel(kernel_size[0], sigma[0]), 1)
    out = _blur_axis(out, gaussian_kernel(kernel_size[1], sigma[1]), 0)
    if image.dtype.kind in "iu":
        info = np.iinfo(image.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(image.dtype)


class GaussianBlur(ImageTransform):
    """Blur with a Gaussian kernel of `kernel_size` (odd; an int or (width, height)) and
    standard deviation `sigma` (a number or (sigma_x, sigma_y); None or 0: OpenCV's default
    `0.3 * ((size - 1) * 0.5 - 1) + 0.8`); borders reflect without repeating the edge pixel.

    Example:
        >>> import numpy as np
        >>> image = np.zeros((5, 5), np.uint8); image[2, 2] = 255
        >>> GaussianBlur(3, 1.0)(image)[1:4, 1:4].tolist()
        [[19, 32, 19], [32, 52, 32], [19, 32, 19]]
    """

    def __init__(self, kernel_size: Union[int, Sequence[int]],
                 sigma: Optional[Union[Number, Sequence[Number]]] = None) -> None:
        sizes = [kernel_size] * 2 if isinstance(kernel_size, int) else list(kernel_size)
        if len(sizes) != 2 or not all(isinstance(k, int) and not isinstance(k, bool) and k > 0
                                      and k % 2 == 1 for k in sizes):
            raise ValueError(f"GaussianBlur: kernel_size must be a positive odd int or two of "
                             f"them, got {kernel_size!r}")
        sigmas = [sigma] * 2 if sigma is None or isinstance(sigma, (int, float)) else list(sigma)
        if len(sigmas) != 2:
            raise ValueError(f"GaussianBlur: sigma must be a number or two, got {sigma!r}")
        self.kernel_size = (sizes[0], sizes[1])
        self.sigma = tuple(
            0.3 * ((k - 1) * 0.5 - 1) + 0.8 if not s else _number(s, "GaussianBlur", "sigma")
            for k, s in zip(sizes, sigmas))

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return gaussian_blur(image, self.kernel_size, self.sigma)  # type: ignore[arg-type]


# ----- sharpness and color (Pillow's ImageEnhance) -----

def adjust_sharpness(image: np.ndarray, factor: float) -> np.ndarray:
    """Blend with Pillow's 3x3 smoothed image (kernel [[1,1,1],[1,5,1],[1,1,1]] / 13, border
    pixels kept): 0 gives the smoothed image, 1 the original, 2 a sharper one.

    Example:
        >>> adjust_sharpness(np.full((3, 3), 13, np.uint8), 0.0).tolist()[1]
        [13, 13, 13]
    """
    return _pillow_bands(image, "AdjustSharpness",
                         lambda pil: ImageEnhance.Sharpness(pil).enhance(factor))


def adjust_color(image: np.ndarray, factor: float) -> np.ndarray:
    """Blend with the grayscale image (Pillow's ImageEnhance.Color): 0 gray, 1 unchanged.

    Example:
        >>> adjust_color(np.array([[[200, 10, 10]]], np.uint8), 1.0).tolist()
        [[[200, 10, 10]]]
    """
    return _pillow_bands(image, "RandomColor",
                         lambda pil: ImageEnhance.Color(pil).enhance(factor))


class AdjustSharpness(ImageTransform):
    """Sharpen (`sharpness_factor` > 1) or soften (< 1) a uint8 image; 1 leaves it as it is.

    Example:
        >>> import numpy as np
        >>> image = np.full((4, 4, 3), 7, np.uint8)
        >>> bool((AdjustSharpness(2.0)(image) == 7).all())
        True
    """

    def __init__(self, sharpness_factor: float) -> None:
        self.sharpness_factor = _number(sharpness_factor, "AdjustSharpness", "sharpness_factor")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return adjust_sharpness(image, self.sharpness_factor)


class RandomAdjustSharpness(ImageTransform):
    """AdjustSharpness(`degree`) with probability `prob`.

    Example:
        >>> import numpy as np
        >>> image = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
        >>> RandomAdjustSharpness(2.0, prob=0.0)(image).tolist() == image.tolist()
        True
    """

    random = True

    def __init__(self, degree: float, prob: float = 0.5) -> None:
        self.degree = _number(degree, "RandomAdjustSharpness", "degree")
        self.prob = check_prob(prob, "RandomAdjustSharpness")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return adjust_sharpness(image, self.degree) if randomness.chance(self.prob) else image


class RandomSharpness(ImageTransform):
    """AdjustSharpness by a factor drawn uniformly from `degrees` = (min, max).

    Example:
        >>> import numpy as np
        >>> RandomSharpness((1.0, 1.0))(np.full((3, 3), 5, np.uint8)).tolist()
        [[5, 5, 5], [5, 5, 5], [5, 5, 5]]
    """

    random = True

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.degrees = _range(degrees, "RandomSharpness", "degrees")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return adjust_sharpness(image, randomness.uniform(*self.degrees))


class RandomColor(ImageTransform):
    """Scale saturation by a factor drawn uniformly from `degrees` = (min, max) (0 gray,
    1 unchanged; Pillow's ImageEnhance.Color).

    Example:
        >>> import numpy as np
        >>> image = np.array([[[200, 10, 10]]], np.uint8)
        >>> RandomColor((0.0, 0.0))(image).tolist()  # gray: 0.299 R + 0.587 G + 0.114 B
        [[[67, 67, 67]]]
    """

    random = True

    def __init__(self, degrees: Sequence[float] = (0.1, 1.9)) -> None:
        self.degrees = _range(degrees, "RandomColor", "degrees")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return adjust_color(image, randomness.uniform(*self.degrees))


# ----- histogram transforms (Pillow's ImageOps) -----

def _ignore(ignore: object) -> Optional[list[int]]:
    if ignore is None:
        return None
    values = [ignore] if isinstance(ignore, int) else list(ignore)  # type: ignore[call-overload]
    if not all(isinstance(v, int) and 0 <= v <= 255 for v in values):
        raise ValueError(f"AutoContrast: ignore must be pixel values in [0, 255], got {ignore!r}")
    return values


def auto_contrast(image: np.ndarray, cutoff: float, ignore: Optional[list[int]]) -> np.ndarray:
    """AutoContrast's operation (Pillow's ImageOps.autocontrast, band by band).

    Example:
        >>> auto_contrast(np.array([[10, 20]], np.uint8), 0.0, None).tolist()
        [[0, 255]]
    """
    return _pillow_bands(image, "AutoContrast",
                         lambda pil: ImageOps.autocontrast(pil, cutoff, ignore))


class AutoContrast(ImageTransform):
    """Stretch each channel linearly so that its darkest pixel becomes 0 and its brightest
    255, after cutting `cutoff` percent of the pixels off each end of the histogram and
    leaving the values in `ignore` out of it (Pillow's ImageOps.autocontrast).

    Example:
        >>> import numpy as np
        >>> AutoContrast()(np.array([[50, 100, 150]], np.uint8)).tolist()
        [[0, 127, 255]]
    """

    def __init__(self, cutoff: float = 0.0,
                 ignore: Optional[Union[int, Sequence[int]]] = None) -> None:
        self.cutoff = _number(cutoff, "AutoContrast", "cutoff")
        if self.cutoff >= 50:
            raise ValueError(f"AutoContrast: cutoff must be in [0, 50), got {cutoff!r}")
        self.ignore = _ignore(ignore)

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return auto_contrast(image, self.cutoff, self.ignore)


class RandomAutoContrast(AutoContrast):
    """AutoContrast(`cutoff`, `ignore`) with probability `prob`.

    Example:
        >>> import numpy as np
        >>> RandomAutoContrast(prob=1.0)(np.array([[50, 100, 150]], np.uint8)).tolist()
        [[0, 127, 255]]
    """

    random = True

    def __init__(self, cutoff: float = 0.0, ignore: Optional[Union[int, Sequence[int]]] = None,
                 prob: float = 0.5) -> None:
        super().__init__(cutoff, ignore)
        self.prob = check_prob(prob, "RandomAutoContrast")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return super()._apply(image) if randomness.chance(self.prob) else image


def equalize(image: np.ndarray) -> np.ndarray:
    """Equalize's operation (Pillow's ImageOps.equalize, band by band).

    Example:
        >>> equalize(np.full((2, 2), 9, np.uint8)).tolist()  # one level: unchanged
        [[9, 9], [9, 9]]
    """
    return _pillow_bands(image, "Equalize", ImageOps.equalize)


class Equalize(ImageTransform):
    """Equalize each channel's histogram (Pillow's ImageOps.equalize: a lookup table from the
    cumulative histogram, the last level's count left out of the step).

    Example:
        >>> import numpy as np
        >>> image = np.repeat([0, 100, 200], [256, 255, 1]).astype(np.uint8)[None]
        >>> np.unique(Equalize()(image)).tolist()
        [0, 128, 255]
    """

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return equalize(image)


class RandomEqualize(ImageTransform):
    """Equalize with probability `prob`.

    Example:
        >>> import numpy as np
        >>> image = np.repeat([0, 100, 200], [256, 255, 1]).astype(np.uint8)[None]
        >>> np.unique(RandomEqualize(1.0)(image)).tolist()
        [0, 128, 255]
    """

    random = True

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = check_prob(prob, "RandomEqualize")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return equalize(image) if randomness.chance(self.prob) else image


class RandomInvert(ImageTransform):
    """255 - pixel with probability `prob` (uint8 images).

    Example:
        >>> import numpy as np
        >>> RandomInvert(1.0)(np.array([[0, 55]], np.uint8)).tolist()
        [[255, 200]]
    """

    random = True

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = check_prob(prob, "RandomInvert")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        _uint8(image, "RandomInvert")
        return 255 - image if randomness.chance(self.prob) else image


# ----- bit-level transforms (numpy) -----

def posterize(image: np.ndarray, bits: int) -> np.ndarray:
    """Keep the `bits` highest bits of each uint8 value.

    Example:
        >>> posterize(np.array([255], np.uint8), 1).tolist()
        [128]
    """
    return image & np.uint8((0xFF << (8 - bits)) & 0xFF)


def _bits(bits: object, api: str, low: int) -> int:
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) or not low <= bits <= 8:
        raise ValueError(f"{api}: bits must be an int in [{low}, 8], got {bits!r}")
    return int(bits)


class Posterize(ImageTransform):
    """Reduce each channel to its `bits` (0 to 8) highest bits.

    Example:
        >>> import numpy as np
        >>> Posterize(2)(np.array([[255, 100, 63]], np.uint8)).tolist()
        [[192, 64, 0]]
    """

    def __init__(self, bits: int) -> None:
        self.bits = _bits(bits, "Posterize", 0)

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return posterize(_uint8(image, "Posterize"), self.bits)


class RandomPosterize(ImageTransform):
    """Posterize to a number of bits drawn uniformly from `bits` = (min, max) in [1, 8]
    (an int n means exactly n).

    Example:
        >>> import numpy as np
        >>> RandomPosterize((2, 2))(np.array([[255, 100]], np.uint8)).tolist()
        [[192, 64]]
    """

    random = True

    def __init__(self, bits: Union[int, Sequence[int]] = (8, 8)) -> None:
        pair = (bits, bits) if isinstance(bits, int) else tuple(bits)
        if len(pair) != 2 or pair[0] > pair[1]:  # type: ignore[operator]
            raise ValueError(f"RandomPosterize: bits must be an int or a (min, max) pair, got "
                             f"{bits!r}")
        self.bits = (_bits(pair[0], "RandomPosterize", 1), _bits(pair[1], "RandomPosterize", 1))

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return posterize(_uint8(image, "RandomPosterize"), randomness.randint(*self.bits))


def solarize(image: np.ndarray, low: float, high: float) -> np.ndarray:
    """255 - pixel for pixels in [low, high]; with low == high, for pixels >= low.

    Example:
        >>> solarize(np.array([10, 50, 90], np.uint8), 40, 60).tolist()
        [10, 205, 90]
    """
    inside = image >= low if low == high else (image >= low) & (image <= high)
    return np.where(inside, 255 - image, image).astype(image.dtype)


def _threshold(threshold: object, api: str) -> tuple[float, float]:
    if isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
        threshold = (threshold, threshold)
    return _range(threshold, api, "threshold", 0.0, 255.0)


class Solarize(ImageTransform):
    """Invert (255 - pixel) the pixels inside `threshold` = (min, max); a single number t, or
    min == max, inverts every pixel >= t.

    Example:
        >>> import numpy as np
        >>> Solarize(128)(np.array([[10, 128, 200]], np.uint8)).tolist()
        [[10, 127, 55]]
    """

    def __init__(self, threshold: Union[Number, Sequence[Number]]) -> None:
        self.threshold = _threshold(threshold, "Solarize")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return solarize(image, *self.threshold)


class RandomSolarize(ImageTransform):
    """Solarize with a sub-range of `threshold` = (min, max): two ints drawn uniformly from
    it, sorted (MindSpore's rule).

    Example:
        >>> import numpy as np
        >>> RandomSolarize((100, 100))(np.array([[10, 128]], np.uint8)).tolist()
        [[10, 127]]
    """

    random = True

    def __init__(self, threshold: Sequence[Number] = (0, 255)) -> None:
        self.threshold = _range(threshold, "RandomSolarize", "threshold", 0.0, 255.0)

    def _apply(self, image: np.ndarray) -> np.ndarray:
        low, high = (int(t) for t in self.threshold)
        a, b = randomness.randint(low, high), randomness.randint(low, high)
        return solarize(image, min(a, b), max(a, b))


# ----- PCA lighting noise -----

# ImageNet's RGB covariance, as AlexNet (Krizhevsky et al., 2012) and MindSpore use it
_EIGVAL = np.array([55.46, 4.794, 1.148])
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                    [-0.5808, -0.0045, -0.8140],
                    [-0.5836, -0.6948, 0.4203]])


def lighting_shift(alphas: np.ndarray) -> np.ndarray:
    """The RGB offset AlexNet's lighting noise adds for the three drawn `alphas`.

    Example:
        >>> lighting_shift(np.zeros(3)).tolist()
        [0.0, 0.0, 0.0]
    """
    return _EIGVEC @ (alphas * _EIGVAL)


class RandomLighting(ImageTransform):
    """AlexNet's PCA lighting noise: add `eigvec @ (a * eigval)` to every RGB pixel, with
    a ~ N(0, alpha^2) drawn per image and ImageNet's eigenvalues and eigenvectors; uint8
    results are rounded and clipped.

    Example:
        >>> import numpy as np
        >>> RandomLighting(0.0)(np.full((2, 2, 3), 9, np.uint8)).tolist()[0][0]
        [9, 9, 9]
    """

    random = True

    def __init__(self, alpha: float = 0.05) -> None:
        self.alpha = _number(alpha, "RandomLighting", "alpha")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        if image.ndim != 3 or image.shape[2] != 3:
            raise RuntimeError(f"RandomLighting: expected an RGB image <H, W, 3>, got shape "
                               f"{image.shape}")
        if self.alpha == 0:
            return image
        shift = lighting_shift(randomness.generator().normal(0.0, self.alpha, 3))
        out = image.astype(np.float64) + shift
        if image.dtype == np.uint8:
            out = np.clip(np.rint(out), 0, 255)
        return out.astype(image.dtype)
