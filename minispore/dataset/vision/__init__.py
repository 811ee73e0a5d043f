"""minispore.dataset.vision: image transforms on HWC uint8 arrays (and PIL images), as
MindSpore's `dataset.vision`, with numpy and Pillow underneath.

    >>> import numpy as np
    >>> import minispore.dataset.vision as vision
    >>> image = np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3)
    >>> vision.HWC2CHW()(vision.CenterCrop(2)(image)).shape
    (3, 2, 2)
"""
from .autoaugment import AutoAugment  # noqa: F401
from .bbox import (  # noqa: F401
                    BoundingBoxAugment,
                    RandomCropWithBBox,
                    RandomHorizontalFlipWithBBox,
                    RandomResizedCropWithBBox,
                    RandomResizeWithBBox,
                    RandomVerticalFlipWithBBox,
                    ResizeWithBBox,
)
from .color import (  # noqa: F401
                    AdjustBrightness,
                    AdjustContrast,
                    AdjustGamma,
                    AdjustHue,
                    AdjustSaturation,
                    Grayscale,
                    Invert,
                    Normalize,
                    RandomColorAdjust,
                    RandomGrayscale,
                    Rescale,
)
from .crops import (  # noqa: F401
                    Erase,
                    FiveCrop,
                    PadToSize,
                    RandomCropDecodeResize,
                    RandomResize,
                    SliceMode,
                    SlicePatches,
                    TenCrop,
)
from .enhance import (  # noqa: F401
                    AdjustSharpness,
                    AutoContrast,
                    Equalize,
                    GaussianBlur,
                    Posterize,
                    RandomAdjustSharpness,
                    RandomAutoContrast,
                    RandomColor,
                    RandomEqualize,
                    RandomInvert,
                    RandomLighting,
                    RandomPosterize,
                    RandomSharpness,
                    RandomSolarize,
                    Solarize,
)
from .colorspace import (  # noqa: F401
                    ConvertColor,
                    ConvertMode,
                    HsvToRgb,
                    LinearTransformation,
                    NormalizePad,
                    RgbToHsv,
                    get_image_num_channels,
                    get_image_size,
)
from .conversion import Decode, ToNumpy, ToPIL, ToTensor, ToType  # noqa: F401
from .geometry import (  # noqa: F401
                    HWC2CHW,
                    CenterCrop,
                    Crop,
                    HorizontalFlip,
                    Pad,
                    RandomCrop,
                    RandomHorizontalFlip,
                    RandomResizedCrop,
                    RandomRotation,
                    RandomVerticalFlip,
                    Resize,
                    ResizedCrop,
                    Rotate,
                    VerticalFlip,
)
from .warps import Affine, Perspective, RandomAffine, RandomPerspective  # noqa: F401
from .image_io import (  # noqa: F401
                    ImageReadMode,
                    encode_jpeg,
                    encode_png,
                    read_file,
                    read_image,
                    write_file,
                    write_jpeg,
                    write_png,
)
from .mixing import CutMixBatch, CutOut, MixUp, MixUpBatch, RandomErasing  # noqa: F401
from .randaugment import (  # noqa: F401
                    RandAugment,
                    RandomSelectSubpolicy,
                    TrivialAugmentWide,
                    UniformAugment,
)
from ..transforms import not_random  # noqa: F401
from .utils import AutoAugmentPolicy, Border, ImageBatchFormat, Inter  # noqa: F401
