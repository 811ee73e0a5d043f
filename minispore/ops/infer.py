"""Shape/dtype rules shared by families of primitives (JAX's `standard_naryop` idea)."""
import numpy as np

from ..core.dtype import is_float_np, promote_np
from .primitive import Aval, OpShapeError, OpTypeError

FLOAT32 = np.dtype(np.float32)
BOOL = np.dtype(np.bool_)


def same(x, **attrs):
    """Output like the input."""
    return x


def float_dtype(dtype):
    """Float dtypes stay; bool/integer inputs compute in Float32 (as MindSpore's float ops)."""
    return dtype if is_float_np(dtype) else FLOAT32


def float_unary(x, **attrs):
    """Elementwise float function: same shape, float dtype."""
    return Aval(x.shape, float_dtype(x.dtype))


def broadcast_shapes(*shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise OpShapeError(f"shapes {' and '.join(str(tuple(s)) for s in shapes)} cannot broadcast") from None


def broadcast(*xs, **attrs):
    """Elementwise n-ary op: broadcast shapes, promoted dtype."""
    dtype = xs[0].dtype
    for x in xs[1:]:
        dtype = promote_np(dtype, x.dtype)
    return Aval(broadcast_shapes(*(x.shape for x in xs)), dtype)


def broadcast_float(*xs, **attrs):
    out = broadcast(*xs)
    return Aval(out.shape, float_dtype(out.dtype))


def _reject_bool(xs):
    for x in xs:
        if x.dtype.kind == "b":
            raise OpTypeError(f"arithmetic is not defined on Bool tensors, got {x}; cast first")


def numeric(x, **attrs):
    """Output like the input, which must not be Bool (arithmetic such as neg, sign, round)."""
    _reject_bool((x,))
    return x


def broadcast_numeric(*xs, **attrs):
    """`broadcast` for arithmetic that has no Bool version (sub, pow, floor_div, mod)."""
    _reject_bool(xs)
    return broadcast(*xs)


def integral(x, **attrs):
    """Output like the input, which must be Bool or integer (bitwise ops)."""
    if x.dtype.kind not in "biu":
        raise OpTypeError(f"bitwise ops need a Bool or integer tensor, got {x}")
    return x


def compare(*xs, **attrs):
    """Comparison / logical op: broadcast shapes, Bool."""
    return Aval(broadcast_shapes(*(x.shape for x in xs)), BOOL)


def require_float(name, aval):
    if not is_float_np(aval.dtype):
        raise OpTypeError(f"{name} must be a float tensor, got {aval}")


def require_int(name, aval):
    if aval.dtype.kind not in "iu":
        raise OpTypeError(f"{name} must be an integer tensor, got {aval}")


def normalize_axis(axis, ndim):
    """A non-negative axis, or OpShapeError naming the valid range. A 0-d tensor has the
    axis 0 (alias -1), as in PyTorch: reducing or scanning along it changes nothing."""
    rank = max(ndim, 1)
    if not -rank <= axis < rank:
        raise OpShapeError(f"axis {axis} is out of range for a tensor of rank {ndim} "
                           f"(valid: {-rank}..{rank - 1})")
    return axis % rank


def reduced_shape(shape, axis, keep_dims):
    """Shape after reducing `axis` (a tuple of non-negative axes, or None for all)."""
    axes = range(len(shape)) if axis is None else axis
    for a in axes:
        normalize_axis(a, len(shape))
    if keep_dims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def reduce(x, axis=None, keep_dims=False):
    return Aval(reduced_shape(x.shape, axis, keep_dims), x.dtype)
