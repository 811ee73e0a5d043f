"""Resizing and padding Cells: Upsample, ResizeBilinear, PixelShuffle, PixelUnshuffle, Unfold,
Fold, Pad, ZeroPad1d/2d/3d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d.

    >>> import minispore as ms
    >>> ms.nn.Upsample(scale_factor=2, mode='bilinear')(ms.ops.ones((1, 1, 2, 3))).shape
    (1, 1, 4, 6)
    >>> ms.nn.ReflectionPad2d((1, 1, 2, 0))(ms.ops.ones((1, 1, 3, 3))).shape
    (1, 1, 5, 5)
"""
import numbers
from typing import Optional, Sequence, Union

from ...core.hints import ShapeLike, Tensor
from ...ops import functional as F
from ...ops.resize import apply_along, resize_matrix
from .. import validation as V
from ..cell import Cell


class Upsample(Cell):
    """Resize by `size` or `scale_factor` with ops.interpolate's modes and semantics.

        >>> ms.nn.Upsample(size=(3, 5), mode='nearest')(ms.ops.ones((1, 1, 2, 2))).shape
        (1, 1, 3, 5)
    """

    def __init__(self, size: Optional[ShapeLike] = None,
                 scale_factor: Optional[Union[float, Sequence[float]]] = None,
                 mode: str = "nearest", align_corners: Optional[bool] = None,
                 recompute_scale_factor: Optional[bool] = None) -> None:
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x: Tensor) -> Tensor:
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)


class ResizeBilinear(Cell):
    """Bilinear resize of (N, C, H, W) inputs to `size` (or by `scale_factor`). With
    half_pixel_centers=False and align_corners=False the source of output pixel i is
    i * in / out (MindSpore's legacy rule); with half_pixel_centers=True it is
    (i + 0.5) * in / out - 0.5.

        >>> ms.nn.ResizeBilinear()(ms.ops.ones((1, 1, 2, 2)), size=(4, 4)).shape
        (1, 1, 4, 4)
    """

    def __init__(self, half_pixel_centers: bool = False) -> None:
        super().__init__()
        self.half_pixel_centers = V.boolean(half_pixel_centers, "half_pixel_centers",
                                            "ResizeBilinear")

    def construct(self, x: Tensor, size: Optional[ShapeLike] = None,
                  scale_factor: Optional[int] = None, align_corners: bool = False) -> Tensor:
        if x.ndim != 4:
            raise V.input_error("ResizeBilinear", x, "input must be 4-D (N, C, H, W)")
        if (size is None) == (scale_factor is None):
            raise ValueError("ResizeBilinear: give exactly one of size and scale_factor")
        if align_corners and self.half_pixel_centers:
            raise ValueError("ResizeBilinear: align_corners and half_pixel_centers exclude "
                             "each other")
        sizes = tuple(x.shape[2:])
        if isinstance(size, (int, numbers.Integral)):  # int: for mypy, which reads no ABCs
            out: tuple[int, ...] = (size, size)
        elif size is not None:
            out = tuple(size)
        else:
            assert scale_factor is not None  # one of the two was given (checked above)
            out = tuple(s * int(scale_factor) for s in sizes)
        for axis, (i, o) in enumerate(zip(sizes, out)):
            x = apply_along(x, axis + 2, resize_matrix("linear", i, int(o), bool(align_corners),
                                                       i / o, self.half_pixel_centers))
        return x


class PixelShuffle(Cell):
    """(N, C * r^2, H, W) -> (N, C, H * r, W * r)."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = V.positive_int(upscale_factor, "upscale_factor", "PixelShuffle")

    def construct(self, x: Tensor) -> Tensor:
        return F.pixel_shuffle(x, self.upscale_factor)


class PixelUnshuffle(Cell):
    """(N, C, H * r, W * r) -> (N, C * r^2, H, W)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = V.positive_int(downscale_factor, "downscale_factor",
                                               "PixelUnshuffle")

    def construct(self, x: Tensor) -> Tensor:
        return F.pixel_unshuffle(x, self.downscale_factor)


def _four(values: Sequence[int], name: str) -> tuple[int, int]:
    values = tuple(values)
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise ValueError(f"Unfold: {name} must be [1, row, col, 1], got {values!r}")
    return values[1], values[2]


