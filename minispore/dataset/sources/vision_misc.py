"""More image datasets of plain files: SBU captioned photos, LSUN (as extracted image
folders; the LMDB release is not read), PhotoTour patches (bmp sheets of 64x64 patches) and
LFW (people and pairs), Rendered SST-2 and ModelArts manifests."""
import os
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from .base import MappableSource, json_lines
from .vision_files import _check_dir
from .vision_more import _choice, _ImageFiles

__all__ = ["SBUDataset", "LSUNDataset", "PhotoTourDataset", "LFWDataset",
           "RenderedSST2Dataset", "ManifestDataset"]

_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def _labelled_images(api: str, root: str,
                     folders: Sequence[Tuple[str, int]]) -> Tuple[List[str], List[np.uint32]]:
    """(image paths, labels) of the images in each (sub-folder of root, label), in sorted
    file order; a missing folder is an error."""
    files: List[str] = []
    labels: List[np.uint32] = []
    for name, label in folders:
        path = os.path.join(root, name)
        if not os.path.isdir(path):
            raise ValueError(f"{api}: folder {path} is missing")
        for file in sorted(os.listdir(path)):
            if file.lower().endswith(_IMAGE_SUFFIXES):
                files.append(os.path.join(path, file))
                labels.append(np.uint32(label))
    return files, labels


