"""Image cells (MindSpore's nn/layer/image.py and channel_shuffle.py): ImageGradients, PSNR,
SSIM, MSSSIM, CentralCrop and ChannelShuffle, over NCHW tensors.

    >>> import numpy as np
    >>> img = ms.Tensor(np.ones((1, 3, 16, 16), np.float32))
    >>> ms.nn.SSIM()(img, img).tolist()
    [1.0]
"""
from __future__ import annotations

from typing import Union

import numpy as np

from ...core.dtype import float32, uint8
from ...core.hints import Tensor
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell

__all__ = ["ImageGradients", "PSNR", "SSIM", "MSSSIM", "CentralCrop", "ChannelShuffle"]


def _check_4d(owner: str, name: str, x: Tensor) -> None:
    if x.ndim != 4:
        raise ValueError(f"{owner}: {name} must be a 4-D (N, C, H, W) tensor, got shape "
                         f"{tuple(x.shape)}")


def _check_pair(owner: str, img1: Tensor, img2: Tensor) -> None:
    _check_4d(owner, "img1", img1)
    _check_4d(owner, "img2", img2)
    if tuple(img1.shape) != tuple(img2.shape) or img1.dtype != img2.dtype:
        raise TypeError(f"{owner}: img1 and img2 must have the same shape and dtype, got "
                        f"{img1.dtype}{list(img1.shape)} and {img2.dtype}{list(img2.shape)}")


def _as_unit_float(img: Tensor, max_val: float) -> tuple[Tensor, float]:
    """Float32 image and dynamic range: integer images are scaled by 1 / their dtype's largest
    value (uint8: 255), and so is max_val, as MindSpore does."""
    if img.dtype.is_int:
        top = float(np.iinfo(img.dtype.np).max)
        return F.cast(img, float32) * (1.0 / top), max_val / top
    return F.cast(img, float32), max_val


def _check_max_val(owner: str, max_val: Union[int, float]) -> float:
    if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
        raise TypeError(f"{owner}: max_val must be an int or a float, got {max_val!r}")
    if not max_val > 0:
        raise ValueError(f"{owner}: max_val must be > 0, got {max_val}")
    return float(max_val)


class ImageGradients(Cell):
    """(dy, dx): differences of neighbouring pixels along height and width of an NCHW image,
    zero in the last row (dy) and last column (dx).

        >>> import numpy as np
        >>> dy, dx = ms.nn.ImageGradients()(ms.Tensor(np.array([[[[1, 2], [3, 4]]]], np.int32)))
        >>> dy.tolist(), dx.tolist()
        ([[[[2, 2], [0, 0]]]], [[[[1, 0], [1, 0]]]])
    """

    def construct(self, images: Tensor) -> tuple[Tensor, Tensor]:
        _check_4d("ImageGradients", "images", images)
        n, c, h, w = images.shape
        zero_row = F.zeros((n, c, 1, w), images.dtype)
        zero_col = F.zeros((n, c, h, 1), images.dtype)
        dy = zero_row if h == 1 else F.concat(
            (images[:, :, 1:, :] - images[:, :, :h - 1, :], zero_row), 2)
        dx = zero_col if w == 1 else F.concat(
            (images[:, :, :, 1:] - images[:, :, :, :w - 1], zero_col), 3)
        return dy, dx


class PSNR(Cell):
    """Peak signal-to-noise ratio per image: 10 log10(max_val^2 / MSE), MSE over (C, H, W).

        >>> img1 = ms.Tensor([[[[1, 2, 3, 4], [1, 2, 3, 4]]]])
        >>> img2 = ms.Tensor([[[[3, 4, 5, 6], [3, 4, 5, 6]]]])
        >>> psnr = ms.nn.PSNR()(img1, img2)
        >>> psnr.dtype, round(float(psnr[0]), 4)
        (Float32, -6.0206)
    """

    def __init__(self, max_val: Union[int, float] = 1.0) -> None:
        super().__init__()
        self.max_val = _check_max_val("PSNR", max_val)

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        _check_pair("PSNR", img1, img2)
        img1, max_val = _as_unit_float(img1, self.max_val)
        img2, _ = _as_unit_float(img2, self.max_val)
        mse = F.mean(F.square(img1 - img2), (-3, -2, -1))
        return F.log(max_val * max_val / mse) * (10.0 / np.log(10.0))


