"""MindSpore Primitive classes of detection and image models: box encoding, random sampling
of positives (RandomChoiceWithMask), patches (Im2Col / Col2Im), the depthwise convolution,
histograms, each over `ops` functions (rows of CONFIGURED and SIMPLE, as in classes_ext).

    >>> anchors = ms.Tensor([[2.0, 2.0, 2.0, 3.0]])
    >>> ops.BoundingBoxEncode()(anchors, ms.Tensor([[1.0, 2.0, 1.0, 4.0]])).asnumpy().round(4)
    array([[-1.    ,  0.25  ,  0.    ,  0.4055]], dtype=float32)
"""
import math
from typing import Any, Callable

import numpy as np

from ..core.dtype import to_np
from ..core.tensor import Tensor
from . import functional as F
from .classes import simple_class
from .classes_array import _static
from .classes_ext import _configured_class


# ----- boxes (x1, y1, x2, y2), widths counted inclusively (+ 1) as MindSpore's kernels do -----

def _centres(boxes):
    x1, y1, x2, y2 = (F.squeeze(F.slice_axis(boxes, -1, i, i + 1), -1) for i in range(4))
    return (F.mul(F.add(x1, x2), 0.5), F.mul(F.add(y1, y2), 0.5),
            F.add(F.sub(x2, x1), 1.0), F.add(F.sub(y2, y1), 1.0))


def _box_encode(self, anchor_box, groundtruth_box):
    """(dx, dy, dw, dh) of each ground-truth box from its anchor, less means, over stds."""
    px, py, pw, ph = _centres(anchor_box)
    gx, gy, gw, gh = _centres(groundtruth_box)
    deltas = F.stack([F.div(F.sub(gx, px), pw), F.div(F.sub(gy, py), ph),
                      F.log(F.div(gw, pw)), F.log(F.div(gh, ph))], -1)
    means = Tensor(np.asarray(self.means, np.float32)).astype(deltas.dtype)
    stds = Tensor(np.asarray(self.stds, np.float32)).astype(deltas.dtype)
    return F.div(F.sub(deltas, means), stds)


def _box_decode(self, anchor_box, deltas):
    """The inverse of BoundingBoxEncode: boxes from anchors and deltas, dw and dh clipped to
    |log(wh_ratio_clip)|, corners clipped to max_shape (height, width)."""
    means = Tensor(np.asarray(self.means, np.float32)).astype(deltas.dtype)
    stds = Tensor(np.asarray(self.stds, np.float32)).astype(deltas.dtype)
    d = F.add(F.mul(deltas, stds), means)
    dx, dy, dw, dh = (F.squeeze(F.slice_axis(d, -1, i, i + 1), -1) for i in range(4))
    limit = abs(math.log(self.wh_ratio_clip))
    dw, dh = F.clamp(dw, -limit, limit), F.clamp(dh, -limit, limit)
    px, py, pw, ph = _centres(anchor_box)
    gx, gy = F.add(px, F.mul(pw, dx)), F.add(py, F.mul(ph, dy))
    half_w, half_h = F.mul(F.mul(pw, F.exp(dw)), 0.5), F.mul(F.mul(ph, F.exp(dh)), 0.5)
    height, width = self.max_shape[0] - 1.0, self.max_shape[1] - 1.0
    return F.stack([F.clamp(F.add(F.sub(gx, half_w), 0.5), 0.0, width),
                    F.clamp(F.add(F.sub(gy, half_h), 0.5), 0.0, height),
                    F.clamp(F.sub(F.add(gx, half_w), 0.5), 0.0, width),
                    F.clamp(F.sub(F.add(gy, half_h), 0.5), 0.0, height)], -1)


