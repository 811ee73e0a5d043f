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


# ----- affine and perspective warps -----

def nearest_warp(image, forward, fill=0):
    """Output pixel (x, y) takes the source pixel nearest to forward^-1 (x, y), or `fill`."""
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w]
    source = np.linalg.inv(forward) @ np.stack([xs.ravel(), ys.ravel(), np.ones(h * w)])
    sx, sy = source[0] / source[2], source[1] / source[2]
    col, row = np.floor(sx + 0.5).astype(int), np.floor(sy + 0.5).astype(int)
    inside = (col >= 0) & (col < w) & (row >= 0) & (row < h)
    out = np.full((h * w,) + image.shape[2:], fill, image.dtype)
    out[inside] = image[row[inside], col[inside]]
    return out.reshape(image.shape)


def mindspore_affine(h, w, degrees, translate, scale, shear):
    """MindSpore's affine matrix as a product: T * C * s R(a) SHy(sy) SHx(sx) * C^-1, angles
    in degrees (the y shear's sign flipped), translate in fractions of the size."""
    a, sx, sy = np.radians(degrees), np.radians(shear[0]), np.radians(-shear[1])
    rotate = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    shear_y = np.array([[1, 0, 0], [np.tan(sy), 1, 0], [0, 0, 1]])
    shear_x = np.array([[1, -np.tan(sx), 0], [0, 1, 0], [0, 0, 1]])
    rss = np.diag([scale, scale, 1]) @ rotate @ shear_y @ shear_x
    center = np.array([[1, 0, (w - 1) / 2], [0, 1, (h - 1) / 2], [0, 0, 1]])
    shift = np.array([[1, 0, translate[0] * w], [0, 1, translate[1] * h], [0, 0, 1]])
    return shift @ center @ rss @ np.linalg.inv(center)


def test_affine_quarter_turns_shifts_and_a_nearest_reference():
    square = IMAGE[:, :9]
    np.testing.assert_array_equal(vision.Affine(90, (0, 0), 1.0, 0)(square), np.rot90(square, -1))
    np.testing.assert_array_equal(vision.Affine(-90, (0, 0), 1.0, 0)(square), np.rot90(square))
    shifted = vision.Affine(0, (0.25, -1 / 9), 1.0, 0, fill_value=(1, 2, 3))(IMAGE)
    np.testing.assert_array_equal(shifted[:-1, 3:], IMAGE[1:, :-3])  # 3 right, 1 up
    assert (shifted[:, :3] == [1, 2, 3]).all() and (shifted[-1] == [1, 2, 3]).all()
    for params in [(17.0, (0.1, -0.05), 1.3, (10.0, 0.0)), (-33.0, (0.0, 0.1), 0.8, (5.0, 12.0)),
                   (0.0, (0.0, 0.0), 1.0, (0.0, 20.0))]:
        forward = mindspore_affine(9, 12, *params)
        np.testing.assert_allclose(vision.warps.affine_matrix(9, 12, *params), forward,
                                   atol=1e-12)
        got = vision.Affine(*params, resample=vision.Inter.NEAREST)(IMAGE)
        want = nearest_warp(IMAGE, forward)
        assert (got != want).any(axis=-1).mean() < 0.02, params  # ties at .5 may round apart
    pil = vision.Affine(10, (0, 0), 1.0, 0)(Image.fromarray(IMAGE))
    assert isinstance(pil, Image.Image)
    smooth = vision.Affine(10, (0, 0), 1.0, 0, resample=vision.Inter.BILINEAR)(IMAGE)
    assert smooth.shape == IMAGE.shape and smooth.dtype == np.uint8
    with pytest.raises(ValueError, match="scale"):
        vision.Affine(0, (0, 0), 0, 0)


