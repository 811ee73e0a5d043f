"""Sources reading the standard formats (files written here), samplers and sharding."""
import os

import numpy as np
import pytest
from data_helpers import column, rows, write_idx, write_image_folder

import minispore.dataset as ds


@pytest.fixture(scope="module")
def mnist_dir(tmp_path_factory):
    """A tiny MNIST: 5 training images (plain files), 3 test images (gzipped)."""
    root = str(tmp_path_factory.mktemp("mnist"))
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (8, 28, 28), dtype=np.uint8)
    labels = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.uint8)
    write_idx(os.path.join(root, "train-images-idx3-ubyte"), images[:5])
    write_idx(os.path.join(root, "train-labels-idx1-ubyte"), labels[:5])
    write_idx(os.path.join(root, "t10k-images-idx3-ubyte"), images[5:], compress=True)
    write_idx(os.path.join(root, "t10k-labels-idx1-ubyte"), labels[5:], compress=True)
    return root, images, labels


def test_mnist_round_trip_plain_and_gzipped(mnist_dir):
    root, images, labels = mnist_dir
    train = ds.MnistDataset(root, usage="train", shuffle=False)
    assert train.get_col_names() == ["image", "label"] and train.get_dataset_size() == 5
    (image, label), *_ = train.create_tuple_iterator(output_numpy=True)
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8 and label.dtype == np.uint32
    everything = rows(ds.MnistDataset(root, shuffle=False))  # usage None: train, then test
    assert [r[1] for r in everything] == labels.tolist()
    assert all(np.array_equal(np.array(r[0])[..., 0], want) for r, want in zip(everything, images))
    assert column(ds.FashionMnistDataset(root, usage="test", shuffle=False), 1) == [9, 2, 6]


def test_mnist_errors_name_the_file(mnist_dir, tmp_path):
    with pytest.raises(ValueError, match="has no file t10k-images-idx3-ubyte"):
        ds.MnistDataset(str(tmp_path), usage="test")
    with pytest.raises(ValueError, match="usage must be one of"):
        ds.MnistDataset(mnist_dir[0], usage="valid")
    write_idx(str(tmp_path / "train-images-idx3-ubyte"), np.zeros((2, 4, 4)))
    write_idx(str(tmp_path / "train-labels-idx1-ubyte"), np.zeros((3,)))
    with pytest.raises(RuntimeError, match="holds 2 images but .* 3 labels"):
        ds.MnistDataset(str(tmp_path), usage="train")
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(b"\x00\x00\x08\x03" + b"\x00" * 8)
    with pytest.raises(RuntimeError, match="not an idx-ubyte file of 1 dimension"):
        ds.MnistDataset(str(tmp_path), usage="train")


def test_cifar10_and_cifar100_binary_round_trip(tmp_path):
    rng = np.random.default_rng(1)
    chw = rng.integers(0, 256, (5, 3, 32, 32), dtype=np.uint8)
    labels = np.array([7, 0, 3, 9, 1], np.uint8)
    records = np.concatenate([labels[:, None], chw.reshape(5, -1)], axis=1)
    records[:3].tofile(tmp_path / "data_batch_1.bin")
    records[3:4].tofile(tmp_path / "data_batch_2.bin")
    records[4:].tofile(tmp_path / "test_batch.bin")
    train = ds.Cifar10Dataset(str(tmp_path), usage="train", shuffle=False)
    got = rows(train)
    assert train.get_dataset_size() == 4 and [r[1] for r in got] == [7, 0, 3, 9]
    assert np.array_equal(got[1][0], chw[1].transpose(1, 2, 0))  # HWC
    assert column(ds.Cifar10Dataset(str(tmp_path), usage="test"), 1) == [1]

    fine_coarse = np.concatenate([labels[:, None] % 5, labels[:, None] * 10, chw.reshape(5, -1)], 1)
    fine_coarse.tofile(tmp_path / "train.bin")
    c100 = ds.Cifar100Dataset(str(tmp_path), usage="train", shuffle=False)
    assert c100.get_col_names() == ["image", "coarse_label", "fine_label"]
    assert rows(c100)[3][1:] == [4, 90]
    (tmp_path / "test.bin").write_bytes(b"\x00" * 100)
    with pytest.raises(RuntimeError, match="not a multiple of the 3074-byte record"):
        ds.Cifar100Dataset(str(tmp_path), usage="test")


