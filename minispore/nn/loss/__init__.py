"""Loss Cells (`mindspore.nn.loss`): `loss_fn(logits, labels)`, reduced by `reduction`
('mean', 'sum' or 'none'). Each is a thin front for an `ops` function or an exact composite.

    basic           LossBase, MSELoss, L1Loss, SmoothL1Loss, cross-entropies, NLLLoss, BCE
    regression      Huber, RMSE, MAE, soft margin, ranking, hinge/cosine embedding, triplet,
                    Poisson and Gaussian NLL, KL divergence
    classification  multi margin, multi-label soft margin, focal, dice, CTC
"""
from .basic import (  # noqa: F401
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
from .classification import (  # noqa: F401
                    CTCLoss,
                    DiceLoss,
                    FocalLoss,
                    MultiClassDiceLoss,
                    MultilabelMarginLoss,
                    MultiLabelSoftMarginLoss,
                    MultiMarginLoss,
)
from .regression import (  # noqa: F401
                    CosineEmbeddingLoss,
                    GaussianNLLLoss,
                    HingeEmbeddingLoss,
                    HuberLoss,
                    KLDivLoss,
                    MAELoss,
                    MarginRankingLoss,
                    PoissonNLLLoss,
                    RMSELoss,
                    SoftMarginLoss,
                    TripletMarginLoss,
                    TripletMarginWithDistanceLoss,
)