def _random_choice_with_mask(self, x):
    """(index, mask): `count` coordinates of True elements of x in random order (rows past the
    number of True elements are zeros, their mask False), from the ms.set_seed generator.
    Each True element gets a uniform key, the False ones -1; the top `count` keys win."""
    n = int(np.prod(x.shape, dtype=np.int64))
    flat = F.reshape(x, (-1,))
    keys = F.where(flat, F.uniform((n,), 0.0, 1.0, self.seed or None, np.float32),
                   F.full((), -1.0, np.float32))
    k = min(self.count, n)
    top, order = F.topk(keys, k)
    mask = F.greater_equal(top, 0.0)
    strides = [int(np.prod(x.shape[i + 1:], dtype=np.int64)) for i in range(x.ndim)]
    coords = F.stack([F.remainder(F.floor_divide(order, s), d)
                      for s, d in zip(strides, x.shape)], -1)
    coords = F.cast(F.mul(coords, F.expand_dims(F.cast(mask, coords.dtype), -1)), np.int32)
    if k < self.count:
        coords = F.pad(coords, ((0, self.count - k), (0, 0)))
        mask = F.pad(mask, ((0, self.count - k),))
    return coords, mask


def _crop_coords(lo, hi, size, crop):
    """TensorFlow's sample coordinates of one axis: (boxes, crop) positions in pixels."""
    if crop > 1:
        steps = Tensor(np.arange(crop, dtype=np.float32)).astype(lo.dtype)
        return F.add(F.mul(lo, size - 1.0),
                     F.mul(F.mul(F.sub(hi, lo), (size - 1.0) / (crop - 1)), steps))
    return F.mul(F.mul(F.add(lo, hi), 0.5 * (size - 1.0)), F.ones((1, 1), lo.dtype))


def _crop_and_resize(self, x, boxes, box_index, crop_size):
    """Crops of the NHWC images x[box_index] inside the normalised (y1, x1, y2, x2) boxes,
    resampled to crop_size (bilinear or nearest); samples outside an image take
    extrapolation_value. Output (boxes, crop_h, crop_w, depth), float32."""
    if self.method not in ("bilinear", "nearest"):
        raise ValueError(f"ops.CropAndResize: method must be 'bilinear' or 'nearest', got "
                         f"{self.method!r}")
    crop_h, crop_w = (int(v) for v in np.ravel(_static(crop_size, "ops.CropAndResize")))
    images = F.cast(F.gather(x, box_index, 0), np.float32)
    n, height, width, depth = images.shape
    boxes = F.cast(boxes, np.float32)
    y1, x1, y2, x2 = (F.slice_axis(boxes, 1, i, i + 1) for i in range(4))
    ys, xs = _crop_coords(y1, y2, height, crop_h), _crop_coords(x1, x2, width, crop_w)

    def pick(image, index, axis, size):  # image values at integer positions along `axis`
        shape = (n, crop_h, 1, 1) if axis == 1 else (n, 1, crop_w, 1)
        full = list(image.shape)
        full[axis] = shape[axis]
        return F.gather_elements(image, axis, F.broadcast_to(F.reshape(F.cast(
            F.clamp(index, 0, size - 1), np.int64), shape), tuple(full)))

    def sample(image, coords, axis, size):
        if self.method == "nearest":
            # roundf: halves away from zero (the coordinates that count are >= 0)
            return pick(image, F.floor(F.add(coords, 0.5)), axis, size)
        low = F.floor(coords)
        frac = F.reshape(F.sub(coords, low), (n, crop_h, 1, 1) if axis == 1 else (n, 1, crop_w, 1))
        near, far = pick(image, low, axis, size), pick(image, F.ceil(coords), axis, size)
        return F.add(near, F.mul(F.sub(far, near), frac))
    out = sample(sample(images, ys, 1, height), xs, 2, width)
    inside_y = F.reshape(F.logical_and(F.greater_equal(ys, 0), F.less_equal(ys, height - 1)),
                         (n, crop_h, 1, 1))
    inside_x = F.reshape(F.logical_and(F.greater_equal(xs, 0), F.less_equal(xs, width - 1)),
                         (n, 1, crop_w, 1))
    return F.where(F.logical_and(inside_y, inside_x), out,
                   F.full((), float(self.extrapolation_value), np.float32))


