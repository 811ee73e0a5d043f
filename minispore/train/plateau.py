"""Callbacks that watch a quantity at the end of each epoch: EarlyStopping stops training
and ReduceLROnPlateau lowers the learning rate once it has stopped improving (MindSpore's).

    >>> from minispore.train import Model, EarlyStopping, ReduceLROnPlateau
    >>> model = Model(net, loss_fn, optimizer, metrics={"acc"})                # doctest: +SKIP
    >>> model.fit(20, train, valid, callbacks=[EarlyStopping("acc", patience=3),
    ...                                        ReduceLROnPlateau("eval_loss", patience=2)])

The quantity (`monitor`) is "loss" (the last step's training loss), or with `Model.fit`'s
evaluation "eval_loss" or the name of one of the Model's metrics. In a data-parallel job it is
averaged over the ranks, so every rank stops (or lowers its rate) at the same epoch.
"""
from __future__ import annotations

import copy
import logging
from typing import Any, Optional

import numpy as np

from ..context import parallel
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..ops import functional as F
from .callback import Callback, RunContext
from .checkpoint import load_param_into_net
from .monitors import _loss_value

__all__ = ["EarlyStopping", "ReduceLROnPlateau"]

# quantities that improve by decreasing (mode "auto")
SMALLER_IS_BETTER = frozenset({"loss", "eval_loss", "mae", "mse", "perplexity",
                               "hausdorff_distance", "mean_surface_distance",
                               "root_mean_square_distance"})
_log = logging.getLogger("minispore.train")


