"""The rest of MindSpore's functional `ops` that code meets: 1.x aliases (tensor_add,
floordiv...), scalar helpers, in-place functional forms (zero_, uniform_...), band and
diagonal helpers (matrix_diag, matrix_set_diag, diagonal_scatter), segment sums, windows,
and small linear-algebra and nn helpers (dist, pdist, renorm, bias_add...); clipping by norm is
in ops.clip.
Each is a composite of other ops.

    >>> ops.sequence_mask(ms.Tensor([1, 3]), 4).asnumpy().tolist()
    [[True, False, False, False], [True, True, True, False]]
"""
import builtins
import functools
import itertools
import math
import operator

import numpy as np

from ..core.dtype import to_np
from ..core.tensor import Tensor
from . import functional as F
from . import elementwise as E
from .arguments import as_tensor, axis_arg, binary_op, op_error, unary_op
from .einsum import einsum
from .layout import diff
from .math_ext import float_power, isnan
from .products import baddbmm, tensordot
from .state import assign

__all__ = [
    "tensor_add", "tensor_sub", "tensor_mul", "tensor_div", "tensor_floordiv", "tensor_mod",
    "tensor_pow", "tensor_exp", "tensor_expm1", "tensor_ge", "tensor_gt", "tensor_le",
    "tensor_lt", "tensor_range", "tensor_dot", "floordiv", "floormod", "pows", "typeof",
    "dtype", "eps", "partial", "is_", "is_not", "scalar_add", "scalar_sub", "scalar_mul",
    "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow", "scalar_max", "scalar_min",
    "scalar_eq", "scalar_ne", "scalar_lt", "scalar_le", "scalar_gt", "scalar_ge",
    "scalar_uadd", "scalar_usub", "scalar_log", "scalar_cast", "scalar_to_tensor",
    "scalar_to_array", "fill", "fills", "zero_", "uniform_", "normal_", "random_",
    "bernoulli_", "exponential_", "clamp_", "erfinv_", "tanh_", "inplace_add", "inplace_sub",
    "inplace_update", "matrix_diag", "matrix_diag_part", "matrix_set_diag", "diagonal_scatter",
    "unsorted_segment_sum", "sequence_mask", "dist", "pdist", "renorm",
    "bias_add", "dense", "is_nonzero", "mvlgamma", "logspace", "combinations",
    "bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window",
    "strided_slice", "cov", "cholesky_inverse", "cholesky_solve", "matrix_solve",
    "lstsq", "random_categorical", "multinomial_with_replacement", "conj", "real", "imag",
    "angle", "type_as", "isnan_ext", "float_power_ext", "baddbmm_ext", "einsum_ext",
    "diff_ext", "adjoint", "reverse_sequence", "inplace_index_add", "put_", "iou", "intopk",
    "bernoulli_ext", "padding", "space_to_batch_nd", "batch_to_space_nd", "inplace_sigmoid",
]

# ***** MindSpore 1.x names *****
# (new function objects: ops.functional is still being defined when this module loads)
tensor_add, tensor_sub = binary_op(E.add), binary_op(E.sub)
tensor_mul, tensor_div = binary_op(E.mul), binary_op(E.div)
tensor_floordiv = floordiv = binary_op(E.floor_div)
tensor_mod = floormod = binary_op(E.floor_mod)
tensor_pow = pows = binary_op(E.pow)
tensor_exp, tensor_expm1 = unary_op(E.exp), unary_op(E.expm1)
tensor_ge, tensor_gt = binary_op(E.greater_equal), binary_op(E.greater)
tensor_le, tensor_lt = binary_op(E.less_equal), binary_op(E.less)


def tensor_range(start, limit=None, delta=1, dtype=None):
    """MindSpore 1.x's name for ops.arange."""
    return F.arange(start, limit, delta, dtype)
tensor_dot = tensordot
isnan_ext, float_power_ext, baddbmm_ext = isnan, float_power, baddbmm
einsum_ext, diff_ext = einsum, diff
partial = functools.partial
is_, is_not = operator.is_, operator.is_not


def typeof(x):
    """The dtype of a tensor, or the Python type of anything else."""
    return x.dtype if isinstance(x, Tensor) else type(x)


def dtype(input):
    return as_tensor(input).dtype


def eps(x):
    """A tensor like x filled with its dtype's machine epsilon."""
    x = as_tensor(x)
    return F.full(x.shape, float(np.finfo(x._data.dtype).eps), x.dtype)


