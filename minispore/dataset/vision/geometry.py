"""Geometric image transforms: crops, flips, padding, resizing, rotation, HWC2CHW.

Crops, flips and padding are numpy indexing (exact); resizing and rotation resample with
Pillow (`utils.pil_apply`). Random choices come from `randomness`, so they are reproducible
per sample in pipelines.
"""
import math

import numpy as np
from PIL import Image

from .. import randomness
from ..transforms.base import check_prob
from .utils import (
    PIL_FILTERS,
    Border,
    ImageTransform,
    Inter,
    channel_fill,
    fill_tuple,
    pil_apply,
    size_pair,
)

__all__ = ["Crop", "CenterCrop", "RandomCrop", "Resize", "ResizedCrop", "RandomResizedCrop",
           "HorizontalFlip", "VerticalFlip", "RandomHorizontalFlip", "RandomVerticalFlip",
           "Pad", "Rotate", "RandomRotation", "HWC2CHW"]


def _crop(image, top, left, height, width, api):
    h, w = image.shape[:2]
    if top < 0 or left < 0 or top + height > h or left + width > w:
        raise ValueError(f"{api}: a {height}x{width} crop at (top={top}, left={left}) does not "
                         f"fit in an image of {h}x{w}")
    return image[top:top + height, left:left + width]


def _padding(padding, api):
    """(left, top, right, bottom) from an int, a pair (left/top, right/bottom) or a 4-tuple."""
    if isinstance(padding, (int, np.integer)) and not isinstance(padding, bool):
        padding = (padding,) * 4
    elif isinstance(padding, (list, tuple)) and len(padding) == 2:
        padding = (padding[0], padding[0], padding[1], padding[1])
    if not (isinstance(padding, (list, tuple)) and len(padding) == 4 and all(
            isinstance(p, (int, np.integer)) and p >= 0 for p in padding)):
        raise ValueError(f"{api}: padding must be a non-negative int, or 2 or 4 of them, "
                         f"got {padding!r}")
    return tuple(int(p) for p in padding)


def _pad(image, left, top, right, bottom, fill, mode):
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (image.ndim - 2)
    if mode is not Border.CONSTANT:
        return np.pad(image, widths, mode=mode.value)
    if image.ndim == 2:
        return np.pad(image, widths, constant_values=fill[0])
    planes = [np.pad(image[..., c], widths[:2], constant_values=f)
              for c, f in enumerate(channel_fill(fill, image.shape[2]))]
    return np.stack(planes, axis=-1)


class Crop(ImageTransform):
    """The `size` crop whose top-left corner is `coordinates` = (top, left)."""

    def __init__(self, coordinates, size):
        self.coordinates = tuple(int(c) for c in coordinates)
        self.size = size_pair(size, "Crop")

    def _apply(self, image):
        return _crop(image, *self.coordinates, *self.size, "Crop")


