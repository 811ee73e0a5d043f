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
    assert got[0][0].shape == (16, 16)
    assert np.array_equal(got[2][0], pixels[2].reshape(16, 16) * 255)
    assert [int(r[1]) for r in got] == [4, 0, 9]
    _check_rows_picked(lambda **kw: ds.SemeionDataset(str(tmp_path), **kw), 3)


def _png(path, seed, size=(4, 6)):
    array = np.random.default_rng(seed).integers(0, 256, (*size, 3), dtype=np.uint8)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(array).save(path, format="PNG")  # lossless, whatever the file's name
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


# ----- text datasets -----

def _write(path, text):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


@pytest.mark.parametrize("api, columns", [
    ("AGNewsDataset", ["index", "title", "description"]),
    ("AmazonReviewDataset", ["label", "title", "content"]),
    ("DBpediaDataset", ["class", "title", "content"]),
    ("SogouNewsDataset", ["index", "title", "content"]),
    ("YahooAnswersDataset", ["class", "title", "content", "answer"]),
    ("YelpReviewDataset", ["label", "text"]),
])
def test_csv_corpora(tmp_path, api, columns):
    width = len(columns)

    def line(n):
        return ",".join(f'"{n}-{i}, ""q"""' if i else f'"{n}"' for i in range(width)) + "\n"
    _write(tmp_path / "train.csv", line(1) + line(2) + line(3))
    _write(tmp_path / "test.csv", line(4))
    make = getattr(ds, api)
    train = make(str(tmp_path), usage="train", shuffle=False)
    assert train.get_col_names() == columns
    got = list(train.create_tuple_iterator(output_numpy=True))
    assert [str(r[0]) for r in got] == ["1", "2", "3"]
    assert str(got[1][width - 1]) == f'2-{width - 1}, "q"' and got[0][0].dtype.kind == "U"
    assert make(str(tmp_path), usage="test").get_dataset_size() == 1
    assert make(str(tmp_path)).get_dataset_size() == 4
    _check_rows_picked(lambda **kw: make(str(tmp_path), **kw), 4)
    ds.config.set_seed(1)
    files_order = column(make(str(tmp_path), shuffle=ds.Shuffle.FILES))
    assert files_order in (["4", "1", "2", "3"], ["1", "2", "3", "4"])
    _write(tmp_path / "test.csv", '"only one field"\n')
    with pytest.raises(RuntimeError, match="has 1 field"):
        rows(make(str(tmp_path), usage="test"))


def test_line_corpora(tmp_path):
    for part in ("train", "test", "valid"):
        _write(tmp_path / f"ptb.{part}.txt", f" {part} a <unk>\n {part} b\n")
        _write(tmp_path / f"wiki.{part}.tokens", f" = {part} =\n\n {part} text\n")
    ptb = ds.PennTreebankDataset(str(tmp_path), usage="train", shuffle=False)
    assert ptb.get_col_names() == ["text"] and column(ptb) == [" train a <unk>", " train b"]
    assert ds.PennTreebankDataset(str(tmp_path)).get_dataset_size() == 6
    wiki = ds.WikiTextDataset(str(tmp_path), usage="valid", shuffle=False)
    assert column(wiki) == [" = valid =", " valid text"]
    _check_rows_picked(lambda **kw: ds.WikiTextDataset(str(tmp_path), **kw), 6)
    with pytest.raises(ValueError, match="usage must be one of"):
        ds.WikiTextDataset(str(tmp_path), usage="dev")
    _write(tmp_path / "enwik9", "<mediawiki>\n  <page>\n</mediawiki>\n")
    assert column(ds.EnWik9Dataset(str(tmp_path), shuffle=False)) == [
        "<mediawiki>", "  <page>", "</mediawiki>"]
    _check_rows_picked(lambda **kw: ds.EnWik9Dataset(str(tmp_path), **kw), 3)


def test_sst2_tsv(tmp_path):
    _write(tmp_path / "train.tsv", "sentence\tlabel\nhide new secretions \t0\ngood fun \t1\n")
    _write(tmp_path / "dev.tsv", "sentence\tlabel\nit 's a charming journey . \t1\n")
    _write(tmp_path / "test.tsv", "index\tsentence\n0\tuneasy mishmash\n1\tsharp\n")
    train = ds.SST2Dataset(str(tmp_path), shuffle=False)  # usage None: train
    assert train.get_col_names() == ["sentence", "label"]
    assert rows(train) == [["hide new secretions ", "0"], ["good fun ", "1"]]
    test = ds.SST2Dataset(str(tmp_path), usage="test", shuffle=False)
    assert test.get_col_names() == ["sentence"] and column(test) == ["uneasy mishmash", "sharp"]
    assert ds.SST2Dataset(str(tmp_path), usage="dev").get_dataset_size() == 1
    _check_rows_picked(lambda **kw: ds.SST2Dataset(str(tmp_path), "test", **kw), 2)


def test_udpos_and_conll2000_sentences(tmp_path):
    _write(tmp_path / "en-ud-tag.v2.train.txt",
           "Al\tPROPN\tNNP\n-\tPUNCT\tHYPH\n\nThe\tDET\tDT\nend\tNOUN\tNN\n.\tPUNCT\t.\n")
    _write(tmp_path / "en-ud-tag.v2.dev.txt", "Hi\tINTJ\tUH\n")
    _write(tmp_path / "en-ud-tag.v2.test.txt", "Yes\tINTJ\tUH\n\n")
    train = ds.UDPOSDataset(str(tmp_path), usage="train", shuffle=False)
    assert train.get_col_names() == ["word", "universal", "stanford"]
    assert rows(train) == [[["Al", "-"], ["PROPN", "PUNCT"], ["NNP", "HYPH"]],
                           [["The", "end", "."], ["DET", "NOUN", "PUNCT"], ["DT", "NN", "."]]]
    assert ds.UDPOSDataset(str(tmp_path)).get_dataset_size() == 4
    assert column(ds.UDPOSDataset(str(tmp_path), usage="valid")) == [["Hi"]]
    _check_rows_picked(lambda **kw: ds.UDPOSDataset(str(tmp_path), **kw), 4)
    _write(tmp_path / "train.txt", "Confidence NN B-NP\nin IN B-PP\n\nHe PRP B-NP\n")
    _write(tmp_path / "test.txt", "Rockwell NNP B-NP\n")
    conll = ds.CoNLL2000Dataset(str(tmp_path), usage="train", shuffle=False)
    assert conll.get_col_names() == ["word", "pos_tag", "chunk_tag"]
    assert rows(conll)[0] == [["Confidence", "in"], ["NN", "IN"], ["B-NP", "B-PP"]]
    assert ds.CoNLL2000Dataset(str(tmp_path)).get_dataset_size() == 3
    _write(tmp_path / "test.txt", "Rockwell\n")
    with pytest.raises(RuntimeError, match="has 1 field"):
        rows(ds.CoNLL2000Dataset(str(tmp_path), usage="test"))


def test_multi30k_pairs(tmp_path):
    for part, n in (("train", 3), ("valid", 1), ("test", 1)):
        _write(tmp_path / f"{part}.en", "".join(f"{part} en {i}\n" for i in range(n)))
        _write(tmp_path / f"{part}.de", "".join(f"{part} de {i}\n" for i in range(n)))
    train = ds.Multi30kDataset(str(tmp_path), usage="train", shuffle=False)
    assert train.get_col_names() == ["text", "translation"]
    assert rows(train)[1] == ["train en 1", "train de 1"]
    assert rows(ds.Multi30kDataset(str(tmp_path), "test", ["de", "en"]))[0] == [
        "test de 0", "test en 0"]
    assert ds.Multi30kDataset(str(tmp_path)).get_dataset_size() == 5
    _check_rows_picked(lambda **kw: ds.Multi30kDataset(str(tmp_path), **kw), 5)
    with pytest.raises(ValueError, match="language_pair"):
        ds.Multi30kDataset(str(tmp_path), language_pair=["en", "fr"])


