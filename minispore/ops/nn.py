"""Neural-network ops: activations, convolution, pooling, normalisation, dropout, losses.

Primitives only where a direct kernel matters: 2-D convolution (im2col plus one BLAS matmul)
and max pooling. Each comes with a closed family of backward primitives whose bprops are
written with one another, so every derivative, second order included, is made of primitives:

    conv2d(x, w)                   -> conv2d_input_grad(dout, w), conv2d_filter_grad(x, dout)
    conv2d_input_grad(dout, w)     -> conv2d(g, w),               conv2d_filter_grad(g, dout)
    conv2d_filter_grad(x, dout)    -> conv2d_input_grad(dout, g), conv2d(x, g)
    max_pool2d(x) -> (out, index)  -> max_pool2d_grad(index, dout)  (scatter to the argmax)
    max_pool2d_grad(index, dout)   -> max_pool2d_gather(index, g)   (gather at the argmax)
    max_pool2d_gather(index, g)    -> max_pool2d_grad(index, dout)

Everything else (average pooling, normalisation, dropout, losses, activations) is an exact
composite of existing ops and needs no derivative of its own. Layout is NCHW; conv weights are
(out_channels, in_channels / groups, kh, kw), as in MindSpore. Window attributes reach the
primitives normalised: `stride`, `dilation`, `kernel_size` as (h, w) pairs and `padding` as
(top, bottom, left, right).
"""
import numpy as np

from ..runtime.tensor import Tensor
from . import batching as B
from . import functional as F
from . import infer as I
from . import random
from .primitive import Aval, OpShapeError, OpTypeError, Primitive, aval_of, with_context

__all__ = ["softmax", "log_softmax", "relu6", "leaky_relu", "elu", "hardsigmoid", "hardswish",
           "conv2d", "max_pool2d", "avg_pool2d", "batch_norm", "layer_norm", "dropout",
           "cross_entropy", "nll_loss", "softmax_cross_entropy_with_logits", "mse_loss",
           "l1_loss", "smooth_l1_loss", "binary_cross_entropy_with_logits",
           "binary_cross_entropy", "kl_div"]


def _error(op, inputs, message, error=OpShapeError):
    """An OpError for a user-facing composite: names the op, its inputs and the user's line."""
    return error(with_context(op, [aval_of(t) for t in inputs], {}, message))


def _tensor(x):
    return x if isinstance(x, Tensor) else Tensor(x)


# ***** softmax family and activations *****