def test_image_folder_labels_decoding_and_class_indexing(tmp_path):
    images = write_image_folder(str(tmp_path), per_class=2)
    (tmp_path / "dog" / "notes.txt").write_text("not an image")
    data = ds.ImageFolderDataset(str(tmp_path), shuffle=False, extensions=[".png"])
    assert data.get_dataset_size() == 4 and data.num_classes() == 2
    assert data.get_class_indexing() == {"cat": 0, "dog": 1}
    raw, label = next(iter(data.create_tuple_iterator(output_numpy=True)))
    assert raw.ndim == 1 and raw.dtype == np.uint8 and label.dtype == np.int32
    assert raw.tobytes() == (tmp_path / "cat" / "0.png").read_bytes()
    decoded = rows(ds.ImageFolderDataset(str(tmp_path), shuffle=False, decode=True,
                                         extensions=[".PNG"]))
    paths = sorted(images)  # cat/0, cat/1, dog/0, dog/1
    assert all(np.array_equal(r[0], images[p]) for r, p in zip(decoded, paths))
    assert [r[1] for r in decoded] == [0, 0, 1, 1]
    only_dogs = ds.ImageFolderDataset(str(tmp_path), class_indexing={"dog": 5},
                                      extensions=[".png"])
    assert sorted(column(only_dogs, 1)) == [5, 5]
    assert ds.ImageFolderDataset(str(tmp_path)).get_dataset_size() == 5  # every file


def test_csv_types_header_defaults_and_errors(tmp_path):
    (tmp_path / "a.csv").write_text("name,age,score\nann,31,1.5\nbob,,2.25\n")
    (tmp_path / "b.csv").write_text("name,age,score\ncid,7,0.5\n")
    typed = ds.CSVDataset(str(tmp_path / "*.csv"), column_defaults=["", 0, 0.0], shuffle=False)
    assert typed.get_col_names() == ["name", "age", "score"]
    got = rows(typed)
    assert got == [["ann", 31, 1.5], ["bob", 0, 2.25], ["cid", 7, 0.5]]
    name, age, score = next(iter(typed.create_tuple_iterator(output_numpy=True)))
    assert name.dtype.kind == "U" and age.dtype == np.int32 and score.dtype == np.float32
    plain = ds.CSVDataset([str(tmp_path / "b.csv")], column_names=["n", "a", "s"],
                          shuffle=False)
    assert rows(plain) == [["name", "age", "score"], ["cid", "7", "0.5"]]  # no header: data
    (tmp_path / "bad.csv").write_text("x;y\n1;2;3\n")
    with pytest.raises(RuntimeError, match="bad.csv:2 has 3 field"):
        rows(ds.CSVDataset(str(tmp_path / "bad.csv"), field_delim=";"))
    with pytest.raises(ValueError, match="no file matches"):
        ds.CSVDataset(str(tmp_path / "missing*.csv"))


def test_text_file_lines_and_file_shuffle_modes(tmp_path):
    (tmp_path / "1.txt").write_text("alpha\nbeta\n\ngamma\n")
    (tmp_path / "2.txt").write_text("delta\r\nepsilon\n")
    files = [str(tmp_path / "2.txt"), str(tmp_path / "1.txt")]  # read in sorted order
    lines = ["alpha", "beta", "gamma", "delta", "epsilon"]
    assert column(ds.TextFileDataset(files, shuffle=False)) == lines
    shuffled = column(ds.TextFileDataset(files))  # Shuffle.GLOBAL
    assert sorted(shuffled) == sorted(lines)
    by_file = column(ds.TextFileDataset(files, shuffle=ds.Shuffle.FILES))
    assert by_file in (lines, lines[3:] + lines[:3])
    in_file = column(ds.TextFileDataset(files, shuffle=ds.Shuffle.INFILE))
    assert sorted(in_file[:3]) == lines[:3] and sorted(in_file[3:]) == lines[3:]