def test_squad_json(tmp_path):
    import json
    doc = {"version": "1.1", "data": [{"title": "T", "paragraphs": [
        {"context": "Paris is in France.", "qas": [
            {"id": "a", "question": "Where is Paris?",
             "answers": [{"text": "France", "answer_start": 12},
                         {"text": "in France", "answer_start": 9}]},
            {"id": "b", "question": "What?", "answers": [], "is_impossible": True}]}]}]}
    _write(tmp_path / "dev-v1.1.json", json.dumps(doc))
    _write(tmp_path / "train-v1.1.json", json.dumps(doc))
    dev = ds.SQuADDataset(str(tmp_path), usage="dev", shuffle=False)
    assert dev.get_col_names() == ["context", "question", "text", "answer_start"]
    got = list(dev.create_tuple_iterator(output_numpy=True))
    assert got[0][2].tolist() == ["France", "in France"] and got[0][3].dtype == np.uint32
    assert got[0][3].tolist() == [12, 9] and got[1][2].tolist() == [""]
    assert ds.SQuADDataset(str(tmp_path)).get_dataset_size() == 4
    _check_rows_picked(lambda **kw: ds.SQuADDataset(str(tmp_path), "dev", **kw), 2)


def test_clue_json_lines(tmp_path):
    _write(tmp_path / "train.json",
           '{"sentence1": "a", "sentence2": "b", "label": "0"}\n'
           '{"sentence1": "c", "sentence2": "d", "label": "1"}\n')
    _write(tmp_path / "test.json", '{"id": 7, "sentence1": "e", "sentence2": "f"}\n')
    train = ds.CLUEDataset(str(tmp_path / "train.json"), task="AFQMC", shuffle=False)
    assert train.get_col_names() == ["sentence1", "sentence2", "label"]
    assert rows(train) == [["a", "b", "0"], ["c", "d", "1"]]
    test = ds.CLUEDataset(str(tmp_path / "test.json"), task="AFQMC", usage="test")
    assert test.get_col_names() == ["id", "sentence1", "sentence2"]
    assert rows(test) == [[7, "e", "f"]]
    _write(tmp_path / "wsc.json", '{"target": {"span2_index": 5, "span1_index": 0, '
           '"span1_text": "x", "span2_text": "y"}, "idx": 3, "label": "true", "text": "t"}\n')
    wsc = rows(ds.CLUEDataset(str(tmp_path / "wsc.json"), task="WSC", usage="eval"))
    assert wsc == [[0, 5, "x", "y", 3, "true", "t"]]
    _check_rows_picked(lambda **kw: ds.CLUEDataset(str(tmp_path / "train.json"), **kw), 2)
    with pytest.raises(ValueError, match="task must be one of"):
        ds.CLUEDataset(str(tmp_path / "train.json"), task="OCNLI")


def test_imdb_folders(tmp_path):
    for part in ("train", "test"):
        for kind in ("pos", "neg"):
            for i in range(2 if part == "train" else 1):
                _write(tmp_path / part / kind / f"{i}_7.txt", f"{part} {kind} {i}")
    train = ds.IMDBDataset(str(tmp_path), usage="train", shuffle=False)
    assert train.get_col_names() == ["text", "label"]
    assert rows(train) == [["train pos 0", 1], ["train pos 1", 1], ["train neg 0", 0],
                           ["train neg 1", 0]]
    label = next(iter(train.create_tuple_iterator(output_numpy=True)))[1]
    assert label.dtype == np.uint32
    assert ds.IMDBDataset(str(tmp_path)).get_dataset_size() == 6
    _check_rows_picked(lambda **kw: ds.IMDBDataset(str(tmp_path), **kw), 6)


# ----- audio datasets -----

def _wav(path, samples, rate=8000, width=2, channels=1):
    """PCM WAV of float samples in [-1, 1) (shape (n,) or (n, channels))."""
    import wave
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    scaled = np.asarray(samples, np.float64) * 2 ** (8 * width - 1)
    data = (scaled + 128).astype(np.uint8) if width == 1 else scaled.astype(f"<i{width}")
    with wave.open(str(path), "wb") as f:
        f.setnchannels(channels)
        f.setsampwidth(width)
        f.setframerate(rate)
        f.writeframes(data.tobytes())


def test_read_wav_widths_and_channels(tmp_path):
    from minispore.dataset.sources.audio_files import read_wav
    values = np.array([0.0, 0.5, -0.5, -1.0])
    for width in (1, 2, 4):
        _wav(tmp_path / f"w{width}.wav", values, width=width)
        got, rate = read_wav(str(tmp_path / f"w{width}.wav"))
        assert rate == 8000 and got.dtype == np.float32 and np.allclose(got, values)
    _wav(tmp_path / "stereo.wav", np.stack([values, -values / 2], 1), channels=2)
    got, _ = read_wav(str(tmp_path / "stereo.wav"))
    assert got.shape == (2, 4) and np.allclose(got[1], -values / 2)
    (tmp_path / "bad.wav").write_bytes(b"RIFFxxxx")
    with pytest.raises(RuntimeError, match="not a PCM WAV"):
        read_wav(str(tmp_path / "bad.wav"))


def test_yesno(tmp_path):
    wave_a = np.linspace(-0.5, 0.5, 16)
    _wav(tmp_path / "0_1_0_0_1_0_1_1.wav", wave_a)
    _wav(tmp_path / "1_1_1_1_0_0_0_0.wav", -wave_a)
    _wav(tmp_path / "1_0_1_0_1_0_1_0.wav", wave_a / 2)
    data = ds.YesNoDataset(str(tmp_path), shuffle=False)
    assert data.get_col_names() == ["waveform", "sample_rate", "labels"]
    waveform, rate, labels = next(iter(data.create_tuple_iterator(output_numpy=True)))
    assert waveform.dtype == np.float32 and np.allclose(waveform, wave_a, atol=1e-4)
    assert rate.dtype == np.int32 and int(rate) == 8000
    assert labels.dtype == np.int32 and labels.tolist() == [0, 1, 0, 0, 1, 0, 1, 1]
    _check_rows_picked(lambda **kw: ds.YesNoDataset(str(tmp_path), **kw), 3)


def test_speech_commands_lists(tmp_path):
    for word, name in (("yes", "aa_nohash_0"), ("yes", "bb_nohash_1"), ("no", "aa_nohash_2")):
        _wav(tmp_path / word / f"{name}.wav", np.zeros(4), rate=16000)
    _wav(tmp_path / "_background_noise_" / "noise.wav", np.zeros(4))
    (tmp_path / "validation_list.txt").write_text("yes/bb_nohash_1.wav\n")
    (tmp_path / "testing_list.txt").write_text("no/aa_nohash_2.wav\n")
    data = ds.SpeechCommandsDataset(str(tmp_path), shuffle=False)
    assert data.get_col_names() == ["waveform", "sample_rate", "label", "speaker_id",
                                    "utterance_number"]
    assert [r[2:] for r in rows(data)] == [["no", "aa", 2], ["yes", "aa", 0], ["yes", "bb", 1]]
    assert [r[2:] for r in rows(ds.SpeechCommandsDataset(str(tmp_path), "valid"))] == [
        ["yes", "bb", 1]]
    assert [r[3] for r in rows(ds.SpeechCommandsDataset(str(tmp_path), "train"))] == ["aa"]
    assert column(ds.SpeechCommandsDataset(str(tmp_path), "test"), 1) == [16000]
    _check_rows_picked(lambda **kw: ds.SpeechCommandsDataset(str(tmp_path), **kw), 3)


def test_ljspeech_metadata(tmp_path):
    _write(tmp_path / "metadata.csv", 'LJ001-0001|Printing, in "the" 1st|Printing, in the first\n'
                                      "LJ001-0002|in being|in being\n")
    _wav(tmp_path / "wavs" / "LJ001-0001.wav", np.full(5, 0.25), rate=22050)
    _wav(tmp_path / "wavs" / "LJ001-0002.wav", np.full(3, -0.25), rate=22050)
    data = ds.LJSpeechDataset(str(tmp_path), shuffle=False)
    got = rows(data)
    assert data.get_col_names() == ["waveform", "sample_rate", "transcription",
                                    "normalized_transcription"]
    assert got[0][1:] == [22050, 'Printing, in "the" 1st', "Printing, in the first"]
    assert got[1][0] == [-0.25] * 3
    _check_rows_picked(lambda **kw: ds.LJSpeechDataset(str(tmp_path), **kw), 2)


def test_gtzan_genres(tmp_path):
    for genre in ("blues", "jazz"):
        for i in range(2):
            _wav(tmp_path / genre / f"{genre}.0000{i}.wav", np.full(2, i / 4), rate=22050)
    data = ds.GTZANDataset(str(tmp_path), shuffle=False)
    got = list(data.create_tuple_iterator(output_numpy=True))
    assert [str(r[2]) for r in got] == ["blues", "blues", "jazz", "jazz"]
    assert got[0][1].dtype == np.uint32
    _check_rows_picked(lambda **kw: ds.GTZANDataset(str(tmp_path), **kw), 4)
    with pytest.raises(ValueError, match="only usage='all'"):
        ds.GTZANDataset(str(tmp_path), usage="train")