class CenterCrop(ImageTransform):
    """The central `size` crop (top = (H - h) // 2); a smaller image is padded with 0."""

    def __init__(self, size):
        self.size = size_pair(size, "CenterCrop")

    def _apply(self, image):
        height, width = self.size
        h, w = image.shape[:2]
        if h < height or w < width:  # pad the shortfall evenly, the extra pixel after
            dh, dw = max(height - h, 0), max(width - w, 0)
            image = _pad(image, dw // 2, dh // 2, dw - dw // 2, dh - dh // 2, (0,),
                         Border.CONSTANT)
            h, w = image.shape[:2]
        return image[(h - height) // 2:(h - height) // 2 + height,
                     (w - width) // 2:(w - width) // 2 + width]


class RandomCrop(ImageTransform):
    """A `size` crop at a uniformly random position, after optional padding.

    Args:
        size: (height, width) or an int.
        padding: pixels added first: an int, (left/top, right/bottom) or (left, top, right,
            bottom).
        pad_if_needed: pad a smaller image by the shortfall on both sides of that axis.
        fill_value: the constant padding's color (int or R, G, B).
        padding_mode: a Border mode.
    """

    random = True

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        self.size = size_pair(size, "RandomCrop")
        self.padding = _padding(padding or 0, "RandomCrop")
        self.pad_if_needed = bool(pad_if_needed)
        self.fill_value = fill_tuple(fill_value, "RandomCrop")
        self.padding_mode = Border(padding_mode)

    def _apply(self, image):
        image, _, (top, left) = self._window(image)
        return image[top:top + self.size[0], left:left + self.size[1]]

    def _window(self, image):
        """(the padded image, its (left, top) padding, the crop's (top, left) in it)."""
        height, width = self.size
        left, top, right, bottom = self.padding
        h, w = image.shape[0] + top + bottom, image.shape[1] + left + right
        if self.pad_if_needed:
            extra_h, extra_w = max(height - h, 0), max(width - w, 0)
            top, bottom, left, right = top + extra_h, bottom + extra_h, left + extra_w, \
                right + extra_w
        if left or top or right or bottom:
            image = _pad(image, left, top, right, bottom, self.fill_value, self.padding_mode)
        h, w = image.shape[:2]
        if h < height or w < width:
            raise ValueError(f"{type(self).__name__}: the image ({h}x{w} after padding) is "
                             f"smaller than the crop {height}x{width}; use pad_if_needed=True")
        return image, (left, top), (randomness.randint(0, h - height),
                                    randomness.randint(0, w - width))


def _resize(image, height, width, interpolation):
    resample = PIL_FILTERS[Inter(interpolation)]
    return pil_apply(image, lambda pil, fill: pil.resize((width, height), resample))


def _resized_shape(h, w, size):
    """Resize's output shape: (height, width), or the smaller edge set to an int `size`."""
    if isinstance(size, (int, np.integer)):
        if size <= 0:
            raise ValueError(f"Resize: size must be positive, got {size}")
        return (size, int(size * w / h)) if h <= w else (int(size * h / w), size)
    return size_pair(size, "Resize")


class Resize(ImageTransform):
    """Resize to `size` = (height, width), or scale so that the smaller edge is an int `size`
    (Pillow's resampling: a downscale averages over the source area, as Pillow does)."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        _resized_shape(1, 1, size)  # check
        self.size = size
        self.interpolation = Inter(interpolation)

    def _apply(self, image):
        height, width = _resized_shape(*image.shape[:2], self.size)
        return _resize(image, height, width, self.interpolation)


class ResizedCrop(ImageTransform):
    """Crop (top, left, height, width), then resize to `size`."""

    def __init__(self, top, left, height, width, size, interpolation=Inter.BILINEAR):
        self.box = (int(top), int(left), int(height), int(width))
        self.size = size_pair(size, "ResizedCrop")
        self.interpolation = Inter(interpolation)

    def _apply(self, image):
        return _resize(_crop(image, *self.box, "ResizedCrop"), *self.size, self.interpolation)


class RandomResizedCrop(ImageTransform):
    """A crop of random area (a `scale` fraction of the image) and aspect ratio (`ratio`,
    drawn log-uniformly), resized to `size`; after `max_attempts` crops that do not fit, the
    central crop with the ratio clamped to `ratio` (torchvision's and MindSpore's rule)."""

    random = True

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        self.size = size_pair(size, "RandomResizedCrop")
        if not (0 <= scale[0] <= scale[1]) or not (0 < ratio[0] <= ratio[1]):
            raise ValueError(f"RandomResizedCrop: scale and ratio must be increasing (min, "
                             f"max) pairs of non-negative numbers, got {scale}, {ratio}")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        self.interpolation = Inter(interpolation)
        self.max_attempts = int(max_attempts)

    def _apply(self, image):
        top, left, height, width = self._box(*image.shape[:2])
        return _resize(image[top:top + height, left:left + width], *self.size,
                       self.interpolation)

    def _box(self, h, w):
        area = h * w
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * randomness.uniform(*self.scale)
            aspect = math.exp(randomness.uniform(*log_ratio))
            width = int(round(math.sqrt(target * aspect)))
            height = int(round(math.sqrt(target / aspect)))
            if 0 < width <= w and 0 < height <= h:
                return randomness.randint(0, h - height), randomness.randint(0, w - width), \
                    height, width
        aspect = w / h
        if aspect < self.ratio[0]:
            width, height = w, int(round(w / self.ratio[0]))
        elif aspect > self.ratio[1]:
            height, width = h, int(round(h * self.ratio[1]))
        else:
            height, width = h, w
        return (h - height) // 2, (w - width) // 2, height, width


class HorizontalFlip(ImageTransform):
    """Mirror left-right."""

    def _apply(self, image):
        return image[:, ::-1]


class VerticalFlip(ImageTransform):
    """Mirror top-bottom."""

    def _apply(self, image):
        return image[::-1]


class RandomHorizontalFlip(ImageTransform):
    """Mirror left-right with probability `prob`."""

    random = True

    def __init__(self, prob=0.5):
        self.prob = check_prob(prob, "RandomHorizontalFlip")

    def _apply(self, image):
        return image[:, ::-1] if randomness.chance(self.prob) else image


class RandomVerticalFlip(ImageTransform):
    """Mirror top-bottom with probability `prob`."""

    random = True

    def __init__(self, prob=0.5):
        self.prob = check_prob(prob, "RandomVerticalFlip")

    def _apply(self, image):
        return image[::-1] if randomness.chance(self.prob) else image


class Pad(ImageTransform):
    """Pad the borders: `padding` an int, (left/top, right/bottom) or (left, top, right,
    bottom); `padding_mode` a Border mode; `fill_value` the constant's color."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _padding(padding, "Pad")
        self.fill_value = fill_tuple(fill_value, "Pad")
        self.padding_mode = Border(padding_mode)

    def _apply(self, image):
        return _pad(image, *self.padding, self.fill_value, self.padding_mode)


class Rotate(ImageTransform):
    """Rotate by `degrees` counter-clockwise about `center` (x, y; default the image center)
    with Pillow; `expand` grows the output to hold the whole rotated image."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        self.degrees = float(degrees)
        self._options(resample, expand, center, fill_value)

    def _options(self, resample, expand, center, fill_value):
        self.resample = Inter(resample)
        self.expand = bool(expand)
        self.center = None if center is None else tuple(center)
        self.fill_value = fill_tuple(fill_value, type(self).__name__)

    def _angle(self):
        return self.degrees

    def _apply(self, image):
        resample = PIL_FILTERS[self.resample]
        if resample not in (Image.Resampling.NEAREST, Image.Resampling.BILINEAR,
                            Image.Resampling.BICUBIC):
            resample = Image.Resampling.BILINEAR  # Pillow rotates with these three only
        angle = self._angle()
        return pil_apply(image, lambda pil, fill: pil.rotate(angle, resample, self.expand,
                                                             self.center, fillcolor=fill),
                         self.fill_value)


class RandomRotation(Rotate):
    """Rotate by an angle drawn uniformly from `degrees` ((-d, d) for a number d, or (min,
    max)); other arguments as Rotate."""

    random = True

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        if isinstance(degrees, (int, float)):
            if degrees < 0:
                raise ValueError(f"RandomRotation: degrees must be non-negative, got {degrees}")
            degrees = (-degrees, degrees)
        if len(degrees) != 2 or degrees[0] > degrees[1]:
            raise ValueError(f"RandomRotation: degrees must be a number or a (min, max) pair, "
                             f"got {degrees!r}")
        self.degrees = (float(degrees[0]), float(degrees[1]))
        self._options(resample, expand, center, fill_value)

    def _angle(self):
        return randomness.uniform(*self.degrees)


class HWC2CHW(ImageTransform):
    """(H, W, C) -> (C, H, W); an (H, W) image stays as it is."""

    keeps_layout = False

    def _apply(self, image):
        return image.transpose(2, 0, 1) if image.ndim == 3 else image
