"""More pooling, all composed of existing ops (their gradients come with them):

* max_pool3d / avg_pool3d: the depth windows reduced first (a max or sum over kd depth
  slices), then the 2-D pool over H and W of every output depth;
* adaptive average pooling: one constant averaging matrix per axis (resize's 'area');
* adaptive max pooling: a constant table of each output cell's input positions, gathered and
  reduced (bins overlap and vary in size, so no fixed window);
* lp_pool1d / lp_pool2d: (sum of x^p over the window)^(1/p) from avg_pool2d;
* max_unpool2d: a scatter of the values to their argmax positions.
"""
import numbers
from typing import Optional, Sequence, Union

import numpy as np

from ..core.hints import ShapeLike
from ..core.tensor import Tensor
from . import functional as F
from .arguments import as_tensor, op_error
from .conv_nd import explicit_pads, tuple_of
from .pool import avg_pool2d, max_pool2d
from .resize import apply_along, resize_matrix
from .window import span

__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "avg_pool1d", "lp_pool1d", "lp_pool2d", "max_unpool1d",
           "max_unpool2d", "max_unpool3d"]


# ***** 3-D max and average pooling *****

def _ceil_extra(size, extent, stride, before, after):
    """Padding ceil_mode adds at the end (the last window starts inside input or padding)."""
    out = -(-(size + before + after - extent) // stride) + 1
    if (out - 1) * stride >= size + before:
        out -= 1
    return max(0, (out - 1) * stride + extent - (size + before + after))


def _geometry3d(op, x, kernel_size, stride, padding, dilation, pad_mode, ceil_mode):
    if x.ndim != 5:
        raise op_error(op, (x,), "input must be 5-D (N, C, D, H, W)")
    kernel = tuple_of(kernel_size, 3, "kernel_size", op)
    stride = kernel if stride is None else tuple_of(stride, 3, "stride", op)
    dilation = tuple_of(dilation, 3, "dilation", op)
    pads = explicit_pads(op, pad_mode, padding, x.shape[2:], kernel, stride, dilation)
    if any(max(p) > span(k, d) // 2 for p, k, d in zip(pads, kernel, dilation)):
        raise op_error(op, (x,), f"padding {pads} must be at most half the kernel {kernel}")
    extra = tuple(_ceil_extra(s, span(k, d), st, *p) if ceil_mode else 0
                  for s, k, d, st, p in zip(x.shape[2:], kernel, dilation, stride, pads))
    return kernel, stride, dilation, pads, extra


def _depth_windows(x, kd, stride, dilation, before, after, fill):
    """(N, C, Do, kd, H, W): the kd depth slices of every output depth, `fill` padding."""
    if before or after:
        x = F.pad(x, ((0, 0), (0, 0), (before, after), (0, 0), (0, 0)), value=fill)
    out_d = (x.shape[2] - span(kd, dilation)) // stride + 1
    if out_d < 1:
        raise op_error("pool3d", (x,), "the kernel does not fit the padded depth")
    return F.stack([x[:, :, k * dilation:k * dilation + stride * (out_d - 1) + 1:stride]
                    for k in range(kd)], 3)


def _per_depth(fn, planes):
    """fn over (N * Do, C, H, W) of an (N, C, Do, H, W) tensor."""
    n, c, d = planes.shape[:3]
    flat = F.reshape(F.transpose(planes, (0, 2, 1, 3, 4)), (n * d, c) + planes.shape[3:])
    out = fn(flat)
    return F.transpose(F.reshape(out, (n, d, c) + out.shape[2:]), (0, 2, 1, 3, 4))


def max_pool3d(x: Tensor, kernel_size: ShapeLike, stride: Optional[ShapeLike] = None,
               padding: ShapeLike = 0, dilation: ShapeLike = 1, ceil_mode: bool = False,
               return_indices: bool = False, *,
               pad_mode: str = "pad") -> Union[Tensor, tuple[Tensor, Tensor]]:
    """3-D max pooling of an (N, C, D, H, W) tensor (stride defaults to the kernel size;
    padding: an int, (d, h, w) or 6 values, never chosen as the max). Example:

        >>> ops.max_pool3d(ops.ones((1, 1, 4, 4, 4)), 2).shape
        (1, 1, 2, 2, 2)
    """
    x = as_tensor(x)
    if not isinstance(return_indices, bool):
        raise TypeError(f"ops.max_pool3d: return_indices must be a bool, got {return_indices!r}")
    kernel, strides, dilations, pads, extra = _geometry3d(
        "max_pool3d", x, kernel_size, stride, padding, dilation, pad_mode, ceil_mode)
    deep = F.amax(_depth_windows(x, kernel[0], strides[0], dilations[0], pads[0][0],
                                 pads[0][1] + extra[0], float("-inf")), 3)
    out = _per_depth(lambda p: max_pool2d(p, kernel[1:], strides[1:], pads[1] + pads[2],
                                          dilations[1:], ceil_mode=ceil_mode), deep)
    if not return_indices:
        return out
    pads = tuple((before, after + e) for (before, after), e in zip(pads, extra))
    return out, _argmax_positions3d(x, kernel, strides, dilations, pads)


def _argmax_positions3d(x, kernel, stride, dilation, pads):
    """int64 (N, C, Do, Ho, Wo): the flat position d * H * W + h * W + w in its input volume
    of each window's first maximum in scan order (d, then h, then w), as PyTorch's and
    MindSpore's MaxPool3d report it; no gradient. The windows' cells are stacked on a last
    axis in scan order and argmax picks the first maximum."""
    padded = F.pad(x, ((0, 0), (0, 0)) + pads, value=float("-inf"))
    outs = [(size - span(k, d)) // st + 1
            for size, k, d, st in zip(padded.shape[2:], kernel, dilation, stride)]
    cells = [padded[:, :, a * dilation[0]:a * dilation[0] + stride[0] * (outs[0] - 1) + 1:stride[0],
                    b * dilation[1]:b * dilation[1] + stride[1] * (outs[1] - 1) + 1:stride[1],
                    c * dilation[2]:c * dilation[2] + stride[2] * (outs[2] - 1) + 1:stride[2]]
             for a in range(kernel[0]) for b in range(kernel[1]) for c in range(kernel[2])]
    local = F.cast(F.argmax(F.stack(cells, -1), -1), np.int64)
    # the cell (a, b, c) of window (i, j, k) is input voxel origin + (a, b, c) * dilation
    h, w = x.shape[3], x.shape[4]
    origins = [np.arange(n) * st - before for n, st, (before, _) in zip(outs, stride, pads)]
    origin = Tensor((origins[0][:, None, None] * h * w + origins[1][None, :, None] * w
                     + origins[2][None, None, :]).astype(np.int64))
    a = F.floor_div(local, kernel[1] * kernel[2])
    b = F.floor_mod(F.floor_div(local, kernel[2]), kernel[1])
    c = F.floor_mod(local, kernel[2])
    step = F.add(F.add(F.mul(a, dilation[0] * h * w), F.mul(b, dilation[1] * w)),
                 F.mul(c, dilation[2]))
    return F.add(step, origin)


def _counts(size, kernel, stride, counted, total):
    """Cells of each window (one axis) inside the input grown by `counted` padding."""
    inside = np.zeros(size + total[0] + total[1])
    inside[total[0] - counted[0]:total[0] + size + counted[1]] = 1
    starts = np.arange(0, len(inside) - kernel + 1, stride)
    return np.array([inside[s:s + kernel].sum() for s in starts])


def avg_pool3d(input_x: Tensor, kernel_size: ShapeLike = 1, stride: ShapeLike = 1,
               padding: ShapeLike = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int = 0, *, pad_mode: str = "pad") -> Tensor:
    """3-D average pooling of an (N, C, D, H, W) tensor (MindSpore's ops.avg_pool3d: stride
    defaults to 1; zero padding counts in the divisor when count_include_pad;
    divisor_override, non-zero, replaces it). Example:

        >>> ops.avg_pool3d(ops.ones((1, 1, 4, 4, 4)), 2, 2).shape
        (1, 1, 2, 2, 2)
    """
    x = as_tensor(input_x)
    if not x.dtype.is_float:
        raise op_error("avg_pool3d", (x,), "input must be a float tensor")
    kernel, strides, _, pads, extra = _geometry3d(
        "avg_pool3d", x, kernel_size, stride, padding, 1, pad_mode, ceil_mode)
    total = tuple((p[0], p[1] + e) for p, e in zip(pads, extra))
    deep = F.sum(_depth_windows(x, kernel[0], strides[0], 1, *total[0], 0.0), 3)
    sums = _per_depth(lambda p: avg_pool2d(p, kernel[1:], strides[1:], pads[1] + pads[2],
                                           ceil_mode, divisor_override=1), deep)
    if divisor_override:
        return F.div(sums, float(divisor_override))
    counted = pads if count_include_pad and str(pad_mode).lower() != "same" else ((0, 0),) * 3
    per_axis = [_counts(s, k, st, c, t) for s, k, st, c, t in
                zip(x.shape[2:], kernel, strides, counted, total)]
    divisor = np.einsum("i,j,k->ijk", *per_axis).astype(x._data.dtype)
    return F.div(sums, Tensor(divisor))


# ***** adaptive pooling *****

#: an output size per pooled axis (None keeps that axis's size), or one for all of them
OutputSize = Union[None, int, Sequence[Optional[int]]]

def _output_sizes(op, x, output_size, rank):
    if x.ndim not in (rank + 1, rank + 2):
        raise op_error(op, (x,), f"input must be {rank + 1}-D or {rank + 2}-D")
    sizes = (output_size,) * rank if isinstance(output_size, numbers.Integral) or \
        output_size is None else tuple(output_size)
    if len(sizes) != rank:
        raise ValueError(f"ops.{op}: output_size must be an int or {rank} of them, got "
                         f"{output_size!r}")
    spatial = x.shape[x.ndim - rank:]
    sizes = tuple(s if o is None else int(o) for o, s in zip(sizes, spatial))
    if min(sizes) < 1:
        raise ValueError(f"ops.{op}: output_size must be positive, got {output_size!r}")
    return sizes, spatial


def _adaptive_avg(op, rank, input, output_size):
    x = as_tensor(input)
    sizes, spatial = _output_sizes(op, x, output_size, rank)
    for i, (s, o) in enumerate(zip(spatial, sizes)):
        if s != o:
            x = apply_along(x, x.ndim - rank + i, resize_matrix("area", s, o, False, s / o))
    return x


def adaptive_avg_pool1d(input: Tensor, output_size: OutputSize) -> Tensor:
    """Mean over output_size bins of the last axis: bin i spans [floor(i L / out),
    ceil((i + 1) L / out)). Example:

        >>> ops.adaptive_avg_pool1d(ms.Tensor(np.arange(6, dtype=np.float32).reshape(1, 1, 6)),
        ...                         3).asnumpy().tolist()
        [[[0.5, 2.5, 4.5]]]
    """
    return _adaptive_avg("adaptive_avg_pool1d", 1, input, output_size)


def adaptive_avg_pool2d(input: Tensor, output_size: OutputSize) -> Tensor:
    """Adaptive mean pooling of the last two axes ((C, H, W) or (N, C, H, W)); an output_size
    of None keeps that axis. Example:

        >>> ops.adaptive_avg_pool2d(ops.ones((1, 2, 5, 7)), (2, 3)).shape
        (1, 2, 2, 3)
    """
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: OutputSize) -> Tensor:
    """Adaptive mean pooling of the last three axes. Example:

        >>> ops.adaptive_avg_pool3d(ops.ones((1, 2, 5, 7, 4)), 2).shape
        (1, 2, 2, 2, 2)
    """
    return _adaptive_avg("adaptive_avg_pool3d", 3, input, output_size)


def _bin_table(spatial, sizes):
    """(cells, widest bin) flat input positions of every output cell's bin; short bins repeat
    their first position (a repeat never changes a max, and it stays the first maximum)."""
    axes = []
    for s, o in zip(spatial, sizes):
        axes.append([np.arange((i * s) // o, -(-((i + 1) * s) // o)) for i in range(o)])
    strides = np.cumprod((1,) + tuple(spatial[::-1]))[::-1][1:]
    cells = []
    for combo in np.ndindex(*sizes):
        grids = np.meshgrid(*[axes[a][i] for a, i in enumerate(combo)], indexing="ij")
        cells.append(sum(g.ravel() * st for g, st in zip(grids, strides)))
    width = max(len(c) for c in cells)
    return np.stack([np.concatenate([c, np.full(width - len(c), c[0])]) for c in cells])


def _adaptive_max(op, rank, input, output_size, return_indices):
    x = as_tensor(input)
    sizes, spatial = _output_sizes(op, x, output_size, rank)
    table = _bin_table(spatial, sizes)
    lead = tuple(x.shape[:x.ndim - rank])
    flat = F.reshape(x, lead + (-1,))
    gathered = flat[(Ellipsis, Tensor(table.astype(np.int64)))]  # (..., cells, width)
    values = F.reshape(F.amax(gathered, -1), lead + sizes)
    if not return_indices:
        return values
    pick = F.argmax(gathered, -1)
    positions = F.gather_elements(F.broadcast_to(Tensor(table.astype(np.int64)),
                                                 tuple(gathered.shape)),
                                  len(gathered.shape) - 1, F.expand_dims(pick, -1))
    return values, F.reshape(positions, lead + sizes)


def adaptive_max_pool1d(input: Tensor, output_size: OutputSize) -> Tensor:
    """Maximum over output_size adaptive bins of the last axis (bins as
    adaptive_avg_pool1d). Example:

        >>> ops.adaptive_max_pool1d(ms.Tensor(np.arange(6, dtype=np.float32).reshape(1, 1, 6)),
        ...                         3).asnumpy().tolist()
        [[[1.0, 3.0, 5.0]]]
    """
    return _adaptive_max("adaptive_max_pool1d", 1, input, output_size, False)


def adaptive_max_pool2d(input: Tensor, output_size: OutputSize, return_indices: bool = False
                        ) -> Union[Tensor, tuple[Tensor, Tensor]]:
    """Adaptive maximum pooling of the last two axes; return_indices also gives the int64 flat
    position h * W + w of each maximum. Example:

        >>> ops.adaptive_max_pool2d(ops.ones((1, 2, 5, 7)), (2, 3)).shape
        (1, 2, 2, 3)
    """
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)


def adaptive_max_pool3d(input: Tensor, output_size: OutputSize, return_indices: bool = False
                        ) -> Union[Tensor, tuple[Tensor, Tensor]]:
    """Adaptive maximum pooling of the last three axes (indices flat in D * H * W)."""
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, return_indices)


# ***** power-average pooling and unpooling *****

def _lp(x, norm_type, window_mean, size):
    p = float(norm_type)
    # the mean times the window size (as MindSpore and PyTorch: with ceil_mode a window that
    # overhangs the input is averaged over its real cells, then scaled by the full size)
    sums = F.mul(window_mean(F.pow(x, p) if p != 1.0 else x), float(size))
    # MindSpore's sign(s) * relu(|s|) keeps odd powers of negative inputs defined
    return F.pow(F.mul(F.sign(sums), F.relu(F.abs(sums))), 1.0 / p)


def lp_pool1d(x: Tensor, norm_type: float, kernel_size: ShapeLike,
              stride: Optional[ShapeLike] = None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p)^(1/p) along the last axis of (N, C, L) or (C, L).

        >>> ops.lp_pool1d(ops.ones((1, 1, 4)), 2, 2).asnumpy().astype(float).round(4).tolist()
        [[[1.4142, 1.4142]]]
    """
    x = as_tensor(x)
    if x.ndim not in (2, 3):
        raise op_error("lp_pool1d", (x,), "input must be (N, C, L) or (C, L)")
    k = tuple_of(kernel_size, 1, "kernel_size", "lp_pool1d")[0]
    s = k if stride is None else tuple_of(stride, 1, "stride", "lp_pool1d")[0]
    rows = F.expand_dims(x, -2)
    out = _lp(rows, norm_type, lambda t: avg_pool2d(
        t if t.ndim == 4 else F.expand_dims(t, 0), (1, k), (1, s), ceil_mode=ceil_mode), k)
    out = F.squeeze(out, -2)
    return out if x.ndim == 3 else F.squeeze(out, 0)


def avg_pool1d(input_x: Tensor, kernel_size: ShapeLike = 1, stride: ShapeLike = 1,
               padding: ShapeLike = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """1-D average pooling of (N, C, L) (MindSpore's ops.avg_pool1d: stride defaults to 1;
    padding an int or (left, right) zeros, counted in the divisor when count_include_pad).

        >>> ops.avg_pool1d(ms.Tensor([[[1.0, 2.0, 3.0, 4.0]]]), 2, 2).tolist()
        [[[1.5, 3.5]]]
    """
    x = as_tensor(input_x)
    if x.ndim != 3:
        raise op_error("avg_pool1d", (x,), "input must be (N, C, L)")
    k = tuple_of(kernel_size, 1, "kernel_size", "avg_pool1d")[0]
    s = tuple_of(stride, 1, "stride", "avg_pool1d")[0]
    pads: tuple = (padding, padding) if isinstance(padding, int) else tuple(padding)
    if len(pads) == 1:
        pads = pads * 2
    out = avg_pool2d(F.expand_dims(x, 2), (1, k), (1, s), (0, 0) + tuple(int(p) for p in pads),
                     ceil_mode, count_include_pad)
    return F.squeeze(out, 2)


def lp_pool2d(x: Tensor, norm_type: float, kernel_size: ShapeLike,
              stride: Optional[ShapeLike] = None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p)^(1/p) of an (N, C, H, W) tensor.

        >>> ops.lp_pool2d(ops.ones((1, 1, 4, 4)), 1, 2).asnumpy().ravel().tolist()
        [4.0, 4.0, 4.0, 4.0]
    """
    x = as_tensor(x)
    kernel = tuple_of(kernel_size, 2, "kernel_size", "lp_pool2d")
    strides = kernel if stride is None else tuple_of(stride, 2, "stride", "lp_pool2d")
    return _lp(x, norm_type, lambda t: avg_pool2d(t, kernel, strides, ceil_mode=ceil_mode),
               kernel[0] * kernel[1])


def _max_unpool(op, rank, x, indices, kernel_size, stride, padding, output_size):
    """Each value of x written at its flat argmax position (over the last `rank` axes) of a
    tensor of zeros; size (s - 1) * stride - 2 * padding + kernel unless output_size."""
    x, indices = as_tensor(x), as_tensor(indices)
    if x.ndim not in (rank + 1, rank + 2) or tuple(indices.shape) != tuple(x.shape):
        raise op_error(op, (x, indices), f"x must have {rank} spatial axes after (N, C) or (C,) "
                       f"and indices its shape")
    kernel = tuple_of(kernel_size, rank, "kernel_size", op)
    stride = kernel if stride is None else tuple_of(stride, rank, "stride", op)
    pads = tuple_of(padding, rank, "padding", op) if padding else (0,) * rank
    sizes = tuple((s - 1) * st - 2 * p + k for s, st, p, k in
                  zip(x.shape[-rank:], stride, pads, kernel))
    if output_size is not None and len(tuple(output_size)):
        sizes = tuple(int(s) for s in tuple(output_size)[-rank:])
    lead = tuple(x.shape[:-rank])
    base = F.zeros(lead + (int(np.prod(sizes)),), x.dtype)
    out = F.tensor_scatter_elements(base, F.reshape(F.cast(indices, np.int64), lead + (-1,)),
                                    F.reshape(x, lead + (-1,)), axis=-1)
    return F.reshape(out, lead + sizes)


def max_unpool1d(x: Tensor, indices: Tensor, kernel_size: ShapeLike,
                 stride: Optional[ShapeLike] = None, padding: ShapeLike = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Partial inverse of max_pool1d: each value of (N, C, L) or (C, L) written at its argmax
    position of zeros of length (L - 1) * stride - 2 * padding + kernel_size (or output_size).

        >>> ops.max_unpool1d(ms.Tensor([[[5.0, 7.0]]]), ms.Tensor([[[1, 2]]]), 2).tolist()
        [[[0.0, 5.0, 7.0, 0.0]]]
    """
    return _max_unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(x: Tensor, indices: Tensor, kernel_size: ShapeLike,
                 stride: Optional[ShapeLike] = None, padding: ShapeLike = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Partial inverse of max_pool2d: each value written at its flat argmax position h * W + w
    of an (N, C, H_out, W_out) tensor of zeros; H_out = (H - 1) * stride - 2 * padding +
    kernel_size unless output_size is given. Example:

        >>> out, idx = ops.max_pool2d(ops.ones((1, 1, 4, 4)), 2, return_indices=True)
        >>> ops.max_unpool2d(out, idx, 2).shape
        (1, 1, 4, 4)
    """
    return _max_unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(x: Tensor, indices: Tensor, kernel_size: ShapeLike,
                 stride: Optional[ShapeLike] = None, padding: ShapeLike = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Partial inverse of max_pool3d: each value of (N, C, D, H, W) written at its flat argmax
    position d * H * W + h * W + w of a volume of zeros.

        >>> out, idx = ops.max_pool3d(ops.ones((1, 1, 4, 4, 4)), 2, 2, return_indices=True)
        >>> ops.max_unpool3d(out, idx, 2).shape
        (1, 1, 4, 4, 4)
    """
    return _max_unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding, output_size)
