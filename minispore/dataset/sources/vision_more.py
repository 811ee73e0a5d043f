"""More image datasets in their published on-disk formats, read from local folders (no
downloads): KMNIST / EMNIST / QMNIST (idx files), FakeImageDataset (seeded random images),
SVHN (.mat, needs scipy), STL-10 (binary), USPS (bz2 libsvm text), Semeion (text),
Caltech-256 (class folders) and CelebA (image folder + list_attr_celeba.txt).

Each reads its index on construction and the rows lazily, by index, as every
`MappableSource` (num_samples, shuffle, sampler, num_shards / shard_id, workers).
"""
import bz2
import gzip
import os
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ..vision import Decode
from .base import MappableSource
from .vision_files import MnistDataset, _check_dir, _idx_path, _read_idx

__all__ = ["KMnistDataset", "EMnistDataset", "QMnistDataset", "FakeImageDataset",
           "SVHNDataset", "STL10Dataset", "USPSDataset", "SemeionDataset",
           "Caltech256Dataset", "CelebADataset"]


def _choice(value: Optional[str], allowed: Sequence[str], default: str, api: str,
            arg: str = "usage") -> str:
    value = default if value is None else value
    if value not in allowed:
        raise ValueError(f"{api}: {arg} must be one of {tuple(allowed)} or None, got {value!r}")
    return value


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST: MNIST's idx-ubyte file names and format (plain or .gz), ten classes of
    cursive Japanese characters. Columns ``image`` (28, 28, 1) uint8, ``label`` uint32.

    Example:
        >>> data = ds.KMnistDataset("/data/kmnist", usage="train")    # doctest: +SKIP
    """


class EMnistDataset(MnistDataset):
    """EMNIST (the idx files of gzip.zip): ``emnist-<name>-<usage>-images-idx3-ubyte`` and
    ``...-labels-idx1-ubyte`` (plain or .gz) in `dataset_dir`.

    Args:
        name: the split, "byclass", "bymerge", "balanced", "letters", "digits" or "mnist".
        usage: "train", "test" or "all"/None.

    Columns ``image`` (28, 28, 1) uint8 and ``label`` uint32. Images are stored as in the
    files (EMNIST's are transposed relative to MNIST; `vision.Rotate`/`transpose` fixes that).

    Example:
        >>> data = ds.EMnistDataset("/data/emnist", name="letters", usage="test")  # doctest: +SKIP
    """

    _NAMES = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")

    def __init__(self, dataset_dir: str, name: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        if name not in self._NAMES:
            raise ValueError(f"EMnistDataset: name must be one of {self._NAMES}, got {name!r}")
        self._PREFIXES = {"train": (f"emnist-{name}-train",), "test": (f"emnist-{name}-test",),
                          "all": (f"emnist-{name}-train", f"emnist-{name}-test")}
        self._name = name
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id, cache)

    def num_classes(self) -> int:
        return {"byclass": 62, "bymerge": 47, "balanced": 47, "letters": 26, "digits": 10,
                "mnist": 10}[self._name]


class QMnistDataset(MappableSource):
    """QMNIST: ``qmnist-{train,test}-images-idx3-ubyte`` with ``...-labels-idx2-int`` and
    ``xnist-images-idx3-ubyte`` / ``xnist-labels-idx2-int`` (plain or .gz) in `dataset_dir`.

    Args:
        usage: "train", "test", "test10k" (the first 10000 test rows), "test50k" (the rest),
            "nist" (the xnist files) or "all"/None (train, then test).
        compat: True: ``label`` is the digit (uint32 scalar); False: the row's 8 label
            fields (digit, NIST class, writer, ...), uint32 (8,).

    Columns ``image`` (28, 28, 1) uint8 and ``label``.

    Example:
        >>> data = ds.QMnistDataset("/data/qmnist", usage="test10k")    # doctest: +SKIP
    """

    _USAGES = ("train", "test", "test10k", "test50k", "nist", "all")

    def __init__(self, dataset_dir: str, usage: Optional[str] = None, compat: bool = True,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "QMnistDataset"
        super().__init__(api, ["image", "label"], num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, self._USAGES, "all", api)
        stems = {"train": ["qmnist-train"], "nist": ["xnist"], "all": ["qmnist-train",
                                                                      "qmnist-test"]}.get(
            usage, ["qmnist-test"])
        images, labels = [], []
        for stem in stems:
            images.append(_read_idx(_idx_path(folder, f"{stem}-images-idx3-ubyte", api), 3))
            labels.append(_read_int_idx(_idx_path(folder, f"{stem}-labels-idx2-int", api)))
        image_block, label_block = np.concatenate(images), np.concatenate(labels)
        if usage == "test10k":
            image_block, label_block = image_block[:10000], label_block[:10000]
        elif usage == "test50k":
            image_block, label_block = image_block[10000:], label_block[10000:]
        if len(image_block) != len(label_block):
            raise RuntimeError(f"{api}: {len(image_block)} images but {len(label_block)} labels")
        self._images = image_block[..., None]
        self._labels = label_block.astype(np.uint32)
        self._compat = bool(compat)

    def _row_count(self) -> int:
        return len(self._labels)

    def _read(self, index: int) -> Tuple[np.ndarray, Any]:
        label = self._labels[index]
        return self._images[index], label[0] if self._compat else label


def _read_int_idx(path: str) -> np.ndarray:
    """A 2-D idx file of big-endian int32 (magic 0x00000C02), QMNIST's label format."""
    opener: Any = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    magic = int.from_bytes(raw[:4], "big")
    if magic != 0x0C02:
        raise RuntimeError(f"{path}: not a 2-D int32 idx file (magic {magic:#010x}, expected "
                           f"0x00000c02)")
    shape = tuple(int(d) for d in np.frombuffer(raw[4:12], dtype=">i4"))
    data = np.frombuffer(raw, dtype=">i4", offset=12)
    if data.size != shape[0] * shape[1]:
        raise RuntimeError(f"{path}: the header announces shape {shape} but {data.size} "
                           f"values follow")
    return data.reshape(shape).astype(np.int64)


class FakeImageDataset(MappableSource):
    """`num_images` random images with random labels, the same for the same `base_seed`
    (row i is drawn from seed (base_seed, i), so any worker or shard reads the same row).

    Columns ``image`` uint8 of `image_size` (H, W, C) and ``label`` uint32 in [0, num_classes).

    Example:
        >>> import minispore.dataset as ds
        >>> fake = ds.FakeImageDataset(num_images=8, image_size=(32, 32, 3), num_classes=4)
        >>> fake.get_dataset_size()
        8
    """

    def __init__(self, num_images: int = 1000, image_size: Sequence[int] = (224, 224, 3),
                 num_classes: int = 10, base_seed: int = 0, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "FakeImageDataset"
        for arg, value in (("num_images", num_images), ("num_classes", num_classes)):
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"{api}: {arg} must be a positive int, got {value!r}")
        if len(image_size) != 3 or any(int(s) <= 0 for s in image_size):
            raise ValueError(f"{api}: image_size must be 3 positive ints (H, W, C), got "
                             f"{image_size!r}")
        super().__init__(api, ["image", "label"], num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        self._count, self._shape = num_images, tuple(int(s) for s in image_size)
        self._classes, self._seed = num_classes, int(base_seed)

    def _row_count(self) -> int:
        return self._count

    def _read(self, index: int) -> Tuple[np.ndarray, Any]:
        rng = np.random.default_rng([self._seed, index])
        image = rng.integers(0, 256, self._shape, dtype=np.uint8)
        return image, np.uint32(rng.integers(self._classes))

    def num_classes(self) -> int:
        return self._classes


class SVHNDataset(MappableSource):
    """SVHN, cropped digits: ``train_32x32.mat``, ``test_32x32.mat``, ``extra_32x32.mat`` in
    `dataset_dir` (MATLAB files: X (32, 32, 3, N) uint8, y (N, 1) with 10 for the digit 0),
    read with scipy.io.loadmat (ImportError without scipy).

    Columns ``image`` (32, 32, 3) uint8 and ``label`` uint32 (0-9). `usage` "train",
    "test", "extra" or "all"/None.

    Example:
        >>> data = ds.SVHNDataset("/data/svhn", usage="train")    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None) -> None:
        api = "SVHNDataset"
        try:
            from scipy.io import loadmat
        except ImportError:
            raise ImportError("SVHNDataset reads MATLAB .mat files with scipy.io.loadmat; "
                              "install scipy (pip install scipy)") from None
        super().__init__(api, ["image", "label"], num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, ("train", "test", "extra", "all"), "all", api)
        parts = ["train", "test", "extra"] if usage == "all" else [usage]
        images, labels = [], []
        for part in parts:
            path = os.path.join(folder, f"{part}_32x32.mat")
            if not os.path.isfile(path):
                raise ValueError(f"{api}: {folder} has no file {part}_32x32.mat")
            mat = loadmat(path)
            images.append(np.asarray(mat["X"], np.uint8).transpose(3, 0, 1, 2))
            labels.append(np.asarray(mat["y"]).reshape(-1) % 10)
        self._images = np.concatenate(images)
        self._labels = np.concatenate(labels).astype(np.uint32)

    def _row_count(self) -> int:
        return len(self._labels)

    def _read(self, index: int) -> Tuple[np.ndarray, Any]:
        return self._images[index], self._labels[index]


class STL10Dataset(MappableSource):
    """STL-10, binary version: ``train_X.bin`` / ``train_y.bin``, ``test_X.bin`` /
    ``test_y.bin`` and ``unlabeled_X.bin`` in `dataset_dir` (images 3x96x96 in column-major
    order, labels one byte 1-10).

    Columns ``image`` (96, 96, 3) uint8 and ``label`` int32 (0-9; -1 for unlabeled rows).
    `usage` "train", "test", "unlabeled", "train+unlabeled" or "all"/None.

    Example:
        >>> data = ds.STL10Dataset("/data/stl10_binary", usage="train")    # doctest: +SKIP
    """

    _PARTS = {"train": ["train"], "test": ["test"], "unlabeled": ["unlabeled"],
              "train+unlabeled": ["train", "unlabeled"], "all": ["train", "test", "unlabeled"]}

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "STL10Dataset"
        super().__init__(api, ["image", "label"], num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, tuple(self._PARTS), "all", api)
        images, labels = [], []
        for part in self._PARTS[usage]:
            path = os.path.join(folder, f"{part}_X.bin")
            if not os.path.isfile(path):
                raise ValueError(f"{api}: {folder} has no file {part}_X.bin")
            raw = np.fromfile(path, dtype=np.uint8)
            if raw.size % (3 * 96 * 96):
                raise RuntimeError(f"{api}: {path} is {raw.size} bytes, not a multiple of one "
                                   f"3x96x96 image")
            block = raw.reshape(-1, 3, 96, 96).transpose(0, 3, 2, 1)  # column-major -> HWC
            images.append(block)
            if part == "unlabeled":
                labels.append(np.full(len(block), -1, np.int32))
            else:
                label_path = os.path.join(folder, f"{part}_y.bin")
                if not os.path.isfile(label_path):
                    raise ValueError(f"{api}: {folder} has no file {part}_y.bin")
                part_labels = np.fromfile(label_path, dtype=np.uint8).astype(np.int32) - 1
                if len(part_labels) != len(block):
                    raise RuntimeError(f"{api}: {path} holds {len(block)} images but "
                                       f"{label_path} {len(part_labels)} labels")
                labels.append(part_labels)
        self._images, self._labels = np.concatenate(images), np.concatenate(labels)

    def _row_count(self) -> int:
        return len(self._labels)

    def _read(self, index: int) -> Tuple[np.ndarray, Any]:
        return self._images[index], self._labels[index]


class USPSDataset(MappableSource):
    """USPS: ``usps.bz2`` (train) and ``usps.t.bz2`` (test) in `dataset_dir`, bzip2-compressed
    libsvm lines ``label 1:v1 ... 256:v256`` with v in [-1, 1].

    Columns ``image`` (16, 16, 1) uint8 ((v + 1) / 2 * 255) and ``label`` uint32 (label - 1).
    `usage` "train", "test" or "all"/None; `shuffle` a bool or a `Shuffle` mode (as MindSpore,
    GLOBAL by default; FILES/INFILE shuffle globally here).

    Example:
        >>> data = ds.USPSDataset("/data/usps", usage="test", shuffle=False)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Any = True, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "USPSDataset"
        super().__init__(api, ["image", "label"], num_samples, num_parallel_workers,
                         shuffle is not False, None, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, ("train", "test", "all"), "all", api)
        files = {"train": ["usps.bz2"], "test": ["usps.t.bz2"],
                 "all": ["usps.bz2", "usps.t.bz2"]}[usage]
        images, labels = [], []
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                raise ValueError(f"{api}: {folder} has no file {name}")
            with bz2.open(path, "rt") as f:
                for number, line in enumerate(f, 1):
                    fields = line.split()
                    if not fields:
                        continue
                    pixels = np.zeros(256, np.float64)
                    try:
                        for item in fields[1:]:
                            key, value = item.split(":")
                            pixels[int(key) - 1] = float(value)
                        labels.append(int(float(fields[0])) - 1)
                    except (ValueError, IndexError):
                        raise RuntimeError(f"{api}: {path}:{number} is not a libsvm line of "
                                           f"256 features") from None
                    images.append(np.clip((pixels + 1) / 2 * 255, 0, 255).round())
        self._images = np.asarray(images, np.uint8).reshape(-1, 16, 16, 1)
        self._labels = np.asarray(labels, np.uint32)

    def _row_count(self) -> int:
        return len(self._labels)

    def _read(self, index: int) -> Tuple[np.ndarray, Any]:
        return self._images[index], self._labels[index]


class SemeionDataset(MappableSource):
    """Semeion handwritten digits: ``semeion.data`` in `dataset_dir`, one line per digit of
    256 pixel values (0/1) then a one-hot of 10.

    Columns ``image`` (16, 16) uint8 (0 or 255) and ``label`` uint32.

    Example:
        >>> data = ds.SemeionDataset("/data/semeion", shuffle=False)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "SemeionDataset"
        super().__init__(api, ["image", "label"], num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        path = os.path.join(_check_dir(dataset_dir, api), "semeion.data")
        if not os.path.isfile(path):
            raise ValueError(f"{api}: {dataset_dir} has no file semeion.data")
        table = np.loadtxt(path, ndmin=2)
        if table.shape[1] != 266:
            raise RuntimeError(f"{api}: {path} has {table.shape[1]} values a line, expected "
                               f"266 (256 pixels and a one-hot of 10)")
        self._images = (table[:, :256].reshape(-1, 16, 16) * 255).round().astype(np.uint8)
        self._labels = table[:, 256:].argmax(axis=1).astype(np.uint32)

    def _row_count(self) -> int:
        return len(self._labels)

    def _read(self, index: int) -> Tuple[np.ndarray, Any]:
        return self._images[index], self._labels[index]


class _ImageFiles(MappableSource):
    """Rows that read an image file (raw bytes, or decoded with `decode`) plus labels."""

    def __init__(self, api: str, columns: List[str], files: List[str], labels: List[Any],
                 decode: bool, num_samples: Optional[int], num_parallel_workers: Optional[int],
                 shuffle: Optional[bool], sampler: Any, num_shards: Optional[int],
                 shard_id: Optional[int]) -> None:
        super().__init__(api, columns, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)
        self._files, self._labels = files, labels
        self._decode = bool(decode)

    def _row_count(self) -> int:
        return len(self._files)

    def _image(self, path: str) -> np.ndarray:
        image = np.fromfile(path, dtype=np.uint8)
        if self._decode:
            try:
                image = Decode()(image)
            except RuntimeError as error:
                raise RuntimeError(f"{path}: {error}") from None
        return image

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        return (self._image(self._files[index]), self._labels[index])


class Caltech256Dataset(_ImageFiles):
    """Caltech-256: one folder per class, ``dataset_dir/<NNN>.<name>/<NNN>_<MMMM>.jpg``.

    Columns ``image`` (the file's bytes, or HWC RGB uint8 with `decode`) and ``label``
    uint32: the class folder's index in sorted order (001.ak47 -> 0).

    Example:
        >>> data = ds.Caltech256Dataset("/data/256_ObjectCategories", decode=True)  # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 decode: bool = False, sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "Caltech256Dataset"
        folder = _check_dir(dataset_dir, api)
        classes = sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d)))
        files, labels = [], []
        for label, name in enumerate(classes):
            for file in sorted(os.listdir(os.path.join(folder, name))):
                path = os.path.join(folder, name, file)
                if os.path.isfile(path) and file.lower().endswith((".jpg", ".jpeg", ".png")):
                    files.append(path)
                    labels.append(np.uint32(label))
        super().__init__(api, ["image", "label"], files, labels, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        self._classes = len(classes)

    def num_classes(self) -> int:
        return self._classes


class CelebADataset(_ImageFiles):
    """CelebA: the images and ``list_attr_celeba.txt`` in `dataset_dir` (a count line, the 40
    attribute names, then ``<file> <40 values of 1 or -1>`` per image), with
    ``list_eval_partition.txt`` (``<file> <0 train|1 valid|2 test>``) for `usage`.

    Columns ``image`` (the file's bytes, or HWC RGB uint8 with `decode`) and ``attr``
    uint32 (40,), 1 where the attribute holds and 0 elsewhere.

    Args:
        usage: "train", "valid", "test" or "all" (default).
        extensions: only image files with these extensions, e.g. [".jpg"].

    Example:
        >>> data = ds.CelebADataset("/data/celeba", usage="train", decode=True)  # doctest: +SKIP
    """

    _PARTITIONS = {"train": "0", "valid": "1", "test": "2"}

    def __init__(self, dataset_dir: str, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, usage: str = "all", sampler: Any = None,
                 decode: bool = False, extensions: Optional[Sequence[str]] = None,
                 num_samples: Optional[int] = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None, decrypt: Any = None) -> None:
        api = "CelebADataset"
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, ("train", "valid", "test", "all"), "all", api)
        attr_path = os.path.join(folder, "list_attr_celeba.txt")
        if not os.path.isfile(attr_path):
            raise ValueError(f"{api}: {folder} has no file list_attr_celeba.txt")
        with open(attr_path, encoding="utf-8") as f:
            lines = [line.split() for line in f if line.strip()]
        self._attr_names = lines[1]
        keep = None
        if usage != "all":
            partition = os.path.join(folder, "list_eval_partition.txt")
            if not os.path.isfile(partition):
                raise ValueError(f"{api}: usage={usage!r} needs list_eval_partition.txt in "
                                 f"{folder}")
            with open(partition, encoding="utf-8") as f:
                keep = {p[0] for p in (line.split() for line in f)
                        if len(p) == 2 and p[1] == self._PARTITIONS[usage]}
        suffixes = tuple(e.lower() for e in extensions) if extensions else None
        files, attrs = [], []
        for number, fields in enumerate(lines[2:], 3):
            if len(fields) != len(self._attr_names) + 1:
                raise RuntimeError(f"{api}: {attr_path}:{number} has {len(fields) - 1} "
                                   f"attribute(s), expected {len(self._attr_names)}")
            name = fields[0]
            if keep is not None and name not in keep:
                continue
            if suffixes is not None and not name.lower().endswith(suffixes):
                continue
            files.append(os.path.join(folder, name))
            attrs.append((np.asarray(fields[1:], np.int64) > 0).astype(np.uint32))
        super().__init__(api, ["image", "attr"], files, attrs, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)
