"""The functional API, `minispore.ops.<name>`.

Every primitive in the table is exported here under its name (`ops.exp`, `ops.matmul`...).
The functions below add what a user-facing signature needs on top of a primitive: MindSpore's
dtype promotion for binary ops, axis normalisation, -1 in shapes, vectors in matmul; and the
composites (mean, softmax, losses...) that are exact as compositions of primitives and so need
no derivative of their own.
"""
import builtins

import numpy as np

from ..context import device
from ..core.dtype import promote_np, scalar_np_dtype, to_np
from ..core.tensor import Tensor
from .infer import normalize_axis
from .primitive import (
    REGISTRY,
    OpError,
    OpShapeError,
    OpTypeError,
    aval_of,
    bind,
    bind_positional,
    with_context,
)

# shadowed below by ops.max / ops.sum / ops.all
_py_max, _py_sum, _py_all = builtins.max, builtins.sum, builtins.all


def _np_dtype_of(x):
    return x._data.dtype if isinstance(x, Tensor) else getattr(x, "dtype", None)


def _to_dtype(x, dtype):
    if isinstance(x, Tensor):
        return x if x._data.dtype == dtype else bind(REGISTRY["cast"], x, dtype=dtype)
    if device.current_xp is not np and type(x) in (bool, int, float):
        return device.scalar(x, dtype)  # on GPU: uploaded once per value, not once per op
    return device.xp().asarray(x, dtype=dtype)


def promote(x, y):
    """x and y converted to their common dtype (MindSpore's rules, see core.dtype)."""
    dx, dy = _np_dtype_of(x), _np_dtype_of(y)
    if dx is not None and dy is not None:
        target = promote_np(dx, dy)
    elif dx is not None:
        target = scalar_np_dtype(dx, y)
    elif dy is not None:
        target = scalar_np_dtype(dy, x)
    else:
        x, y = Tensor(x), Tensor(y)
        target = promote_np(x._data.dtype, y._data.dtype)
    return _to_dtype(x, target), _to_dtype(y, target)


def _error(op_name, cls, message, tensors, **attrs):
    """An OpError of class `cls` in the standard form: the op, its inputs, the user's line."""
    return cls(with_context(op_name, [aval_of(t) for t in tensors], attrs, message))


def _axis(op_name, x, axis):
    """`axis` of x as a non-negative int, or an error naming the op and x."""
    try:
        return normalize_axis(int(axis), x.ndim)
    except OpError as e:
        raise _error(op_name, type(e), str(e), [x], axis=axis) from None


def _axes(op_name, x, axis):
    """`normalize_axes` for op `op_name`, with the op and x named if an axis is out of range."""
    try:
        return normalize_axes(axis, x.ndim)
    except OpError as e:
        raise _error(op_name, type(e), str(e), [x], axis=axis) from None


def _binary(prim):
    def op(x, y):
        if not (isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype == y._data.dtype):
            x, y = promote(x, y)
        return bind_positional(prim, x, y)
    op.__name__ = op.__qualname__ = prim.name
    op.__doc__ = f"Elementwise {prim.name} with broadcasting and dtype promotion."
    return op


# Every primitive is an op under its own name; the definitions below refine some of them.
globals().update(REGISTRY)
from . import array, elementwise, linalg, reduce  # noqa: E402,F401  (fill the registry)

globals().update(REGISTRY)

for _name in ("add", "sub", "mul", "div", "floor_div", "floor_mod", "pow", "maximum", "minimum",
              "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
              "logical_and", "logical_or", "logical_xor"):
    globals()[_name] = _binary(REGISTRY[_name])



def _unary(prim):
    # a plain one-argument function: calling the Primitive object itself would pack and
    # unpack an attrs dict on every eager op (a third of PyNative's per-op overhead)
    def op(x, *wrong):  # extra inputs reach the primitive, which names the op in its error
        return bind_positional(prim, x, *wrong)
    op.__name__ = op.__qualname__ = prim.name
    op.__doc__ = prim.__doc__ or f"Elementwise {prim.name}."
    return op


