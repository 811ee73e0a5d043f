"""Resizing: interpolate (nearest, linear, bilinear, trilinear, bicubic, area), pixel_shuffle
and pixel_unshuffle, unfold / fold (sliding blocks).

Every separable resize is one constant matrix per spatial axis (host numpy, a function of the
sizes only) applied with a matmul: the gradient is the transposed matmul, and both modes run
the same ops. unfold is conv2d with a one-hot kernel, fold its transpose (conv2d_input_grad).
"""
import math
import numbers
from typing import Optional, Sequence, Union

import numpy as np

from ..core.hints import ShapeLike
from ..core.tensor import Tensor
from . import functional as F
from .arguments import as_tensor, op_error
from .conv import conv2d_input_grad, conv2d_p
from .conv_nd import tuple_of

__all__ = ["interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
           "unfold", "fold"]

_MODES = {"nearest": 0, "nearest-exact": 0, "area": 0, "linear": 1, "bilinear": 2,
          "bicubic": 2, "trilinear": 3}


def apply_along(x: Tensor, axis: int, matrix: np.ndarray) -> Tensor:
    """x with axis `axis` mapped by the constant (out, in) `matrix`: sum_i matrix[o, i] x[.., i, ..]."""
    moved = F.moveaxis(x, axis, -1)
    out = F.matmul(moved, Tensor(np.ascontiguousarray(matrix.T).astype(x._data.dtype)))
    return F.moveaxis(out, -1, axis)


