"""More MindSpore Primitive classes over `ops` functions: sorted-segment reductions, TensorFlow-
style resizes (ResizeBicubic, ResizeNearestNeighborV2), sparse-to-dense products, grids,
layout and format helpers, small linear algebra (rows of SIMPLE and CONFIGURED, as in
classes_ext).

    >>> ops.SegmentSum()(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([0, 0, 2])).tolist()
    [3.0, 0.0, 3.0]
"""
from typing import Any, Callable

import numpy as np

from ..core.dtype import to_np
from ..core.tensor import Tensor, host_value
from . import functional as F
from .classes import simple_class
from .classes_ext import _configured_class
from .resize import apply_along


def _static(value: Any, what: str) -> Any:
    """The host value of a size-like input (a Graph-mode trace reads a traced one, breaking
    the graph there, as MindSpore's dynamic-shape ops do)."""
    return np.asarray(host_value(value, what)).tolist() if isinstance(value, Tensor) else value


# ----- segments of a sorted id vector: as many outputs as the last id + 1 -----

def _segment(name: str, reduce: Callable[..., Any], empty: float) -> Callable[..., Any]:
    def call(x: Tensor, segment_ids: Tensor) -> Tensor:
        ids = np.asarray(_static(segment_ids, f"ops.{name}: the number of segments"))
        if ids.ndim != 1 or ids.shape[0] != x.shape[0]:
            raise ValueError(f"ops.{name}: segment_ids must be 1-D with x.shape[0] = "
                             f"{x.shape[0]} ids, got shape {ids.shape}")
        if ids.size and (np.diff(ids) < 0).any():
            raise ValueError(f"ops.{name}: segment_ids must be sorted")
        n = int(ids[-1]) + 1 if ids.size else 0
        counts = F.unsorted_segment_sum(F.ones((x.shape[0],), np.int32), segment_ids, n)
        filled = F.reshape(F.greater(counts, 0), (n,) + (1,) * (x.ndim - 1))
        out = reduce(x, segment_ids, n)
        return F.where(filled, out, F.full((), empty, x.dtype))
    return call


def _segment_mean(x: Tensor, ids: Tensor, n: int) -> Tensor:
    counts = F.unsorted_segment_sum(F.ones((x.shape[0],), x.dtype), ids, n)
    counts = F.reshape(F.maximum(counts, 1), (n,) + (1,) * (x.ndim - 1))
    return F.div(F.unsorted_segment_sum(x, ids, n), counts)


# ----- TensorFlow's resize conventions (one constant matrix per axis) -----

def _scale(in_size: int, out_size: int, align_corners: bool) -> float:
    return (in_size - 1) / (out_size - 1) if align_corners and out_size > 1 else in_size / out_size


def _nearest_matrix(in_size, out_size, align_corners, half_pixel):
    scale = _scale(in_size, out_size, align_corners)
    src = (np.arange(out_size) + (0.5 if half_pixel else 0.0)) * scale
    idx = np.minimum(np.rint(src) if align_corners else np.floor(src), in_size - 1)
    m = np.zeros((out_size, in_size))
    m[np.arange(out_size), np.maximum(idx, 0).astype(int)] = 1.0
    return m


def _cubic_weight(t, a):
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


def _bicubic_matrix(in_size, out_size, align_corners, half_pixel):
    """TensorFlow's (and MindSpore's) bicubic taps: Keys' a = -0.5 with half-pixel centres
    (taps outside the image dropped, the rest renormalised), else a = -0.75 with clamped taps;
    the fraction is rounded to 1/1024 as their coefficient table does."""
    scale = _scale(in_size, out_size, align_corners)
    dst = np.arange(out_size, dtype=np.float64)
    src = (dst + 0.5) * scale - 0.5 if half_pixel else dst * scale
    a = -0.5 if half_pixel else -0.75
    base = np.floor(src)
    frac = np.rint((src - base) * 1024) / 1024
    m = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    taps = [(base + k, _cubic_weight(frac - k, a)) for k in (-1, 0, 1, 2)]
    for tap, weight in taps:
        inside = (tap >= 0) & (tap < in_size)
        weight = np.where(inside, weight, 0.0) if half_pixel else weight
        np.add.at(m, (rows, np.clip(tap, 0, in_size - 1).astype(int)), weight)
    return m / m.sum(1, keepdims=True) if half_pixel else m


def _tf_resize(name, matrix_fn):
    def call(self, x, size):
        if self.align_corners and self.half_pixel_centers:
            raise ValueError(f"ops.{name}: align_corners and half_pixel_centers cannot both "
                             "be True")
        out_hw = [int(s) for s in np.ravel(_static(size, f"ops.{name}: size"))]
        for axis, out in zip((2, 3), out_hw):
            x = apply_along(x, axis, matrix_fn(x.shape[axis], out, self.align_corners,
                                               self.half_pixel_centers))
        return x
    return call


