"""MindSpore Primitive classes the model zoo calls (`ops.Conv3D(8, 3)(x, w)`,
`ops.MirrorPad()(x, paddings)`, `ops.ScatterMax()(var, indices, updates)`...): layers, layout,
reductions, scatter and special functions, each a front for the `ops` function holding the
formula (rows of SIMPLE and CONFIGURED, as in classes_ext).

    >>> ops.EqualCount()(ms.Tensor([1, 2, 3]), ms.Tensor([1, 0, 3])).tolist()
    [2]
"""
from typing import Any, Callable

import numpy as np

from ..core.tensor import Tensor
from . import assorted
from . import functional as F
from .classes import simple_class
from .classes_ext import _configured_class
from .conv import conv2d_input_grad
from .conv_nd import explicit_pads
from .resize import apply_along, resize_matrix

SIMPLE: dict[str, Callable[..., Any]] = {
    "GeLU": F.gelu, "Gelu": F.gelu, "MatrixExp": F.matrix_exp, "NextAfter": F.nextafter,
    "PopulationCount": F.population_count, "AssignSub": F.assign_sub,
    "LuSolve": lambda x, lu_data, lu_pivots: F.lu_solve(x, lu_data, lu_pivots),
    "BesselI0": F.bessel_i0, "BesselI0e": F.bessel_i0e, "BesselI1": F.bessel_i1,
    "BesselI1e": F.bessel_i1e, "BesselJ0": F.bessel_j0, "BesselJ1": F.bessel_j1,
    "BesselK0": F.bessel_k0, "BesselK0e": F.bessel_k0e, "BesselK1": F.bessel_k1,
    "BesselK1e": F.bessel_k1e, "BesselY0": F.bessel_y0, "BesselY1": F.bessel_y1,
    "TensorScatterMul": F.tensor_scatter_mul, "TensorScatterDiv": F.tensor_scatter_div,
    "TensorScatterMax": F.tensor_scatter_max, "TensorScatterMin": F.tensor_scatter_min,
    "UnsortedSegmentMax": F.unsorted_segment_max, "UnsortedSegmentMin": F.unsorted_segment_min,
    "UnsortedSegmentProd": F.unsorted_segment_prod, "SparseGatherV2": F.gather,
    "EqualCount": lambda x, y: F.reshape(F.cast(F.sum(F.equal(x, y)), x.dtype), (1,)),
}


def _ints(value: Any) -> tuple:
    """A static size or padding given as ints, a tuple or a (constant) Tensor."""
    if isinstance(value, Tensor):
        value = value.asnumpy().tolist()
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _spatial(value: Any, n: int) -> Any:
    """MindSpore's kernel/stride attributes: an int, n values, or n + 2 with the (1, 1) of N, C."""
    if isinstance(value, (tuple, list)) and len(value) == n + 2:
        return tuple(value[2:])
    return value


# ----- convolutions -----

def _conv2d_backprop_input(self, dout, weight, input_size):
    """The gradient of conv2d in its input: a transposed convolution of dout, sized as the
    forward input `input_size` (N, C, H, W)."""
    size = _ints(input_size)[-2:]
    kernel = tuple(weight.shape[2:])
    stride, dilation = _pair(_spatial(self.stride, 2)), _pair(_spatial(self.dilation, 2))
    mode = str(self.pad_mode).lower()
    pad = self.pad_list if self.pad_list else self.pad
    pads = explicit_pads("Conv2DBackpropInput", mode, pad if mode == "pad" else 0, size, kernel,
                         stride, dilation)
    return conv2d_input_grad(dout, weight, input_size=tuple(size), stride=stride,
                             padding=pads[0] + pads[1], dilation=dilation, groups=self.group)


def _pair(value: Any) -> tuple:
    return (value, value) if isinstance(value, int) else tuple(value)


_CONV2D_BACKPROP = ({"out_channel": 1, "kernel_size": 1, "pad_mode": "valid", "pad": 0,
                     "pad_list": None, "mode": 1, "stride": 1, "dilation": 1, "group": 1,
                     "data_format": "NCHW"}, _conv2d_backprop_input)


# ----- pooling and padding -----

