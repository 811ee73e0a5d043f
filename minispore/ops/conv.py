"""2-D convolution: conv2d (im2col plus one BLAS matmul) and its two backward primitives,
a closed family whose bprops are written with one another, so every derivative, second
order included, is made of primitives:

    conv2d(x, w)                   -> conv2d_input_grad(dout, w), conv2d_filter_grad(x, dout)
    conv2d_input_grad(dout, w)     -> conv2d(g, w),               conv2d_filter_grad(g, dout)
    conv2d_filter_grad(x, dout)    -> conv2d_input_grad(dout, g), conv2d(x, g)

Layout is NCHW; weights are (out_channels, in_channels / groups, kh, kw), as in MindSpore.
"""
from __future__ import annotations
from typing import Optional
from . import batching as B
from . import functional as F
from . import infer as I
from .arguments import as_tensor, op_error
from .linalg import product
from .primitive import ALL, Aval, OpShapeError, OpTypeError, Primitive
from .window import (
    explicit_padding,
    fold_lanes,
    output_hw,
    pad_hw,
    pair,
    require_nchw,
    strided,
    unfold_lanes,
)
from ..core.hints import Tensor, ShapeLike

__all__ = ["conv2d"]


# ***** vmap: the lanes join the batch, or become more channel groups *****

def _lanes_as_channels(x):
    """(lanes, N, C, H, W) -> (N, lanes * C, H, W): each lane's channels a block of groups."""
    lanes, n, c = x.shape[:3]
    return F.reshape(F.transpose(x, (1, 0, 2, 3, 4)), (n, lanes * c) + tuple(x.shape[3:]))


