"""dataset.vision on HWC uint8 images against numpy / Pillow references (exact for the
geometric ones on integer images)."""
import colorsys
import io

import numpy as np
import pytest
from PIL import Image

import minispore.dataset as ds
import minispore.dataset.vision as vision

RNG = np.random.default_rng(3)
IMAGE = RNG.integers(0, 256, (6, 8, 3), dtype=np.uint8)


def png_bytes(array, mode=None):
    buffer = io.BytesIO()
    Image.fromarray(array, mode).save(buffer, "PNG")
    return np.frombuffer(buffer.getvalue(), np.uint8)


def draws(op, image, n=40):
    ds.config.set_seed(11)
    return [op(image) for _ in range(n)]


def test_decode_png_to_rgb_and_its_errors():
    np.testing.assert_array_equal(vision.Decode()(png_bytes(IMAGE)), IMAGE)
    gray = IMAGE[..., 0]
    decoded = vision.Decode()(png_bytes(gray, "L").tobytes())
    assert decoded.shape == (6, 8, 3) and (decoded == gray[..., None]).all()
    assert isinstance(vision.Decode(to_pil=True)(png_bytes(IMAGE)), Image.Image)
    with pytest.raises(RuntimeError, match="cannot decode the 10 bytes"):
        vision.Decode()(np.arange(10, dtype=np.uint8))
    truncated = png_bytes(IMAGE)[:60]
    with pytest.raises(RuntimeError, match="Decode: cannot decode"):
        vision.Decode()(truncated)
    with pytest.raises(TypeError, match="already decoded"):
        vision.Decode()(IMAGE)


def test_crops_and_flips_are_exact():
    np.testing.assert_array_equal(vision.Crop((1, 2), (3, 4))(IMAGE), IMAGE[1:4, 2:6])
    np.testing.assert_array_equal(vision.CenterCrop((3, 5))(IMAGE), IMAGE[1:4, 1:6])
    padded = vision.CenterCrop(10)(IMAGE)  # larger than the image: zero borders
    assert padded.shape == (10, 10, 3) and (padded[2:8, 1:9] == IMAGE).all()
    assert padded[:2].sum() == 0 and padded[:, 9].sum() == 0
    np.testing.assert_array_equal(vision.HorizontalFlip()(IMAGE), IMAGE[:, ::-1])
    np.testing.assert_array_equal(vision.VerticalFlip()(IMAGE), IMAGE[::-1])
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(1.0)(IMAGE), IMAGE[:, ::-1])
    np.testing.assert_array_equal(vision.RandomVerticalFlip(0.0)(IMAGE), IMAGE)
    flips = draws(vision.RandomHorizontalFlip(), IMAGE)
    assert {np.array_equal(f, IMAGE[:, ::-1]) for f in flips} == {True, False}
    np.testing.assert_array_equal(vision.HWC2CHW()(IMAGE), IMAGE.transpose(2, 0, 1))
    assert vision.HWC2CHW()(IMAGE[..., 0]).shape == (6, 8)


def test_random_crop_picks_every_window_of_the_padded_image():
    op = vision.RandomCrop((4, 5), padding=(1, 2, 3, 0), fill_value=(9, 8, 7))
    padded = np.stack([np.pad(IMAGE[..., c], ((2, 0), (1, 3)), constant_values=v)
                       for c, v in enumerate((9, 8, 7))], axis=-1)  # 8 x 12
    windows = {(top, left) for top in range(8 - 4 + 1) for left in range(12 - 5 + 1)}
    seen = set()
    for crop in draws(op, IMAGE, 400):
        match = [(top, left) for top, left in windows
                 if np.array_equal(padded[top:top + 4, left:left + 5], crop)]
        assert match, "the crop is not a window of the padded image"
        seen.add(match[0])
    assert len(seen) > 0.9 * len(windows)
    grown = vision.RandomCrop(9, pad_if_needed=True, padding_mode=vision.Border.EDGE)(IMAGE)
    assert grown.shape == (9, 9, 3)
    with pytest.raises(ValueError, match="smaller than the crop 9x9"):
        vision.RandomCrop(9)(IMAGE)


