"""ModelCheckpoint: save checkpoints while training, keeping the newest few.

    >>> from minispore.train import CheckpointConfig, ModelCheckpoint
    >>> config = CheckpointConfig(save_checkpoint_steps=100, keep_checkpoint_max=3)
    >>> ckpt_cb = ModelCheckpoint(prefix="lenet", directory="./ckpt", config=config)
    >>> model.train(5, dataset, callbacks=[ckpt_cb])     # doctest: +SKIP

Files are named ``{prefix}-{epoch}_{step in epoch}.ckpt``, as MindSpore names them. When the
directory already holds checkpoints with that prefix, the prefix becomes ``{prefix}_1`` (then
``_2``...), so a new run never overwrites an earlier one.
"""
from __future__ import annotations

import os
import re

from .callback import Callback
from .checkpoint import save_checkpoint
from typing import Any, Optional
from .callback import RunContext

__all__ = ["CheckpointConfig", "ModelCheckpoint"]

_APPEND_INFO_KEYS = ("epoch_num", "step_num")


class CheckpointConfig:
    """When ModelCheckpoint saves and how many files it keeps.

    Args:
        save_checkpoint_steps: save every this many steps.
        keep_checkpoint_max: keep at most this many of the newest files this callback wrote
            (0 or None: keep all).
        saved_network: a Cell to save instead of the training network (e.g. the bare net,
            without optimizer state).
        append_info: a list with "epoch_num" and/or "step_num", and/or one dict of extra
            entries (see `save_checkpoint`'s append_dict) to store in every file.
    """

    def __init__(self, save_checkpoint_steps: int = 1, keep_checkpoint_max: int = 5,
                 saved_network: Any = None, append_info: Optional[list[Any]] = None) -> None:
        if isinstance(save_checkpoint_steps, bool) or not isinstance(save_checkpoint_steps, int) \
                or save_checkpoint_steps < 1:
            raise ValueError(f"CheckpointConfig: save_checkpoint_steps must be an int >= 1, "
                             f"got {save_checkpoint_steps!r}")
        if keep_checkpoint_max is not None and (not isinstance(keep_checkpoint_max, int)
                                                or keep_checkpoint_max < 0):
            raise ValueError(f"CheckpointConfig: keep_checkpoint_max must be an int >= 0, "
                             f"got {keep_checkpoint_max!r}")
        self.save_checkpoint_steps = save_checkpoint_steps
        self.keep_checkpoint_max = keep_checkpoint_max or 0
        self.saved_network = saved_network
        self.append_info = _check_append_info(append_info)


def _check_append_info(append_info):
    if append_info is None:
        return []
    if not isinstance(append_info, (list, tuple)):
        raise TypeError(f"CheckpointConfig: append_info must be a list, got {append_info!r}")
    for item in append_info:
        if not (item in _APPEND_INFO_KEYS or isinstance(item, dict)):
            raise ValueError(f"CheckpointConfig: append_info items are {_APPEND_INFO_KEYS} or a "
                             f"dict, got {item!r}")
    return list(append_info)


class ModelCheckpoint(Callback):
    """Save a checkpoint every `config.save_checkpoint_steps` steps and at the end of training.

    Args:
        prefix: the file name prefix.
        directory: where to write (created if missing; default the current directory).
        config: a CheckpointConfig (default CheckpointConfig()).
    """

    def __init__(self, prefix: str = "CKP", directory: Optional[str] = None,
                 config: Optional[CheckpointConfig] = None) -> None:
        if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file name part, "
                             f"got {prefix!r}")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: config must be a CheckpointConfig, "
                            f"got {type(config).__name__}")
        self._base_prefix = prefix
        self._prefix = prefix
        self._directory = os.path.abspath(directory if directory is not None else os.getcwd())
        self._config = config or CheckpointConfig()
        self._saved: list[str] = []  # files written by this callback, oldest first
        self._last_saved_step = 0
        self.latest_ckpt_file_name: Optional[str] = None

    def on_train_begin(self, run_context: RunContext) -> None:
        os.makedirs(self._directory, exist_ok=True)
        self._prefix = _free_prefix(self._directory, self._base_prefix)
        self._saved = []
        self._last_saved_step = 0

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        if cb_params.cur_step_num - self._last_saved_step >= self._config.save_checkpoint_steps:
            self._save(cb_params)

    def on_train_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        if cb_params.cur_step_num > self._last_saved_step:
            self._save(cb_params)

    def _save(self, cb_params):
        step_in_epoch = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        name = f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch}.ckpt"
        path = os.path.join(self._directory, name)
        network = self._config.saved_network or cb_params.train_network
        save_checkpoint(network, path, append_dict=self._append_dict(cb_params))
        self._last_saved_step = cb_params.cur_step_num
        self.latest_ckpt_file_name = path
        if path in self._saved:
            self._saved.remove(path)
        self._saved.append(path)
        keep = self._config.keep_checkpoint_max
        while keep and len(self._saved) > keep:
            old = self._saved.pop(0)
            if os.path.exists(old):
                os.remove(old)

    def _append_dict(self, cb_params):
        extra = {}
        for item in self._config.append_info:
            if item == "epoch_num":
                extra["epoch_num"] = cb_params.cur_epoch_num
            elif item == "step_num":
                extra["step_num"] = cb_params.cur_step_num
            else:
                extra.update(item)
        return extra or None


def _free_prefix(directory, prefix):
    """`prefix`, or `prefix_N` with the smallest N whose checkpoints are not in `directory`."""
    taken = set()
    pattern = re.compile(rf"^{re.escape(prefix)}(?:_(\d+))?-\d+_\d+\.ckpt$")
    for name in os.listdir(directory):
        match = pattern.match(name)
        if match:
            taken.add(int(match.group(1) or 0))
    n = 0
    while n in taken:
        n += 1
    return prefix if n == 0 else f"{prefix}_{n}"