def test_random_affine_draws_its_parameters_per_image():
    square = IMAGE[:, :9]
    np.testing.assert_array_equal(vision.RandomAffine((90, 90))(square), np.rot90(square, -1))
    shifts = draws(vision.RandomAffine(0, translate=(-0.25, 0.25)), IMAGE, 30)
    seen = set()
    for out in shifts:  # whole-pixel shifts along x only: a column window of the image
        for dx in range(-3, 4):
            if np.array_equal(out, vision.Affine(0, (dx / 12, 0), 1.0, 0)(IMAGE)):
                seen.add(dx)
                break
        else:
            dxs = [np.array_equal(out[:, 4:8], IMAGE[:, 4 - d:8 - d]) for d in range(-3, 4)]
            assert any(dxs), "not a horizontal shift"
    assert len(seen) >= 3
    op = vision.RandomAffine(20, translate=(-0.1, 0.1, -0.1, 0.1), scale=(0.8, 1.2),
                             shear=(-5, 5, -5, 5))
    warped = assert_repeatable_in_pipeline(op)
    assert len({w.tobytes() for w in warped}) == 6
    with pytest.raises(ValueError, match="translate"):
        vision.RandomAffine(0, translate=(0.5, 2.0))


def test_perspective_maps_the_start_quadrilateral_onto_the_end_one():
    h, w = IMAGE.shape[:2]
    corners = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
    np.testing.assert_array_equal(vision.Perspective(corners, corners, vision.Inter.NEAREST)(
        IMAGE), IMAGE)
    inner = [[2, 1], [w - 2, 0], [w - 1, h - 3], [1, h - 2]]
    got = vision.Perspective(corners, inner, vision.Inter.NEAREST)(IMAGE)
    # the homography from the 8 equations u (g x + h y + 1) = a x + b y + c, v likewise
    rows, rhs = [], []
    for (x, y), (u, v) in zip(corners, inner):
        rows += [[x, y, 1, 0, 0, 0, -u * x, -u * y], [0, 0, 0, x, y, 1, -v * x, -v * y]]
        rhs += [u, v]
    forward = np.append(np.linalg.solve(rows, rhs), 1).reshape(3, 3)
    for (x, y), (u, v) in zip(corners, inner):
        mapped = forward @ [x, y, 1]
        np.testing.assert_allclose(mapped[:2] / mapped[2], [u, v], atol=1e-9)
    want = nearest_warp(IMAGE, forward)
    assert (got != want).any(axis=-1).mean() < 0.02
    assert (got[0, 0] == 0).all()  # outside the warped quadrilateral
    with pytest.raises(TypeError, match="four"):
        vision.Perspective(corners[:3], inner[:3])


def test_random_perspective():
    np.testing.assert_array_equal(vision.RandomPerspective(prob=0.0)(IMAGE), IMAGE)
    np.testing.assert_array_equal(
        vision.RandomPerspective(0.0, prob=1.0, interpolation=vision.Inter.NEAREST)(IMAGE), IMAGE)
    outputs = assert_repeatable_in_pipeline(vision.RandomPerspective(0.6, prob=1.0))
    assert len({o.tobytes() for o in outputs}) == 6
    assert all(o.shape == IMAGE.shape for o in outputs)
    ds.config.set_seed(1)
    op = vision.RandomPerspective(0.5)
    for _ in range(20):
        end = op._end_points(9, 12)
        xs, ys = [p[0] for p in end], [p[1] for p in end]
        assert 0 <= min(xs) and max(xs) <= 11 and 0 <= min(ys) and max(ys) <= 8
        assert xs[0] <= 3 and xs[1] >= 11 - 3 - 1 and ys[2] >= 8 - 2 - 1 and ys[0] <= 2
    for shape in [(1, 1, 3), (2, 2, 3), (1, 5)]:  # corners that coincide: left as it is
        for out in draws(vision.RandomPerspective(1.0, prob=1.0), np.zeros(shape, np.uint8), 30):
            assert out.shape == shape
    with pytest.raises(ValueError, match="on a line"):
        vision.Perspective([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 0], [1, 0], [2, 0], [3, 0]])


# ----- crops, padding, erasing, random resize -----

def test_erase_fills_the_box():
    out = vision.Erase(2, 3, 4, 5, value=(1, 2, 3))(IMAGE)
    want = IMAGE.copy()
    want[2:6, 3:8] = [1, 2, 3]
    np.testing.assert_array_equal(out, want)
    assert not np.array_equal(IMAGE, out)  # a copy by default
    target = IMAGE.astype(np.float32)
    same = vision.Erase(0, 0, 2, 2, value=0.5, inplace=True)(target)
    assert same is target and (target[:2, :2] == 0.5).all() and (target[2:] == IMAGE[2:]).all()
    clipped = vision.Erase(7, 10, 10, 10)(IMAGE)  # a box past the edge stops at it
    assert (clipped[7:, 10:] == 0).all() and (clipped[:7] == IMAGE[:7]).all()