def test_cmu_arctic_transcripts(tmp_path):
    root = tmp_path / "cmu_us_slt_arctic"
    _write(root / "etc" / "txt.done.data", '( arctic_a0001 "Author of the danger trail." )\n'
                                            '( arctic_a0002 "Not at this particular case." )\n')
    _wav(root / "wav" / "arctic_a0001.wav", np.zeros(3), rate=16000)
    _wav(root / "wav" / "arctic_a0002.wav", np.zeros(2), rate=16000)
    data = ds.CMUArcticDataset(str(tmp_path), name="slt", shuffle=False)
    assert data.get_col_names() == ["waveform", "sample_rate", "transcript", "utterance_id"]
    assert [r[1:] for r in rows(data)] == [[16000, "Author of the danger trail.", "arctic_a0001"],
                                           [16000, "Not at this particular case.", "arctic_a0002"]]
    with pytest.raises(ValueError, match="has no etc/txt.done.data"):
        ds.CMUArcticDataset(str(tmp_path))
    _check_rows_picked(lambda **kw: ds.CMUArcticDataset(str(tmp_path), "slt", **kw), 2)


def test_libritts_folders(tmp_path):
    for part, stem in (("dev-clean", "84_121123_000007_000001"),
                       ("dev-clean", "84_121123_000008_000000"),
                       ("test-clean", "121_127105_000001_000000")):
        speaker, chapter = stem.split("_")[:2]
        folder = tmp_path / part / speaker / chapter
        _wav(folder / f"{stem}.wav", np.zeros(2), rate=24000)
        _write(folder / f"{stem}.original.txt", f"Orig {stem}.")
        _write(folder / f"{stem}.normalized.txt", f"norm {stem}")
    data = ds.LibriTTSDataset(str(tmp_path), usage="dev-clean", shuffle=False)
    assert data.get_col_names() == ["waveform", "sample_rate", "original_text",
                                    "normalized_text", "speaker_id", "chapter_id",
                                    "utterance_id"]
    first = rows(data)[0]
    assert first[1:] == [24000, "Orig 84_121123_000007_000001.", "norm 84_121123_000007_000001",
                         84, 121123, "84_121123_000007_000001"]
    assert ds.LibriTTSDataset(str(tmp_path)).get_dataset_size() == 3
    with pytest.raises(ValueError, match="has no folder train-clean-100"):
        ds.LibriTTSDataset(str(tmp_path), usage="train-clean-100")
    _check_rows_picked(lambda **kw: ds.LibriTTSDataset(str(tmp_path), **kw), 3)


# ----- PKSampler, PaddedDataset, DSCallback -----

def test_pk_sampler_takes_k_rows_of_every_class():
    labels = np.array([0, 1, 0, 2, 1, 0, 2, 2, 2], np.int32)
    data = ds.NumpySlicesDataset({"x": np.arange(9), "label": labels},
                                 sampler=ds.PKSampler(2))
    got = rows(data)
    assert data.get_dataset_size() == 6
    assert [r[1] for r in got] == [0, 0, 1, 1, 2, 2] and [r[0] for r in got] == [0, 2, 1, 4, 3, 6]
    one = ds.NumpySlicesDataset({"x": np.arange(3), "label": np.array([5, 7, 7])},
                                sampler=ds.PKSampler(3))
    assert column(one) == [0, 0, 0, 1, 2, 1]  # a class with fewer rows repeats them
    ds.config.set_seed(3)
    first = rows(ds.NumpySlicesDataset({"x": np.arange(9), "label": labels},
                                       sampler=ds.PKSampler(2, shuffle=True)))
    ds.config.set_seed(3)
    again = rows(ds.NumpySlicesDataset({"x": np.arange(9), "label": labels},
                                       sampler=ds.PKSampler(2, shuffle=True)))
    assert first == again and sorted(r[1] for r in first) == [0, 0, 1, 1, 2, 2]
    assert all(labels[r[0]] == r[1] for r in first)
    counted = ds.NumpySlicesDataset({"x": np.arange(9), "label": labels},
                                    sampler=ds.PKSampler(2, num_samples=3))
    assert counted.get_dataset_size() == 3
    with pytest.raises(ValueError, match="no column named 'cls'"):
        rows(ds.NumpySlicesDataset({"x": np.arange(3)}, sampler=ds.PKSampler(1,
                                                                            class_column="cls")))


def test_pk_sampler_on_an_image_folder(tmp_path):
    for cls in ("a", "b"):
        for i in range(3):
            _png(str(tmp_path / cls / f"{i}.png"), i)
    data = ds.ImageFolderDataset(str(tmp_path), sampler=ds.PKSampler(2))
    assert column(data, 1) == [0, 0, 1, 1]


def test_padded_dataset_pads_before_sharding():
    base = ds.NumpySlicesDataset({"image": np.arange(3)[:, None], "label": np.arange(3)},
                                 shuffle=False)
    pad = ds.PaddedDataset([{"image": np.array([-1]), "label": np.int64(-1)}])
    assert pad.get_col_names() == ["image", "label"] and rows(pad) == [[[-1], -1]]
    both = base + pad
    assert column(both, 1) == [0, 1, 2, -1]
    with pytest.raises(TypeError, match="non-empty list of dicts"):
        ds.PaddedDataset([])
    with pytest.raises(ValueError, match="sample 1 has columns"):
        ds.PaddedDataset([{"a": 1}, {"b": 2}])


class _Recorder(ds.DSCallback):
    def __init__(self, step_size=1):
        super().__init__(step_size)
        self.calls = []

    def ds_begin(self, ctx):
        self.calls.append(("begin", ctx.cur_epoch_num))

    def ds_epoch_begin(self, ctx):
        self.calls.append(("epoch_begin", ctx.cur_epoch_num))

    def ds_epoch_end(self, ctx):
        self.calls.append(("epoch_end", ctx.cur_epoch_num))

    def ds_step_begin(self, ctx):
        self.calls.append(("step_begin", ctx.cur_step_num_in_epoch, ctx.cur_step_num))

    def ds_step_end(self, ctx):
        self.calls.append(("step_end", ctx.cur_step_num_in_epoch, ctx.cur_step_num))


def test_ds_callback_hooks_in_order():
    cb = _Recorder(step_size=2)
    data = ds.NumpySlicesDataset(np.arange(3), ["n"], shuffle=False).map(
        lambda n: n + 1, "n", callbacks=[cb])
    assert data.get_dataset_size() == 3 and data.output_shapes() == [[]]
    assert cb.calls == []  # inspecting the pipeline calls no hook
    iterator = data.create_tuple_iterator(output_numpy=True, num_epochs=2)
    assert [int(n) for (n,) in iterator] == [1, 2, 3]
    assert [int(n) for (n,) in iterator] == [1, 2, 3]
    one_epoch = [("epoch_begin", 1), ("step_begin", 1, 1), ("step_end", 1, 1),
                 ("step_begin", 3, 3), ("step_end", 3, 3), ("epoch_end", 1)]
    assert cb.calls[0] == ("begin", 0) and cb.calls[1:7] == one_epoch
    assert cb.calls[7:] == [("epoch_begin", 2), ("step_begin", 1, 4), ("step_end", 1, 4),
                            ("step_begin", 3, 6), ("step_end", 3, 6), ("epoch_end", 2)]
    with pytest.raises(TypeError, match="callbacks must be DSCallback"):
        ds.NumpySlicesDataset(np.arange(3), ["n"]).map(lambda n: n, "n", callbacks=[print])
    with pytest.raises(ValueError, match="step_size"):
        ds.DSCallback(step_size=0)


def test_waited_ds_callback_follows_training():
    import minispore as ms
    from minispore import nn
    from minispore.train import Model

    seen = []

    class Sync(ds.WaitedDSCallback):
        def sync_epoch_begin(self, train_run_context, ds_run_context):
            seen.append(("epoch", train_run_context.original_args().cur_epoch_num,
                         ds_run_context.cur_epoch_num))

        def sync_step_begin(self, train_run_context, ds_run_context):
            seen.append(("step", train_run_context.original_args().cur_step_num,
                         ds_run_context.cur_step_num))

    cb = Sync(step_size=2)
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    data = ds.NumpySlicesDataset({"x": x, "y": x[:, :1]}, shuffle=False)
    data = data.map(lambda v: v, "x", callbacks=cb).batch(2)
    ms.set_seed(0)
    net = nn.Dense(2, 1)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    model.train(2, data, callbacks=[cb])
    # dataset step 3 waits for training step 1, step 5 (epoch 2) for step 2, ...
    assert [s for s in seen if s[0] == "step"] == [("step", 1, 3), ("step", 2, 5),
                                                   ("step", 3, 7)]
    # the run context is training's live one: epoch 2 has begun when the data is asked for
    assert [s for s in seen if s[0] == "epoch"] == [("epoch", 2, 2)]
    assert cb.training_ended


