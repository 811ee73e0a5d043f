"""Surface distances between two segmentations of one label: HausdorffDistance,
MeanSurfaceDistance, RootMeanSquareDistance (scipy.ndimage does the erosions and distance
transforms).

update(y_pred, y, label_idx): two label images (any number of spatial axes) of the same
shape; the pixels equal to label_idx form each mask, a mask's surface is the mask minus its
binary erosion, and the distance of a surface pixel is the distance to the nearest surface
pixel of the other mask ("euclidean", "chessboard" or "taxicab"). Each update replaces the
previous one (a per-image metric, as in MindSpore).

    >>> import numpy as np
    >>> from minispore.nn import HausdorffDistance
    >>> x = np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]])
    >>> y = np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]])
    >>> float(HausdorffDistance()(x, y, 0))
    1.4142135623730951
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .metric import Metric, rearrange_inputs

__all__ = ["HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]

_DISTANCES = ("euclidean", "chessboard", "taxicab")


def _check_distance(owner: str, distance_metric: Any) -> str:
    if distance_metric not in _DISTANCES:
        raise ValueError(f"{owner}: distance_metric must be one of {_DISTANCES}, "
                         f"got {distance_metric!r}")
    return str(distance_metric)


def _check_bool(owner: str, name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: {name} must be a bool, got {value!r}")
    return value


def _surface(mask: np.ndarray) -> np.ndarray:
    """The pixels of a boolean mask that its binary erosion removes."""
    from scipy import ndimage
    return ndimage.binary_erosion(mask) ^ mask


def _surface_distances(from_edges: np.ndarray, to_edges: np.ndarray, metric: str) -> np.ndarray:
    """Distance of each surface pixel of `from_edges` to the nearest one of `to_edges` (empty
    when from_edges has none; inf when to_edges has none)."""
    from scipy import ndimage
    if not np.any(from_edges):
        return np.array([])
    if not np.any(to_edges):
        return np.full(int(from_edges.sum()), np.inf)
    if metric == "euclidean":
        dist = ndimage.distance_transform_edt(~to_edges)
    else:
        dist = ndimage.distance_transform_cdt(~to_edges, metric=metric)
    return np.asarray(dist)[from_edges]


class _SurfaceMetric(Metric):
    """The shared update: masks of label_idx, checked, reduced to their surfaces."""

    def clear(self) -> None:
        self._y_pred_edges = np.zeros(0, bool)
        self._y_edges = np.zeros(0, bool)
        self._is_update = False

    def _masks(self, inputs: tuple[Any, ...]) -> tuple[np.ndarray, np.ndarray]:
        owner = type(self).__name__
        if len(inputs) != 3:
            raise ValueError(f"{owner}.update takes 3 inputs (y_pred, y, label_idx), "
                             f"got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        label_idx = inputs[2]
        if isinstance(label_idx, bool) or not isinstance(label_idx, (int, float)):
            raise ValueError(f"{owner}: label_idx must be an int or a float, got {label_idx!r}")
        if y_pred.size == 0 or y_pred.shape != y.shape:
            raise ValueError(f"{owner}: y_pred and y must be non-empty and of one shape, got "
                             f"{y_pred.shape} and {y.shape}")
        if label_idx not in y_pred and label_idx not in y:
            raise ValueError(f"{owner}: label_idx {label_idx} occurs in neither y_pred nor y")
        return y_pred == label_idx, y == label_idx

    def _store(self, pred_mask: np.ndarray, mask: np.ndarray) -> None:
        self._y_pred_edges, self._y_edges = _surface(pred_mask), _surface(mask)
        self._is_update = True


class HausdorffDistance(_SurfaceMetric):
    r"""Hausdorff distance max(h(y_pred, y), h(y, y_pred)), h(A, B) the largest distance of a
    surface pixel of A to the surface of B (or its `percentile`-th percentile; `directed`
    returns h(y_pred, y) alone). `crop` first crops both images to the bounding box of the
    union of the masks (the distances do not change).

        >>> import numpy as np
        >>> a = np.zeros((5, 5), int); a[1:3, 1:3] = 1
        >>> b = np.zeros((5, 5), int); b[1:4, 1:4] = 1
        >>> float(HausdorffDistance()(a, b, 1))
        1.4142135623730951
    """

    def __init__(self, distance_metric: str = "euclidean", percentile: Optional[float] = None,
                 directed: bool = False, crop: bool = True) -> None:
        self.distance_metric = _check_distance("HausdorffDistance", distance_metric)
        if percentile is not None:
            if not isinstance(percentile, float):
                raise TypeError(f"HausdorffDistance: percentile must be a float, "
                                f"got {percentile!r}")
            if not 0 <= percentile <= 100:
                raise ValueError(f"HausdorffDistance: percentile must be in [0, 100], "
                                 f"got {percentile}")
        self.percentile = percentile
        self.directed = _check_bool("HausdorffDistance", "directed", directed)
        self.crop = _check_bool("HausdorffDistance", "crop", crop)
        super().__init__()

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        pred_mask, mask = self._masks(inputs)
        if self.crop and np.any(pred_mask | mask):
            nonzero = np.nonzero(pred_mask | mask)
            box = tuple(slice(int(ix.min()), int(ix.max()) + 1) for ix in nonzero)
            pred_mask, mask = pred_mask[box], mask[box]
        self._store(pred_mask, mask)

    def _directed(self, from_edges: np.ndarray, to_edges: np.ndarray) -> float:
        distances = _surface_distances(from_edges, to_edges, self.distance_metric)
        if distances.size == 0:
            return float("inf")
        if not self.percentile:
            return float(distances.max())
        return float(np.percentile(distances, self.percentile))

    def eval(self) -> float:
        self._check_updated(self._is_update)
        forward = self._directed(self._y_pred_edges, self._y_edges)
        if self.directed:
            return forward
        return max(forward, self._directed(self._y_edges, self._y_pred_edges))


class _AveragedSurfaceDistance(_SurfaceMetric):
    """A statistic of the distances from the surface of y_pred to that of y (and, when
    `symmetric`, back): `_statistic(distances)` of one direction, `_combine(both)` of two."""

    def __init__(self, symmetric: bool = False, distance_metric: str = "euclidean") -> None:
        owner = type(self).__name__
        self.symmetric = _check_bool(owner, "symmetric", symmetric)
        self.distance_metric = _check_distance(owner, distance_metric)
        super().__init__()

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        self._store(*self._masks(inputs))

    def _statistic(self, distances: np.ndarray) -> float:
        raise NotImplementedError

    def _combine(self, forward: float, backward: float) -> float:
        raise NotImplementedError

    def eval(self) -> float:
        self._check_updated(self._is_update)
        directions = [(self._y_pred_edges, self._y_edges)]
        if self.symmetric:
            directions.append((self._y_edges, self._y_pred_edges))
        statistics = []
        for source, target in directions:
            distances = _surface_distances(source, target, self.distance_metric)
            if distances.size == 0:
                return float("inf")
            statistics.append(self._statistic(distances))
        return statistics[0] if len(statistics) == 1 else self._combine(*statistics)


class MeanSurfaceDistance(_AveragedSurfaceDistance):
    r"""Average distance of the surface pixels of y_pred to the surface of y; `symmetric`
    averages it with the distance the other way.

        >>> import numpy as np
        >>> x = np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]])
        >>> y = np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]])
        >>> round(float(MeanSurfaceDistance()(x, y, 0)), 10)
        0.8047378541
    """

    def _statistic(self, distances: np.ndarray) -> float:
        return float(distances.mean())

    def _combine(self, forward: float, backward: float) -> float:
        return float(np.mean((forward, backward)))


class RootMeanSquareDistance(_AveragedSurfaceDistance):
    r"""Root mean square of the distances of the surface pixels of y_pred to the surface of
    y; `symmetric`: the root of the mean of both directions' mean squares. (MindSpore returns
    the mean square itself, without the root, when symmetric is False; the root is taken here
    in both cases, as the name says.)

        >>> import numpy as np
        >>> a = np.zeros((5, 5), int); a[1:3, 1:3] = 1
        >>> b = np.zeros((5, 5), int); b[1:4, 1:4] = 1
        >>> float(RootMeanSquareDistance()(a, b, 1))
        0.5
    """

    def _statistic(self, distances: np.ndarray) -> float:
        return float(np.sqrt((distances ** 2).mean()))

    def _combine(self, forward: float, backward: float) -> float:
        # the root of the mean of the two directions' mean squares
        return float(np.sqrt(np.mean((forward ** 2, backward ** 2))))