def _no_repeat_ngram(self, state_seq, log_probs):
    """log_probs with every token that would repeat an n-gram of state_seq set to the lowest
    float: where the last n - 1 tokens occurred before, the token that followed them then."""
    n, length = self.ngram_size, state_seq.shape[-1]
    vocab = log_probs.shape[-1]
    banned = F.zeros(log_probs.shape, np.int32)
    if n - 1 < length:
        tail = F.slice_axis(state_seq, -1, length - n + 1, length)
        for start in range(length - n + 1):
            window = F.slice_axis(state_seq, -1, start, start + n - 1)
            seen = F.all(F.equal(window, tail), -1) if n > 1 else \
                F.ones(state_seq.shape[:-1], np.bool_)
            follower = F.squeeze(F.slice_axis(state_seq, -1, start + n - 1, start + n), -1)
            hit = F.mul(F.one_hot(follower, vocab, 1, 0),
                        F.expand_dims(F.cast(seen, np.int32), -1))
            banned = F.add(banned, F.cast(hit, np.int32))
    lowest = F.full((), float(np.finfo(to_np(log_probs.dtype)).min), log_probs.dtype)
    return F.where(F.greater(banned, 0), lowest, log_probs)


def _im2col(self, x):
    """(N, C, H, W) -> (N, C, kh * kw, L): ops.unfold with the kernel axis split out."""
    cols = F.unfold(x, self.ksizes, self.dilations, self.pads, self.strides)
    return F.reshape(cols, (x.shape[0], x.shape[1], -1, cols.shape[-1]))


def _col2im(self, x, output_size):
    size = tuple(int(s) for s in np.ravel(_static(output_size, "ops.Col2Im: output_size")))
    cols = F.reshape(x, (x.shape[0], x.shape[1] * x.shape[2], x.shape[3]))
    return F.fold(cols, size, self.kernel_size, self.dilation, self.padding, self.stride)


def _depthwise_conv(self, x, weight):
    """weight (multiplier K, C, kh, kw): output channel c * K + k convolves channel c with
    weight[k, c], as TensorFlow's depthwise_conv2d orders them."""
    k, c = weight.shape[:2]
    grouped = F.reshape(F.transpose(weight, (1, 0, 2, 3)), (c * k, 1) + tuple(weight.shape[2:]))
    return F.conv2d(x, grouped, None, self.stride, str(self.pad_mode).lower(), self.pad,
                    self.dilation, c)


def _histogram_fixed_width(self, x, value_range):
    """Counts of x in nbins equal bins over [lo, hi); values below lo count in the first bin,
    values from hi on in the last."""
    lo = F.slice_axis(value_range, 0, 0, 1)
    hi = F.slice_axis(value_range, 0, 1, 2)
    scaled = F.div(F.mul(F.sub(x, lo), float(self.nbins)), F.sub(hi, lo))
    bins = F.cast(F.clamp(F.floor(scaled), 0, self.nbins - 1), np.int32)
    return F.cast(F.sum(F.one_hot(F.reshape(bins, (-1,)), self.nbins, 1, 0), 0),
                  np.dtype(self.dtype) if isinstance(self.dtype, str) else self.dtype)


def _confusion_matrix(self, labels, predictions, weights=None):
    pairs = F.stack([F.cast(labels, np.int64), F.cast(predictions, np.int64)], -1)
    dtype = np.dtype(self.dtype) if isinstance(self.dtype, str) else self.dtype
    values = F.ones(labels.shape, dtype) if weights is None else F.cast(weights, dtype)
    return F.tensor_scatter_add(F.zeros((self.num_classes, self.num_classes), dtype), pairs,
                                values)


_SQRT2 = math.sqrt(2.0)


