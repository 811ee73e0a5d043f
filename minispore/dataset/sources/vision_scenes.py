"""Scene datasets with per-object annotations in text, JSON or .mat files: KITTI (object
labels), WIDER FACE (face boxes and attributes), Cityscapes (masks and polygons) and SBD
(boundaries and segmentations, via scipy). Images are the files' bytes, or HWC RGB uint8
with `decode`."""
import os
from typing import Any, List, Optional, Tuple

import numpy as np

from .vision_files import _check_dir
from .vision_more import _choice, _ImageFiles

__all__ = ["KITTIDataset", "WIDERFaceDataset", "CityscapesDataset", "SBDataset"]


class KITTIDataset(_ImageFiles):
    """KITTI object detection: ``data_object_image_2/<training|testing>/image_2/NNNNNN.png``
    and ``data_object_label_2/training/label_2/NNNNNN.txt`` in `dataset_dir` (one object a
    line: type, truncated, occluded, alpha, bbox (4), dimensions (3), location (3),
    rotation_y).

    Columns for usage "train": ``image``, ``label`` uint32 (N, 1) (the type's index in Car,
    Van, Truck, Pedestrian, Person_sitting, Cyclist, Tram, Misc, DontCare), ``truncated``
    float32 (N, 1), ``occluded`` uint32 (N, 1), ``alpha`` float32 (N, 1), ``bbox`` float32
    (N, 4), ``dimensions`` and ``location`` float32 (N, 3), ``rotation_y`` float32 (N, 1);
    for usage "test", ``image`` only.

    Example:
        >>> data = ds.KITTIDataset("/data/kitti", usage="train", decode=True)  # doctest: +SKIP
    """

    TYPES = ("Car", "Van", "Truck", "Pedestrian", "Person_sitting", "Cyclist", "Tram",
             "Misc", "DontCare")

    def __init__(self, dataset_dir: str, usage: str = "train",
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, decode: bool = False, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "KITTIDataset"
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, ("train", "test"), "train", api)
        part = "training" if usage == "train" else "testing"
        images = os.path.join(folder, "data_object_image_2", part, "image_2")
        if not os.path.isdir(images):
            raise ValueError(f"{api}: folder {images} is missing")
        names = sorted(n for n in os.listdir(images) if n.endswith(".png"))
        files = [os.path.join(images, n) for n in names]
        targets: List[Any] = [()] * len(files)
        columns = ["image"]
        if usage == "train":
            labels = os.path.join(folder, "data_object_label_2", part, "label_2")
            targets = [self._objects(os.path.join(labels, n[:-4] + ".txt"), api) for n in names]
            columns += ["label", "truncated", "occluded", "alpha", "bbox", "dimensions",
                        "location", "rotation_y"]
        super().__init__(api, columns, files, targets, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _objects(self, path: str, api: str) -> Tuple[np.ndarray, ...]:
        if not os.path.isfile(path):
            raise ValueError(f"{api}: label file {path} is missing")
        rows = []
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) < 15 or fields[0] not in self.TYPES:
                    raise RuntimeError(f"{api}: {path}:{number} is not a KITTI object line")
                rows.append([float(self.TYPES.index(fields[0]))] + [float(v)
                                                                    for v in fields[1:15]])
        table = np.asarray(rows, np.float64).reshape(-1, 15)
        return (table[:, 0:1].astype(np.uint32), table[:, 1:2].astype(np.float32),
                table[:, 2:3].astype(np.uint32), table[:, 3:4].astype(np.float32),
                table[:, 4:8].astype(np.float32), table[:, 8:11].astype(np.float32),
                table[:, 11:14].astype(np.float32), table[:, 14:15].astype(np.float32))

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        return (self._image(self._files[index]), *self._labels[index])


