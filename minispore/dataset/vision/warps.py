"""Affine and perspective warps: Affine, RandomAffine, Perspective, RandomPerspective.

The matrices follow MindSpore's (OpenCV's) conventions on pixel indices: an affine warp
rotates clockwise about the image center ((W - 1) / 2, (H - 1) / 2), shears in degrees and
translates by fractions of the image size; a perspective warp maps the `start_points`
quadrilateral onto `end_points`. Pillow resamples: its transforms take the inverse map in
coordinates where pixel centers sit at +0.5, hence `_pillow_coefficients`.
"""
import math
from collections.abc import Sequence
from typing import Union

import numpy as np
from PIL import Image

from .. import randomness
from ..transforms.base import check_prob
from .utils import PIL_FILTERS, ImageTransform, Inter, fill_tuple, pil_apply

__all__ = ["Affine", "RandomAffine", "Perspective", "RandomPerspective", "affine_matrix",
           "perspective_matrix"]

Number = Union[int, float]
Points = Sequence[Sequence[Number]]


def affine_matrix(height: int, width: int, degrees: float, translate: Sequence[float],
                  scale: float, shear: Sequence[float]) -> np.ndarray:
    """MindSpore's forward 3x3 affine matrix (source pixel index -> output pixel index):
    rotation by `degrees` clockwise, `scale`, shears (x, y) in degrees, all about the image
    center, then `translate` (x, y) as fractions of the width and height.

    Example:
        >>> affine_matrix(3, 3, 90.0, (0, 0), 1.0, (0, 0)).round(6).tolist()[0]
        [0.0, -1.0, 2.0]
    """
    angle = math.radians(degrees)
    shear_x, shear_y = math.radians(shear[0]), math.radians(-shear[1])
    cx, cy = (width - 1) / 2, (height - 1) / 2
    a = scale * math.cos(angle + shear_y) / math.cos(shear_y)
    b = scale * (-math.cos(angle + shear_y) * math.tan(shear_x) / math.cos(shear_y)
                 - math.sin(angle))
    d = scale * math.sin(angle + shear_y) / math.cos(shear_y)
    e = scale * (-math.sin(angle + shear_y) * math.tan(shear_x) / math.cos(shear_y)
                 + math.cos(angle))
    tx, ty = translate[0] * width, translate[1] * height
    return np.array([[a, b, (1 - a) * cx - b * cy + tx],
                     [d, e, (1 - e) * cy - d * cx + ty],
                     [0.0, 0.0, 1.0]])


def perspective_matrix(start_points: Points, end_points: Points) -> np.ndarray:
    """The 3x3 homography taking each of the four `start_points` (x, y) to its end point
    (OpenCV's getPerspectiveTransform).

    Example:
        >>> square = [[0, 0], [1, 0], [1, 1], [0, 1]]
        >>> moved = [[2, 3], [3, 3], [3, 4], [2, 4]]
        >>> perspective_matrix(square, moved).round(6).tolist()
        [[1.0, 0.0, 2.0], [0.0, 1.0, 3.0], [0.0, 0.0, 1.0]]
    """
    rows, rhs = [], []
    for (x, y), (u, v) in zip(start_points, end_points):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    try:
        h = np.linalg.solve(np.array(rows, np.float64), np.array(rhs, np.float64))
        matrix = np.append(h, 1.0).reshape(3, 3)
        np.linalg.inv(matrix)  # a homography onto a line cannot be undone
    except np.linalg.LinAlgError:
        raise ValueError(f"Perspective: the points {start_points} -> {end_points} do not "
                         f"define a perspective transform (three of them on a line?)") from None
    return matrix


def _pillow_coefficients(forward: np.ndarray) -> np.ndarray:
    """The inverse of `forward` (index coordinates) in Pillow's half-pixel coordinates."""
    half = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    unhalf = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]])
    inverse = half @ np.linalg.inv(forward) @ unhalf
    return inverse / inverse[2, 2]


def _resample(interpolation: Inter) -> Image.Resampling:
    resample = PIL_FILTERS[Inter(interpolation)]
    if resample not in (Image.Resampling.NEAREST, Image.Resampling.BILINEAR,
                        Image.Resampling.BICUBIC):
        return Image.Resampling.BILINEAR  # Pillow's transforms take these three only
    return resample


def warp(image: np.ndarray, forward: np.ndarray, interpolation: Inter,
         fill: Sequence[Number] = (0,)) -> np.ndarray:
    """`image` warped by the 3x3 `forward` matrix (affine when its last row is 0, 0, 1).

    Example:
        >>> warp(np.arange(4, dtype=np.uint8).reshape(2, 2), np.eye(3), Inter.NEAREST).tolist()
        [[0, 1], [2, 3]]
    """
    coefficients = _pillow_coefficients(forward)
    resample = _resample(interpolation)
    if np.allclose(forward[2], [0, 0, 1]):
        method, data = Image.Transform.AFFINE, tuple(coefficients[:2].ravel())
    else:
        method, data = Image.Transform.PERSPECTIVE, tuple(coefficients.ravel()[:8])
    return pil_apply(image, lambda pil, f: pil.transform(pil.size, method, data, resample,
                                                         fillcolor=f), fill)


