"""minispore.numpy: set operations, counting and index conversion, computed on the host
(their output sizes depend on the values: a graph break in Graph mode)."""
import numpy as np

from ..core.tensor import Tensor
from ..ops import functional as F
from ..ops.arguments import as_tensor

__all__ = ["unique", "in1d", "isin", "intersect1d", "setdiff1d", "bincount", "histogram",
           "histogram_bin_edges", "unravel_index", "ravel_multi_index"]


def _host(x, op):
    return as_tensor(x)._host(f"mnp.{op}: the output shape depends on tensor values")


def unique(x, return_inverse=False):
    """The sorted unique values (and, with return_inverse, each element's index in them)."""
    values, inverse = np.unique(_host(x, "unique"), return_inverse=True)
    return (Tensor(values), Tensor(inverse.reshape(-1).astype(np.int32))) if return_inverse \
        else Tensor(values)


def isin(element, test_elements, invert=False, assume_unique=False):
    """Elementwise: is element among test_elements."""
    element = as_tensor(element)
    tests = F.reshape(as_tensor(test_elements), (-1,))
    found = F.any(F.equal(F.expand_dims(element, -1), tests), -1)
    return F.logical_not(found) if invert else found


def in1d(ar1, ar2, invert=False):
    return isin(F.reshape(as_tensor(ar1), (-1,)), ar2, invert)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    return Tensor(np.intersect1d(_host(ar1, "intersect1d"), _host(ar2, "intersect1d")))


def setdiff1d(ar1, ar2, assume_unique=False):
    return Tensor(np.setdiff1d(_host(ar1, "setdiff1d"), _host(ar2, "setdiff1d")))


def bincount(x, weights=None, minlength=0, length=None):
    return F.bincount(x, weights, minlength)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    return Tensor(np.histogram_bin_edges(_host(a, "histogram_bin_edges"), bins, range)
                  .astype(np.float32))


def histogram(a, bins=10, range=None, weights=None, density=False):
    """(counts, bin edges) of a over equal bins (or the given edges)."""
    host = _host(a, "histogram")
    w = None if weights is None else _host(weights, "histogram")
    counts, edges = np.histogram(host, bins, range, density=density, weights=w)
    return Tensor(counts.astype(np.float32)), Tensor(edges.astype(np.float32))


def unravel_index(indices, shape, order="C"):
    flat = as_tensor(indices)
    out, rest = [], flat
    for size in reversed(shape):
        out.append(F.remainder(rest, size))
        rest = F.floor_divide(rest, size)
    return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    flat = None
    for index, size in zip(multi_index, dims):
        index = F.clip(as_tensor(index), 0, size - 1) if mode == "clip" else as_tensor(index)
        flat = index if flat is None else F.add(F.mul(flat, size), index)
    return flat
