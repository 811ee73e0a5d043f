"""Model: the high-level training / evaluation / prediction loop over datasets.

`train` runs epochs, `eval` one pass of the metrics, `fit` both (training with an evaluation
every few epochs), `predict` the network.

    >>> import numpy as np
    >>> import minispore.dataset as ds
    >>> from minispore import nn
    >>> from minispore.train import Model
    >>> x = np.random.default_rng(0).standard_normal((64, 4)).astype(np.float32)
    >>> data = ds.NumpySlicesDataset((x, (x[:, 0] > 0).astype(np.int32)), ["x", "y"]).batch(16)
    >>> net = nn.Dense(4, 2)
    >>> loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    >>> opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    >>> model = Model(net, loss_fn=loss, optimizer=opt, metrics={"accuracy"})
    >>> model.train(20, data, progress_bar=False)
    >>> model.eval(data)["accuracy"] > 0.9
    True
    >>> from minispore.train import LossMonitor
    >>> model.fit(22, data, valid_dataset=data, valid_frequency=[22], initial_epoch=20,
    ...           callbacks=LossMonitor(0), progress_bar=False)    # doctest: +ELLIPSIS
    Eval result: epoch 22, metrics: {'accuracy': ...}

How the networks are built, as in MindSpore:

* training: ``TrainOneStepCell(WithLossCell(network, loss_fn), optimizer)`` with both given;
  ``TrainOneStepCell(network, optimizer)`` with only an optimizer (the network computes its
  own loss); ``WithLossCell(network, loss_fn)`` with only a loss (forward only); the
  network itself with neither (it is a whole training step).
* evaluation: `eval_network` if given (its outputs go to the metrics as they are, or picked
  by `eval_indexes` = [loss, prediction, label] positions); else
  ``WithEvalCell(network, loss_fn)``, whose (loss, logits, label) feed Loss with the loss and
  every other metric with (logits, label).
"""
from __future__ import annotations

import sys

from .. import nn
from ..amp import build_train_network
from ..core.tensor import Tensor
from ..nn.cell import Cell
from .callback import CallbackList, CallbackParams, RunContext
from ..nn.metrics import Loss, get_metrics
from .monitors import ProgressBar
from typing import Any, Optional, Union

__all__ = ["Model"]

# auto mode keeps short runs quiet: the bar appears only once a run has taken this long
_AUTO_PROGRESS_DELAY_S = 1.0
# the entries of cb_params a validation inside Model.fit changes and then restores
_TRAINING_STATE = ("mode", "cur_step_num", "batch_num", "dataset_sink_mode", "net_outputs")
# the key of the evaluation network's mean loss in cb_params.eval_results (MindSpore's)
_EVAL_LOSS = "eval_loss"