@pytest.mark.parametrize("mode", list(vision.Border))
def test_pad_modes_match_numpy(mode):
    got = vision.Pad((1, 2, 3, 1), fill_value=5, padding_mode=mode)(IMAGE)
    kwargs = {"constant_values": 5} if mode is vision.Border.CONSTANT else {}
    want = np.pad(IMAGE, ((2, 1), (1, 3), (0, 0)), mode=mode.value, **kwargs)
    np.testing.assert_array_equal(got, want)


def test_resize_nearest_matches_a_numpy_reference_and_bilinear_matches_pillow():
    def nearest(image, h, w):  # Pillow's rule: the source pixel under the target's center
        rows = np.floor((np.arange(h) + 0.5) * image.shape[0] / h).astype(int)
        cols = np.floor((np.arange(w) + 0.5) * image.shape[1] / w).astype(int)
        return image[rows][:, cols]

    for h, w in [(3, 4), (12, 5), (6, 16)]:
        np.testing.assert_array_equal(
            vision.Resize((h, w), vision.Inter.NEAREST)(IMAGE), nearest(IMAGE, h, w))
    bilinear = vision.Resize((4, 5))(IMAGE)
    pil = np.asarray(Image.fromarray(IMAGE).resize((5, 4), Image.Resampling.BILINEAR))
    np.testing.assert_array_equal(bilinear, pil)
    as_float = vision.Resize((4, 5))(IMAGE.astype(np.float32))  # per channel, Pillow "F"
    assert as_float.dtype == np.float32 and np.abs(as_float - bilinear).max() <= 1
    assert vision.Resize(3)(IMAGE).shape == (3, 4, 3)  # the smaller edge (6) becomes 3
    assert vision.Resize(4)(IMAGE[:, :3]).shape == (8, 4, 3)
    two_channels = vision.Resize((3, 4), vision.Inter.NEAREST)(IMAGE[..., :2])
    np.testing.assert_array_equal(two_channels, nearest(IMAGE[..., :2], 3, 4))
    resized_pil = vision.Resize((3, 4))(Image.fromarray(IMAGE))
    assert isinstance(resized_pil, Image.Image) and resized_pil.size == (4, 3)


def test_rotation_by_right_angles_is_exact():
    square = IMAGE[:, :6]
    np.testing.assert_array_equal(vision.Rotate(90)(square), np.rot90(square))
    np.testing.assert_array_equal(vision.Rotate(180)(IMAGE), IMAGE[::-1, ::-1])
    np.testing.assert_array_equal(vision.Rotate(90, expand=True)(IMAGE), np.rot90(IMAGE))
    np.testing.assert_array_equal(vision.RandomRotation((90, 90))(square), np.rot90(square))
    turned = vision.Rotate(45, fill_value=(1, 2, 3))(np.zeros((9, 9, 3), np.uint8) + 200)
    assert (turned[0, 0] == [1, 2, 3]).all() and (turned[4, 4] == 200).all()
    angles = draws(vision.RandomRotation(30, vision.Inter.BILINEAR), IMAGE, 10)
    assert len({a.tobytes() for a in angles}) > 5


def test_random_resized_crop():
    square = np.ascontiguousarray(IMAGE[:, :6])
    whole = vision.RandomResizedCrop(3, scale=(1.0, 1.0), ratio=(1.0, 1.0))(square)
    np.testing.assert_array_equal(whole, vision.Resize((3, 3))(square))
    crops = draws(vision.RandomResizedCrop((4, 3), scale=(0.1, 0.5)), IMAGE, 20)
    assert all(c.shape == (4, 3, 3) for c in crops) and len({c.tobytes() for c in crops}) > 10
    fallback = vision.RandomResizedCrop(2, scale=(2.0, 3.0), ratio=(1.0, 1.0),
                                        interpolation=vision.Inter.NEAREST)(IMAGE)
    np.testing.assert_array_equal(fallback, vision.Resize((2, 2), vision.Inter.NEAREST)(
        IMAGE[:, 1:7]))  # no attempt fits: the central crop with the ratio clamped


