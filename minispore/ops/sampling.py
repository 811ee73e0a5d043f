"""grid_sample and affine_grid. grid_sample: values of an (N, C, H, W) or (N, C, D, H, W) input at the normalised
positions of a sampling grid (spatial transformers, deformable sampling).

Composed from ops: the grid becomes pixel coordinates (with the border / reflection rules
applied to them), the 2^d neighbours of each position are gathered from the flattened input
with gather_elements, and weighted by the (bi/tri)linear factors. The gradient reaches the
input through the gather and the grid through the weights, in both modes, with no primitive
of its own.

    >>> x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    >>> grid = ms.Tensor(np.zeros((1, 1, 1, 2), np.float32))   # the centre of the image
    >>> ops.grid_sample(x, grid, align_corners=True).tolist()
    [[[[7.5]]]]
"""
from typing import Sequence

import numpy as np

from ..core.tensor import Tensor
from . import functional as F
from .arguments import as_tensor, op_error

__all__ = ["grid_sample", "affine_grid"]

_MODES = ("bilinear", "nearest")
_PADDINGS = ("zeros", "border", "reflection")


def _unnormalize(coord, size, align_corners):
    """Grid value in [-1, 1] -> pixel coordinate along an axis of `size` pixels: -1 and 1 are
    the centres of the corner pixels (align_corners) or their outer edges."""
    if align_corners:
        return (coord + 1.0) * ((size - 1) / 2.0)
    return ((coord + 1.0) * size - 1.0) / 2.0


def _reflect(coord, twice_low, twice_high):
    """coord reflected back and forth into [twice_low / 2, twice_high / 2]."""
    if twice_low == twice_high:
        return coord * 0.0
    low, span = twice_low / 2.0, (twice_high - twice_low) / 2.0
    distance = F.abs(coord - low)
    extra = F.fmod(distance, span)
    flips = F.floor(distance / span)
    return F.where(F.equal(F.fmod(flips, 2.0), 0.0), extra + low, span - extra + low)


def _pad_coordinate(coord, size, padding_mode, align_corners):
    if padding_mode == "border":
        return F.clip(coord, 0.0, float(size - 1))
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else \
            _reflect(coord, -1, 2 * size - 1)
        return F.clip(coord, 0.0, float(size - 1))
    return coord


