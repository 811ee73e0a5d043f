"""minispore.train: Model, callbacks, metrics and checkpoints.

    >>> from minispore.train import Model, LossMonitor, ModelCheckpoint, CheckpointConfig
    >>> from minispore.train import save_checkpoint, load_checkpoint, load_param_into_net
"""
from ..amp.loss_scale_manager import (DynamicLossScaleManager,  # noqa: F401
                                     FixedLossScaleManager, LossScaleManager)
from .callback import Callback, CallbackList, CallbackParams, RunContext  # noqa: F401
from .checkpoint import CheckpointError, load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401
from ..nn.metrics import *  # noqa: F401,F403
from ..nn.metrics import __all__ as _metric_names
from .model import Model  # noqa: F401
from .model_checkpoint import CheckpointConfig, ModelCheckpoint  # noqa: F401
from .custom_callbacks import LambdaCallback, LearningRateScheduler  # noqa: F401
from .monitors import History, LossMonitor, ProgressBar, TimeMonitor  # noqa: F401
from .plateau import EarlyStopping, ReduceLROnPlateau  # noqa: F401

__all__ = ["Model", "Callback", "CallbackList", "CallbackParams", "RunContext", "LossMonitor",
           "TimeMonitor", "ProgressBar", "ModelCheckpoint", "CheckpointConfig", "CheckpointError",
           "save_checkpoint", "load_checkpoint", "load_param_into_net", "History",
           "LambdaCallback", "LearningRateScheduler", "EarlyStopping", "ReduceLROnPlateau",
           *_metric_names]