def test_rescale_normalize_to_tensor():
    np.testing.assert_allclose(vision.Rescale(1 / 255, -0.5)(IMAGE),
                               IMAGE / 255 - 0.5, rtol=1e-6, atol=1e-6)
    mean, std = [120.0, 110.0, 100.0], [50.0, 60.0, 70.0]
    got = vision.Normalize(mean, std)(IMAGE)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, (IMAGE - np.array(mean)) / np.array(std), rtol=1e-5)
    chw = vision.Normalize(mean, std, is_hwc=False)(IMAGE.transpose(2, 0, 1))
    np.testing.assert_allclose(chw, got.transpose(2, 0, 1), rtol=1e-6)
    with pytest.raises(RuntimeError, match="3 mean/std values for an image with 2 channels"):
        vision.Normalize(mean, std)(IMAGE[..., :2])
    tensor = vision.ToTensor()(IMAGE)
    assert tensor.dtype == np.float32
    np.testing.assert_allclose(tensor, IMAGE.transpose(2, 0, 1) / 255, rtol=1e-6)
    assert vision.ToTensor()(Image.fromarray(IMAGE[..., 0])).shape == (1, 6, 8)


def test_color_adjustments_match_their_formulas():
    image = IMAGE.astype(np.float64)
    gray = image @ [0.299, 0.587, 0.114]
    checks = [(vision.AdjustBrightness(1.6), image * 1.6),
              (vision.AdjustContrast(0.5), gray.mean() + 0.5 * (image - gray.mean())),
              (vision.AdjustSaturation(0.3), gray[..., None] + 0.3 * (image - gray[..., None]))]
    for op, formula in checks:
        want = np.clip(formula, 0, 255)
        assert np.abs(op(IMAGE).astype(np.float64) - want).max() <= 1.5, type(op).__name__
    np.testing.assert_array_equal(vision.AdjustGamma(1.0)(IMAGE), IMAGE)
    assert np.abs(vision.AdjustGamma(2.0)(IMAGE) - 255 * (image / 255) ** 2).max() <= 0.5
    gray_image = vision.Grayscale()(IMAGE)
    assert gray_image.shape == (6, 8) and np.abs(gray_image - gray).max() <= 0.51
    assert vision.Grayscale(3)(IMAGE).shape == (6, 8, 3)
    np.testing.assert_array_equal(vision.Invert()(IMAGE), 255 - IMAGE)


def test_hue_shift_matches_colorsys():
    pixels = np.array([[[255, 0, 0], [30, 200, 90], [12, 34, 250]]], np.uint8)
    shifted = vision.AdjustHue(0.25)(pixels)[0]
    for before, after in zip(pixels[0], shifted):
        h, s, v = colorsys.rgb_to_hsv(*(before / 255))
        want = np.array(colorsys.hsv_to_rgb((h + 0.25) % 1, s, v)) * 255
        assert np.abs(after - want).max() <= 4  # Pillow's 8-bit HSV
    np.testing.assert_array_equal(vision.AdjustHue(0.0)(IMAGE), IMAGE)


def test_random_color_adjust():
    np.testing.assert_array_equal(vision.RandomColorAdjust(brightness=(1.6, 1.6))(IMAGE),
                                  vision.AdjustBrightness(1.6)(IMAGE))
    np.testing.assert_array_equal(vision.RandomColorAdjust()(IMAGE), IMAGE)  # all identities
    jittered = draws(vision.RandomColorAdjust(0.4, 0.4, 0.4, 0.1), IMAGE, 10)
    assert len({j.tobytes() for j in jittered}) == 10
    with pytest.raises(ValueError, match="hue"):
        vision.RandomColorAdjust(hue=0.7)


def test_cutout_and_random_erasing():
    image = np.full((10, 12, 3), 200, np.uint8)
    for out in draws(vision.CutOut(3, num_patches=2), image, 20):
        zero = (out == 0).all(axis=2)
        assert 9 <= zero.sum() <= 18 and ((out == 0) | (out == 200)).all()
    chw = np.ones((3, 10, 12), np.float32)
    erased = [vision.RandomErasing(prob=1.0, value=(0, 0, 0))(chw) for _ in range(10)]
    for out in erased:
        rows, cols = np.nonzero(out[0] == 0)
        area = (rows.max() - rows.min() + 1) * (cols.max() - cols.min() + 1)
        assert len(rows) == area and 0.02 * 120 - 1 <= area <= 0.33 * 120 + 3  # a rectangle
    assert chw.min() == 1  # not in place by default
    np.testing.assert_array_equal(vision.RandomErasing(prob=0.0)(chw), chw)


