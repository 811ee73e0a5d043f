"""minispore: a dual-mode deep-learning runtime with a MindSpore-style API.

    import minispore as ms
    ms.set_context(mode=ms.PYNATIVE_MODE)   # eager: each op runs now, debuggable anywhere
    ms.set_context(mode=ms.GRAPH_MODE)      # compiled: construct is traced, fused and compiled
"""
from .runtime.memory import tune_allocator as _tune_allocator
from .runtime import eager as _eager  # noqa: F401  (installs the eager interpreter)
from .runtime.tensor import Tensor  # noqa: F401
from .runtime.dtype import (Type, bfloat16, bool_, float16, float32, float64, int8,  # noqa: F401
                            int16, int32, int64, uint8)
from .runtime import dtype  # noqa: F401
from . import common, context, ops, nn  # noqa: F401
from .common.seed import get_seed, set_seed  # noqa: F401
from .context import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT,  # noqa: F401
                      get_context, set_context)
from .nn.parameter import Parameter, ParameterTuple  # noqa: F401
from .grad.api import GradOperation, grad, jvp, value_and_grad, vjp  # noqa: F401
from .grad import hessian, jacfwd, jacrev, vmap  # noqa: F401
from .runtime.compile import jit, ms_function, mutable  # noqa: F401
from . import dataset, fallback, train  # noqa: F401
from . import amp, experimental  # noqa: F401
from .amp import build_train_network  # noqa: F401
from .train.loss_scale_manager import (DynamicLossScaleManager,  # noqa: F401
                                       FixedLossScaleManager, LossScaleManager)
from .fallback.report import explain  # noqa: F401
from .train import (Callback, CheckpointConfig, LossMonitor, Model, ModelCheckpoint,  # noqa: F401
                    RunContext, TimeMonitor, load_checkpoint, load_param_into_net,
                    save_checkpoint)

__version__ = "0.1.0"
_tune_allocator()
