"""The rest of dataset.vision (blur, tone, warps, crops, color spaces, image files, search
policies) against numpy formulas, Pillow's own operations or hand-computed values; random ones
repeat under ds.config.set_seed and run inside `.map` pipelines."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view
from PIL import Image, ImageOps

import minispore.dataset as ds
import minispore.dataset.vision as vision
from minispore.dataset import randomness

RNG = np.random.default_rng(7)
IMAGE = RNG.integers(0, 256, (9, 12, 3), dtype=np.uint8)


def draws(op, image, n=30, seed=11):
    ds.config.set_seed(seed)
    return [op(image) for _ in range(n)]


def pipeline(op, images, seed=5):
    """`op` mapped over `images` in a dataset pipeline, under `seed`."""
    ds.config.set_seed(seed)
    data = ds.NumpySlicesDataset(images, ["image"], shuffle=False).map(op, "image")
    return [row[0] for row in data.create_tuple_iterator(output_numpy=True)]


def assert_repeatable_in_pipeline(op, images=None):
    images = np.stack([IMAGE] * 6) if images is None else images
    first, second = pipeline(op, images), pipeline(op, images)
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    return first


# ----- blur, sharpness, color -----

def blur_reference(image, kx, ky):
    """Direct 2-D correlation with the outer-product kernel over a reflect-101 padded image."""
    kernel = np.outer(ky, kx)
    ry, rx = len(ky) // 2, len(kx) // 2
    planes = image[..., None] if image.ndim == 2 else image
    padded = np.pad(planes.astype(np.float64), ((ry, ry), (rx, rx), (0, 0)), mode="reflect")
    windows = sliding_window_view(padded, kernel.shape, axis=(0, 1))  # H, W, C, kh, kw
    out = (windows * kernel).sum(axis=(-2, -1))
    return out[..., 0] if image.ndim == 2 else out


def gauss(size, sigma):
    x = np.arange(size) - (size - 1) / 2
    k = np.exp(-x ** 2 / (2 * sigma ** 2))
    return k / k.sum()


def test_gaussian_blur_matches_a_direct_convolution():
    got = vision.GaussianBlur((5, 3), (1.5, 0.7))(IMAGE)
    want = blur_reference(IMAGE, gauss(5, 1.5), gauss(3, 0.7))
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, np.clip(np.rint(want), 0, 255))
    as_float = vision.GaussianBlur(3, 1.0)(IMAGE[..., 0].astype(np.float32))
    np.testing.assert_allclose(as_float, blur_reference(IMAGE[..., 0], gauss(3, 1), gauss(3, 1)),
                               rtol=1e-5)
    default = vision.GaussianBlur(5)
    assert default.sigma == pytest.approx((1.1, 1.1))  # OpenCV's sigma for a 5-tap kernel
    horizontal = vision.GaussianBlur((3, 1), 1.0)(IMAGE)  # a 1-tap y kernel leaves rows alone
    np.testing.assert_array_equal(
        horizontal, np.clip(np.rint(blur_reference(IMAGE, gauss(3, 1), [1.0])), 0, 255))
    with pytest.raises(ValueError, match="odd"):
        vision.GaussianBlur(4)


def test_gaussian_blur_matches_torch_conv2d():
    torch = pytest.importorskip("torch")
    image = IMAGE.astype(np.float32)
    kernel = np.outer(gauss(5, 1.2), gauss(3, 0.8)).astype(np.float32)  # (y, x)
    chw = torch.from_numpy(image.transpose(2, 0, 1).copy())[:, None]
    padded = torch.nn.functional.pad(chw, (1, 1, 2, 2), mode="reflect")
    want = torch.nn.functional.conv2d(padded, torch.from_numpy(kernel)[None, None])
    got = vision.GaussianBlur((3, 5), (0.8, 1.2))(image)
    np.testing.assert_allclose(got, want[:, 0].numpy().transpose(1, 2, 0), rtol=1e-4, atol=1e-3)


def smooth_reference(image):
    """torchvision's adjust_sharpness degenerate: the 3x3 [[1,1,1],[1,5,1],[1,1,1]] / 13 mean,
    rounded, with the border pixels kept."""
    kernel = np.ones((3, 3)) / 13
    kernel[1, 1] = 5 / 13
    windows = sliding_window_view(image.astype(np.float64), (3, 3), axis=(0, 1))
    out = image.astype(np.float64).copy()
    out[1:-1, 1:-1] = np.rint((windows * kernel).sum(axis=(-2, -1)))
    return out


def test_sharpness_matches_the_torchvision_formula():
    degenerate = smooth_reference(IMAGE)
    for factor in (0.0, 0.5, 1.0, 1.7):
        want = np.clip(degenerate + factor * (IMAGE - degenerate), 0, 255)
        got = vision.AdjustSharpness(factor)(IMAGE).astype(np.float64)
        assert np.abs(got - want).max() <= 1, factor
    np.testing.assert_array_equal(vision.AdjustSharpness(1.0)(IMAGE), IMAGE)
    np.testing.assert_array_equal(vision.RandomAdjustSharpness(1.7, prob=1.0)(IMAGE),
                                  vision.AdjustSharpness(1.7)(IMAGE))
    np.testing.assert_array_equal(vision.RandomSharpness((0.3, 0.3))(IMAGE),
                                  vision.AdjustSharpness(0.3)(IMAGE))
    gray = vision.AdjustSharpness(0.0)(IMAGE[..., 0])  # band by band: (H, W) stays (H, W)
    np.testing.assert_array_equal(gray, vision.AdjustSharpness(0.0)(IMAGE)[..., 0])
    outputs = draws(vision.RandomAdjustSharpness(0.0), IMAGE, 40)
    changed = [not np.array_equal(o, IMAGE) for o in outputs]
    assert 5 < sum(changed) < 35
    assert [not np.array_equal(o, IMAGE) for o in draws(vision.RandomAdjustSharpness(0.0),
                                                         IMAGE, 40)] == changed
    sharpened = assert_repeatable_in_pipeline(vision.RandomSharpness())
    assert len({s.tobytes() for s in sharpened}) == 6


def test_random_color_blends_with_the_gray_image():
    gray = IMAGE.astype(np.float64) @ [0.299, 0.587, 0.114]
    for factor in (0.0, 0.4, 1.6):
        want = np.clip(gray[..., None] + factor * (IMAGE - gray[..., None]), 0, 255)
        got = vision.RandomColor((factor, factor))(IMAGE).astype(np.float64)
        assert np.abs(got - want).max() <= 1.5, factor
    colored = assert_repeatable_in_pipeline(vision.RandomColor((0.2, 1.8)))
    assert len({c.tobytes() for c in colored}) == 6
    with pytest.raises(ValueError, match="degrees"):
        vision.RandomColor((1.5, 0.5))


# ----- histogram and bit-level transforms -----

def test_auto_contrast_stretches_each_channel():
    image = (IMAGE // 3 + 40).astype(np.uint8)
    got = vision.AutoContrast()(image).astype(np.float64)
    lo, hi = image.min(axis=(0, 1)), image.max(axis=(0, 1))
    want = (image - lo) * 255.0 / (hi - lo)
    assert np.abs(got - want).max() <= 1  # Pillow truncates the lookup table
    assert (got.min(axis=(0, 1)) == 0).all() and (got.max(axis=(0, 1)) >= 254).all()
    pil = np.asarray(ImageOps.autocontrast(Image.fromarray(image), cutoff=10, ignore=[40]))
    np.testing.assert_array_equal(vision.AutoContrast(10, ignore=40)(image), pil)
    flat = np.full((3, 3), 77, np.uint8)  # one level: left as it is
    np.testing.assert_array_equal(vision.AutoContrast()(flat), flat)
    np.testing.assert_array_equal(vision.RandomAutoContrast(prob=1.0)(image),
                                  vision.AutoContrast()(image))
    np.testing.assert_array_equal(vision.RandomAutoContrast(prob=0.0)(image), image)
    with pytest.raises(ValueError, match="cutoff"):
        vision.AutoContrast(60)


def equalize_reference(channel):
    """torchvision's _equalize_single_image (Pillow's algorithm) in numpy."""
    hist = np.bincount(channel.ravel(), minlength=256)
    nonzero = hist[hist > 0]
    step = (nonzero.sum() - nonzero[-1]) // 255
    if step == 0:
        return channel
    lut = (np.cumsum(hist) + step // 2) // step
    lut = np.concatenate([[0], lut[:-1]]).clip(0, 255)
    return lut[channel].astype(np.uint8)


def test_equalize_matches_the_torchvision_algorithm():
    image = (RNG.beta(2, 5, (30, 40, 3)) * 255).astype(np.uint8)
    want = np.stack([equalize_reference(image[..., c]) for c in range(3)], axis=-1)
    np.testing.assert_array_equal(vision.Equalize()(image), want)
    np.testing.assert_array_equal(vision.Equalize()(image[..., 1]), want[..., 1])
    np.testing.assert_array_equal(vision.RandomEqualize(1.0)(image), want)
    outputs = assert_repeatable_in_pipeline(vision.RandomEqualize(), np.stack([image] * 12))
    assert {np.array_equal(o, want) for o in outputs} == {True, False}


def test_posterize_and_solarize_are_exact():
    for bits in range(9):
        mask = (0xFF << (8 - bits)) & 0xFF
        np.testing.assert_array_equal(vision.Posterize(bits)(IMAGE), IMAGE & mask)
    posterized = draws(vision.RandomPosterize((2, 5)), IMAGE, 40)
    masks = {next(b for b in range(2, 6) if np.array_equal(p, IMAGE & ((0xFF << (8 - b)) & 0xFF)))
             for p in posterized}
    assert masks == {2, 3, 4, 5}
    np.testing.assert_array_equal(vision.Solarize(100)(IMAGE),
                                  np.where(IMAGE >= 100, 255 - IMAGE, IMAGE))
    np.testing.assert_array_equal(vision.Solarize((50, 150))(IMAGE),
                                  np.where((IMAGE >= 50) & (IMAGE <= 150), 255 - IMAGE, IMAGE))
    for out in draws(vision.RandomSolarize((30, 90)), IMAGE, 10):
        inverted = out != IMAGE
        values = IMAGE[inverted]
        assert (values >= 30).all() and (values <= 90).all()
        np.testing.assert_array_equal(out[inverted], 255 - values)
    with pytest.raises(ValueError, match="bits"):
        vision.Posterize(9)
    with pytest.raises(ValueError, match="threshold"):
        vision.Solarize((200, 100))


def test_random_invert_and_its_seed():
    outputs = draws(vision.RandomInvert(), IMAGE, 40)
    inverted = [np.array_equal(o, 255 - IMAGE) for o in outputs]
    assert all(i or np.array_equal(o, IMAGE) for i, o in zip(inverted, outputs))
    assert 5 < sum(inverted) < 35
    assert [np.array_equal(o, 255 - IMAGE) for o in draws(vision.RandomInvert(), IMAGE, 40)] \
        == inverted


def test_random_lighting_adds_the_alexnet_pca_offset():
    image = IMAGE.astype(np.float32)
    ds.config.set_seed(3)
    out = vision.RandomLighting(0.1)(image)
    ds.config.set_seed(3)
    alphas = randomness.generator().normal(0.0, 0.1, 3)
    eigval = np.array([55.46, 4.794, 1.148])
    eigvec = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                       [-0.5836, -0.6948, 0.4203]])
    np.testing.assert_allclose(out - image, np.broadcast_to(eigvec @ (alphas * eigval),
                                                            image.shape), atol=1e-4)
    lit = assert_repeatable_in_pipeline(vision.RandomLighting(0.5))
    assert all(o.dtype == np.uint8 for o in lit) and len({o.tobytes() for o in lit}) == 6
    with pytest.raises(RuntimeError, match="RGB"):
        vision.RandomLighting()(IMAGE[..., 0])