def one_hot_batch(n=4, classes=4):
    images = np.arange(n, dtype=np.float32)[:, None, None, None] * 10 + np.zeros((n, 4, 4, 3))
    return images.astype(np.uint8), np.eye(classes, dtype=np.float32)[:n]


def test_mixup_batch_mixes_images_and_labels_alike():
    images, labels = one_hot_batch()
    ds.config.set_seed(2)
    mixed, soft = vision.MixUpBatch(alpha=0.5)(images, labels)
    np.testing.assert_allclose(soft.sum(axis=1), 1, rtol=1e-6)
    expected = (soft @ (np.arange(4) * 10.0))  # each image is the label-weighted blend
    assert np.abs(mixed[:, 0, 0, 0] - expected).max() <= 1
    single_images, single_labels = vision.MixUp(4, 0.5)(images.astype(np.float32), labels)
    lam = single_labels[np.arange(4), np.arange(4)]
    np.testing.assert_allclose(single_labels[np.arange(4), (np.arange(4) + 1) % 4], 1 - lam,
                               rtol=1e-6)
    np.testing.assert_allclose(single_images[:, 0, 0, 0],
                               lam * np.arange(4) * 10 + (1 - lam) * np.roll(np.arange(4), -1) * 10,
                               rtol=1e-5)
    with pytest.raises(RuntimeError, match="one-hot labels"):
        vision.MixUpBatch()(images, np.arange(4))


def test_cutmix_labels_follow_the_pasted_area():
    images, labels = one_hot_batch()
    ds.config.set_seed(4)
    for fmt, batch in [(vision.ImageBatchFormat.NHWC, images),
                       (vision.ImageBatchFormat.NCHW, images.transpose(0, 3, 1, 2))]:
        out, soft = vision.CutMixBatch(fmt, alpha=1.0)(batch, labels)
        out = out if fmt is vision.ImageBatchFormat.NHWC else out.transpose(0, 2, 3, 1)
        for i in range(4):
            own = (out[i, ..., 0] == i * 10).mean()
            assert soft[i, i] == pytest.approx(own, abs=1e-6)
        np.testing.assert_allclose(soft.sum(axis=1), 1, rtol=1e-6)


def test_auto_augment_operations_match_numpy():
    from minispore.dataset.vision.autoaugment import _OPERATIONS
    pil = Image.fromarray(IMAGE)

    def run(name, magnitude):
        return np.asarray(_OPERATIONS[name](pil, magnitude, Image.Resampling.NEAREST, (1, 2, 3)))

    np.testing.assert_array_equal(run("Posterize", 4), IMAGE & 0xF0)
    np.testing.assert_array_equal(run("Solarize", 128), np.where(IMAGE >= 128, 255 - IMAGE, IMAGE))
    np.testing.assert_array_equal(run("Invert", 0), 255 - IMAGE)
    shifted = run("TranslateX", 2 / 8)  # 2 pixels to the right, filled on the left
    np.testing.assert_array_equal(shifted[:, 2:], IMAGE[:, :-2])
    assert (shifted[:, :2] == [1, 2, 3]).all()
    down = run("TranslateY", -1 / 6)  # 1 pixel up
    np.testing.assert_array_equal(down[:-1], IMAGE[1:])
    sheared = run("ShearX", 1.0)  # about the center: pixel centers at y + 0.5 - H / 2 = 0 stay
    np.testing.assert_array_equal(sheared[2], IMAGE[2])
    np.testing.assert_array_equal(sheared[4, :6], IMAGE[4, 2:])


def test_auto_augment_policies():
    for policy in vision.AutoAugmentPolicy:
        op = vision.AutoAugment(policy, fill_value=(9, 9, 9))
        outputs = draws(op, IMAGE, 30)
        assert all(o.shape == IMAGE.shape and o.dtype == np.uint8 for o in outputs)
        assert sum(not np.array_equal(o, IMAGE) for o in outputs) > 15
        assert all(np.array_equal(a, b) for a, b in zip(outputs, draws(op, IMAGE, 30)))
    with pytest.raises(RuntimeError, match="RGB uint8"):
        vision.AutoAugment()(IMAGE[..., 0])