class Model:
    """Groups a network with its loss, optimizer and metrics for train / eval / predict.

    Args:
        network: the Cell to train (maps data to predictions, or to a loss when loss_fn is
            None).
        loss_fn: a loss Cell, loss_fn(prediction, label).
        optimizer: an optimizer Cell over the network's parameters, called as optimizer(grads).
        metrics: a set of metric names ({"accuracy", "loss"}) or a dict name -> Metric, used
            by `eval`.
        eval_network: a Cell for evaluation (default: WithEvalCell(network, loss_fn)).
        eval_indexes: with eval_network, the positions of [loss, prediction, label] in its
            outputs (a list of three), or None to pass all outputs to every metric.
    """

    def __init__(self, network: Cell, loss_fn: Optional[Cell] = None, optimizer: Optional[Cell] = None,
                 metrics: Any = None, eval_network: Optional[Cell] = None,
                 eval_indexes: Optional[list[int]] = None, amp_level: str = "O0",
                 boost_level: str = "O0", **kwargs: Any) -> None:
        if not isinstance(network, Cell):
            raise TypeError(f"Model: network must be a Cell, got {type(network).__name__}")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        # mixed precision (amp.build_train_network): the level and its options
        # (loss_scale_manager, keep_batchnorm_fp32, cast_model_type)
        self._amp_level, self._boost_level, self._amp_options = amp_level, boost_level, kwargs
        self._train_network = self._build_train_network()
        self._metric_fns = get_metrics(metrics)
        self._eval_network, self._eval_indexes = self._build_eval_network(eval_network,
                                                                          eval_indexes)

    @property
    def train_network(self) -> Cell:
        return self._train_network

    @property
    def predict_network(self) -> Cell:
        return self._network

    @property
    def eval_network(self) -> Optional[Cell]:
        return self._eval_network

    def _build_train_network(self):
        if self._optimizer is not None and (self._amp_level != "O0" or self._amp_options):
            return build_train_network(self._network, self._optimizer, self._loss_fn,
                                       self._amp_level, self._boost_level, **self._amp_options)
        if self._optimizer is not None:
            network = self._network
            if self._loss_fn is not None:
                network = nn.WithLossCell(network, self._loss_fn)
            return nn.TrainOneStepCell(network, self._optimizer)
        if self._loss_fn is not None:
            return nn.WithLossCell(self._network, self._loss_fn)
        return self._network

    def _build_eval_network(self, eval_network, eval_indexes):
        if not self._metric_fns:
            return eval_network, None
        if eval_network is not None:
            if eval_indexes is not None and not (isinstance(eval_indexes, (list, tuple))
                                                 and len(eval_indexes) == 3):
                raise ValueError(f"Model: eval_indexes must be None or a list of three positions "
                                 f"[loss, prediction, label], got {eval_indexes!r}")
            return eval_network, eval_indexes
        if self._loss_fn is None:
            raise ValueError("Model: metrics need an evaluation network; give loss_fn (to build "
                             "WithEvalCell(network, loss_fn)) or eval_network")
        return nn.WithEvalCell(self._network, self._loss_fn), [0, 1, 2]

    # ----- training -----
    def train(self, epoch: int, train_dataset: Any, callbacks: Any = None,
              dataset_sink_mode: bool = False, sink_size: int = -1, initial_epoch: int = 0,
              progress_bar: Optional[bool] = None) -> None:
        """Train for epochs initial_epoch+1 .. epoch over `train_dataset`.

        Args:
            epoch: the last epoch to run (the number of epochs when initial_epoch is 0).
            train_dataset: a minispore.dataset Dataset; each row is (data, label) when the
                Model has a loss_fn, else the network's inputs.
            callbacks: a Callback or a list of them.
            dataset_sink_mode: accepted for MindSpore compatibility; data always comes from the
                host here (as MindSpore does on CPU).
            sink_size: with dataset_sink_mode, steps per epoch (-1: the whole dataset).
            initial_epoch: epochs already done (resuming a run).
            progress_bar: True shows a tqdm bar, False hides it; None (default) shows it on a
                terminal once a run takes longer than a second.
        """
        self._run_training("Model.train", epoch, train_dataset, callbacks, dataset_sink_mode,
                           sink_size, initial_epoch, progress_bar, validation=None)

    def fit(self, epoch: int, train_dataset: Any, valid_dataset: Any = None,
            valid_frequency: Union[int, list[int]] = 1, callbacks: Any = None,
            dataset_sink_mode: bool = False, valid_dataset_sink_mode: bool = False,
            sink_size: int = -1, initial_epoch: int = 0, progress_bar: Optional[bool] = None) -> None:
        """Train as `train` does, and evaluate on `valid_dataset` at the end of some epochs.

            >>> model.fit(10, train_data, valid_data, valid_frequency=2,    # doctest: +SKIP
            ...           callbacks=LossMonitor(0))
            Eval result: epoch 2, metrics: {'accuracy': 0.91, 'loss': 0.28}
            ...

        Args:
            valid_dataset: the Dataset to evaluate on (None: train only); needs the Model's
                metrics.
            valid_frequency: an int n evaluates after every n-th epoch (epoch % n == 0); a list
                names the epochs to evaluate after, e.g. [1, 5].
            valid_dataset_sink_mode: accepted for MindSpore compatibility (see
                dataset_sink_mode).

        The other arguments are those of `train`.

        Each evaluation runs between the epoch's last step and on_train_epoch_end, whose
        cb_params then hold `metrics` (what `eval` returns) and `eval_results` (the same plus
        "eval_loss", the mean loss of the evaluation network, when its loss is known); both
        are removed again after on_train_epoch_end. During an evaluation the run's callbacks
        get the on_eval_* hooks with cb_params.mode == "eval", cur_step_num counting its
        steps and batch_num its size; cur_epoch_num stays the training epoch. `LossMonitor`
        prints the results, `TimeMonitor` the evaluation time.
        """
        epochs = _validation_epochs(valid_frequency)
        validation = None
        if valid_dataset is not None:
            if not self._metric_fns:
                raise ValueError("Model.fit: evaluating on valid_dataset needs metrics; pass "
                                 "metrics={'accuracy'} (or a dict name -> Metric) to Model")
            validation = _Validation(valid_dataset, epochs, bool(valid_dataset_sink_mode))
        self._run_training("Model.fit", epoch, train_dataset, callbacks, dataset_sink_mode,
                           sink_size, initial_epoch, progress_bar, validation)

    def _run_training(self, api, epoch, train_dataset, callbacks, dataset_sink_mode, sink_size,
                      initial_epoch, progress_bar, validation):
        _check_int(epoch, 1, api, "epoch")
        _check_int(initial_epoch, 0, api, "initial_epoch")
        if initial_epoch >= epoch:
            raise ValueError(f"{api}: epoch ({epoch}) must be larger than initial_epoch "
                             f"({initial_epoch})")
        if not isinstance(sink_size, int) or sink_size == 0 or sink_size < -1:
            raise ValueError(f"{api}: sink_size must be -1 or positive, got {sink_size!r}")
        dataset_size = train_dataset.get_dataset_size()
        if dataset_size == 0:
            raise ValueError(f"{api}: the training dataset is empty")
        steps_per_epoch = sink_size if dataset_sink_mode and sink_size > 0 else dataset_size
        if steps_per_epoch == -1:
            raise ValueError(f"{api}: the training dataset repeats without end; give "
                             f"dataset_sink_mode=True and sink_size > 0 (steps per epoch)")

        cb_params = CallbackParams(
            network=self._network, train_network=self._train_network,
            loss_fn=self._loss_fn, optimizer=self._optimizer,
            epoch_num=epoch - initial_epoch, batch_num=steps_per_epoch,
            cur_epoch_num=initial_epoch, cur_step_num=0, net_outputs=None, mode="train",
            train_dataset=train_dataset, train_dataset_element=None,
            dataset_sink_mode=bool(dataset_sink_mode))
        callback_list = _callback_list(callbacks, progress_bar)
        cb_params.list_callback = callback_list.callbacks
        with callback_list:
            self._train_loop(api, epoch, initial_epoch, train_dataset, steps_per_epoch,
                             cb_params, callback_list, validation)

    def _train_loop(self, api, epoch, initial_epoch, dataset, steps_per_epoch, cb_params,
                    callbacks, validation):
        network = self._train_network
        network.set_train(True)
        run_context = RunContext(cb_params)
        callbacks.on_train_begin(run_context)
        batches = _batches(dataset, epoch - initial_epoch, steps_per_epoch)
        for epoch_index in range(initial_epoch, epoch):
            cb_params.cur_epoch_num = epoch_index + 1
            callbacks.on_train_epoch_begin(run_context)
            for inputs in next(batches):
                if self._loss_fn is not None and len(inputs) != 2:
                    raise ValueError(f"{api}: with a loss_fn each dataset row must be "
                                     f"(data, label), got {len(inputs)} columns")
                cb_params.cur_step_num += 1
                cb_params.train_dataset_element = inputs
                callbacks.on_train_step_begin(run_context)
                cb_params.net_outputs = network(*inputs)
                callbacks.on_train_step_end(run_context)
                if run_context.get_stop_requested():
                    break
            if validation is not None and validation.due(cb_params.cur_epoch_num):
                self._validate(validation, cb_params, callbacks)
            callbacks.on_train_epoch_end(run_context)
            cb_params.pop("metrics", None)
            cb_params.pop("eval_results", None)
            if run_context.get_stop_requested():
                break
        callbacks.on_train_end(run_context)

    def _validate(self, validation, cb_params, callbacks):
        """One evaluation inside a training run: cb_params switch to the evaluation's values
        for its hooks and back to training's afterwards (metrics and eval_results stay)."""
        training = {key: cb_params[key] for key in _TRAINING_STATE}
        cb_params.update(eval_network=self._eval_network, valid_dataset=validation.dataset,
                         batch_num=validation.dataset.get_dataset_size(), mode="eval",
                         cur_step_num=0, net_outputs=None,
                         dataset_sink_mode=validation.dataset_sink_mode)
        self._evaluate(validation.dataset, cb_params, callbacks, with_eval_loss=True)
        cb_params.update(training)
        # the evaluation put the shared backbone in inference mode (BatchNorm, Dropout)
        self._train_network.set_train(True)

    # ----- evaluation -----
    def eval(self, valid_dataset: Any, callbacks: Any = None,
             dataset_sink_mode: bool = False) -> dict[str, Any]:
        """Run the evaluation network over `valid_dataset`; dict metric name -> value.

            >>> model.eval(test_dataset)       # doctest: +SKIP
            {'accuracy': 0.975, 'loss': 0.081}
        """
        if not self._metric_fns:
            raise ValueError("Model.eval: the Model has no metrics; pass metrics={'accuracy'} "
                             "(or a dict name -> Metric) to Model")
        cb_params = CallbackParams(
            network=self._network, eval_network=self._eval_network, valid_dataset=valid_dataset,
            batch_num=valid_dataset.get_dataset_size(), cur_epoch_num=1, cur_step_num=0,
            net_outputs=None, mode="eval", dataset_sink_mode=bool(dataset_sink_mode))
        callback_list = _callback_list(callbacks, progress_bar=False)
        cb_params.list_callback = callback_list.callbacks
        with callback_list:
            return self._evaluate(valid_dataset, cb_params, callback_list)

    def _evaluate(self, dataset, cb_params, callbacks, with_eval_loss=False):
        """One pass of the evaluation network over `dataset`, calling the on_eval_* hooks;
        returns the metrics (also cb_params.metrics). `with_eval_loss` adds
        cb_params.eval_results: the metrics plus "eval_loss" where the network's loss output
        is known (eval_indexes)."""
        network = self._eval_network
        network.set_train(False)
        metric_fns = dict(self._metric_fns)
        if with_eval_loss and self._eval_indexes is not None:
            metric_fns[_EVAL_LOSS] = Loss()
        for metric in metric_fns.values():
            metric.clear()
        run_context = RunContext(cb_params)
        callbacks.on_eval_begin(run_context)
        callbacks.on_eval_epoch_begin(run_context)
        for inputs in dataset.create_tuple_iterator(num_epochs=1):
            cb_params.cur_step_num += 1
            callbacks.on_eval_step_begin(run_context)
            outputs = network(*inputs)
            cb_params.net_outputs = outputs
            callbacks.on_eval_step_end(run_context)
            self._update_metrics(metric_fns, outputs)
        results = {name: metric.eval() for name, metric in metric_fns.items()}
        metrics = {name: results[name] for name in self._metric_fns}
        cb_params.metrics = metrics
        if with_eval_loss:
            cb_params.eval_results = results
        callbacks.on_eval_epoch_end(run_context)
        callbacks.on_eval_end(run_context)
        return dict(metrics)

    def _update_metrics(self, metric_fns, outputs):
        outputs = (outputs,) if isinstance(outputs, Tensor) else outputs
        if not isinstance(outputs, (tuple, list)):
            raise TypeError(f"Model.eval: the evaluation network must return a Tensor or a "
                            f"tuple, got {type(outputs).__name__}")
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError(f"Model.eval: eval_indexes needs (loss, prediction, label) outputs, "
                             f"the evaluation network returned {len(outputs)}")
        for metric in metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    # ----- prediction -----
    def predict(self, *predict_data: Any) -> Any:
        """The network's output on `predict_data`, in inference mode (BatchNorm uses its moving
        statistics, dropout is off)."""
        self._network.set_train(False)
        return self._network(*predict_data)


