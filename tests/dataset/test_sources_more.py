"""More sources on tiny fixtures of their real on-disk formats (written here): columns, dtypes,
values, usage splits, num_samples, shuffle repeatability and sharding."""
import bz2
import os

import numpy as np
import pytest
from data_helpers import column, rows, write_idx
from PIL import Image

import minispore.dataset as ds


def _check_rows_picked(make, total):
    """num_samples, seeded shuffling (a permutation, the same twice) and 2 shards."""
    assert make(shuffle=False, num_samples=2).get_dataset_size() == min(2, total)
    in_order = rows(make(shuffle=False))
    ds.config.set_seed(5)
    first = rows(make(shuffle=True))
    ds.config.set_seed(5)
    assert rows(make(shuffle=True)) == first
    key = [repr(r) for r in in_order]
    assert sorted(repr(r) for r in first) == sorted(key)
    shards = [rows(make(num_shards=2, shard_id=i, shuffle=False)) for i in range(2)]
    assert [len(s) for s in shards] == [-(-total // 2)] * 2
    assert {repr(r) for s in shards for r in s} == set(key)


# ----- image datasets -----

def test_kmnist_and_emnist_read_idx_files(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (5, 28, 28), dtype=np.uint8)
    labels = np.array([1, 2, 3, 4, 5], np.uint8)
    write_idx(str(tmp_path / "train-images-idx3-ubyte"), images[:3])
    write_idx(str(tmp_path / "train-labels-idx1-ubyte"), labels[:3])
    write_idx(str(tmp_path / "t10k-images-idx3-ubyte"), images[3:])
    write_idx(str(tmp_path / "t10k-labels-idx1-ubyte"), labels[3:])
    kmnist = ds.KMnistDataset(str(tmp_path), usage="test", shuffle=False)
    assert kmnist.get_col_names() == ["image", "label"] and column(kmnist, 1) == [4, 5]
    _check_rows_picked(lambda **kw: ds.KMnistDataset(str(tmp_path), **kw), 5)

    write_idx(str(tmp_path / "emnist-letters-train-images-idx3-ubyte"), images[:4], compress=True)
    write_idx(str(tmp_path / "emnist-letters-train-labels-idx1-ubyte"), labels[:4], compress=True)
    write_idx(str(tmp_path / "emnist-letters-test-images-idx3-ubyte"), images[4:])
    write_idx(str(tmp_path / "emnist-letters-test-labels-idx1-ubyte"), labels[4:])
    emnist = ds.EMnistDataset(str(tmp_path), name="letters", usage="train", shuffle=False)
    (image, label), *_ = emnist.create_tuple_iterator(output_numpy=True)
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8 and label.dtype == np.uint32
    assert np.array_equal(image[..., 0], images[0]) and emnist.num_classes() == 26
    assert column(ds.EMnistDataset(str(tmp_path), "letters", shuffle=False), 1) == [1, 2, 3, 4, 5]
    with pytest.raises(ValueError, match="name must be one of"):
        ds.EMnistDataset(str(tmp_path), name="cursive")
    with pytest.raises(ValueError, match="has no file emnist-digits-train"):
        ds.EMnistDataset(str(tmp_path), name="digits", usage="train")


def _write_int_idx(path, array):
    header = (0x0C02).to_bytes(4, "big") + b"".join(int(d).to_bytes(4, "big")
                                                    for d in array.shape)
    with open(path, "wb") as f:
        f.write(header + array.astype(">i4").tobytes())


def test_qmnist_usages_and_compat(tmp_path):
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, (4, 28, 28), dtype=np.uint8)
    labels = np.arange(32).reshape(4, 8)
    write_idx(str(tmp_path / "qmnist-train-images-idx3-ubyte"), images[:3])
    _write_int_idx(str(tmp_path / "qmnist-train-labels-idx2-int"), labels[:3])
    write_idx(str(tmp_path / "qmnist-test-images-idx3-ubyte"), images[3:])
    _write_int_idx(str(tmp_path / "qmnist-test-labels-idx2-int"), labels[3:])
    train = ds.QMnistDataset(str(tmp_path), usage="train", shuffle=False)
    assert column(train, 1) == [0, 8, 16]
    full = rows(ds.QMnistDataset(str(tmp_path), usage="test", compat=False, shuffle=False))
    assert full[0][1] == list(range(24, 32))
    assert ds.QMnistDataset(str(tmp_path), usage="test50k").get_dataset_size() == 0
    assert ds.QMnistDataset(str(tmp_path)).get_dataset_size() == 4
    _check_rows_picked(lambda **kw: ds.QMnistDataset(str(tmp_path), **kw), 4)
    with pytest.raises(ValueError, match="usage must be one of"):
        ds.QMnistDataset(str(tmp_path), usage="valid")


def test_fake_image_dataset_is_seeded():
    fake = ds.FakeImageDataset(num_images=6, image_size=(4, 5, 3), num_classes=3, base_seed=2,
                               shuffle=False)
    got = rows(fake)
    assert len(got) == 6 and np.asarray(got[0][0]).shape == (4, 5, 3)
    assert all(0 <= r[1] < 3 for r in got) and fake.num_classes() == 3
    assert rows(ds.FakeImageDataset(6, (4, 5, 3), 3, base_seed=2, shuffle=False)) == got
    assert rows(ds.FakeImageDataset(6, (4, 5, 3), 3, base_seed=3, shuffle=False)) != got
    image, label = next(iter(fake.create_tuple_iterator(output_numpy=True)))
    assert image.dtype == np.uint8 and label.dtype == np.uint32
    _check_rows_picked(lambda **kw: ds.FakeImageDataset(5, (2, 2, 1), 4, **kw), 5)


def test_svhn_reads_mat_files(tmp_path):
    scipy_io = pytest.importorskip("scipy.io")
    rng = np.random.default_rng(2)
    x = rng.integers(0, 256, (32, 32, 3, 3), dtype=np.uint8)
    scipy_io.savemat(str(tmp_path / "train_32x32.mat"), {"X": x, "y": np.array([[10], [1], [2]])})
    scipy_io.savemat(str(tmp_path / "test_32x32.mat"), {"X": x[..., :1], "y": np.array([[7]])})
    train = ds.SVHNDataset(str(tmp_path), usage="train", shuffle=False)
    got = list(train.create_tuple_iterator(output_numpy=True))
    assert [int(r[1]) for r in got] == [0, 1, 2] and got[0][1].dtype == np.uint32
    assert np.array_equal(got[1][0], x[..., 1]) and got[1][0].shape == (32, 32, 3)
    assert column(ds.SVHNDataset(str(tmp_path), usage="test"), 1) == [7]
    with pytest.raises(ValueError, match="no file extra_32x32.mat"):
        ds.SVHNDataset(str(tmp_path))
    _check_rows_picked(lambda **kw: ds.SVHNDataset(str(tmp_path), "train", **kw), 3)


def test_stl10_binary_column_major(tmp_path):
    rng = np.random.default_rng(3)
    hwc = rng.integers(0, 256, (3, 96, 96, 3), dtype=np.uint8)
    hwc.transpose(0, 3, 2, 1)[:2].tofile(tmp_path / "train_X.bin")  # N, C, W, H as stored
    np.array([1, 10], np.uint8).tofile(tmp_path / "train_y.bin")
    hwc.transpose(0, 3, 2, 1)[2:].tofile(tmp_path / "unlabeled_X.bin")
    train = list(ds.STL10Dataset(str(tmp_path), usage="train", shuffle=False)
                 .create_tuple_iterator(output_numpy=True))
    assert np.array_equal(train[1][0], hwc[1]) and [int(r[1]) for r in train] == [0, 9]
    assert train[0][1].dtype == np.int32
    assert column(ds.STL10Dataset(str(tmp_path), usage="train+unlabeled", shuffle=False),
                  1) == [0, 9, -1]
    with pytest.raises(ValueError, match="no file test_X.bin"):
        ds.STL10Dataset(str(tmp_path), usage="test")


def test_usps_bz2_libsvm(tmp_path):
    def line(label, values):
        return f"{label} " + " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(values)) + "\n"
    values = np.linspace(-1, 1, 256)
    with bz2.open(tmp_path / "usps.bz2", "wt") as f:
        f.write(line(3, values) + line(10, -values))
    with bz2.open(tmp_path / "usps.t.bz2", "wt") as f:
        f.write(line(1, np.zeros(256)))
    train = list(ds.USPSDataset(str(tmp_path), usage="train", shuffle=False)
                 .create_tuple_iterator(output_numpy=True))
    assert train[0][0].shape == (16, 16, 1) and train[0][0].dtype == np.uint8
    assert train[0][0][0, 0, 0] == 0 and train[0][0][15, 15, 0] == 255
    assert [int(r[1]) for r in train] == [2, 9] and train[0][1].dtype == np.uint32
    assert column(ds.USPSDataset(str(tmp_path), usage="test"), 1) == [0]
    _check_rows_picked(lambda **kw: ds.USPSDataset(str(tmp_path), **kw), 3)


def test_semeion_text(tmp_path):
    rng = np.random.default_rng(4)
    pixels = rng.integers(0, 2, (3, 256))
    onehot = np.eye(10)[[4, 0, 9]]
    np.savetxt(tmp_path / "semeion.data", np.concatenate([pixels, onehot], 1), fmt="%.4f")
    data = ds.SemeionDataset(str(tmp_path), shuffle=False)
    got = list(data.create_tuple_iterator(output_numpy=True))
    assert got[0][0].shape == (16, 16) and np.array_equal(got[2][0], pixels[2].reshape(16, 16) * 255)
    assert [int(r[1]) for r in got] == [4, 0, 9]
    _check_rows_picked(lambda **kw: ds.SemeionDataset(str(tmp_path), **kw), 3)


def _png(path, seed, size=(4, 6)):
    array = np.random.default_rng(seed).integers(0, 256, (*size, 3), dtype=np.uint8)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(array).save(path)
    return array


def test_caltech256_class_folders(tmp_path):
    a = _png(str(tmp_path / "001.ak47" / "001_0001.jpg.png"), 0)
    _png(str(tmp_path / "002.bat" / "002_0001.png"), 1)
    _png(str(tmp_path / "002.bat" / "002_0002.png"), 2)
    data = ds.Caltech256Dataset(str(tmp_path), decode=True, shuffle=False)
    got = list(data.create_tuple_iterator(output_numpy=True))
    assert [int(r[1]) for r in got] == [0, 1, 1] and data.num_classes() == 2
    assert np.array_equal(got[0][0], a)
    raw = next(iter(ds.Caltech256Dataset(str(tmp_path), shuffle=False)
                    .create_tuple_iterator(output_numpy=True)))[0]
    assert raw.ndim == 1 and raw.dtype == np.uint8  # the file's bytes
    _check_rows_picked(lambda **kw: ds.Caltech256Dataset(str(tmp_path), **kw), 3)


def test_celeba_attributes_and_partitions(tmp_path):
    names = [f"{i:06d}.png" for i in range(1, 4)]
    first = _png(str(tmp_path / names[0]), 0)
    for i, name in enumerate(names[1:], 1):
        _png(str(tmp_path / name), i)
    (tmp_path / "list_attr_celeba.txt").write_text(
        "3\nSmiling Young Male\n" + f"{names[0]}  1 -1 -1\n{names[1]} -1  1  1\n"
        f"{names[2]}  1  1 -1\n")
    (tmp_path / "list_eval_partition.txt").write_text(
        f"{names[0]} 0\n{names[1]} 1\n{names[2]} 0\n")
    data = ds.CelebADataset(str(tmp_path), shuffle=False, decode=True)
    assert data.get_col_names() == ["image", "attr"]
    got = list(data.create_tuple_iterator(output_numpy=True))
    assert got[0][1].dtype == np.uint32 and got[0][1].tolist() == [1, 0, 0]
    assert np.array_equal(got[0][0], first)
    assert column(ds.CelebADataset(str(tmp_path), usage="train", shuffle=False), 1) == [
        [1, 0, 0], [1, 1, 0]]
    assert column(ds.CelebADataset(str(tmp_path), usage="valid"), 1) == [[0, 1, 1]]
    _check_rows_picked(lambda **kw: ds.CelebADataset(str(tmp_path), **kw), 3)