# ***** scalars (plain Python numbers) *****
scalar_add, scalar_sub, scalar_mul = operator.add, operator.sub, operator.mul
scalar_div, scalar_floordiv, scalar_mod = operator.truediv, operator.floordiv, operator.mod
scalar_pow, scalar_eq, scalar_ne = operator.pow, operator.eq, operator.ne
scalar_lt, scalar_le, scalar_gt, scalar_ge = operator.lt, operator.le, operator.gt, operator.ge
scalar_uadd, scalar_usub = operator.pos, operator.neg
scalar_max, scalar_min, scalar_log = max, min, math.log


def scalar_cast(input_x, input_t):
    """A Python number converted to the type of a dtype (int for integers, float...)."""
    kind = np.dtype(to_np(input_t)).kind
    return bool(input_x) if kind == "b" else int(input_x) if kind in "iu" else float(input_x)


def scalar_to_tensor(input_x, dtype=None):
    return Tensor(input_x, dtype)


def scalar_to_array(input_x):
    return Tensor(input_x)


# ***** fills and in-place functional forms (the first argument takes the result) *****

def fill(type, shape, value):
    """A tensor of `shape` and dtype `type` filled with value (MindSpore 1.x order)."""
    return F.full(shape, value, type)


def fills(x, value):
    x = as_tensor(x)
    return F.full(x.shape, value, x.dtype)


def zero_(input):
    return assign(input, F.zeros_like(input))


def uniform_(input, from_=0, to=1, *, generator=None):
    return assign(input, F.uniform(input.shape, float(from_), float(to), dtype=input.dtype))


def normal_(input, mean=0, std=1, *, generator=None):
    return assign(input, F.cast(F.normal(input.shape, float(mean), float(std)), input.dtype))


def random_(input, from_=0, to=None, *, generator=None):
    high = to if to is not None else 2 ** 31 - 1
    return assign(input, F.cast(F.randint(from_, high, input.shape), input.dtype))


def bernoulli_(input, p=0.5, *, generator=None):
    return assign(input, F.bernoulli(input, p))


def exponential_(input, lambd=1, *, generator=None):
    return assign(input, F.cast(F.exponential(input.shape, lambd), input.dtype))


def clamp_(input, min=None, max=None):
    return assign(input, F.clip(input, min, max))


def inplace_sigmoid(input):
    return assign(input, F.sigmoid(input))


def erfinv_(input):
    return assign(input, F.erfinv(input))


def tanh_(input):
    return assign(input, F.tanh(input))


def _rows(x, indices):
    idx = as_tensor(indices)
    return F.expand_dims(F.reshape(idx, (-1,)) if idx.ndim == 0 else idx, -1)


def inplace_add(x, v, indices):
    """x with v added to its rows `indices`."""
    return F.tensor_scatter_add(x, _rows(x, indices), v)


def inplace_sub(x, v, indices):
    return F.tensor_scatter_sub(x, _rows(x, indices), v)


def inplace_update(x, v, indices):
    """x with its rows `indices` replaced by v."""
    return F.tensor_scatter_update(x, _rows(x, indices), v)


# ***** diagonals and bands *****

def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Square matrices with the vectors x on their k-th diagonal (padding elsewhere)."""
    if num_rows != -1 or num_cols != -1:
        raise NotImplementedError("ops.matrix_diag: num_rows/num_cols other than -1")
    out = F.diag_embed(x, int(k))
    if padding_value != 0:
        size = out.shape[-1]
        out = F.where(Tensor(np.eye(size, k=int(k), dtype=bool)), out,
                      F.full((), padding_value, out.dtype))
    return out


def matrix_diag_part(x, k=0, padding_value=0, align="RIGHT_LEFT"):
    """The k-th diagonal of the matrices in x."""
    return F.diagonal(x, int(k), -2, -1)


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """x with its k-th diagonal replaced by `diagonal`."""
    return diagonal_scatter(x, diagonal, int(k), -2, -1)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of input with src on the diagonal (offset) of the planes dim1/dim2."""
    x = as_tensor(input)
    a, b = axis_arg("diagonal_scatter", x, dim1), axis_arg("diagonal_scatter", x, dim2)
    moved = F.movedim(x, (a, b), (-2, -1))
    rows, cols = moved.shape[-2:]
    mask = np.eye(rows, cols, k=int(offset), dtype=bool)
    length = int(mask.sum())
    rank = moved.ndim
    # place src's last axis on the diagonal: a matrix with src[j] at the j-th diagonal entry
    index = np.where(mask, np.cumsum(mask.ravel()).reshape(mask.shape) - 1, 0)
    spread = F.gather(F.cast(as_tensor(src), x.dtype), Tensor(index.astype(np.int64)),
                      rank - 2) if length else moved
    out = F.where(Tensor(mask), spread, moved)
    return F.movedim(out, (rank - 2, rank - 1), (a, b))


