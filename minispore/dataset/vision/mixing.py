"""Erasing and mixing augmentations: CutOut, RandomErasing (per image) and MixUp,
MixUpBatch, CutMixBatch (on batches of images with one-hot labels)."""
import math

import numpy as np

from .. import randomness
from ..transforms.base import TensorOperation, check_prob
from .utils import ImageBatchFormat, ImageTransform

__all__ = ["CutOut", "RandomErasing", "MixUp", "MixUpBatch", "CutMixBatch"]


def _positive_int(value, api, arg):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{api}: {arg} must be an int >= 1, got {value!r}")
    return value


class CutOut(ImageTransform):
    """Zero `num_patches` squares of side `length` at random positions inside the image
    (HWC, or CHW with is_hwc=False)."""

    random = True

    def __init__(self, length, num_patches=1, is_hwc=True):
        self.length = _positive_int(length, "CutOut", "length")
        self.num_patches = _positive_int(num_patches, "CutOut", "num_patches")
        self.is_hwc = bool(is_hwc)

    def _apply(self, image):
        out = image.copy()
        rows, cols = (0, 1) if self.is_hwc or image.ndim == 2 else (1, 2)
        h, w = image.shape[rows], image.shape[cols]
        for _ in range(self.num_patches):
            top = randomness.randint(0, max(h - self.length, 0))
            left = randomness.randint(0, max(w - self.length, 0))
            index = [slice(None)] * image.ndim
            index[rows] = slice(top, top + self.length)
            index[cols] = slice(left, left + self.length)
            out[tuple(index)] = 0
        return out


class RandomErasing(TensorOperation):
    """With probability `prob`, erase a random rectangle of a CHW image (after ToTensor): an
    area fraction drawn from `scale`, an aspect ratio log-uniform in `ratio`; filled with
    `value` (a number, one per channel, or 'random' for standard normal noise). After
    `max_attempts` rectangles that do not fit, the image is returned unchanged."""

    random = True

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 max_attempts=10):
        self.prob = check_prob(prob, "RandomErasing")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        if not (0 <= self.scale[0] <= self.scale[1]) or not (0 < self.ratio[0] <= self.ratio[1]):
            raise ValueError(f"RandomErasing: scale and ratio must be increasing (min, max) "
                             f"pairs, got {scale}, {ratio}")
        if isinstance(value, str) and value != "random":
            raise ValueError(f"RandomErasing: value must be a number, a tuple or 'random', "
                             f"got {value!r}")
        self.value = value
        self.inplace = bool(inplace)
        self.max_attempts = _positive_int(max_attempts, "RandomErasing", "max_attempts")

    def __call__(self, img):
        image = np.asarray(img)
        if image.ndim != 3:
            raise RuntimeError(f"RandomErasing: expected a CHW image, got shape {image.shape}")
        if not randomness.chance(self.prob):
            return image
        channels, h, w = image.shape
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            area = h * w * randomness.uniform(*self.scale)
            aspect = math.exp(randomness.uniform(*log_ratio))
            eh, ew = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if 0 < eh < h and 0 < ew < w:
                top, left = randomness.randint(0, h - eh), randomness.randint(0, w - ew)
                out = image if self.inplace else image.copy()
                out[:, top:top + eh, left:left + ew] = self._fill(channels, eh, ew)
                return out
        return image

    def _fill(self, channels, height, width):
        if self.value == "random":
            return randomness.generator().standard_normal((channels, height, width))
        return np.asarray(self.value, dtype=np.float64).reshape(-1, 1, 1)


def _check_batch(images, labels, api):
    images, labels = np.asarray(images), np.asarray(labels)
    if images.ndim != 4:
        raise RuntimeError(f"{api}: expected a batch of images <N, H, W, C> or <N, C, H, W>, "
                           f"got shape {images.shape}; batch the dataset first")
    if labels.ndim not in (2, 3) or labels.shape[0] != images.shape[0]:
        raise RuntimeError(f"{api}: expected one-hot labels <N, num_classes> for the "
                           f"{images.shape[0]} images, got shape {labels.shape}; apply "
                           f"transforms.OneHot before batching")
    return images, labels.astype(np.float32)


