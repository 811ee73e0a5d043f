"""The array functions of `minispore.ops`: shapes, joining and splitting, indexing and
gathering, sorting, products. Each checks and normalises its arguments as MindSpore does
(-1 in shapes, negative axes, vectors in matmul), then binds a primitive row.
"""
import builtins

import numpy as np

from ..core.dtype import promote_np
from ..core.tensor import Tensor
from . import functional as F
from . import linalg
from .arguments import axes_arg, axis_arg, dtype_of, op_error, promote, shape_tuple, to_dtype
from .indexing import parse_index
from .primitive import REGISTRY, OpTypeError, bind


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
    shape = shape_tuple(shape)
    if min(shape, default=0) < 0:  # one -1 may stand for the size left; no other negative
        known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        if shape.count(-1) != 1 or min(shape) < -1 or known == 0 or x.size % known:
            raise op_error("reshape", [x], f"cannot reshape {x.size} elements into shape "
                           f"{shape}", shape=shape)
        shape = tuple(x.size // known if s == -1 else s for s in shape)
    if tuple(x.shape) == shape:
        return x
    return bind(REGISTRY["reshape"], x, shape=shape)


def transpose(x, input_perm):
    perm = tuple(axis_arg("transpose", x, p) for p in input_perm)
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
        raise op_error("expand_dims", [x], f"axis {axis} is out of range for a new axis of a "
                       f"rank-{x.ndim} tensor (valid: {-x.ndim - 1}..{x.ndim})", axis=axis)
    axis = axis % (x.ndim + 1)
    shape = list(x.shape)
    shape.insert(axis, 1)
    return reshape(x, shape)


unsqueeze = expand_dims


def squeeze(x, axis=None):
    shape = x.shape
    if axis is None:
        return reshape(x, [s for s in shape if s != 1])
    axes = axes_arg("squeeze", x, axis) or ()
    for a in axes:
        if shape[a] != 1:
            raise op_error("squeeze", [x], f"axis {a} has size {shape[a]}, not 1", axis=axis)
    return reshape(x, [s for i, s in enumerate(shape) if i not in axes])


def flatten(x, order="C", *, start_dim=1, end_dim=-1):
    """Merge axes start_dim..end_dim into one (MindSpore default: all but the batch axis)."""
    if x.ndim == 0:
        return reshape(x, (1,))
    start, end = axis_arg("flatten", x, start_dim), axis_arg("flatten", x, end_dim)
    shape = x.shape
    return reshape(x, shape[:start] + (-1,) + shape[end + 1:])


def broadcast_to(x, shape):
    shape = shape_tuple(shape)
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
    tensors = [to_dtype(t, dtype) for t in tensors]  # the primitive takes one dtype
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
    if builtins.sum(sections) != size:
        raise op_error("split", [x], f"sections {sections} do not add up to the size {size} of "
                       f"axis {axis}", axis=axis)
    out, start = [], 0
    for s in sections:
        out.append(slice_axis(x, axis, start, start + s))
        start += s
    return tuple(out)


def tile(x, multiples):
    """x repeated `multiples` times along each axis."""
    multiples = shape_tuple(multiples)
    if min(multiples, default=0) < 0:
        raise op_error("tile", [x], f"multiples must not be negative, got {multiples}")
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
    value = to_dtype(value, x._data.dtype)
    return bind(REGISTRY["setitem"], x, value, *tensors, index=spec)


def gather(input_params, input_indices, axis, batch_dims=0):
    """Slices of input_params at `input_indices` along `axis` (MindSpore's ops.gather)."""
    if batch_dims:
        raise NotImplementedError("ops.gather: batch_dims > 0 is not supported")
    index = (slice(None),) * axis_arg("gather", input_params, axis) + (input_indices,)
    return getitem(input_params, index)


def gather_elements(x, dim, index):
    """out[i][j] = x[index[i][j]][j] for dim 0 (numpy's take_along_axis)."""
    return bind(REGISTRY["take_along_axis"], x, index, axis=axis_arg("gather_elements", x, dim))


def one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1):
    """One-hot encoding: depth entries along a new axis at `axis` (the last by default;
    Float32 by default).

        >>> ops.one_hot(ms.Tensor(np.array([[0, 2]], np.int32)), 3, axis=0).shape
        (3, 1, 2)
    """
    if dtype_of(indices).kind not in "iu":
        raise op_error("one_hot", [indices], "indices must be an integer tensor", OpTypeError)
    hit = F.equal(expand_dims(indices, -1), F.arange(int(depth), dtype=dtype_of(indices)))
    out = F.where(hit, Tensor(on_value, np.float32) if isinstance(on_value, float) else on_value,
                Tensor(off_value, np.float32) if isinstance(off_value, float) else off_value)
    if axis == -1:
        return out
    rank = out.ndim
    if not -rank <= axis < rank:
        raise op_error("one_hot", [indices], f"axis must lie in [-{rank}, {rank}), got {axis}")
    # the new axis moves to `axis`, the others keep their order
    position = axis % rank
    perm = tuple(range(position)) + (rank - 1,) + tuple(range(position, rank - 1))
    return F.transpose(out, perm)


def sort(x, axis=-1, descending=False):
    """(values, indices) sorted along `axis` (stable)."""
    return bind(REGISTRY["sort"], x, axis=axis_arg("sort", x, axis), descending=bool(descending))


def topk(x, k, dim=-1, largest=True, sorted=True):
    """(values, indices) of the k largest (or smallest) entries along `dim` (None: the last)."""
    dim = axis_arg("topk", x, -1 if dim is None else dim)
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
        input = F.mul(input, beta)
    dtype = mat1._data.dtype
    alpha = F.cast(alpha, dtype) if isinstance(alpha, Tensor) else Tensor(np.asarray(alpha, dtype))
    return bind(REGISTRY["addmm"], to_dtype(input, dtype), mat1, mat2, alpha)


def bmm(x, y):
    """Batched matrix product of (..., n, k) and (..., k, m)."""
    return matmul(x, y)


def is_tensor(x):
    return isinstance(x, Tensor)


def shape(x):
    return tuple(x.shape)


def rank(x):
    return x.ndim


def size(x):
    return x.size
