"""Pooling of NCHW tensors: max_pool2d and the scatter/gather pair of primitives that
differentiates it, and average pooling (a convolution with a kernel of ones).

    max_pool2d(x) -> (out, index)  -> max_pool2d_grad(index, dout)  (scatter to the argmax)
    max_pool2d_grad(index, dout)   -> max_pool2d_gather(index, g)   (gather at the argmax)
    max_pool2d_gather(index, g)    -> max_pool2d_grad(index, dout)
"""
from __future__ import annotations
from typing import Optional, Union
import numpy as np

from ..core.tensor import Tensor
from . import batching as B
from . import functional as F
from .arguments import as_tensor, op_error
from .conv import conv2d_p
from .primitive import Aval, OpShapeError, OpTypeError, Primitive
from .window import (
    col2im,
    explicit_padding,
    fold_lanes,
    kernel_offsets,
    output_hw,
    pad_hw,
    pair,
    require_nchw,
    span,
    unfold_lanes,
    windows,
)
from ..core.hints import ShapeLike

__all__ = ["avg_pool2d", "max_pool2d"]


# ***** max pooling: max_pool2d, and the scatter/gather pair that differentiates it *****
#
# max_pool2d also returns, per window, the kernel offset i * kw + j of its first maximum
# (row-major; ties go to the earlier offset). The backward takes that index instead of
# recomputing it from x: the forward finds it for about the cost of the max alone, and the
# gradient is then one masked write per offset (measured on the LeNet shapes: forward + backward
# 0.29 ms against 0.42 ms with the backward redoing the scan).

def _pool_batch(prim, args, dims, axis_size, **attrs):
    """The max-pooling family under vmap: the lanes join the batch of every input."""
    inputs = [fold_lanes(B.batched_front(a, d, axis_size)) for a, d in zip(args, dims)]
    out = prim(*inputs, **attrs)
    if prim.multiple_results:
        return tuple(unfold_lanes(o, axis_size) for o in out), (0,) * len(out)
    return unfold_lanes(out, axis_size), 0


def _lowest(dtype):
    """Padding value that never wins a max."""
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _index_dtype(kernel_size):
    """The smallest integer dtype holding every kernel offset."""
    return np.dtype(np.int8 if kernel_size[0] * kernel_size[1] <= 127 else np.int32)


def _pool_infer(x, kernel_size, stride, padding, dilation):
    require_nchw("input", x)
    shape = x.shape[:2] + output_hw(x.shape[2:], kernel_size, stride, padding, dilation)
    return Aval(shape, x.dtype), Aval(shape, _index_dtype(kernel_size))


def _offsets_apart(xp, x, kernel_size, stride, padding, dilation):
    """(kh * kw, N, C, Ho, Wo): every window's value at each kernel offset, one contiguous
    block per offset. numpy's elementwise ops on the strided window view run several times
    slower than this copy costs."""
    out_hw = output_hw(x.shape[2:], kernel_size, stride, padding, dilation)
    win = windows(xp, pad_hw(xp, x, padding, _lowest(x.dtype)), kernel_size, stride,
                   dilation, out_hw)
    offsets = kernel_size[0] * kernel_size[1]
    return xp.ascontiguousarray(win.transpose(4, 5, 0, 1, 2, 3)).reshape((offsets,)
                                                                          + win.shape[:4])


def _window_origins(out_hw, stride, padding):
    """Input row and column (negative inside the top/left padding) of each window's first
    cell: host numpy, a function of the shapes only."""
    return (np.arange(out_hw[0]) * stride[0] - padding[0],
            np.arange(out_hw[1]) * stride[1] - padding[2])