def test_five_and_ten_crop_match_slicing():
    crops = vision.FiveCrop((4, 5))(IMAGE)
    want = [IMAGE[:4, :5], IMAGE[:4, 7:], IMAGE[5:, :5], IMAGE[5:, 7:], IMAGE[2:6, 4:9]]
    assert len(crops) == 5
    for got, expected in zip(crops, want):
        np.testing.assert_array_equal(got, expected)
    ten = vision.TenCrop((4, 5))(IMAGE)
    flipped = IMAGE[:, ::-1]
    mirrored = [flipped[:4, :5], flipped[:4, 7:], flipped[5:, :5], flipped[5:, 7:],
                flipped[2:6, 4:9]]
    for got, expected in zip(ten, want + mirrored):
        np.testing.assert_array_equal(got, expected)
    vertical = vision.TenCrop(3, use_vertical_flip=True)(IMAGE)
    np.testing.assert_array_equal(vertical[5], IMAGE[::-1][:3, :3])
    pil_crops = vision.FiveCrop(3)(Image.fromarray(IMAGE))
    assert all(isinstance(c, Image.Image) and c.size == (3, 3) for c in pil_crops)
    stacked = ds.transforms.Compose([vision.FiveCrop(3), lambda *c: np.stack(c)])(IMAGE)
    assert stacked.shape == (5, 3, 3, 3)
    with pytest.raises(ValueError, match="larger"):
        vision.FiveCrop(10)(IMAGE)


def test_slice_patches_pads_or_drops_the_remainder():
    padded = vision.SlicePatches(2, 5, fill_value=9)(IMAGE)  # 9x12 -> 10x15, patches 5x3
    assert len(padded) == 10 and all(p.shape == (5, 3, 3) for p in padded)
    full = np.full((10, 15, 3), 9, np.uint8)
    full[:9, :12] = IMAGE
    np.testing.assert_array_equal(np.concatenate([np.concatenate(padded[i * 5:(i + 1) * 5], 1)
                                                  for i in range(2)], 0), full)
    dropped = vision.SlicePatches(2, 5, vision.SliceMode.DROP)(IMAGE)  # patches 4x2
    np.testing.assert_array_equal(dropped[6], IMAGE[4:8, 2:4])
    assert vision.SlicePatches()(IMAGE)[0].shape == IMAGE.shape


def test_pad_to_size():
    centered = vision.PadToSize((12, 15), fill_value=(4, 5, 6))(IMAGE)
    want = np.stack([np.pad(IMAGE[..., c], ((1, 2), (1, 2)), constant_values=v)
                     for c, v in enumerate((4, 5, 6))], axis=-1)
    np.testing.assert_array_equal(centered, want)
    placed = vision.PadToSize(14, offset=(0, 2), padding_mode=vision.Border.REFLECT)(IMAGE)
    np.testing.assert_array_equal(placed, np.pad(IMAGE, ((0, 5), (2, 0), (0, 0)), "reflect"))
    with pytest.raises(ValueError, match="does not fit"):
        vision.PadToSize((5, 20))(IMAGE)


def test_random_resize_draws_the_interpolation():
    expected = {mode: vision.Resize((5, 7), mode)(IMAGE).tobytes() for mode in
                (vision.Inter.LINEAR, vision.Inter.NEAREST, vision.Inter.BICUBIC,
                 vision.Inter.AREA)}
    outputs = draws(vision.RandomResize((5, 7)), IMAGE, 40)
    assert {o.tobytes() for o in outputs} == set(expected.values())
    assert vision.RandomResize(4)(IMAGE).shape == (4, 5, 3)
    resized = assert_repeatable_in_pipeline(vision.RandomResize((5, 7)))
    assert all(r.shape == (5, 7, 3) for r in resized)


# ----- color spaces and layouts -----