# ----- annotated image datasets -----

def _voc(tmp_path):
    root = tmp_path / "VOC2012"
    ids = ["2007_000032", "2007_000039", "2007_000063"]
    objects = {ids[0]: [("dog", (10, 20, 30, 60), 0, 1), ("person", (1, 2, 3, 4), 1, 0)],
               ids[1]: [("cat", (5, 5, 9, 9), 0, 0)],
               ids[2]: [("dog", (0, 0, 4, 4), 0, 0)]}
    images = {}
    for n, i in enumerate(ids):
        images[i] = _png(str(root / "JPEGImages" / f"{i}.jpg"), n)
        mask = np.full((4, 6), n, np.uint8)
        os.makedirs(root / "SegmentationClass", exist_ok=True)
        Image.fromarray(mask).save(str(root / "SegmentationClass" / f"{i}.png"))
        body = "".join(
            f"<object><name>{name}</name><truncated>{trunc}</truncated><difficult>{diff}"
            f"</difficult><bndbox><xmin>{b[0]}</xmin><ymin>{b[1]}</ymin><xmax>{b[2]}</xmax>"
            f"<ymax>{b[3]}</ymax></bndbox></object>" for name, b, diff, trunc in objects[i])
        _write(root / "Annotations" / f"{i}.xml", f"<annotation><filename>{i}.jpg</filename>"
                                                  f"{body}</annotation>")
    _write(root / "ImageSets" / "Segmentation" / "train.txt", f"{ids[0]}\n{ids[1]}\n")
    _write(root / "ImageSets" / "Main" / "train.txt", "\n".join(ids) + "\n")
    _write(root / "ImageSets" / "Main" / "val.txt", f"{ids[1]}\n")
    return str(root), ids, images


def test_voc_segmentation_and_detection(tmp_path):
    root, ids, images = _voc(tmp_path)
    seg = ds.VOCDataset(root, task="Segmentation", usage="train", decode=True, shuffle=False)
    assert seg.get_col_names() == ["image", "target"]
    got = list(seg.create_tuple_iterator(output_numpy=True))
    assert np.array_equal(got[0][0], images[ids[0]]) and got[1][1].shape[:2] == (4, 6)
    det = ds.VOCDataset(root, task="Detection", usage="train", shuffle=False)
    assert det.get_col_names() == ["image", "bbox", "label", "difficult", "truncated"]
    assert det.get_class_indexing() == {"cat": 0, "dog": 1, "person": 2}
    image, bbox, label, difficult, truncated = next(iter(
        det.create_tuple_iterator(output_numpy=True)))
    assert image.ndim == 1 and bbox.dtype == np.float32 and label.dtype == np.uint32
    assert bbox.tolist() == [[10, 20, 20, 40], [1, 2, 2, 2]]
    assert label.tolist() == [[1], [2]] and difficult.tolist() == [[0], [1]]
    assert truncated.tolist() == [[1], [0]]
    val = ds.VOCDataset(root, task="Detection", usage="val", class_indexing={"cat": 7})
    assert column(val, 2) == [[[7]]]
    with pytest.raises(ValueError, match="not in class_indexing"):
        ds.VOCDataset(root, task="Detection", usage="train", class_indexing={"cat": 7})
    _check_rows_picked(lambda **kw: ds.VOCDataset(root, task="Detection", **kw), 3)


def test_coco_tasks(tmp_path):
    import json
    a = _png(str(tmp_path / "000000000009.jpg"), 0)
    _png(str(tmp_path / "000000000025.jpg"), 1)
    _png(str(tmp_path / "000000000030.jpg"), 2)
    images = [{"id": 9, "file_name": "000000000009.jpg"},
              {"id": 25, "file_name": "000000000025.jpg"},
              {"id": 30, "file_name": "000000000030.jpg"}]
    instances = {"images": images, "categories": [{"id": 1, "name": "person"},
                                                  {"id": 18, "name": "dog"}],
                 "annotations": [
                     {"id": 1, "image_id": 9, "bbox": [1.5, 2, 3, 4], "category_id": 18,
                      "iscrowd": 0},
                     {"id": 2, "image_id": 9, "bbox": [0, 0, 1, 1], "category_id": 1,
                      "iscrowd": 1},
                     {"id": 3, "image_id": 25, "bbox": [5, 5, 2, 2], "category_id": 1,
                      "iscrowd": 0}]}
    _write(tmp_path / "instances.json", json.dumps(instances))
    det = ds.CocoDataset(str(tmp_path), str(tmp_path / "instances.json"), decode=True,
                         shuffle=False)
    assert det.get_col_names() == ["image", "bbox", "category_id", "iscrowd"]
    got = list(det.create_tuple_iterator(output_numpy=True))
    assert len(got) == 2 and np.array_equal(got[0][0], a)  # image 30 has no annotation
    assert got[0][1].tolist() == [[1.5, 2, 3, 4], [0, 0, 1, 1]] and got[0][1].dtype == np.float32
    assert got[0][2].tolist() == [[18], [1]] and got[0][3].tolist() == [[0], [1]]
    assert det.get_class_indexing() == {"person": [1, 0], "dog": [18, 0]}
    _check_rows_picked(lambda **kw: ds.CocoDataset(str(tmp_path),
                                                   str(tmp_path / "instances.json"), **kw), 2)
    captions = {"images": images, "annotations": [
        {"id": 1, "image_id": 25, "caption": "a cat"},
        {"id": 2, "image_id": 25, "caption": "a small cat"}]}
    _write(tmp_path / "captions.json", json.dumps(captions))
    cap = rows(ds.CocoDataset(str(tmp_path), str(tmp_path / "captions.json"),
                              task="Captioning", shuffle=False))
    assert [r[1] for r in cap] == [[], ["a cat", "a small cat"], []]
    keypoints = {"images": images, "annotations": [
        {"id": 1, "image_id": 30, "keypoints": list(range(51)), "num_keypoints": 17}]}
    _write(tmp_path / "keypoints.json", json.dumps(keypoints))
    kp = rows(ds.CocoDataset(str(tmp_path), str(tmp_path / "keypoints.json"), task="Keypoint"))
    assert kp[0][1] == [list(map(float, range(51)))] and kp[0][2] == [[17]]
    with pytest.raises(ValueError, match="Stuff is not supported"):
        ds.CocoDataset(str(tmp_path), str(tmp_path / "instances.json"), task="Stuff")


def test_caltech101_categories_and_contours(tmp_path):
    first = _png(str(tmp_path / "101_ObjectCategories" / "accordion" / "image_0001.jpg"), 0)
    _png(str(tmp_path / "101_ObjectCategories" / "accordion" / "image_0002.jpg"), 1)
    _png(str(tmp_path / "101_ObjectCategories" / "Faces" / "image_0001.jpg"), 2)
    _png(str(tmp_path / "101_ObjectCategories" / "BACKGROUND_Google" / "image_0001.jpg"), 3)
    data = ds.Caltech101Dataset(str(tmp_path), decode=True, shuffle=False)
    assert data.get_col_names() == ["image", "category"] and data.num_classes() == 2
    got = list(data.create_tuple_iterator(output_numpy=True))
    assert [int(r[1]) for r in got] == [0, 1, 1] and np.array_equal(got[1][0], first)
    _check_rows_picked(lambda **kw: ds.Caltech101Dataset(str(tmp_path), **kw), 3)
    scipy_io = pytest.importorskip("scipy.io")
    contour = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    os.makedirs(tmp_path / "Annotations" / "Faces_2")
    scipy_io.savemat(str(tmp_path / "Annotations" / "Faces_2" / "annotation_0001.mat"),
                     {"obj_contour": contour})
    everything = ds.Caltech101Dataset(str(tmp_path), target_type="all", shuffle=False)
    assert everything.get_col_names() == ["image", "category", "annotation"]
    with pytest.raises(RuntimeError, match="annotation file is missing"):
        rows(everything)  # accordion's annotations are not there
    only_faces = ds.Caltech101Dataset(str(tmp_path), target_type="annotation",
                                      sampler=ds.SubsetSampler([0]))
    assert rows(only_faces)[0][1] == contour.tolist()


