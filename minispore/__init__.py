"""minispore: a dual-mode deep-learning runtime with a MindSpore-style API.

    import minispore as ms
    ms.set_context(mode=ms.PYNATIVE_MODE)   # eager: each op runs now, debuggable anywhere
    ms.set_context(mode=ms.GRAPH_MODE)      # compiled: construct is traced, fused and compiled

The package is layered, each layer importing only those below it (README, "How it works"):
context, core, common, ops, grad, compiler, fallback, graph_mode, nn, amp and experimental,
train and dataset; mint and numpy are namespaces over ops and nn.
"""
from . import (amp, common, communication, context, dataset, experimental,  # noqa: F401
               fallback, nn, ops, profiler, train)
from . import mint, numpy  # noqa: F401  (MindSpore's mint and numpy namespaces)
from .amp import build_train_network  # noqa: F401
from .common.seed import get_seed, set_seed  # noqa: F401
from .context import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT,  # noqa: F401
                      get_context, set_context)
from .context.parallel import (ParallelMode, get_auto_parallel_context,  # noqa: F401
                               reset_auto_parallel_context, set_auto_parallel_context)
from .core import dtype  # noqa: F401
from .core.dtype import (Type, bfloat16, bool_, float16, float32, float64, int8,  # noqa: F401
                         int16, int32, int64, uint8)
from .core.interop import from_dlpack  # noqa: F401
from .core.memory import tune_allocator as _tune_allocator
from .core.parameter import Parameter, ParameterTuple  # noqa: F401
from .core.tensor import Tensor  # noqa: F401
from .grad import (GradOperation, grad, hessian, jacfwd, jacrev, jvp,  # noqa: F401
                   value_and_grad, vjp, vmap)
from .export import export, load  # noqa: F401
from .graph_mode import explain, jit, ms_function, mutable  # noqa: F401
from .train import (Callback, CheckpointConfig, DynamicLossScaleManager,  # noqa: F401
                    FixedLossScaleManager, LossMonitor, LossScaleManager, Model, ModelCheckpoint,
                    RunContext, TimeMonitor, load_checkpoint, load_param_into_net,
                    save_checkpoint)
from .nn.metrics import (F1, MAE, MSE, ROC, Accuracy, BleuScore,  # noqa: F401  (as MindSpore)
                         ConfusionMatrix, ConfusionMatrixMetric, CosineSimilarity, Dice, Fbeta,
                         HausdorffDistance, Loss, MeanSurfaceDistance, Metric,
                         OcclusionSensitivity, Perplexity,
                         Precision, Recall, RootMeanSquareDistance, Top1CategoricalAccuracy,
                         Top5CategoricalAccuracy, TopKCategoricalAccuracy, auc, get_metric_fn,
                         names, rearrange_inputs)
from .profiler import Profiler  # noqa: F401
from .version import __version__  # noqa: F401

_tune_allocator()