def test_random_dataset_schema_and_reproducibility():
    schema = ds.Schema()
    schema.add_column("image", de_type="uint8", shape=[2, 3])
    schema.add_column("score", de_type="float32", shape=[1])
    data = ds.RandomDataset(total_rows=6, schema=schema, shuffle=False)
    got = list(data.create_tuple_iterator(output_numpy=True))
    assert len(got) == 6 and got[0][0].shape == (2, 3) and got[0][1].dtype == np.float32
    assert all(0 <= r[1][0] < 1 for r in got)
    again = list(ds.RandomDataset(total_rows=6, schema=schema, shuffle=False)
                 .create_tuple_iterator(output_numpy=True))
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(got, again))
    free = ds.RandomDataset(total_rows=3)
    assert 1 <= len(free.get_col_names()) <= 4 and free.get_dataset_size() == 3


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("total", [12, 10])
def test_shards_cover_the_data(total, shuffle):
    shards = [column(ds.NumpySlicesDataset(np.arange(total), ["n"], shuffle=shuffle,
                                           num_shards=3, shard_id=i)) for i in range(3)]
    assert {len(s) for s in shards} == {-(-total // 3)}  # equal sizes: ranks stay in step
    everything = sorted(n for s in shards for n in s)
    if total % 3 == 0:
        assert everything == list(range(total))  # exactly once
    else:
        assert set(everything) == set(range(total))  # the last shards wrap to the first rows
        assert len(everything) - total == 3 - total % 3


def test_shards_of_files_and_images(tmp_path, mnist_dir):
    write_image_folder(str(tmp_path), per_class=3)
    labels = [column(ds.ImageFolderDataset(str(tmp_path), num_shards=2, shard_id=i), 1)
              for i in range(2)]
    assert sorted(labels[0] + labels[1]) == [0, 0, 0, 1, 1, 1]
    parts = [column(ds.MnistDataset(mnist_dir[0], usage="train", num_shards=5, shard_id=i), 1)
             for i in range(5)]
    assert sorted(sum(parts, [])) == sorted(mnist_dir[2][:5].tolist())


def test_samplers():
    def picks(sampler):
        return column(ds.NumpySlicesDataset(np.arange(10), ["n"], sampler=sampler))

    assert picks(ds.SequentialSampler(start_index=7)) == [7, 8, 9]
    assert picks(ds.SubsetSampler([4, 2, 2])) == [4, 2, 2]
    assert sorted(picks(ds.SubsetRandomSampler([1, 5, 8]))) == [1, 5, 8]
    assert len(set(picks(ds.RandomSampler(num_samples=4)))) == 4
    assert set(picks(ds.WeightedRandomSampler([0, 0, 1] + [0] * 7, num_samples=5))) == {2}
    assert picks([9, 0]) == [9, 0]  # any iterable of indices
    assert picks(ds.DistributedSampler(2, 1, shuffle=False)) == [1, 3, 5, 7, 9]
    with pytest.raises(ValueError, match="either sampler or shuffle"):
        ds.NumpySlicesDataset(np.arange(3), ["n"], sampler=ds.SequentialSampler(), shuffle=True)
    with pytest.raises(ValueError, match="num_shards and shard_id go together"):
        ds.NumpySlicesDataset(np.arange(3), ["n"], num_shards=2)
    with pytest.raises(ValueError, match="shard_id must be in"):
        ds.NumpySlicesDataset(np.arange(3), ["n"], num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match="row index 12 is out of range"):
        picks(ds.SubsetSampler([12]))