# ----- serialize / deserialize / show / compare -----

def _plus_one(n):
    return n + 1


def test_serialize_round_trips_a_pipeline(tmp_path, capsys):
    import json

    import minispore as ms
    import minispore.dataset.transforms as transforms
    import minispore.dataset.vision as vision
    for cls in ("a", "b"):
        _png(str(tmp_path / "images" / cls / "0.png"), len(cls))
    data = ds.ImageFolderDataset(str(tmp_path / "images"), shuffle=False, decode=True)
    data = data.map([vision.Resize((2, 3)), vision.HWC2CHW()], "image")
    data = data.map(transforms.TypeCast(ms.int32), "label").batch(2).repeat(2)
    tree = ds.serialize(data, str(tmp_path / "pipeline.json"))
    assert tree["op_type"] == "RepeatDataset" and tree["count"] == 2
    batch = tree["children"][0]
    assert batch["op_type"] == "BatchDataset" and batch["batch_size"] == 2
    resize = batch["children"][0]["children"][0]["operations"][0]
    assert resize["tensor_op_name"] == "Resize"
    assert json.loads((tmp_path / "pipeline.json").read_text()) == tree
    again = ds.deserialize(json_filepath=str(tmp_path / "pipeline.json"))
    assert ds.compare(again, data) and not ds.compare(again, data.repeat(1))
    assert rows(again) == rows(data)
    ds.show(data.project(["label"]))
    assert '"op_type": "ProjectDataset"' in capsys.readouterr().out


def test_serialize_functions_and_samplers(tmp_path):
    data = ds.NumpySlicesDataset({"n": np.arange(5)}, sampler=ds.SubsetSampler([4, 0]))
    named = data.map(_plus_one, "n")
    assert column(ds.deserialize(input_dict=ds.serialize(named))) == [5, 1]
    lam = data.map(lambda n: n, "n")
    with pytest.raises(ValueError, match="lambda or a nested function"):
        ds.deserialize(input_dict=ds.serialize(lam))
    with pytest.raises(ValueError, match="give one of input_dict and json_filepath"):
        ds.deserialize()
    usps = tmp_path / "usps"
    usps.mkdir()
    with bz2.open(usps / "usps.bz2", "wt") as f:
        f.write("1 " + " ".join(f"{i + 1}:0" for i in range(256)) + "\n")
    source = ds.USPSDataset(str(usps), usage="train", shuffle=ds.Shuffle.GLOBAL)
    tree = ds.serialize(source)
    assert tree["usage"] == "train" and tree["shuffle"]["name"] == "GLOBAL"
    assert ds.compare(ds.deserialize(input_dict=tree), source)


# ----- image folders with index files -----

def test_food101_and_sun397(tmp_path):
    food = tmp_path / "food-101"
    first = _png(str(food / "images" / "apple_pie" / "1005649.jpg"), 0)
    _png(str(food / "images" / "apple_pie" / "1011328.jpg"), 1)
    _png(str(food / "images" / "baklava" / "1006121.jpg"), 2)
    _write(food / "meta" / "train.txt", "apple_pie/1005649\nbaklava/1006121\n")
    _write(food / "meta" / "test.txt", "apple_pie/1011328\n")
    train = ds.Food101Dataset(str(food), usage="train", decode=True, shuffle=False)
    got = list(train.create_tuple_iterator(output_numpy=True))
    assert [str(r[1]) for r in got] == ["apple_pie", "baklava"]
    assert np.array_equal(got[0][0], first)
    assert ds.Food101Dataset(str(food)).get_dataset_size() == 3
    _check_rows_picked(lambda **kw: ds.Food101Dataset(str(food), **kw), 3)

    sun = tmp_path / "SUN397"
    _write(sun / "ClassName.txt", "/a/abbey\n/b/bow_window/indoor\n")
    _png(str(sun / "a" / "abbey" / "sun_a.jpg"), 3)
    _png(str(sun / "b" / "bow_window" / "indoor" / "sun_b.jpg"), 4)
    _png(str(sun / "b" / "bow_window" / "indoor" / "sun_c.jpg"), 5)
    data = ds.SUN397Dataset(str(sun), shuffle=False)
    assert column(data, 1) == [0, 1, 1]
    _check_rows_picked(lambda **kw: ds.SUN397Dataset(str(sun), **kw), 3)


def test_places365_lists(tmp_path):
    _write(tmp_path / "categories_places365.txt", "/a/airfield 0\n/b/bakery 1\n")
    _write(tmp_path / "places365_train_standard.txt",
           "/a/airfield/00000001.jpg 0\n/b/bakery/00000001.jpg 1\n")
    _write(tmp_path / "places365_val.txt", "Places365_val_00000001.jpg 1\n")
    a = _png(str(tmp_path / "data_256_standard" / "a" / "airfield" / "00000001.jpg"), 0)
    _png(str(tmp_path / "data_256_standard" / "b" / "bakery" / "00000001.jpg"), 1)
    _png(str(tmp_path / "val_256" / "Places365_val_00000001.jpg"), 2)
    train = ds.Places365Dataset(str(tmp_path), decode=True, shuffle=False)
    got = list(train.create_tuple_iterator(output_numpy=True))
    assert [int(r[1]) for r in got] == [0, 1] and np.array_equal(got[0][0], a)
    assert train.get_class_indexing() == {"/a/airfield": 0, "/b/bakery": 1}
    assert column(ds.Places365Dataset(str(tmp_path), usage="val"), 1) == [1]
    _check_rows_picked(lambda **kw: ds.Places365Dataset(str(tmp_path), **kw), 2)


def test_omniglot_characters(tmp_path):
    for part, alphabet, chars in (("images_background", "Greek", ("character01", "character02")),
                                  ("images_evaluation", "Angelic", ("character01",))):
        for n, char in enumerate(chars):
            _png(str(tmp_path / part / alphabet / char / f"{n}_01.png"), n)
    assert column(ds.OmniglotDataset(str(tmp_path), shuffle=False), 1) == [0, 1, 2]
    assert column(ds.OmniglotDataset(str(tmp_path), background=False), 1) == [0]
    _check_rows_picked(lambda **kw: ds.OmniglotDataset(str(tmp_path), **kw), 3)


def test_flowers102_mat_labels(tmp_path):
    scipy_io = pytest.importorskip("scipy.io")
    for i in range(1, 5):
        _png(str(tmp_path / "jpg" / f"image_{i:05d}.jpg"), i)
        _png(str(tmp_path / "segmim" / f"segmim_{i:05d}.jpg"), 10 + i)
    scipy_io.savemat(str(tmp_path / "imagelabels.mat"), {"labels": np.array([[77, 1, 102, 5]])})
    scipy_io.savemat(str(tmp_path / "setid.mat"), {"trnid": np.array([[1, 3]]),
                                                   "valid": np.array([[2]]),
                                                   "tstid": np.array([[4]])})
    train = ds.Flowers102Dataset(str(tmp_path), usage="train", shuffle=False)
    assert train.get_col_names() == ["image", "label"] and column(train, 1) == [76, 101]
    seg = ds.Flowers102Dataset(str(tmp_path), task="Segmentation", usage="test", decode=True)
    image, mask, label = next(iter(seg.create_tuple_iterator(output_numpy=True)))
    assert image.shape == mask.shape == (4, 6, 3) and int(label) == 4
    _check_rows_picked(lambda **kw: ds.Flowers102Dataset(str(tmp_path), **kw), 4)


def test_div2k_pairs(tmp_path):
    hr = _png(str(tmp_path / "DIV2K_train_HR" / "0001.png"), 0, size=(8, 8))
    lr = _png(str(tmp_path / "DIV2K_train_LR_bicubic" / "X2" / "0001x2.png"), 1, size=(4, 4))
    _png(str(tmp_path / "DIV2K_train_HR" / "0002.png"), 2, size=(8, 8))
    _png(str(tmp_path / "DIV2K_train_LR_bicubic" / "X2" / "0002x2.png"), 3, size=(4, 4))
    _png(str(tmp_path / "DIV2K_train_LR_mild" / "0001x4m.png"), 4, size=(2, 2))
    data = ds.DIV2KDataset(str(tmp_path), usage="train", scale=2, decode=True, shuffle=False)
    assert data.get_col_names() == ["hr_image", "lr_image"]
    got = list(data.create_tuple_iterator(output_numpy=True))
    assert np.array_equal(got[0][0], hr) and np.array_equal(got[0][1], lr)
    with pytest.raises(ValueError, match="0002x4m.png"):
        ds.DIV2KDataset(str(tmp_path), downgrade="mild", scale=4)
    with pytest.raises(ValueError, match="does not go with"):
        ds.DIV2KDataset(str(tmp_path), downgrade="mild", scale=2)
    _check_rows_picked(lambda **kw: ds.DIV2KDataset(str(tmp_path), **kw), 2)


