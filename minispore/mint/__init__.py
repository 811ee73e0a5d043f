"""minispore.mint: MindSpore 2.3+'s PyTorch-style namespace (`dim`, `keepdim`, `input`...),
thin aliases of `minispore.ops` so that code written for `mindspore.mint` runs.

    >>> from minispore import mint
    >>> x = ms.Tensor([[1.0, 5.0], [3.0, 2.0]])
    >>> mint.max(x, dim=1)[1], mint.sum(x, dim=0, keepdim=True).shape
    (Tensor(shape=[2], dtype=Int64, value= [1, 0]), (1, 2))

Functions whose MindSpore argument names already match PyTorch's are the ops functions
themselves; the rest (dim for axis, PyTorch's gather/transpose/select meanings, alpha= on
add/sub...) are wrapped below.
"""
import numpy as np

from .. import ops as _ops
from ..ops import functional as F
from ..ops.arguments import as_tensor
from ..ops.scatter import add_at_indices
from . import nn, optim  # noqa: F401

_SAME = """
    abs acos acosh addbmm addcdiv addmv allclose amax amin arccos arccosh arcsin arcsinh
    arctan arctan2 arctanh asin asinh atan atan2 atanh bincount bitwise_and bitwise_not
    bitwise_or bitwise_xor bmm broadcast_to cdist ceil cos cosh cross cummax cummin cumprod
    diag dot dstack einsum eq erf erfc erfinv exp exp2 expm1 flip float_power floor
    floor_divide fmod frac full_like gcd greater greater_equal gt hstack index_select inverse
    isclose isfinite isinf isnan isneginf le lerp less less_equal log log10 log1p log2
    logaddexp logaddexp2 logical_and logical_not logical_or logical_xor lt masked_select
    matmul maximum minimum mm mul multinomial mv nan_to_num narrow ne neg negative nonzero
    not_equal outer permute pow reciprocal remainder repeat_interleave reshape roll round
    rsqrt sigmoid sign sin sinc sinh sqrt square swapaxes t take tan tanh tile trace tril
    triu unbind unique_consecutive unsqueeze vdot where xlogy zeros_like ones_like
    searchsorted histc logsumexp
""".split()

globals().update({name: getattr(_ops, name) for name in _SAME})
divide = F.div


