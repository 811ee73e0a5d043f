"""Dataset sources: Python data, random rows, image and text files in standard formats."""
from .audio_files import (  # noqa: F401
    CMUArcticDataset,
    GTZANDataset,
    LibriTTSDataset,
    LJSpeechDataset,
    SpeechCommandsDataset,
    TedliumDataset,
    YesNoDataset,
)
from .python_data import GeneratorDataset, NumpySlicesDataset  # noqa: F401
from .random_data import RandomDataset, Schema  # noqa: F401
from .text_files import CSVDataset, Shuffle, TextFileDataset  # noqa: F401
from .text_more import (  # noqa: F401
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
from .tfrecord import TFRecordDataset  # noqa: F401
from .vision_files import (  # noqa: F401
    Cifar10Dataset,
    Cifar100Dataset,
    FashionMnistDataset,
    ImageFolderDataset,
    MnistDataset,
)
from .vision_folders import (  # noqa: F401
    DIV2KDataset,
    FlickrDataset,
    Flowers102Dataset,
    Food101Dataset,
    OmniglotDataset,
    Places365Dataset,
    SUN397Dataset,
)
from .vision_misc import (  # noqa: F401
    LFWDataset,
    LSUNDataset,
    ManifestDataset,
    PhotoTourDataset,
    RenderedSST2Dataset,
    SBUDataset,
)
from .vision_more import (  # noqa: F401
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
from .vision_scenes import (  # noqa: F401
    CityscapesDataset,
    KITTIDataset,
    SBDataset,
    WIDERFaceDataset,
)
from .vision_tasks import Caltech101Dataset, CocoDataset, VOCDataset  # noqa: F401