def _channels_as_lanes(y, axis_size):
    """(N, lanes * C, H, W) -> (N, lanes, C, H, W)."""
    return F.reshape(y, (y.shape[0], axis_size, y.shape[1] // axis_size) + tuple(y.shape[2:]))


def _conv_batch(prim, args, dims, axis_size, groups, **attrs):
    """conv2d / conv2d_input_grad (an NCHW input and a weight) under vmap."""
    (x, w), (x_dim, w_dim) = args, dims
    if w_dim is None:  # one weight for every lane: the lanes join the batch
        out = prim(fold_lanes(B.to_front(x, x_dim)), w, groups=groups, **attrs)
        return unfold_lanes(out, axis_size), 0
    # a weight per lane: the lanes become more groups of channels
    x = _lanes_as_channels(B.batched_front(x, x_dim, axis_size))
    out = prim(x, fold_lanes(B.to_front(w, w_dim)), groups=groups * axis_size, **attrs)
    return _channels_as_lanes(out, axis_size), 1


def _filter_grad_batch(prim, args, dims, axis_size, groups, **attrs):
    # the lanes become groups: each lane's weight gradient is a block of output channels
    x, dout = (_lanes_as_channels(B.batched_front(a, d, axis_size)) for a, d in zip(args, dims))
    return unfold_lanes(prim(x, dout, groups=groups * axis_size, **attrs), axis_size), 0


# ***** convolution: conv2d and its two backward primitives *****

def _patches(xp, x, kernel, stride, padding, dilation, groups):
    """View (N, groups, kh, C/groups, kw, Ho, Wo) of every input patch: [..., i, c, j, y, x]
    is the input under kernel offset (i, j) of channel c for output (y, x).

    Built in two steps so that no copy runs over short rows: one copy makes the kw column
    shifts (N, C, kw, Hp, Wo), rows of Wo outputs; the kh row shifts are then a view on it,
    in which (with stride 1 along H) each offset's (Ho, Wo) plane is one contiguous block.
    Copying whole planes is what makes im2col cheap on small feature maps (about 2x faster
    than copying Wo-long rows on the LeNet shapes).
    """
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    ho, wo = output_hw(x.shape[2:], kernel, stride, padding, dilation)
    x = xp.ascontiguousarray(pad_hw(xp, x, padding, 0))
    n, c, hp, _ = x.shape
    s_n, s_c, s_h, s_w = x.strides
    shifted = strided(xp, x, (n, c, kw, hp, wo), (s_n, s_c, s_w * dw, s_h, s_w * sw)).copy()
    s_n, s_c, s_j, s_h, s_w = shifted.strides
    cg = c // groups
    return strided(xp, shifted, (n, groups, kh, cg, kw, ho, wo),
                    (s_n, s_c * cg, s_h * dh, s_c, s_j, s_h * sh, s_w))


def _grouped_weight(w, groups, order):
    """Weight (O, C/groups, kh, kw) as (groups, O/groups, C/groups, kh, kw), axes permuted by
    `order` (positions into that 5-D shape)."""
    o, cg, kh, kw = w.shape
    return w.reshape(groups, o // groups, cg, kh, kw).transpose(order)


def _conv_check(x, w, groups):
    require_nchw("input", x)
    require_nchw("weight", w)
    I.require_float("input", x)
    if x.dtype != w.dtype:
        raise OpTypeError(f"input and weight must have one dtype, got {x} and {w}")
    if groups < 1 or w.shape[0] % groups:
        raise OpShapeError(f"out_channels {w.shape[0]} must be a positive multiple of "
                           f"groups={groups}")
    if x.shape[1] != w.shape[1] * groups:
        raise OpShapeError(f"input has {x.shape[1]} channels but weight {w.shape} with "
                           f"groups={groups} expects {w.shape[1] * groups}")


def _conv2d_infer(x, w, stride, padding, dilation, groups):
    _conv_check(x, w, groups)
    out_hw = output_hw(x.shape[2:], w.shape[2:], stride, padding, dilation)
    return Aval((x.shape[0], w.shape[0]) + out_hw, x.dtype)


def _conv2d_impl(xp, x, w, stride, padding, dilation, groups):
    n, out_channels = x.shape[0], w.shape[0]
    patches = _patches(xp, x, w.shape[2:], stride, padding, dilation, groups)
    ho, wo = patches.shape[-2:]
    depth = w[0].size  # C/groups * kh * kw
    # the one copy of im2col: columns (N, groups, kh * C/groups * kw, Ho * Wo), and per sample
    # and group one matmul whose (O/groups, Ho * Wo) result is already NCHW
    cols = patches.reshape(n, groups, depth, ho * wo)
    weight = _grouped_weight(w, groups, (0, 1, 3, 2, 4)).reshape(groups, -1, depth)
    return product(xp, weight, cols).reshape(n, out_channels, ho, wo)


def _conv2d_bprop(x, w, out, dout, *, needed=ALL, **attrs):
    # the first layer's input is data: its gradient (a col2im) is skipped
    return (conv2d_input_grad(dout, w, input_size=tuple(x.shape[2:]), **attrs)
            if needed[0] else None,
            conv2d_filter_grad(x, dout, kernel_size=tuple(w.shape[2:]), **attrs)
            if needed[1] else None)


conv2d_p = Primitive("conv2d", infer=_conv2d_infer, impl=_conv2d_impl, bprop=_conv2d_bprop,
                     batch=_conv_batch,
                     doc="2-D cross-correlation of NCHW input with (O, C/groups, kh, kw) weight")


def _check_dout(dout, x, w, stride, padding, dilation, groups):
    """A conv2d backward's dout must be the forward's output shape for x and w."""
    expected = _conv2d_infer(x, w, stride, padding, dilation, groups)
    if tuple(dout.shape) != expected.shape:
        raise OpShapeError(f"dout {dout.shape} is not the output shape {expected.shape} of a "
                           f"convolution of input {x.shape} with weight {w.shape}")


def _input_grad_infer(dout, w, input_size, stride, padding, dilation, groups):
    require_nchw("dout", dout)
    x = Aval((dout.shape[0], w.shape[1] * groups) + tuple(input_size), dout.dtype)
    _check_dout(dout, x, w, stride, padding, dilation, groups)
    return x


def _input_grad_impl(xp, dout, w, input_size, stride, padding, dilation, groups):
    """conv2d's adjoint in x: one matmul contracting over (O, kw), then kh strided adds.

    dout is spread onto the columns of the padded input it came from (stride apart, zeros
    between), in rows with dilation * (kw - 1) leading zeros. Flattened, a block of rows read
    from j * dilation elements before its start is that grid shifted right by j * dilation,
    so each (output channel, kernel column) block of `shifted` is one contiguous copy; the
    columns past the padded width pick up wrapped values and are cut. One matmul with the
    weight gives each input channel's contribution per kernel row i, and kh adds of whole row
    blocks place them. On the LeNet shapes: 0.33 ms, against 0.5 ms for a (C kh kw, Ho Wo)
    matmul plus kh * kw adds of Wo-long rows.
    """
    n, out_channels, ho, wo = dout.shape
    (kh, kw), (sh, sw), (dh, dw) = w.shape[2:], stride, dilation
    top, bottom, left, right = padding
    lead = dw * (kw - 1)
    hp, wide = input_size[0] + top + bottom, input_size[1] + left + right + lead
    # one spare row: the shifted views of the last row read on past its end
    rows = xp.zeros((n, out_channels, ho + 1, wide), dout.dtype)
    rows[:, :, :ho, lead:lead + sw * (wo - 1) + 1:sw] = dout
    s_n, s_o, _, s_w = rows.strides
    shifted = strided(xp, rows, (n, out_channels, kw, ho * wide), (s_n, s_o, -s_w * dw, s_w),
                       offset=lead * s_w)
    shifted = shifted.reshape(n, groups, out_channels // groups * kw, ho * wide)  # a copy
    weight = _grouped_weight(w, groups, (0, 2, 3, 1, 4))  # (g, C/g, kh, O/g, kw)
    cg = weight.shape[1]
    columns = product(xp, weight.reshape(groups, cg * kh, -1), shifted)
    columns = columns.reshape(n, groups * cg, kh, ho, wide)
    out = xp.zeros((n, groups * cg, hp, wide), dout.dtype)
    for i in range(kh):
        out[:, :, i * dh:i * dh + sh * (ho - 1) + 1:sh] += columns[:, :, i]
    return xp.ascontiguousarray(out[:, :, top:top + input_size[0], left:left + input_size[1]])


def _input_grad_bprop(dout, w, out, dx_bar, input_size, **attrs):
    # the op is J^T dout with J the conv's (linear) Jacobian in x: linear in dout and in w
    return (conv2d_p(dx_bar, w, **attrs),
            conv2d_filter_grad(dx_bar, dout, kernel_size=tuple(w.shape[2:]), **attrs))


conv2d_input_grad = Primitive(
    "conv2d_input_grad", infer=_input_grad_infer, impl=_input_grad_impl, bprop=_input_grad_bprop,
    batch=_conv_batch,
    doc="gradient of conv2d with respect to its input (a transposed convolution of dout)")


def _filter_grad_infer(x, dout, kernel_size, stride, padding, dilation, groups):
    require_nchw("dout", dout)
    w = Aval((dout.shape[1], x.shape[1] // max(groups, 1)) + tuple(kernel_size), x.dtype)
    _check_dout(dout, x, w, stride, padding, dilation, groups)
    return w


def _filter_grad_impl(xp, x, dout, kernel_size, stride, padding, dilation, groups):
    n, out_channels, ho, wo = dout.shape
    kh, kw = kernel_size
    patches = _patches(xp, x, kernel_size, stride, padding, dilation, groups)
    cg = patches.shape[3]
    # per sample, kernel row and group a (C/groups * kw, Ho * Wo) matrix: a view of _patches'
    # first step when the stride along H is 1 (no im2col copy at all), else a copy
    rows = patches.transpose(0, 2, 1, 3, 4, 5, 6).reshape(n, kh, groups, cg * kw, ho * wo)
    dout = dout.reshape(n, 1, groups, out_channels // groups, ho * wo)
    per_sample = product(xp, rows, dout.swapaxes(-1, -2))
    dw = per_sample.sum(axis=0).reshape(kh, groups, cg, kw, -1)  # (kh, g, C/g, kw, O/g)
    return xp.ascontiguousarray(dw.transpose(1, 4, 2, 0, 3)).reshape(out_channels, cg, kh, kw)


def _filter_grad_bprop(x, dout, out, dw_bar, kernel_size, **attrs):
    return (conv2d_input_grad(dout, dw_bar, input_size=tuple(x.shape[2:]), **attrs),
            conv2d_p(x, dw_bar, **attrs))


conv2d_filter_grad = Primitive(
    "conv2d_filter_grad", infer=_filter_grad_infer, impl=_filter_grad_impl,
    bprop=_filter_grad_bprop, batch=_filter_grad_batch,
    doc="gradient of conv2d with respect to its weight")


def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: ShapeLike = 1, pad_mode: str = "valid", padding: ShapeLike = 0, dilation: ShapeLike = 1, groups: int = 1) -> Tensor:
    """2-D convolution (cross-correlation) of an NCHW input, as MindSpore's ops.conv2d.

    weight is (out_channels, in_channels / groups, kh, kw). pad_mode: 'valid' (no padding),
    'same' (output H, W = ceil(input / stride); an odd total pad goes to the bottom/right) or
    'pad' (explicit `padding`: an int, or (top, bottom, left, right)). bias: (out_channels,).

        >>> x = ms.Tensor(np.ones((1, 1, 3, 3), np.float32))
        >>> ops.conv2d(x, ms.Tensor(np.ones((1, 1, 2, 2), np.float32))).shape
        (1, 1, 2, 2)
    """
    input, weight = as_tensor(input), as_tensor(weight)
    if input.ndim != 4 or weight.ndim != 4:
        raise op_error("conv2d", (input, weight), "input and weight must be 4-D: input "
                       "(N, C, H, W), weight (out_channels, in_channels / groups, kh, kw)")
    # numpy's matmul would quietly promote or compute in integers: refuse, as MindSpore does
    if input.dtype != weight.dtype or not input.dtype.is_float:
        raise op_error("conv2d", (input, weight), "input and weight must be float tensors of "
                       "one dtype", OpTypeError)
    stride, dilation = pair(stride, "stride", "conv2d"), pair(dilation, "dilation", "conv2d")
    kernel = tuple(weight.shape[2:])
    pads = explicit_padding("conv2d", pad_mode, padding, input.shape[2:], kernel, stride,
                             dilation)
    out = conv2d_p(input, weight, stride=stride, padding=pads, dilation=dilation,
                   groups=int(groups))
    if bias is None:
        return out
    if tuple(bias.shape) != (weight.shape[0],):
        raise op_error("conv2d", (input, weight, bias),
                       f"bias must have shape ({weight.shape[0]},), one value per output channel")
    return F.add(out, F.reshape(bias, (1, -1, 1, 1)))
