"""minispore.amp: mixed precision and loss scaling, with MindSpore's names.

    >>> import minispore as ms
    >>> net = ms.amp.auto_mixed_precision(ms.nn.Dense(3, 2), "O3")
    >>> scaler = ms.amp.StaticLossScaler(1024.0)
"""
from ..nn.loss_scale import all_finite  # noqa: F401
from .loss_scale_manager import (  # noqa: F401
                                 DynamicLossScaleManager,
                                 FixedLossScaleManager,
                                 LossScaleManager,
)
from .loss_scaler import DynamicLossScaler, LossScaler, StaticLossScaler  # noqa: F401
from .mixed_precision import (  # noqa: F401
                                 auto_mixed_precision,
                                 build_train_network,
                                 custom_mixed_precision,
                                 get_black_list,
                                 get_white_list,
)
