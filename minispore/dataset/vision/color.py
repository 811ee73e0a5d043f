"""Pixel-value transforms: Rescale, Normalize, color adjustments, Grayscale, Invert.

Rescale and Normalize are float32 arithmetic in numpy. Brightness, contrast and saturation
use Pillow's ImageEnhance (a blend with a black, mean-gray or grayscale image), hue a shift
of the hue channel in Pillow's HSV, as MindSpore's Python implementation does; they take
uint8 RGB images.
"""
import numpy as np
from PIL import Image, ImageEnhance

from .. import randomness
from ..transforms.base import check_prob
from .utils import ImageTransform, pixels

__all__ = ["Rescale", "Normalize", "AdjustBrightness", "AdjustContrast", "AdjustSaturation",
           "AdjustHue", "AdjustGamma", "RandomColorAdjust", "Grayscale", "RandomGrayscale",
           "Invert"]


class Rescale(ImageTransform):
    """`image * rescale + shift` as float32 (e.g. Rescale(1 / 255, 0) maps to [0, 1])."""

    keeps_layout = False

    def __init__(self, rescale, shift):
        self.rescale = float(rescale)
        self.shift = float(shift)

    def _apply(self, image):
        out = np.multiply(image, np.float32(self.rescale), dtype=np.float32)
        out += np.float32(self.shift)
        return out


class Normalize(ImageTransform):
    """`(image - mean) / std` per channel, float32; `mean` and `std` are in the image's scale
    (e.g. 0..255 for uint8), `is_hwc` says where the channel axis is.

    Example:
        >>> import numpy as np
        >>> Normalize([100.0], [50.0])(np.full((1, 1, 1), 200, np.uint8)).tolist()
        [[[2.0]]]
    """

    keeps_layout = False

    def __init__(self, mean, std, is_hwc=True):
        mean, std = np.asarray(mean, np.float32).ravel(), np.asarray(std, np.float32).ravel()
        if mean.size == 0 or mean.size != std.size or (std <= 0).any():
            raise ValueError(f"Normalize: mean and std need one value per channel and std > 0, "
                             f"got mean={mean.tolist()}, std={std.tolist()}")
        self.mean, self.std, self.is_hwc = mean, std, bool(is_hwc)
        self._scale = (1.0 / std.astype(np.float64)).astype(np.float32)
        self._full = (None, None, None)  # (shape, mean, scale) spread over the last shape seen

    def _apply(self, image):
        channels = 1 if image.ndim == 2 else image.shape[2 if self.is_hwc else 0]
        if self.mean.size not in (1, channels):
            raise RuntimeError(f"Normalize: {self.mean.size} mean/std values for an image with "
                               f"{channels} channels (shape {image.shape})")
        shape, mean, scale = self._full
        if shape != image.shape:
            # whole-image operands: numpy then runs one long loop instead of one loop of C
            # elements per pixel, ~20x faster for RGB
            axes = (-1,) if self.is_hwc or image.ndim == 2 else (-1, 1, 1)
            mean = np.ascontiguousarray(np.broadcast_to(self.mean.reshape(axes), image.shape))
            scale = np.ascontiguousarray(np.broadcast_to(self._scale.reshape(axes), image.shape))
            self._full = (image.shape, mean, scale)
        out = image.astype(np.float32)
        out -= mean
        out *= scale
        return out


def _rgb_pil(image, api):
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise RuntimeError(f"{api}: expected a uint8 RGB image <H, W, 3>, got {image.dtype} of "
                           f"shape {image.shape}")
    return Image.fromarray(image, "RGB")


def adjust_brightness(image, factor):
    return pixels(ImageEnhance.Brightness(_rgb_pil(image, "AdjustBrightness")).enhance(factor))


def adjust_contrast(image, factor):
    return pixels(ImageEnhance.Contrast(_rgb_pil(image, "AdjustContrast")).enhance(factor))


def adjust_saturation(image, factor):
    return pixels(ImageEnhance.Color(_rgb_pil(image, "AdjustSaturation")).enhance(factor))


def adjust_hue(image, factor):
    """Rotate the hue by `factor` of a turn (in [-0.5, 0.5]) in Pillow's 8-bit HSV."""
    if factor == 0:
        return image  # the 8-bit HSV round trip alone would move pixels by a few levels
    hue, saturation, value = _rgb_pil(image, "AdjustHue").convert("HSV").split()
    shifted = (np.asarray(hue, np.int32) + int(round(factor * 255))) % 256
    hsv = Image.merge("HSV", (Image.fromarray(shifted.astype(np.uint8), "L"), saturation, value))
    return pixels(hsv.convert("RGB"))


def _checked_factor(factor, api, low=0.0, high=None):
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or factor < low or (
            high is not None and factor > high):
        bounds = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{api}: the factor must be a number {bounds}, got {factor!r}")
    return float(factor)


class _Adjustment(ImageTransform):
    """A color adjustment by a fixed factor: `_adjust(image, factor)` of the subclass."""

    def _apply(self, image):
        return self._adjust(image, self._factor)


