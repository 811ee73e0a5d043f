"""Image datasets with annotations beyond a class: Pascal VOC (segmentation masks, detection
boxes from the XML annotations), COCO (detection, keypoints, panoptic, captions from the JSON
annotation file) and Caltech-101 (categories and, with scipy, the object contours)."""
import json
import os
import xml.etree.ElementTree as ElementTree
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .vision_files import _check_dir
from .vision_more import _choice, _ImageFiles

__all__ = ["VOCDataset", "CocoDataset", "Caltech101Dataset"]


class VOCDataset(_ImageFiles):
    """Pascal VOC: ``JPEGImages/<id>.jpg``, ``ImageSets/<Segmentation|Main>/<usage>.txt``,
    ``SegmentationClass/<id>.png`` and ``Annotations/<id>.xml`` in `dataset_dir`.

    task "Segmentation": columns ``image`` and ``target`` (the mask PNG), both the file's
    bytes (uint8, 1-D) or decoded with `decode`. task "Detection": ``image``, ``bbox``
    float32 (N, 4) as [xmin, ymin, width, height], ``label``, ``difficult`` and
    ``truncated`` uint32 (N, 1); labels index `class_indexing` (default: the object names
    of the usage's annotations, sorted). `extra_metadata` is not supported.

    Example:
        >>> data = ds.VOCDataset("/data/VOC2012", task="Detection", usage="train",
        ...                      decode=True)                              # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, task: str = "Segmentation", usage: str = "train",
                 class_indexing: Optional[Dict[str, int]] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, decode: bool = False, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None, extra_metadata: bool = False, decrypt: Any = None) -> None:
        api = "VOCDataset"
        if task not in ("Segmentation", "Detection"):
            raise ValueError(f"{api}: task must be 'Segmentation' or 'Detection', got {task!r}")
        if extra_metadata:
            raise NotImplementedError(f"{api}: extra_metadata is not supported")
        if class_indexing is not None and task != "Detection":
            raise ValueError(f"{api}: class_indexing is only for task='Detection'")
        folder = _check_dir(dataset_dir, api)
        sets = os.path.join(folder, "ImageSets", "Segmentation" if task == "Segmentation"
                            else "Main", f"{usage}.txt")
        if not os.path.isfile(sets):
            raise ValueError(f"{api}: {folder} has no {os.path.relpath(sets, folder)}")
        with open(sets, encoding="utf-8") as f:
            ids = [line.split()[0] for line in f if line.strip()]
        files = [os.path.join(folder, "JPEGImages", f"{i}.jpg") for i in ids]
        self._task = task
        if task == "Segmentation":
            targets: List[Any] = [os.path.join(folder, "SegmentationClass", f"{i}.png")
                                  for i in ids]
            columns = ["image", "target"]
        else:
            objects = [_voc_objects(os.path.join(folder, "Annotations", f"{i}.xml"), api)
                       for i in ids]
            if class_indexing is None:
                names = sorted({o[0] for found in objects for o in found})
                class_indexing = {name: index for index, name in enumerate(names)}
            self._class_indexing = dict(class_indexing)
            targets = [self._boxes(found, api) for found in objects]
            columns = ["image", "bbox", "label", "difficult", "truncated"]
        super().__init__(api, columns, files, targets, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _boxes(self, found: List[Tuple[str, List[float], int, int]],
               api: str) -> Tuple[np.ndarray, ...]:
        unknown = sorted({o[0] for o in found} - set(self._class_indexing))
        if unknown:
            raise ValueError(f"{api}: objects {unknown} are not in class_indexing")
        boxes = np.asarray([o[1] for o in found], np.float32).reshape(-1, 4)
        return (boxes, np.asarray([[self._class_indexing[o[0]]] for o in found],
                                  np.uint32).reshape(-1, 1),
                np.asarray([[o[2]] for o in found], np.uint32).reshape(-1, 1),
                np.asarray([[o[3]] for o in found], np.uint32).reshape(-1, 1))

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        image = self._image(self._files[index])
        if self._task == "Segmentation":
            return image, self._image(self._labels[index])
        return (image, *self._labels[index])

    def get_class_indexing(self) -> Dict[str, int]:
        """dict object name -> label (task "Detection")."""
        if self._task != "Detection":
            raise RuntimeError("VOCDataset: get_class_indexing is for task='Detection'")
        return dict(self._class_indexing)


def _voc_objects(path: str, api: str) -> List[Tuple[str, List[float], int, int]]:
    """(name, [xmin, ymin, w, h], difficult, truncated) of each object of a VOC XML file."""
    if not os.path.isfile(path):
        raise ValueError(f"{api}: annotation {path} is missing")
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        raise RuntimeError(f"{api}: {path} is not XML ({error})") from None
    found = []
    for obj in root.iter("object"):
        box = obj.find("bndbox")
        if box is None:
            raise RuntimeError(f"{api}: {path}: an object without <bndbox>")
        xmin, ymin, xmax, ymax = (float(box.findtext(k, "0"))
                                  for k in ("xmin", "ymin", "xmax", "ymax"))
        found.append((obj.findtext("name", "").strip(), [xmin, ymin, xmax - xmin, ymax - ymin],
                      int(obj.findtext("difficult", "0")), int(obj.findtext("truncated", "0"))))
    return found


class CocoDataset(_ImageFiles):
    """COCO: the images in `dataset_dir` and one JSON `annotation_file` (instances,
    person_keypoints, panoptic or captions).

    Columns per task:
        "Detection": ``image``, ``bbox`` float32 (N, 4) [x, y, w, h], ``category_id`` and
        ``iscrowd`` uint32 (N, 1); images without annotations are skipped.
        "Keypoint": ``image``, ``keypoints`` float32 (N, 51), ``num_keypoints`` uint32 (N, 1).
        "Panoptic": ``image``, ``bbox``, ``category_id``, ``iscrowd``, ``area`` (uint32 (N, 1))
        from each annotation's segments_info.
        "Captioning": ``image`` and ``captions`` (1-D str).
    `image` is the file's bytes, or HWC RGB uint8 with `decode`. "Stuff" (polygon
    segmentations of variable length) and `extra_metadata` are not supported.

    Example:
        >>> data = ds.CocoDataset("/data/coco/train2017",
        ...                       "/data/coco/annotations/instances_train2017.json",
        ...                       task="Detection", decode=True)           # doctest: +SKIP
    """

    _COLUMNS = {"Detection": ["image", "bbox", "category_id", "iscrowd"],
                "Keypoint": ["image", "keypoints", "num_keypoints"],
                "Panoptic": ["image", "bbox", "category_id", "iscrowd", "area"],
                "Captioning": ["image", "captions"]}

    def __init__(self, dataset_dir: str, annotation_file: str, task: str = "Detection",
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, decode: bool = False, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None, extra_metadata: bool = False, decrypt: Any = None) -> None:
        api = "CocoDataset"
        if task not in self._COLUMNS:
            raise ValueError(f"{api}: task must be one of {tuple(self._COLUMNS)} (Stuff is not "
                             f"supported), got {task!r}")
        if extra_metadata:
            raise NotImplementedError(f"{api}: extra_metadata is not supported")
        folder = _check_dir(dataset_dir, api)
        if not os.path.isfile(annotation_file):
            raise ValueError(f"{api}: annotation_file {annotation_file!r} is not a file")
        with open(annotation_file, encoding="utf-8") as f:
            document = json.load(f)
        self._categories = {c["id"]: c.get("name", str(c["id"]))
                            for c in document.get("categories", [])}
        by_image: Dict[Any, List[Dict[str, Any]]] = {}
        for ann in document.get("annotations", []):
            by_image.setdefault(ann["image_id"], []).append(ann)
        files, targets = [], []
        for image in document.get("images", []):
            anns = by_image.get(image["id"], [])
            if not anns and task != "Captioning":
                continue
            files.append(os.path.join(folder, image["file_name"]))
            targets.append(self._target(task, anns))
        super().__init__(api, list(self._COLUMNS[task]), files, targets, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    @staticmethod
    def _target(task: str, anns: List[Dict[str, Any]]) -> Tuple[np.ndarray, ...]:
        def column(values: List[Any], dtype: Any, width: int) -> np.ndarray:
            return np.asarray(values, dtype).reshape(-1, width)
        if task == "Captioning":
            return (np.array([a["caption"] for a in anns]),)
        if task == "Keypoint":
            return (column([a["keypoints"] for a in anns], np.float32, 51),
                    column([a.get("num_keypoints", 0) for a in anns], np.uint32, 1))
        if task == "Panoptic":
            segments = [s for a in anns for s in a.get("segments_info", [])]
            return (column([s["bbox"] for s in segments], np.float32, 4),
                    column([s["category_id"] for s in segments], np.uint32, 1),
                    column([s.get("iscrowd", 0) for s in segments], np.uint32, 1),
                    column([s.get("area", 0) for s in segments], np.uint32, 1))
        return (column([a["bbox"] for a in anns], np.float32, 4),
                column([a["category_id"] for a in anns], np.uint32, 1),
                column([a.get("iscrowd", 0) for a in anns], np.uint32, 1))

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        return (self._image(self._files[index]), *self._labels[index])

    def get_class_indexing(self) -> Dict[str, List[int]]:
        """dict category name -> [category id, 0], as MindSpore's Detection/Panoptic."""
        return {name: [int(cid), 0] for cid, name in self._categories.items()}


