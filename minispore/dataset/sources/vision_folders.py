"""Image datasets laid out as folders plus index files: Food-101, SUN397, Places365,
Omniglot, Oxford 102 Flowers (labels in .mat files, scipy), DIV2K (HR / LR pairs) and
Flickr8k / Flickr30k (captions). Images are the files' bytes, or HWC RGB uint8 with
`decode`; rows are read lazily, by index, as every `MappableSource`."""
import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .vision_files import _check_dir
from .vision_more import _choice, _ImageFiles

__all__ = ["Food101Dataset", "SUN397Dataset", "Places365Dataset", "OmniglotDataset",
           "Flowers102Dataset", "DIV2KDataset", "FlickrDataset"]

_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


def _lines(path: str, api: str) -> List[str]:
    if not os.path.isfile(path):
        raise ValueError(f"{api}: {path} is missing")
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


class Food101Dataset(_ImageFiles):
    """Food-101: ``images/<class>/<id>.jpg`` with ``meta/train.txt`` / ``meta/test.txt``
    (lines ``<class>/<id>``) in `dataset_dir`. Columns ``image`` and ``label`` (the class
    name, str). `usage` "train", "test" or "all"/None.

    Example:
        >>> data = ds.Food101Dataset("/data/food-101", usage="test")    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, decode: bool = False, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "Food101Dataset"
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, ("train", "test", "all"), "all", api)
        files, labels = [], []
        for part in (["train", "test"] if usage == "all" else [usage]):
            for entry in _lines(os.path.join(folder, "meta", f"{part}.txt"), api):
                files.append(os.path.join(folder, "images", entry + ".jpg"))
                labels.append(np.array(entry.split("/")[0]))
        super().__init__(api, ["image", "label"], files, labels, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class SUN397Dataset(_ImageFiles):
    """SUN397: ``ClassName.txt`` (lines ``/a/abbey``) and the images under those folders
    (``a/abbey/sun_*.jpg``) in `dataset_dir`. Columns ``image`` and ``label`` uint32 (the
    class's line in ClassName.txt).

    Example:
        >>> data = ds.SUN397Dataset("/data/SUN397", decode=True)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 decode: bool = False, sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "SUN397Dataset"
        folder = _check_dir(dataset_dir, api)
        files, labels = [], []
        for label, name in enumerate(_lines(os.path.join(folder, "ClassName.txt"), api)):
            class_dir = os.path.join(folder, name.strip("/"))
            if not os.path.isdir(class_dir):
                raise ValueError(f"{api}: class folder {class_dir} is missing")
            for file in sorted(os.listdir(class_dir)):
                if file.lower().endswith(_IMAGE_SUFFIXES):
                    files.append(os.path.join(class_dir, file))
                    labels.append(np.uint32(label))
        super().__init__(api, ["image", "label"], files, labels, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class Places365Dataset(_ImageFiles):
    """Places365: ``categories_places365.txt``, the split's list (``places365_train_standard
    .txt``, ``places365_train_challenge.txt`` or ``places365_val.txt``: ``<path> <label>``)
    and its image folder (``data_256_standard``, ``data_256_challenge``, ``val_256``; the
    ``large`` ones with small=False) in `dataset_dir`.

    Columns ``image`` and ``label`` uint32. `usage` "train-standard" (default),
    "train-challenge" or "val".

    Example:
        >>> data = ds.Places365Dataset("/data/places365", usage="val")    # doctest: +SKIP
    """

    _LISTS = {"train-standard": "places365_train_standard.txt",
              "train-challenge": "places365_train_challenge.txt", "val": "places365_val.txt"}
    _FOLDERS = {"train-standard": "data_{}_standard", "train-challenge": "data_{}_challenge",
                "val": "val_{}"}

    def __init__(self, dataset_dir: str, usage: Optional[str] = None, small: bool = True,
                 decode: bool = False, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "Places365Dataset"
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, tuple(self._LISTS), "train-standard", api)
        categories = _lines(os.path.join(folder, "categories_places365.txt"), api)
        self._class_indexing = {line.rsplit(" ", 1)[0]: int(line.rsplit(" ", 1)[1])
                                for line in categories}
        images = os.path.join(folder, self._FOLDERS[usage].format("256" if small else "large"))
        files, labels = [], []
        for entry in _lines(os.path.join(folder, self._LISTS[usage]), api):
            path, _, label = entry.rpartition(" ")
            files.append(os.path.join(images, path.lstrip("/")))
            labels.append(np.uint32(int(label)))
        super().__init__(api, ["image", "label"], files, labels, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def get_class_indexing(self) -> Dict[str, int]:
        """dict category (``/a/airfield``) -> label."""
        return dict(self._class_indexing)


class OmniglotDataset(_ImageFiles):
    """Omniglot: ``images_background/<alphabet>/<character>/*.png`` and
    ``images_evaluation/...`` in `dataset_dir`. Columns ``image`` and ``label`` uint32 (the
    character's index over the sorted alphabet/character folders read). `background` True
    reads images_background, False images_evaluation, None (default) both.

    Example:
        >>> data = ds.OmniglotDataset("/data/omniglot", background=True)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, background: Optional[bool] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, decode: bool = False, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "OmniglotDataset"
        folder = _check_dir(dataset_dir, api)
        parts = {None: ["images_background", "images_evaluation"], True: ["images_background"],
                 False: ["images_evaluation"]}[background]
        files, labels = [], []
        label = 0
        for part in parts:
            root = os.path.join(folder, part)
            if not os.path.isdir(root):
                raise ValueError(f"{api}: {folder} has no folder {part}")
            for alphabet in sorted(os.listdir(root)):
                if not os.path.isdir(os.path.join(root, alphabet)):
                    continue
                for character in sorted(os.listdir(os.path.join(root, alphabet))):
                    char_dir = os.path.join(root, alphabet, character)
                    if not os.path.isdir(char_dir):
                        continue
                    for file in sorted(os.listdir(char_dir)):
                        if file.lower().endswith(_IMAGE_SUFFIXES):
                            files.append(os.path.join(char_dir, file))
                            labels.append(np.uint32(label))
                    label += 1
        super().__init__(api, ["image", "label"], files, labels, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)


class Flowers102Dataset(_ImageFiles):
    """Oxford 102 Flowers: ``jpg/image_NNNNN.jpg``, ``imagelabels.mat`` (labels 1-102),
    ``setid.mat`` (trnid / valid / tstid) and, for segmentation, ``segmim/segmim_NNNNN.jpg``
    in `dataset_dir`; the .mat files are read with scipy.

    Columns: task "Classification" ``image``, ``label`` uint32 (0-101); "Segmentation"
    ``image``, ``segmentation``, ``label``. `usage` "train", "valid", "test" or "all".

    Example:
        >>> data = ds.Flowers102Dataset("/data/flowers102", usage="train",
        ...                             decode=True)                  # doctest: +SKIP
    """

    _SETS = {"train": "trnid", "valid": "valid", "test": "tstid"}

    def __init__(self, dataset_dir: str, task: str = "Classification", usage: str = "all",
                 num_samples: Optional[int] = None, num_parallel_workers: int = 1,
                 shuffle: Optional[bool] = None, decode: bool = False, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None) -> None:
        api = "Flowers102Dataset"
        try:
            from scipy.io import loadmat
        except ImportError:
            raise ImportError("Flowers102Dataset reads imagelabels.mat and setid.mat with "
                              "scipy.io.loadmat; install scipy") from None
        if task not in ("Classification", "Segmentation"):
            raise ValueError(f"{api}: task must be 'Classification' or 'Segmentation', got "
                             f"{task!r}")
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, ("train", "valid", "test", "all"), "all", api)
        for name in ("imagelabels.mat", "setid.mat"):
            if not os.path.isfile(os.path.join(folder, name)):
                raise ValueError(f"{api}: {folder} has no file {name}")
        labels = np.asarray(loadmat(os.path.join(folder, "imagelabels.mat"))["labels"]).ravel()
        sets = loadmat(os.path.join(folder, "setid.mat"))
        ids = np.concatenate([np.asarray(sets[self._SETS[u]]).ravel()
                              for u in (["train", "valid", "test"] if usage == "all"
                                        else [usage])])
        files = [os.path.join(folder, "jpg", f"image_{int(i):05d}.jpg") for i in ids]
        targets = [(os.path.join(folder, "segmim", f"segmim_{int(i):05d}.jpg"),
                    np.uint32(labels[int(i) - 1] - 1)) for i in ids]
        self._task = task
        columns = ["image", "label"] if task == "Classification" else [
            "image", "segmentation", "label"]
        super().__init__(api, columns, files, targets, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        mask, label = self._labels[index]
        image = self._image(self._files[index])
        if self._task == "Classification":
            return image, label
        return image, self._image(mask), label


class DIV2KDataset(_ImageFiles):
    """DIV2K super-resolution pairs: ``DIV2K_<usage>_HR/NNNN.png`` and the low-resolution
    ``DIV2K_<usage>_LR_<downgrade>/X<scale>/NNNNx<scale>.png`` (bicubic, unknown) or
    ``DIV2K_<usage>_LR_x8/NNNNx8.png`` (bicubic x8) or ``DIV2K_<usage>_LR_<downgrade>/
    NNNNx4<m|d|w>.png`` (mild, difficult, wild; scale 4) in `dataset_dir`.

    Columns ``hr_image`` and ``lr_image`` (bytes, or decoded with `decode`). `usage`
    "train", "valid" or "all"; `downgrade` "bicubic", "unknown", "mild", "difficult" or
    "wild"; `scale` 2, 3, 4 or 8 (8 with bicubic only; 4 with mild, difficult and wild).

    Example:
        >>> data = ds.DIV2KDataset("/data/div2k", usage="train", scale=2)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, usage: str = "train", downgrade: str = "bicubic",
                 scale: int = 2, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 decode: bool = False, sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "DIV2KDataset"
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, ("train", "valid", "all"), "train", api)
        downgrade = _choice(downgrade, ("bicubic", "unknown", "mild", "difficult", "wild"),
                            "bicubic", api, "downgrade")
        if scale not in (2, 3, 4, 8) or (scale == 8 and downgrade != "bicubic") or (
                downgrade in ("mild", "difficult", "wild") and scale != 4):
            raise ValueError(f"{api}: scale {scale!r} does not go with downgrade "
                             f"{downgrade!r} (2, 3, 4 or 8 for bicubic; 2, 3, 4 for unknown; "
                             f"4 for mild, difficult and wild)")
        hr_files, lr_files = [], []
        for part in (["train", "valid"] if usage == "all" else [usage]):
            hr_dir = os.path.join(folder, f"DIV2K_{part}_HR")
            if scale == 8:
                lr_dir, suffix = os.path.join(folder, f"DIV2K_{part}_LR_x8"), "x8"
            elif downgrade in ("bicubic", "unknown"):
                lr_dir = os.path.join(folder, f"DIV2K_{part}_LR_{downgrade}", f"X{scale}")
                suffix = f"x{scale}"
            else:
                lr_dir = os.path.join(folder, f"DIV2K_{part}_LR_{downgrade}")
                suffix = "x4" + downgrade[0]
            for path in (hr_dir, lr_dir):
                if not os.path.isdir(path):
                    raise ValueError(f"{api}: folder {path} is missing")
            for name in sorted(os.listdir(hr_dir)):
                stem, ext = os.path.splitext(name)
                if ext.lower() != ".png":
                    continue
                lr = os.path.join(lr_dir, f"{stem}{suffix}{ext}")
                if not os.path.isfile(lr):
                    raise ValueError(f"{api}: {lr} (the low-resolution {name}) is missing")
                hr_files.append(os.path.join(hr_dir, name))
                lr_files.append(lr)
        super().__init__(api, ["hr_image", "lr_image"], hr_files, lr_files, decode,
                         num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        return self._image(self._files[index]), self._image(self._labels[index])


class FlickrDataset(_ImageFiles):
    """Flickr8k / Flickr30k: the images in `dataset_dir` and `annotation_file` with lines
    ``<image>#<n><TAB><caption>``. One row per image (in order of first mention): columns
    ``image`` and ``annotation`` (1-D str, its captions).

    Example:
        >>> data = ds.FlickrDataset("/data/Flickr8k_Dataset",
        ...                         "/data/Flickr8k.token.txt")    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, annotation_file: str,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, decode: Optional[bool] = None,
                 sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "FlickrDataset"
        folder = _check_dir(dataset_dir, api)
        captions: Dict[str, List[str]] = {}
        for number, line in enumerate(_lines(annotation_file, api), 1):
            key, sep, caption = line.partition("\t")
            if not sep or "#" not in key:
                raise RuntimeError(f"{api}: {annotation_file}:{number} is not "
                                   f"'<image>#<n><TAB><caption>'")
            captions.setdefault(key.rsplit("#", 1)[0], []).append(caption)
        files = [os.path.join(folder, name) for name in captions]
        super().__init__(api, ["image", "annotation"], files,
                         [np.array(c) for c in captions.values()], bool(decode), num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)
