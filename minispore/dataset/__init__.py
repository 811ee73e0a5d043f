"""minispore.dataset: MindSpore's data pipelines - sources, steps, transforms, iterators.

    >>> import numpy as np
    >>> import minispore.dataset as ds
    >>> data = ds.NumpySlicesDataset({"x": np.ones((10, 3)), "y": np.arange(10)}).batch(4)
    >>> data.get_dataset_size(), data.get_col_names()
    (3, ['x', 'y'])

A pipeline as MindSpore's tutorials write it::

    import minispore.dataset as ds
    import minispore.dataset.vision as vision
    import minispore.dataset.transforms as transforms

    mnist = ds.MnistDataset("MNIST_Data/train", shuffle=True)
    mnist = mnist.map([vision.Rescale(1 / 255, 0), vision.Normalize((0.1307,), (0.3081,)),
                       vision.HWC2CHW()], input_columns="image", num_parallel_workers=2)
    mnist = mnist.map(transforms.TypeCast(ms.int32), input_columns="label").batch(64)

Sources (`sources/`) read rows; steps (`map` in mapping.py, `batch` in batching.py, the
rest in steps.py) transform them; `iterators.py` turns rows into Tensors. `transforms`,
`vision` and `text` hold the per-sample operations (numpy and Pillow underneath);
`workers.py` runs steps in threads or processes; `samplers.py` picks and shards rows.
"""
import importlib

from . import batching, config, mapping, steps, sync  # noqa: F401  (steps register with Dataset)
from .batching import BatchInfo  # noqa: F401
from .cache import DatasetCache  # noqa: F401
from .callbacks import DSCallback, WaitedDSCallback  # noqa: F401
from .engine import Dataset  # noqa: F401
from .samplers import (  # noqa: F401
    DistributedSampler,
    PKSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    SubsetSampler,
    WeightedRandomSampler,
)
from .serialization import compare, deserialize, serialize, show  # noqa: F401
from .sources import (  # noqa: F401
    Cifar10Dataset,
    Cifar100Dataset,
    CSVDataset,
    FashionMnistDataset,
    GeneratorDataset,
    ImageFolderDataset,
    MnistDataset,
    NumpySlicesDataset,
    RandomDataset,
    Schema,
    Shuffle,
    TextFileDataset,
)
from .sources.audio_files import (  # noqa: F401
    CMUArcticDataset,
    GTZANDataset,
    LibriTTSDataset,
    LJSpeechDataset,
    SpeechCommandsDataset,
    TedliumDataset,
    YesNoDataset,
)
from .sources.padded import PaddedDataset  # noqa: F401
from .sources.text_more import (  # noqa: F401
    AGNewsDataset,
    AmazonReviewDataset,
    CLUEDataset,
    CoNLL2000Dataset,
    DBpediaDataset,
    EnWik9Dataset,
    IMDBDataset,
    IWSLT2016Dataset,
    IWSLT2017Dataset,
    Multi30kDataset,
    PennTreebankDataset,
    SogouNewsDataset,
    SQuADDataset,
    SST2Dataset,
    UDPOSDataset,
    WikiTextDataset,
    YahooAnswersDataset,
    YelpReviewDataset,
)
from .sources.tfrecord import TFRecordDataset  # noqa: F401
from .sources.vision_folders import (  # noqa: F401
    DIV2KDataset,
    FlickrDataset,
    Flowers102Dataset,
    Food101Dataset,
    OmniglotDataset,
    Places365Dataset,
    SUN397Dataset,
)
from .sources.vision_misc import (  # noqa: F401
    LFWDataset,
    LSUNDataset,
    ManifestDataset,
    PhotoTourDataset,
    RenderedSST2Dataset,
    SBUDataset,
)
from .sources.vision_more import (  # noqa: F401
    Caltech256Dataset,
    CelebADataset,
    EMnistDataset,
    FakeImageDataset,
    KMnistDataset,
    QMnistDataset,
    SemeionDataset,
    STL10Dataset,
    SVHNDataset,
    USPSDataset,
)
from .sources.vision_scenes import (  # noqa: F401
    CityscapesDataset,
    KITTIDataset,
    SBDataset,
    WIDERFaceDataset,
)
from .sources.vision_tasks import Caltech101Dataset, CocoDataset, VOCDataset  # noqa: F401

__all__ = ["BatchInfo", "CSVDataset", "Cifar100Dataset", "Cifar10Dataset", "Dataset",
           "DistributedSampler", "FashionMnistDataset", "GeneratorDataset",
           "ImageFolderDataset", "MnistDataset", "NumpySlicesDataset", "RandomDataset",
           "RandomSampler", "Sampler", "Schema", "SequentialSampler", "Shuffle",
           "SubsetRandomSampler", "SubsetSampler", "TextFileDataset", "WeightedRandomSampler",
           "config", "zip"]
__all__ += ["Caltech256Dataset", "CelebADataset", "EMnistDataset", "FakeImageDataset",
            "KMnistDataset", "QMnistDataset", "SemeionDataset", "STL10Dataset", "SVHNDataset",
            "USPSDataset"]
__all__ += ["Caltech101Dataset", "CocoDataset", "VOCDataset"]
__all__ += ["DIV2KDataset", "FlickrDataset", "Flowers102Dataset", "Food101Dataset",
            "OmniglotDataset", "Places365Dataset", "SUN397Dataset"]
__all__ += ["DatasetCache", "IWSLT2016Dataset", "IWSLT2017Dataset", "TFRecordDataset"]
__all__ += ["LFWDataset", "LSUNDataset", "ManifestDataset", "PhotoTourDataset",
            "RenderedSST2Dataset", "SBUDataset"]
__all__ += ["CityscapesDataset", "KITTIDataset", "SBDataset", "WIDERFaceDataset"]
__all__ += ["compare", "deserialize", "serialize", "show"]
__all__ += ["DSCallback", "PKSampler", "PaddedDataset", "WaitedDSCallback"]
__all__ += ["CMUArcticDataset", "GTZANDataset", "LibriTTSDataset", "LJSpeechDataset",
            "SpeechCommandsDataset", "TedliumDataset", "YesNoDataset"]
__all__ += ["AGNewsDataset", "AmazonReviewDataset", "CLUEDataset", "CoNLL2000Dataset",
            "DBpediaDataset", "EnWik9Dataset", "IMDBDataset", "Multi30kDataset",
            "PennTreebankDataset", "SogouNewsDataset", "SQuADDataset", "SST2Dataset",
            "UDPOSDataset", "WikiTextDataset", "YahooAnswersDataset", "YelpReviewDataset"]

# imported on first use: vision needs Pillow, and `import minispore` should stay quick
_SUBMODULES = ("transforms", "vision", "text")


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def zip(datasets):  # noqa: A001  (MindSpore's name)
    """The rows of a tuple of datasets side by side: `ds.zip((images, labels))`."""
    if not isinstance(datasets, tuple) or len(datasets) < 1:
        raise TypeError(f"dataset.zip: expected a tuple of Datasets, got {datasets!r}")
    return datasets[0].zip(datasets[1:]) if len(datasets) > 1 else datasets[0]
