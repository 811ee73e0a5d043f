"""Conversions: Decode (bytes -> HWC RGB uint8 with Pillow), ToTensor (-> CHW float in
[0, 1]), ToPIL, ToNumpy, ToType."""
import io

import numpy as np
from PIL import Image, UnidentifiedImageError

from ..transforms.base import TensorOperation
from ..transforms.tensor_ops import TypeCast, numpy_dtype
from .utils import is_pil, pixels

__all__ = ["Decode", "ToTensor", "ToPIL", "ToNumpy", "ToType"]


class Decode(TensorOperation):
    """Decode an encoded image (PNG, JPEG, BMP, GIF, TIFF, WebP...; the bytes as a 1-D uint8
    array or `bytes`) to an RGB image: an (H, W, 3) uint8 array, or a PIL image with
    `to_pil`. Grayscale and palette images are converted to RGB, as MindSpore does.

    Example:
        >>> import numpy as np
        >>> raw = np.fromfile("digit.png", np.uint8)          # doctest: +SKIP
        >>> Decode()(raw).shape                                # doctest: +SKIP
        (8, 8, 3)
    """

    def __init__(self, to_pil=False):
        self.to_pil = bool(to_pil)

    def __call__(self, img):
        if isinstance(img, np.ndarray):
            if img.ndim != 1 or img.dtype != np.uint8:
                raise TypeError(f"Decode: expected the encoded image as a 1-D uint8 array, got "
                                f"{img.dtype} of shape {img.shape} (already decoded?)")
            data = img.tobytes()
        elif isinstance(img, (bytes, bytearray)):
            data = bytes(img)
        else:
            raise TypeError(f"Decode: expected the encoded image as a 1-D uint8 array or bytes, "
                            f"got {type(img).__name__}")
        try:
            with Image.open(io.BytesIO(data)) as opened:
                opened.load()  # decodes now: a truncated file fails here
                image = opened if opened.mode == "RGB" else opened.convert("RGB")
        except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as error:
            raise RuntimeError(f"Decode: cannot decode the {len(data)} bytes given as an "
                               f"image: {error}") from None
        return image if self.to_pil else pixels(image)


class ToTensor(TensorOperation):
    """An HWC image (array or PIL) as a CHW array of `output_type` (default float32) with
    values divided by 255; an (H, W) image becomes (1, H, W)."""

    def __init__(self, output_type=np.float32):
        self.output_type = numpy_dtype(output_type, "ToTensor")

    def __call__(self, img):
        image = np.asarray(img)
        if image.ndim == 2:
            image = image[..., None]
        if image.ndim != 3:
            raise RuntimeError(f"ToTensor: expected an image <H, W> or <H, W, C>, got shape "
                               f"{image.shape}")
        out = np.multiply(image.transpose(2, 0, 1), np.float32(1 / 255), dtype=np.float32)
        return out.astype(self.output_type, copy=False)


class ToPIL(TensorOperation):
    """A decoded image array (HWC or HW) as a PIL image."""

    def __call__(self, img):
        if is_pil(img):
            return img
        image = np.asarray(img)
        if image.ndim == 3 and image.shape[2] == 1:
            image = image[..., 0]
        try:
            return Image.fromarray(image)
        except TypeError as error:
            raise TypeError(f"ToPIL: cannot make a PIL image of a {image.dtype} array of shape "
                            f"{image.shape}: {error}") from None


class ToNumpy(TensorOperation):
    """A PIL image as a numpy array."""

    def __call__(self, img):
        return pixels(img) if is_pil(img) else np.asarray(img)


class ToType(TypeCast):
    """Cast to `data_type` (the same as transforms.TypeCast)."""