def test_rgb_hsv_round_trip_matches_colorsys():
    import colorsys
    rgb = np.concatenate([RNG.random((5, 4, 3)), [[[0.2, 0.2, 0.2], [0, 0, 0], [1, 0, 0],
                                                   [0.3, 0.9, 0.3]]]]).astype(np.float32)
    hsv = vision.RgbToHsv(is_hwc=True)(rgb)
    assert hsv.dtype == np.float32
    want = np.array([[colorsys.rgb_to_hsv(*p) for p in row] for row in rgb.astype(np.float64)])
    np.testing.assert_allclose(hsv, want, atol=1e-6)
    back = vision.HsvToRgb(is_hwc=True)(want)
    np.testing.assert_allclose(back, [[colorsys.hsv_to_rgb(*p) for p in row] for row in want],
                               atol=1e-12)
    np.testing.assert_allclose(back, rgb, atol=1e-6)
    chw = vision.RgbToHsv()(rgb.transpose(2, 0, 1))  # CHW by default
    np.testing.assert_allclose(chw, hsv.transpose(2, 0, 1), atol=1e-7)
    batch = vision.HsvToRgb()(np.stack([want.transpose(2, 0, 1)] * 2))  # NCHW
    np.testing.assert_allclose(batch[1], rgb.transpose(2, 0, 1), atol=1e-6)
    with pytest.raises(RuntimeError, match="3-channel CHW"):
        vision.RgbToHsv()(rgb)


def test_convert_color_reorders_adds_alpha_and_makes_opencv_gray():
    modes = vision.ConvertMode
    bgr = IMAGE[..., ::-1]
    np.testing.assert_array_equal(vision.ConvertColor(modes.COLOR_RGB2BGR)(IMAGE), bgr)
    rgba = vision.ConvertColor(modes.COLOR_RGB2RGBA)(IMAGE)
    assert rgba.shape == (9, 12, 4) and (rgba[..., 3] == 255).all()
    np.testing.assert_array_equal(vision.ConvertColor(modes.COLOR_RGBA2BGR)(rgba), bgr)
    np.testing.assert_array_equal(vision.ConvertColor(modes.COLOR_BGRA2RGBA)(rgba)[..., :3], bgr)
    gray = vision.ConvertColor(modes.COLOR_RGB2GRAY)(IMAGE)
    r, g, b = (IMAGE[..., i].astype(np.int64) for i in range(3))
    np.testing.assert_array_equal(gray, (4899 * r + 9617 * g + 1868 * b + 8192) >> 14)
    assert np.abs(gray - (0.299 * r + 0.587 * g + 0.114 * b)).max() <= 0.51
    np.testing.assert_array_equal(vision.ConvertColor(modes.COLOR_BGR2GRAY)(bgr), gray)
    np.testing.assert_array_equal(vision.ConvertColor(modes.COLOR_RGBA2GRAY)(rgba), gray)
    three = vision.ConvertColor(modes.COLOR_GRAY2RGB)(gray)
    assert three.shape == (9, 12, 3) and (three == gray[..., None]).all()
    floats = vision.ConvertColor(modes.COLOR_GRAY2BGRA)(gray[..., None].astype(np.float32) / 255)
    assert floats.dtype == np.float32 and (floats[..., 3] == 1.0).all()
    with pytest.raises(RuntimeError, match="4 channels"):
        vision.ConvertColor(modes.COLOR_RGBA2RGB)(IMAGE)


def test_linear_transformation_and_normalize_pad():
    chw = vision.ToTensor()(IMAGE[:3, :4])  # 3 x 3 x 4 = 36 values
    matrix, mean = RNG.standard_normal((36, 36)), RNG.random(36)
    got = vision.LinearTransformation(matrix, mean)(chw)
    np.testing.assert_allclose(got, ((chw.ravel() - mean) @ matrix).reshape(chw.shape), rtol=1e-6)
    with pytest.raises(RuntimeError, match="36"):
        vision.LinearTransformation(matrix, mean)(IMAGE)
    mean3, std3 = [120.0, 110.0, 100.0], [50.0, 60.0, 70.0]
    padded = vision.NormalizePad(mean3, std3)(IMAGE)
    assert padded.shape == (9, 12, 4) and padded.dtype == np.float32
    np.testing.assert_allclose(padded[..., :3], (IMAGE - np.array(mean3)) / np.array(std3),
                               rtol=1e-5)
    assert (padded[..., 3] == 0).all()
    half = vision.NormalizePad(mean3, std3, "float16", is_hwc=False)(IMAGE.transpose(2, 0, 1))
    assert half.shape == (4, 9, 12) and half.dtype == np.float16 and (half[3] == 0).all()
    out = pipeline(vision.NormalizePad(mean3, std3), np.stack([IMAGE] * 2))
    np.testing.assert_array_equal(out[0], padded)