def _gaussian_window(size: int, sigma: float) -> np.ndarray:
    """(size, size) normalised Gaussian; offsets -size // 2 + 1 .. size // 2 (MindSpore's)."""
    y, x = np.mgrid[(-size) // 2 + 1:size // 2 + 1, (-size) // 2 + 1:size // 2 + 1]
    g = np.exp(-(x.astype(np.float32) ** 2 + y.astype(np.float32) ** 2) / (2 * sigma ** 2))
    return (g / g.sum()).astype(np.float32)


def _ssim_maps(img1: Tensor, img2: Tensor, window: Tensor, c1: float,
               c2: float) -> tuple[Tensor, Tensor]:
    """(SSIM, contrast-structure) per channel and 'valid' position: the local statistics are
    Gaussian-weighted (`window`, applied to each channel by a depthwise convolution)."""
    channels = img1.shape[1]
    weight = F.tile(F.reshape(window, (1, 1) + tuple(window.shape)), (channels, 1, 1, 1))

    def blur(x: Tensor) -> Tensor:
        return F.conv2d(x, weight, None, 1, "valid", 0, 1, channels)

    mu1, mu2 = blur(img1), blur(img2)
    mu1_sq, mu2_sq, mu1_mu2 = mu1 * mu1, mu2 * mu2, mu1 * mu2
    sigma1_sq = blur(img1 * img1) - mu1_sq
    sigma2_sq = blur(img2 * img2) - mu2_sq
    sigma12 = blur(img1 * img2) - mu1_mu2
    contrast_structure = (2 * sigma12 + c2) / (sigma1_sq + sigma2_sq + c2)
    luminance = (2 * mu1_mu2 + c1) / (mu1_sq + mu2_sq + c1)
    return luminance * contrast_structure, contrast_structure


class _SSIMBase(Cell):
    """Arguments and input checks shared by SSIM and MSSSIM."""

    def __init__(self, max_val: Union[int, float], filter_size: int, filter_sigma: float,
                 k1: float, k2: float) -> None:
        super().__init__()
        owner = type(self).__name__
        self.max_val = _check_max_val(owner, max_val)
        self.filter_size = V.positive_int(filter_size, "filter_size", owner)
        if not isinstance(filter_sigma, float) or not filter_sigma > 0:
            raise ValueError(f"{owner}: filter_sigma must be a float > 0, got {filter_sigma!r}")
        for name, k in (("k1", k1), ("k2", k2)):
            if not isinstance(k, float):
                raise TypeError(f"{owner}: {name} must be a float, got {k!r}")
        self.filter_sigma, self.k1, self.k2 = filter_sigma, k1, k2
        self.window = Tensor(_gaussian_window(self.filter_size, filter_sigma))

    def _prepare(self, img1: Tensor, img2: Tensor,
                 smallest: int) -> tuple[Tensor, Tensor, float, float]:
        """Float images and (c1, c2); the images must hold `smallest` pixels per side."""
        owner = type(self).__name__
        _check_pair(owner, img1, img2)
        if not (img1.dtype.is_float or img1.dtype == uint8):
            raise TypeError(f"{owner}: the images must be float or uint8, got {img1.dtype}")
        if min(img1.shape[2:]) < smallest:
            raise ValueError(f"{owner}: the images ({img1.shape[2]} x {img1.shape[3]}) are smaller "
                             f"than the {smallest} pixels filter_size={self.filter_size} needs")
        img1, max_val = _as_unit_float(img1, self.max_val)
        img2, _ = _as_unit_float(img2, self.max_val)
        return img1, img2, (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2


class SSIM(_SSIMBase):
    """Structural similarity per image: the mean over channels and positions of
    (2 mu1 mu2 + c1)(2 s12 + c2) / ((mu1^2 + mu2^2 + c1)(s1^2 + s2^2 + c2)), the local
    statistics weighted by a filter_size Gaussian of std filter_sigma ('valid' positions),
    c1 = (k1 max_val)^2, c2 = (k2 max_val)^2.

        >>> import numpy as np
        >>> a = ms.Tensor(np.linspace(0, 1, 256, dtype=np.float32).reshape(1, 1, 16, 16))
        >>> float(ms.nn.SSIM()(a, a * 0.5)[0]) < 1.0
        True
    """

    def __init__(self, max_val: Union[int, float] = 1.0, filter_size: int = 11,
                 filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03) -> None:
        super().__init__(max_val, filter_size, filter_sigma, k1, k2)

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        img1, img2, c1, c2 = self._prepare(img1, img2, self.filter_size)
        ssim, _ = _ssim_maps(img1, img2, self.window, c1, c2)
        return F.mean(ssim, (1, 2, 3))


class MSSSIM(_SSIMBase):
    """Multi-scale SSIM per image: at each of len(power_factors) scales (each a 2 x 2 average
    pooling of the previous) the mean contrast-structure term per channel, and at the last
    scale the SSIM; each clipped at 0, raised to its power factor, multiplied, and averaged
    over channels.

        >>> import numpy as np
        >>> img = ms.Tensor(np.random.default_rng(0).random((1, 3, 64, 64)).astype(np.float32))
        >>> ms.nn.MSSSIM(power_factors=(0.5, 0.5), filter_size=7)(img, img).tolist()
        [1.0]
    """

    def __init__(self, max_val: Union[int, float] = 1.0,
                 power_factors: Union[tuple, list] = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                 filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01,
                 k2: float = 0.03) -> None:
        super().__init__(max_val, filter_size, filter_sigma, k1, k2)
        if not isinstance(power_factors, (tuple, list)) or not power_factors:
            raise TypeError(f"MSSSIM: power_factors must be a non-empty tuple or list, "
                            f"got {power_factors!r}")
        self.power_factors = tuple(float(p) for p in power_factors)
        self.weights = Tensor(np.array(self.power_factors, np.float32))

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        levels = len(self.power_factors)
        img1, img2, c1, c2 = self._prepare(img1, img2,
                                           self.filter_size * 2 ** (levels - 1))
        factors = []
        for level in range(levels):
            ssim, cs = _ssim_maps(img1, img2, self.window, c1, c2)
            last = level == levels - 1
            factors.append(F.relu(F.mean(ssim if last else cs, (2, 3))))
            if not last:
                img1 = F.avg_pool2d(img1, 2, 2)
                img2 = F.avg_pool2d(img2, 2, 2)
        scales = F.stack(factors, -1)                       # (N, C, levels)
        return F.mean(F.prod(F.pow(scales, self.weights), -1), -1)


class CentralCrop(Cell):
    """The central `central_fraction` of the height and width of a (C, H, W) or (N, C, H, W)
    image (start = int((H - H * fraction) / 2) on each side, as MindSpore).

        >>> ms.nn.CentralCrop(0.5)(ms.ops.ones((4, 3, 4, 4))).shape
        (4, 3, 2, 2)
    """

    def __init__(self, central_fraction: float) -> None:
        super().__init__()
        if not isinstance(central_fraction, float):
            raise TypeError(f"CentralCrop: central_fraction must be a float, "
                            f"got {central_fraction!r}")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"CentralCrop: central_fraction must be in (0.0, 1.0], "
                             f"got {central_fraction}")
        self.central_fraction = central_fraction

    def construct(self, image: Tensor) -> Tensor:
        if image.ndim not in (3, 4):
            raise ValueError(f"CentralCrop: image must be 3-D or 4-D, got shape "
                             f"{tuple(image.shape)}")
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        top = int((float(h) - np.float32(h * self.central_fraction)) / 2)
        left = int((float(w) - np.float32(w * self.central_fraction)) / 2)
        return image[..., top:h - top, left:w - left]


class ChannelShuffle(Cell):
    """Interleaves the channels of `groups` groups: (N, C, *) viewed as (N, groups, C / groups,
    *), the two group axes swapped (ShuffleNet).

        >>> import numpy as np
        >>> x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 4, 1))
        >>> ms.nn.ChannelShuffle(2)(x).reshape(-1).tolist()
        [0.0, 2.0, 1.0, 3.0]
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = V.positive_int(groups, "groups", "ChannelShuffle")

    def construct(self, x: Tensor) -> Tensor:
        return F.channel_shuffle(x, self.groups)