def _mixed(images, weights, others):
    """weights * images + (1 - weights) * others, back in the images' dtype."""
    mixed = weights * images.astype(np.float32) + (1 - weights) * others.astype(np.float32)
    if images.dtype.kind in "iu":
        info = np.iinfo(images.dtype)
        mixed = np.clip(mixed, info.min, info.max)
    return mixed.astype(images.dtype)


class MixUpBatch(TensorOperation):
    """Mix a batch with a shuffled copy of itself: lambda ~ Beta(alpha, alpha) for the
    batch; images and one-hot labels (float32) become lambda * own + (1 - lambda) * other."""

    random = True

    def __init__(self, alpha=1.0):
        if not alpha > 0:
            raise ValueError(f"MixUpBatch: alpha must be positive, got {alpha!r}")
        self.alpha = float(alpha)

    def __call__(self, images, labels):
        images, labels = _check_batch(images, labels, "MixUpBatch")
        rng = randomness.generator()
        order = rng.permutation(len(images))
        lam = np.float32(rng.beta(self.alpha, self.alpha))
        return _mixed(images, lam, images[order]), lam * labels + (1 - lam) * labels[order]


class MixUp(TensorOperation):
    """MindSpore's Python MixUp on a batch of `batch_size`: one lambda ~ Beta(alpha, alpha)
    per image; with `is_single`, image i mixes with image i + 1 (the last with the first),
    else with the previous batch's output."""

    random = True

    def __init__(self, batch_size, alpha, is_single=True):
        self.batch_size = _positive_int(batch_size, "MixUp", "batch_size")
        if not alpha > 0:
            raise ValueError(f"MixUp: alpha must be positive, got {alpha!r}")
        self.alpha = float(alpha)
        self.is_single = bool(is_single)
        self._previous = None

    def __call__(self, images, labels):
        images, labels = _check_batch(images, labels, "MixUp")
        n = len(images)
        lam = randomness.generator().beta(self.alpha, self.alpha, n).astype(np.float32)
        if self.is_single or self._previous is None or len(self._previous[0]) != n:
            others = (np.roll(images, -1, axis=0), np.roll(labels, -1, axis=0))
        else:
            others = self._previous
        out = (_mixed(images, lam.reshape(-1, *[1] * (images.ndim - 1)), others[0]),
               lam[:, None] * labels + (1 - lam[:, None]) * others[1])
        self._previous = out
        return out


class CutMixBatch(TensorOperation):
    """For each image, with probability `prob`: paste a box from another image of the batch
    (lambda ~ Beta(alpha, alpha); box sides sqrt(1 - lambda) of the image's, centered at a
    random pixel, clipped) and mix the one-hot labels by the pasted area."""

    random = True

    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        self.image_batch_format = ImageBatchFormat(image_batch_format)
        if not alpha > 0:
            raise ValueError(f"CutMixBatch: alpha must be positive, got {alpha!r}")
        self.alpha = float(alpha)
        self.prob = check_prob(prob, "CutMixBatch")

    def __call__(self, images, labels):
        images, labels = _check_batch(images, labels, "CutMixBatch")
        nhwc = self.image_batch_format is ImageBatchFormat.NHWC
        h, w = images.shape[1:3] if nhwc else images.shape[2:4]
        out_images, out_labels = images.copy(), labels.copy()
        rng = randomness.generator()
        for i in range(len(images)):
            if not rng.random() < self.prob:
                continue
            other = int(rng.integers(len(images)))
            cut = math.sqrt(1 - rng.beta(self.alpha, self.alpha))
            cy, cx = int(rng.integers(h)), int(rng.integers(w))
            half_h, half_w = int(h * cut) // 2, int(w * cut) // 2
            top, bottom = max(cy - half_h, 0), min(cy + half_h, h)
            left, right = max(cx - half_w, 0), min(cx + half_w, w)
            box = (slice(top, bottom), slice(left, right))
            if nhwc:
                out_images[i][box] = images[other][box]
            else:
                out_images[i][(slice(None),) + box] = images[other][(slice(None),) + box]
            kept = 1 - (bottom - top) * (right - left) / (h * w)
            out_labels[i] = kept * labels[i] + (1 - kept) * labels[other]
        return out_images, out_labels