def _pair(value: object, api: str, arg: str) -> tuple[float, float]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value), 0.0
    if not (isinstance(value, (list, tuple)) and len(value) == 2):
        raise ValueError(f"{api}: {arg} must be a number or an (x, y) pair, got {value!r}")
    return float(value[0]), float(value[1])


class Affine(ImageTransform):
    """Rotate by `degrees` clockwise, scale by `scale` and shear by `shear` (degrees along x,
    or (x, y)) about the image center, then shift by `translate` = (x, y) fractions of the
    width and height; uncovered pixels get `fill_value`.

    Example:
        >>> import numpy as np
        >>> image = np.arange(9, dtype=np.uint8).reshape(3, 3)
        >>> Affine(90, (0, 0), 1.0, 0)(image).tolist()  # a quarter turn clockwise
        [[6, 3, 0], [7, 4, 1], [8, 5, 2]]
    """

    def __init__(self, degrees: float, translate: Sequence[float], scale: float,
                 shear: Union[float, Sequence[float]], resample: Inter = Inter.NEAREST,
                 fill_value: Union[int, Sequence[int]] = 0) -> None:
        if isinstance(degrees, bool) or not isinstance(degrees, (int, float)):
            raise TypeError(f"Affine: degrees must be a number, got {degrees!r}")
        self.degrees = float(degrees)
        self.translate = _pair(translate, "Affine", "translate")
        if isinstance(translate, (int, float)):
            raise TypeError(f"Affine: translate must be an (x, y) pair, got {translate!r}")
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
            raise ValueError(f"Affine: scale must be a positive number, got {scale!r}")
        self.scale = float(scale)
        self.shear = _pair(shear, "Affine", "shear")
        self.resample = Inter(resample)
        self.fill_value = fill_tuple(fill_value, "Affine")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        height, width = image.shape[:2]
        matrix = affine_matrix(height, width, self.degrees, self.translate, self.scale,
                               self.shear)
        return warp(image, matrix, self.resample, self.fill_value)