# ----- sparse (COO indices, values, shape) with dense -----

def _sparse_dense_matmul(self, indices, values, shape, dense):
    sparse = F.scatter_nd(indices, values, tuple(_static(shape, "ops.SparseTensorDenseMatmul")))
    return F.matmul(sparse, dense, transpose_a=self.adjoint_st, transpose_b=self.adjoint_dt)


# ----- small linear algebra and bit packing -----

def _matrix_solve_ls(self, matrix, rhs, l2):
    """The l2-regularised least-squares solution: (A^T A + l2 I)^-1 A^T b when A is tall,
    A^T (A A^T + l2 I)^-1 b when it is wide."""
    m, n = matrix.shape[-2:]
    at = F.swapaxes(matrix, -1, -2)
    if m >= n:
        gram = F.add(F.matmul(at, matrix), F.mul(F.eye(n, n, matrix.dtype), l2))
        return F.matrix_solve(gram, F.matmul(at, rhs))
    gram = F.add(F.matmul(matrix, at), F.mul(F.eye(m, m, matrix.dtype), l2))
    return F.matmul(at, F.matrix_solve(gram, rhs))


def _tridiagonal_matmul(superdiag, maindiag, subdiag, rhs):
    """out[i] = super[i] rhs[i + 1] + main[i] rhs[i] + sub[i] rhs[i - 1] (diagonals shaped
    (..., 1, M), rhs (..., M, N); super's last and sub's first entries unused)."""
    def column(d):
        return F.swapaxes(d, -1, -2)
    m = rhs.shape[-2]
    zero = F.zeros_like(F.slice_axis(rhs, -2, 0, 1))
    below = F.concat([F.slice_axis(rhs, -2, 1, m), zero], -2)  # rhs[i + 1]
    above = F.concat([zero, F.slice_axis(rhs, -2, 0, m - 1)], -2)  # rhs[i - 1]
    return F.add(F.add(F.mul(column(superdiag), below), F.mul(column(maindiag), rhs)),
                 F.mul(column(subdiag), above))