def _parameterized_truncated_normal(self, shape, mean, stdevs, min, max):
    """Per batch row b, normal(mean[b], stdevs[b]) truncated to [min[b], max[b]]: the inverse
    CDF of a uniform draw between the CDF at the two bounds."""
    dims = tuple(int(s) for s in np.ravel(_static(shape, "ops.ParameterizedTruncatedNormal")))
    bcast = (dims[0],) + (1,) * (len(dims) - 1)
    mean, stdevs = F.reshape(mean, bcast), F.reshape(stdevs, bcast)

    def cdf(bound):
        return F.mul(F.add(F.erf(F.div(F.sub(F.reshape(bound, bcast), mean),
                                       F.mul(stdevs, _SQRT2))), 1.0), 0.5)
    lo, hi = cdf(min), cdf(max)
    u = F.add(lo, F.mul(F.sub(hi, lo), F.uniform(dims, 0.0, 1.0, self.seed or None,
                                                 mean.dtype)))
    z = F.mul(F.erfinv(F.sub(F.mul(u, 2.0), 1.0)), _SQRT2)
    return F.clamp(F.add(mean, F.mul(stdevs, z)), F.reshape(min, bcast), F.reshape(max, bcast))


SIMPLE: dict[str, Callable[..., Any]] = {
    "BatchToSpaceNDV2": lambda x, block_shape, crops: F.batch_to_space_nd(
        x, _static(block_shape, "ops.BatchToSpaceNDV2: block_shape"),
        _static(crops, "ops.BatchToSpaceNDV2: crops")),
    "ScalarToArray": lambda x: F.scalar_to_tensor(x),
    "TensorToTuple": lambda x: tuple(np.asarray(_static(x, "ops.TensorToTuple")).tolist()),
}

CONFIGURED: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {
    "BoundingBoxEncode": ({"means": (0.0, 0.0, 0.0, 0.0), "stds": (1.0, 1.0, 1.0, 1.0)},
                          _box_encode),
    "BoundingBoxDecode": ({"max_shape": (1, 1), "means": (0.0, 0.0, 0.0, 0.0),
                           "stds": (1.0, 1.0, 1.0, 1.0), "wh_ratio_clip": 0.016}, _box_decode),
    "RandomChoiceWithMask": ({"count": 256, "seed": 0, "seed2": 0}, _random_choice_with_mask),
    "CropAndResize": ({"method": "bilinear", "extrapolation_value": 0.0}, _crop_and_resize),
    "NoRepeatNGram": ({"ngram_size": 1}, _no_repeat_ngram),
    "Im2Col": ({"ksizes": 1, "strides": 1, "dilations": 1, "pads": 0}, _im2col),
    "Col2Im": ({"kernel_size": 1, "dilation": 1, "padding": 0, "stride": 1}, _col2im),
    "DepthwiseConv2dNative": ({"channel_multiplier": 1, "kernel_size": 1, "mode": 3,
                               "pad_mode": "valid", "pad": 0, "stride": 1, "dilation": 1,
                               "group": 1}, _depthwise_conv),
    "MaxPool3DWithArgmax": ({"ksize": 1, "strides": 1, "pads": 0, "dilation": (1, 1, 1),
                             "ceil_mode": False, "data_format": "NCDHW",
                             "argmax_type": np.int64},
                            lambda self, x: (lambda y, i: (y, F.cast(i, self.argmax_type)))(
                                *F.max_pool3d(x, self.ksize, self.strides, self.pads,
                                              self.dilation, self.ceil_mode, True))),
    "HistogramFixedWidth": ({"nbins": 100, "dtype": "int32"}, _histogram_fixed_width),
    "ConfusionMatrix": ({"num_classes": 2, "dtype": "int32"}, _confusion_matrix),
    "Padding": ({"pad_dim_size": 8}, lambda self, x: F.padding(x, self.pad_dim_size)),
    "ParameterizedTruncatedNormal": ({"seed": 0, "seed2": 0}, _parameterized_truncated_normal),
}


__all__ = sorted(set(SIMPLE) | set(CONFIGURED))
for _name, _fn in SIMPLE.items():
    globals()[_name] = simple_class(_name, _fn)
for _name, (_defaults, _call) in CONFIGURED.items():
    globals()[_name] = _configured_class(_name, _defaults, _call)
