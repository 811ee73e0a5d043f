"""Layers: dense, the conv family, pooling, resizing and padding, normalisation, dropout,
embedding, activations, containers, tensor-op cells (Tril, Triu, Roll), recurrent layers
(RNN, LSTM, GRU and their single-step cells)."""
from .activation import (  # noqa: F401
                         ELU,
                         GELU,
                         LeakyReLU,
                         LogSoftmax,
                         ReLU,
                         ReLU6,
                         Sigmoid,
                         SiLU,
                         Softmax,
                         Tanh,
                         get_activation,
)
from .activation_ext import (  # noqa: F401
                         CELU,
                         GLU,
                         FastGelu,
                         Hardtanh,
                         HShrink,
                         HSigmoid,
                         HSwish,
                         LogSigmoid,
                         Mish,
                         PReLU,
                         RReLU,
                         SeLU,
                         Softmax2d,
                         Softmin,
                         SoftShrink,
                         Softsign,
                         Tanhshrink,
                         Threshold,
)
from .basic import Dense, Dropout, Embedding, EmbeddingLookup, Flatten, Linear  # noqa: F401
from .container import CellDict, CellList, SequentialCell  # noqa: F401
from .conv import (  # noqa: F401
                         Conv1d,
                         Conv1dTranspose,
                         Conv2d,
                         Conv2dTranspose,
                         Conv3d,
                         Conv3dTranspose,
)
from .ext import (AvgPool1dExt, AvgPool2dExt, AvgPool3dExt, Dropout2dExt,  # noqa: F401
                  DropoutExt, L1LossExt, LogSoftmaxExt, MaxPool2dExt)
from .image import MSSSIM, PSNR, SSIM, CentralCrop, ChannelShuffle, ImageGradients  # noqa: F401
from .math_cells import (  # noqa: F401
                         L1Regularizer,
                         LBeta,
                         LGamma,
                         DiGamma,
                         MatDet,
                         MatInverse,
                         MatMul,
                         MatrixDiag,
                         MatrixDiagPart,
                         MatrixSetDiag,
                         Moments,
                         Norm,
                         OneHot,
                         Range,
                         ReduceLogSumExp,
)
from .misc import (BiDense, Dropout1d, Dropout2d, Dropout3d, Identity,  # noqa: F401
                   TimeDistributed, Unflatten)
from .normalization import (  # noqa: F401  # noqa: F401
                         LRN,
                         BatchNorm1d,
                         BatchNorm2d,
                         BatchNorm3d,
                         GroupNorm,
                         InstanceNorm1d,
                         InstanceNorm2d,
                         InstanceNorm3d,
                         LayerNorm,
)
from .pooling import AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d  # noqa: F401
from .pooling_ext import (  # noqa: F401
                         AdaptiveAvgPool1d,
                         AdaptiveAvgPool2d,
                         AdaptiveAvgPool3d,
                         AdaptiveMaxPool1d,
                         AdaptiveMaxPool2d,
                         AdaptiveMaxPool3d,
                         AvgPool3d,
                         LPPool1d,
                         LPPool2d,
                         MaxPool3d,
                         MaxUnpool1d,
                         MaxUnpool2d,
                         MaxUnpool3d,
)
from .recurrent import GRU, LSTM, RNN  # noqa: F401
from .resize_pad import (  # noqa: F401
                         ConstantPad1d,
                         ConstantPad2d,
                         ConstantPad3d,
                         Fold,
                         Pad,
                         PixelShuffle,
                         PixelUnshuffle,
                         ReflectionPad1d,
                         ReflectionPad2d,
                         ReflectionPad3d,
                         ReplicationPad1d,
                         ReplicationPad2d,
                         ReplicationPad3d,
                         ResizeBilinear,
                         Unfold,
                         Upsample,
                         ZeroPad1d,
                         ZeroPad2d,
                         ZeroPad3d,
)
from .rnn_cells import GRUCell, LSTMCell, RNNCell  # noqa: F401
from .tensor_ops import Roll, Tril, Triu  # noqa: F401
from .transformer import (  # noqa: F401
                         MultiheadAttention,
                         Transformer,
                         TransformerDecoder,
                         TransformerDecoderLayer,
                         TransformerEncoder,
                         TransformerEncoderLayer,
)

__all__ = ["ELU", "GELU", "LeakyReLU", "LogSoftmax", "ReLU", "ReLU6", "Sigmoid", "SiLU", "Softmax",
           "Tanh", "get_activation", "Dense", "Dropout", "Embedding", "Flatten", "CellList",
           "SequentialCell", "Conv2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "AvgPool2d",
           "MaxPool2d", "AvgPool1d", "MaxPool1d", "Roll", "Tril", "Triu"]
__all__ += ["CellDict", "BiDense", "Dropout1d", "Dropout2d", "Dropout3d", "Identity", "Unflatten"]
__all__ += ["BatchNorm3d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LRN"]
__all__ += ["Conv1d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose",
            "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
            "AdaptiveMaxPool2d", "AvgPool3d", "LPPool1d", "LPPool2d", "MaxPool3d", "MaxUnpool2d",
            "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "Fold", "Pad", "PixelShuffle",
            "PixelUnshuffle", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
            "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ResizeBilinear",
            "Unfold", "Upsample", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]
__all__ += ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]
__all__ += ["CELU", "GLU", "PReLU", "RReLU", "FastGelu", "Hardtanh", "HShrink", "HSigmoid",
            "HSwish", "LogSigmoid", "Mish", "SeLU", "Softmax2d", "Softmin", "SoftShrink", "Softsign",
            "Tanhshrink", "Threshold"]
__all__ += ["MultiheadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer",
            "TransformerEncoder", "TransformerEncoderLayer"]
__all__ += ["Linear", "EmbeddingLookup", "TimeDistributed", "AdaptiveMaxPool3d", "MaxUnpool1d",
            "MaxUnpool3d", "CentralCrop", "ChannelShuffle", "ImageGradients", "PSNR", "SSIM",
            "MSSSIM", "L1Regularizer", "LBeta", "LGamma", "DiGamma", "MatDet", "MatInverse", "MatMul",
            "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "Moments", "Norm", "OneHot", "Range",
            "ReduceLogSumExp"]
__all__ += ["AvgPool1dExt", "AvgPool2dExt", "AvgPool3dExt", "MaxPool2dExt", "DropoutExt",
            "Dropout2dExt", "LogSoftmaxExt", "L1LossExt"]