def test_flickr_captions(tmp_path):
    _png(str(tmp_path / "images" / "1000268201.jpg"), 0)
    _png(str(tmp_path / "images" / "1001773457.jpg"), 1)
    _write(tmp_path / "token.txt", "1000268201.jpg#0\tA child in a pink dress .\n"
                                   "1000268201.jpg#1\tA girl going into a building .\n"
                                   "1001773457.jpg#0\tTwo dogs .\n")
    data = ds.FlickrDataset(str(tmp_path / "images"), str(tmp_path / "token.txt"),
                            shuffle=False)
    assert data.get_col_names() == ["image", "annotation"]
    assert [r[1] for r in rows(data)] == [["A child in a pink dress .",
                                           "A girl going into a building ."], ["Two dogs ."]]
    _check_rows_picked(lambda **kw: ds.FlickrDataset(str(tmp_path / "images"),
                                                     str(tmp_path / "token.txt"), **kw), 2)


def test_dataset_cache_is_accepted_and_changes_no_row(tmp_path):
    cache = ds.DatasetCache(session_id=3, size=16)
    assert cache.get_stat().num_mem_cached == 0 and "session_id=3" in repr(cache)
    plain = ds.FakeImageDataset(4, (2, 2, 1), 3, shuffle=False)
    cached = ds.FakeImageDataset(4, (2, 2, 1), 3, shuffle=False, cache=cache)
    mapped = cached.map(lambda x: x + 1, "image", cache=cache)
    assert rows(cached) == rows(plain) and len(rows(mapped)) == 4
    with pytest.raises(ValueError, match="session_id"):
        ds.DatasetCache(session_id=-1)


def _sph(path, samples, rate=16000):
    """A NIST SPHERE file of 16-bit little-endian PCM."""
    data = (np.asarray(samples) * 32768).astype("<i2").tobytes()
    header = (f"NIST_1A\n   1024\nsample_count -i {len(samples)}\nsample_n_bytes -i 2\n"
              f"channel_count -i 1\nsample_byte_format -s2 01\nsample_rate -i {rate}\n"
              f"sample_coding -s3 pcm\nend_head\n").encode()
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(header.ljust(1024, b" ") + data)


def test_tedlium_segments(tmp_path):
    from minispore.dataset.sources.audio_files import read_sph
    root = tmp_path / "TEDLIUM_release1"
    talk = np.arange(40) / 64
    _sph(root / "test" / "sph" / "Talk_A.sph", talk, rate=10)
    _write(root / "test" / "stm" / "Talk_A.stm",
           "Talk_A 1 Talk_A 0.0 1.5 <o,f0,male> hello world\n"
           "Talk_A 1 inter_segment_gap 1.5 2.0 <o,,unknown> ignore_time_segment_in_scoring\n"
           "Talk_A 1 Talk_A 2.0 4.0 <o,f0,male> bye\n")
    _sph(root / "dev" / "sph" / "Talk_B.sph", talk[:10], rate=10)
    _write(root / "dev" / "stm" / "Talk_B.stm", "Talk_B 1 Spk 0.0 1.0 <o> dev talk\n")
    waveform, rate = read_sph(str(root / "test" / "sph" / "Talk_A.sph"))
    assert rate == 10 and np.allclose(waveform, talk)
    data = ds.TedliumDataset(str(tmp_path), "release1", usage="test", shuffle=False)
    assert data.get_col_names() == ["waveform", "sample_rate", "transcript", "talk_id",
                                    "speaker_id", "identifier"]
    got = list(data.create_tuple_iterator(output_numpy=True))
    assert len(got) == 2 and np.allclose(got[0][0], talk[:15]) and np.allclose(got[1][0],
                                                                               talk[20:40])
    assert [str(v) for v in got[0][2:]] == ["hello world", "Talk_A", "Talk_A", "Talk_A-0.0-1.5"]
    assert got[0][1].dtype == np.uint32 and int(got[0][1]) == 10
    assert ds.TedliumDataset(str(tmp_path), "release1", usage="dev").get_dataset_size() == 1
    with pytest.raises(ValueError, match="folder .*train.*stm is missing"):
        ds.TedliumDataset(str(tmp_path), "release1")
    _check_rows_picked(lambda **kw: ds.TedliumDataset(str(tmp_path), "release1", "test", **kw),
                       2)


# ----- scene datasets -----

def test_kitti_objects(tmp_path):
    image = _png(str(tmp_path / "data_object_image_2" / "training" / "image_2" / "000000.png"), 0)
    _png(str(tmp_path / "data_object_image_2" / "training" / "image_2" / "000001.png"), 1)
    _png(str(tmp_path / "data_object_image_2" / "testing" / "image_2" / "000000.png"), 2)
    labels = tmp_path / "data_object_label_2" / "training" / "label_2"
    _write(labels / "000000.txt",
           "Pedestrian 0.00 0 -0.20 712.40 143.00 810.73 307.92 1.89 0.48 1.20 1.84 1.47 "
           "8.41 0.01\nCar 0.50 2 1.0 1 2 3 4 1.5 1.6 3.9 -1 2 30 -1.5\n")
    _write(labels / "000001.txt", "DontCare -1 -1 -10 503.89 169.71 590.61 190.13 -1 -1 -1 "
                                  "-1000 -1000 -1000 -10\n")
    data = ds.KITTIDataset(str(tmp_path), decode=True, shuffle=False)
    assert data.get_col_names() == ["image", "label", "truncated", "occluded", "alpha", "bbox",
                                    "dimensions", "location", "rotation_y"]
    first = next(iter(data.create_tuple_iterator(output_numpy=True)))
    assert np.array_equal(first[0], image) and first[1].tolist() == [[3], [0]]
    assert first[1].dtype == np.uint32 and first[2].dtype == np.float32
    assert first[3].tolist() == [[0], [2]] and first[5].shape == (2, 4)
    assert np.allclose(first[5][0], [712.40, 143.00, 810.73, 307.92])
    assert np.allclose(first[7][1], [-1, 2, 30]) and np.allclose(first[8], [[0.01], [-1.5]])
    test = ds.KITTIDataset(str(tmp_path), usage="test")
    assert test.get_col_names() == ["image"] and test.get_dataset_size() == 1
    _check_rows_picked(lambda **kw: ds.KITTIDataset(str(tmp_path), **kw), 2)


def test_wider_face_annotations(tmp_path):
    _png(str(tmp_path / "WIDER_train" / "images" / "0--Parade" / "a.jpg"), 0)
    _png(str(tmp_path / "WIDER_train" / "images" / "0--Parade" / "b.jpg"), 1)
    _png(str(tmp_path / "WIDER_val" / "images" / "1--Handshaking" / "c.jpg"), 2)
    _png(str(tmp_path / "WIDER_test" / "images" / "1--Handshaking" / "d.jpg"), 3)
    _write(tmp_path / "wider_face_split" / "wider_face_train_bbx_gt.txt",
           "0--Parade/a.jpg\n2\n449 330 122 149 0 0 0 0 0 0 \n361 98 263 339 2 1 0 1 2 3 \n"
           "0--Parade/b.jpg\n0\n0 0 0 0 0 0 0 0 0 0 \n")
    _write(tmp_path / "wider_face_split" / "wider_face_val_bbx_gt.txt",
           "1--Handshaking/c.jpg\n1\n1 2 3 4 1 0 1 0 1 0\n")
    _write(tmp_path / "wider_face_split" / "wider_face_test_filelist.txt",
           "1--Handshaking/d.jpg\n")
    train = ds.WIDERFaceDataset(str(tmp_path), usage="train", shuffle=False)
    assert train.get_col_names() == ["image", "bbox", "blur", "expression", "illumination",
                                     "occlusion", "pose", "invalid"]
    got = rows(train)
    assert got[0][1] == [[449, 330, 122, 149], [361, 98, 263, 339]]
    # file order: blur expression illumination invalid occlusion pose
    assert [got[0][k][1][0] for k in range(2, 8)] == [2, 1, 0, 2, 3, 1]
    assert got[1][1] == [] and len(got) == 2
    assert ds.WIDERFaceDataset(str(tmp_path)).get_dataset_size() == 3
    test = ds.WIDERFaceDataset(str(tmp_path), usage="test")
    assert test.get_col_names() == ["image"] and test.get_dataset_size() == 1
    _check_rows_picked(lambda **kw: ds.WIDERFaceDataset(str(tmp_path), **kw), 3)