def _compare_and_bitpack(x, threshold):
    """x > threshold packed 8 to a uint8 along the last axis, the first element highest."""
    bits = F.cast(F.greater(x, threshold), np.int32)
    bits = F.reshape(bits, tuple(x.shape[:-1]) + (x.shape[-1] // 8, 8))
    weights = Tensor(np.array([128, 64, 32, 16, 8, 4, 2, 1], np.int32))
    return F.cast(F.sum(F.mul(bits, weights), -1), np.uint8)


def _bincount(array, size, weights=None):
    """Counts (or weights summed) of each value in [0, size); other values are dropped."""
    n = int(np.ravel(_static(size, "ops.Bincount: size"))[0])
    flat = F.reshape(array, (-1,))
    hot = F.one_hot(flat, n, 1, 0)
    if weights is None or weights.size == 0:
        dtype = weights.dtype if weights is not None else np.int32
        return F.cast(F.sum(hot, 0), dtype)
    return F.sum(F.mul(F.cast(hot, weights.dtype), F.reshape(weights, (-1, 1))), 0)


def _fill_diagonal(self, x):
    mask = np.zeros(x.shape, bool)
    np.fill_diagonal(mask, True, wrap=self.wrap)
    return F.where(Tensor(mask), F.full((), self.fill_value, x.dtype), x)


def _format_dim_map(self, x):
    """Each axis index of src_format (in [-4, 4)) mapped to that axis' index in dst_format."""
    table = Tensor(np.array([self.dst_format.index(c) for c in self.src_format], np.int64))
    return F.cast(F.gather(table, F.remainder(x, 4), 0), x.dtype)


def _format_vec_permute(self, x):
    order = [self.src_format.index(c) for c in self.dst_format]
    return F.gather(x, Tensor(np.array(order, np.int64)), 0)


# ----- diagonal bands (k: one diagonal, or (lowest, highest) with one row per diagonal, the
# highest first, each padded to the longest by `align`) -----

_ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _band(op, k):
    ks = [int(v) for v in np.ravel(_static(k, f"ops.{op}: k"))]
    low, high = (ks[0], ks[0]) if len(ks) == 1 else (ks[0], ks[1])
    if low > high:
        raise ValueError(f"ops.{op}: k[0] must not exceed k[1], got {ks}")
    return low, high


def _diag_len(rows, cols, d):
    return min(rows + min(0, d), cols - max(0, d))


def _offset(align, d, length, widest):
    """Where a diagonal of `length` starts in its row of `widest` (right-aligned ones pad left:
    superdiagonals (d >= 0) with RIGHT_*, subdiagonals with *_RIGHT)."""
    if align not in _ALIGNS:
        raise ValueError(f"ops: align must be one of {_ALIGNS}, got {align!r}")
    right = align.startswith("RIGHT") if d >= 0 else align.endswith("RIGHT")
    return widest - length if right else 0


def _diag_part_v3(self, x, k, padding_value):
    low, high = _band("MatrixDiagPartV3", k)
    rows, cols = x.shape[-2:]
    widest = max(_diag_len(rows, cols, d) for d in range(low, high + 1))
    fill = float(np.ravel(_static(padding_value, "ops.MatrixDiagPartV3: padding_value"))[0])
    out = []
    for d in range(high, low - 1, -1):
        diag = F.diagonal(x, d, -2, -1)
        start = _offset(self.align, d, diag.shape[-1], widest)
        pads = ((0, 0),) * (diag.ndim - 1) + ((start, widest - diag.shape[-1] - start),)
        out.append(F.pad(diag, pads, value=fill))
    return out[0] if low == high else F.stack(out, -2)


def _set_diag_v3(x, diagonal, low, high, align):
    """x with the band's diagonals replaced by those of `diagonal` (rows as in _diag_part_v3)."""
    rows, cols = x.shape[-2:]
    widest = max(_diag_len(rows, cols, d) for d in range(low, high + 1))
    for row, d in enumerate(range(high, low - 1, -1)):
        values = diagonal if low == high else F.squeeze(F.slice_axis(diagonal, -2, row, row + 1),
                                                        -2)
        length = _diag_len(rows, cols, d)
        start = _offset(align, d, length, widest)
        x = F.matrix_set_diag(x, F.slice_axis(values, -1, start, start + length), d)
    return x


def _matrix_set_diag_v3(self, x, diagonal, k):
    low, high = _band("MatrixSetDiagV3", k)
    return _set_diag_v3(x, diagonal, low, high, self.align)


def _matrix_diag_v3(self, x, k, num_rows, num_cols, padding_value):
    """A (..., rows, cols) matrix of padding_value with the band's diagonals taken from x;
    rows or cols of -1: the smallest that holds the band (both: the smallest square)."""
    low, high = _band("MatrixDiagV3", k)
    widest = x.shape[-1]
    rows, cols = (int(np.ravel(_static(v, "ops.MatrixDiagV3"))[0]) for v in (num_rows, num_cols))
    least_rows, least_cols = widest - min(high, 0), widest + max(low, 0)
    if rows == -1 and cols == -1:  # both unset: the smallest square
        rows = cols = max(least_rows, least_cols)
    rows, cols = (rows if rows != -1 else least_rows), (cols if cols != -1 else least_cols)
    lead = tuple(x.shape[:-1] if low == high else x.shape[:-2])
    fill = float(np.ravel(_static(padding_value, "ops.MatrixDiagV3: padding_value"))[0])
    return _set_diag_v3(F.full(lead + (rows, cols), fill, x.dtype), x, low, high, self.align)


SIMPLE: dict[str, Callable[..., Any]] = {
    "SegmentSum": _segment("SegmentSum", F.unsorted_segment_sum, 0.0),
    "SegmentMean": _segment("SegmentMean", _segment_mean, 0.0),
    "SegmentMax": _segment("SegmentMax", F.unsorted_segment_max, 0.0),
    "SegmentMin": _segment("SegmentMin", F.unsorted_segment_min, 0.0),
    "SegmentProd": _segment("SegmentProd", F.unsorted_segment_prod, 1.0),
    "SparseToDense": lambda indices, values, shape: F.scatter_nd(
        indices, values, tuple(_static(shape, "ops.SparseToDense: sparse_shape"))),
    "SparseTensorDenseAdd": lambda indices, values, shape, x2: F.add(F.scatter_nd(
        indices, values, tuple(_static(shape, "ops.SparseTensorDenseAdd: x1_shape"))), x2),
    "InvertPermutation": lambda x: (tuple(int(i) for i in np.argsort(x))
                                    if isinstance(x, (tuple, list))
                                    else F.cast(F.argsort(x), x.dtype)),
    "ConjugateTranspose": lambda x, perm: F.conj(F.transpose(x, perm)),
    "ComplexAbs": F.abs,
    "TensorShape": lambda x: Tensor(np.array(x.shape, np.int64)),
    "DynamicShape": lambda x, dtype=9: Tensor(np.array(x.shape, np.int64)),
    "ScalarToTensor": lambda x, dtype=np.float32: F.scalar_to_tensor(x, dtype),
    "TupleToArray": lambda x: Tensor(np.array(x, np.float32 if any(isinstance(v, float)
                                                                    for v in x) else np.int64)),
    "ScalarCast": F.scalar_cast,
    "IdentityN": lambda xs: tuple(F.identity(x) for x in xs),
    "FillV2": lambda shape, value: F.broadcast_to(
        value, tuple(_static(shape, "ops.FillV2: shape"))),
    "InplaceUpdateV2": lambda x, indices, v: F.inplace_update(x, v, indices),
    "ScatterNonAliasingAdd": lambda x, indices, updates: F.scatter_nd_add(x, indices, updates),
    "TridiagonalMatMul": _tridiagonal_matmul,
    "CompareAndBitpack": _compare_and_bitpack,
    "Bincount": _bincount,
}

CONFIGURED: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {
    "ResizeBicubic": ({"align_corners": False, "half_pixel_centers": False},
                      _tf_resize("ResizeBicubic", _bicubic_matrix)),
    "ResizeNearestNeighborV2": ({"align_corners": False, "half_pixel_centers": False},
                                _tf_resize("ResizeNearestNeighborV2", _nearest_matrix)),
    "SparseTensorDenseMatmul": ({"adjoint_st": False, "adjoint_dt": False},
                                _sparse_dense_matmul),
    "AffineGrid": ({"align_corners": False}, lambda self, theta, output_size: F.affine_grid(
        theta, tuple(_static(output_size, "ops.AffineGrid: output_size")), self.align_corners)),
    "GridSampler2D": ({"interpolation_mode": "bilinear", "padding_mode": "zeros",
                       "align_corners": False}, lambda self, x, grid: F.grid_sample(
                           x, grid, self.interpolation_mode, self.padding_mode,
                           self.align_corners)),
    "GridSampler3D": ({"interpolation_mode": "bilinear", "padding_mode": "zeros",
                       "align_corners": False}, lambda self, x, grid: F.grid_sample(
                           x, grid, self.interpolation_mode, self.padding_mode,
                           self.align_corners)),
    "IOU": ({"mode": "iou"}, lambda self, anchor_boxes, gt_boxes: F.iou(
        anchor_boxes, gt_boxes, self.mode)),
    "LowerBound": ({"out_type": np.int32}, lambda self, sorted_x, values: F.searchsorted(
        sorted_x, values, out_int32=np.dtype(to_np(self.out_type)) == np.int32)),
    "UpperBound": ({"out_type": np.int32}, lambda self, sorted_x, values: F.searchsorted(
        sorted_x, values, out_int32=np.dtype(to_np(self.out_type)) == np.int32, right=True)),
    "Histogram": ({"bins": 100, "min": 0.0, "max": 0.0},
                  lambda self, x: F.histc(x, self.bins, self.min, self.max)),
    "LogSpace": ({"steps": 10, "base": 10, "dtype": np.float32}, lambda self, start, end:
                 F.logspace(float(_static(start, "ops.LogSpace")),
                            float(_static(end, "ops.LogSpace")), self.steps, self.base,
                            dtype=self.dtype)),
    "Mvlgamma": ({"p": 1}, lambda self, x: F.mvlgamma(x, self.p)),
    "LuUnpack": ({"unpack_data": True, "unpack_pivots": True},
                 lambda self, lu_data, lu_pivots: F.lu_unpack(
                     lu_data, lu_pivots, self.unpack_data, self.unpack_pivots)),
    "NuclearNorm": ({"dim": None, "keepdim": False}, lambda self, x: F.norm(
        x, "nuc", (-2, -1) if self.dim is None else tuple(self.dim), self.keepdim)),
    "MatrixSolveLs": ({"fast": True}, _matrix_solve_ls),
    "FillDiagonal": ({"fill_value": 0.0, "wrap": False}, _fill_diagonal),
    "ScatterAddWithAxis": ({"axis": 0}, lambda self, x, indices, updates:
                           F.tensor_scatter_elements(x, indices, updates, self.axis, "add")),
    "MatrixDiagPartV3": ({"align": "RIGHT_LEFT"}, _diag_part_v3),
    "MatrixDiagV3": ({"align": "RIGHT_LEFT"}, _matrix_diag_v3),
    "MatrixSetDiagV3": ({"align": "RIGHT_LEFT", "max_length": 1000000}, _matrix_set_diag_v3),
    "DataFormatDimMap": ({"src_format": "NHWC", "dst_format": "NCHW"}, _format_dim_map),
    "DataFormatVecPermute": ({"src_format": "NHWC", "dst_format": "NCHW"},
                             _format_vec_permute),
}


__all__ = sorted(set(SIMPLE) | set(CONFIGURED))
for _name, _fn in SIMPLE.items():
    globals()[_name] = simple_class(_name, _fn)
for _name, (_defaults, _call) in CONFIGURED.items():
    globals()[_name] = _configured_class(_name, _defaults, _call)
