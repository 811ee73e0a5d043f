"""1-D and 3-D convolutions and the transposed convolutions, all on the 2-D primitives of
ops.conv, so that each inherits conv2d's closed family of derivatives (every gradient, second
order included, is made of the same three primitives):

* 1-D is 2-D over rows of height 1;
* 3-D folds the depth axis: the kd depth-shifted slices of the input become kd times the
  channels of a 2-D convolution (channel c * kd + k), one GEMM for every output depth;
* a transposed convolution is conv2d_input_grad (GEMM + col2im), the exact adjoint of conv2d
  in its input; in 3-D the kd depth slabs are then placed stride apart and summed.

Layouts are MindSpore's: NCL / NCHW / NCDHW inputs; conv weights (out, in / group, *kernel),
transposed-conv weights (in, out / group, *kernel).
"""
import numbers
from typing import Optional

from ..core.hints import ShapeLike
from ..core.tensor import Tensor
from . import functional as F
from .arguments import as_tensor, op_error
from .conv import conv2d, conv2d_input_grad, conv2d_p
from .primitive import OpTypeError
from .window import span

__all__ = ["conv1d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def tuple_of(value, n, name, op):
    """n positive ints from an int or a sequence of n (or 1) of them."""
    values = (value,) * n if isinstance(value, numbers.Integral) else tuple(value)
    if len(values) == 1:
        values *= n
    if len(values) != n or any(not isinstance(v, numbers.Integral) or v < 1 for v in values):
        raise ValueError(f"ops.{op}: {name} must be a positive int or {n} of them, got {value!r}")
    return tuple(int(v) for v in values)


def _same_pads(size, kernel, stride, dilation):
    out = -(-size // stride)
    need = max(0, (out - 1) * stride + span(kernel, dilation) - size)
    return need // 2, need - need // 2


def explicit_pads(op, pad_mode, padding, sizes, kernel, stride, dilation):
    """((before, after) per spatial axis) for MindSpore's pad_mode 'valid' | 'same' | 'pad';
    `padding` is an int or (before, after) pairs flattened ((head, tail,) top, bottom, ...)."""
    n = len(sizes)
    mode = str(pad_mode).lower()
    if mode not in ("valid", "same", "pad"):
        raise ValueError(f"ops.{op}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    flat = (padding,) * (2 * n) if isinstance(padding, numbers.Integral) else tuple(padding)
    if len(flat) == n:  # one symmetric value per axis
        flat = tuple(v for p in flat for v in (p, p))
    if len(flat) != 2 * n or any(not isinstance(v, numbers.Integral) or v < 0 for v in flat):
        raise ValueError(f"ops.{op}: padding must be a non-negative int, {n} or {2 * n} of them, "
                         f"got {padding!r}")
    if mode != "pad" and any(flat):
        raise ValueError(f"ops.{op}: padding must be 0 when pad_mode is {pad_mode!r}, "
                         f"got {padding!r}")
    if mode == "same":
        return tuple(_same_pads(*a) for a in zip(sizes, kernel, stride, dilation))
    return tuple((int(flat[2 * i]), int(flat[2 * i + 1])) for i in range(n))


def _check(op, x, w, rank):
    x, w = as_tensor(x), as_tensor(w)
    if x.ndim != rank + 2 or w.ndim != rank + 2:
        raise op_error(op, (x, w), f"input and weight must be {rank + 2}-D")
    if x.dtype != w.dtype or not x.dtype.is_float:
        raise op_error(op, (x, w), "input and weight must be float tensors of one dtype",
                       OpTypeError)
    return x, w


def _add_bias(op, out, bias, channels, rank):
    if bias is None:
        return out
    if tuple(bias.shape) != (channels,):
        raise op_error(op, (out, bias), f"bias must have shape ({channels},)")
    return F.add(out, F.reshape(bias, (1, -1) + (1,) * rank))


def _row(x):
    return F.expand_dims(x, 2)


def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: ShapeLike = 1,
           pad_mode: str = "valid", padding: ShapeLike = 0, dilation: ShapeLike = 1,
           groups: int = 1) -> Tensor:
    """1-D convolution of an (N, C, L) input with an (out, C / groups, k) weight.

    padding: an int or (left, right). Example:

        >>> ops.conv1d(ops.ones((1, 2, 5)), ops.ones((3, 2, 3))).shape
        (1, 3, 3)
    """
    input, weight = _check("conv1d", input, weight, 1)
    pads = explicit_pads("conv1d", pad_mode, padding, input.shape[2:], weight.shape[2:],
                         tuple_of(stride, 1, "stride", "conv1d"),
                         tuple_of(dilation, 1, "dilation", "conv1d"))
    out = conv2d(_row(input), _row(weight), None, (1,) + tuple_of(stride, 1, "stride", "conv1d"),
                 "pad", (0, 0) + pads[0], (1,) + tuple_of(dilation, 1, "dilation", "conv1d"),
                 groups)
    return _add_bias("conv1d", F.squeeze(out, 2), bias, weight.shape[0], 1)


def _depth_slices(x, kd, stride, dilation, out_d):
    """(N, C, D, H, W) -> (N * out_d, C * kd, H, W): channel c * kd + k of output depth d is
    input depth d * stride + k * dilation."""
    n, c = x.shape[:2]
    slabs = [x[:, :, k * dilation:k * dilation + stride * (out_d - 1) + 1:stride]
             for k in range(kd)]
    stacked = F.transpose(F.stack(slabs, 3), (0, 2, 1, 3, 4, 5))  # (N, Do, C, kd, H, W)
    return F.reshape(stacked, (n * out_d, c * kd) + tuple(x.shape[3:]))


def _depth_weight(w):
    """(O, C / g, kd, kh, kw) -> (O, C / g * kd, kh, kw), channel c * kd + k."""
    o, cg, kd, kh, kw = w.shape
    return F.reshape(w, (o, cg * kd, kh, kw))


def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: ShapeLike = 1,
           pad_mode: str = "valid", padding: ShapeLike = 0, dilation: ShapeLike = 1,
           groups: int = 1) -> Tensor:
    """3-D convolution of an (N, C, D, H, W) input with an (out, C / groups, kd, kh, kw)
    weight. padding: an int, (d, h, w) or (head, tail, top, bottom, left, right). Example:

        >>> ops.conv3d(ops.ones((1, 2, 4, 4, 4)), ops.ones((3, 2, 2, 2, 2))).shape
        (1, 3, 3, 3, 3)
    """
    input, weight = _check("conv3d", input, weight, 3)
    strides, dilations = (tuple_of(stride, 3, "stride", "conv3d"),
                          tuple_of(dilation, 3, "dilation", "conv3d"))
    kernel = tuple(weight.shape[2:])
    pads = explicit_pads("conv3d", pad_mode, padding, input.shape[2:], kernel, strides,
                         dilations)
    if input.shape[1] != weight.shape[1] * groups:
        raise op_error("conv3d", (input, weight), f"input has {input.shape[1]} channels but "
                       f"the weight with groups={groups} expects {weight.shape[1] * groups}")
    x = F.pad(input, ((0, 0), (0, 0), pads[0], (0, 0), (0, 0))) if any(pads[0]) else input
    out_d = (x.shape[2] - span(kernel[0], dilations[0])) // strides[0] + 1
    if out_d < 1:
        raise op_error("conv3d", (input, weight), "the kernel does not fit the padded depth")
    cols = _depth_slices(x, kernel[0], strides[0], dilations[0], out_d)
    out = conv2d_p(cols, _depth_weight(weight), stride=strides[1:],
                   padding=pads[1] + pads[2], dilation=dilations[1:], groups=int(groups))
    n, o = input.shape[0], weight.shape[0]
    out = F.transpose(F.reshape(out, (n, out_d, o) + tuple(out.shape[2:])), (0, 2, 1, 3, 4))
    return _add_bias("conv3d", out, bias, o, 3)


def transposed_sizes(op, pad_mode, padding, output_padding, sizes, kernel, stride, dilation):
    """(output sizes, ((before, after) per axis)) of a transposed convolution, MindSpore's
    rules: 'same' gives size * stride, 'valid' size * stride + max(span - stride, 0), 'pad'
    (size - 1) * stride - before - after + span + output_padding."""
    n = len(sizes)
    output_padding = ((output_padding,) * n if isinstance(output_padding, numbers.Integral)
                      else tuple(output_padding))
    mode = str(pad_mode).lower()
    out, pads = [], []
    explicit = explicit_pads(op, "pad" if mode == "pad" else "valid", padding if mode == "pad"
                             else 0, sizes, kernel, stride, dilation) if mode in ("pad", "valid") \
        else None
    if mode not in ("valid", "same", "pad"):
        raise ValueError(f"ops.{op}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    for i, (size, k, s, d) in enumerate(zip(sizes, kernel, stride, dilation)):
        extent = span(k, d)
        if mode == "same":
            need = max(0, extent - s)
            out.append(size * s)
            pads.append((need // 2, need - need // 2))
        elif mode == "valid":
            out.append(size * s + max(extent - s, 0))
            pads.append((0, 0))
        else:
            if not 0 <= output_padding[i] < max(s, d):
                raise ValueError(f"ops.{op}: output_padding must be smaller than the stride or "
                                 f"the dilation, got {output_padding}")
            out.append((size - 1) * s - sum(explicit[i]) + extent + output_padding[i])
            pads.append(explicit[i])
    if min(out) < 1:
        raise ValueError(f"ops.{op}: the output size {tuple(out)} is not positive")
    return tuple(out), tuple(pads)


def _transpose_check(op, x, w, rank, groups):
    x, w = _check(op, x, w, rank)
    if x.shape[1] != w.shape[0] or w.shape[0] % groups:
        raise op_error(op, (x, w), f"input has {x.shape[1]} channels: the weight must be "
                       f"(in_channels={x.shape[1]}, out_channels / groups, *kernel), a multiple "
                       f"of groups={groups}")
    return x, w


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: ShapeLike = 1, pad_mode: str = "valid", padding: ShapeLike = 0,
                     output_padding: ShapeLike = 0, dilation: ShapeLike = 1,
                     groups: int = 1) -> Tensor:
    """2-D transposed convolution: the gradient of conv2d in its input. input (N, C_in, H, W),
    weight (C_in, C_out / groups, kh, kw). Output sizes as nn.Conv2dTranspose. Example:

        >>> ops.conv_transpose2d(ops.ones((1, 2, 3, 3)), ops.ones((2, 4, 2, 2)), stride=2).shape
        (1, 4, 6, 6)
    """
    input, weight = _transpose_check("conv_transpose2d", input, weight, 2, groups)
    strides, dilations = (tuple_of(stride, 2, "stride", "conv_transpose2d"),
                          tuple_of(dilation, 2, "dilation", "conv_transpose2d"))
    sizes, pads = transposed_sizes("conv_transpose2d", pad_mode, padding, output_padding,
                                   input.shape[2:], weight.shape[2:], strides, dilations)
    out = conv2d_input_grad(input, weight, input_size=sizes, stride=strides,
                            padding=pads[0] + pads[1], dilation=dilations, groups=int(groups))
    return _add_bias("conv_transpose2d", out, bias, out.shape[1], 2)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: ShapeLike = 1, pad_mode: str = "valid", padding: ShapeLike = 0,
                     output_padding: ShapeLike = 0, dilation: ShapeLike = 1,
                     groups: int = 1) -> Tensor:
    """1-D transposed convolution of (N, C_in, L) with a (C_in, C_out / groups, k) weight.

        >>> ops.conv_transpose1d(ops.ones((1, 2, 4)), ops.ones((2, 3, 3)), stride=2).shape
        (1, 3, 9)
    """
    input, weight = _transpose_check("conv_transpose1d", input, weight, 1, groups)
    if isinstance(padding, (int, numbers.Integral)):  # int: for mypy, which reads no ABCs
        pads: tuple[int, ...] = (0, 0, int(padding), int(padding))
    else:
        pads = (0, 0) + (tuple(padding) * 2 if len(padding) == 1 else tuple(padding))
    out_pads = ((0, output_padding) if isinstance(output_padding, (int, numbers.Integral))
                else (0,) + tuple(output_padding))
    out = conv_transpose2d(_row(input), _row(weight), None,
                           (1,) + tuple_of(stride, 1, "stride", "conv_transpose1d"),
                           "pad" if str(pad_mode).lower() == "pad" else pad_mode,
                           pads if str(pad_mode).lower() == "pad" else 0,
                           out_pads,
                           (1,) + tuple_of(dilation, 1, "dilation", "conv_transpose1d"), groups)
    return _add_bias("conv_transpose1d", F.squeeze(out, 2), bias, out.shape[1], 1)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                     stride: ShapeLike = 1, pad_mode: str = "valid", padding: ShapeLike = 0,
                     output_padding: ShapeLike = 0, dilation: ShapeLike = 1,
                     groups: int = 1) -> Tensor:
    """3-D transposed convolution (the adjoint of conv3d) of (N, C_in, D, H, W) with a
    (C_in, C_out / groups, kd, kh, kw) weight.

        >>> ops.conv_transpose3d(ops.ones((1, 2, 2, 2, 2)), ops.ones((2, 1, 2, 2, 2))).shape
        (1, 1, 3, 3, 3)
    """
    input, weight = _transpose_check("conv_transpose3d", input, weight, 3, groups)
    strides, dilations = (tuple_of(stride, 3, "stride", "conv_transpose3d"),
                          tuple_of(dilation, 3, "dilation", "conv_transpose3d"))
    kernel = tuple(weight.shape[2:])
    sizes, pads = transposed_sizes("conv_transpose3d", pad_mode, padding, output_padding,
                                   input.shape[2:], kernel, strides, dilations)
    n, c_in, depth = input.shape[:3]
    kd, (s, d) = kernel[0], (strides[0], dilations[0])
    rows = F.reshape(F.transpose(input, (0, 2, 1, 3, 4)), (n * depth, c_in) + input.shape[3:])
    cols = conv2d_input_grad(rows, _depth_weight(weight), input_size=sizes[1:],
                             stride=strides[1:], padding=pads[1] + pads[2],
                             dilation=dilations[1:], groups=int(groups))
    c_out = cols.shape[1] // kd
    slabs = F.reshape(cols, (n, depth, c_out, kd) + sizes[1:])
    # slab k lands on padded output depths t * s + k * d: interleave s - 1 zero planes, shift
    full = pads[0][0] + sizes[0] + pads[0][1]
    total = None
    for k in range(kd):
        slab = slabs[:, :, :, k]  # (N, D, C_out, H, W)
        if s > 1:
            slab = F.reshape(F.pad(F.expand_dims(slab, 2), ((0, 0), (0, 0), (0, s - 1))
                                   + ((0, 0),) * 3), (n, depth * s, c_out) + sizes[1:])
            slab = slab[:, :(depth - 1) * s + 1]
        after = full - k * d - slab.shape[1]
        slab = F.pad(slab, ((0, 0), (k * d, max(after, 0))) + ((0, 0),) * 3)
        slab = slab[:, :full] if after < 0 else slab
        total = slab if total is None else F.add(total, slab)
    assert total is not None  # kd >= 1 slabs
    out = F.transpose(total[:, pads[0][0]:pads[0][0] + sizes[0]], (0, 2, 1, 3, 4))
    return _add_bias("conv_transpose3d", out, bias, c_out, 3)