def _max_pool_with_argmax(self, x):
    """(output, argmax): argmax the flat index of each maximum within its H * W plane."""
    out, index = F.max_pool2d(x, _spatial(self.kernel_size, 2), _spatial(self.strides, 2),
                              return_indices=True, pad_mode=str(self.pad_mode).lower())
    return out, F.cast(index, np.int32)


def _max_pool_with_argmax_v2(self, x):
    out, index = F.max_pool2d(x, self.kernel_size, self.strides or self.kernel_size, self.pads,
                              self.dilation, return_indices=True, ceil_mode=self.ceil_mode)
    return out, F.cast(index, self.argmax_type)


def _max_unpool(unpool):
    def call(self, x, argmax):
        size = _ints(self.output_shape)[2:] if self.output_shape else None
        return unpool(x, argmax, self.ksize, self.strides or self.ksize, self.pads, size)
    return call


def _mirror_pad(self, x, paddings):
    """REFLECT mirrors without the edge element (ops.pad 'reflect'); SYMMETRIC with it."""
    pairs = np.array(_ints(paddings), dtype=np.int64).reshape(-1, 2).tolist()
    if self.mode == "REFLECT":
        return F.pad(x, tuple(map(tuple, pairs)), mode="reflect")
    if self.mode != "SYMMETRIC":
        raise ValueError(f"ops.MirrorPad: mode must be 'REFLECT' or 'SYMMETRIC', got {self.mode!r}")
    for axis, (before, after) in enumerate(pairs):
        n = x.shape[axis]
        parts = [F.flip(F.slice_axis(x, axis, 0, before), axis)] if before else []
        parts.append(x)
        parts += [F.flip(F.slice_axis(x, axis, n - after, n), axis)] if after else []
        x = F.concat(parts, axis) if len(parts) > 1 else x
    return x


_PAD_V3_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate",
                 "circular": "circular"}


def _pad_v3(self, x, paddings, constant_value=None):
    """paddings from the last axis: (begin, end) pairs, or with paddings_contiguous=False all
    the begins, then all the ends."""
    flat = _ints(paddings)
    if not self.paddings_contiguous:
        half = len(flat) // 2
        flat = tuple(v for pair in zip(flat[:half], flat[half:]) for v in pair)
    if self.mode not in _PAD_V3_MODES:
        raise ValueError(f"ops.PadV3: mode must be one of {tuple(_PAD_V3_MODES)}, got {self.mode!r}")
    value = None
    if self.mode == "constant":
        value = 0 if constant_value is None else constant_value
        value = float(value.asnumpy()) if isinstance(value, Tensor) else value
    return F.pad(x, flat, mode=_PAD_V3_MODES[self.mode], value=value)


# ----- resizing (TensorFlow's coordinate conventions) -----

def _resize_linear(x, sizes, align_corners, half_pixel):
    """Linear resize of x's last len(sizes) axes, one constant matrix per axis."""
    for k, out in enumerate(sizes):
        axis = x.ndim - len(sizes) + k
        matrix = resize_matrix("linear", x.shape[axis], int(out), align_corners,
                               x.shape[axis] / int(out), half_pixel)
        x = apply_along(x, axis, matrix)
    return x


def _resize_bilinear_v2(self, x, size):
    if self.align_corners and self.half_pixel_centers:
        raise ValueError("ops.ResizeBilinearV2: align_corners and half_pixel_centers cannot "
                         "both be True")
    return _resize_linear(x, _ints(size), self.align_corners, self.half_pixel_centers)


_LINEAR_1D_MODES = ("align_corners", "half_pixel", "asymmetric")


def _resize_linear_1d(self, x, size):
    mode = self.coordinate_transformation_mode
    if mode not in _LINEAR_1D_MODES:
        raise ValueError(f"ops.ResizeLinear1D: coordinate_transformation_mode must be one of "
                         f"{_LINEAR_1D_MODES}, got {mode!r}")
    return _resize_linear(x, _ints(size), mode == "align_corners", mode == "half_pixel")


def _upsample_3d(mode):
    def call(self, x, output_size=None, scales=None):
        if (output_size is None) == (scales is None):
            raise ValueError(f"ops.Upsample{'Nearest' if mode == 'nearest' else 'Trilinear'}3D: "
                             "give exactly one of output_size and scales")
        size = None if output_size is None else _ints(output_size)
        scale = None if scales is None else tuple(float(s) for s in _ints(scales))
        corners = getattr(self, "align_corners", None) if mode != "nearest" else None
        return F.interpolate(x, size, scale, mode=mode, align_corners=corners)
    return call


