"""OcclusionSensitivity: how much a model's score for a label drops when each part of an
input is occluded (which regions the decision rests on).

    >>> import numpy as np
    >>> import minispore as ms
    >>> from minispore import nn
    >>> w = ms.Tensor(np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32))
    >>> b = ms.Tensor(np.array([0.3, 0.6], np.float32))
    >>> model = nn.Dense(4, 2, weight_init=w, bias_init=b)
    >>> metric = OcclusionSensitivity()
    >>> metric.update(model, np.array([[0.1, 0.2, 0.3, 0.4]], np.float32), np.array(1))
    >>> metric.eval().astype(float).round(4).tolist()
    [0.3, 0.6, 1.0, 0.9]
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

from ...core.tensor import Tensor
from ..cell import Cell
from .metric import Metric, rearrange_inputs

__all__ = ["OcclusionSensitivity"]


class OcclusionSensitivity(Metric):
    """Occlusion sensitivity of `model` for one input image and one label.

    update(model, y_pred, label): y_pred is one input (shape (1, ...)), label the class whose
    score is watched. For each position of the image (or of the bounding box `b_box`, given
    as [min1, max1, min2, max2, ...] over the non-batch axes, inclusive), the block from
    position - margin to position + margin (the upper end exclusive, as MindSpore) is set to
    pad_val and the model scores the occluded image; n_batch occluded images go through the
    model at a time. eval() gives baseline score - occluded score at each position.

        >>> import numpy as np
        >>> from minispore import nn
        >>> net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
        >>> OcclusionSensitivity(margin=1)(net, np.ones((1, 3), np.float32), np.array(0)).tolist()
        [1.0, 2.0, 2.0]
    """

    def __init__(self, pad_val: float = 0.0, margin: Union[int, list] = 2, n_batch: int = 128,
                 b_box: Optional[list] = None) -> None:
        if not isinstance(pad_val, float):
            raise TypeError(f"OcclusionSensitivity: pad_val must be a float, got {pad_val!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, list)):
            raise TypeError(f"OcclusionSensitivity: margin must be an int or a list, "
                            f"got {margin!r}")
        if isinstance(n_batch, bool) or not isinstance(n_batch, int) or n_batch < 1:
            raise TypeError(f"OcclusionSensitivity: n_batch must be a positive int, "
                            f"got {n_batch!r}")
        if b_box is not None and not isinstance(b_box, list):
            raise TypeError(f"OcclusionSensitivity: b_box must be a list or None, got {b_box!r}")
        self.pad_val, self.margin, self.n_batch, self.b_box = pad_val, margin, n_batch, b_box
        super().__init__()

    def clear(self) -> None:
        self._baseline = 0.0
        self._sensitivity_im = np.zeros(0)
        self._is_update = False

    def _box(self, shape: np.ndarray) -> tuple[Optional[np.ndarray], Optional[np.ndarray]]:
        if self.b_box is None:
            return None, None
        if len(self.b_box) != 2 * len(shape):
            raise ValueError(f"OcclusionSensitivity: b_box needs a minimum and a maximum for each "
                             f"of the {len(shape)} non-batch axes, got {self.b_box}")
        low, high = np.array(self.b_box[::2]), np.array(self.b_box[1::2])
        low[low < 0] = 0
        high[high < 0] = shape[high < 0] - 1
        if np.any(high >= shape) or np.any(low > high):
            raise ValueError(f"OcclusionSensitivity: b_box {self.b_box} must lie inside the "
                             f"image {tuple(shape)} with each minimum <= its maximum")
        return low, high

    def _margins(self, rank: int) -> Sequence[int]:
        if isinstance(self.margin, int):
            return [self.margin] * rank
        if len(self.margin) != rank:
            raise ValueError(f"OcclusionSensitivity: margin needs one value per non-batch axis "
                             f"({rank}), got {self.margin}")
        return [int(m) for m in self.margin]

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 3:
            raise ValueError(f"OcclusionSensitivity.update takes 3 inputs (model, y_pred, "
                             f"label), got {len(inputs)}")
        model = inputs[0]
        if not isinstance(model, Cell):
            raise TypeError(f"OcclusionSensitivity: the model must be a Cell, "
                            f"got {type(model).__name__}")
        image, label = self._convert_data(inputs[1]), self._convert_data(inputs[2])
        if image.shape[0] != 1:
            raise RuntimeError(f"OcclusionSensitivity: y_pred must hold one image (shape (1, "
                               f"...)), got shape {image.shape}")
        if label.size != 1:
            raise RuntimeError(f"OcclusionSensitivity: one label is needed, got {label.size}")
        target = int(label.reshape(-1)[0])
        shape = np.array(image.shape[1:])
        low, high = self._box(shape)
        margins = self._margins(len(shape))
        self._baseline = float(model(Tensor(image)).asnumpy()[0, target])
        out_shape = tuple(shape) if low is None or high is None else tuple(high - low + 1)
        scores = []
        batch: list[np.ndarray] = []
        count = int(np.prod(out_shape))
        for i in range(count):
            position = np.array(np.unravel_index(i, out_shape))
            if low is not None:
                position = position + low
            block = tuple(slice(max(0, p - m), min(n, p + m))
                          for p, m, n in zip(position, margins, shape))
            occluded = image.copy()
            occluded[(slice(None),) + block] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch or i == count - 1:
                scores.append(model(Tensor(np.concatenate(batch))).asnumpy()[:, target])
                batch = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval(self) -> np.ndarray:
        self._check_updated(self._is_update)
        return self._baseline - np.squeeze(self._sensitivity_im)