def _size(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def add(input, other, *, alpha=1):
    """input + alpha * other."""
    return F.add(input, other if alpha == 1 else F.mul(other, alpha))


def sub(input, other, *, alpha=1):
    """input - alpha * other."""
    return F.sub(input, other if alpha == 1 else F.mul(other, alpha))


def div(input, other, *, rounding_mode=None):
    """input / other; rounding_mode 'floor' or 'trunc' rounds the quotient."""
    if rounding_mode == "floor":
        return F.floor_divide(input, other)
    if rounding_mode == "trunc":
        return F.truncate_div(input, other)
    return F.div(input, other)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return F.addmm(input, mat1, mat2, beta=beta, alpha=alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return F.baddbmm(input, batch1, batch2, beta, alpha)


def addr_(input, vec1, vec2, *, beta=1, alpha=1):
    return F.addr(input, vec1, vec2, beta=beta, alpha=alpha)


def softmax(input, dim, *, dtype=None):
    x = as_tensor(input) if dtype is None else F.cast(input, dtype)
    return F.softmax(x, dim)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return nn.functional.conv2d(input, weight, bias, stride, padding, dilation, groups)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(X, A) with op(A) X = b for triangular A."""
    return as_tensor(b).triangular_solve(A, upper, transpose, unitriangular)


real, imag = F.real, F.imag


def clamp(input, min=None, max=None):
    return F.clip(input, min, max)


# ***** reductions: dim / keepdim *****

def sum(input, dim=None, keepdim=False, *, dtype=None):
    return F.sum(input, dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    return F.mean(input, dim, keepdim, dtype=dtype)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    return F.prod(input, dim, keepdim, dtype=dtype)


def all(input, dim=None, keepdim=False):
    return F.all(input, dim, keepdim)


def any(input, dim=None, keepdim=False):
    return F.any(input, dim, keepdim)


def max(input, dim=None, keepdim=False):
    """The maximum (dim None), or (values, indices) along dim."""
    return F.amax(input) if dim is None else F.max(input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    return F.amin(input) if dim is None else F.min(input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    return F.argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    return F.argmin(input, dim, keepdim)


def median(input, dim=None, keepdim=False):
    """The lower median of all elements (dim None), or (values, indices) along dim."""
    if dim is None:
        return F.median(F.reshape(input, (-1,)), 0)[0]
    return F.median(input, dim, keepdim)


def std(input, dim=None, *, correction=1, keepdim=False):
    return F.std(input, dim, correction, keepdim)


def var(input, dim=None, *, correction=1, keepdim=False):
    return F.var(input, dim, correction, keepdim)


def std_mean(input, dim=None, *, correction=1, keepdim=False):
    return F.std_mean(input, dim, correction, keepdim)


def var_mean(input, dim=None, *, correction=1, keepdim=False):
    return F.var_mean(input, dim, correction, keepdim)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    return F.nansum(input, dim, keepdim, dtype=dtype)


def count_nonzero(input, dim=None):
    return F.count_nonzero(input, () if dim is None else dim, dtype=np.int64)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The Frobenius norm (p 'fro': the 2-norm of the elements over dim), a vector p-norm,
    or 'nuc'."""
    return F.norm(input, None if p == "fro" else p, dim, keepdim, dtype=dtype)


def cumsum(input, dim, dtype=None):
    return F.cumsum(input, dim, dtype)


def kthvalue(input, k, dim=-1, keepdim=False):
    return as_tensor(input).kthvalue(k, dim, keepdim)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    return F.diff(input, n, dim, prepend, append)


# ***** shapes and indexing with PyTorch's meanings *****

def cat(tensors, dim=0):
    return F.concat(tensors, dim)


concat = cat


def stack(tensors, dim=0):
    return F.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    return F.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    return F.chunk(input, chunks, dim)


def flatten(input, start_dim=0, end_dim=-1):
    return F.flatten(input, start_dim=start_dim, end_dim=end_dim)


def squeeze(input, dim=None):
    return F.squeeze(input, dim)


def transpose(input, dim0, dim1):
    """input with axes dim0 and dim1 swapped (PyTorch's transpose)."""
    return F.swapaxes(input, dim0, dim1)


def gather(input, dim, index):
    """PyTorch's gather: out[i][j] = input[i][index[i][j]] for dim 1."""
    return F.gather_elements(input, dim, index)


def select(input, dim, index):
    """The slice at `index` along `dim` (that axis removed)."""
    x = as_tensor(input)
    return F.getitem(x, (slice(None),) * (dim % x.ndim) + (int(index),))


def scatter(input, dim, index, src):
    return F.scatter(input, dim, index, src)


def scatter_add(input, dim, index, src):
    return F.tensor_scatter_elements(input, index, src, dim, "add")


def index_add(input, dim, index, source, *, alpha=1):
    """A copy of input with alpha * source added at `index` along dim."""
    return add_at_indices(input, dim, index, source, alpha)


def sort(input, *, dim=-1, descending=False, stable=False):
    return F.sort(input, dim, descending)


def argsort(input, dim=-1, descending=False, stable=False):
    return F.cast(F.sort(input, dim, descending)[1], np.int64)


def topk(input, k, dim=-1, largest=True, sorted=True):
    return F.topk(input, k, dim, largest, sorted)


def meshgrid(*tensors, indexing=None):
    return F.meshgrid(*tensors, indexing=indexing or "ij")


def ravel(input):
    return F.reshape(input, (-1,))


def clone(input):
    return F.identity(as_tensor(input))


# ***** creation and random sampling *****

def zeros(size, *, dtype=None):
    return F.zeros(size, dtype)


def ones(size, *, dtype=None):
    return F.ones(size, dtype)


def empty(*size, dtype=None, device=None):
    """An uninitialised tensor: here, zeros."""
    return F.zeros(_size(size), dtype)


def empty_like(input, *, dtype=None, device=None):
    return F.zeros_like(input, dtype)


def full(size, fill_value, *, dtype=None):
    return F.full(size, fill_value, dtype)


def arange(start=0, end=None, step=1, *, dtype=None):
    return F.arange(start, end, step, dtype)


def eye(n, m=None, *, dtype=None):
    return F.eye(n, m, dtype)


def rand(*size, generator=None, dtype=None):
    return F.rand(*_size(size), dtype=dtype)


def rand_like(input, *, dtype=None):
    return F.rand_like(input, dtype=dtype)


def randn(*size, generator=None, dtype=None):
    return F.randn(*_size(size), dtype=dtype)


def randn_like(input, *, dtype=None):
    return F.randn_like(input, dtype=dtype)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None):
    return F.randint(low, high, size, dtype=dtype)


def randint_like(input, low=0, high=None, *, dtype=None):
    return F.randint_like(input, low, high, dtype=dtype)


def randperm(n, *, generator=None, dtype=None):
    return F.randperm(n, dtype=dtype)


def normal(mean, std, size=None, *, generator=None):
    """Normal samples with the given mean and std (tensors broadcast together, or numbers
    with `size`)."""
    shape = () if size is None else tuple(size)
    return F.normal(shape, mean, std)


def bernoulli(input, *, generator=None):
    """1 with the probability in each element of input, else 0."""
    p = as_tensor(input)
    return F.bernoulli(p, p)