class _Watch(Callback):
    """The watched quantity, its best value and whether a value improves on it."""

    def __init__(self, owner: str, monitor: str, mode: str, min_delta: float) -> None:
        if not isinstance(monitor, str):
            raise TypeError(f"{owner}: monitor must be a str, got {type(monitor).__name__}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"{owner}: mode must be 'auto', 'min' or 'max', got {mode!r}")
        if isinstance(min_delta, bool) or not isinstance(min_delta, (int, float)):
            raise TypeError(f"{owner}: min_delta must be a number, got {min_delta!r}")
        self.owner, self.monitor, self.mode = owner, monitor, mode
        self.min_delta = abs(float(min_delta))
        self.lower = mode == "min" or (mode == "auto" and monitor in SMALLER_IS_BETTER)
        self.best = np.inf if self.lower else -np.inf

    def improves(self, value: float, reference: float) -> bool:
        if self.lower:
            return bool(value < reference - self.min_delta)
        return bool(value > reference + self.min_delta)

    def reset(self) -> None:
        self.best = np.inf if self.lower else -np.inf

    def current(self, cb_params: Any) -> Optional[float]:
        """The quantity at this epoch's end (averaged over the ranks), or None (with a
        warning) where the run does not have it."""
        if self.monitor == "loss":
            value, candidates = _loss_value(cb_params.get("net_outputs")), ["loss"]
        else:
            results = cb_params.get("eval_results") or {}
            value, candidates = results.get(self.monitor), ["loss", *results]
        if value is None:
            _log.warning("%s watches %r, which this run does not have; it has: %s",
                         self.owner, self.monitor, ", ".join(candidates))
            return None
        array = np.asarray(value.asnumpy() if isinstance(value, Tensor) else value, np.float64)
        if array.size != 1:
            raise ValueError(f"{self.owner}: {self.monitor!r} must be a scalar, got shape "
                             f"{array.shape}")
        world = parallel.world()
        size = world.group_size(parallel.WORLD_GROUP)
        if size > 1:
            array = world.all_reduce(array.reshape(1), "sum", parallel.WORLD_GROUP) / size
        return float(array.reshape(()))


class EarlyStopping(Callback):
    """Stop training once `monitor` has not improved by more than `min_delta` for `patience`
    epochs (MindSpore's `train.EarlyStopping`).

    Args:
        monitor: "loss", "eval_loss" or a metric's name (see the module docstring).
        min_delta: the least change that counts as an improvement.
        patience: epochs without improvement before stopping (0: stop at the first).
        verbose: print the epoch it stopped at.
        mode: "min", "max", or "auto" (min for losses and distances, else max).
        baseline: an improvement resets the patience only if it also beats this value.
        restore_best_weights: on stopping, load the weights of the best epoch.

        >>> model.fit(10, train, valid, callbacks=EarlyStopping("acc", patience=3))  # doctest: +SKIP
    """

    def __init__(self, monitor: str = "eval_loss", min_delta: float = 0, patience: int = 0,
                 verbose: bool = False, mode: str = "auto", baseline: Optional[float] = None,
                 restore_best_weights: bool = False) -> None:
        self.watch = _Watch("EarlyStopping", monitor, mode, min_delta)
        self.patience = _non_negative_int(patience, "EarlyStopping", "patience")
        self.verbose, self.baseline = bool(verbose), baseline
        self.restore_best_weights = bool(restore_best_weights)
        self.wait = self.stopped_epoch = 0
        self.best_weights: Optional[dict[str, Any]] = None

    def on_train_begin(self, run_context: RunContext) -> None:
        self.watch.reset()
        self.wait = self.stopped_epoch = 0
        self.best_weights = None

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        value = self.watch.current(cb_params)
        if value is None:
            return
        network = cb_params.train_network
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = _snapshot(network)
        self.wait += 1
        if self.watch.improves(value, self.watch.best):
            self.watch.best = value
            if self.restore_best_weights:
                self.best_weights = _snapshot(network)
            if self.baseline is None or self.watch.improves(value, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = cb_params.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                load_param_into_net(network, self.best_weights)

    def on_train_end(self, run_context: RunContext) -> None:
        if self.stopped_epoch and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")


class ReduceLROnPlateau(Callback):
    """Multiply the learning rate by `factor` once `monitor` has not improved by more than
    `min_delta` for `patience` epochs, then wait `cooldown` epochs; never below `min_lr`
    (MindSpore's `train.ReduceLROnPlateau`). The optimizer's learning rate must be one number
    (not a schedule, not per group).

        >>> model.fit(10, train, valid, callbacks=ReduceLROnPlateau("eval_loss", patience=2))  # doctest: +SKIP
    """

    def __init__(self, monitor: str = "eval_loss", factor: float = 0.1, patience: int = 10,
                 verbose: bool = False, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0) -> None:
        if not 0.0 < factor < 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be in (0, 1), got {factor!r}")
        self.watch = _Watch("ReduceLROnPlateau", monitor, mode, min_delta)
        self.factor = float(factor)
        self.patience = _non_negative_int(patience, "ReduceLROnPlateau", "patience")
        self.cooldown = _non_negative_int(cooldown, "ReduceLROnPlateau", "cooldown")
        self.verbose, self.min_lr = bool(verbose), float(min_lr)
        self.wait = self.cooldown_counter = 0

    def on_train_begin(self, run_context: RunContext) -> None:
        self.watch.reset()
        self.wait = self.cooldown_counter = 0

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        lr = cb_params.optimizer.learning_rate
        if not isinstance(lr, Parameter) or lr.ndim != 0:
            raise ValueError("ReduceLROnPlateau: the optimizer's learning rate must be one "
                             "number, not a schedule or per-group rates")
        value = self.watch.current(cb_params)
        if value is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.watch.improves(value, self.watch.best):
            self.watch.best, self.wait = value, 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait < self.patience:
            return
        current = float(lr.asnumpy())
        if current > self.min_lr:
            new = max(current * self.factor, self.min_lr)
            F.assign(lr, Tensor(np.asarray(new, lr.dtype.np)))
            if self.verbose:
                print(f"Epoch {cb_params.cur_epoch_num:05d}: ReduceLROnPlateau reducing "
                      f"learning rate to {new}.")
        self.cooldown_counter, self.wait = self.cooldown, 0


def _non_negative_int(value: Any, owner: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{owner}: {name} must be a non-negative int, got {value!r}")
    return value


def _snapshot(network: Any) -> dict[str, Any]:
    """A copy of the network's parameters, name -> Tensor."""
    return {p.name: Tensor(copy.deepcopy(p.asnumpy())) for p in network.get_parameters()}