# ***** segments, masks, distances, norms *****

def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """Sums of the slices of input_x sharing a segment id: out[s] = sum of input_x[i]
    with segment_ids[i] == s."""
    x, ids = as_tensor(input_x), as_tensor(segment_ids)
    out_shape = (int(num_segments),) + x.shape[ids.ndim:]
    return F.scatter_nd(F.expand_dims(ids, -1), x, out_shape)


def sequence_mask(lengths, maxlen=None):
    """mask[..., j] = j < lengths[...]."""
    lengths = as_tensor(lengths)
    if maxlen is None:
        maxlen = int(F.amax(lengths))
    return F.less(F.arange(int(maxlen), dtype=lengths.dtype), F.expand_dims(lengths, -1))


def dist(input, other, p=2):
    """The p-norm of input - other."""
    return F.vector_norm(F.sub(input, other), p)


def pdist(input, p=2.0):
    """The p-norm distances between every pair of rows (i < j), as a vector."""
    x = as_tensor(input)
    rows, cols = np.triu_indices(x.shape[-2], 1)
    left = F.gather(x, Tensor(rows.astype(np.int64)), x.ndim - 2)
    right = F.gather(x, Tensor(cols.astype(np.int64)), x.ndim - 2)
    return F.vector_norm(F.sub(left, right), p, -1)


def renorm(input, p, axis, maxnorm):
    """Each slice along `axis` scaled down to p-norm maxnorm where it is longer."""
    x = as_tensor(input)
    axis = axis_arg("renorm", x, axis)
    others = tuple(a for a in range(x.ndim) if a != axis)
    norms = F.vector_norm(x, p, others, True)
    scale = F.where(F.greater(norms, maxnorm), F.div(float(maxnorm), F.add(norms, 1e-7)), 1.0)
    return F.mul(x, F.cast(scale, x.dtype))


def bias_add(input_x, bias, data_format="NCHW"):
    """input_x plus bias along its channel axis (1 for NC..., the last for N...C)."""
    x, b = as_tensor(input_x), as_tensor(bias)
    if data_format == "NCHW" or data_format == "NCDHW":
        b = F.reshape(b, (-1,) + (1,) * (x.ndim - 2))
    return F.add(x, b)


def dense(input, weight, bias=None):
    """input @ weight^T + bias."""
    out = F.matmul(input, F.swap_last_axes(as_tensor(weight)))
    return out if bias is None else F.add(out, bias)


def is_nonzero(input):
    """Whether the one element of input is non-zero (a Python bool)."""
    x = as_tensor(input)
    if x.size != 1:
        raise op_error("is_nonzero", (x,), "input must have exactly one element", ValueError)
    return bool(F.not_equal(F.reshape(x, ()), 0))


def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension p."""
    x = as_tensor(input)
    terms = [F.lgamma(F.sub(x, j / 2)) for j in range(int(p))]
    return F.add(F.addn(terms), p * (p - 1) / 4 * math.log(math.pi))


def logspace(start, end, steps, base=10, *, dtype=None):
    """steps points base**t for t evenly spaced from start to end."""
    return F.cast(F.pow(float(base), F.linspace(start, end, steps, np.float64)),
                  dtype or np.float32)


def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of the 1-D input's elements, one per row."""
    x = as_tensor(input)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = np.array(list(pick(range(x.shape[0]), r)), np.int64).reshape(-1, r)
    return F.gather(x, Tensor(index), 0)


def _window(fn):
    def window(window_length, periodic=True, *, dtype=None, **params):
        n = int(window_length)
        values = fn(n + 1, **params)[:-1] if periodic and n > 1 else fn(n, **params)
        return Tensor(np.asarray(values, to_np(dtype) if dtype is not None else np.float32))
    window.__doc__ = f"numpy's {fn.__name__} window (periodic: one point longer, then cut)."
    return window


