"""MindSpore's image Primitive classes: colour-space conversions and adjustments on the last
axis (RGB or HSV in [0, 1], TensorFlow's formulas), morphological dilation, each written with
`ops` functions (rows of CONFIGURED and SIMPLE, as in classes_ext).

    >>> ops.RGBToHSV()(ms.Tensor([[1.0, 0.0, 0.0]])).tolist()
    [[0.0, 1.0, 1.0]]
"""
from typing import Any, Callable

import numpy as np

from ..core.dtype import to_np
from . import functional as F
from .classes import simple_class
from .classes_ext import _configured_class


def _channels(x):
    return tuple(F.squeeze(F.slice_axis(x, -1, i, i + 1), -1) for i in range(3))


def _rgb_to_hsv(images):
    """hue in [0, 1) (0 for greys), saturation = range / value (0 for black), value = max."""
    r, g, b = _channels(images)
    value = F.maximum(F.maximum(r, g), b)
    spread = F.sub(value, F.minimum(F.minimum(r, g), b))
    safe_value = F.where(F.greater(value, 0), value, F.ones_like(value))
    saturation = F.where(F.greater(value, 0), F.div(spread, safe_value), F.zeros_like(value))
    safe = F.where(F.greater(spread, 0), spread, F.ones_like(spread))
    hue = F.where(F.equal(value, r), F.div(F.sub(g, b), safe),
                  F.where(F.equal(value, g), F.add(F.div(F.sub(b, r), safe), 2.0),
                          F.add(F.div(F.sub(r, g), safe), 4.0)))
    hue = F.div(F.where(F.greater(spread, 0), hue, F.zeros_like(hue)), 6.0)
    hue = F.where(F.less(hue, 0), F.add(hue, 1.0), hue)
    return F.stack([hue, saturation, value], -1)


def _hsv_to_rgb(images):
    """The inverse of RGBToHSV: chroma c = s v, placed by the sixth of the hue circle."""
    h, s, v = _channels(images)
    chroma = F.mul(s, v)
    sixths = F.mul(h, 6.0)
    x = F.mul(chroma, F.sub(1.0, F.abs(F.sub(F.remainder(sixths, 2.0), 1.0))))
    sector = F.floor(sixths)
    zero = F.zeros_like(chroma)
    # (r, g, b) before adding m, for the sectors 0..5 of the hue
    table = [(chroma, x, zero), (x, chroma, zero), (zero, chroma, x), (zero, x, chroma),
             (x, zero, chroma), (chroma, zero, x)]
    out = []
    for channel in range(3):
        value = table[5][channel]
        for k in range(4, -1, -1):
            value = F.where(F.equal(sector, float(k)), table[k][channel], value)
        out.append(F.add(value, F.sub(v, chroma)))
    return F.stack(out, -1)


def _adjust_hue(image, delta):
    hsv = _rgb_to_hsv(image)
    h, s, v = _channels(hsv)
    h = F.remainder(F.add(h, delta), 1.0)
    return _hsv_to_rgb(F.stack([h, s, v], -1))


def _adjust_saturation(image, scale):
    h, s, v = _channels(_rgb_to_hsv(image))
    return _hsv_to_rgb(F.stack([h, F.clamp(F.mul(s, scale), 0.0, 1.0), v], -1))


def _pair(value: Any) -> tuple:
    """MindSpore's stride / dilation attributes: an int, (h, w) or (1, 1, h, w)."""
    if isinstance(value, int):
        return value, value
    return tuple(value[-2:])


def _dilation2d(self, x, filter):
    """Greyscale dilation: out[n, c, y, x] = max over the window of input + filter[c] (NCHW,
    filter (C, kh, kw)); 'same' padding never wins."""
    stride, rate = _pair(self.stride), _pair(self.dilation)
    kernel = tuple(filter.shape[1:])
    n, c, height, width = x.shape
    if str(self.pad_mode).lower() == "same":
        pads = []
        for size, k, s, d in zip((height, width), kernel, stride, rate):
            span = (k - 1) * d + 1
            total = max((-(-size // s) - 1) * s + span - size, 0)
            pads.append((total // 2, total - total // 2))
        # far below any input, yet finite: unfold's one-hot products would turn -inf to nan
        lowest = float(np.finfo(to_np(x.dtype)).min) / 4
        x = F.pad(x, ((0, 0), (0, 0)) + tuple(pads), value=lowest)
    cols = F.unfold(x, kernel, rate, 0, stride)  # (N, C * kh * kw, L)
    cols = F.reshape(cols, (n, c, kernel[0] * kernel[1], -1))
    out = F.amax(F.add(cols, F.reshape(filter, (1, c, -1, 1))), 2)
    out_h = (x.shape[2] - (kernel[0] - 1) * rate[0] - 1) // stride[0] + 1
    return F.reshape(out, (n, c, out_h, -1))


SIMPLE: dict[str, Callable[..., Any]] = {
    "RGBToHSV": _rgb_to_hsv, "HSVToRGB": _hsv_to_rgb, "AdjustHue": _adjust_hue,
    "AdjustSaturation": _adjust_saturation,
}

CONFIGURED: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {
    "Dilation2D": ({"stride": 1, "dilation": 1, "pad_mode": "SAME", "data_format": "NCHW"},
                   _dilation2d),
}


__all__ = sorted(set(SIMPLE) | set(CONFIGURED))
for _name, _fn in SIMPLE.items():
    globals()[_name] = simple_class(_name, _fn)
for _name, (_defaults, _call) in CONFIGURED.items():
    globals()[_name] = _configured_class(_name, _defaults, _call)
