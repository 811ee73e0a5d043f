"""Image datasets in their standard on-disk formats, read from local folders (no downloads):
MNIST / Fashion-MNIST (idx-ubyte, optionally gzipped), CIFAR-10 / CIFAR-100 (the binary
version) and ImageFolderDataset (one folder per class, decoded with Pillow)."""
import gzip
import os

import numpy as np

from ..vision import Decode
from .base import MappableSource

__all__ = ["MnistDataset", "FashionMnistDataset", "Cifar10Dataset", "Cifar100Dataset",
           "ImageFolderDataset"]

_USAGES = ("train", "test", "all")


def _usage(usage, api):
    usage = "all" if usage is None else usage
    if usage not in _USAGES:
        raise ValueError(f"{api}: usage must be one of {_USAGES} or None, got {usage!r}")
    return usage


def _check_dir(dataset_dir, api):
    if not isinstance(dataset_dir, (str, os.PathLike)) or not os.path.isdir(dataset_dir):
        raise ValueError(f"{api}: dataset_dir {dataset_dir!r} is not a directory")
    return os.fspath(dataset_dir)


class MnistDataset(MappableSource):
    """MNIST from its four idx-ubyte files (plain or .gz) in `dataset_dir`.

    Columns: ``image`` (28, 28, 1) uint8 and ``label`` uint32 (the row's digit). `usage`
    "train" (60000 rows), "test" (10000) or "all"/None (train, then test). The other
    arguments choose the rows, as for every source (see `samplers`).

    Example:
        >>> mnist = ds.MnistDataset("/data/mnist", usage="train", shuffle=True)  # doctest: +SKIP
        >>> mnist = mnist.map(transforms.TypeCast(ms.int32), "label").batch(64)  # doctest: +SKIP
    """

    _PREFIXES = {"train": ("train",), "test": ("t10k",), "all": ("train", "t10k")}

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        api = type(self).__name__
        super().__init__(api, ["image", "label"], num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        images, labels = [], []
        for prefix in self._PREFIXES[_usage(usage, api)]:
            image_path = _idx_path(folder, f"{prefix}-images-idx3-ubyte", api)
            label_path = _idx_path(folder, f"{prefix}-labels-idx1-ubyte", api)
            image_block, label_block = _read_idx(image_path, 3), _read_idx(label_path, 1)
            if len(image_block) != len(label_block):
                raise RuntimeError(f"{api}: {image_path} holds {len(image_block)} images but "
                                   f"{label_path} {len(label_block)} labels")
            images.append(image_block)
            labels.append(label_block)
        self._images = np.concatenate(images)[..., None]  # HWC with one channel
        self._labels = np.concatenate(labels).astype(np.uint32)

    def _row_count(self):
        return len(self._labels)

    def _read(self, index):
        return self._images[index], self._labels[index]

    def num_classes(self):
        return 10


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST: MNIST's file names and format, ten kinds of clothing for digits."""


def _idx_path(folder, name, api):
    for candidate in (name, name + ".gz"):
        path = os.path.join(folder, candidate)
        if os.path.isfile(path):
            return path
    raise ValueError(f"{api}: {folder} has no file {name} (or {name}.gz)")


def _read_idx(path, ndim):
    """The array in an idx-ubyte file (magic 0x0000 08 ndim, big-endian int32 dims, bytes)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise RuntimeError(f"{path}: too short for an idx file ({len(raw)} bytes)")
    magic = int.from_bytes(raw[:4], "big")
    if magic != 0x0800 + ndim:
        raise RuntimeError(f"{path}: not an idx-ubyte file of {ndim} dimension(s) (magic "
                           f"{magic:#010x}, expected {0x0800 + ndim:#010x})")
    shape = tuple(int(d) for d in np.frombuffer(raw[4:header], dtype=">i4"))
    data = np.frombuffer(raw, dtype=np.uint8, offset=header)
    if data.size != int(np.prod(shape)):
        raise RuntimeError(f"{path}: the header announces shape {shape} ({int(np.prod(shape))} "
                           f"bytes) but {data.size} bytes follow")
    return data.reshape(shape)


class Cifar10Dataset(MappableSource):
    """CIFAR-10, binary version: ``data_batch_*.bin`` and ``test_batch.bin`` in `dataset_dir`
    (records of 1 label byte and 3072 image bytes, channel planes).

    Columns: ``image`` (32, 32, 3) uint8 HWC and ``label`` uint32. `usage` "train", "test"
    or "all"/None.
    """

    _RECORD_LABELS = 1
    _PATTERNS = {"train": ("data_batch",), "test": ("test_batch",)}

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        api = type(self).__name__
        super().__init__(api, self._columns(), num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        usage = _usage(usage, api)
        patterns = self._PATTERNS["train"] + self._PATTERNS["test"] if usage == "all" \
            else self._PATTERNS[usage]
        files = [os.path.join(folder, name) for pattern in patterns
                 for name in sorted(os.listdir(folder))
                 if name.startswith(pattern) and name.endswith(".bin")]
        if not files:
            raise ValueError(f"{api}: {folder} has no {' or '.join(patterns)}*.bin file")
        records = np.concatenate([self._records(path) for path in files])
        width = self._RECORD_LABELS
        self._labels = records[:, :width].astype(np.uint32)
        self._images = records[:, width:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)

    def _columns(self):
        return ["image", "label"]

    def _records(self, path):
        raw = np.fromfile(path, dtype=np.uint8)
        size = self._RECORD_LABELS + 3072
        if raw.size % size:
            raise RuntimeError(f"{type(self).__name__}: {path} is {raw.size} bytes, not a "
                               f"multiple of the {size}-byte record")
        return raw.reshape(-1, size)

    def _row_count(self):
        return len(self._labels)

    def _read(self, index):
        return (self._images[index], *self._labels[index])

    def num_classes(self):
        return 10


class Cifar100Dataset(Cifar10Dataset):
    """CIFAR-100, binary version: ``train.bin`` and ``test.bin`` (records of a coarse and a
    fine label byte, then 3072 image bytes). Columns: ``image``, ``coarse_label`` and
    ``fine_label`` (uint32)."""

    _RECORD_LABELS = 2
    _PATTERNS = {"train": ("train",), "test": ("test",)}

    def _columns(self):
        return ["image", "coarse_label", "fine_label"]

    def num_classes(self):
        return 100


class ImageFolderDataset(MappableSource):
    """Images in one sub-folder per class: ``dataset_dir/<class>/<file>``.

    Columns: ``image`` (the file's bytes, 1-D uint8, for `vision.Decode`; decoded HWC RGB
    uint8 with `decode=True`) and ``label`` int32: the class's index in the sorted folder
    names, or `class_indexing[name]` (then only those folders are read).

    Args:
        extensions: file extensions to read, e.g. [".png", ".jpg"] (default: every file).
        class_indexing: dict folder name -> label.
        decode: decode the images while reading.
        The other arguments choose the rows, as for every source (see `samplers`);
        num_parallel_workers threads read (and decode) files.

    Example:
        >>> data = ds.ImageFolderDataset("/data/flowers", extensions=[".jpg"])  # doctest: +SKIP
        >>> data = data.map([vision.Decode(), vision.Resize(64)], "image")     # doctest: +SKIP
    """

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, extensions=None, class_indexing=None, decode=False,
                 num_shards=None, shard_id=None, cache=None, decrypt=None):
        api = type(self).__name__
        super().__init__(api, ["image", "label"], num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        classes = sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d)))
        if class_indexing is not None:
            if not isinstance(class_indexing, dict):
                raise TypeError(f"{api}: class_indexing must be a dict folder name -> label")
            missing = sorted(set(class_indexing) - set(classes))
            if missing:
                raise ValueError(f"{api}: class_indexing names folders {missing} that are not "
                                 f"in {folder}")
            classes = [c for c in classes if c in class_indexing]
        self._class_indexing = dict(class_indexing) if class_indexing is not None else {
            c: i for i, c in enumerate(classes)}
        suffixes = tuple(e.lower() for e in extensions) if extensions else None
        self._files, labels = [], []
        for name in classes:
            class_dir = os.path.join(folder, name)
            for file in sorted(os.listdir(class_dir)):
                path = os.path.join(class_dir, file)
                if os.path.isfile(path) and (suffixes is None or file.lower().endswith(suffixes)):
                    self._files.append(path)
                    labels.append(self._class_indexing[name])
        self._labels = np.asarray(labels, dtype=np.int32)
        self._decode = bool(decode)
        self._decoder = None

    def _row_count(self):
        return len(self._files)

    def _read(self, index):
        path = self._files[index]
        image = np.fromfile(path, dtype=np.uint8)
        if self._decode:
            if self._decoder is None:
                self._decoder = Decode()
            try:
                image = self._decoder(image)
            except RuntimeError as error:
                raise RuntimeError(f"{path}: {error}") from None
        return image, self._labels[index]

    def get_class_indexing(self):
        """dict folder name -> label."""
        return dict(self._class_indexing)

    def num_classes(self):
        return len(set(self._class_indexing.values()))
