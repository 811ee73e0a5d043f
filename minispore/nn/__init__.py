"""minispore.nn: Cell, Parameter, layers, losses, optimizers and training wrappers.

    >>> import minispore as ms
    >>> net = ms.nn.SequentialCell([ms.nn.Dense(4, 8), ms.nn.ReLU(), ms.nn.Dense(8, 2)])
    >>> opt = ms.nn.Adam(net.trainable_params(), learning_rate=1e-3)
    >>> step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, ms.nn.MSELoss()), opt)
"""
from ..core.parameter import Parameter, ParameterTuple  # noqa: F401
from .cell import Cell  # noqa: F401
from .dynamic_lr import cosine_decay_lr, exponential_decay_lr, piecewise_constant_lr, warmup_lr  # noqa: F401
from .layers import *  # noqa: F401,F403
from .learning_rate_schedule import (  # noqa: F401
                   CosineDecayLR,
                   ExponentialDecayLR,
                   LearningRateSchedule,
                   PolynomialDecayLR,
                   WarmUpLR,
)
from .loss import (  # noqa: F401
                   BCELoss,
                   BCEWithLogitsLoss,
                   CrossEntropyLoss,
                   L1Loss,
                   LossBase,
                   MSELoss,
                   NLLLoss,
                   SmoothL1Loss,
                   SoftmaxCrossEntropyWithLogits,
)
from .optim import SGD, Adam, AdamWeightDecay, Momentum, Optimizer  # noqa: F401
from .wrap import TrainOneStepCell, WithEvalCell, WithLossCell  # noqa: F401
