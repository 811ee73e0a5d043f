"""minispore.nn: Cell, Parameter, layers, losses, optimizers and training wrappers.

    >>> import minispore as ms
    >>> net = ms.nn.SequentialCell([ms.nn.Dense(4, 8), ms.nn.ReLU(), ms.nn.Dense(8, 2)])
    >>> opt = ms.nn.Adam(net.trainable_params(), learning_rate=1e-3)
    >>> step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, ms.nn.MSELoss()), opt)
"""
from ..core.parameter import Parameter, ParameterTuple  # noqa: F401
from .cell import Cell  # noqa: F401
from .dynamic_lr import (  # noqa: F401
                   cosine_decay_lr,
                   exponential_decay_lr,
                   inverse_decay_lr,
                   natural_exp_decay_lr,
                   piecewise_constant_lr,
                   polynomial_decay_lr,
                   warmup_lr,
)
from .layers import *  # noqa: F401,F403
from .learning_rate_schedule import (  # noqa: F401
                   CosineDecayLR,
                   ExponentialDecayLR,
                   InverseDecayLR,
                   LearningRateSchedule,
                   NaturalExpDecayLR,
                   PolynomialDecayLR,
                   WarmUpLR,
)
from .loss import (  # noqa: F401
                   BCELoss,
                   BCEWithLogitsLoss,
                   CosineEmbeddingLoss,
                   CrossEntropyLoss,
                   CTCLoss,
                   DiceLoss,
                   FocalLoss,
                   GaussianNLLLoss,
                   HingeEmbeddingLoss,
                   HuberLoss,
                   KLDivLoss,
                   L1Loss,
                   LossBase,
                   MAELoss,
                   MarginRankingLoss,
                   MSELoss,
                   MultiClassDiceLoss,
                   MultiLabelSoftMarginLoss,
                   MultilabelMarginLoss,
                   MultiMarginLoss,
                   NLLLoss,
                   PoissonNLLLoss,
                   RMSELoss,
                   SmoothL1Loss,
                   SoftMarginLoss,
                   SoftmaxCrossEntropyWithLogits,
                   TripletMarginLoss,
                   TripletMarginWithDistanceLoss,
)
from .optim import (  # noqa: F401
                   ASGD,
                   FTRL,
                   LARS,
                   SGD,
                   AdaMax,
                   Adadelta,
                   Adagrad,
                   Adam,
                   AdamWeightDecay,
                   Lamb,
                   LazyAdam,
                   Momentum,
                   Optimizer,
                   ProximalAdagrad,
                   RMSProp,
                   Rprop,
)
from .clip import ClipByNorm  # noqa: F401
from .distributed import DistributedGradReducer, SyncBatchNorm  # noqa: F401
from .graph_cell import GraphCell  # noqa: F401
from .grad_cells import ForwardValueAndGrad, Jvp, Vjp, WithGradCell  # noqa: F401
from .metrics import *  # noqa: F401,F403
from .loss_scale import (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell,  # noqa: F401
                         TrainOneStepWithLossScaleCell)
from .wrap import TrainOneStepCell, WithEvalCell, WithLossCell  # noqa: F401