def _symmetric_range(value: object, api: str, arg: str) -> tuple[float, float]:
    """(-v, v) for a non-negative number v, else an increasing (min, max) pair."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"{api}: {arg} must be non-negative, got {value}")
        return -float(value), float(value)
    if not (isinstance(value, (list, tuple)) and len(value) == 2 and value[0] <= value[1]):
        raise ValueError(f"{api}: {arg} must be a number or a (min, max) pair, got {value!r}")
    return float(value[0]), float(value[1])


class RandomAffine(ImageTransform):
    """Affine with parameters drawn uniformly per image: the angle from `degrees` ((-d, d)
    or (min, max)); the shift from `translate` = (tx_min, tx_max[, ty_min, ty_max]) in
    fractions of the size; the scale from `scale` = (min, max); the shear from `shear` (a
    number s: x in (-s, s); (min, max): x; (x_min, x_max, y_min, y_max): both).

    Example:
        >>> import numpy as np
        >>> image = np.arange(9, dtype=np.uint8).reshape(3, 3)
        >>> RandomAffine((90, 90))(image).tolist()
        [[6, 3, 0], [7, 4, 1], [8, 5, 2]]
    """

    random = True

    def __init__(self, degrees: Union[Number, Sequence[Number]],
                 translate: Union[Sequence[float], None] = None,
                 scale: Union[Sequence[float], None] = None,
                 shear: Union[Number, Sequence[Number], None] = None,
                 resample: Inter = Inter.NEAREST,
                 fill_value: Union[int, Sequence[int]] = 0) -> None:
        self.degrees = _symmetric_range(degrees, "RandomAffine", "degrees")
        translate = (0, 0, 0, 0) if translate is None else tuple(translate)
        if len(translate) == 2:
            translate = (*translate, 0, 0)
        if len(translate) != 4 or not all(-1 <= t <= 1 for t in translate) or \
                translate[0] > translate[1] or translate[2] > translate[3]:
            raise ValueError(f"RandomAffine: translate must be (min, max) or (x_min, x_max, "
                             f"y_min, y_max) in [-1, 1], got {translate!r}")
        self.translate = tuple(float(t) for t in translate)
        scale = (1.0, 1.0) if scale is None else tuple(scale)
        if len(scale) != 2 or not 0 <= scale[0] <= scale[1] or scale[1] == 0:
            raise ValueError(f"RandomAffine: scale must be a non-negative (min, max) pair, got "
                             f"{scale!r}")
        self.scale = (float(scale[0]), float(scale[1]))
        if shear is None:
            shear = (0, 0, 0, 0)
        elif isinstance(shear, (int, float)) or len(shear) == 2:
            shear = (*_symmetric_range(shear, "RandomAffine", "shear"), 0, 0)
        if len(shear) != 4 or shear[0] > shear[1] or shear[2] > shear[3]:
            raise ValueError(f"RandomAffine: shear must be a number, (min, max) or (x_min, "
                             f"x_max, y_min, y_max), got {shear!r}")
        self.shear = tuple(float(s) for s in shear)
        self.resample = Inter(resample)
        self.fill_value = fill_tuple(fill_value, "RandomAffine")

    def _apply(self, image: np.ndarray) -> np.ndarray:
        u = randomness.uniform
        degrees = u(*self.degrees)
        translate = (u(*self.translate[:2]), u(*self.translate[2:]))
        scale = u(*self.scale)
        shear = (u(*self.shear[:2]), u(*self.shear[2:]))
        height, width = image.shape[:2]
        matrix = affine_matrix(height, width, degrees, translate, scale, shear)
        return warp(image, matrix, self.resample, self.fill_value)


def _points(points: object, api: str, arg: str) -> list[tuple[float, float]]:
    if not (isinstance(points, (list, tuple)) and len(points) == 4 and all(
            isinstance(p, (list, tuple)) and len(p) == 2 for p in points)):
        raise TypeError(f"{api}: {arg} must be four (x, y) points (top-left, top-right, "
                        f"bottom-right, bottom-left), got {points!r}")
    return [(float(p[0]), float(p[1])) for p in points]


class Perspective(ImageTransform):
    """Warp so that the quadrilateral `start_points` (four (x, y) pixel positions: top-left,
    top-right, bottom-right, bottom-left) lands on `end_points`; uncovered pixels are 0.

    Example:
        >>> import numpy as np
        >>> image = np.arange(12, dtype=np.uint8).reshape(3, 4)
        >>> corners = [[0, 0], [3, 0], [3, 2], [0, 2]]
        >>> shifted = [[1, 0], [4, 0], [4, 2], [1, 2]]  # one pixel to the right
        >>> Perspective(corners, shifted, Inter.NEAREST)(image).tolist()
        [[0, 0, 1, 2], [0, 4, 5, 6], [0, 8, 9, 10]]
    """

    def __init__(self, start_points: Points, end_points: Points,
                 interpolation: Inter = Inter.BILINEAR) -> None:
        self.start_points = _points(start_points, "Perspective", "start_points")
        self.end_points = _points(end_points, "Perspective", "end_points")
        self.interpolation = Inter(interpolation)
        self._matrix = perspective_matrix(self.start_points, self.end_points)

    def _apply(self, image: np.ndarray) -> np.ndarray:
        return warp(image, self._matrix, self.interpolation)


class RandomPerspective(ImageTransform):
    """With probability `prob`, move each corner inwards by a random amount of up to
    `distortion_scale` times half the image size (torchvision's rule) and warp the image
    accordingly (Perspective from the corners to the moved corners).

    Example:
        >>> import numpy as np
        >>> image = np.arange(12, dtype=np.uint8).reshape(3, 4)
        >>> RandomPerspective(0.0, prob=1.0)(image).tolist() == image.tolist()
        True
    """

    random = True

    def __init__(self, distortion_scale: float = 0.5, prob: float = 0.5,
                 interpolation: Inter = Inter.BICUBIC) -> None:
        self.distortion_scale = check_prob(distortion_scale, "RandomPerspective")
        self.prob = check_prob(prob, "RandomPerspective")
        self.interpolation = Inter(interpolation)

    def _end_points(self, height: int, width: int) -> list[tuple[int, int]]:
        dx = int(self.distortion_scale * (width // 2))
        dy = int(self.distortion_scale * (height // 2))
        r = randomness.randint  # both ends included
        return [(r(0, dx), r(0, dy)),
                (r(width - dx - 1, width - 1), r(0, dy)),
                (r(width - dx - 1, width - 1), r(height - dy - 1, height - 1)),
                (r(0, dx), r(height - dy - 1, height - 1))]

    def _apply(self, image: np.ndarray) -> np.ndarray:
        if not randomness.chance(self.prob):
            return image
        height, width = image.shape[:2]
        if height < 2 or width < 2:
            return image  # no quadrilateral to move
        start = [(0, 0), (width - 1, 0), (width - 1, height - 1), (0, height - 1)]
        end = self._end_points(height, width)
        try:
            matrix = perspective_matrix(start, end)
        except ValueError:  # corners drawn onto a line (tiny images): nothing to warp
            return image
        return warp(image, matrix, self.interpolation)
