"""Transforms of an image and its bounding boxes together (the "WithBBox" family and
BoundingBoxAugment), as MindSpore's detection pipelines use them: `map` them over the
["image", "bbox"] columns.

Boxes are an (N, 4+) array of (x, y, width, height, ...) in pixels; the columns after the
fourth (a label, a difficulty flag) ride along. A crop keeps the boxes that overlap it, clipped
to it; a resize scales them; a flip mirrors them.
"""
from collections.abc import Callable, Sequence
from typing import Optional, Union

import numpy as np

from .. import randomness
from ..transforms.base import TensorOperation, check_prob
from .crops import _RANDOM_INTERPOLATIONS
from .geometry import RandomCrop, RandomResizedCrop, _resize, _resized_shape
from .utils import Border, Inter

__all__ = ["RandomHorizontalFlipWithBBox", "RandomVerticalFlipWithBBox", "ResizeWithBBox",
           "RandomResizeWithBBox", "RandomCropWithBBox", "RandomResizedCropWithBBox",
           "BoundingBoxAugment", "crop_boxes"]


def _checked(image: object, bboxes: object, api: str) -> tuple[np.ndarray, np.ndarray]:
    image, boxes = np.asarray(image), np.asarray(bboxes)
    if image.ndim not in (2, 3):
        raise RuntimeError(f"{api}: expected an image <H, W> or <H, W, C>, got shape "
                           f"{image.shape}")
    if boxes.ndim != 2 or boxes.shape[1] < 4:
        raise RuntimeError(f"{api}: bounding boxes must be an (N, 4+) array of (x, y, width, "
                           f"height, ...), got shape {boxes.shape}")
    h, w = image.shape[:2]
    x, y, bw, bh = (boxes[:, i].astype(np.float64) for i in range(4))
    if ((x < 0) | (y < 0) | (bw <= 0) | (bh <= 0) | (x + bw > w) | (y + bh > h)).any():
        raise RuntimeError(f"{api}: every bounding box must lie inside the {h}x{w} image with a "
                           f"positive width and height")
    return image, boxes


def crop_boxes(boxes: np.ndarray, top: float, left: float, height: float,
               width: float) -> np.ndarray:
    """The boxes that overlap the crop (top, left, height, width), clipped to it and moved
    into its coordinates.

    Example:
        >>> crop_boxes(np.array([[0, 0, 4, 4], [9, 9, 1, 1]], np.float32), 2, 1, 5, 5).tolist()
        [[0.0, 0.0, 3.0, 2.0]]
    """
    x0, y0 = boxes[:, 0].astype(np.float64), boxes[:, 1].astype(np.float64)
    x1, y1 = x0 + boxes[:, 2], y0 + boxes[:, 3]
    keep = (x0 < left + width) & (x1 > left) & (y0 < top + height) & (y1 > top)
    nx0, ny0 = np.maximum(x0, left), np.maximum(y0, top)
    nx1, ny1 = np.minimum(x1, left + width), np.minimum(y1, top + height)
    out = boxes[keep].copy()
    out[:, 0], out[:, 1] = (nx0 - left)[keep], (ny0 - top)[keep]
    out[:, 2], out[:, 3] = (nx1 - nx0)[keep], (ny1 - ny0)[keep]
    return out


def _scale_boxes(boxes: np.ndarray, sy: float, sx: float) -> np.ndarray:
    out = boxes.copy()
    out[:, [0, 2]] = boxes[:, [0, 2]] * sx
    out[:, [1, 3]] = boxes[:, [1, 3]] * sy
    return out