class AdjustBrightness(_Adjustment):
    """Scale brightness by `brightness_factor` (0: black, 1: unchanged)."""

    _adjust = staticmethod(adjust_brightness)

    def __init__(self, brightness_factor):
        self.brightness_factor = self._factor = _checked_factor(brightness_factor,
                                                                "AdjustBrightness")


class AdjustContrast(_Adjustment):
    """Scale contrast by `contrast_factor` (0: solid mean gray, 1: unchanged)."""

    _adjust = staticmethod(adjust_contrast)

    def __init__(self, contrast_factor):
        self.contrast_factor = self._factor = _checked_factor(contrast_factor, "AdjustContrast")


class AdjustSaturation(_Adjustment):
    """Scale saturation by `saturation_factor` (0: grayscale, 1: unchanged)."""

    _adjust = staticmethod(adjust_saturation)

    def __init__(self, saturation_factor):
        self.saturation_factor = self._factor = _checked_factor(saturation_factor,
                                                                "AdjustSaturation")


class AdjustHue(_Adjustment):
    """Shift the hue by `hue_factor` in [-0.5, 0.5] of a full turn."""

    _adjust = staticmethod(adjust_hue)

    def __init__(self, hue_factor):
        self.hue_factor = self._factor = _checked_factor(hue_factor, "AdjustHue", -0.5, 0.5)


class AdjustGamma(ImageTransform):
    """`255 * gain * (image / 255) ** gamma` for uint8 images (`gain * image ** gamma` for
    float images), rounded back to uint8."""

    def __init__(self, gamma, gain=1.0):
        self.gamma = _checked_factor(gamma, "AdjustGamma")
        self.gain = float(gain)

    def _apply(self, image):
        if image.dtype != np.uint8:
            return (self.gain * np.power(image, self.gamma)).astype(image.dtype)
        table = 255.0 * self.gain * (np.arange(256) / 255.0) ** self.gamma
        return np.clip(np.rint(table), 0, 255).astype(np.uint8)[image]


def _factor_range(value, api, center=1.0, bound=(0.0, None)):
    """[min, max] from a number d ([center - d, center + d], clipped at 0) or a pair."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"{api}: must be non-negative, got {value}")
        low, high = center - value, center + value
        low = max(low, 0.0) if center == 1.0 else low
    else:
        low, high = value
    low, high = float(low), float(high)
    if low > high or low < bound[0] or (bound[1] is not None and high > bound[1]):
        raise ValueError(f"{api}: the range must be (min, max) within {bound}, got {value!r}")
    return low, high


class RandomColorAdjust(ImageTransform):
    """Brightness, contrast, saturation and hue factors drawn uniformly from their ranges
    (a number d means [max(0, 1 - d), 1 + d], [-d, d] for hue), applied in a random order
    (torchvision's ColorJitter); a range of width 0 around the identity is skipped."""

    random = True

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        self.brightness = _factor_range(brightness, "RandomColorAdjust brightness")
        self.contrast = _factor_range(contrast, "RandomColorAdjust contrast")
        self.saturation = _factor_range(saturation, "RandomColorAdjust saturation")
        self.hue = _factor_range(hue, "RandomColorAdjust hue", 0.0, (-0.5, 0.5))

    def _apply(self, image):
        steps = [(adjust_brightness, self.brightness, 1.0), (adjust_contrast, self.contrast, 1.0),
                 (adjust_saturation, self.saturation, 1.0), (adjust_hue, self.hue, 0.0)]
        for i in randomness.generator().permutation(len(steps)):
            adjust, (low, high), identity = steps[i]
            if low == high == identity:
                continue
            image = adjust(image, randomness.uniform(low, high))
        return image


def _gray(image, channels, api):
    if image.ndim == 2 or image.shape[2] == 1:
        gray = image.reshape(image.shape[:2])
    else:
        gray = pixels(_rgb_pil(image, api).convert("L"))  # ITU-R 601-2 luma, Pillow's
    return gray if channels == 1 else np.repeat(gray[..., None], 3, axis=2)


class Grayscale(ImageTransform):
    """Convert an RGB image to grayscale (L = 0.299 R + 0.587 G + 0.114 B, Pillow's
    rounding): (H, W) for `num_output_channels` 1, (H, W, 3) for 3."""

    def __init__(self, num_output_channels=1):
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, got "
                             f"{num_output_channels!r}")
        self.num_output_channels = num_output_channels

    def _apply(self, image):
        return _gray(image, self.num_output_channels, "Grayscale")


class RandomGrayscale(ImageTransform):
    """Grayscale with probability `prob`, keeping the number of channels."""

    random = True

    def __init__(self, prob=0.1):
        self.prob = check_prob(prob, "RandomGrayscale")

    def _apply(self, image):
        if not randomness.chance(self.prob):
            return image
        return _gray(image, 1 if image.ndim == 2 or image.shape[2] == 1 else 3,
                     "RandomGrayscale").reshape(image.shape)


class Invert(ImageTransform):
    """255 - pixel for uint8 images."""

    def _apply(self, image):
        if image.dtype != np.uint8:
            raise RuntimeError(f"Invert: expected a uint8 image, got {image.dtype}")
        return 255 - image