bartlett_window = _window(np.bartlett)
blackman_window = _window(np.blackman)
hamming_window = _window(np.hamming)
hann_window = _window(np.hanning)
kaiser_window = _window(lambda n, beta=12.0: np.kaiser(n, beta))


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """input_x[begin:end:strides] on leading axes; a bit of begin_mask/end_mask set means
    that bound is open, of shrink_axis_mask that the axis is indexed (and removed)."""
    if ellipsis_mask or new_axis_mask:
        raise NotImplementedError("ops.strided_slice: ellipsis_mask and new_axis_mask")
    index = []
    for k, (b, e, s) in enumerate(zip(begin, end, strides)):
        if shrink_axis_mask >> k & 1:
            index.append(int(b))
        else:
            index.append(builtins.slice(None if begin_mask >> k & 1 else int(b),
                                        None if end_mask >> k & 1 else int(e), int(s)))
    return F.getitem(as_tensor(input_x), tuple(index))


def slice(input_x, begin, size):
    """The block of input_x starting at `begin` with extent `size` (-1: to the end).
    (Exported by minispore.ops itself: ops.functional uses the builtin slice.)"""
    x = as_tensor(input_x)
    return F.getitem(x, tuple(builtins.slice(b, None if s == -1 else b + s)
                              for b, s in zip(begin, size)))


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of input."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("ops.cov: fweights and aweights are not supported")
    x = as_tensor(input)
    x = F.reshape(x, (1, -1)) if x.ndim == 1 else x
    x = x if x.dtype.is_float else F.cast(x, np.float32)
    centered = F.sub(x, F.mean(x, 1, True))
    product = F.matmul(centered, F.swap_last_axes(centered))
    out = F.div(product, float(max(x.shape[1] - correction, 0)))
    return F.reshape(out, ()) if out.shape == (1, 1) else out


def _spd_inverse(factor, upper):
    lower = F.swap_last_axes(factor) if upper else factor
    return F.matmul(F.swap_last_axes(F.inverse(lower)), F.inverse(lower))


def cholesky_inverse(input_x, upper=False):
    """The inverse of A from its Cholesky factor (A = L L^T, or U^T U with upper)."""
    return _spd_inverse(as_tensor(input_x), upper)


def cholesky_solve(input, input2, upper=False):
    """X with A X = input, A given by its Cholesky factor input2."""
    return F.matmul(_spd_inverse(as_tensor(input2), upper), input)


def matrix_solve(matrix, rhs, adjoint=False):
    """X with matrix X = rhs (matrix^T X = rhs with adjoint)."""
    a = as_tensor(matrix)
    return F.matmul(F.inverse(F.swap_last_axes(a) if adjoint else a), rhs)


def lstsq(input, A):
    """The least-squares solution X of A X = input (through the pseudo-inverse)."""
    return F.matmul(F.pinv(A), input)


def random_categorical(logits, num_sample, seed=0, dtype=None):
    """num_sample category indices per row drawn from softmax(logits)."""
    probs = F.softmax(F.cast(as_tensor(logits), np.float64), -1)
    return F.cast(F.multinomial(probs, num_sample, True, seed or None), dtype or np.int64)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    return F.multinomial(x, numsamples, replacement, seed)


# ***** complex-number helpers on real tensors *****

def conj(input):
    return as_tensor(input)


def real(input):
    return as_tensor(input)


def imag(input):
    return F.zeros_like(as_tensor(input))


def angle(input):
    """The argument of a real number: pi for negatives, 0 otherwise."""
    x = as_tensor(input)
    x = x if x.dtype.is_float else F.cast(x, np.float32)
    return F.where(F.less(x, 0), F.full((), math.pi, x.dtype), F.zeros((), x.dtype))


def type_as(input, other):
    return F.cast(input, as_tensor(other).dtype)


def adjoint(x):
    """The conjugate transpose of the matrices (the transpose, for real tensors)."""
    return F.swap_last_axes(as_tensor(x))


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """Each batch entry's first seq_lengths[b] elements along seq_dim reversed."""
    x = as_tensor(x)
    n = x.shape[seq_dim]
    lengths = F.expand_dims(F.cast(seq_lengths, np.int64), -1)
    steps = F.arange(n, dtype=np.int64)
    order = F.where(F.less(steps, lengths), F.sub(F.sub(lengths, 1), steps), steps)  # (B, n)
    moved = F.movedim(x, (batch_dim, seq_dim), (0, 1))
    order = F.reshape(order, order.shape + (1,) * (moved.ndim - 2))
    out = F.gather_elements(moved, 1, F.broadcast_to(order, moved.shape))
    return F.movedim(out, (0, 1), (batch_dim, seq_dim))