class RandomHorizontalFlipWithBBox(TensorOperation):
    """With probability `prob`, mirror the image left-right and its boxes with it
    (x -> W - x - width).

    Example:
        >>> import numpy as np
        >>> image, boxes = np.zeros((2, 10)), np.array([[1, 0, 3, 2]], np.float32)
        >>> RandomHorizontalFlipWithBBox(1.0)(image, boxes)[1].tolist()
        [[6.0, 0.0, 3.0, 2.0]]
    """

    random = True

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = check_prob(prob, "RandomHorizontalFlipWithBBox")

    def __call__(self, img: np.ndarray, bboxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        image, boxes = _checked(img, bboxes, "RandomHorizontalFlipWithBBox")
        if not randomness.chance(self.prob):
            return image, boxes
        out = boxes.copy()
        out[:, 0] = image.shape[1] - boxes[:, 0] - boxes[:, 2]
        return image[:, ::-1], out


class RandomVerticalFlipWithBBox(TensorOperation):
    """With probability `prob`, mirror the image top-bottom and its boxes with it
    (y -> H - y - height).

    Example:
        >>> import numpy as np
        >>> image, boxes = np.zeros((10, 2)), np.array([[0, 1, 2, 3]], np.float32)
        >>> RandomVerticalFlipWithBBox(1.0)(image, boxes)[1].tolist()
        [[0.0, 6.0, 2.0, 3.0]]
    """

    random = True

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = check_prob(prob, "RandomVerticalFlipWithBBox")

    def __call__(self, img: np.ndarray, bboxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        image, boxes = _checked(img, bboxes, "RandomVerticalFlipWithBBox")
        if not randomness.chance(self.prob):
            return image, boxes
        out = boxes.copy()
        out[:, 1] = image.shape[0] - boxes[:, 1] - boxes[:, 3]
        return image[::-1], out


class ResizeWithBBox(TensorOperation):
    """Resize as Resize(`size`, `interpolation`) and scale the boxes by the same factors.

    Example:
        >>> import numpy as np
        >>> image, boxes = np.zeros((4, 8, 3), np.uint8), np.array([[2, 1, 4, 2]], np.float32)
        >>> ResizeWithBBox((2, 2))(image, boxes)[1].tolist()
        [[0.5, 0.5, 1.0, 1.0]]
    """

    def __init__(self, size: Union[int, Sequence[int]],
                 interpolation: Inter = Inter.LINEAR) -> None:
        _resized_shape(1, 1, size)  # check
        self.size = size
        self.interpolation = Inter(interpolation)

    def _interpolation(self) -> Inter:
        return self.interpolation

    def __call__(self, img: np.ndarray, bboxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        image, boxes = _checked(img, bboxes, type(self).__name__)
        h, w = image.shape[:2]
        height, width = _resized_shape(h, w, self.size)
        resized = _resize(image, height, width, self._interpolation())
        return resized, _scale_boxes(boxes, height / h, width / w)


class RandomResizeWithBBox(ResizeWithBBox):
    """ResizeWithBBox(`size`) with an interpolation drawn as RandomResize draws it.

    Example:
        >>> import numpy as np
        >>> image, boxes = np.zeros((4, 8, 3), np.uint8), np.array([[2, 1, 4, 2]], np.float32)
        >>> RandomResizeWithBBox((2, 4))(image, boxes)[1].tolist()
        [[1.0, 0.5, 2.0, 1.0]]
    """

    random = True

    def __init__(self, size: Union[int, Sequence[int]]) -> None:
        super().__init__(size)

    def _interpolation(self) -> Inter:
        return _RANDOM_INTERPOLATIONS[randomness.randint(0, 3)]


class RandomCropWithBBox(RandomCrop):
    """RandomCrop (same arguments) of the image; the boxes are moved by the padding, then
    cropped: those overlapping the crop are kept, clipped to it.

    Example:
        >>> import numpy as np
        >>> image, boxes = np.zeros((4, 4), np.uint8), np.array([[0, 0, 4, 4]], np.float32)
        >>> RandomCropWithBBox(2)(image, boxes)[1].tolist()
        [[0.0, 0.0, 2.0, 2.0]]
    """

    def __init__(self, size: Union[int, Sequence[int]],
                 padding: Optional[Union[int, Sequence[int]]] = None, pad_if_needed: bool = False,
                 fill_value: Union[int, Sequence[int]] = 0,
                 padding_mode: Border = Border.CONSTANT) -> None:
        super().__init__(size, padding, pad_if_needed, fill_value, padding_mode)

    def __call__(self, img: np.ndarray,  # type: ignore[override]
                 bboxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        image, boxes = _checked(img, bboxes, "RandomCropWithBBox")
        padded, (pad_left, pad_top), (top, left) = self._window(image)
        height, width = self.size
        moved = boxes.copy()
        moved[:, 0] = boxes[:, 0] + pad_left
        moved[:, 1] = boxes[:, 1] + pad_top
        return padded[top:top + height, left:left + width], crop_boxes(moved, top, left,
                                                                       height, width)


class RandomResizedCropWithBBox(RandomResizedCrop):
    """RandomResizedCrop (same arguments) of the image; the boxes are cropped (kept when they
    overlap, clipped) and scaled with it.

    Example:
        >>> import numpy as np
        >>> image, boxes = np.zeros((4, 4), np.uint8), np.array([[0, 0, 4, 4]], np.float32)
        >>> RandomResizedCropWithBBox(2, scale=(1, 1), ratio=(1, 1))(image, boxes)[1].tolist()
        [[0.0, 0.0, 2.0, 2.0]]
    """

    def __call__(self, img: np.ndarray,  # type: ignore[override]
                 bboxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        image, boxes = _checked(img, bboxes, "RandomResizedCropWithBBox")
        top, left, height, width = self._box(*image.shape[:2])
        crop = image[top:top + height, left:left + width]
        out_h, out_w = self.size
        kept = crop_boxes(boxes, top, left, height, width)
        return (_resize(crop, out_h, out_w, self.interpolation),
                _scale_boxes(kept, out_h / height, out_w / width))


class BoundingBoxAugment(TensorOperation):
    """Apply the image transform `transform` inside a random `ratio` of the boxes (int(ratio
    * N) of them): each box's region is cut out (whole pixels), transformed, resized back if
    its size changed, and pasted in place; the boxes stay as they are.

    Example:
        >>> import numpy as np
        >>> image, boxes = np.zeros((4, 4), np.uint8), np.array([[1, 1, 2, 2]], np.float32)
        >>> BoundingBoxAugment(lambda region: region + 9, 1.0)(image, boxes)[0].tolist()
        [[0, 0, 0, 0], [0, 9, 9, 0], [0, 9, 9, 0], [0, 0, 0, 0]]
    """

    random = True

    def __init__(self, transform: Callable[[np.ndarray], np.ndarray], ratio: float = 0.3) -> None:
        if not callable(transform):
            raise TypeError(f"BoundingBoxAugment: transform must be callable, got "
                            f"{transform!r}")
        self.transform = transform
        self.ratio = check_prob(ratio, "BoundingBoxAugment")

    def __call__(self, img: np.ndarray, bboxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        image, boxes = _checked(img, bboxes, "BoundingBoxAugment")
        count = int(self.ratio * len(boxes))
        if count == 0:
            return image, boxes
        out = image.copy()
        for index in randomness.generator().permutation(len(boxes))[:count]:
            x, y, w, h = (int(v) for v in boxes[index, :4])
            if w < 1 or h < 1:
                continue
            region = np.asarray(self.transform(out[y:y + h, x:x + w].copy()))
            if region.shape[:2] != (h, w):
                region = _resize(region, h, w, Inter.LINEAR)
            out[y:y + h, x:x + w] = region.reshape(out[y:y + h, x:x + w].shape)
        return out, boxes