def test_image_queries():
    assert vision.get_image_num_channels(IMAGE) == 3
    assert vision.get_image_num_channels(IMAGE[..., 0]) == 1
    assert vision.get_image_num_channels(Image.fromarray(IMAGE).convert("RGBA")) == 4
    assert vision.get_image_size(IMAGE) == [9, 12]
    assert vision.get_image_size(Image.fromarray(IMAGE)) == [9, 12]
    with pytest.raises(RuntimeError, match="expected an image"):
        vision.get_image_size(np.zeros(3))


# ----- image files -----

def test_read_and_write_files(tmp_path):
    raw = RNG.integers(0, 256, 100, dtype=np.uint8)
    path = tmp_path / "raw.bin"
    vision.write_file(str(path), raw)
    np.testing.assert_array_equal(vision.read_file(str(path)), raw)
    assert path.read_bytes() == raw.tobytes()
    with pytest.raises(RuntimeError, match="1-D uint8"):
        vision.write_file(str(path), IMAGE)
    with pytest.raises(RuntimeError, match="does not exist"):
        vision.read_file(str(tmp_path / "missing"))
    with pytest.raises(TypeError, match="str"):
        vision.read_file(3)


def test_png_round_trips_exactly_and_read_image_modes(tmp_path):
    path = str(tmp_path / "image.png")
    vision.write_png(path, IMAGE)
    np.testing.assert_array_equal(vision.read_image(path), IMAGE)
    np.testing.assert_array_equal(np.asarray(Image.open(path)), IMAGE)  # Pillow reads it back
    gray = vision.read_image(path, vision.ImageReadMode.GRAYSCALE)
    assert gray.shape == (9, 12, 1)
    np.testing.assert_array_equal(gray[..., 0], np.asarray(Image.fromarray(IMAGE).convert("L")))
    vision.write_png(path, IMAGE[..., :1], compression_level=9)
    assert vision.read_image(path).shape == (9, 12, 1)
    color = vision.read_image(path, vision.ImageReadMode.COLOR)
    assert color.shape == (9, 12, 3) and (color == IMAGE[..., :1]).all()
    rgba = str(tmp_path / "rgba.png")
    Image.fromarray(np.dstack([IMAGE, IMAGE[..., :1]])).save(rgba)
    assert vision.read_image(rgba).shape == (9, 12, 4)
    assert vision.read_image(rgba, vision.ImageReadMode.COLOR).shape == (9, 12, 3)
    encoded = vision.encode_png(IMAGE, compression_level=0)
    np.testing.assert_array_equal(vision.Decode()(encoded), IMAGE)
    flat = np.zeros((64, 64, 3), np.uint8)
    assert len(vision.encode_png(flat, 9)) < len(vision.encode_png(flat, 0))
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image")
    with pytest.raises(RuntimeError, match="cannot decode"):
        vision.read_image(str(bad))


def test_jpeg_encoding_matches_pillow_and_quality_matters(tmp_path):
    import io
    smooth = np.clip(vision.GaussianBlur(7, 3.0)(np.kron(IMAGE, np.ones((4, 4, 1), np.uint8))),
                     0, 255)
    encoded = vision.encode_jpeg(smooth, quality=90)
    buffer = io.BytesIO()
    Image.fromarray(smooth).save(buffer, "JPEG", quality=90)
    assert encoded.tobytes() == buffer.getvalue()
    decoded = vision.Decode()(encoded)
    assert np.abs(decoded.astype(int) - smooth).mean() < 6
    assert len(vision.encode_jpeg(smooth, quality=10)) < len(encoded)
    path = str(tmp_path / "image.jpg")
    vision.write_jpeg(path, smooth, 90)
    np.testing.assert_array_equal(vision.read_image(path), decoded)
    assert vision.encode_jpeg(smooth[..., 0])[:2].tolist() == [0xFF, 0xD8]
    with pytest.raises(ValueError, match="quality"):
        vision.encode_jpeg(smooth, 0)
    with pytest.raises(RuntimeError, match="uint8"):
        vision.encode_jpeg(smooth.astype(np.float32))


# ----- RandAugment, TrivialAugmentWide, UniformAugment, RandomSelectSubpolicy -----