for _name in ("neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan",
              "tanh", "sigmoid", "relu", "erf", "sign", "floor", "ceil", "round", "logical_not",
              "bitwise_not", "identity"):
    globals()[_name] = _unary(REGISTRY[_name])

subtract, multiply, divide, true_divide, floor_divide = sub, mul, div, div, floor_div
ne, eq, lt, le, gt, ge = not_equal, equal, less, less_equal, greater, greater_equal


# ***** tensor creation (concrete constants, also while tracing) *****

def _shape_tuple(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def zeros(shape, dtype=None):
    """ops.zeros((2, 3), ms.float32)"""
    return Tensor._wrap(device.xp().zeros(_shape_tuple(shape), to_np(dtype) or np.float32))


def ones(shape, dtype=None):
    return Tensor._wrap(device.xp().ones(_shape_tuple(shape), to_np(dtype) or np.float32))


def full(shape, fill_value, dtype=None):
    dtype = to_np(dtype) or (np.float32 if isinstance(fill_value, float) else None)
    return Tensor._wrap(device.xp().full(_shape_tuple(shape), fill_value, dtype))


def zeros_like(x, dtype=None):
    return Tensor._wrap(device.xp().zeros(tuple(x.shape), to_np(dtype) or _np_dtype_of(x)))


def ones_like(x, dtype=None):
    return Tensor._wrap(device.xp().ones(tuple(x.shape), to_np(dtype) or _np_dtype_of(x)))


def fill_like(x, value):
    """A tensor shaped and typed like x filled with value."""
    return Tensor._wrap(device.xp().full(tuple(x.shape), value, _np_dtype_of(x)))


def arange(start=0, end=None, step=1, dtype=None):
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = _py_all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if ints else np.float32
    return Tensor._wrap(device.xp().arange(start, end, step, dtype=to_np(dtype)))


def linspace(start, end, steps, dtype=None):
    return Tensor._wrap(device.xp().linspace(float(start), float(end), int(steps)).astype(to_np(dtype) or np.float32))


def eye(n, m=None, dtype=None):
    return Tensor._wrap(device.xp().eye(n, m, dtype=to_np(dtype) or np.float32))


# ***** dtype, selection, clipping *****

def cast(x, dtype):
    """x converted to `dtype` (a minispore or numpy dtype)."""
    dtype = to_np(dtype)
    x = x if isinstance(x, Tensor) else Tensor(x)
    if x._data.dtype == dtype:
        return x
    return bind(REGISTRY["cast"], x, dtype=dtype)


def where(condition, x, y):
    """Elementwise `x if condition else y`, broadcasting all three."""
    x, y = promote(x, y)
    if not isinstance(condition, Tensor):
        condition = Tensor(np.asarray(condition, dtype=np.bool_))
    return bind(REGISTRY["select"], condition, x, y)


select = where


def clip(x, xmin=None, xmax=None):
    """Values of x limited to [xmin, xmax] (either may be None)."""
    if xmin is not None:
        x = maximum(x, xmin)
    if xmax is not None:
        x = minimum(x, xmax)
    return x


clamp = clip


def square(x):
    return mul(x, x)


def reciprocal(x):
    return div(1.0, x)


def softplus(x, beta=1, threshold=20):
    """log(1 + exp(beta x)) / beta, computed without overflow."""
    bx = mul(x, beta) if beta != 1 else x
    # one smooth formula per half-line, each fed only its own half (no overflow in the
    # unselected branch): max(x, 0) + log1p(exp(-|x|)) has subgradients at 0 summing to 1,
    # not the true 0.5
    positive = greater(bx, 0)
    out = where(positive, add(bx, log1p(exp(neg(where(positive, bx, 0.0))))),
                log1p(exp(where(positive, 0.0, bx))))
    return div(out, beta) if beta != 1 else out


def gelu(x, approximate="none"):
    """GELU; approximate='tanh' uses the tanh formula, 'none' the exact erf one."""
    if approximate == "tanh":
        inner = mul(add(x, mul(pow(x, 3.0), 0.044715)), float(np.sqrt(2 / np.pi)))
        return mul(mul(x, 0.5), add(tanh(inner), 1.0))
    return mul(mul(x, 0.5), add(erf(mul(x, float(1 / np.sqrt(2)))), 1.0))


def silu(x):
    return mul(x, sigmoid(x))


def stop_gradient(x):
    """x, with no gradient flowing back through it."""
    return bind(REGISTRY["stop_gradient"], x)


# ***** reductions *****

def normalize_axes(axis, ndim):
    """None (all axes) or a sorted tuple of non-negative axes; () means all, as in MindSpore."""
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if axes is None or tuple(axes) == ():
        return None
    normalized = tuple(sorted({normalize_axis(int(a), ndim) for a in axes}))
    return normalized if ndim else None  # a 0-d tensor's one axis (0 or -1) is all of it


def _reduction(name, doc):
    prim = REGISTRY[name]

    def op(x, axis=None, keep_dims=False, *, keepdims=None):
        x = x if isinstance(x, Tensor) else Tensor(x)
        keep = keep_dims if keepdims is None else keepdims
        return bind(prim, x, axis=_axes(name, x, axis), keep_dims=bool(keep))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


sum = reduce_sum = _reduction("reduce_sum", "Sum over `axis` (None or () = all axes).")
amax = reduce_max = _reduction("reduce_max", "Maximum over `axis`.")
amin = reduce_min = _reduction("reduce_min", "Minimum over `axis`.")
prod = reduce_prod = _reduction("reduce_prod", "Product over `axis`.")
all = reduce_all = _reduction("reduce_all", "Logical and over `axis`.")
any = reduce_any = _reduction("reduce_any", "Logical or over `axis`.")


def _count(x, axes):
    shape = x.shape
    return int(np.prod([shape[a] for a in axes] if axes is not None else shape, dtype=np.int64))


def mean(x, axis=None, keep_dims=False, *, keepdims=None):
    """Arithmetic mean over `axis`."""
    x = x if isinstance(x, Tensor) else Tensor(x)
    keep = keep_dims if keepdims is None else keepdims
    axes = _axes("mean", x, axis)
    if not x.dtype.is_float:
        x = cast(x, np.float32)
    return div(sum(x, axes, keep), float(_py_max(_count(x, axes), 1)))


reduce_mean = mean


def var(x, axis=None, ddof=0, keep_dims=False):
    axes = normalize_axes(axis, x.ndim)
    centered = sub(x, mean(x, axes, True))
    return div(sum(mul(centered, centered), axes, keep_dims), float(_py_max(_count(x, axes) - ddof, 1)))


def std(x, axis=None, ddof=0, keep_dims=False):
    return sqrt(var(x, axis, ddof, keep_dims))


def norm(x, ord=None, axis=None, keep_dims=False):
    """Vector 2-norm (ord None/2), 1-norm, or inf-norm over `axis`."""
    if ord in (None, 2, "fro"):
        return sqrt(sum(mul(x, x), axis, keep_dims))
    if ord == 1:
        return sum(abs(x), axis, keep_dims)
    if ord == float("inf"):
        return amax(abs(x), axis, keep_dims)
    raise ValueError(f"ops.norm: ord={ord!r} is not supported (None, 1, 2, inf)")


def logsumexp(x, axis=None, keep_dims=False):
    axes = normalize_axes(axis, x.ndim)
    # shifting by the max keeps exp in range and does not change the value or the gradient
    shift = stop_gradient(amax(x, axes, True))
    out = add(log(sum(exp(sub(x, shift)), axes, True)), shift)
    return out if keep_dims else squeeze(out, axes)


def argmax(x, axis=None, keepdims=False, *, dim=None, keepdim=None, output_type=np.int64):
    """Index of the maximum along `dim`/`axis` (None: of the flattened tensor)."""
    return _arg("argmax", x, axis if dim is None else dim, keepdims if keepdim is None else keepdim, output_type)


def argmin(x, axis=None, keepdims=False, *, dim=None, keepdim=None, output_type=np.int64):
    return _arg("argmin", x, axis if dim is None else dim, keepdims if keepdim is None else keepdim, output_type)


def _arg(name, x, axis, keep, dtype):
    if axis is not None:
        axis = _axis(name, x, axis)
    return bind(REGISTRY[name], x, axis=axis, keep_dims=bool(keep), dtype=to_np(dtype))


def max(x, axis=None, keepdims=False, *, keep_dims=None):
    """(values, indices) of the maximum along `axis` (MindSpore's ops.max); ops.amax gives values."""
    keep = keepdims if keep_dims is None else keep_dims
    if axis is None:
        return amax(x, None, keep), argmax(x, None, keep)
    return amax(x, axis, keep), argmax(x, axis, keep)


def min(x, axis=None, keepdims=False, *, keep_dims=None):
    """(values, indices) of the minimum along `axis`."""
    keep = keepdims if keep_dims is None else keep_dims
    if axis is None:
        return amin(x, None, keep), argmin(x, None, keep)
    return amin(x, axis, keep), argmin(x, axis, keep)


def cumsum(x, axis, dtype=None, *, reverse=False):
    out = bind(REGISTRY["cumsum"], x, axis=_axis("cumsum", x, axis), reverse=reverse)
    return out if dtype is None else cast(out, dtype)


# ***** shapes *****

def sum_to(x, shape):
    """Sum x down to `shape` (the inverse of broadcasting; used by every binary bprop)."""
    shape = tuple(shape)
    if tuple(x.shape) == shape:
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and x.shape[i + lead] != 1)
    if axes:
        x = bind(REGISTRY["reduce_sum"], x, axis=axes, keep_dims=True)
    return reshape(x, shape) if tuple(x.shape) != shape else x