def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis`."""
    # the shift by the max cancels in value and gradient; it only keeps exp in range
    shifted = F.sub(x, F.stop_gradient(F.amax(x, axis, True)))
    e = F.exp(shifted)
    return F.div(e, F.sum(e, axis, True))


def log_softmax(x, axis=-1):
    """x - logsumexp(x) along `axis`."""
    shifted = F.sub(x, F.stop_gradient(F.amax(x, axis, True)))
    return F.sub(shifted, F.log(F.sum(F.exp(shifted), axis, True)))


def relu6(x):
    """min(max(x, 0), 6); gradient 1 strictly inside (0, 6), as PyTorch and MindSpore give."""
    # a select, not minimum(relu(x), 6): minimum would pass the gradient through at x == 6
    return F.where(F.greater_equal(x, 6), 6.0, F.relu(x))


def leaky_relu(input, alpha=0.2):
    """x where x > 0, alpha * x elsewhere (MindSpore's default alpha is 0.2)."""
    return F.where(F.greater(input, 0), input, F.mul(input, alpha))


def elu(input_x, alpha=1.0):
    """x where x > 0, alpha * (exp(x) - 1) elsewhere."""
    positive = F.greater(input_x, 0)
    # expm1 only sees x <= 0: a large x in the unselected branch would overflow, and the
    # select's zero gradient times inf is nan
    negative_part = F.where(positive, 0.0, input_x)
    return F.where(positive, input_x, F.mul(F.expm1(negative_part), alpha))


def hardsigmoid(input):
    """relu6(x + 3) / 6."""
    return F.div(relu6(F.add(input, 3.0)), 6.0)


def hardswish(x):
    """x * relu6(x + 3) / 6."""
    return F.mul(x, hardsigmoid(x))


# ***** sliding windows (shared by convolution and pooling) *****

def _pair(value, name, op):
    if isinstance(value, (int, np.integer)):
        value = (int(value), int(value))
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        value = value * 2
    if len(value) != 2 or min(value) < 1:
        raise ValueError(f"ops.{op}: {name} must be a positive int or a pair of them, got {value}")
    return value


def _four(padding, op):
    """(top, bottom, left, right) from an int, an (h, w) pair or a 4-tuple."""
    if isinstance(padding, (int, np.integer)):
        padding = (int(padding),) * 4
    padding = tuple(int(p) for p in padding)
    if len(padding) == 2:
        padding = (padding[0], padding[0], padding[1], padding[1])
    if len(padding) != 4 or min(padding) < 0:
        raise ValueError(f"ops.{op}: padding must be a non-negative int, an (h, w) pair or "
                         f"(top, bottom, left, right), got {padding}")
    return padding


def _span(kernel, dilation):
    """Extent of a dilated kernel along one axis."""
    return dilation * (kernel - 1) + 1


def _same_pads(size, kernel, stride, dilation):
    """(before, after) padding that gives ceil(size / stride) outputs; the odd one goes after."""
    out = -(-size // stride)
    need = max(0, (out - 1) * stride + _span(kernel, dilation) - size)
    return need // 2, need - need // 2


def _explicit_padding(op, pad_mode, padding, in_hw, kernel, stride, dilation):
    """(top, bottom, left, right) for MindSpore's pad_mode 'valid' | 'same' | 'pad'."""
    mode = str(pad_mode).lower()
    if mode not in ("valid", "same", "pad"):
        raise ValueError(f"ops.{op}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    if mode == "pad":
        return _four(padding, op)
    if any(_four(padding, op)):
        raise ValueError(f"ops.{op}: padding must be 0 when pad_mode is {pad_mode!r}, "
                         f"got {padding}")
    if mode == "valid":
        return (0, 0, 0, 0)
    return (_same_pads(in_hw[0], kernel[0], stride[0], dilation[0])
            + _same_pads(in_hw[1], kernel[1], stride[1], dilation[1]))


def _out_hw(in_hw, kernel, stride, padding, dilation):
    """Output (H, W) of a window op, or OpShapeError when the window does not fit."""
    padded = (in_hw[0] + padding[0] + padding[1], in_hw[1] + padding[2] + padding[3])
    out = tuple((p - _span(k, d)) // s + 1 for p, k, s, d in zip(padded, kernel, stride, dilation))
    if min(out) < 1:
        raise OpShapeError(f"a {kernel} window (dilation {dilation}) does not fit the padded "
                           f"input of spatial size {padded}")
    return out


def _pad_hw(xp, x, padding, value):
    t, b, l, r = padding
    if not (t or b or l or r):
        return x
    return xp.pad(x, ((0, 0), (0, 0), (t, b), (l, r)), constant_values=value)


def _strided(xp, base, shape, strides, offset=0):
    """View of the C-contiguous array `base` from byte `offset` with `strides` (which may be
    negative). numpy's as_strided costs ~4 us a call (it goes through __array_interface__),
    ten times an ndarray over the buffer: that is 2-3% of a small conv net's step."""
    if xp is np:
        return np.ndarray(shape, base.dtype, base, offset, strides)
    return xp.lib.stride_tricks.as_strided(base.ravel()[offset // base.itemsize:], shape,
                                           strides)


def _windows(xp, x, kernel, stride, dilation, out_hw):
    """View (N, C, Ho, Wo, kh, kw) of every window of an (already padded) NCHW array."""
    x = xp.ascontiguousarray(x)
    sn, sc, sh, sw = x.strides
    shape = x.shape[:2] + tuple(out_hw) + tuple(kernel)
    strides = (sn, sc, sh * stride[0], sw * stride[1], sh * dilation[0], sw * dilation[1])
    return _strided(xp, x, shape, strides)


def _offsets(kernel):
    """(flat index, i, j) of every kernel offset, row-major."""
    return [(i * kernel[1] + j, i, j) for i in range(kernel[0]) for j in range(kernel[1])]


def _col2im(xp, column, shape, kernel, stride, dilation, out_hw, padding, dtype):
    """Sum window contributions back onto an NCHW input of `shape`: the adjoint of `_windows`.

    column(i, j) is the contribution of kernel offset (i, j), laid out (C, Ho, Wo, N).
    Accumulating one offset at a time is exact where windows overlap; with the batch axis
    innermost each strided add runs over rows of Wo * N values, not Wo (measured 1.6x faster
    on small feature maps).
    """
    n, c, h, w = shape
    t, b, l, r = padding
    out = xp.zeros((c, h + t + b, w + l + r, n), dtype)
    ho, wo = out_hw
    for _, i, j in _offsets(kernel):
        h0, w0 = i * dilation[0], j * dilation[1]
        out[:, h0:h0 + stride[0] * (ho - 1) + 1:stride[0],
            w0:w0 + stride[1] * (wo - 1) + 1:stride[1]] += column(i, j)
    return xp.ascontiguousarray(out[:, t:t + h, l:l + w].transpose(3, 0, 1, 2))


def _require_nchw(name, aval):
    if len(aval.shape) != 4:
        raise OpShapeError(f"{name} must be a 4-D (N, C, H, W) tensor, got {aval}")


# ***** vmap: a batch of NCHW lanes is one bigger NCHW batch, or more channel groups *****

def _fold_lanes(x):
    """(lanes, N, ...) -> (lanes * N, ...)."""
    return F.reshape(x, (x.shape[0] * x.shape[1],) + tuple(x.shape[2:]))


def _unfold_lanes(y, axis_size):
    """(lanes * N, ...) -> (lanes, N, ...)."""
    return F.reshape(y, (axis_size, y.shape[0] // axis_size) + tuple(y.shape[1:]))


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
        out = prim(_fold_lanes(B.to_front(x, x_dim)), w, groups=groups, **attrs)
        return _unfold_lanes(out, axis_size), 0
    # a weight per lane: the lanes become more groups of channels
    x = _lanes_as_channels(B.batched_front(x, x_dim, axis_size))
    out = prim(x, _fold_lanes(B.to_front(w, w_dim)), groups=groups * axis_size, **attrs)
    return _channels_as_lanes(out, axis_size), 1


def _filter_grad_batch(prim, args, dims, axis_size, groups, **attrs):
    # the lanes become groups: each lane's weight gradient is a block of output channels
    x, dout = (_lanes_as_channels(B.batched_front(a, d, axis_size)) for a, d in zip(args, dims))
    return _unfold_lanes(prim(x, dout, groups=groups * axis_size, **attrs), axis_size), 0


def _pool_batch(prim, args, dims, axis_size, **attrs):
    """The max-pooling family under vmap: the lanes join the batch of every input."""
    inputs = [_fold_lanes(B.batched_front(a, d, axis_size)) for a, d in zip(args, dims)]
    out = prim(*inputs, **attrs)
    if prim.multiple_results:
        return tuple(_unfold_lanes(o, axis_size) for o in out), (0,) * len(out)
    return _unfold_lanes(out, axis_size), 0


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
    ho, wo = _out_hw(x.shape[2:], kernel, stride, padding, dilation)
    x = xp.ascontiguousarray(_pad_hw(xp, x, padding, 0))
    n, c, hp, _ = x.shape
    s_n, s_c, s_h, s_w = x.strides
    shifted = _strided(xp, x, (n, c, kw, hp, wo), (s_n, s_c, s_w * dw, s_h, s_w * sw)).copy()
    s_n, s_c, s_j, s_h, s_w = shifted.strides
    cg = c // groups
    return _strided(xp, shifted, (n, groups, kh, cg, kw, ho, wo),
                    (s_n, s_c * cg, s_h * dh, s_c, s_j, s_h * sh, s_w))


def _grouped_weight(w, groups, order):
    """Weight (O, C/groups, kh, kw) as (groups, O/groups, C/groups, kh, kw), axes permuted by
    `order` (positions into that 5-D shape)."""
    o, cg, kh, kw = w.shape
    return w.reshape(groups, o // groups, cg, kh, kw).transpose(order)


def _conv_check(x, w, groups):
    _require_nchw("input", x)
    _require_nchw("weight", w)
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
    out_hw = _out_hw(x.shape[2:], w.shape[2:], stride, padding, dilation)
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
    return xp.matmul(weight, cols).reshape(n, out_channels, ho, wo)


def _conv2d_bprop(x, w, out, dout, **attrs):
    return (conv2d_input_grad(dout, w, input_size=tuple(x.shape[2:]), **attrs),
            conv2d_filter_grad(x, dout, kernel_size=tuple(w.shape[2:]), **attrs))


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
    _require_nchw("dout", dout)
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
    shifted = _strided(xp, rows, (n, out_channels, kw, ho * wide), (s_n, s_o, -s_w * dw, s_w),
                       offset=lead * s_w)
    shifted = shifted.reshape(n, groups, out_channels // groups * kw, ho * wide)  # a copy
    weight = _grouped_weight(w, groups, (0, 2, 3, 1, 4))  # (g, C/g, kh, O/g, kw)
    cg = weight.shape[1]
    columns = xp.matmul(weight.reshape(groups, cg * kh, -1), shifted)
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
    _require_nchw("dout", dout)
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
    per_sample = xp.matmul(rows, dout.swapaxes(-1, -2))
    dw = per_sample.sum(axis=0).reshape(kh, groups, cg, kw, -1)  # (kh, g, C/g, kw, O/g)
    return xp.ascontiguousarray(dw.transpose(1, 4, 2, 0, 3)).reshape(out_channels, cg, kh, kw)


def _filter_grad_bprop(x, dout, out, dw_bar, kernel_size, **attrs):
    return (conv2d_input_grad(dout, dw_bar, input_size=tuple(x.shape[2:]), **attrs),
            conv2d_p(x, dw_bar, **attrs))


conv2d_filter_grad = Primitive(
    "conv2d_filter_grad", infer=_filter_grad_infer, impl=_filter_grad_impl,
    bprop=_filter_grad_bprop, batch=_filter_grad_batch,
    doc="gradient of conv2d with respect to its weight")


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) of an NCHW input, as MindSpore's ops.conv2d.

    weight is (out_channels, in_channels / groups, kh, kw). pad_mode: 'valid' (no padding),
    'same' (output H, W = ceil(input / stride); an odd total pad goes to the bottom/right) or
    'pad' (explicit `padding`: an int, or (top, bottom, left, right)). bias: (out_channels,).

        >>> x = ms.Tensor(np.ones((1, 1, 3, 3), np.float32))
        >>> ops.conv2d(x, ms.Tensor(np.ones((1, 1, 2, 2), np.float32))).shape
        (1, 1, 2, 2)
    """
    input, weight = _tensor(input), _tensor(weight)
    if input.ndim != 4 or weight.ndim != 4:
        raise _error("conv2d", (input, weight), "input and weight must be 4-D: input (N, C, H, W), "
                     "weight (out_channels, in_channels / groups, kh, kw)")
    # numpy's matmul would quietly promote or compute in integers: refuse, as MindSpore does
    if input.dtype != weight.dtype or not input.dtype.is_float:
        raise _error("conv2d", (input, weight), "input and weight must be float tensors of "
                     "one dtype", OpTypeError)
    stride, dilation = _pair(stride, "stride", "conv2d"), _pair(dilation, "dilation", "conv2d")
    kernel = tuple(weight.shape[2:])
    pads = _explicit_padding("conv2d", pad_mode, padding, input.shape[2:], kernel, stride,
                             dilation)
    out = conv2d_p(input, weight, stride=stride, padding=pads, dilation=dilation,
                   groups=int(groups))
    if bias is None:
        return out
    if tuple(bias.shape) != (weight.shape[0],):
        raise _error("conv2d", (input, weight, bias),
                     f"bias must have shape ({weight.shape[0]},), one value per output channel")
    return F.add(out, F.reshape(bias, (1, -1, 1, 1)))


# ***** max pooling: max_pool2d, and the scatter/gather pair that differentiates it *****
#
# max_pool2d also returns, per window, the kernel offset i * kw + j of its first maximum
# (row-major; ties go to the earlier offset). The backward takes that index instead of
# recomputing it from x: the forward finds it for about the cost of the max alone, and the
# gradient is then one masked write per offset (measured on the LeNet shapes: forward + backward
# 0.29 ms against 0.42 ms with the backward redoing the scan).

def _lowest(dtype):
    """Padding value that never wins a max."""
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _index_dtype(kernel_size):
    """The smallest integer dtype holding every kernel offset."""
    return np.dtype(np.int8 if kernel_size[0] * kernel_size[1] <= 127 else np.int32)


def _pool_infer(x, kernel_size, stride, padding, dilation):
    _require_nchw("input", x)
    shape = x.shape[:2] + _out_hw(x.shape[2:], kernel_size, stride, padding, dilation)
    return Aval(shape, x.dtype), Aval(shape, _index_dtype(kernel_size))


def _offsets_apart(xp, x, kernel_size, stride, padding, dilation):
    """(kh * kw, N, C, Ho, Wo): every window's value at each kernel offset, one contiguous
    block per offset. numpy's elementwise ops on the strided window view run several times
    slower than this copy costs."""
    out_hw = _out_hw(x.shape[2:], kernel_size, stride, padding, dilation)
    win = _windows(xp, _pad_hw(xp, x, padding, _lowest(x.dtype)), kernel_size, stride,
                   dilation, out_hw)
    offsets = kernel_size[0] * kernel_size[1]
    return xp.ascontiguousarray(win.transpose(4, 5, 0, 1, 2, 3)).reshape((offsets,)
                                                                          + win.shape[:4])


def _max_pool_impl(xp, x, kernel_size, stride, padding, dilation):
    values = _offsets_apart(xp, x, kernel_size, stride, padding, dilation)
    best = values[0]
    index = xp.zeros(best.shape, _index_dtype(kernel_size))
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
    pooled = tuple(input_shape[:2]) + _out_hw(input_shape[2:], kernel_size, stride, padding,
                                              dilation)
    if tuple(index.shape) != pooled:
        raise OpShapeError(f"index {index.shape} is not the pooled shape {pooled} of an "
                           f"input of shape {tuple(input_shape)}")


def _max_pool_grad_infer(index, dout, input_size, **attrs):
    _require_nchw("dout", dout)
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
        for k, i, j in _offsets(kernel_size):
            _masked(xp, dout, index == k, exact, out=tiles[:, :, :, i, :, j])
        return grad
    batch_last, index = dout.transpose(1, 2, 3, 0), index.transpose(1, 2, 3, 0)
    return _col2im(xp, lambda i, j: _masked(xp, batch_last, index == i * kw + j, exact),
                   shape, kernel_size, stride, dilation, dout.shape[2:], padding, dout.dtype)


max_pool2d_grad = Primitive(
    "max_pool2d_grad", infer=_max_pool_grad_infer, impl=_max_pool_grad_impl,
    # linear in dout; the index is integer
    bprop=lambda index, dout, out, dx_bar, input_size, **attrs: (
        None, max_pool2d_gather(index, dx_bar, **attrs)),
    batch=_pool_batch,
    doc="dout of max_pool2d routed to the kernel offset `index` of each window, summed on "
        "overlap")


def _gather_infer(index, g, **attrs):
    _require_nchw("values", g)
    _check_index(index, g.shape, **attrs)
    return Aval(tuple(index.shape), g.dtype)


def _gather_impl(xp, index, g, kernel_size, stride, padding, dilation):
    _check_index(index, g.shape, kernel_size, stride, padding, dilation)
    win = _windows(xp, _pad_hw(xp, g, padding, 0), kernel_size, stride, dilation,
                   index.shape[2:])
    out = xp.zeros(index.shape, g.dtype)
    for k, i, j in _offsets(kernel_size):
        xp.copyto(out, win[..., i, j], where=index == k)
    return out


max_pool2d_gather = Primitive(
    "max_pool2d_gather", infer=_gather_infer, impl=_gather_impl,
    bprop=lambda index, g, out, dout, **attrs: (
        None, max_pool2d_grad(index, dout, input_size=tuple(g.shape[2:]), **attrs)),
    batch=_pool_batch,
    doc="g at the kernel offset `index` of each window (the adjoint of max_pool2d_grad)")


def _pool_geometry(op, x, kernel_size, stride, padding, pad_mode, ceil_mode, dilation=1):
    """kernel, stride, dilation, explicit padding, and the bottom/right rows ceil_mode adds."""
    if x.ndim != 4:
        raise _error(op, (x,), "input must be a 4-D (N, C, H, W) tensor")
    kernel = _pair(kernel_size, "kernel_size", op)
    stride = kernel if stride is None else _pair(stride, "stride", op)
    dilation = _pair(dilation, "dilation", op)
    pads = _explicit_padding(op, pad_mode, padding, x.shape[2:], kernel, stride, dilation)
    if pad_mode.lower() == "pad" and (max(pads[:2]) > _span(kernel[0], dilation[0]) // 2
                                      or max(pads[2:]) > _span(kernel[1], dilation[1]) // 2):
        raise _error(op, (x,), f"padding {pads} must be at most half the (dilated) kernel "
                     f"{kernel}: a window must not lie wholly in the padding")
    extra = (0, 0)
    if ceil_mode:
        extra = tuple(_ceil_extra(size, _span(k, d), s, lo, hi)
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


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False, *, pad_mode="pad"):
    """2-D max pooling of an NCHW tensor (MindSpore's ops.max_pool2d; stride defaults to the
    kernel size). padding: an int or (h, w), symmetric, never chosen as the max. The gradient
    goes to the first maximum of each window. `pad_mode` ('valid' | 'same' | 'pad', the
    default) serves nn.MaxPool2d.

        >>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
        >>> ops.max_pool2d(x, 2).asnumpy().ravel().tolist()
        [5.0, 7.0, 13.0, 15.0]
    """
    x = _tensor(x)
    if return_indices:
        raise NotImplementedError("ops.max_pool2d: return_indices=True is not supported")
    kernel, stride, dilation, pads, extra = _pool_geometry(
        "max_pool2d", x, kernel_size, stride, padding, pad_mode, ceil_mode, dilation)
    pads = (pads[0], pads[1] + extra[0], pads[2], pads[3] + extra[1])
    return max_pool2d_p(x, kernel_size=kernel, stride=stride, padding=pads, dilation=dilation)[0]


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0, *, pad_mode="pad"):
    """2-D average pooling of an NCHW tensor (MindSpore's ops.avg_pool2d; note its stride
    defaults to 1). padding: int, (h, w) or (top, bottom, left, right), zeros; they count in
    the divisor when count_include_pad. divisor_override (non-zero) replaces the divisor.
    pad_mode='same' (for nn.AvgPool2d) averages over the real input only.

        >>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
        >>> ops.avg_pool2d(x, 2, 2).asnumpy().ravel().tolist()
        [2.5, 4.5, 10.5, 12.5]
    """
    x = _tensor(input_x)
    kernel, stride, _, pads, extra = _pool_geometry(
        "avg_pool2d", x, kernel_size, stride, padding, pad_mode, ceil_mode)
    if not x.dtype.is_float:
        raise _error("avg_pool2d", (x,), "input must be a float tensor", OpTypeError)
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
    out_hw = _out_hw(in_hw, kernel, stride, total, (1, 1))
    return _windows(np, mask, kernel, stride, (1, 1), out_hw).sum(axis=(4, 5))[0, 0]


# ***** normalisation *****

def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-5):
    """Batch normalisation over every axis but the channel axis 1 of an (N, C, ...) input.

    y = (x - mean) / sqrt(var + eps) * weight + bias. training=True normalises with the
    batch's mean and biased variance and updates the running statistics in place
    (`ops.assign`) with MindSpore's functional convention:

        running = (1 - momentum) * running + momentum * batch_statistic

    using the *unbiased* batch variance for running_var (as MindSpore and PyTorch do).
    nn.BatchNorm2d(momentum=0.9) states the opposite convention (running = momentum * running
    + (1 - momentum) * batch): a layer passes ``1 - its_momentum`` here. training=False
    normalises with running_mean/running_var. weight/bias may be None (1 and 0).

        >>> x = ms.Tensor(np.array([[1.0], [3.0]], np.float32))
        >>> mean, var = ms.Tensor([0.0]), ms.Tensor([1.0])
        >>> ops.batch_norm(x, mean, var, None, None, training=True).asnumpy().round(4).tolist()
        [[-1.0], [1.0]]
        >>> mean.asnumpy().round(4).tolist(), var.asnumpy().round(4).tolist()  # 0.9 * 1 + 0.1 * 2
        ([0.2], [1.1])
    """
    x = _tensor(input_x)
    if x.ndim < 2:
        raise _error("batch_norm", (x,), "input must be (N, C) or (N, C, ...)")
    channels = x.shape[1]
    for name, p in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != (channels,):
            raise _error("batch_norm", (x, p), f"{name} must have shape ({channels},)")
    axes = (0,) + tuple(range(2, x.ndim))
    per_channel = (1, channels) + (1,) * (x.ndim - 2)
    if training:
        count = x.size // channels
        if count < 2:
            raise _error("batch_norm", (x,), "training needs more than one value per channel")
        mean = F.mean(x, axes, True)
        centered = F.sub(x, mean)
        var = F.mean(F.mul(centered, centered), axes, True)
        _update_running(running_mean, mean, momentum, 1.0)
        _update_running(running_var, var, momentum, count / (count - 1))
    else:
        if running_mean is None or running_var is None:
            raise _error("batch_norm", (x,), "training=False needs running_mean and running_var")
        centered = F.sub(x, F.reshape(running_mean, per_channel))
        var = F.reshape(running_var, per_channel)
    y = F.mul(centered, F.rsqrt(F.add(var, eps)))
    if weight is not None:
        y = F.mul(y, F.reshape(weight, per_channel))
    if bias is not None:
        y = F.add(y, F.reshape(bias, per_channel))
    return y


def _update_running(running, batch_stat, momentum, correction):
    if running is None:
        return
    stat = F.stop_gradient(F.reshape(batch_stat, running.shape))
    if correction != 1.0:
        stat = F.mul(stat, correction)
    F.assign(running, F.add(F.mul(running, 1.0 - momentum), F.mul(F.cast(stat, running.dtype),
                                                                   momentum)))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the trailing `normalized_shape` axes (biased variance), then
    * weight + bias (each of shape normalized_shape, or None)."""
    x = _tensor(input)
    shape = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) \
        else tuple(int(s) for s in normalized_shape)
    if not shape or tuple(x.shape[x.ndim - len(shape):]) != shape or len(shape) > x.ndim:
        raise _error("layer_norm", (x,), f"normalized_shape {shape} must match the trailing axes")
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    centered = F.sub(x, F.mean(x, axes, True))
    var = F.mean(F.mul(centered, centered), axes, True)
    y = F.mul(centered, F.rsqrt(F.add(var, eps)))
    if weight is not None:
        y = F.mul(y, weight)
    if bias is not None:
        y = F.add(y, bias)
    return y


# ***** dropout *****

def _dropout_mask_impl(xp, x, p, seed):
    keep = random.get_generator(seed).random(x.shape) >= p
    return xp.asarray(keep / (1.0 - p), dtype=x.dtype)


@B.draws_random
def _dropout_mask_batch(prim, args, dims, axis_size, p, seed):
    # one draw of the whole batch's shape: every lane gets its own mask
    return prim(B.batched_front(args[0], dims[0], axis_size), p=p, seed=seed), 0


# A primitive, not a constant built while tracing: a compiled graph then draws a new mask on
# every run. `effect` keeps graph passes from folding, merging or dropping the draw.
dropout_mask = Primitive(
    "dropout_mask", infer=lambda x, p, seed: x, impl=_dropout_mask_impl, effect=True,
    bprop=lambda x, out, dout, p, seed: (None,),  # the mask does not depend on x's values
    batch=_dropout_mask_batch,
    doc="keep-mask of x's shape and dtype: 1 / (1 - p) with probability 1 - p, else 0")


def dropout(input, p=0.5, training=True, seed=None):
    """Zero each element with probability p and scale the rest by 1 / (1 - p) (training only).

    The mask comes from the generator `ms.set_seed` seeds (ops.random); `seed` gives this call
    site a stream of its own. The gradient is dout * mask / (1 - p).

        >>> ops.dropout(ms.Tensor(np.ones(4, np.float32)), p=0.5).asnumpy().tolist()  # random
        [2.0, 0.0, 2.0, 0.0]
    """
    x = _tensor(input)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"ops.dropout: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return F.mul(x, 0.0)
    if not x.dtype.is_float:
        raise _error("dropout", (x,), "input must be a float tensor", OpTypeError)
    return F.mul(x, dropout_mask(x, p=float(p), seed=None if seed is None else int(seed)))


# ***** losses *****

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(op, reduction, allowed=_REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"ops.{op}: reduction must be one of {allowed}, got {reduction!r}")


def _reduce(loss, reduction):
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.sum(loss)
    return loss


def _same_shape(op, input, target):
    if tuple(input.shape) != tuple(target.shape):
        raise _error(op, (input, target), "input and target must have the same shape")


def mse_loss(input, target, reduction="mean"):
    """(input - target)^2, reduced."""
    _check_reduction("mse_loss", reduction)
    diff = F.sub(input, target)
    return _reduce(F.mul(diff, diff), reduction)


def l1_loss(input, target, reduction="mean"):
    """|input - target|, reduced."""
    _check_reduction("l1_loss", reduction)
    return _reduce(F.abs(F.sub(input, target)), reduction)


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """0.5 d^2 / beta where d = |input - target| < beta, else d - 0.5 beta (MindSpore's default
    reduction here is 'none')."""
    _check_reduction("smooth_l1_loss", reduction)
    if beta <= 0:
        raise ValueError(f"ops.smooth_l1_loss: beta must be > 0, got {beta}")
    d = F.abs(F.sub(input, target))
    loss = F.where(F.less(d, beta), F.mul(F.mul(d, d), 0.5 / beta), F.sub(d, 0.5 * beta))
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(logits, label, weight=None, pos_weight=None,
                                     reduction="mean"):
    """-[pos_weight * y * log sigmoid(x) + (1 - y) * log(1 - sigmoid(x))] * weight, computed
    from the logits without overflow (log sigmoid(x) = -softplus(-x))."""
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    logits, label = _tensor(logits), _tensor(label)
    _same_shape("binary_cross_entropy_with_logits", logits, label)
    # -log sigmoid(x) = softplus(-x); -log(1 - sigmoid(x)) = softplus(x)
    positive_term = F.softplus(F.neg(logits))
    if pos_weight is not None:
        positive_term = F.mul(positive_term, pos_weight)
    one_minus_label = F.sub(1.0, label)
    loss = F.add(F.mul(label, positive_term), F.mul(one_minus_label, F.softplus(logits)))
    if weight is not None:
        loss = F.mul(loss, weight)
    return _reduce(loss, reduction)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """-[y log p + (1 - y) log(1 - p)] * weight for probabilities p (`logits` in MindSpore's
    naming); each log is clamped at -100, as PyTorch does, so p = 0 or 1 stays finite."""
    _check_reduction("binary_cross_entropy", reduction)
    p, y = _tensor(logits), _tensor(labels)
    _same_shape("binary_cross_entropy", p, y)
    log_p = F.maximum(F.log(p), -100.0)
    log_q = F.maximum(F.log(F.sub(1.0, p)), -100.0)
    loss = F.neg(F.add(F.mul(y, log_p), F.mul(F.sub(1.0, y), log_q)))
    if weight is not None:
        loss = F.mul(loss, weight)
    return _reduce(loss, reduction)


def kl_div(logits, labels, reduction="mean", log_target=False):
    """labels * (log(labels) - logits), with `logits` log-probabilities; 0 where labels == 0.
    reduction 'batchmean' divides the sum by the batch size."""
    _check_reduction("kl_div", reduction, _REDUCTIONS + ("batchmean",))
    logits, labels = _tensor(logits), _tensor(labels)
    if log_target:
        loss = F.mul(F.exp(labels), F.sub(labels, logits))
    else:
        positive = F.greater(labels, 0)
        log_labels = F.log(F.where(positive, labels, 1.0))
        loss = F.where(positive, F.mul(labels, F.sub(log_labels, logits)), 0.0)
    if reduction == "batchmean":
        return F.div(F.sum(loss), float(logits.shape[0]) if logits.ndim else 1.0)
    return _reduce(loss, reduction)


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean",
             label_smoothing=0.0):
    """Negative log-likelihood of class indices `target` under log-probabilities `inputs`
    ((N, C) or (N, C, d1, ...), classes on axis 1; or (C,)), as MindSpore's ops.nll_loss.

    l_n = -weight[t_n] * inputs[n, t_n], 0 where t_n == ignore_index. 'mean' divides the sum
    by the summed weights of the targets that count. With label_smoothing e the loss is
    (1 - e) * nll + e / C * smooth, smooth_n = -sum_c inputs[n, c] (unweighted; 'mean' averages
    it over all N, ignored entries counting as 0 — MindSpore's rule, which PyTorch differs
    from when weights or ignored entries are present).
    """
    _check_reduction("nll_loss", reduction)
    inputs, target = _tensor(inputs), _tensor(target)
    class_axis = 0 if inputs.ndim == 1 else 1
    expected = tuple(s for i, s in enumerate(inputs.shape) if i != class_axis)
    if tuple(target.shape) != expected or not target.dtype.is_int:
        raise _error("nll_loss", (inputs, target),
                     f"target must be integer class indices of shape {expected}")
    target = F.expand_dims(target, class_axis)
    counted = F.not_equal(target, ignore_index)
    safe_target = F.where(counted, target, 0)
    picked = F.gather_elements(inputs, class_axis, safe_target)
    weights = F.cast(counted, inputs.dtype)
    if weight is not None:
        weights = F.mul(weights, F.gather(weight, safe_target, 0))
    loss = F.squeeze(F.neg(F.mul(picked, weights)), class_axis)
    if reduction == "mean":
        loss = F.div(F.sum(loss), F.sum(weights))
    elif reduction == "sum":
        loss = F.sum(loss)
    if not label_smoothing:
        return loss
    smooth = F.squeeze(F.neg(F.mul(F.sum(inputs, class_axis, True), F.cast(counted, inputs.dtype))),
                       class_axis)
    smooth = _reduce(smooth, reduction)
    n_classes = inputs.shape[class_axis]
    return F.add(F.mul(loss, 1.0 - label_smoothing), F.mul(smooth, label_smoothing / n_classes))


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy between logits `input` (classes on axis 1, or axis 0 for a 1-D input) and
    `target`: integer class indices (see nll_loss for weight, ignore_index and smoothing) or
    class probabilities of input's shape and float dtype, as MindSpore's ops.cross_entropy.

    With probabilities: l = -sum_c weight_c * p_c * log_softmax(input)_c, where
    p = target * (1 - label_smoothing) + label_smoothing / C; 'mean' divides by N (times the
    extra spatial sizes).

        >>> logits = ms.Tensor(np.array([[2.0, 0.0], [0.0, 2.0]], np.float32))
        >>> round(float(ops.cross_entropy(logits, ms.Tensor([0, 1]))), 6)
        0.126928
    """
    input, target = _tensor(input), _tensor(target)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"ops.cross_entropy: label_smoothing must be in [0, 1], "
                         f"got {label_smoothing}")
    class_axis = 0 if input.ndim == 1 else 1
    log_probs = log_softmax(input, class_axis)
    if not target.dtype.is_float:
        return nll_loss(log_probs, target, weight, ignore_index, reduction, label_smoothing)
    _check_reduction("cross_entropy", reduction)
    _same_shape("cross_entropy", input, target)
    n_classes = input.shape[class_axis]
    if label_smoothing:
        target = F.add(F.mul(target, 1.0 - label_smoothing), label_smoothing / n_classes)
    terms = F.mul(log_probs, target)
    if weight is not None:
        terms = F.mul(terms, F.reshape(weight, (-1,) + (1,) * (input.ndim - class_axis - 1)))
    if reduction == "mean":
        return F.div(F.neg(F.sum(terms)), float(input.size // n_classes))
    if reduction == "sum":
        return F.neg(F.sum(terms))
    return F.neg(F.sum(terms, class_axis))


def softmax_cross_entropy_with_logits(logits, labels, sparse=False, reduction="none"):
    """Per-sample -sum(labels * log_softmax(logits, -1), -1), reduced; what
    nn.SoftmaxCrossEntropyWithLogits computes. sparse=True: labels are class indices."""
    _check_reduction("softmax_cross_entropy_with_logits", reduction)
    logits, labels = _tensor(logits), _tensor(labels)
    if sparse:
        if tuple(labels.shape) != tuple(logits.shape[:-1]) or not labels.dtype.is_int:
            raise _error("softmax_cross_entropy_with_logits", (logits, labels),
                         f"sparse labels must be class indices of shape {logits.shape[:-1]}")
        labels = F.one_hot(labels, logits.shape[-1], 1.0, 0.0)
    else:
        _same_shape("softmax_cross_entropy_with_logits", logits, labels)
    labels = F.cast(labels, logits.dtype)
    loss = F.neg(F.sum(F.mul(labels, log_softmax(logits, -1)), -1))
    return _reduce(loss, reduction)