def candidates(space, bins, image):
    """Every image one operation of `space` can give: each bin, each sign where signed."""
    from minispore.dataset.vision.randaugment import _OPS
    pil = Image.fromarray(image)
    out = {}
    for name, (values, signed) in space.items():
        for magnitude in {float(v) for v in values[bins]}:
            for sign in ((1, -1) if signed else (1,)):
                result = _OPS[name](pil, sign * magnitude, Image.Resampling.NEAREST, (0, 0, 0))
                out.setdefault(np.asarray(result).tobytes(), name)
    return out


def test_rand_augment_space_matches_torchvision_values():
    from minispore.dataset.vision.randaugment import rand_augment_space, trivial_augment_space
    space = rand_augment_space(31, 9, 12)
    assert len(space) == 14
    assert space["Posterize"][0][9] == 7 and space["Posterize"][0][30] == 4
    assert space["Solarize"][0][9] == pytest.approx(255 - 9 * 8.5)
    assert space["ShearX"][0][9] == pytest.approx(0.09) and space["Rotate"][0][9] == 9.0
    assert space["TranslateX"][0][30] == pytest.approx(150 / 331 * 12)
    wide = trivial_augment_space(31)
    assert wide["Rotate"][0][-1] == 135.0 and wide["Posterize"][0][-1] == 2
    assert wide["TranslateY"][0][-1] == 32.0


def test_translations_are_in_pixels():
    from minispore.dataset.vision.randaugment import _OPS
    pil = Image.fromarray(IMAGE)
    right = np.asarray(_OPS["TranslateX"](pil, 3.7, Image.Resampling.NEAREST, (1, 2, 3)))
    np.testing.assert_array_equal(right[:, 3:], IMAGE[:, :-3])
    assert (right[:, :3] == [1, 2, 3]).all()
    up = np.asarray(_OPS["TranslateY"](pil, -2, Image.Resampling.NEAREST, (0, 0, 0)))
    np.testing.assert_array_equal(up[:-2], IMAGE[2:])


def test_rand_augment_applies_one_of_its_operations_at_the_magnitude():
    from minispore.dataset.vision.randaugment import rand_augment_space
    np.testing.assert_array_equal(vision.RandAugment(num_ops=0)(IMAGE), IMAGE)
    possible = candidates(rand_augment_space(31, 9, 12), [9], IMAGE)
    seen = set()
    for out in draws(vision.RandAugment(num_ops=1, magnitude=9), IMAGE, 60):
        assert out.tobytes() in possible
        seen.add(possible[out.tobytes()])
    assert len(seen) >= 8
    twice = assert_repeatable_in_pipeline(vision.RandAugment(fill_value=(5, 5, 5)))
    assert all(t.shape == IMAGE.shape and t.dtype == np.uint8 for t in twice)
    with pytest.raises(ValueError, match="below num_magnitude_bins"):
        vision.RandAugment(magnitude=31)
    with pytest.raises(RuntimeError, match="RGB uint8"):
        vision.RandAugment()(IMAGE[..., 0])


def test_trivial_augment_draws_an_operation_and_a_bin():
    from minispore.dataset.vision.randaugment import trivial_augment_space
    bins = 5
    possible = candidates(trivial_augment_space(bins), list(range(bins)), IMAGE)
    outputs = draws(vision.TrivialAugmentWide(bins), IMAGE, 60)
    assert all(o.tobytes() in possible for o in outputs)
    assert len({possible[o.tobytes()] for o in outputs}) >= 8
    assert len({o.tobytes() for o in outputs}) >= 20
    assert_repeatable_in_pipeline(vision.TrivialAugmentWide())


def test_uniform_augment_runs_a_random_subset():
    ops = [lambda x: x + 1, lambda x: x * 10, lambda x: -x]
    op = vision.UniformAugment(ops, num_ops=2)
    results = [int(r) for r in draws(op, np.array(2), 300)]
    # any ordered pair of distinct ops, each run or not
    possible = {2}
    for i in range(3):
        for j in range(3):
            if i != j:
                for first in (False, True):
                    for second in (False, True):
                        value = 2
                        value = ops[i](value) if first else value
                        value = ops[j](value) if second else value
                        possible.add(value)
    assert set(results) <= possible and len(set(results)) >= 8
    untouched = sum(r == 2 for r in results) / len(results)
    assert 0.15 < untouched < 0.35  # both skipped: 1/4
    images = assert_repeatable_in_pipeline(
        vision.UniformAugment([vision.RandomInvert(1.0), vision.Posterize(2),
                               vision.HorizontalFlip()], 2))
    assert all(i.shape == IMAGE.shape for i in images)
    with pytest.raises(ValueError, match="num_ops"):
        vision.UniformAugment(ops, num_ops=4)


