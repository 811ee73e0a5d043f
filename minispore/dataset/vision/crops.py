"""Crops that give several images (FiveCrop, TenCrop, SlicePatches), padding to a size
(PadToSize), erasing a box (Erase) and resizing with a random interpolation (RandomResize).

All are numpy indexing except RandomResize (Pillow's resampling, as Resize). A transform
that gives several images returns them as a tuple: in `Compose` the next transform gets them
as separate arguments (`lambda *crops: np.stack(crops)`), in `Dataset.map` they are columns.
"""
from collections.abc import Sequence
from enum import IntEnum
from typing import Optional, Union

import numpy as np
from PIL import Image

from .. import randomness
from ..transforms.base import TensorOperation
from .conversion import Decode
from .geometry import RandomResizedCrop, _pad, _resize, _resized_shape
from .utils import Border, ImageTransform, Inter, fill_tuple, is_pil, size_pair

__all__ = ["SliceMode", "Erase", "FiveCrop", "TenCrop", "SlicePatches", "PadToSize",
           "RandomResize", "RandomCropDecodeResize"]

Image_ = Union[np.ndarray, Image.Image]


class SliceMode(IntEnum):
    """How SlicePatches treats an image size the grid does not divide: pad it (on the right
    and bottom) or drop the remainder.

    Example:
        >>> SliceMode.DROP.value
        1
    """
    PAD = 0
    DROP = 1


