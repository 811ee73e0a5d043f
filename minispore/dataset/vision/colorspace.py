"""Color spaces and channel layouts: RgbToHsv, HsvToRgb, ConvertColor (OpenCV's conversions
between RGB, BGR, their alpha versions and gray), LinearTransformation (ZCA whitening and the
like), NormalizePad, and the image queries get_image_num_channels / get_image_size.

All numpy: HSV is colorsys's formula vectorized, gray is OpenCV's fixed-point luma for uint8.
"""
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Union, cast

import numpy as np
from PIL import Image

from ..transforms.base import TensorOperation
from .color import Normalize
from .utils import ImageTransform, is_pil

__all__ = ["ConvertMode", "ConvertColor", "RgbToHsv", "HsvToRgb", "LinearTransformation",
           "NormalizePad", "get_image_num_channels", "get_image_size", "rgb_to_hsv",
           "hsv_to_rgb"]


# ----- HSV -----

def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """colorsys.rgb_to_hsv on the last axis (r, g, b), in float64: h and s in [0, 1], v the
    largest of r, g, b.

    Example:
        >>> rgb_to_hsv(np.array([1.0, 0.0, 0.0])).tolist()
        [0.0, 1.0, 1.0]
    """
    r, g, b = np.moveaxis(rgb.astype(np.float64), -1, 0)
    maxc, minc = np.maximum(np.maximum(r, g), b), np.minimum(np.minimum(r, g), b)
    spread = maxc - minc
    gray = spread == 0
    safe = np.where(gray, 1.0, spread)
    s = np.where(gray, 0.0, spread / np.where(maxc == 0, 1.0, maxc))
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(gray, 0.0, (h / 6.0) % 1.0)
    return np.stack([h, s, maxc], axis=-1)


def hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """colorsys.hsv_to_rgb on the last axis (h, s, v), in float64.

    Example:
        >>> hsv_to_rgb(np.array([1 / 3, 1.0, 1.0])).tolist()
        [0.0, 1.0, 0.0]
    """
    h, s, v = np.moveaxis(hsv.astype(np.float64), -1, 0)
    sector = np.floor(h * 6.0)
    f = h * 6.0 - sector
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    sector = sector.astype(np.int64) % 6
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.select([sector == i for i in range(6)], [c[k] for c in choices])
           for k in range(3)]
    gray = s == 0.0
    return np.stack([np.where(gray, v, channel) for channel in out], axis=-1)


class _HsvConversion(TensorOperation):
    """A conversion of the channel axis of an image (CHW, or HWC with `is_hwc`) or a batch of
    them (NCHW / NHWC): `_convert` on an (..., 3) array. Float inputs keep their dtype,
    others come back as float64."""

    _convert: Callable[[np.ndarray], np.ndarray]

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = bool(is_hwc)

    def __call__(self, img: np.ndarray) -> np.ndarray:
        image = np.asarray(img)
        axis = -1 if self.is_hwc else -3
        if image.ndim not in (3, 4) or image.shape[axis] != 3:
            layout = "HWC" if self.is_hwc else "CHW"
            raise RuntimeError(f"{type(self).__name__}: expected a 3-channel {layout} image or "
                               f"a batch of them, got shape {image.shape}")
        out = np.moveaxis(self._convert(np.moveaxis(image, axis, -1)), -1, axis)
        return out.astype(image.dtype) if image.dtype.kind == "f" else out


class RgbToHsv(_HsvConversion):
    """RGB -> HSV per pixel (colorsys's formula; values in [0, 1] for float images in [0, 1])
    on a CHW image (HWC with `is_hwc`) or a batch of them.

    Example:
        >>> import numpy as np
        >>> RgbToHsv(is_hwc=True)(np.array([[[0.0, 0.5, 1.0]]])).round(4).tolist()
        [[[0.5833, 1.0, 1.0]]]
    """

    _convert = staticmethod(rgb_to_hsv)


class HsvToRgb(_HsvConversion):
    """HSV -> RGB per pixel (colorsys's formula) on a CHW image (HWC with `is_hwc`) or a
    batch of them.

    Example:
        >>> import numpy as np
        >>> HsvToRgb(is_hwc=True)(np.array([[[0.5, 1.0, 1.0]]])).tolist()
        [[[0.0, 1.0, 1.0]]]
    """

    _convert = staticmethod(hsv_to_rgb)