def _check_int(value, low, api, arg):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{api}: {arg} must be an int >= {low}, got {value!r}")


class _Validation:
    """What Model.fit evaluates on, and after which epochs (an int period or a set)."""

    def __init__(self, dataset, epochs, dataset_sink_mode):
        self.dataset = dataset
        self.epochs = epochs
        self.dataset_sink_mode = dataset_sink_mode

    def due(self, epoch):
        if isinstance(self.epochs, int):
            return epoch % self.epochs == 0
        return epoch in self.epochs


def _validation_epochs(valid_frequency):
    """valid_frequency checked: a period (int >= 1) or a frozenset of epoch numbers."""
    def is_positive_int(value):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 1

    if isinstance(valid_frequency, (list, tuple)):
        if not all(is_positive_int(e) for e in valid_frequency):
            raise ValueError(f"Model.fit: valid_frequency as a list names the epochs to evaluate "
                             f"after, ints >= 1; got {valid_frequency!r}")
        return frozenset(valid_frequency)
    if isinstance(valid_frequency, bool) or not isinstance(valid_frequency, int):
        raise TypeError(f"Model.fit: valid_frequency must be an int or a list of epochs, got "
                        f"{type(valid_frequency).__name__} {valid_frequency!r}")
    if valid_frequency < 1:
        raise ValueError(f"Model.fit: valid_frequency must be >= 1 (evaluate every n epochs), "
                         f"got {valid_frequency}")
    return valid_frequency


def _callback_list(callbacks, progress_bar):
    callbacks = CallbackList(callbacks)
    if progress_bar is None:
        progress_bar = sys.stderr.isatty()
        delay = _AUTO_PROGRESS_DELAY_S
    else:
        delay = 0.0
    if progress_bar:
        callbacks.callbacks.append(ProgressBar(delay=delay))
    return callbacks


def _batches(dataset, num_epochs, steps_per_epoch):
    """Yields, per epoch, an iterable of that epoch's batches (lists of Tensors).

    With the whole dataset per epoch, each epoch is one pass over the data. With fewer steps
    per epoch (sink_size), epochs take consecutive slices of one endless stream of batches.
    """
    if steps_per_epoch == dataset.get_dataset_size():
        iterator = dataset.create_tuple_iterator(num_epochs=num_epochs)
        while True:
            yield iterator
    stream = _endless(dataset)
    while True:
        yield (next(stream) for _ in range(steps_per_epoch))


def _endless(dataset):
    iterator = dataset.create_tuple_iterator()
    while True:
        empty = True
        for batch in iterator:
            empty = False
            yield batch
        if empty:  # e.g. a one-shot generator already used up: it would loop forever
            raise ValueError("Model.train: the training dataset produced no rows this epoch")