class WIDERFaceDataset(_ImageFiles):
    """WIDER FACE: ``WIDER_<train|val|test>/images/<event>/<image>.jpg`` and
    ``wider_face_split/wider_face_<train|val>_bbx_gt.txt`` (an image's path, its face count,
    then ``x y w h blur expression illumination invalid occlusion pose`` per face) or
    ``wider_face_test_filelist.txt`` in `dataset_dir`.

    Columns for "train", "valid" and "all": ``image``, ``bbox`` uint32 (N, 4), ``blur``,
    ``expression``, ``illumination``, ``occlusion``, ``pose``, ``invalid`` uint32 (N, 1);
    for "test", ``image`` only. `usage` default "all" (train and valid).

    Example:
        >>> data = ds.WIDERFaceDataset("/data/widerface", usage="valid")    # doctest: +SKIP
    """

    _ATTRIBUTES = ("blur", "expression", "illumination", "occlusion", "pose", "invalid")
    _FILE_ORDER = ("blur", "expression", "illumination", "invalid", "occlusion", "pose")

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, decode: bool = False, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "WIDERFaceDataset"
        folder = _check_dir(dataset_dir, api)
        usage = _choice(usage, ("train", "valid", "test", "all"), "all", api)
        split = os.path.join(folder, "wider_face_split")
        files: List[str] = []
        targets: List[Any] = []
        columns = ["image"]
        if usage == "test":
            path = os.path.join(split, "wider_face_test_filelist.txt")
            if not os.path.isfile(path):
                raise ValueError(f"{api}: {path} is missing")
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        files.append(os.path.join(folder, "WIDER_test", "images",
                                                  line.strip()))
                        targets.append(())
        else:
            columns += ["bbox", *self._ATTRIBUTES]
            for part in (["train", "val"] if usage == "all" else
                         ["val" if usage == "valid" else "train"]):
                self._parse(os.path.join(split, f"wider_face_{part}_bbx_gt.txt"),
                            os.path.join(folder, f"WIDER_{part}", "images"), files, targets,
                            api)
        super().__init__(api, columns, files, targets, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _parse(self, path: str, images: str, files: List[str], targets: List[Any],
               api: str) -> None:
        if not os.path.isfile(path):
            raise ValueError(f"{api}: {path} is missing")
        with open(path, encoding="utf-8") as f:
            lines = [line.strip() for line in f if line.strip()]
        at = 0
        while at < len(lines):
            try:
                name, count = lines[at], int(lines[at + 1])
                faces = [[int(v) for v in lines[at + 2 + i].split()[:10]]
                         for i in range(max(count, 1))]
            except (IndexError, ValueError):
                raise RuntimeError(f"{api}: {path}: the entry at line {at + 1} is not "
                                   f"'<image>, <count>, <count face lines>'") from None
            at += 2 + max(count, 1)  # an image without faces still has one line of zeros
            table = np.asarray(faces[:count], np.uint32).reshape(-1, 10)
            by_name = {k: table[:, 4 + i:5 + i] for i, k in enumerate(self._FILE_ORDER)}
            files.append(os.path.join(images, name))
            targets.append((table[:, :4], *(by_name[k] for k in self._ATTRIBUTES)))

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        return (self._image(self._files[index]), *self._labels[index])


class CityscapesDataset(_ImageFiles):
    """Cityscapes: ``leftImg8bit/<usage>/<city>/<name>_leftImg8bit.png`` and the targets
    ``gtFine`` (or ``gtCoarse``) ``/<usage>/<city>/<name>_gtFine_<kind>`` in `dataset_dir`.

    Columns ``image`` and ``task``: the target image (instanceIds, labelIds or color PNG,
    bytes or decoded) for task "instance", "semantic" or "color", or the polygons JSON text
    (str) for "polygon". `usage` "train", "test", "val" or "all" (fine), "train",
    "train_extra", "val" or "all" (coarse); `quality_mode` "fine" or "coarse".

    Example:
        >>> data = ds.CityscapesDataset("/data/cityscapes", usage="val",
        ...                             task="semantic", decode=True)    # doctest: +SKIP
    """

    _SUFFIXES = {"instance": "instanceIds.png", "semantic": "labelIds.png",
                 "color": "color.png", "polygon": "polygons.json"}

    def __init__(self, dataset_dir: str, usage: str = "train", quality_mode: str = "fine",
                 task: str = "instance", num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 decode: bool = False, sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "CityscapesDataset"
        folder = _check_dir(dataset_dir, api)
        quality_mode = _choice(quality_mode, ("fine", "coarse"), "fine", api, "quality_mode")
        usages = ("train", "test", "val") if quality_mode == "fine" else (
            "train", "train_extra", "val")
        usage = _choice(usage, (*usages, "all"), "train", api)
        task = _choice(task, tuple(self._SUFFIXES), "instance", api, "task")
        gt = "gtFine" if quality_mode == "fine" else "gtCoarse"
        files, targets = [], []
        for part in (usages if usage == "all" else [usage]):
            images = os.path.join(folder, "leftImg8bit", part)
            if not os.path.isdir(images):
                raise ValueError(f"{api}: folder {images} is missing")
            for city in sorted(os.listdir(images)):
                for name in sorted(os.listdir(os.path.join(images, city))):
                    if not name.endswith("_leftImg8bit.png"):
                        continue
                    stem = name[:-len("_leftImg8bit.png")]
                    files.append(os.path.join(images, city, name))
                    targets.append(os.path.join(folder, gt, part, city,
                                                f"{stem}_{gt}_{self._SUFFIXES[task]}"))
        self._task = task
        super().__init__(api, ["image", "task"], files, targets, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        target = self._labels[index]
        if not os.path.isfile(target):
            raise RuntimeError(f"{target}: the target file is missing")
        if self._task == "polygon":
            with open(target, encoding="utf-8") as f:
                return self._image(self._files[index]), np.array(f.read())
        return self._image(self._files[index]), self._image(target)


class SBDataset(_ImageFiles):
    """Semantic Boundaries Dataset: ``img/<id>.jpg``, ``cls/<id>.mat`` (GTcls) and the
    split lists ``train.txt``, ``val.txt``, ``train_noval.txt`` in `dataset_dir`; the .mat
    files are read with scipy.

    Columns ``image`` and, for task "Boundaries", ``task`` uint8 (20, H, W), one boundary
    map per class; for "Segmentation", ``task`` uint8 (H, W), the class of each pixel.
    `usage` "train", "val", "train_noval" or "all" (train then val).

    Example:
        >>> data = ds.SBDataset("/data/sbd", task="Segmentation", usage="val")  # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, task: str = "Boundaries", usage: str = "all",
                 num_samples: Optional[int] = None, num_parallel_workers: int = 1,
                 shuffle: Optional[bool] = None, decode: Optional[bool] = None,
                 sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None) -> None:
        api = "SBDataset"
        try:
            import scipy.io  # noqa: F401
        except ImportError:
            raise ImportError("SBDataset reads the cls/*.mat files with scipy.io.loadmat; "
                              "install scipy") from None
        folder = _check_dir(dataset_dir, api)
        task = _choice(task, ("Boundaries", "Segmentation"), "Boundaries", api, "task")
        usage = _choice(usage, ("train", "val", "train_noval", "all"), "all", api)
        ids: List[str] = []
        for part in (["train", "val"] if usage == "all" else [usage]):
            path = os.path.join(folder, f"{part}.txt")
            if not os.path.isfile(path):
                raise ValueError(f"{api}: {path} is missing")
            with open(path, encoding="utf-8") as f:
                ids += [line.strip() for line in f if line.strip()]
        files = [os.path.join(folder, "img", f"{i}.jpg") for i in ids]
        targets = [os.path.join(folder, "cls", f"{i}.mat") for i in ids]
        self._task = task
        super().__init__(api, ["image", "task"], files, targets, bool(decode), num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        from scipy.io import loadmat
        gt = loadmat(self._labels[index])["GTcls"][0, 0]
        if self._task == "Segmentation":
            target = np.asarray(gt["Segmentation"], np.uint8)
        else:
            boundaries = gt["Boundaries"].ravel()
            target = np.stack([np.asarray(b.toarray() if hasattr(b, "toarray") else b,
                                          np.uint8) for b in boundaries])
        return self._image(self._files[index]), target

