"""Activations beyond the elementwise primitives: the softmax family (primitives), relu6,
leaky_relu, elu, hardsigmoid, hardswish (composites)."""
from __future__ import annotations
import numpy as np

from . import batching as B
from . import functional as F
from . import infer as I
from .arguments import as_tensor, op_error
from .primitive import Aval, OpError, Primitive
from ..core.hints import Axis, Tensor, TensorLike

__all__ = ["elu", "hardsigmoid", "hardswish", "leaky_relu", "log_softmax", "relu6", "softmax"]


# ***** softmax and log_softmax *****
#
# Primitives rather than composites: one kernel forward and a four-op backward, where the
# composite took five ops forward and about twice that backward (it is the head of every
# classifier's loss). `axis` is a tuple of non-negative axes, () for a 0-d input.

def _along_axes_infer(x, axis):
    I.numeric(x)
    for a in axis:
        I.normalize_axis(a, len(x.shape))
    return Aval(x.shape, I.float_dtype(x.dtype))


def _along_axes_batch(prim, args, dims, axis_size, axis):
    return prim(B.to_front(args[0], dims[0]), axis=B.shift_axes(axis)), 0


# numpy reduces along a short last axis row by row, at ~50 ns a row: on (128, 10) float32 a
# max and a sum take 10 us. Moved to the front (one copy), the axis is reduced by a few vector
# ops over whole rows: 4 us, the copy included. Past ~64 classes the copy costs more.
_SHORT_AXIS = 64


def short_last_axis(xp, x, axis):
    """Whether numpy reduces `axis` of x faster with that axis moved first (see above)."""
    return xp is np and x.ndim > 1 and axis == (x.ndim - 1,) and x.shape[-1] <= _SHORT_AXIS


def _short_axis_first(impl):
    """impl(xp, x, axis) on x as a float array, run with a short last axis moved first."""
    def run(xp, x, axis):
        if x.dtype.kind == "b":  # as infer says (numpy would compute in Float32)
            raise TypeError("arithmetic is not defined on Bool tensors")
        x = x.astype(I.float_dtype(x.dtype), copy=False)
        if not short_last_axis(xp, x, axis):
            return impl(xp, x, axis)
        last = x.ndim - 1  # transpose, not moveaxis: moveaxis costs more than the copy here
        out = impl(xp, np.ascontiguousarray(x.transpose((last,) + tuple(range(last)))), (0,))
        return np.ascontiguousarray(out.transpose(tuple(range(1, x.ndim)) + (0,)))
    return run


def shifted_by_max(x, axis):
    """x minus its max along `axis`: exp of it cannot overflow, and the shift cancels."""
    return x - x.max(axis=axis, keepdims=True)


@_short_axis_first
def _softmax_impl(xp, x, axis):
    e = xp.exp(shifted_by_max(x, axis))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _softmax_bprop(x, out, dout, axis):
    return (F.mul(out, F.sub(dout, F.sum(F.mul(dout, out), axis, True))),)


softmax_p = Primitive("softmax", infer=_along_axes_infer, impl=_softmax_impl,
                      bprop=_softmax_bprop, batch=_along_axes_batch,
                      doc="exp(x) / sum(exp(x)) along the axes `axis`")


@_short_axis_first
def _log_softmax_impl(xp, x, axis):
    shifted = shifted_by_max(x, axis)
    shifted -= xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))
    return shifted


def _log_softmax_bprop(x, out, dout, axis):
    return (F.sub(dout, F.mul(F.exp(out), F.sum(dout, axis, True))),)


log_softmax_p = Primitive("log_softmax", infer=_along_axes_infer, impl=_log_softmax_impl,
                          bprop=_log_softmax_bprop, batch=_along_axes_batch,
                          doc="x - log(sum(exp(x))) along the axes `axis`")


def _axes(op, x, axis):
    """`axis` (an int or a tuple of them) as the primitives' sorted tuple of axes."""
    try:
        axes = F.normalize_axes(axis, x.ndim)
    except OpError as e:
        raise op_error(op, (x,), str(e), type(e)) from None
    return tuple(range(x.ndim)) if axes is None else axes


def softmax(x: Tensor, axis: Axis = -1) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis` (an int or a tuple of ints), computed without
    overflow; integer inputs compute in Float32.

        >>> ops.softmax(ms.Tensor([0.0, 0.0, 1e4])).asnumpy().tolist()
        [0.0, 0.0, 1.0]
    """
    x = as_tensor(x)
    return softmax_p(x, axis=_axes("softmax", x, axis))


def log_softmax(x: Tensor, axis: Axis = -1) -> Tensor:
    """x - log(sum(exp(x))) along `axis` (an int or a tuple of ints), computed without
    overflow; integer inputs compute in Float32.

        >>> ops.log_softmax(ms.Tensor([0.0, 1e4])).asnumpy().tolist()
        [-10000.0, 0.0]
    """
    x = as_tensor(x)
    return log_softmax_p(x, axis=_axes("log_softmax", x, axis))


# ***** other activations *****

def relu6(x: Tensor) -> Tensor:
    """min(max(x, 0), 6); gradient 1 strictly inside (0, 6), as PyTorch and MindSpore give."""
    # a select, not minimum(relu(x), 6): minimum would pass the gradient through at x == 6
    return F.where(F.greater_equal(x, 6), 6.0, F.relu(x))


def leaky_relu(input: Tensor, alpha: float = 0.2) -> Tensor:
    """x where x > 0, alpha * x elsewhere (MindSpore's default alpha is 0.2)."""
    return F.where(F.greater(input, 0), input, F.mul(input, alpha))


def elu(input_x: Tensor, alpha: float = 1.0) -> Tensor:
    """x where x > 0, alpha * (exp(x) - 1) elsewhere."""
    positive = F.greater(input_x, 0)
    # expm1 only sees x <= 0: a large x in the unselected branch would overflow, and the
    # select's zero gradient times inf is nan
    negative_part = F.where(positive, 0.0, input_x)
    return F.where(positive, input_x, F.mul(F.expm1(negative_part), alpha))


def hardsigmoid(input: Tensor) -> Tensor:
    """relu6(x + 3) / 6."""
    return F.div(relu6(F.add(input, 3.0)), 6.0)


def hardswish(x: Tensor) -> Tensor:
    """x * relu6(x + 3) / 6."""
    return F.mul(x, hardsigmoid(x))