# ----- OpenCV-style conversions -----

class ConvertMode(IntEnum):
    """The conversions ConvertColor makes (OpenCV's names).

    Example:
        >>> ConvertMode.COLOR_RGB2GRAY.name
        'COLOR_RGB2GRAY'
    """
    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 1
    COLOR_BGRA2BGR = 2
    COLOR_RGBA2RGB = 3
    COLOR_BGR2RGBA = 4
    COLOR_RGB2BGRA = 5
    COLOR_RGBA2BGR = 6
    COLOR_BGRA2RGB = 7
    COLOR_BGR2RGB = 8
    COLOR_RGB2BGR = 9
    COLOR_BGRA2RGBA = 10
    COLOR_RGBA2BGRA = 11
    COLOR_BGR2GRAY = 12
    COLOR_RGB2GRAY = 13
    COLOR_GRAY2BGR = 14
    COLOR_GRAY2RGB = 15
    COLOR_GRAY2BGRA = 16
    COLOR_GRAY2RGBA = 17
    COLOR_BGRA2GRAY = 18
    COLOR_RGBA2GRAY = 19


def _layouts(mode: ConvertMode) -> tuple[str, str]:
    """('BGR', 'BGRA') from COLOR_BGR2BGRA."""
    source, target = mode.name[len("COLOR_"):].split("2")
    return source, target


def _full_value(dtype: np.dtype) -> Union[int, float]:
    """The opaque alpha: the dtype's maximum for integers, 1.0 for floats (as OpenCV)."""
    return int(np.iinfo(dtype).max) if dtype.kind in "iu" else 1.0