def reshape(x, shape):
    """x with a new shape; one entry may be -1."""
    x = x if isinstance(x, Tensor) else Tensor(x)
    shape = _shape_tuple(shape)
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        if shape.count(-1) > 1 or known == 0 or x.size % known:
            raise _error("reshape", OpShapeError, f"cannot reshape {x.size} elements into "
                         f"shape {shape}", [x], shape=shape)
        shape = tuple(x.size // known if s == -1 else s for s in shape)
    if tuple(x.shape) == shape:
        return x
    return bind(REGISTRY["reshape"], x, shape=shape)


def transpose(x, input_perm):
    perm = tuple(_axis("transpose", x, p) for p in input_perm)
    if perm == tuple(range(x.ndim)):
        return x
    return bind(REGISTRY["transpose"], x, perm=perm)


permute = transpose


def swap_last_axes(x):
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


def swapaxes(x, axis0, axis1):
    perm = list(range(x.ndim))
    perm[axis0], perm[axis1] = perm[axis1], perm[axis0]
    return transpose(x, perm)


def expand_dims(x, axis):
    axis = int(axis)
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise _error("expand_dims", OpShapeError, f"axis {axis} is out of range for a new axis "
                     f"of a rank-{x.ndim} tensor (valid: {-x.ndim - 1}..{x.ndim})", [x], axis=axis)
    axis = axis % (x.ndim + 1)
    shape = list(x.shape)
    shape.insert(axis, 1)
    return reshape(x, shape)


unsqueeze = expand_dims


def squeeze(x, axis=None):
    shape = x.shape
    if axis is None:
        return reshape(x, [s for s in shape if s != 1])
    axes = _axes("squeeze", x, axis) or ()
    for a in axes:
        if shape[a] != 1:
            raise _error("squeeze", OpShapeError, f"axis {a} has size {shape[a]}, not 1", [x],
                         axis=axis)
    return reshape(x, [s for i, s in enumerate(shape) if i not in axes])


def flatten(x, order="C", *, start_dim=1, end_dim=-1):
    """Merge axes start_dim..end_dim into one (MindSpore default: all but the batch axis)."""
    if x.ndim == 0:
        return reshape(x, (1,))
    start, end = _axis("flatten", x, start_dim), _axis("flatten", x, end_dim)
    shape = x.shape
    return reshape(x, shape[:start] + (-1,) + shape[end + 1:])


def broadcast_to(x, shape):
    shape = _shape_tuple(shape)
    shape = tuple(x.shape[i - (len(shape) - x.ndim)] if s == -1 else s for i, s in enumerate(shape))
    if tuple(x.shape) == shape:
        return x
    return bind(REGISTRY["broadcast_to"], x, shape=shape)


def concat(tensors, axis=0):
    """Join tensors along an existing axis."""
    tensors = [t if isinstance(t, Tensor) else Tensor(t) for t in tensors]
    if len(tensors) == 1:
        return tensors[0]
    dtype = tensors[0]._data.dtype
    for t in tensors[1:]:
        dtype = promote_np(dtype, t._data.dtype)
    tensors = [_to_dtype(t, dtype) for t in tensors]  # the primitive takes one dtype
    return bind(REGISTRY["concat"], *tensors, axis=int(axis))


cat = concat


def stack(tensors, axis=0):
    """Join tensors along a new axis."""
    return concat([expand_dims(t, axis) for t in tensors], axis)


def slice_axis(x, axis, start, stop):
    """x[..., start:stop, ...] on one axis."""
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return getitem(x, tuple(index))


def split(x, split_size_or_sections, axis=0):
    """Split along `axis` into equal chunks of a size, or into the given section sizes."""
    size = x.shape[axis]
    if isinstance(split_size_or_sections, (int, np.integer)):
        step = int(split_size_or_sections)
        sections = [step] * (size // step) + ([size % step] if size % step else [])
    else:
        sections = list(split_size_or_sections)
    if _py_sum(sections) != size:
        raise _error("split", OpShapeError, f"sections {sections} do not add up to the size "
                     f"{size} of axis {axis}", [x], axis=axis)
    out, start = [], 0
    for s in sections:
        out.append(slice_axis(x, axis, start, start + s))
        start += s
    return tuple(out)


def tile(x, multiples):
    """x repeated `multiples` times along each axis."""
    multiples = _shape_tuple(multiples)
    x = reshape(x, (1,) * (len(multiples) - x.ndim) + tuple(x.shape)) if len(multiples) > x.ndim else x
    multiples = (1,) * (x.ndim - len(multiples)) + multiples
    interleaved = [d for s in x.shape for d in (1, s)]
    target = [d for m, s in zip(multiples, x.shape) for d in (m, s)]
    return reshape(broadcast_to(reshape(x, interleaved), target), [m * s for m, s in zip(multiples, x.shape)])


def pad(x, paddings, value=0):
    paddings = tuple((int(a), int(b)) for a, b in paddings)
    return bind(REGISTRY["pad"], x, paddings=paddings, value=value)


def getitem(x, index):
    """x[index] (ints, slices, None, ..., integer/bool tensors and lists)."""
    spec, tensors = parse_index(index)
    return bind(REGISTRY["getitem"], x, *tensors, index=spec)


def setitem(x, index, value):
    """A copy of x with x[index] = value (Tensor.__setitem__ adopts it in place)."""
    spec, tensors = parse_index(index)
    value = _to_dtype(value, x._data.dtype)
    return bind(REGISTRY["setitem"], x, value, *tensors, index=spec)


def gather(input_params, input_indices, axis, batch_dims=0):
    """Slices of input_params at `input_indices` along `axis` (MindSpore's ops.gather)."""
    if batch_dims:
        raise NotImplementedError("ops.gather: batch_dims > 0 is not supported")
    index = (slice(None),) * _axis("gather", input_params, axis) + (input_indices,)
    return getitem(input_params, index)


def gather_elements(x, dim, index):
    """out[i][j] = x[index[i][j]][j] for dim 0 (numpy's take_along_axis)."""
    return bind(REGISTRY["take_along_axis"], x, index, axis=_axis("gather_elements", x, dim))


def one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1):
    """One-hot encoding: depth entries along a new last axis (Float32 by default)."""
    if _np_dtype_of(indices).kind not in "iu":
        raise _error("one_hot", OpTypeError, "indices must be an integer tensor", [indices])
    hit = equal(expand_dims(indices, -1), arange(int(depth), dtype=_np_dtype_of(indices)))
    out = where(hit, Tensor(on_value, np.float32) if isinstance(on_value, float) else on_value,
                Tensor(off_value, np.float32) if isinstance(off_value, float) else off_value)
    return out if axis == -1 else swapaxes(out, -1, axis)


def sort(x, axis=-1, descending=False):
    """(values, indices) sorted along `axis` (stable)."""
    return bind(REGISTRY["sort"], x, axis=_axis("sort", x, axis), descending=bool(descending))


def topk(x, k, dim=-1, largest=True, sorted=True):
    """(values, indices) of the k largest (or smallest) entries along `dim` (None: the last)."""
    dim = _axis("topk", x, -1 if dim is None else dim)
    values, indices = sort(x, dim, descending=largest)
    return slice_axis(values, dim, 0, k), slice_axis(indices, dim, 0, k)


def matmul(x, y, *, transpose_a=False, transpose_b=False):
    """Matrix product with numpy's rules for vectors and batch broadcasting; `transpose_a` /
    `transpose_b` swap the last two axes of a matrix operand first (free: BLAS reads it so).

        >>> w = ms.Tensor(np.ones((3, 2), np.float32))
        >>> ops.matmul(ms.Tensor(np.ones((4, 2), np.float32)), w, transpose_b=True).shape
        (4, 3)
    """
    x = x if isinstance(x, Tensor) else Tensor(x)
    y = y if isinstance(y, Tensor) else Tensor(y)
    if x._data.dtype != y._data.dtype:
        x, y = promote(x, y)
    if x.ndim == 1 or y.ndim == 1:
        if transpose_a or transpose_b:
            raise ValueError(f"matmul: transpose_a/transpose_b need matrices, got shapes "
                             f"{x.shape} and {y.shape}")
        if x.ndim == 1 and y.ndim == 1:
            return reshape(bind(REGISTRY["matmul"], reshape(x, (1, -1)), reshape(y, (-1, 1))), ())
        if x.ndim == 1:
            return squeeze(bind(REGISTRY["matmul"], expand_dims(x, 0), y), -2)
        return squeeze(bind(REGISTRY["matmul"], x, expand_dims(y, -1)), -1)
    return linalg.matmul_flags(x, y, transpose_a, transpose_b)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2) for matrices mat1, mat2 and an input broadcasting
    to their product, as MindSpore's ops.addmm (one BLAS call on the CPU).

        >>> eye = ms.Tensor(np.eye(2, dtype=np.float32))
        >>> ops.addmm(ms.Tensor(np.ones((2, 2), np.float32)), eye, eye, alpha=2).asnumpy().tolist()
        [[3.0, 1.0], [1.0, 3.0]]
    """
    input, mat1, mat2 = (x if isinstance(x, Tensor) else Tensor(x) for x in (input, mat1, mat2))
    if beta != 1:
        input = mul(input, beta)
    dtype = mat1._data.dtype
    alpha = cast(alpha, dtype) if isinstance(alpha, Tensor) else Tensor(np.asarray(alpha, dtype))
    return bind(REGISTRY["addmm"], _to_dtype(input, dtype), mat1, mat2, alpha)


def bmm(x, y):
    """Batched matrix product of (..., n, k) and (..., k, m)."""
    return matmul(x, y)


def dot(x, y):
    return matmul(x, y)


def outer(x, y):
    return mul(expand_dims(x, -1), expand_dims(y, 0))


def isclose(x, y, rtol=1e-5, atol=1e-8):
    return less_equal(abs(sub(x, y)), add(mul(abs(y), rtol), atol))


def is_tensor(x):
    return isinstance(x, Tensor)


def shape(x):
    return tuple(x.shape)


def rank(x):
    return x.ndim


def size(x):
    return x.size


from .clip import clip_by_global_norm, clip_by_norm, clip_by_value  # noqa: E402,F401
from .debug import print_values  # noqa: E402,F401  (registers the graph print op)
from .indexing import parse_index
from .nn import *  # noqa: E402,F401,F403  (nn primitives and composites: conv, pool, softmax, losses)
from .state import assign, assign_add, assign_sub, depend  # noqa: E402,F401