class SBUDataset(_ImageFiles):
    """SBU captioned photos: ``SBU_captioned_photo_dataset_urls.txt`` and
    ``SBU_captioned_photo_dataset_captions.txt`` (line-aligned) and the downloaded images in
    ``sbu_images/`` named by their URL's last part. Photos not downloaded are skipped.
    Columns ``image`` and ``caption`` (str).

    Example:
        >>> data = ds.SBUDataset("/data/sbu", decode=True)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 decode: bool = False, sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "SBUDataset"
        folder = _check_dir(dataset_dir, api)
        texts = []
        for name in ("SBU_captioned_photo_dataset_urls.txt",
                     "SBU_captioned_photo_dataset_captions.txt"):
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                raise ValueError(f"{api}: {folder} has no file {name}")
            with open(path, encoding="utf-8") as f:
                texts.append([line.rstrip("\r\n") for line in f if line.strip()])
        urls, captions = texts
        if len(urls) != len(captions):
            raise RuntimeError(f"{api}: {len(urls)} urls but {len(captions)} captions")
        files, labels = [], []
        for url, caption in zip(urls, captions):
            path = os.path.join(folder, "sbu_images", url.strip().rsplit("/", 1)[-1])
            if os.path.isfile(path):
                files.append(path)
                labels.append(np.array(caption.strip()))
        super().__init__(api, ["image", "caption"], files, labels, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class LSUNDataset(_ImageFiles):
    """LSUN scenes as image folders: ``<category>_train/``, ``<category>_val/`` and
    ``test/`` in `dataset_dir` (the images extracted from the LMDB release).

    Columns ``image`` and ``label`` uint32 (the category's index in `classes`; 0 for the
    unlabelled test images). `usage` "train", "valid", "test" or "all"/None (train and
    valid); `classes` a category or a list of them (default all ten: bedroom, bridge,
    church_outdoor, classroom, conference_room, dining_room, kitchen, living_room,
    restaurant, tower).

    Example:
        >>> data = ds.LSUNDataset("/data/lsun", usage="valid",
        ...                       classes=["bedroom"])                 # doctest: +SKIP
    """

    CATEGORIES = ("bedroom", "bridge", "church_outdoor", "classroom", "conference_room",
                  "dining_room", "kitchen", "living_room", "restaurant", "tower")

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 classes: Any = None, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 decode: bool = False, sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "LSUNDataset"
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, ("train", "valid", "test", "all"), "all", api)
        chosen: Sequence[str] = self.CATEGORIES if classes is None else (
            [classes] if isinstance(classes, str) else list(classes))
        unknown = sorted(set(chosen) - set(self.CATEGORIES))
        if unknown:
            raise ValueError(f"{api}: unknown classes {unknown}; LSUN has {self.CATEGORIES}")
        folders: List[Tuple[str, int]] = []
        if usage == "test":
            folders.append(("test", 0))
        else:
            for label, name in enumerate(chosen):
                for part in (["train", "val"] if usage == "all" else
                             ["val" if usage == "valid" else "train"]):
                    folders.append((f"{name}_{part}", label))
        files, labels = _labelled_images(api, folder, folders)
        super().__init__(api, ["image", "label"], files, labels, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class PhotoTourDataset(MappableSource):
    """PhotoTour (Brown's multi-view patches): ``<name>/patches*.bmp`` sheets of 16x16
    patches of 64x64 pixels (row-major, in file order), ``<name>/info.txt`` (the 3D point of
    each patch) and ``<name>/m50_100000_100000_0.txt`` (test pairs) in `dataset_dir`.

    usage "train": columns ``image`` (64, 64, 1) uint8 and ``label`` uint32 (the point id);
    usage "test": ``image1``, ``image2`` and ``matches`` uint32 (1 when both show the same
    point). `name` "notredame", "yosemite", "liberty" or their "_harris" versions.

    Example:
        >>> data = ds.PhotoTourDataset("/data/phototour", "liberty",
        ...                            usage="test")                   # doctest: +SKIP
    """

    NAMES = ("notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris",
             "liberty_harris")

    def __init__(self, dataset_dir: str, name: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "PhotoTourDataset"
        if name not in self.NAMES:
            raise ValueError(f"{api}: name must be one of {self.NAMES}, got {name!r}")
        usage = _choice(usage, ("train", "test"), "train", api)
        self._train = usage == "train"
        super().__init__(api, ["image", "label"] if self._train else [
            "image1", "image2", "matches"], num_samples, num_parallel_workers, shuffle, sampler,
            num_shards, shard_id)
        root = os.path.join(_check_dir(dataset_dir, api), name)
        sheets = sorted(f for f in os.listdir(root) if f.startswith("patches")
                        and f.endswith(".bmp")) if os.path.isdir(root) else []
        if not sheets:
            raise ValueError(f"{api}: {root} has no patches*.bmp")
        self._sheets = [os.path.join(root, s) for s in sheets]
        info = os.path.join(root, "info.txt")
        if not os.path.isfile(info):
            raise ValueError(f"{api}: {info} is missing")
        self._points = np.loadtxt(info, dtype=np.int64, usecols=0, ndmin=1).astype(np.uint32)
        if not self._train:
            matches = os.path.join(root, "m50_100000_100000_0.txt")
            if not os.path.isfile(matches):
                raise ValueError(f"{api}: {matches} is missing")
            table = np.loadtxt(matches, dtype=np.int64, ndmin=2)
            self._pairs = table[:, [0, 3]]
            self._matches = (table[:, 1] == table[:, 4]).astype(np.uint32)
        self._cache: dict = {}

    def _patch(self, index: int) -> np.ndarray:
        sheet, cell = divmod(index, 256)
        if sheet not in self._cache:
            from PIL import Image
            with Image.open(self._sheets[sheet]) as image:
                self._cache[sheet] = np.asarray(image.convert("L"), np.uint8)
        row, col = divmod(cell, 16)
        return self._cache[sheet][row * 64:(row + 1) * 64, col * 64:(col + 1) * 64, None]

    def _row_count(self) -> int:
        return len(self._points) if self._train else len(self._pairs)

    def _read(self, index: int) -> Tuple[Any, ...]:
        if self._train:
            return self._patch(index), self._points[index]
        first, second = self._pairs[index]
        return self._patch(int(first)), self._patch(int(second)), self._matches[index]


class LFWDataset(_ImageFiles):
    """Labeled Faces in the Wild: the images ``<image_set folder>/<person>/<person>_NNNN.jpg``
    (folders ``lfw``, ``lfw-funneled``, ``lfw-deepfunneled``) and the lists
    ``peopleDevTrain.txt`` / ``peopleDevTest.txt`` / ``people.txt`` (task "people") or
    ``pairsDevTrain.txt`` / ``pairsDevTest.txt`` / ``pairs.txt`` (task "pairs") in
    `dataset_dir`.

    task "people" (default): columns ``image`` and ``label`` uint32 (the person's index in
    the sorted names of the list); "pairs": ``image1``, ``image2`` and ``label`` uint32 (1
    for the same person). `usage` "train", "test", "10fold" or "all" (train then test,
    default); `image_set` "original", "funneled" (default) or "deepfunneled".

    Example:
        >>> data = ds.LFWDataset("/data/lfw", task="pairs", usage="test")    # doctest: +SKIP
    """

    _FOLDERS = {"original": "lfw", "funneled": "lfw-funneled",
                "deepfunneled": "lfw-deepfunneled"}

    def __init__(self, dataset_dir: str, task: Optional[str] = None,
                 usage: Optional[str] = None, image_set: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, decode: bool = False, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "LFWDataset"
        folder = _check_dir(dataset_dir, api)
        task = _choice(task, ("people", "pairs"), "people", api, "task")
        usage = _choice(usage, ("train", "test", "10fold", "all"), "all", api)
        image_set = _choice(image_set, tuple(self._FOLDERS), "funneled", api, "image_set")
        images = os.path.join(folder, self._FOLDERS[image_set])
        stem = "people" if task == "people" else "pairs"
        lists = {"train": [f"{stem}DevTrain.txt"], "test": [f"{stem}DevTest.txt"],
                 "10fold": [f"{stem}.txt"],
                 "all": [f"{stem}DevTrain.txt", f"{stem}DevTest.txt"]}[usage]
        lines: List[List[str]] = []
        for name in lists:
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                raise ValueError(f"{api}: {folder} has no file {name}")
            with open(path, encoding="utf-8") as f:
                lines += [line.split() for line in f if line.strip()]

        def image(person: str, number: str) -> str:
            return os.path.join(images, person, f"{person}_{int(number):04d}.jpg")

        files: List[str] = []
        targets: List[Any] = []
        self._pairs = task == "pairs"
        if not self._pairs:
            entries = [fields for fields in lines if len(fields) == 2]  # skip count lines
            names = sorted({person for person, _ in entries})
            for person, count in entries:
                for number in range(1, int(count) + 1):
                    files.append(image(person, str(number)))
                    targets.append(np.uint32(names.index(person)))
            columns = ["image", "label"]
        else:
            for fields in lines:
                if len(fields) == 3:
                    pair = (image(fields[0], fields[1]), image(fields[0], fields[2]), 1)
                elif len(fields) == 4:
                    pair = (image(fields[0], fields[1]), image(fields[2], fields[3]), 0)
                else:
                    continue  # the count lines
                files.append(pair[0])
                targets.append((pair[1], np.uint32(pair[2])))
            columns = ["image1", "image2", "label"]
        super().__init__(api, columns, files, targets, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        if not self._pairs:
            return self._image(self._files[index]), self._labels[index]
        second, label = self._labels[index]
        return self._image(self._files[index]), self._image(second), label


class RenderedSST2Dataset(_ImageFiles):
    """Rendered SST-2 (sentences rendered as images): ``<train|valid|test>/<negative|
    positive>/*.png`` in `dataset_dir`. Columns ``image`` and ``label`` uint32 (0
    negative, 1 positive). `usage` "train", "val", "test" or "all"/None.

    Example:
        >>> data = ds.RenderedSST2Dataset("/data/rendered-sst2", usage="val")  # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, decode: bool = False, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "RenderedSST2Dataset"
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, ("train", "val", "test", "all"), "all", api)
        parts = ["train", "valid", "test"] if usage == "all" else \
            ["valid" if usage == "val" else usage]
        files, labels = _labelled_images(api, folder, [
            (os.path.join(part, kind), label) for part in parts
            for label, kind in enumerate(("negative", "positive"))])
        super().__init__(api, ["image", "label"], files, labels, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class ManifestDataset(_ImageFiles):
    """A Huawei ModelArts manifest: one JSON object a line, ``{"source": <image path>,
    "usage": "train"|"eval"|..., "annotation": [{"name": <class>, ...}, ...]}`` (relative
    sources are relative to the manifest's folder).

    Columns ``image`` (bytes, or decoded with `decode`) and ``label`` uint32 (K,), the
    indices of the sample's annotation names in `class_indexing` (default: the sorted names
    found in the file). `usage` picks the lines of that usage (case-insensitive; "train",
    "eval" or "inference").

    Example:
        >>> data = ds.ManifestDataset("/data/train.manifest", usage="eval")    # doctest: +SKIP
    """

    def __init__(self, dataset_file: str, usage: str = "train",
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 class_indexing: Optional[dict] = None, decode: bool = False,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "ManifestDataset"
        usage = _choice(usage, ("train", "eval", "inference"), "train", api)
        if not os.path.isfile(dataset_file):
            raise ValueError(f"{api}: dataset_file {dataset_file!r} is not a file")
        base = os.path.dirname(os.path.abspath(dataset_file))
        entries = []
        for record in json_lines(api, dataset_file):
            if str(record.get("usage", "")).lower() != usage:
                continue
            names = [a["name"] for a in record.get("annotation", []) if "name" in a]
            entries.append((os.path.join(base, record["source"]), names))
        if class_indexing is None:
            found = sorted({n for _, names in entries for n in names})
            class_indexing = {name: i for i, name in enumerate(found)}
        self._class_indexing = dict(class_indexing)
        files, labels = [], []
        for source, names in entries:
            unknown = [n for n in names if n not in self._class_indexing]
            if unknown:
                raise ValueError(f"{api}: classes {unknown} are not in class_indexing")
            files.append(source)
            labels.append(np.asarray([self._class_indexing[n] for n in names], np.uint32))
        super().__init__(api, ["image", "label"], files, labels, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def get_class_indexing(self) -> dict:
        """dict class name -> label."""
        return dict(self._class_indexing)

    def num_classes(self) -> int:
        return len(self._class_indexing)