# ----- layout -----

def _split_v(self, x):
    sizes = list(self.size_splits)
    if len(sizes) != self.num_split:
        raise ValueError(f"ops.SplitV: num_split {self.num_split} != len(size_splits) "
                         f"{len(sizes)}")
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[self.split_dim] - (sum(sizes) + 1)
    return F.split(x, sizes, self.split_dim)


def _log_softmax_ext(self, x, dim=None, dtype=None):
    """dim None: 0 for 0-, 1- and 3-D inputs, else 1 (the legacy implicit axis)."""
    x = F.cast(x, dtype) if dtype is not None else x
    return F.log_softmax(x, (0 if x.ndim in (0, 1, 3) else 1) if dim is None else dim)


# ----- reductions and special functions -----

def _nth_element(self, x, n):
    """The n-th smallest (largest with reverse) value along the last axis."""
    n = int(n.asnumpy()) if isinstance(n, Tensor) else int(n)
    if not 0 <= n < x.shape[-1]:
        raise ValueError(f"ops.NthElement: n must be in [0, {x.shape[-1]}), got {n}")
    ordered = F.sort(x, -1, self.reverse)[0]
    return F.squeeze(F.slice_axis(ordered, -1, n, n + 1), -1)


def _quantile(self, x, q):
    """dim 10000: over all elements; a 0-D q gives no quantile axis."""
    fn = F.nanquantile if self.ignore_nan else F.quantile
    out = fn(x, q, None if self.dim == 10000 else self.dim, self.keep_dims)
    return F.squeeze(out, 0) if isinstance(q, Tensor) and q.ndim == 0 else out


def _triangular_solve(self, matrix, rhs):
    """Only the `lower` (or upper) triangle of matrix counts, as in MindSpore."""
    triangle = F.tril(matrix) if self.lower else F.triu(matrix)
    return F.matrix_solve(triangle, rhs, self.adjoint)


def _hamming(self, window_length):
    # alpha - beta * cos(2 pi n / (N - 1)) written over hann = (1 - cos) / 2
    hann = assorted.hann_window(int(_ints(window_length)[0]), self.periodic, dtype=np.float64)
    return F.cast(F.add(F.mul(hann, 2.0 * self.beta), self.alpha - self.beta), self.dtype)


# ----- scatter, gather -----

def _embedding_lookup(self, params, indices, offset):
    """Rows indices - offset of params; indices outside [0, rows) give rows of zeros."""
    local = F.sub(indices, offset)
    inside = F.logical_and(F.greater_equal(local, 0), F.less(local, params.shape[0]))
    rows = F.gather(params, F.where(inside, local, F.zeros_like(local)), 0)
    return F.mul(rows, F.cast(F.reshape(inside, inside.shape + (1,) * (params.ndim - 1)),
                              params.dtype))


def _index_put(self, x, values, indices):
    """x with x[indices] set to (or, accumulate=1, increased by) values."""
    shape = np.broadcast_shapes(*(tuple(i.shape) for i in indices))
    index = F.stack([F.broadcast_to(i, shape) for i in indices], -1)
    updates = F.broadcast_to(values, index.shape[:-1] + tuple(x.shape[len(indices):]))
    updates = F.cast(updates, x.dtype)
    scatter = F.tensor_scatter_add if self.accumulate else F.tensor_scatter_update
    return scatter(x, index, updates)


def _masked_scatter(self, x, mask, updates):
    """x with its masked positions (in row-major order) taken from updates' first elements."""
    mask = F.broadcast_to(mask, x.shape)
    flat_mask = F.reshape(mask, (-1,))
    order = F.sub(F.cumsum(F.cast(flat_mask, np.int64), 0), 1)
    source = F.gather(F.reshape(updates, (-1,)), F.maximum(order, 0), 0)
    return F.where(mask, F.reshape(source, x.shape), x)


def _scatter(fn):
    return ({"use_locking": False}, lambda self, x, indices, updates: fn(x, indices, updates))