def test_random_select_subpolicy():
    policy = [[(vision.Invert(), 1.0), (vision.HorizontalFlip(), 1.0)],
              [(vision.Posterize(1), 1.0), (vision.VerticalFlip(), 0.0)]]
    outs = draws(vision.RandomSelectSubpolicy(policy), IMAGE, 30)
    first, second = (255 - IMAGE)[:, ::-1], IMAGE & 0x80
    kinds = [0 if np.array_equal(o, first) else 1 if np.array_equal(o, second) else -1
             for o in outs]
    assert set(kinds) == {0, 1}
    piped = assert_repeatable_in_pipeline(vision.RandomSelectSubpolicy(policy))
    assert all(np.array_equal(p, first) or np.array_equal(p, second) for p in piped)
    with pytest.raises(ValueError, match="policy"):
        vision.RandomSelectSubpolicy([[(vision.Invert(), 2.0)]])


def test_random_crop_decode_resize_is_decode_then_random_resized_crop():
    encoded = vision.encode_png(IMAGE)
    fused = draws(vision.RandomCropDecodeResize((5, 4), scale=(0.2, 0.9)), encoded, 10)
    apart = draws(ds.transforms.Compose([vision.Decode(), vision.RandomResizedCrop(
        (5, 4), scale=(0.2, 0.9))]), encoded, 10)
    assert all(np.array_equal(a, b) for a, b in zip(fused, apart))
    assert len({f.tobytes() for f in fused}) > 5
    assert_repeatable_in_pipeline(vision.RandomCropDecodeResize(4), np.stack([encoded] * 4))
    marked = vision.not_random(lambda x: x)
    assert marked.random is False


# ----- image + bounding boxes -----

BOXES = np.array([[1, 2, 4, 3, 7], [6, 0, 5, 9, 8]], np.float32)  # x, y, w, h, label


def painted(h=9, w=12, boxes=BOXES):
    """An image whose channel i is 1 exactly inside box i."""
    image = np.zeros((h, w, 3), np.uint8)
    for i, (x, y, bw, bh) in enumerate(boxes[:, :4].astype(int)):
        image[y:y + bh, x:x + bw, i] = 1
    return image


def assert_boxes_cover_the_paint(image, boxes):
    for i, (x, y, bw, bh) in enumerate(np.rint(boxes[:, :4]).astype(int)):
        channel = int(boxes[i, 4]) - 7  # the label says which painted box it was
        want = np.zeros(image.shape[:2], bool)
        want[y:y + bh, x:x + bw] = True
        np.testing.assert_array_equal(image[..., channel] == 1, want)


def test_flips_with_bboxes_move_the_boxes_with_the_pixels():
    image = painted()
    flipped, boxes = vision.RandomHorizontalFlipWithBBox(1.0)(image, BOXES)
    np.testing.assert_array_equal(boxes[:, 0], [12 - 1 - 4, 12 - 6 - 5])
    assert_boxes_cover_the_paint(flipped, boxes)
    flipped, boxes = vision.RandomVerticalFlipWithBBox(1.0)(image, BOXES)
    assert_boxes_cover_the_paint(flipped, boxes)
    np.testing.assert_array_equal(boxes[:, 4], [7, 8])  # extra columns ride along
    same, kept = vision.RandomVerticalFlipWithBBox(0.0)(image, BOXES)
    assert np.array_equal(same, image) and np.array_equal(kept, BOXES)
    with pytest.raises(RuntimeError, match="inside"):
        vision.RandomHorizontalFlipWithBBox()(image, np.array([[10, 0, 5, 2]], np.float32))


def test_resize_with_bboxes_scales_the_boxes():
    image = painted()
    resized, boxes = vision.ResizeWithBBox((18, 36), vision.Inter.NEAREST)(image, BOXES)
    np.testing.assert_allclose(boxes[:, :4], BOXES[:, :4] * [3, 2, 3, 2])
    assert_boxes_cover_the_paint(resized, boxes)
    outs = draws(lambda i: vision.RandomResizeWithBBox((18, 36))(i, BOXES), image, 10)
    assert all(o[0].shape == (18, 36, 3) and np.allclose(o[1], boxes) for o in outs)