def _luma(r: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    if r.dtype == np.uint8:  # OpenCV's 14-bit fixed point, rounded
        total = 4899 * r.astype(np.int32) + 9617 * g.astype(np.int32) + 1868 * b.astype(np.int32)
        return ((total + (1 << 13)) >> 14).astype(np.uint8)
    gray = 0.299 * r.astype(np.float64) + 0.587 * g + 0.114 * b
    if r.dtype.kind in "iu":
        info = np.iinfo(r.dtype)
        gray = np.clip(np.rint(gray), info.min, info.max)
    return gray.astype(r.dtype)


def convert_color(image: np.ndarray, mode: ConvertMode) -> np.ndarray:
    """`image` (HWC; HW or HW1 for gray) converted as `mode` says.

    Example:
        >>> convert_color(np.array([[[1, 2, 3]]], np.uint8), ConvertMode.COLOR_RGB2BGR).tolist()
        [[[3, 2, 1]]]
    """
    source, target = _layouts(mode)
    want = 1 if source == "GRAY" else len(source)
    have = 1 if image.ndim == 2 else image.shape[2]
    if image.ndim not in (2, 3) or have != want:
        raise RuntimeError(f"ConvertColor: {mode.name} expects an image with {want} channels, "
                           f"got shape {image.shape}")
    if source == "GRAY":
        gray = image.reshape(image.shape[:2])
        channels = {"R": gray, "G": gray, "B": gray}
    else:
        channels = {name: image[..., i] for i, name in enumerate(source)}
    if target == "GRAY":
        return _luma(channels["R"], channels["G"], channels["B"])
    channels.setdefault("A", np.full(image.shape[:2], _full_value(image.dtype), image.dtype))
    return np.stack([channels[name] for name in target], axis=-1)


class ConvertColor(ImageTransform):
    """Convert between RGB, BGR, RGBA, BGRA and gray as `convert_mode` (a ConvertMode)
    says: channels reordered, an opaque alpha added or dropped, gray as 0.299 R + 0.587 G +
    0.114 B (OpenCV's rounding for uint8); gray images come out as (H, W).

    Example:
        >>> import numpy as np
        >>> ConvertColor(ConvertMode.COLOR_RGB2BGRA)(np.array([[[1, 2, 3]]], np.uint8)).tolist()
        [[[3, 2, 1, 255]]]
    """

    def __init__(self, convert_mode: ConvertMode) -> None:
        self.convert_mode = ConvertMode(convert_mode)

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return convert_color(image, self.convert_mode)


# ----- linear maps of whole images -----

class LinearTransformation(TensorOperation):
    """Flatten the image (e.g. CHW after ToTensor), subtract `mean_vector` and multiply by
    the square `transformation_matrix` (D x D for D = C * H * W values): ZCA whitening with
    a matrix computed offline. The result keeps the image's shape.

    Example:
        >>> import numpy as np
        >>> op = LinearTransformation(2 * np.eye(4), np.ones(4))
        >>> op(np.arange(4.0).reshape(1, 2, 2)).tolist()
        [[[-2.0, 0.0], [2.0, 4.0]]]
    """

    def __init__(self, transformation_matrix: np.ndarray, mean_vector: np.ndarray) -> None:
        matrix, mean = np.asarray(transformation_matrix), np.asarray(mean_vector)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or \
                mean.shape != (matrix.shape[0],):
            raise ValueError(f"LinearTransformation: expected a square D x D matrix and a "
                             f"mean of D values, got {matrix.shape} and {mean.shape}")
        self.transformation_matrix, self.mean_vector = matrix, mean

    def __call__(self, img: np.ndarray) -> np.ndarray:
        image = np.asarray(img)
        if image.size != self.mean_vector.size:
            raise RuntimeError(f"LinearTransformation: the image has {image.size} values, the "
                               f"matrix expects {self.mean_vector.size}")
        flat = image.reshape(1, -1) - self.mean_vector
        return (flat @ self.transformation_matrix).reshape(image.shape)


class NormalizePad(Normalize):
    """Normalize as Normalize(`mean`, `std`, `is_hwc`), then add a fourth channel of zeros
    (the layout some accelerated kernels want); `dtype` is "float32" or "float16".

    Example:
        >>> import numpy as np
        >>> NormalizePad([100.0] * 3, [50.0] * 3)(np.full((1, 1, 3), 200, np.uint8)).tolist()
        [[[2.0, 2.0, 2.0, 0.0]]]
    """

    def __init__(self, mean: Sequence[float], std: Sequence[float], dtype: str = "float32",
                 is_hwc: bool = True) -> None:
        super().__init__(mean, std, is_hwc)
        if dtype not in ("float32", "float16"):
            raise ValueError(f"NormalizePad: dtype must be 'float32' or 'float16', got "
                             f"{dtype!r}")
        self.dtype = dtype

    def _apply(self, image: np.ndarray) -> np.ndarray:
        out = super()._apply(image)
        if out.ndim == 2:
            out = out[..., None]
        axis = -1 if self.is_hwc or image.ndim == 2 else 0
        zeros = np.zeros(out.shape[:-1] + (1,) if axis == -1 else (1,) + out.shape[1:],
                         out.dtype)
        return np.concatenate([out, zeros], axis=axis).astype(self.dtype)


# ----- image queries -----

def get_image_num_channels(image: Union[np.ndarray, Image.Image]) -> int:
    """The number of channels of an HWC array (1 for HW) or of a PIL image's mode.

    Example:
        >>> import numpy as np
        >>> get_image_num_channels(np.zeros((4, 5, 3))), get_image_num_channels(np.zeros((4, 5)))
        (3, 1)
    """
    if is_pil(image):
        return len(cast(Image.Image, image).getbands())
    array = np.asarray(image)
    if array.ndim < 2:
        raise RuntimeError(f"get_image_num_channels: expected an image, got shape {array.shape}")
    return 1 if array.ndim == 2 else int(array.shape[-1])


def get_image_size(image: Union[np.ndarray, Image.Image]) -> list[int]:
    """[height, width] of an HW / HWC array or a PIL image.

    Example:
        >>> import numpy as np
        >>> get_image_size(np.zeros((4, 5, 3)))
        [4, 5]
    """
    if is_pil(image):
        width, height = cast(Image.Image, image).size
        return [height, width]
    array = np.asarray(image)
    if array.ndim < 2:
        raise RuntimeError(f"get_image_size: expected an image, got shape {array.shape}")
    return [int(array.shape[0]), int(array.shape[1])]