class Caltech101Dataset(_ImageFiles):
    """Caltech-101: ``101_ObjectCategories/<class>/image_NNNN.jpg`` and, for annotations,
    ``Annotations/<class>/annotation_NNNN.mat`` in `dataset_dir` (``BACKGROUND_Google`` is
    skipped; Faces/Faces_easy/Motorbikes/airplanes annotations live under Faces_2,
    Faces_3, Motorbikes_16, Airplanes_Side_2).

    Columns: ``image`` (bytes, or HWC RGB uint8 with `decode`) and, by `target_type`,
    ``category`` uint32 (the class's index in sorted order; "category", the default),
    ``annotation`` float64 (2, K), the object contour (read with scipy; "annotation"), or
    both ("all").

    Example:
        >>> data = ds.Caltech101Dataset("/data/caltech101", decode=True)    # doctest: +SKIP
    """

    _ANNOTATION_DIRS = {"Faces": "Faces_2", "Faces_easy": "Faces_3",
                        "Motorbikes": "Motorbikes_16", "airplanes": "Airplanes_Side_2"}

    def __init__(self, dataset_dir: str, target_type: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: int = 1,
                 shuffle: Optional[bool] = None, decode: bool = False, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None) -> None:
        api = "Caltech101Dataset"
        target_type = _choice(target_type, ("category", "annotation", "all"), "category", api,
                              "target_type")
        folder = _check_dir(dataset_dir, api)
        images_dir = os.path.join(folder, "101_ObjectCategories")
        if not os.path.isdir(images_dir):
            raise ValueError(f"{api}: {folder} has no folder 101_ObjectCategories")
        classes = sorted(d for d in os.listdir(images_dir) if d != "BACKGROUND_Google"
                         and os.path.isdir(os.path.join(images_dir, d)))
        files, targets = [], []
        for label, name in enumerate(classes):
            for file in sorted(os.listdir(os.path.join(images_dir, name))):
                if not file.lower().endswith((".jpg", ".jpeg", ".png")):
                    continue
                files.append(os.path.join(images_dir, name, file))
                number = os.path.splitext(file)[0].rsplit("_", 1)[-1]
                contour = os.path.join(folder, "Annotations",
                                       self._ANNOTATION_DIRS.get(name, name),
                                       f"annotation_{number}.mat")
                targets.append((np.uint32(label), contour))
        self._target_type = target_type
        columns = {"category": ["image", "category"], "annotation": ["image", "annotation"],
                   "all": ["image", "category", "annotation"]}[target_type]
        super().__init__(api, columns, files, targets, decode, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        self._classes = classes

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        image = self._image(self._files[index])
        label, contour = self._labels[index]
        if self._target_type == "category":
            return image, label
        try:
            from scipy.io import loadmat
        except ImportError:
            raise ImportError("Caltech101Dataset reads the annotation .mat files with "
                              "scipy.io.loadmat; install scipy") from None
        if not os.path.isfile(contour):
            raise RuntimeError(f"{contour}: the annotation file is missing")
        points = np.asarray(loadmat(contour)["obj_contour"], np.float64)
        return (image, points) if self._target_type == "annotation" else (image, label, points)

    def num_classes(self) -> int:
        return len(self._classes)