class Unfold(Cell):
    """Image patches (MindSpore's nn.Unfold): ksizes, strides, rates as [1, row, col, 1];
    padding 'valid' or 'same'. (N, C, H, W) -> (N, kh * kw * C, out_rows, out_cols), channel
    (i * kw + j) * C + c holding offset (i, j) of channel c.

        >>> ms.nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1])(ms.ops.ones((1, 3, 4, 4))).shape
        (1, 12, 3, 3)
    """

    def __init__(self, ksizes: Sequence[int], strides: Sequence[int], rates: Sequence[int],
                 padding: str = "valid") -> None:
        super().__init__()
        self.ksizes, self.strides = _four(ksizes, "ksizes"), _four(strides, "strides")
        self.rates = _four(rates, "rates")
        self.padding = V.one_of(str(padding).lower(), "padding", "Unfold", ("valid", "same"))

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim != 4:
            raise V.input_error("Unfold", x, "input must be 4-D (N, C, H, W)")
        n, c, h, w = x.shape
        if self.padding == "same":
            pairs = []
            for size, k, s, r in zip((h, w), self.ksizes, self.strides, self.rates):
                need = max(0, (-(-size // s) - 1) * s + r * (k - 1) + 1 - size)
                pairs.append((need // 2, need - need // 2))
            x = F.pad(x, ((0, 0), (0, 0)) + tuple(pairs))
        cols = F.unfold(x, self.ksizes, self.rates, (0, 0), self.strides)  # (N, C * K, L)
        k = self.ksizes[0] * self.ksizes[1]
        rows = [(s - r * (kk - 1) - 1) // st + 1 for s, kk, st, r in
                zip(x.shape[2:], self.ksizes, self.strides, self.rates)]
        cols = F.transpose(F.reshape(cols, (n, c, k, rows[0], rows[1])), (0, 2, 1, 3, 4))
        return F.reshape(cols, (n, k * c, rows[0], rows[1]))


class Fold(Cell):
    """Sum sliding blocks (N, C * kh * kw, L) into (N, C, *output_size): ops.fold.

        >>> ms.nn.Fold((4, 4), 2)(ms.ops.ones((1, 8, 9))).shape
        (1, 2, 4, 4)
    """

    def __init__(self, output_size: ShapeLike, kernel_size: ShapeLike, dilation: ShapeLike = 1,
                 padding: ShapeLike = 0, stride: ShapeLike = 1) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def construct(self, x: Tensor) -> Tensor:
        return F.fold(x, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)


class Pad(Cell):
    """Pad with (before, after) per axis (`paddings`, numpy's layout); mode 'CONSTANT'
    (zeros), 'REFLECT' (mirror without the edge) or 'SYMMETRIC' (mirror with it).

        >>> ms.nn.Pad(((0, 0), (1, 2)), mode='SYMMETRIC')(ms.ops.ones((2, 3))).shape
        (2, 6)
    """

    def __init__(self, paddings: Sequence[Sequence[int]], mode: str = "CONSTANT") -> None:
        super().__init__()
        self.paddings = tuple(tuple(int(v) for v in p) for p in paddings)
        if any(len(p) != 2 or min(p) < 0 for p in self.paddings):
            raise ValueError(f"Pad: paddings must be non-negative (before, after) pairs, got "
                             f"{paddings!r}")
        self.mode = V.one_of(str(mode).upper(), "mode", "Pad",
                             ("CONSTANT", "REFLECT", "SYMMETRIC"))

    def construct(self, x: Tensor) -> Tensor:
        if len(self.paddings) != x.ndim:
            raise V.input_error("Pad", x, f"paddings {self.paddings} need one pair per axis of "
                                f"the input, got shape {tuple(x.shape)}")
        return F.pad(x, self.paddings, self.mode.lower())


class _PadNd(Cell):
    rank, mode = 1, "constant"

    def __init__(self, padding: ShapeLike, value: Optional[float] = None) -> None:
        super().__init__()
        owner = type(self).__name__
        n = 2 * self.rank
        pads = ((padding,) * n if isinstance(padding, (int, numbers.Integral))  # int: for mypy
                else tuple(padding))
        if len(pads) != n or any(not isinstance(p, numbers.Integral) for p in pads):
            raise ValueError(f"{owner}: padding must be an int or {n} ints, got {pads!r}")
        self.padding = tuple(int(p) for p in pads)
        self.value = None if value is None else float(value)

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim < self.rank:
            raise V.input_error(type(self).__name__, x, f"input must have at least {self.rank} "
                                f"axes to pad, got shape {tuple(x.shape)}")
        return F.pad(x, self.padding, self.mode, self.value)

    def extend_repr(self) -> str:
        return f"padding={self.padding}"


def _pad_class(name: str, rank: int, mode: str, doc: str, with_value: bool) -> type:
    """One padding Cell per (rank, mode): the classes differ only in these attributes."""
    if with_value:
        def __init__(self: _PadNd, padding: ShapeLike, value: float) -> None:
            _PadNd.__init__(self, padding, value)
    else:
        def __init__(self: _PadNd, padding: ShapeLike) -> None:  # type: ignore[misc]  # no value
            _PadNd.__init__(self, padding, 0.0 if mode == "constant" else None)
    return type(name, (_PadNd,), {"rank": rank, "mode": mode, "__init__": __init__,
                                  "__doc__": doc, "__module__": __name__})


_SHAPES = {1: "(left, right) of the last axis", 2: "(left, right, top, bottom)",
           3: "(left, right, top, bottom, front, back)"}
_WHAT = {("constant", True): "Pad with `value`", ("constant", False): "Pad with zeros",
         ("reflect", False): "Mirror-pad (without the edge)",
         ("replicate", False): "Repeat the edges of"}

# name: (rank, mode, takes a value). One Cell per row: they differ only in these attributes.
_PAD_CELLS = {
    "ConstantPad1d": (1, "constant", True), "ConstantPad2d": (2, "constant", True),
    "ConstantPad3d": (3, "constant", True), "ZeroPad1d": (1, "constant", False),
    "ZeroPad2d": (2, "constant", False), "ZeroPad3d": (3, "constant", False),
    "ReflectionPad1d": (1, "reflect", False), "ReflectionPad2d": (2, "reflect", False),
    "ReflectionPad3d": (3, "reflect", False), "ReplicationPad1d": (1, "replicate", False),
    "ReplicationPad2d": (2, "replicate", False), "ReplicationPad3d": (3, "replicate", False),
}
for _name, (_rank, _mode, _with_value) in _PAD_CELLS.items():
    globals()[_name] = _pad_class(
        _name, _rank, _mode, f"{_WHAT[_mode, _with_value]} the last {_rank} axes; padding an "
        f"int or {_SHAPES[_rank]}.", _with_value)

__all__ = ["Upsample", "ResizeBilinear", "PixelShuffle", "PixelUnshuffle", "Unfold", "Fold",
           "Pad", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad2d", "ReplicationPad3d"]