def test_cityscapes_targets(tmp_path):
    for city, n in (("aachen", 0), ("bochum", 1)):
        stem = f"{city}_000000_00001{n}"
        _png(str(tmp_path / "leftImg8bit" / "train" / city / f"{stem}_leftImg8bit.png"), n)
        mask = np.full((4, 6), 7 + n, np.uint8)
        os.makedirs(tmp_path / "gtFine" / "train" / city, exist_ok=True)
        Image.fromarray(mask).save(str(tmp_path / "gtFine" / "train" / city /
                                       f"{stem}_gtFine_labelIds.png"))
        _write(tmp_path / "gtFine" / "train" / city / f"{stem}_gtFine_polygons.json",
               '{"imgHeight": 4, "objects": []}')
    semantic = ds.CityscapesDataset(str(tmp_path), task="semantic", decode=True, shuffle=False)
    got = list(semantic.create_tuple_iterator(output_numpy=True))
    assert got[1][1].shape[:2] == (4, 6) and int(got[1][1][0, 0, 0]) == 8
    polygons = rows(ds.CityscapesDataset(str(tmp_path), task="polygon", shuffle=False))
    assert polygons[0][1] == '{"imgHeight": 4, "objects": []}'
    with pytest.raises(RuntimeError, match="target file is missing"):
        rows(ds.CityscapesDataset(str(tmp_path), task="color"))
    with pytest.raises(ValueError, match="leftImg8bit.val is missing"):
        ds.CityscapesDataset(str(tmp_path), usage="val")
    _check_rows_picked(lambda **kw: ds.CityscapesDataset(str(tmp_path), task="semantic", **kw),
                       2)


def test_sbd_mat_targets(tmp_path):
    scipy_io = pytest.importorskip("scipy.io")
    from scipy import sparse
    for n, i in enumerate(("2008_000002", "2008_000003")):
        _png(str(tmp_path / "img" / f"{i}.jpg"), n)
        segmentation = np.full((4, 6), n + 1, np.uint8)
        boundaries = np.empty((2, 1), dtype=object)
        boundaries[0, 0] = sparse.csc_matrix(np.eye(4, 6))
        boundaries[1, 0] = sparse.csc_matrix(np.zeros((4, 6)))
        os.makedirs(tmp_path / "cls", exist_ok=True)
        scipy_io.savemat(str(tmp_path / "cls" / f"{i}.mat"), {"GTcls": {
            "Segmentation": segmentation, "Boundaries": boundaries}})
    _write(tmp_path / "train.txt", "2008_000002\n")
    _write(tmp_path / "val.txt", "2008_000003\n")
    seg = rows(ds.SBDataset(str(tmp_path), task="Segmentation", usage="val"))
    assert np.array_equal(seg[0][1], np.full((4, 6), 2))
    bound = list(ds.SBDataset(str(tmp_path), usage="train").create_tuple_iterator(
        output_numpy=True))
    assert bound[0][1].shape == (2, 4, 6) and bound[0][1].dtype == np.uint8
    assert np.array_equal(bound[0][1][0], np.eye(4, 6))
    _check_rows_picked(lambda **kw: ds.SBDataset(str(tmp_path), "Segmentation", **kw), 2)


def test_sbu_captions(tmp_path):
    _write(tmp_path / "SBU_captioned_photo_dataset_urls.txt",
           "http://static.flickr.com/2723/4385058960_b0f291553e.jpg\n"
           "http://static.flickr.com/3/1234_missing.jpg\n"
           "http://static.flickr.com/9/5678_c.jpg\n")
    _write(tmp_path / "SBU_captioned_photo_dataset_captions.txt",
           "A wooden chair in the living room\nnot downloaded\nsky \n")
    _png(str(tmp_path / "sbu_images" / "4385058960_b0f291553e.jpg"), 0)
    _png(str(tmp_path / "sbu_images" / "5678_c.jpg"), 1)
    data = ds.SBUDataset(str(tmp_path), shuffle=False)
    assert data.get_col_names() == ["image", "caption"]
    assert column(data, 1) == ["A wooden chair in the living room", "sky"]
    _check_rows_picked(lambda **kw: ds.SBUDataset(str(tmp_path), **kw), 2)


def test_lsun_folders(tmp_path):
    _png(str(tmp_path / "bedroom_train" / "a.jpg"), 0)
    _png(str(tmp_path / "bedroom_val" / "b.jpg"), 1)
    _png(str(tmp_path / "tower_train" / "c.jpg"), 2)
    _png(str(tmp_path / "tower_val" / "d.jpg"), 3)
    _png(str(tmp_path / "test" / "e.jpg"), 4)
    data = ds.LSUNDataset(str(tmp_path), classes=["bedroom", "tower"], shuffle=False)
    assert column(data, 1) == [0, 0, 1, 1]
    assert column(ds.LSUNDataset(str(tmp_path), "valid", "tower"), 1) == [0]
    assert ds.LSUNDataset(str(tmp_path), usage="test").get_dataset_size() == 1
    with pytest.raises(ValueError, match="bridge_train is missing"):
        ds.LSUNDataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="unknown classes"):
        ds.LSUNDataset(str(tmp_path), classes="cats")
    _check_rows_picked(lambda **kw: ds.LSUNDataset(str(tmp_path), classes=["bedroom", "tower"],
                                                   **kw), 4)


def test_phototour_patches(tmp_path):
    root = tmp_path / "liberty"
    root.mkdir()
    sheet = np.random.default_rng(0).integers(0, 256, (1024, 1024), dtype=np.uint8)
    Image.fromarray(sheet).save(str(root / "patches0000.bmp"))
    _write(root / "info.txt", "7 0\n7 0\n9 0\n")
    _write(root / "m50_100000_100000_0.txt", "0 7 0 1 7 0\n0 7 0 2 9 0\n")
    train = ds.PhotoTourDataset(str(tmp_path), "liberty", usage="train", shuffle=False)
    got = list(train.create_tuple_iterator(output_numpy=True))
    assert len(got) == 3 and got[2][0].shape == (64, 64, 1)
    assert np.array_equal(got[2][0][..., 0], sheet[:64, 128:192])
    assert [int(r[1]) for r in got] == [7, 7, 9] and got[0][1].dtype == np.uint32
    test = ds.PhotoTourDataset(str(tmp_path), "liberty", usage="test", shuffle=False)
    assert test.get_col_names() == ["image1", "image2", "matches"]
    assert column(test, 2) == [1, 0]
    _check_rows_picked(lambda **kw: ds.PhotoTourDataset(str(tmp_path), "liberty", **kw), 3)


def test_lfw_people_and_pairs(tmp_path):
    images = tmp_path / "lfw-funneled"
    for person, count in (("Aaron_Peirsol", 2), ("Abel_Pacheco", 1)):
        for n in range(1, count + 1):
            _png(str(images / person / f"{person}_{n:04d}.jpg"), n)
    _write(tmp_path / "peopleDevTrain.txt", "2\nAbel_Pacheco\t1\nAaron_Peirsol\t2\n")
    _write(tmp_path / "peopleDevTest.txt", "1\nAbel_Pacheco\t1\n")
    _write(tmp_path / "pairsDevTrain.txt", "1\nAaron_Peirsol\t1\t2\n"
                                           "Aaron_Peirsol\t1\tAbel_Pacheco\t1\n")
    people = ds.LFWDataset(str(tmp_path), usage="train", shuffle=False)
    assert people.get_col_names() == ["image", "label"] and column(people, 1) == [1, 0, 0]
    assert ds.LFWDataset(str(tmp_path)).get_dataset_size() == 4
    pairs = ds.LFWDataset(str(tmp_path), task="pairs", usage="train", shuffle=False)
    assert pairs.get_col_names() == ["image1", "image2", "label"] and column(pairs, 2) == [1, 0]
    with pytest.raises(ValueError, match="has no file lfw-deepfunneled|no file pairsDevTest"):
        ds.LFWDataset(str(tmp_path), task="pairs", usage="test")
    _check_rows_picked(lambda **kw: ds.LFWDataset(str(tmp_path), **kw), 4)