def _gather(flat, indices, sizes, out_shape):
    """flat (N, C, prod(sizes)) at the integer positions `indices` (one (N, *out) tensor per
    axis): (N, C, *out), zero where a position is outside the input."""
    n, c = flat.shape[:2]
    valid = None
    offset = None
    stride = 1
    for index, size in zip(reversed(indices), reversed(sizes)):
        inside = F.logical_and(F.greater_equal(index, 0), F.less_equal(index, size - 1))
        valid = inside if valid is None else F.logical_and(valid, inside)
        term = F.clip(index, 0, size - 1) * stride
        offset = term if offset is None else offset + term
        stride *= size
    positions = F.broadcast_to(F.reshape(offset, (n, 1, -1)), (n, c, offset[0].size))
    values = F.reshape(F.gather_elements(flat, 2, positions), (n, c) + out_shape)
    mask = F.cast(F.expand_dims(valid, 1), flat.dtype)
    return values * mask


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool = False) -> Tensor:
    """Samples `input` (N, C, H, W) at `grid` (N, H_out, W_out, 2) — or (N, C, D, H, W) at
    (N, D_out, H_out, W_out, 3) — whose last axis holds (x, y[, z]) in [-1, 1]; output
    (N, C, H_out, W_out) (or (N, C, D_out, H_out, W_out)).

    mode: 'bilinear' (trilinear on 5-D inputs) or 'nearest'; padding_mode for positions
    outside the input: 'zeros', 'border' (the nearest edge value) or 'reflection';
    align_corners: -1 and 1 are the centres of the corner pixels (else their outer edges).

        >>> x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2))
        >>> grid = ms.Tensor(np.array([[[[-1.0, -1.0], [1.0, 1.0]]]], np.float32))
        >>> ops.grid_sample(x, grid, align_corners=True).tolist()
        [[[[0.0, 3.0]]]]
    """
    x, g = as_tensor(input), as_tensor(grid)
    rank = x.ndim - 2
    if rank not in (2, 3) or g.ndim != x.ndim or g.shape[0] != x.shape[0] \
            or g.shape[-1] != rank:
        raise op_error("grid_sample", (x, g), "input must be (N, C, H, W) with a grid (N, H_out, "
                       "W_out, 2), or (N, C, D, H, W) with a grid (N, D_out, H_out, W_out, 3)")
    if mode not in _MODES:
        raise ValueError(f"ops.grid_sample: mode must be one of {_MODES}, got {mode!r}")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"ops.grid_sample: padding_mode must be one of {_PADDINGS}, "
                         f"got {padding_mode!r}")
    if not x.dtype.is_float:
        raise op_error("grid_sample", (x, g), "input must be a float tensor")
    g = F.cast(g, x.dtype)
    sizes = tuple(int(s) for s in x.shape[2:])
    out_shape = tuple(int(s) for s in g.shape[1:-1])
    # the grid's last axis lists x (the last input axis) first: reverse it to the axis order
    coords = []
    for axis, size in enumerate(sizes):
        coord = _unnormalize(g[..., rank - 1 - axis], size, bool(align_corners))
        coords.append(_pad_coordinate(coord, size, padding_mode, bool(align_corners)))
    flat = F.reshape(x, tuple(x.shape[:2]) + (-1,))
    if mode == "nearest":
        indices = [F.cast(F.round(c), np.int32) for c in coords]
        return _gather(flat, indices, sizes, out_shape)
    lows = [F.floor(c) for c in coords]
    fractions = [c - low for c, low in zip(coords, lows)]
    lows_int = [F.cast(low, np.int32) for low in lows]
    out = None
    for corner in range(2 ** rank):
        weight = None
        indices = []
        for axis in range(rank):
            upper = (corner >> axis) & 1
            indices.append(lows_int[axis] + upper)
            factor = fractions[axis] if upper else 1.0 - fractions[axis]
            weight = factor if weight is None else weight * factor
        term = _gather(flat, indices, sizes, out_shape) * F.expand_dims(weight, 1)
        out = term if out is None else out + term
    return out


def _base_coordinates(size, align_corners):
    """size positions across [-1, 1]: the pixel centres (scaled by (size - 1) / size unless
    align_corners)."""
    if size == 1:
        return np.zeros(1)
    line = np.linspace(-1.0, 1.0, size)
    return line if align_corners else line * (size - 1) / size


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool = False) -> Tensor:
    """The sampling grid of an affine transform for grid_sample: theta (N, 2, 3) with size
    (N, C, H, W) gives (N, H, W, 2); theta (N, 3, 4) with size (N, C, D, H, W) gives
    (N, D, H, W, 3). Each output position (x, y[, z], 1) in normalised coordinates is
    multiplied by theta.

        >>> theta = ms.Tensor(np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], np.float32))
        >>> ops.affine_grid(theta, (1, 1, 2, 2), align_corners=True).tolist()
        [[[[-1.0, -1.0], [1.0, -1.0]], [[-1.0, 1.0], [1.0, 1.0]]]]
    """
    theta = as_tensor(theta)
    size = tuple(int(s) for s in size)
    rank = len(size) - 2
    if rank not in (2, 3) or theta.ndim != 3 or tuple(theta.shape[1:]) != (rank, rank + 1) \
            or theta.shape[0] != size[0]:
        raise op_error("affine_grid", (theta,), f"theta must be (N, 2, 3) with size (N, C, H, W) "
                       f"or (N, 3, 4) with size (N, C, D, H, W), got size {size}")
    if not theta.dtype.is_float:
        raise op_error("affine_grid", (theta,), "theta must be a float tensor")
    spatial = size[2:]
    # one row (x, y[, z], 1) per output position, x along the last axis
    axes = [_base_coordinates(n, bool(align_corners)) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")          # per axis (D,) H, W
    columns = [mesh[i] for i in reversed(range(rank))] + [np.ones(spatial)]
    base = np.stack(columns, -1).reshape(-1, rank + 1).astype(theta.dtype.np)
    grid = F.matmul(Tensor(base), F.swap_last_axes(theta))   # (N, positions, rank)
    return F.reshape(grid, (size[0],) + spatial + (rank,))
