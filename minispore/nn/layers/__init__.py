"""Layers: Dense, Conv2d, pooling, normalisation, dropout, embedding, activations, containers,
tensor-op cells (Tril, Triu, Roll)."""
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
    CELU, GLU, PReLU, RReLU, FastGelu, Hardtanh, HShrink, HSigmoid, HSwish, LogSigmoid, Mish, SeLU,
    Softmax2d, Softmin, SoftShrink, Softsign, Tanhshrink, Threshold,
)
from .transformer import (  # noqa: F401
    MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
    TransformerEncoder, TransformerEncoderLayer,
)
from .basic import Dense, Dropout, Embedding, Flatten  # noqa: F401
from .container import CellDict, CellList, SequentialCell  # noqa: F401
from .conv import Conv2d  # noqa: F401
from .misc import BiDense, Dropout1d, Dropout2d, Dropout3d, Identity, Unflatten  # noqa: F401
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm  # noqa: F401
from .normalization import (BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d,  # noqa: F401
                            InstanceNorm3d, LRN)
from .pooling import AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d  # noqa: F401
from .tensor_ops import Roll, Tril, Triu  # noqa: F401

__all__ = ["ELU", "GELU", "LeakyReLU", "LogSoftmax", "ReLU", "ReLU6", "Sigmoid", "SiLU", "Softmax",
           "Tanh", "get_activation", "Dense", "Dropout", "Embedding", "Flatten", "CellList",
           "SequentialCell", "Conv2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "AvgPool2d",
           "MaxPool2d", "AvgPool1d", "MaxPool1d", "Roll", "Tril", "Triu"]
__all__ += ["CellDict", "BiDense", "Dropout1d", "Dropout2d", "Dropout3d", "Identity", "Unflatten"]
__all__ += ["BatchNorm3d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LRN"]
__all__ += ["CELU", "GLU", "PReLU", "RReLU", "FastGelu", "Hardtanh", "HShrink", "HSigmoid",
            "HSwish", "LogSigmoid", "Mish", "SeLU", "Softmax2d", "Softmin", "SoftShrink", "Softsign",
            "Tanhshrink", "Threshold"]
__all__ += ["MultiheadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer",
            "TransformerEncoder", "TransformerEncoderLayer"]
