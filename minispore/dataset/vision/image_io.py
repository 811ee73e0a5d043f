"""Image files: read_file / write_file (raw bytes as 1-D uint8 arrays), read_image (decode a
file to an HWC uint8 array), encode_jpeg / encode_png (an image to its encoded bytes) and
write_jpeg / write_png. Pillow encodes and decodes.
"""
import io
import os
from enum import IntEnum
from typing import Union

import numpy as np
from PIL import Image, UnidentifiedImageError

__all__ = ["ImageReadMode", "read_file", "write_file", "read_image", "encode_jpeg",
           "encode_png", "write_jpeg", "write_png"]

PathLike = Union[str, os.PathLike]


class ImageReadMode(IntEnum):
    """How read_image decodes: as stored (UNCHANGED), as one gray channel (GRAYSCALE) or as
    three RGB channels (COLOR).

    Example:
        >>> ImageReadMode.COLOR.value
        2
    """
    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


def _path(filename: object, api: str) -> str:
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"{api}: filename must be a str, got {type(filename).__name__}")
    return os.fspath(filename)  # type: ignore[return-value]


def read_file(filename: PathLike) -> np.ndarray:
    """The bytes of a file as a 1-D uint8 array (what Decode takes).

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "raw.bin")
        >>> write_file(path, np.array([1, 2, 3], np.uint8))
        >>> read_file(path).tolist()
        [1, 2, 3]
    """
    path = _path(filename, "read_file")
    if not os.path.isfile(path):
        raise RuntimeError(f"read_file: {path!r} does not exist or is not a regular file")
    return np.fromfile(path, np.uint8)


def write_file(filename: PathLike, data: np.ndarray) -> None:
    """Write a 1-D uint8 array's bytes to `filename` (replacing the file).

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "raw.bin")
        >>> write_file(path, np.frombuffer(b"hi", np.uint8))
        >>> open(path, "rb").read()
        b'hi'
    """
    path = _path(filename, "write_file")
    array = np.asarray(data)
    if array.dtype != np.uint8 or array.ndim != 1:
        raise RuntimeError(f"write_file: data must be a 1-D uint8 array, got {array.dtype} of "
                           f"shape {array.shape}")
    with open(path, "wb") as file:
        file.write(array.tobytes())


def _decoded(pil: Image.Image, mode: ImageReadMode) -> np.ndarray:
    if mode is ImageReadMode.GRAYSCALE:
        pil = pil.convert("L")
    elif mode is ImageReadMode.COLOR or pil.mode in ("P", "CMYK", "YCbCr", "1"):
        has_alpha = pil.mode == "P" and "transparency" in pil.info
        pil = pil.convert("RGBA" if has_alpha and mode is ImageReadMode.UNCHANGED else
                          "L" if pil.mode == "1" and mode is ImageReadMode.UNCHANGED else "RGB")
    array = np.array(pil)
    return array[..., None] if array.ndim == 2 else array


def read_image(filename: PathLike, mode: ImageReadMode = ImageReadMode.UNCHANGED) -> np.ndarray:
    """Decode an image file (JPEG, PNG, BMP, TIFF, ...) to an (H, W, C) array: C as stored
    (1 gray, 2 gray + alpha, 3 RGB, 4 RGBA; 16-bit gray stays uint16) with UNCHANGED, 1 with
    GRAYSCALE, 3 (RGB) with COLOR.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "gray.png")
        >>> write_png(path, np.zeros((2, 3), np.uint8))
        >>> read_image(path).shape, read_image(path, ImageReadMode.COLOR).shape
        ((2, 3, 1), (2, 3, 3))
    """
    path = _path(filename, "read_image")
    mode = ImageReadMode(mode)
    if not os.path.isfile(path):
        raise RuntimeError(f"read_image: {path!r} does not exist or is not a regular file")
    try:
        with Image.open(path) as pil:
            pil.load()
            return _decoded(pil, mode)
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as error:
        raise RuntimeError(f"read_image: cannot decode {path!r}: {error}") from None


def _encodable(image: object, api: str) -> Image.Image:
    array = np.asarray(image)
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[..., 0]
    if array.dtype != np.uint8 or not (array.ndim == 2 or (array.ndim == 3 and
                                                           array.shape[2] == 3)):
        raise RuntimeError(f"{api}: expected a uint8 image <H, W>, <H, W, 1> or <H, W, 3>, "
                           f"got {array.dtype} of shape {array.shape}")
    return Image.fromarray(array, "L" if array.ndim == 2 else "RGB")


def encode_jpeg(image: np.ndarray, quality: int = 75) -> np.ndarray:
    """JPEG-encode a uint8 image (gray or RGB) at `quality` (1 to 100): a 1-D uint8 array.

    Example:
        >>> encoded = encode_jpeg(np.zeros((8, 8, 3), np.uint8))
        >>> encoded.dtype, encoded[:2].tolist()  # the JPEG start-of-image marker
        (dtype('uint8'), [255, 216])
    """
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise ValueError(f"encode_jpeg: quality must be an int in [1, 100], got {quality!r}")
    buffer = io.BytesIO()
    _encodable(image, "encode_jpeg").save(buffer, "JPEG", quality=quality)
    return np.frombuffer(buffer.getvalue(), np.uint8).copy()


def encode_png(image: np.ndarray, compression_level: int = 6) -> np.ndarray:
    """PNG-encode a uint8 image (gray or RGB) with zlib `compression_level` (0 to 9): a 1-D
    uint8 array.

    Example:
        >>> encode_png(np.zeros((2, 2), np.uint8))[1:4].tobytes()
        b'PNG'
    """
    if isinstance(compression_level, bool) or not isinstance(compression_level, int) or \
            not 0 <= compression_level <= 9:
        raise ValueError(f"encode_png: compression_level must be an int in [0, 9], got "
                         f"{compression_level!r}")
    buffer = io.BytesIO()
    _encodable(image, "encode_png").save(buffer, "PNG", compress_level=compression_level)
    return np.frombuffer(buffer.getvalue(), np.uint8).copy()


def write_jpeg(filename: PathLike, image: np.ndarray, quality: int = 75) -> None:
    """encode_jpeg(`image`, `quality`) written to `filename`.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "black.jpg")
        >>> write_jpeg(path, np.zeros((8, 8, 3), np.uint8))
        >>> read_image(path).shape
        (8, 8, 3)
    """
    write_file(_path(filename, "write_jpeg"), encode_jpeg(image, quality))


def write_png(filename: PathLike, image: np.ndarray, compression_level: int = 6) -> None:
    """encode_png(`image`, `compression_level`) written to `filename`.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "ramp.png")
        >>> write_png(path, np.arange(6, dtype=np.uint8).reshape(2, 3))
        >>> read_image(path)[..., 0].tolist()
        [[0, 1, 2], [3, 4, 5]]
    """
    write_file(_path(filename, "write_png"), encode_png(image, compression_level))