def test_random_crop_with_bboxes_clips_and_drops_the_boxes():
    image = painted()
    ds.config.set_seed(2)
    op = vision.RandomCropWithBBox((6, 7), padding=2)
    seen_counts = set()
    for _ in range(40):
        crop, boxes = op(image, BOXES)
        assert crop.shape == (6, 7, 3)
        assert_boxes_cover_the_paint(crop, boxes)
        for channel in range(2):  # a painted box in the crop has its (clipped) box
            if (crop[..., channel] == 1).any():
                assert channel + 7 in boxes[:, 4]
        seen_counts.add(len(boxes))
    assert seen_counts >= {1, 2}
    np.testing.assert_allclose(vision.bbox.crop_boxes(BOXES, 1, 2, 4, 5),
                               [[0, 1, 3, 3, 7], [4, 0, 1, 4, 8]])


def test_random_resized_crop_with_bboxes():
    image = painted()
    ds.config.set_seed(6)
    op = vision.RandomResizedCropWithBBox((9, 12), scale=(0.3, 0.8),
                                          interpolation=vision.Inter.NEAREST)
    for _ in range(20):
        out, boxes = op(image, BOXES)
        for i, (x, y, bw, bh) in enumerate(boxes[:, :4]):
            channel = int(boxes[i, 4]) - 7
            rows, cols = np.nonzero(out[..., channel] == 1)
            assert abs(rows.min() - y) <= 1 and abs(rows.max() + 1 - (y + bh)) <= 1
            assert abs(cols.min() - x) <= 1 and abs(cols.max() + 1 - (x + bw)) <= 1
        for channel in range(2):  # paint visible means its box was kept
            if (out[..., channel] == 1).any():
                assert channel + 7 in boxes[:, 4]


def test_bounding_box_augment_transforms_a_share_of_the_regions():
    image = np.full((9, 12, 3), 100, np.uint8)
    boxes = np.array([[0, 0, 3, 3], [4, 0, 3, 3], [8, 0, 3, 3], [0, 5, 3, 3]], np.float32)
    ds.config.set_seed(9)
    chosen = []
    for _ in range(12):
        out, same = vision.BoundingBoxAugment(vision.Invert(), ratio=0.5)(image, boxes)
        assert same is boxes
        changed = [bool((out[y:y + 3, x:x + 3] == 155).all()) for x, y, _, _ in boxes.astype(int)]
        assert sum(changed) == 2 and (out == 155).sum() == 2 * 9 * 3
        chosen.append(tuple(changed))
    assert len(set(chosen)) > 2
    grown, _ = vision.BoundingBoxAugment(vision.Resize((6, 6)), 1.0)(image, boxes)  # resized back
    assert grown.shape == image.shape
    data = ds.NumpySlicesDataset({"image": np.stack([painted()] * 4),
                                  "bbox": np.stack([BOXES] * 4)}, shuffle=False)
    data = data.map(vision.RandomHorizontalFlipWithBBox(1.0), ["image", "bbox"])
    for out_image, out_boxes in data.create_tuple_iterator(output_numpy=True):
        assert_boxes_cover_the_paint(out_image, out_boxes)


def test_new_random_transforms_draw_the_same_with_any_worker_count():
    images = RNG.integers(0, 256, (40, 16, 16, 3), dtype=np.uint8)
    ops = [vision.RandAugment(), vision.RandomAffine(20, (-0.1, 0.1)), vision.RandomPerspective(),
           vision.RandomSolarize(), vision.TrivialAugmentWide(), vision.RandomLighting(),
           vision.UniformAugment([vision.RandomInvert(), vision.Equalize()])]

    def run(workers):
        ds.config.set_seed(3)
        data = ds.NumpySlicesDataset(images, ["image"], shuffle=False).map(
            ops, "image", num_parallel_workers=workers)
        return [row[0] for row in data.create_tuple_iterator(output_numpy=True)]

    one, two = run(1), run(2)
    assert all(np.array_equal(a, b) for a, b in zip(one, two)) and len(two) == 40
