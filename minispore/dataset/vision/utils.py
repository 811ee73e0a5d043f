"""What the vision transforms share: MindSpore's enums (Inter, Border, ImageBatchFormat,
AutoAugmentPolicy), the image base class, argument checks, and the bridge to Pillow.

Images are numpy arrays in HWC layout (H x W, or H x W x C), uint8 as decoded, as in
MindSpore; PIL images are accepted too and come back as PIL images where the result is
still uint8. Resampling (resize, rotation, affine warps) runs in Pillow.
"""
from enum import Enum, IntEnum

import numpy as np
from PIL import Image

from ..transforms.base import TensorOperation

__all__ = ["Inter", "Border", "ImageBatchFormat", "AutoAugmentPolicy", "ImageTransform",
           "size_pair", "fill_tuple", "pil_apply", "is_pil", "pixels"]


class Inter(IntEnum):
    """Interpolation modes (Pillow's filters underneath)."""
    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = LINEAR = 2
    BICUBIC = CUBIC = 3
    AREA = 4
    PILCUBIC = 5


PIL_FILTERS = {Inter.NEAREST: Image.Resampling.NEAREST, Inter.ANTIALIAS: Image.Resampling.LANCZOS,
               Inter.BILINEAR: Image.Resampling.BILINEAR, Inter.BICUBIC: Image.Resampling.BICUBIC,
               Inter.AREA: Image.Resampling.BOX, Inter.PILCUBIC: Image.Resampling.BICUBIC}


class Border(str, Enum):
    """Padding modes; the values are numpy.pad's mode names."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ImageBatchFormat(IntEnum):
    NHWC = 0
    NCHW = 1


class AutoAugmentPolicy(IntEnum):
    IMAGENET = 0
    CIFAR10 = 1
    SVHN = 2


def is_pil(value):
    return isinstance(value, Image.Image)


def pixels(pil_image):
    """A PIL image's pixels as a writable numpy array (np.asarray's would be read-only)."""
    return np.array(pil_image)


class ImageTransform(TensorOperation):
    """A transform of one image: subclasses implement `_apply(array)` on an HWC array.

    A PIL image in gives a PIL image out when the transform keeps the HWC layout
    (`keeps_layout`) and the result is uint8; otherwise a numpy array.
    """

    keeps_layout = True

    def __call__(self, img):
        was_pil = is_pil(img)
        array = np.asarray(img)
        if array.ndim not in (2, 3):
            raise RuntimeError(f"{type(self).__name__}: expected an image of shape <H, W> or "
                               f"<H, W, C>, got shape {array.shape}")
        out = self._apply(array)
        if was_pil and self.keeps_layout and out.dtype == np.uint8:
            return Image.fromarray(out[..., 0] if out.ndim == 3 and out.shape[2] == 1 else out)
        return out

    def _apply(self, image):
        raise NotImplementedError


def size_pair(size, api, arg="size"):
    """(height, width) from an int or a pair of positive ints."""
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        size = (size, size)
    if not (isinstance(size, (list, tuple)) and len(size) == 2 and all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s > 0 for s in size)):
        raise ValueError(f"{api}: {arg} must be a positive int or a (height, width) pair of "
                         f"them, got {size!r}")
    return int(size[0]), int(size[1])


def fill_tuple(fill_value, api):
    """A fill color: an int for every channel, or one per channel (R, G, B)."""
    values = (fill_value,) * 3 if isinstance(fill_value, (int, float)) else tuple(fill_value)
    if not values or not all(isinstance(v, (int, float)) and 0 <= v <= 255 for v in values):
        raise ValueError(f"{api}: fill_value must be in [0, 255] (an int or an R, G, B tuple), "
                         f"got {fill_value!r}")
    return values


def channel_fill(fill, channels):
    """`fill` (per channel) repeated or cut to `channels` values."""
    return tuple(fill[i % len(fill)] for i in range(channels))


def pil_apply(image, operation, fill=(0,)):
    """`operation(pil_image, fill)` applied to an HWC array through Pillow.

    A uint8 image with 1 or 3 channels goes to Pillow whole ("L" / "RGB"); other images go
    channel by channel ("L" for uint8, float32 "F" otherwise), so no channel is mixed with
    another (Pillow premultiplies RGBA by alpha when resampling). Other dtypes are resampled
    in float32 and rounded back.
    """
    squeeze = image.ndim == 2
    planes = image[..., None] if squeeze else image
    channels = planes.shape[2]
    fills = channel_fill(fill, channels)
    if planes.dtype == np.uint8 and channels == 3:
        out = pixels(operation(Image.fromarray(planes, "RGB"), tuple(int(f) for f in fills)))
    else:
        out = np.stack([_pil_plane(planes[..., c], operation, fills[c])
                        for c in range(channels)], axis=-1)
    return out[..., 0] if squeeze else out


def _pil_plane(plane, operation, fill):
    if plane.dtype == np.uint8:
        return pixels(operation(Image.fromarray(plane, "L"), int(fill)))
    result = pixels(operation(Image.fromarray(plane.astype(np.float32), "F"), float(fill)))
    if plane.dtype.kind in "iub":
        info = np.iinfo(plane.dtype) if plane.dtype.kind != "b" else None
        result = np.rint(result)
        if info is not None:
            result = np.clip(result, info.min, info.max)
    return result.astype(plane.dtype)