def inplace_index_add(var, indices, updates, axis):
    """var's slices at `indices` along `axis` incremented by updates, in place."""
    return F.index_add(var, indices, updates, axis)


def put_(input, index, source, accumulate=False):
    """input (flattened) with source written (or added) at `index`, in place."""
    flat = F.reshape(input, (-1,))
    idx = F.expand_dims(F.reshape(as_tensor(index), (-1,)), -1)
    source = F.reshape(as_tensor(source), (-1,))
    out = F.tensor_scatter_add(flat, idx, source) if accumulate else \
        F.tensor_scatter_update(flat, idx, source)
    return assign(input, F.reshape(out, input.shape))


def iou(anchor_boxes, gt_boxes, mode="iou"):
    """Intersection over union (mode 'iof': over the ground-truth box's area) of every
    (gt, anchor) pair of (x1, y1, x2, y2) boxes: shape (M gt, N anchors)."""
    a, g = F.expand_dims(as_tensor(anchor_boxes), 0), F.expand_dims(as_tensor(gt_boxes), 1)
    low = F.maximum(a[..., :2], g[..., :2])
    high = F.minimum(a[..., 2:4], g[..., 2:4])
    size = F.maximum(F.sub(high, low), 0.0)
    inter = F.mul(size[..., 0], size[..., 1])

    def area(b):
        return F.mul(F.sub(b[..., 2], b[..., 0]), F.sub(b[..., 3], b[..., 1]))
    denominator = area(g) if mode == "iof" else F.sub(F.add(area(a), area(g)), inter)
    return F.div(inter, denominator)


def intopk(x1, x2, k):
    """Whether each row's target x2[i] is among the k largest of x1[i]."""
    x1 = as_tensor(x1)
    target = F.gather_elements(x1, 1, F.reshape(F.cast(x2, np.int64), (-1, 1)))
    greater = F.sum(F.cast(F.greater(x1, target), np.int32), 1)
    return F.less(greater, int(k))


def bernoulli_ext(input, *, generator=None):
    """1 with the probability given by each element of input, else 0."""
    return F.bernoulli(input, input)


def padding(input_x, pad_dim_size=8):
    """input_x (last axis of size 1) widened to pad_dim_size along it, zeros after."""
    x = as_tensor(input_x)
    return F.pad(x, ((0, 0),) * (x.ndim - 1) + ((0, int(pad_dim_size) - x.shape[-1]),))


def space_to_batch_nd(input_x, block_size, paddings):
    """Blocks of the (padded) spatial axes of an (N, C, *spatial) tensor moved into the
    batch: batch index (i_0 * b_1 + i_1) * N + n for the block offsets (i_0, i_1)."""
    x = as_tensor(input_x)
    spatial = x.ndim - 2
    blocks = (int(block_size),) * spatial if isinstance(block_size, int) else tuple(block_size)
    x = F.pad(x, ((0, 0), (0, 0)) + tuple(tuple(p) for p in paddings))
    n, c = x.shape[:2]
    split = [n, c]
    for size, b in zip(x.shape[2:], blocks):
        split += [size // b, b]
    x = F.reshape(x, split)
    offsets = [3 + 2 * k for k in range(spatial)]
    grid = [2 + 2 * k for k in range(spatial)]
    x = F.transpose(x, offsets + [0, 1] + grid)
    return F.reshape(x, (n * int(np.prod(blocks)), c) + tuple(split[g] for g in grid))


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of space_to_batch_nd: blocks of the batch back into the spatial axes,
    then `crops` removed."""
    x = as_tensor(input_x)
    spatial = x.ndim - 2
    blocks = (int(block_shape),) * spatial if isinstance(block_shape, int) else \
        tuple(block_shape)
    n = x.shape[0] // int(np.prod(blocks))
    x = F.reshape(x, blocks + (n,) + x.shape[1:])
    # (b_0, b_1, n, c, g_0, g_1) -> (n, c, g_0, b_0, g_1, b_1)
    order = [spatial, spatial + 1]
    for k in range(spatial):
        order += [spatial + 2 + k, k]
    x = F.transpose(x, order)
    x = F.reshape(x, (n, x.shape[1]) + tuple(x.shape[2 + 2 * k] * blocks[k]
                                             for k in range(spatial)))
    index = (builtins.slice(None),) * 2 + tuple(builtins.slice(lo, size - hi) for (lo, hi), size
                                               in zip(crops, x.shape[2:]))
    return F.getitem(x, index)