def test_iwslt_tags_and_xml(tmp_path):
    base = tmp_path / "texts" / "de" / "en" / "de-en"
    _write(base / "train.tags.de-en.de", "<url>http://ted</url>\n<talkid>1</talkid>\n"
                                          "Hallo Welt.\n Danke.\n")
    _write(base / "train.tags.de-en.en", "<url>http://ted</url>\n<talkid>1</talkid>\n"
                                          "Hello world.\n Thanks.\n")
    for name, de, en in (("tst2013", "Gut &amp; schön", "Good &amp; nice"),
                         ("tst2014", "Ja", "Yes")):
        _write(base / f"IWSLT16.TED.{name}.de-en.de.xml",
               f'<mteval><doc docid="1"><seg id="1"> {de} </seg></doc></mteval>\n')
        _write(base / f"IWSLT16.TED.{name}.de-en.en.xml",
               f'<mteval><doc docid="1"><seg id="1"> {en} </seg></doc></mteval>\n')
    train = ds.IWSLT2016Dataset(str(tmp_path), usage="train", shuffle=False)
    assert train.get_col_names() == ["text", "translation"]
    assert rows(train) == [["Hallo Welt.", "Hello world."], ["Danke.", "Thanks."]]
    assert rows(ds.IWSLT2016Dataset(str(tmp_path), usage="valid")) == [["Gut & schön",
                                                                         "Good & nice"]]
    assert ds.IWSLT2016Dataset(str(tmp_path)).get_dataset_size() == 4
    _check_rows_picked(lambda **kw: ds.IWSLT2016Dataset(str(tmp_path), **kw), 4)
    with pytest.raises(ValueError, match="language_pair"):
        ds.IWSLT2016Dataset(str(tmp_path), language_pair=["de", "it"])
    with pytest.raises(ValueError, match="no file IWSLT17.TED.dev2010.de-en.de.xml"):
        ds.IWSLT2017Dataset(str(tmp_path), usage="valid")
    assert ds.IWSLT2017Dataset(str(tmp_path), usage="train").get_dataset_size() == 2


def test_rendered_sst2_and_manifest(tmp_path):
    sst = tmp_path / "rendered-sst2"
    for part in ("train", "valid", "test"):
        for n, kind in enumerate(("negative", "positive")):
            _png(str(sst / part / kind / f"{n}.png"), n)
    data = ds.RenderedSST2Dataset(str(sst), usage="val", shuffle=False)
    assert data.get_col_names() == ["image", "label"] and column(data, 1) == [0, 1]
    assert ds.RenderedSST2Dataset(str(sst)).get_dataset_size() == 6
    _check_rows_picked(lambda **kw: ds.RenderedSST2Dataset(str(sst), **kw), 6)

    first = _png(str(tmp_path / "imgs" / "a.jpg"), 0)
    _png(str(tmp_path / "imgs" / "b.jpg"), 1)
    _write(tmp_path / "data.manifest",
           '{"source": "imgs/a.jpg", "usage": "TRAIN", "annotation": [{"name": "dog"}]}\n'
           '{"source": "imgs/b.jpg", "usage": "train", "annotation": [{"name": "cat"}, '
           '{"name": "dog"}]}\n'
           '{"source": "imgs/a.jpg", "usage": "EVAL", "annotation": [{"name": "cat"}]}\n')
    manifest = ds.ManifestDataset(str(tmp_path / "data.manifest"), decode=True, shuffle=False)
    got = list(manifest.create_tuple_iterator(output_numpy=True))
    assert np.array_equal(got[0][0], first) and got[0][1].dtype == np.uint32
    assert [r[1].tolist() for r in got] == [[1], [0, 1]]
    assert manifest.get_class_indexing() == {"cat": 0, "dog": 1}
    assert column(ds.ManifestDataset(str(tmp_path / "data.manifest"), "eval",
                                     class_indexing={"cat": 5}), 1) == [[5]]
    _check_rows_picked(lambda **kw: ds.ManifestDataset(str(tmp_path / "data.manifest"), **kw),
                       2)


# ----- TFRecord -----

def _pb_varint(n):
    n &= (1 << 64) - 1
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def _pb_field(number, payload):
    return _pb_varint(number << 3 | 2) + _pb_varint(len(payload)) + payload


def _example(features):
    """A serialized tf.train.Example (ints packed, floats packed, bytes as a list)."""
    import struct
    entries = b""
    for name, value in features.items():
        if isinstance(value[0], bytes):
            inner = _pb_field(1, b"".join(_pb_field(1, v) for v in value))
        elif isinstance(value[0], float):
            inner = _pb_field(2, _pb_field(1, struct.pack(f"<{len(value)}f", *value)))
        else:
            inner = _pb_field(3, _pb_field(1, b"".join(_pb_varint(v) for v in value)))
        entries += _pb_field(1, _pb_field(1, name.encode()) + _pb_field(2, inner))
    return _pb_field(1, entries)


def _write_tfrecord(path, examples, compress=False):
    import gzip
    import struct
    data = b"".join(struct.pack("<Q", len(e)) + b"\0" * 4 + e + b"\0" * 4 for e in examples)
    with open(path, "wb") as f:
        f.write(gzip.compress(data) if compress else data)


def test_tfrecord_examples(tmp_path):
    examples = [_example({"image": [bytes([i, i + 1, 2])], "label": [i - 1],
                          "score": [0.5 * i, 1.0]}) for i in range(3)]
    _write_tfrecord(tmp_path / "a.tfrecord", examples[:2])
    _write_tfrecord(tmp_path / "b.tfrecord", examples[2:])
    data = ds.TFRecordDataset(str(tmp_path / "*.tfrecord"), shuffle=False)
    assert data.get_col_names() == ["image", "label", "score"] and data.get_dataset_size() == 3
    got = list(data.create_tuple_iterator(output_numpy=True))
    assert got[1][0] == bytes([1, 2, 2]) and got[0][1].tolist() == [-1]
    assert got[0][1].dtype == np.int64 and got[2][2].dtype == np.float32
    assert got[2][2].tolist() == [1.0, 1.0]
    schema = ds.Schema()
    schema.add_column("image", "uint8", [3])
    schema.add_column("label", "int32", [])
    typed = ds.TFRecordDataset([str(tmp_path / "a.tfrecord")], schema=schema,
                               columns_list=["label", "image"], shuffle=False)
    first = next(iter(typed.create_tuple_iterator(output_numpy=True)))
    assert first[0].dtype == np.int32 and first[0].shape == () and int(first[0]) == -1
    assert first[1].tolist() == [0, 1, 2]
    _write_tfrecord(tmp_path / "c.gz", examples, compress=True)
    assert ds.TFRecordDataset(str(tmp_path / "c.gz"), compression_type="GZIP",
                              shuffle=False).get_dataset_size() == 3
    _check_rows_picked(lambda **kw: ds.TFRecordDataset(str(tmp_path / "*.tfrecord"), **kw), 3)
    with pytest.raises(ValueError, match="columns_list names"):
        ds.TFRecordDataset(str(tmp_path / "a.tfrecord"), columns_list=["nope"])


# ----- sync_wait / sync_update -----

def test_sync_wait_holds_until_sync_update(monkeypatch):
    from minispore.dataset.sync import SyncWaitDataset
    monkeypatch.setattr(SyncWaitDataset, "TIMEOUT", 2.0)
    updates = []
    data = ds.NumpySlicesDataset({"x": np.arange(8)}, shuffle=False).map(lambda x: x * 10, "x")
    data = data.sync_wait("policy", num_batch=2, callback=updates.append).batch(2)
    got = []
    for (x,) in data.create_tuple_iterator(output_numpy=True, num_epochs=1):
        got.append(x.tolist())
        if len(got) % 2 == 0:
            data.sync_update("policy", data=len(got))
    assert got == [[0, 10], [20, 30], [40, 50], [60, 70]] and updates == [2, 4]
    monkeypatch.setattr(SyncWaitDataset, "TIMEOUT", 0.05)
    stuck = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False).sync_wait("p").batch(2)
    with pytest.raises(RuntimeError, match="no sync_update .* before batch 2"):
        rows(stuck)
    assert stuck.get_dataset_size() == 2  # counting rows does not wait
    with pytest.raises(RuntimeError, match="no sync_wait step named 'other'"):
        stuck.sync_update("other")


def test_a_split_part_is_not_serialized_as_the_whole():
    data = ds.NumpySlicesDataset({"n": np.arange(4)}, shuffle=False)
    first, _ = data.split([2, 2], randomize=False)
    with pytest.raises(TypeError, match="did not record how it was built"):
        ds.serialize(first)