def _first_real_offset(out_hw, kernel_size, stride, padding, dilation):
    """(Ho, Wo): the kernel offset of each window's first cell inside the input. A window
    always has one (the padding is at most half the kernel)."""
    rows, cols = _window_origins(out_hw, stride, padding)
    first_i, first_j = np.maximum(0, -(rows // dilation[0])), np.maximum(0, -(cols // dilation[1]))
    return first_i[:, None] * kernel_size[1] + first_j[None, :]


def _max_pool_impl(xp, x, kernel_size, stride, padding, dilation):
    values = _offsets_apart(xp, x, kernel_size, stride, padding, dilation)
    best = values[0]
    index = xp.zeros(best.shape, _index_dtype(kernel_size))
    if padding[0] or padding[2]:
        # the padding ties real cells holding the lowest value (-inf, or an integer dtype's
        # minimum): the index then starts at the first real cell, and only a larger value
        # moves it, so it never points into the padding
        index[...] = xp.asarray(_first_real_offset(best.shape[2:], kernel_size, stride, padding,
                                                   dilation).astype(index.dtype))
    for k in range(1, len(values)):
        better = values[k] > best  # strict: a tie keeps the earlier offset
        best = xp.maximum(best, values[k])
        # the first maximum is where the running max last rose: the largest k that was better
        xp.maximum(index, better * index.dtype.type(k), out=index)
    return best, index


def _max_pool_bprop(x, out, dout, **attrs):
    # the index is piecewise constant in x: only the values carry a gradient
    return (max_pool2d_grad(out[1], dout[0], input_size=tuple(x.shape[2:]), **attrs),)


max_pool2d_p = Primitive(
    "max_pool2d", infer=_pool_infer, impl=_max_pool_impl, bprop=_max_pool_bprop,
    multiple_results=True, batch=_pool_batch,
    doc="maximum over each (dilated) window of an NCHW tensor, and the kernel offset of its "
        "first maximum; padding never wins")


def _check_index(index, input_shape, kernel_size, stride, padding, dilation):
    """OpError unless `index` is an integer tensor of the pooled shape of an NCHW input."""
    if index.dtype.kind not in "iu":
        raise OpTypeError(f"index must be an integer tensor of kernel offsets, got {index}")
    pooled = tuple(input_shape[:2]) + output_hw(input_shape[2:], kernel_size, stride, padding,
                                              dilation)
    if tuple(index.shape) != pooled:
        raise OpShapeError(f"index {index.shape} is not the pooled shape {pooled} of an "
                           f"input of shape {tuple(input_shape)}")


def _max_pool_grad_infer(index, dout, input_size, **attrs):
    require_nchw("dout", dout)
    input_shape = tuple(dout.shape[:2]) + tuple(input_size)
    _check_index(index, input_shape, **attrs)
    if tuple(dout.shape) != tuple(index.shape):
        raise OpShapeError(f"dout {dout.shape} must have the shape of index {index.shape}")
    return Aval(input_shape, dout.dtype)


def _masked(xp, d, mask, exact, out=None):
    """d where mask, else 0 (written into `out` when given). The product with the mask is
    several times faster than `where` on a random mask and exact for finite d; inf * 0 would
    be nan, so a non-finite d takes `where`."""
    if exact:
        return xp.multiply(d, mask, out=out)
    if out is None:
        return xp.where(mask, d, 0)
    out[...] = xp.where(mask, d, 0)
    return out


def _tiles(input_size, kernel_size, stride, padding, dilation):
    """Whether the windows tile the input: stride == kernel, no padding or dilation, and
    sizes that divide (as LeNet's 2x2 pools)."""
    return (tuple(stride) == tuple(kernel_size) and not any(padding)
            and tuple(dilation) == (1, 1)
            and input_size[0] % kernel_size[0] == 0 and input_size[1] % kernel_size[1] == 0)


def _max_pool_grad_impl(xp, index, dout, input_size, kernel_size, stride, padding, dilation):
    shape = dout.shape[:2] + tuple(input_size)
    # the index steers strided writes: a bad one must fail here, not read out of bounds
    _check_index(index, shape, kernel_size, stride, padding, dilation)
    exact = bool(xp.isfinite(dout.sum()))  # a sum overflowing to inf only costs the slow path
    kw = kernel_size[1]
    if _tiles(input_size, kernel_size, stride, padding, dilation):
        # the windows tile the input: each offset's gradient is a strided view of it
        grad = xp.empty(shape, dout.dtype)
        tiles = grad.reshape(dout.shape[:3] + (kernel_size[0], dout.shape[3], kw))
        for k, i, j in kernel_offsets(kernel_size):
            _masked(xp, dout, index == k, exact, out=tiles[:, :, :, i, :, j])
        return grad
    batch_last, index = dout.transpose(1, 2, 3, 0), index.transpose(1, 2, 3, 0)
    return col2im(xp, lambda i, j: _masked(xp, batch_last, index == i * kw + j, exact),
                   shape, kernel_size, stride, dilation, dout.shape[2:], padding, dout.dtype)


max_pool2d_grad = Primitive(
    "max_pool2d_grad", infer=_max_pool_grad_infer, impl=_max_pool_grad_impl,
    # linear in dout; the index is integer
    bprop=lambda index, dout, out, dx_bar, input_size, **attrs: (
        None, max_pool2d_gather(index, dx_bar, **attrs)),  # type: ignore[has-type]  # defined below
    batch=_pool_batch,
    doc="dout of max_pool2d routed to the kernel offset `index` of each window, summed on "
        "overlap")


def _gather_infer(index, g, **attrs):
    require_nchw("values", g)
    _check_index(index, g.shape, **attrs)
    return Aval(tuple(index.shape), g.dtype)


def _gather_impl(xp, index, g, kernel_size, stride, padding, dilation):
    _check_index(index, g.shape, kernel_size, stride, padding, dilation)
    win = windows(xp, pad_hw(xp, g, padding, 0), kernel_size, stride, dilation,
                   index.shape[2:])
    out = xp.zeros(index.shape, g.dtype)
    for k, i, j in kernel_offsets(kernel_size):
        xp.copyto(out, win[..., i, j], where=index == k)
    return out


max_pool2d_gather = Primitive(
    "max_pool2d_gather", infer=_gather_infer, impl=_gather_impl,
    bprop=lambda index, g, out, dout, **attrs: (
        None, max_pool2d_grad(index, dout, input_size=tuple(g.shape[2:]), **attrs)),
    batch=_pool_batch,
    doc="g at the kernel offset `index` of each window (the adjoint of max_pool2d_grad)")


# ***** the user-facing pooling functions *****

def _pool_geometry(op, x, kernel_size, stride, padding, pad_mode, ceil_mode, dilation=1):
    """kernel, stride, dilation, explicit padding, and the bottom/right rows ceil_mode adds."""
    if x.ndim != 4:
        raise op_error(op, (x,), "input must be a 4-D (N, C, H, W) tensor")
    kernel = pair(kernel_size, "kernel_size", op)
    stride = kernel if stride is None else pair(stride, "stride", op)
    dilation = pair(dilation, "dilation", op)
    pads = explicit_padding(op, pad_mode, padding, x.shape[2:], kernel, stride, dilation)
    if pad_mode.lower() == "pad" and (max(pads[:2]) > span(kernel[0], dilation[0]) // 2
                                      or max(pads[2:]) > span(kernel[1], dilation[1]) // 2):
        raise op_error(op, (x,), f"padding {pads} must be at most half the (dilated) kernel "
                       f"{kernel}: a window must not lie wholly in the padding")
    extra = (0, 0)
    if ceil_mode:
        extra = tuple(_ceil_extra(size, span(k, d), s, lo, hi)
                      for size, k, d, s, lo, hi in zip(x.shape[2:], kernel, dilation, stride,
                                                       pads[::2], pads[1::2]))
    return kernel, stride, dilation, pads, extra


def _ceil_extra(size, span, stride, before, after):
    """Padding ceil_mode adds at the end: the last window may overhang but must start inside
    the input or the leading padding (PyTorch's rule)."""
    room = size + before + after - span
    out = -(-room // stride) + 1
    if (out - 1) * stride >= size + before:
        out -= 1
    return max(0, (out - 1) * stride + span - (size + before + after))


def max_pool2d(x: Tensor, kernel_size: ShapeLike, stride: Optional[ShapeLike] = None,
               padding: ShapeLike = 0, dilation: ShapeLike = 1, return_indices: bool = False,
               ceil_mode: bool = False, *,
               pad_mode: str = "pad") -> Union[Tensor, tuple[Tensor, Tensor]]:
    """2-D max pooling of an NCHW tensor (MindSpore's ops.max_pool2d; stride defaults to the
    kernel size). padding: an int or (h, w), symmetric, never chosen as the max. The gradient
    goes to the first maximum of each window. `pad_mode` ('valid' | 'same' | 'pad', the
    default) serves nn.MaxPool2d.

    return_indices=True returns (output, argmax): argmax (int64, the shape of output) holds
    the flat position h * W + w in its input plane of each window's first maximum; it has no
    gradient.

        >>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
        >>> ops.max_pool2d(x, 2).asnumpy().ravel().tolist()
        [5.0, 7.0, 13.0, 15.0]
        >>> ops.max_pool2d(x, 2, return_indices=True)[1].asnumpy().ravel().tolist()
        [5, 7, 13, 15]
    """
    x = as_tensor(x)
    if not isinstance(return_indices, bool):
        raise TypeError(f"ops.max_pool2d: return_indices must be a bool, got {return_indices!r}")
    kernel, stride, dilation, pads, extra = _pool_geometry(
        "max_pool2d", x, kernel_size, stride, padding, pad_mode, ceil_mode, dilation)
    pads = (pads[0], pads[1] + extra[0], pads[2], pads[3] + extra[1])
    out, offset = max_pool2d_p(x, kernel_size=kernel, stride=stride, padding=pads,
                               dilation=dilation)
    if not return_indices:
        return out
    return out, _input_positions(offset, x.shape[3], kernel, stride, pads, dilation)


def _input_positions(offset, width, kernel, stride, padding, dilation):
    """int64 flat positions row * width + column in the input plane of the kernel offsets
    `offset` that max_pool2d_p returns: each window's origin plus the offset's displacement."""
    rows, cols = _window_origins(offset.shape[2:], stride, padding)
    origins = Tensor((rows[:, None] * width + cols[None, :]).astype(np.int64))
    offset = F.cast(offset, np.int64)
    down = F.mul(F.floor_div(offset, kernel[1]), dilation[0] * width)
    across = F.mul(F.floor_mod(offset, kernel[1]), dilation[1])
    return F.add(F.add(down, across), origins)


def avg_pool2d(input_x: Tensor, kernel_size: ShapeLike = 1, stride: ShapeLike = 1, padding: ShapeLike = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int = 0, *, pad_mode: str = "pad") -> Tensor:
    """2-D average pooling of an NCHW tensor (MindSpore's ops.avg_pool2d; note its stride
    defaults to 1). padding: int, (h, w) or (top, bottom, left, right), zeros; they count in
    the divisor when count_include_pad. divisor_override (non-zero) replaces the divisor.
    pad_mode='same' (for nn.AvgPool2d) averages over the real input only.

        >>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
        >>> ops.avg_pool2d(x, 2, 2).asnumpy().ravel().tolist()
        [2.5, 4.5, 10.5, 12.5]
    """
    x = as_tensor(input_x)
    kernel, stride, _, pads, extra = _pool_geometry(
        "avg_pool2d", x, kernel_size, stride, padding, pad_mode, ceil_mode)
    if not x.dtype.is_float:
        raise op_error("avg_pool2d", (x,), "input must be a float tensor", OpTypeError)
    n, c, h, w = x.shape
    total = (pads[0], pads[1] + extra[0], pads[2], pads[3] + extra[1])
    # a window sum is a convolution of each channel with a kernel of ones
    sums = conv2d_p(F.reshape(x, (n * c, 1, h, w)), F.ones((1, 1) + kernel, x.dtype),
                    stride=stride, padding=total, dilation=(1, 1), groups=1)
    sums = F.reshape(sums, (n, c) + tuple(sums.shape[2:]))
    if divisor_override:
        return F.div(sums, float(divisor_override))
    counted = pads if count_include_pad and pad_mode.lower() != "same" else (0, 0, 0, 0)
    divisor = _window_counts((h, w), counted, total, kernel, stride)
    if (divisor == divisor.flat[0]).all():
        return F.div(sums, float(divisor.flat[0]))
    return F.div(sums, Tensor(divisor.astype(x._data.dtype)))


def _window_counts(in_hw, counted, total, kernel, stride):
    """How many cells of each window lie in the input grown by `counted` padding (host numpy:
    a constant that depends on shapes only)."""
    h, w = in_hw
    mask = np.zeros((1, 1, h + total[0] + total[1], w + total[2] + total[3]))
    mask[:, :, total[0] - counted[0]:total[0] + h + counted[1],
         total[2] - counted[2]:total[2] + w + counted[3]] = 1
    out_hw = output_hw(in_hw, kernel, stride, total, (1, 1))
    return windows(np, mask, kernel, stride, (1, 1), out_hw).sum(axis=(4, 5))[0, 0]