def _source(out_size, in_size, align_corners, scale, half_pixel=True):
    """Source coordinate of each output index (PyTorch's and MindSpore's convention; without
    half_pixel, the legacy dst * scale of ResizeBilinear(half_pixel_centers=False))."""
    dst = np.arange(out_size, dtype=np.float64)
    if align_corners:
        return dst * ((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    return (dst + 0.5) * scale - 0.5 if half_pixel else dst * scale


def _cubic(t, a=-0.75):
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


def resize_matrix(mode: str, in_size: int, out_size: int, align_corners: bool, scale: float,
                  half_pixel: bool = True) -> np.ndarray:
    """(out, in) matrix of one axis's resize; `scale` is in / out unless a scale factor
    was given (its reciprocal)."""
    m = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    if mode in ("nearest", "nearest-exact"):
        offset = 0.5 if mode == "nearest-exact" else 0.0
        src = np.minimum(np.floor((rows + offset) * scale).astype(int), in_size - 1)
        m[rows, src] = 1.0
    elif mode == "area":  # adaptive average pooling
        for o in rows:
            lo, hi = (o * in_size) // out_size, -(-((o + 1) * in_size) // out_size)
            m[o, lo:hi] = 1.0 / (hi - lo)
    elif mode == "bicubic":
        src = _source(out_size, in_size, align_corners, scale)
        base = np.floor(src).astype(int)
        for k in range(-1, 3):
            idx = np.clip(base + k, 0, in_size - 1)
            np.add.at(m, (rows, idx), _cubic(src - (base + k)))
    else:  # linear along this axis
        src = np.maximum(_source(out_size, in_size, align_corners, scale, half_pixel), 0.0)
        lo = np.minimum(np.floor(src).astype(int), in_size - 1)
        hi = np.minimum(lo + 1, in_size - 1)
        frac = src - lo
        np.add.at(m, (rows, lo), 1.0 - frac)
        np.add.at(m, (rows, hi), frac)
    return m


def interpolate(input: Tensor, size: Optional[ShapeLike] = None,
                scale_factor: Optional[Union[float, Sequence[float]]] = None, mode: str = "nearest",
                align_corners: Optional[bool] = None,
                recompute_scale_factor: Optional[bool] = None) -> Tensor:
    """Resize the spatial axes of an (N, C, *spatial) input (MindSpore's ops.interpolate).

    mode: 'nearest' | 'nearest-exact' (1-3 spatial axes), 'linear' (3-D input), 'bilinear' |
    'bicubic' (4-D), 'trilinear' (5-D), 'area' (adaptive average). Give `size` or
    `scale_factor` (a float or one per axis). align_corners (linear modes): map the corner
    pixels onto each other. With a scale factor the source coordinates use it unless
    recompute_scale_factor. Example:

        >>> x = ms.Tensor(np.array([[[1.0, 2.0]]], np.float32))
        >>> out = ops.interpolate(x, size=4, mode='linear', align_corners=True)
        >>> out.asnumpy().astype(float).round(2).tolist()
        [[[1.0, 1.33, 1.67, 2.0]]]
    """
    x = as_tensor(input)
    if mode not in _MODES:
        raise ValueError(f"ops.interpolate: mode must be one of {tuple(_MODES)}, got {mode!r}")
    spatial = x.ndim - 2
    if _MODES[mode] and spatial != _MODES[mode] or spatial < 1 or spatial > 3:
        raise op_error("interpolate", (x,), f"mode {mode!r} needs a "
                       f"{_MODES[mode] + 2 if _MODES[mode] else '3-, 4- or 5'}-D input")
    if align_corners and mode in ("nearest", "nearest-exact", "area"):
        raise ValueError(f"ops.interpolate: align_corners is only for the linear and cubic "
                         f"modes, not {mode!r}")
    if (size is None) == (scale_factor is None):
        raise ValueError("ops.interpolate: give exactly one of size and scale_factor")
    sizes = tuple(x.shape[2:])
    if size is not None:
        out = tuple_of(size, spatial, "size", "interpolate")
        scales = [i / o for i, o in zip(sizes, out)]
    else:
        assert scale_factor is not None  # exactly one of the two was given
        # (int, float: for mypy, which reads no ABCs)
        factors = ((scale_factor,) * spatial
                   if isinstance(scale_factor, (int, float, numbers.Real)) else tuple(scale_factor))
        if len(factors) != spatial or min(factors) <= 0:
            raise ValueError(f"ops.interpolate: scale_factor must be positive, one per spatial "
                             f"axis, got {scale_factor!r}")
        out = tuple(math.floor(s * f) for s, f in zip(sizes, factors))
        scales = ([i / o for i, o in zip(sizes, out)] if recompute_scale_factor
                  else [1.0 / f for f in factors])
    for axis, (i, o, s) in enumerate(zip(sizes, out, scales)):
        if i != o or mode in ("bicubic",) or s != 1.0:
            x = apply_along(x, axis + 2, resize_matrix(mode, i, o, bool(align_corners), s))
    return x


def upsample(input: Tensor, size: Optional[ShapeLike] = None,
             scale_factor: Optional[Union[float, Sequence[float]]] = None, mode: str = "nearest",
             align_corners: Optional[bool] = None,
             recompute_scale_factor: Optional[bool] = None) -> Tensor:
    """ops.interpolate under its older name."""
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(..., C * r * r, H, W) -> (..., C, H * r, W * r). Example:

        >>> ops.pixel_shuffle(ops.ones((1, 8, 2, 3)), 2).shape
        (1, 2, 4, 6)
    """
    x, r = as_tensor(input), int(upscale_factor)
    if x.ndim < 3 or r < 1 or x.shape[-3] % (r * r):
        raise op_error("pixel_shuffle", (x,), f"input must be (..., C * {r}^2, H, W) with a "
                       f"positive upscale_factor")
    lead, (c, h, w) = tuple(x.shape[:-3]), x.shape[-3:]
    y = F.reshape(x, (-1, c // (r * r), r, r, h, w))
    y = F.transpose(y, (0, 1, 4, 2, 5, 3))
    return F.reshape(y, lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(..., C, H * r, W * r) -> (..., C * r * r, H, W), the inverse of pixel_shuffle.

        >>> ops.pixel_unshuffle(ops.ones((1, 2, 4, 6)), 2).shape
        (1, 8, 2, 3)
    """
    x, r = as_tensor(input), int(downscale_factor)
    if x.ndim < 3 or r < 1 or x.shape[-1] % r or x.shape[-2] % r:
        raise op_error("pixel_unshuffle", (x,), f"input must be (..., C, H, W) with H and W "
                       f"multiples of {r}")
    lead, (c, h, w) = tuple(x.shape[:-3]), x.shape[-3:]
    y = F.reshape(x, (-1, c, h // r, r, w // r, r))
    y = F.transpose(y, (0, 1, 3, 5, 2, 4))
    return F.reshape(y, lead + (c * r * r, h // r, w // r))


def _block_geometry(op, kernel_size, dilation, padding, stride):
    kernel = tuple_of(kernel_size, 2, "kernel_size", op)
    dilation, stride = tuple_of(dilation, 2, "dilation", op), tuple_of(stride, 2, "stride", op)
    pads = (padding,) * 2 if isinstance(padding, numbers.Integral) else tuple(padding)
    if len(pads) != 2 or min(pads) < 0:
        raise ValueError(f"ops.{op}: padding must be a non-negative int or (h, w), got "
                         f"{padding!r}")
    return kernel, dilation, (pads[0], pads[0], pads[1], pads[1]), stride


def _one_hot_kernel(kernel, dtype):
    """(kh * kw, 1, kh, kw): output channel i * kw + j reads kernel offset (i, j)."""
    k = kernel[0] * kernel[1]
    return Tensor(np.eye(k, dtype=dtype).reshape(k, 1, *kernel))


def unfold(input: Tensor, kernel_size: ShapeLike, dilation: ShapeLike = 1, padding: ShapeLike = 0,
           stride: ShapeLike = 1) -> Tensor:
    """Sliding blocks of an (N, C, H, W) input as columns (N, C * kh * kw, L), channel-major
    (MindSpore's ops.unfold, PyTorch's order). Example:

        >>> ops.unfold(ops.ones((1, 2, 4, 4)), 2).shape
        (1, 8, 9)
    """
    x = as_tensor(input)
    if x.ndim != 4:
        raise op_error("unfold", (x,), "input must be 4-D (N, C, H, W)")
    kernel, dilations, pads, strides = _block_geometry("unfold", kernel_size, dilation,
                                                       padding, stride)
    n, c = x.shape[:2]
    k = kernel[0] * kernel[1]
    weight = F.tile(_one_hot_kernel(kernel, x._data.dtype), (c, 1, 1, 1))
    cols = conv2d_p(x, weight, stride=strides, padding=pads, dilation=dilations, groups=c)
    return F.reshape(cols, (n, c * k, -1))


def fold(input: Tensor, output_size: ShapeLike, kernel_size: ShapeLike, dilation: ShapeLike = 1,
         padding: ShapeLike = 0, stride: ShapeLike = 1) -> Tensor:
    """Sum sliding blocks (N, C * kh * kw, L) back into an (N, C, *output_size) tensor: the
    adjoint of unfold. Example:

        >>> ops.fold(ops.ones((1, 8, 9)), (4, 4), 2).shape
        (1, 2, 4, 4)
    """
    x = as_tensor(input)
    kernel, dilations, pads, strides = _block_geometry("fold", kernel_size, dilation,
                                                       padding, stride)
    out_hw = tuple_of(output_size, 2, "output_size", "fold")
    k = kernel[0] * kernel[1]
    rows = [(o + p0 + p1 - d * (kk - 1) - 1) // s + 1
            for o, p0, p1, d, kk, s in zip(out_hw, pads[::2], pads[1::2], dilations, kernel,
                                           strides)]
    if x.ndim != 3 or x.shape[1] % k or x.shape[2] != rows[0] * rows[1]:
        raise op_error("fold", (x,), f"input must be (N, C * {k}, {rows[0] * rows[1]}) for "
                       f"output_size {out_hw}")
    n, c = x.shape[0], x.shape[1] // k
    weight = F.tile(_one_hot_kernel(kernel, x._data.dtype), (c, 1, 1, 1))
    cols = F.reshape(x, (n, c * k) + tuple(rows))
    return conv2d_input_grad(cols, weight, input_size=out_hw, stride=strides, padding=pads,
                             dilation=dilations, groups=c)


def channel_shuffle(x: Tensor, groups: int) -> Tensor:
    """Interleaves the channels of `groups` groups: (N, C, *) viewed as (N, groups,
    C / groups, *) with the two group axes swapped (ShuffleNet).

        >>> x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 4, 1))
        >>> ops.channel_shuffle(x, 2).reshape(-1).tolist()
        [0.0, 2.0, 1.0, 3.0]
    """
    x = as_tensor(x)
    groups = int(groups)
    if groups < 1 or x.ndim < 3 or x.shape[1] % groups:
        raise op_error("channel_shuffle", (x,), f"the input must be (N, C, *) with C a multiple "
                       f"of groups={groups}")
    n, c = x.shape[:2]
    rest = tuple(x.shape[2:])
    grouped = F.reshape(x, (n, groups, c // groups) + rest)
    perm = (0, 2, 1) + tuple(range(3, grouped.ndim))
    return F.reshape(F.transpose(grouped, perm), (n, c) + rest)
