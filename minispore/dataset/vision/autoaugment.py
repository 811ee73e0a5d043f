"""AutoAugment (Cubuk et al., 2018, arXiv:1805.09501): per image, one of 25 learned
sub-policies, each two operations applied with their own probability and magnitude; the
ImageNet, CIFAR-10 and SVHN policies and the magnitude scales are the paper's (as MindSpore
and torchvision use them). The operations run in Pillow on RGB uint8 images.
"""

import numpy as np
from PIL import Image, ImageEnhance, ImageOps

from .. import randomness
from .utils import PIL_FILTERS, AutoAugmentPolicy, ImageTransform, Inter, fill_tuple, pixels

__all__ = ["AutoAugment"]

# (operation, probability, magnitude bin or None) pairs; one row per sub-policy
_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
        (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)),
        (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
    ],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ],
}

_BINS = 10
# operation -> (magnitude of each bin, whether a random sign applies)
_MAGNITUDES = {
    "ShearX": (np.linspace(0.0, 0.3, _BINS), True),
    "ShearY": (np.linspace(0.0, 0.3, _BINS), True),
    "TranslateX": (np.linspace(0.0, 150.0 / 331.0, _BINS), True),  # of the width
    "TranslateY": (np.linspace(0.0, 150.0 / 331.0, _BINS), True),  # of the height
    "Rotate": (np.linspace(0.0, 30.0, _BINS), True),
    "Brightness": (np.linspace(0.0, 0.9, _BINS), True),
    "Color": (np.linspace(0.0, 0.9, _BINS), True),
    "Contrast": (np.linspace(0.0, 0.9, _BINS), True),
    "Sharpness": (np.linspace(0.0, 0.9, _BINS), True),
    "Posterize": (np.array([8, 8, 7, 7, 6, 6, 5, 5, 4, 4]), False),  # bits kept
    "Solarize": (np.linspace(256.0, 0.0, _BINS), False),  # threshold
}


def _affine(image, matrix, resample, fill):
    """Pillow's affine warp: output pixel (x, y) samples input (a x + b y + c, d x + e y + f)."""
    return image.transform(image.size, Image.Transform.AFFINE, matrix, resample, fillcolor=fill)


# each: (PIL image, signed magnitude, resample filter, fill color) -> PIL image; the shears
# are about the image center
_OPERATIONS = {
    "ShearX": lambda im, m, r, f: _affine(im, (1, m, -m * im.size[1] / 2, 0, 1, 0), r, f),
    "ShearY": lambda im, m, r, f: _affine(im, (1, 0, 0, m, 1, -m * im.size[0] / 2), r, f),
    "TranslateX": lambda im, m, r, f: _affine(im, (1, 0, -int(im.size[0] * m), 0, 1, 0), r, f),
    "TranslateY": lambda im, m, r, f: _affine(im, (1, 0, 0, 0, 1, -int(im.size[1] * m)), r, f),
    "Rotate": lambda im, m, r, f: im.rotate(m, r, fillcolor=f),
    "Brightness": lambda im, m, r, f: ImageEnhance.Brightness(im).enhance(1 + m),
    "Color": lambda im, m, r, f: ImageEnhance.Color(im).enhance(1 + m),
    "Contrast": lambda im, m, r, f: ImageEnhance.Contrast(im).enhance(1 + m),
    "Sharpness": lambda im, m, r, f: ImageEnhance.Sharpness(im).enhance(1 + m),
    "Posterize": lambda im, m, r, f: ImageOps.posterize(im, int(m)),
    "Solarize": lambda im, m, r, f: ImageOps.solarize(im, m),
    "AutoContrast": lambda im, m, r, f: ImageOps.autocontrast(im),
    "Equalize": lambda im, m, r, f: ImageOps.equalize(im),
    "Invert": lambda im, m, r, f: ImageOps.invert(im),
}


class AutoAugment(ImageTransform):
    """Apply one randomly chosen sub-policy of `policy` (AutoAugmentPolicy.IMAGENET,
    CIFAR10 or SVHN) to an RGB uint8 image; geometric operations resample with
    `interpolation` and fill uncovered pixels with `fill_value` (an int or R, G, B).

    Example:
        >>> import numpy as np
        >>> image = np.zeros((8, 8, 3), np.uint8)
        >>> AutoAugment(AutoAugmentPolicy.CIFAR10)(image).shape
        (8, 8, 3)
    """

    random = True

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST,
                 fill_value=0):
        self.policy = AutoAugmentPolicy(policy)
        self.interpolation = Inter(interpolation)
        self.fill_value = tuple(int(v) for v in fill_tuple(fill_value, "AutoAugment"))

    def _apply(self, image):
        if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            raise RuntimeError(f"AutoAugment: expected an RGB uint8 image <H, W, 3>, got "
                               f"{image.dtype} of shape {image.shape}")
        rng = randomness.generator()
        policies = _POLICIES[self.policy]
        pil = Image.fromarray(image, "RGB")
        resample = PIL_FILTERS[self.interpolation]
        if resample not in (Image.Resampling.NEAREST, Image.Resampling.BILINEAR,
                            Image.Resampling.BICUBIC):
            resample = Image.Resampling.BILINEAR  # Pillow warps with these three only
        for name, prob, level in policies[int(rng.integers(len(policies)))]:
            if rng.random() > prob:
                continue
            magnitude = 0.0
            if name in _MAGNITUDES:
                values, signed = _MAGNITUDES[name]
                magnitude = float(values[level])
                if signed and rng.random() < 0.5:
                    magnitude = -magnitude
            pil = _OPERATIONS[name](pil, magnitude, resample, self.fill_value)
        return pixels(pil)
