"""Automatic mixed precision (MindSpore's mindspore.amp): auto_mixed_precision,
custom_mixed_precision, build_train_network.

    >>> import minispore as ms
    >>> net = ms.nn.SequentialCell([ms.nn.Dense(4, 8), ms.nn.BatchNorm1d(8), ms.nn.Dense(8, 2)])
    >>> net = ms.amp.auto_mixed_precision(net, "O2")
    >>> net(ms.ops.ones((3, 4))).dtype        # float16 compute, float32 result
    Float32

Levels: "O0" changes nothing; "O1" runs the white-list cells (Dense, convolutions, recurrent
cells) in float16, casting their results back to float32; "O2" runs everything in float16
except the black-list cells (BatchNorm, LayerNorm), which run in float32 and hand float16 on;
"O3" runs everything in float16. O2 and O3 cast the network's output to float32. Parameters
stay float32 (master weights): each cell casts them for its computation (Cell.to_float), and
the casts' derivatives bring float32 gradients back. O1 here works on Cells: an ops.matmul
written inside a custom construct is not cast (MindSpore also rewrites its MatMul/Conv2D
primitives).
"""
from typing import Any, Optional

from .. import nn
from ..core.dtype import bfloat16, float16, float32, to_type
from .loss_scale_manager import DynamicLossScaleManager, LossScaleManager

_WHITE = ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose",
          "Conv3dTranspose", "Dense", "LSTMCell", "RNNCell", "GRUCell")
_BLACK = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm")


def _classes(names):
    return [getattr(nn, n) for n in names if hasattr(nn, n)]


def get_white_list():
    """The Cell classes O1 runs in half precision (a copy)."""
    return _classes(_WHITE)


def get_black_list():
    """The Cell classes O2 keeps in float32 (a copy)."""
    return _classes(_BLACK)


def _half(dtype):
    dtype = to_type(dtype)
    if dtype not in (float16, bfloat16):
        raise ValueError(f"mixed precision: dtype must be float16 or bfloat16, got {dtype}")
    return dtype


def _set(cell, compute=None, output=None):
    object.__setattr__(cell, "_amp_dtype", compute)
    object.__setattr__(cell, "_amp_output", output)


def _white_listed(network, white_list, dtype):
    for _, cell in network.cells_and_names():
        if isinstance(cell, tuple(white_list)):
            cell.to_float(dtype)
            object.__setattr__(cell, "_amp_output", float32)


def _black_listed(network, black_list, dtype):
    network.to_float(dtype)
    for _, cell in network.cells_and_names():
        if isinstance(cell, tuple(black_list)):
            cell.to_float(float32)
            object.__setattr__(cell, "_amp_output", dtype)
    object.__setattr__(network, "_amp_output", float32)


def auto_mixed_precision(network, amp_level="O0", dtype=float16):
    """The network set to compute in mixed precision at `amp_level` (see the module
    docstring); the same Cell, changed in place, is returned."""
    if not isinstance(network, nn.Cell):
        raise TypeError(f"auto_mixed_precision: network must be a Cell, got "
                        f"{type(network).__name__}")
    if amp_level not in ("O0", "O1", "O2", "O3"):
        raise ValueError(f"auto_mixed_precision: amp_level must be 'O0', 'O1', 'O2' or 'O3', "
                         f"got {amp_level!r}")
    dtype = _half(dtype)
    if amp_level == "O1":
        _white_listed(network, get_white_list(), dtype)
    elif amp_level == "O2":
        _black_listed(network, get_black_list(), dtype)
    elif amp_level == "O3":
        network.to_float(dtype)
        object.__setattr__(network, "_amp_output", float32)
    return network


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=float16):
    """Mixed precision with your own list: cells of `white_list` classes in half precision
    (O1-like), or everything but `black_list` classes (O2-like). Give exactly one list."""
    if (white_list is None) == (black_list is None):
        raise ValueError("custom_mixed_precision: give exactly one of white_list, black_list")
    dtype = _half(dtype)
    if white_list is not None:
        _white_listed(network, list(white_list), dtype)
    else:
        _black_listed(network, list(black_list), dtype)
    return network


_LEVEL_DEFAULTS = {  # MindSpore's build_train_network configuration per level
    "O0": {"keep_batchnorm_fp32": False, "cast_model_type": float32, "loss_scale_manager": None},
    "O1": {"keep_batchnorm_fp32": False, "cast_model_type": float32, "loss_scale_manager": None},
    "O2": {"keep_batchnorm_fp32": True, "cast_model_type": float16,
           "loss_scale_manager": "dynamic"},
    "O3": {"keep_batchnorm_fp32": False, "cast_model_type": float16, "loss_scale_manager": None},
}


def build_train_network(network: nn.Cell, optimizer: nn.Cell, loss_fn: Optional[nn.Cell] = None,
                        level: str = "O0", boost_level: str = "O0", **kwargs: Any) -> nn.Cell:
    """A training Cell: `network` in mixed precision at `level`, with `loss_fn` (kept in
    float32) and a step of `optimizer`, with loss scaling where a loss_scale_manager applies
    (O2's default: DynamicLossScaleManager). kwargs: cast_model_type, keep_batchnorm_fp32,
    loss_scale_manager override the level's defaults."""
    if level not in _LEVEL_DEFAULTS:
        raise ValueError(f"build_train_network: level must be 'O0'...'O3', got {level!r}")
    unknown = set(kwargs) - set(_LEVEL_DEFAULTS["O0"])
    if unknown:
        raise ValueError(f"build_train_network: unknown option(s) {sorted(unknown)}; known: "
                         f"{sorted(_LEVEL_DEFAULTS['O0'])}")
    config = dict(_LEVEL_DEFAULTS[level], **kwargs)
    if config["loss_scale_manager"] == "dynamic":
        config["loss_scale_manager"] = DynamicLossScaleManager()
    cast = to_type(config["cast_model_type"])
    if level == "O1":
        auto_mixed_precision(network, "O1")
    elif cast != float32:
        if config["keep_batchnorm_fp32"]:
            _black_listed(network, get_black_list(), _half(cast))
        else:
            network.to_float(_half(cast))
            object.__setattr__(network, "_amp_output", float32)
    if loss_fn is not None:
        network = nn.WithLossCell(network, loss_fn)
    manager = config["loss_scale_manager"]
    if manager is None:
        return nn.TrainOneStepCell(network, optimizer)
    if not isinstance(manager, LossScaleManager):
        raise TypeError(f"build_train_network: loss_scale_manager must be a LossScaleManager, "
                        f"got {type(manager).__name__}")
    update_cell = manager.get_update_cell()
    if update_cell is None:   # fixed scale without overflow checks: the optimizer divides
        return nn.TrainOneStepCell(network, optimizer, sens=manager.get_loss_scale())
    return nn.TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell)