class Erase(ImageTransform):
    """Fill the box of `height` x `width` at (`top`, `left`) with `value` (a number, or one
    per channel); the input is changed too when `inplace`.

    Example:
        >>> import numpy as np
        >>> Erase(0, 1, 1, 2, value=9)(np.zeros((2, 3), np.uint8)).tolist()
        [[0, 9, 9], [0, 0, 0]]
    """

    def __init__(self, top: int, left: int, height: int, width: int,
                 value: Union[float, Sequence[float]] = 0, inplace: bool = False) -> None:
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in
                   (top, left, height, width)) or min(top, left) < 0 or min(height, width) < 1:
            raise ValueError(f"Erase: top and left must be ints >= 0, height and width >= 1, "
                             f"got {(top, left, height, width)}")
        self.top, self.left, self.height, self.width = top, left, height, width
        values = [value] if isinstance(value, (int, float)) else list(value)
        if len(values) not in (1, 3):
            raise ValueError(f"Erase: value must be a number or three, got {value!r}")
        self.value = tuple(values)
        self.inplace = bool(inplace)

    def __call__(self, img: Image_) -> Image_:
        if self.inplace and isinstance(img, np.ndarray) and img.flags.writeable:
            self._fill(img)
            return img
        return super().__call__(img)

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return self._fill(image.copy())

    def _fill(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        if self.top >= h or self.left >= w:
            raise ValueError(f"Erase: the box at (top={self.top}, left={self.left}) starts "
                             f"outside the {h}x{w} image")
        box = image[self.top:self.top + self.height, self.left:self.left + self.width]
        value = self.value if image.ndim == 3 and len(self.value) == image.shape[2] else \
            self.value[0]
        box[...] = np.asarray(value).astype(image.dtype)
        return image


def _as_input_kind(crop: np.ndarray, was_pil: bool) -> Image_:
    if not was_pil:
        return crop
    return Image.fromarray(crop[..., 0] if crop.ndim == 3 and crop.shape[2] == 1 else crop)


def five_crop(image: np.ndarray, height: int, width: int) -> list[np.ndarray]:
    """The four corner crops and the center crop (torchvision's order: top-left, top-right,
    bottom-left, bottom-right, center).

    Example:
        >>> [c.tolist() for c in five_crop(np.arange(9).reshape(3, 3), 1, 1)]
        [[[0]], [[2]], [[6]], [[8]], [[4]]]
    """
    h, w = image.shape[:2]
    if height > h or width > w:
        raise ValueError(f"FiveCrop: the crop {height}x{width} is larger than the image {h}x{w}")
    top, left = int(round((h - height) / 2.0)), int(round((w - width) / 2.0))
    return [image[:height, :width], image[:height, w - width:], image[h - height:, :width],
            image[h - height:, w - width:], image[top:top + height, left:left + width]]


class FiveCrop(TensorOperation):
    """Crop the four corners and the center, each of `size` ((height, width) or an int):
    a tuple of five images (PIL images for a PIL input).

    Example:
        >>> import numpy as np
        >>> crops = FiveCrop(2)(np.arange(16, dtype=np.uint8).reshape(4, 4))
        >>> [c.tolist() for c in crops][0], crops[4].tolist()
        ([[0, 1], [4, 5]], [[5, 6], [9, 10]])
    """

    def __init__(self, size: Union[int, Sequence[int]]) -> None:
        self.size = size_pair(size, "FiveCrop")

    def __call__(self, img: Image_) -> tuple[Image_, ...]:
        image = np.asarray(img)
        return tuple(_as_input_kind(c, is_pil(img)) for c in five_crop(image, *self.size))


class TenCrop(TensorOperation):
    """FiveCrop of the image, then FiveCrop of its mirror image (left-right, or top-bottom
    with `use_vertical_flip`): a tuple of ten images.

    Example:
        >>> import numpy as np
        >>> crops = TenCrop(2)(np.arange(16, dtype=np.uint8).reshape(4, 4))
        >>> len(crops), crops[5].tolist()  # the mirrored image's top-left corner
        (10, [[3, 2], [7, 6]])
    """

    def __init__(self, size: Union[int, Sequence[int]], use_vertical_flip: bool = False) -> None:
        self.size = size_pair(size, "TenCrop")
        self.use_vertical_flip = bool(use_vertical_flip)

    def __call__(self, img: Image_) -> tuple[Image_, ...]:
        image = np.asarray(img)
        flipped = image[::-1] if self.use_vertical_flip else image[:, ::-1]
        crops = five_crop(image, *self.size) + five_crop(flipped, *self.size)
        return tuple(_as_input_kind(c, is_pil(img)) for c in crops)


class SlicePatches(TensorOperation):
    """Cut an HWC image into a `num_height` x `num_width` grid of patches, row by row: a
    tuple of num_height * num_width arrays. When the grid does not divide the size,
    SliceMode.PAD pads the right and bottom with `fill_value` first, SliceMode.DROP leaves
    the remainder out.

    Example:
        >>> import numpy as np
        >>> patches = SlicePatches(1, 2)(np.arange(6, dtype=np.uint8).reshape(2, 3))
        >>> [p.tolist() for p in patches]
        [[[0, 1], [3, 4]], [[2, 0], [5, 0]]]
    """

    def __init__(self, num_height: int = 1, num_width: int = 1,
                 slice_mode: SliceMode = SliceMode.PAD, fill_value: int = 0) -> None:
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1
                   for n in (num_height, num_width)):
            raise ValueError(f"SlicePatches: num_height and num_width must be ints >= 1, got "
                             f"{num_height!r}, {num_width!r}")
        self.num_height, self.num_width = num_height, num_width
        self.slice_mode = SliceMode(slice_mode)
        self.fill_value = fill_tuple(fill_value, "SlicePatches")

    def __call__(self, img: Image_) -> tuple[np.ndarray, ...]:
        image = np.asarray(img)
        h, w = image.shape[:2]
        if self.num_height > h or self.num_width > w:
            raise ValueError(f"SlicePatches: a {self.num_height}x{self.num_width} grid does not "
                             f"fit a {h}x{w} image")
        ph, pw = h // self.num_height, w // self.num_width
        if self.slice_mode is SliceMode.PAD:
            ph, pw = -(-h // self.num_height), -(-w // self.num_width)
            image = _pad(image, 0, 0, pw * self.num_width - w, ph * self.num_height - h,
                         self.fill_value, Border.CONSTANT)
        return tuple(image[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw]
                     for i in range(self.num_height) for j in range(self.num_width))


class PadToSize(ImageTransform):
    """Pad to `size` = (height, width) (or an int): the image's top-left corner goes to
    `offset` = (top, left) (an int for both; None centers the image, the odd pixel after);
    `padding_mode` a Border mode, `fill_value` the constant's color.

    Example:
        >>> import numpy as np
        >>> PadToSize((2, 4), offset=(0, 1), fill_value=7)(np.ones((1, 2), np.uint8)).tolist()
        [[7, 1, 1, 7], [7, 7, 7, 7]]
    """

    def __init__(self, size: Union[int, Sequence[int]],
                 offset: Optional[Union[int, Sequence[int]]] = None,
                 fill_value: Union[int, Sequence[int]] = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        self.size = size_pair(size, "PadToSize")
        if offset is not None:
            pair = (offset, offset) if isinstance(offset, int) else tuple(offset)
            if len(pair) != 2 or not all(isinstance(o, int) and o >= 0 for o in pair):
                raise ValueError(f"PadToSize: offset must be a non-negative int or a (top, "
                                 f"left) pair, got {offset!r}")
            offset = pair
        self.offset = offset
        self.fill_value = fill_tuple(fill_value, "PadToSize")
        self.padding_mode = Border(padding_mode)

    def _apply(self, image: np.ndarray) -> np.ndarray:
        height, width = self.size
        h, w = image.shape[:2]
        top, left = ((height - h) // 2, (width - w) // 2) if self.offset is None \
            else self.offset
        bottom, right = height - h - top, width - w - left
        if min(top, left, bottom, right) < 0:
            raise ValueError(f"PadToSize: a {h}x{w} image at offset (top={top}, left={left}) "
                             f"does not fit in {height}x{width}")
        return _pad(image, left, top, right, bottom, self.fill_value, self.padding_mode)


# the interpolations RandomResize chooses from, as MindSpore's RandomResizeOp
_RANDOM_INTERPOLATIONS = (Inter.LINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA)


class RandomResize(ImageTransform):
    """Resize as Resize(`size`) with an interpolation drawn uniformly from bilinear,
    nearest, bicubic and area.

    Example:
        >>> import numpy as np
        >>> RandomResize((2, 3))(np.zeros((4, 6, 3), np.uint8)).shape
        (2, 3, 3)
    """

    random = True

    def __init__(self, size: Union[int, Sequence[int]]) -> None:
        _resized_shape(1, 1, size)  # check
        self.size = size

    def _apply(self, image: np.ndarray) -> np.ndarray:
        interpolation = _RANDOM_INTERPOLATIONS[randomness.randint(0, 3)]
        height, width = _resized_shape(image.shape[0], image.shape[1], self.size)
        return _resize(image, height, width, interpolation)


class RandomCropDecodeResize(TensorOperation):
    """Decode an encoded image (1-D uint8 array or bytes), then RandomResizedCrop(`size`,
    `scale`, `ratio`, `interpolation`, `max_attempts`): MindSpore fuses the two so that
    only the crop is decoded; here the whole image is decoded first, with the same result.

    Example:
        >>> import io, numpy as np
        >>> from PIL import Image
        >>> buffer = io.BytesIO(); Image.new("RGB", (8, 6)).save(buffer, "PNG")
        >>> RandomCropDecodeResize(4)(np.frombuffer(buffer.getvalue(), np.uint8)).shape
        (4, 4, 3)
    """

    random = True

    def __init__(self, size: Union[int, Sequence[int]],
                 scale: Sequence[float] = (0.08, 1.0),
                 ratio: Sequence[float] = (3. / 4., 4. / 3.),
                 interpolation: Inter = Inter.BILINEAR, max_attempts: int = 10) -> None:
        self._decode = Decode()
        self._crop = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)
        self.size, self.scale, self.ratio = self._crop.size, self._crop.scale, self._crop.ratio
        self.interpolation, self.max_attempts = self._crop.interpolation, max_attempts

    def __call__(self, img: Union[np.ndarray, bytes]) -> np.ndarray:
        return self._crop(self._decode(img))