CONFIGURED: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {
    # convolutions
    "Conv2DBackpropInput": _CONV2D_BACKPROP, "Conv2DTranspose": _CONV2D_BACKPROP,
    "Conv3D": ({"out_channel": 1, "kernel_size": 1, "mode": 1, "pad_mode": "valid", "pad": 0,
                "stride": 1, "dilation": 1, "group": 1, "data_format": "NCDHW"},
               lambda self, x, w, bias=None: F.conv3d(
                   x, w, bias, _spatial(self.stride, 3), str(self.pad_mode).lower(), self.pad,
                   _spatial(self.dilation, 3), self.group)),
    "Conv3DTranspose": ({"in_channel": 1, "out_channel": 1, "kernel_size": 1, "mode": 1,
                         "pad_mode": "valid", "pad": 0, "stride": 1, "dilation": 1, "group": 1,
                         "output_padding": 0, "data_format": "NCDHW"},
                        lambda self, dout, w, bias=None: F.conv_transpose3d(
                            dout, w, bias, _spatial(self.stride, 3), str(self.pad_mode).lower(),
                            self.pad, _spatial(self.output_padding, 3),
                            _spatial(self.dilation, 3), self.group)),
    # pooling
    "MaxPool3D": ({"kernel_size": 1, "strides": 1, "pad_mode": "VALID", "pad_list": 0,
                   "ceil_mode": None, "data_format": "NCDHW"},
                  lambda self, x: F.max_pool3d(x, _spatial(self.kernel_size, 3),
                                               _spatial(self.strides, 3), self.pad_list, 1,
                                               bool(self.ceil_mode),
                                               pad_mode=str(self.pad_mode).lower())),
    "AvgPool3D": ({"kernel_size": 1, "strides": 1, "pad_mode": "valid", "pad": 0,
                   "ceil_mode": False, "count_include_pad": True, "divisor_override": 0,
                   "data_format": "NCDHW"},
                  lambda self, x: F.avg_pool3d(x, _spatial(self.kernel_size, 3),
                                               _spatial(self.strides, 3), self.pad,
                                               self.ceil_mode, self.count_include_pad,
                                               self.divisor_override,
                                               pad_mode=str(self.pad_mode).lower())),
    "AdaptiveAvgPool2D": ({"output_size": None},
                          lambda self, x: F.adaptive_avg_pool2d(x, self.output_size)),
    "AdaptiveAvgPool3D": ({"output_size": None},
                          lambda self, x: F.adaptive_avg_pool3d(x, self.output_size)),
    "AdaptiveMaxPool2D": ({"output_size": None},
                          lambda self, x: F.adaptive_max_pool2d(x, self.output_size, True)),
    "AdaptiveMaxPool3D": ({}, lambda self, x, output_size: (lambda y, i: (y, F.cast(
        i, np.int32)))(*F.adaptive_max_pool3d(x, _ints(output_size), True))),
    "MaxUnpool2D": ({"ksize": 1, "strides": 0, "pads": 0, "output_shape": (),
                     "data_format": "NCHW"}, _max_unpool(F.max_unpool2d)),
    "MaxUnpool3D": ({"ksize": 1, "strides": 0, "pads": 0, "output_shape": (),
                     "data_format": "NCDHW"}, _max_unpool(F.max_unpool3d)),
    "MaxPoolWithArgmax": ({"kernel_size": 1, "strides": 1, "pad_mode": "valid",
                           "data_format": "NCHW"}, _max_pool_with_argmax),
    "MaxPoolWithArgmaxV2": ({"kernel_size": 1, "strides": None, "pads": 0, "dilation": (1, 1),
                             "ceil_mode": False, "argmax_type": np.int64},
                            _max_pool_with_argmax_v2),
    # padding and resizing
    "MirrorPad": ({"mode": "REFLECT"}, _mirror_pad),
    "PadV3": ({"mode": "constant", "paddings_contiguous": True}, _pad_v3),
    "ResizeBilinearV2": ({"align_corners": False, "half_pixel_centers": False},
                         _resize_bilinear_v2),
    "ResizeLinear1D": ({"coordinate_transformation_mode": "align_corners"}, _resize_linear_1d),
    "UpsampleNearest3D": ({}, _upsample_3d("nearest")),
    "UpsampleTrilinear3D": ({"align_corners": False}, _upsample_3d("trilinear")),
    # layout
    "BatchToSpace": ({"block_size": 2, "crops": ((0, 0), (0, 0))},
                     lambda self, x: F.batch_to_space_nd(x, (self.block_size,) * 2, self.crops)),
    "BatchToSpaceND": ({"block_shape": 2, "crops": ((0, 0), (0, 0))},
                       lambda self, x: F.batch_to_space_nd(x, self.block_shape, self.crops)),
    "SpaceToBatch": ({"block_size": 2, "paddings": ((0, 0), (0, 0))},
                     lambda self, x: F.space_to_batch_nd(x, (self.block_size,) * 2,
                                                         self.paddings)),
    "SpaceToBatchND": ({"block_shape": 2, "paddings": ((0, 0), (0, 0))},
                       lambda self, x: F.space_to_batch_nd(x, self.block_shape, self.paddings)),
    "ChannelShuffle": ({"group": 1}, lambda self, x: F.channel_shuffle(x, self.group)),
    "ReverseSequence": ({"seq_dim": 0, "batch_dim": 0},
                        lambda self, x, seq_lengths: F.reverse_sequence(
                            x, seq_lengths, self.seq_dim, self.batch_dim)),
    "SplitV": ({"size_splits": (), "split_dim": 0, "num_split": 1}, _split_v),
    "LogSoftmaxExt": ({}, _log_softmax_ext),
    "RmsNorm": ({"epsilon": 1e-6}, lambda self, x, gamma: F.rms_norm(x, gamma, self.epsilon)),
    # reductions and linear algebra
    "LpNorm": ({"axis": 0, "p": 2, "keep_dims": False, "epsilon": 1e-12},
               lambda self, x: F.vector_norm(x, self.p, self.axis, self.keep_dims)),
    "EuclideanNorm": ({"keep_dims": False}, lambda self, x, axes: F.vector_norm(
        x, 2, _ints(axes), self.keep_dims)),
    "CountNonZero": ({"dims": None}, lambda self, x: F.count_nonzero(
        x, () if self.dims is None else self.dims, dtype=np.int64)),
    "InTopK": ({"k": 1}, lambda self, x1, x2: F.intopk(x1, x2, self.k)),
    "Renorm": ({"p": 2, "dim": 0, "maxnorm": 1.0},
               lambda self, x: F.renorm(x, self.p, self.dim, self.maxnorm)),
    "Quantile": ({"dim": 10000, "keep_dims": False, "ignore_nan": False}, _quantile),
    "NthElement": ({"reverse": False}, _nth_element),
    "MatrixTriangularSolve": ({"lower": True, "adjoint": False}, _triangular_solve),
    # windows
    "BartlettWindow": ({"periodic": True, "dtype": np.float32}, lambda self, n: F.bartlett_window(
        int(_ints(n)[0]), self.periodic, dtype=self.dtype)),
    "BlackmanWindow": ({"periodic": True, "dtype": np.float32}, lambda self, n: F.blackman_window(
        int(_ints(n)[0]), self.periodic, dtype=self.dtype)),
    "HammingWindow": ({"periodic": True, "alpha": 0.54, "beta": 0.46, "dtype": np.float32},
                      _hamming),
    # scatter and gather (the Scatter* rows write into the Parameter they are given)
    "ScatterMax": _scatter(F.scatter_max), "ScatterMin": _scatter(F.scatter_min),
    "ScatterMul": _scatter(F.scatter_mul), "ScatterDiv": _scatter(F.scatter_div),
    "ScatterNdMax": _scatter(F.scatter_nd_max), "ScatterNdMin": _scatter(F.scatter_nd_min),
    "ScatterNdMul": _scatter(F.scatter_nd_mul), "ScatterNdDiv": _scatter(F.scatter_nd_div),
    "InplaceIndexAdd": ({"axis": 0}, lambda self, var, indices, updates: F.inplace_index_add(
        var, indices, updates, self.axis)),
    "EmbeddingLookup": ({}, _embedding_lookup),
    "IndexPut": ({"accumulate": 0}, _index_put),
    "MaskedScatter": ({}, _masked_scatter),
}


__all__ = sorted(set(SIMPLE) | set(CONFIGURED))
for _name, _fn in SIMPLE.items():
    globals()[_name] = simple_class(_name, _fn)
for _name, (_defaults, _call) in CONFIGURED.items():
    globals()[_name] = _configured_class(_name, _defaults, _call)
