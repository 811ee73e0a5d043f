"""Model: the high-level training / evaluation / prediction loop over datasets.

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
import sys

from ..runtime.tensor import Tensor
from .callback import CallbackList, CallbackParams, RunContext
from .metrics import Loss, get_metrics
from .monitors import ProgressBar

__all__ = ["Model"]

# auto mode keeps short runs quiet: the bar appears only once a run has taken this long
_AUTO_PROGRESS_DELAY_S = 1.0


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

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None):
        from ..nn.cell import Cell
        if not isinstance(network, Cell):
            raise TypeError(f"Model: network must be a Cell, got {type(network).__name__}")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._train_network = self._build_train_network()
        self._metric_fns = get_metrics(metrics)
        self._eval_network, self._eval_indexes = self._build_eval_network(eval_network,
                                                                          eval_indexes)

    @property
    def train_network(self):
        return self._train_network

    @property
    def predict_network(self):
        return self._network

    @property
    def eval_network(self):
        return self._eval_network

    def _build_train_network(self):
        from .. import nn
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
        from .. import nn
        return nn.WithEvalCell(self._network, self._loss_fn), [0, 1, 2]

    # ----- training -----
    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1,
              initial_epoch=0, progress_bar=None):
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
        _check_int(epoch, 1, "epoch")
        _check_int(initial_epoch, 0, "initial_epoch")
        if initial_epoch >= epoch:
            raise ValueError(f"Model.train: epoch ({epoch}) must be larger than initial_epoch "
                             f"({initial_epoch})")
        if not isinstance(sink_size, int) or sink_size == 0 or sink_size < -1:
            raise ValueError(f"Model.train: sink_size must be -1 or positive, got {sink_size!r}")
        dataset_size = train_dataset.get_dataset_size()
        if dataset_size == 0:
            raise ValueError("Model.train: the training dataset is empty")
        steps_per_epoch = sink_size if dataset_sink_mode and sink_size > 0 else dataset_size

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
            self._train_loop(epoch, initial_epoch, train_dataset, steps_per_epoch, cb_params,
                             callback_list)

    def _train_loop(self, epoch, initial_epoch, dataset, steps_per_epoch, cb_params, callbacks):
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
                    raise ValueError(f"Model.train: with a loss_fn each dataset row must be "
                                     f"(data, label), got {len(inputs)} columns")
                cb_params.cur_step_num += 1
                cb_params.train_dataset_element = inputs
                callbacks.on_train_step_begin(run_context)
                cb_params.net_outputs = network(*inputs)
                callbacks.on_train_step_end(run_context)
                if run_context.get_stop_requested():
                    break
            callbacks.on_train_epoch_end(run_context)
            if run_context.get_stop_requested():
                break
        callbacks.on_train_end(run_context)

    # ----- evaluation -----
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Run the evaluation network over `valid_dataset`; dict metric name -> value.

            >>> model.eval(test_dataset)       # doctest: +SKIP
            {'accuracy': 0.975, 'loss': 0.081}
        """
        if not self._metric_fns:
            raise ValueError("Model.eval: the Model has no metrics; pass metrics={'accuracy'} "
                             "(or a dict name -> Metric) to Model")
        network = self._eval_network
        network.set_train(False)
        for metric in self._metric_fns.values():
            metric.clear()
        cb_params = CallbackParams(
            network=self._network, eval_network=network, valid_dataset=valid_dataset,
            batch_num=valid_dataset.get_dataset_size(), cur_epoch_num=1, cur_step_num=0,
            net_outputs=None, mode="eval", dataset_sink_mode=bool(dataset_sink_mode))
        callback_list = _callback_list(callbacks, progress_bar=False)
        cb_params.list_callback = callback_list.callbacks
        run_context = RunContext(cb_params)
        with callback_list:
            callback_list.on_eval_begin(run_context)
            callback_list.on_eval_epoch_begin(run_context)
            for inputs in valid_dataset.create_tuple_iterator(num_epochs=1):
                cb_params.cur_step_num += 1
                callback_list.on_eval_step_begin(run_context)
                outputs = network(*inputs)
                cb_params.net_outputs = outputs
                callback_list.on_eval_step_end(run_context)
                self._update_metrics(outputs)
            metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
            cb_params.metrics = metrics
            callback_list.on_eval_epoch_end(run_context)
            callback_list.on_eval_end(run_context)
        return metrics

    def _update_metrics(self, outputs):
        outputs = (outputs,) if isinstance(outputs, Tensor) else outputs
        if not isinstance(outputs, (tuple, list)):
            raise ValueError(f"Model.eval: the evaluation network must return a Tensor or a "
                             f"tuple, got {type(outputs).__name__}")
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError(f"Model.eval: eval_indexes needs (loss, prediction, label) outputs, "
                             f"the evaluation network returned {len(outputs)}")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    # ----- prediction -----
    def predict(self, *predict_data):
        """The network's output on `predict_data`, in inference mode (BatchNorm uses its moving
        statistics, dropout is off)."""
        self._network.set_train(False)
        return self._network(*predict_data)


def _check_int(value, low, arg):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"Model.train: {arg} must be an int >= {low}, got {value!r}")


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
