"""Model.fit: training with an evaluation every few epochs, in both modes."""
import numpy as np
import pytest

import minispore as ms
import minispore.dataset as ds
from minispore import nn
from minispore.train import Callback, LossMonitor, Model, TimeMonitor

TRAIN_STEPS, VALID_STEPS = 3, 2   # batches per epoch of the two datasets below


def blobs(n, batch_size, seed):
    """Three Gaussian blobs in 2-D with int32 labels, shuffled every epoch."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n).astype(np.int32)
    centers = np.array([[0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]], np.float32)
    x = (centers[labels] + rng.standard_normal((n, 2))).astype(np.float32)
    return ds.NumpySlicesDataset((x, labels), ["x", "y"], shuffle=True).batch(batch_size)


def train_data():
    return blobs(48, 16, seed=1)


def valid_data():
    return blobs(20, 10, seed=2)


def build(metrics=("accuracy", "loss")):
    """A seeded net with BatchNorm (so training and inference mode give different numbers)
    in a Model with a loss, an optimizer and `metrics`."""
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(2, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dense(8, 3)])
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    return net, Model(net, loss_fn, optimizer, metrics=set(metrics) if metrics else None)


def state(net):
    """Every Parameter of the net (weights and BatchNorm moving statistics), copied."""
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


class EpochEnds(Callback):
    """At each on_train_epoch_end: what fit left in cb_params, and the net's state."""

    def __init__(self, net):
        self.net = net
        self.seen = []

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        self.seen.append({
            "epoch": cb.cur_epoch_num, "metrics": cb.get("metrics"),
            "eval_results": cb.get("eval_results"), "state": state(self.net),
            "train_view": (cb.mode, cb.batch_num, cb.cur_step_num, cb.dataset_sink_mode),
            "net_outputs": cb.net_outputs})


def test_fit_trains_exactly_as_train_does(mode):
    net, model = build()
    model.train(4, train_data(), progress_bar=False)
    fitted_net, fitted = build()
    fitted.fit(4, train_data(), valid_data(), progress_bar=False)   # evaluates every epoch
    # the evaluations in between change no weight and leave BatchNorm in training mode
    trained, fit_state = state(net), state(fitted_net)
    assert trained.keys() == fit_state.keys()
    for name in trained:
        np.testing.assert_array_equal(fit_state[name], trained[name], err_msg=name)
    assert fitted_net.training


@pytest.mark.parametrize("valid_frequency, initial_epoch, evaluated", [
    (2, 0, [2, 4]), ([1, 4], 0, [1, 4]), (2, 1, [2, 4])])
def test_validation_runs_on_the_right_epochs_with_eval_values(mode, valid_frequency,
                                                              initial_epoch, evaluated):
    net, model = build()
    valid = valid_data()
    ends = EpochEnds(net)
    model.fit(4, train_data(), valid, valid_frequency=valid_frequency, callbacks=ends,
              initial_epoch=initial_epoch, progress_bar=False)
    assert [s["epoch"] for s in ends.seen] == list(range(initial_epoch + 1, 5))
    assert [s["epoch"] for s in ends.seen if s["metrics"] is not None] == evaluated
    for seen in ends.seen:
        steps_so_far = (seen["epoch"] - initial_epoch) * TRAIN_STEPS
        # the evaluation's values are gone again: the callbacks see the training run
        assert seen["train_view"] == ("train", TRAIN_STEPS, steps_so_far, False)
        assert seen["net_outputs"].shape == ()          # the last training loss
        if seen["metrics"] is None:
            assert seen["eval_results"] is None
            continue
        # what `eval` gives with the weights of that epoch's end
        for p in net.get_parameters():
            p.set_data(ms.Tensor(seen["state"][p.name]))
        want = model.eval(valid)
        assert seen["metrics"] == pytest.approx(want, rel=1e-6)
        assert 0.0 <= seen["metrics"]["accuracy"] <= 1.0
        # eval_results adds the evaluation network's mean loss: here the "loss" metric again
        assert set(seen["eval_results"]) == {"accuracy", "loss", "eval_loss"}
        assert seen["eval_results"]["eval_loss"] == pytest.approx(want["loss"], rel=1e-6)


class Hooks(Callback):
    """The order of the hooks and the cb_params the evaluation hooks see."""

    def __init__(self):
        self.events = []

    def _add(self, run_context, hook):
        cb = run_context.original_args()
        self.events.append(f"{hook} {cb.mode} epoch={cb.cur_epoch_num} step={cb.cur_step_num}"
                           f"/{cb.batch_num}")

    def on_train_epoch_begin(self, run_context):
        self._add(run_context, "train_epoch_begin")

    def on_train_epoch_end(self, run_context):
        self._add(run_context, "train_epoch_end")

    def on_train_end(self, run_context):
        self._add(run_context, "train_end")

    def on_eval_begin(self, run_context):
        self._add(run_context, "eval_begin")

    def on_eval_step_end(self, run_context):
        self._add(run_context, "eval_step_end")
        assert run_context.original_args().net_outputs[0].shape == ()  # WithEvalCell's loss

    def on_eval_end(self, run_context):
        self._add(run_context, "eval_end")
        assert set(run_context.original_args().metrics) == {"accuracy", "loss"}


def test_callbacks_get_the_evaluation_hooks_inside_the_epoch():
    _, model = build()
    hooks = Hooks()
    model.fit(2, train_data(), valid_data(), valid_frequency=2, callbacks=[hooks],
              progress_bar=False)
    assert hooks.events == [
        "train_epoch_begin train epoch=1 step=0/3",
        "train_epoch_end train epoch=1 step=3/3",
        "train_epoch_begin train epoch=2 step=3/3",
        # between the epoch's last step and its end; cur_epoch_num stays the training epoch
        "eval_begin eval epoch=2 step=0/2",
        "eval_step_end eval epoch=2 step=1/2",
        "eval_step_end eval epoch=2 step=2/2",
        "eval_end eval epoch=2 step=2/2",
        "train_epoch_end train epoch=2 step=6/3",
        "train_end train epoch=2 step=6/3"]


def test_without_eval_indexes_eval_results_are_the_metrics():
    class PredictionAndLabel(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def construct(self, x, y):
            return self.net(x), y

    net, _ = build()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.SGD(net.trainable_params(), 0.1), metrics={"accuracy"},
                  eval_network=PredictionAndLabel(net))
    ends = EpochEnds(net)
    model.fit(1, train_data(), valid_data(), callbacks=ends, progress_bar=False)
    # the network's loss is not among the outputs metrics can name, so there is no eval_loss
    assert ends.seen[0]["eval_results"] == ends.seen[0]["metrics"]
    assert set(ends.seen[0]["metrics"]) == {"accuracy"}


def test_monitors_print_the_evaluations(capsys):
    _, model = build()
    model.fit(2, train_data(), valid_data(), valid_frequency=2,
              callbacks=[LossMonitor(0), TimeMonitor()], progress_bar=False)
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "Train epoch time", "Eval epoch time", "Eval result", "Train epoch time"]
    assert lines[2].startswith("Eval result: epoch 2, metrics: {'accuracy': ")
    assert "'loss': " in lines[2] and "eval_loss" not in lines[2]


def test_bad_arguments_raise_before_training():
    net, model = build()
    before = state(net)
    with pytest.raises(ValueError, match=r"Model.fit: valid_frequency must be >= 1 .*got 0"):
        model.fit(2, train_data(), valid_data(), valid_frequency=0)
    with pytest.raises(ValueError, match=r"valid_frequency as a list .* got \[0, 2\]"):
        model.fit(2, train_data(), valid_data(), valid_frequency=[0, 2])
    with pytest.raises(TypeError, match="valid_frequency must be an int or a list.*str '2'"):
        model.fit(2, train_data(), valid_data(), valid_frequency="2")
    with pytest.raises(TypeError, match="valid_frequency must be an int or a list.*bool"):
        model.fit(2, train_data(), valid_data(), valid_frequency=True)
    with pytest.raises(ValueError, match=r"Model.fit: epoch \(1\) must be larger than "
                                         r"initial_epoch \(1\)"):
        model.fit(1, train_data(), valid_data(), initial_epoch=1)
    _, no_metrics = build(metrics=None)
    with pytest.raises(ValueError, match="Model.fit: evaluating on valid_dataset needs metrics"):
        no_metrics.fit(2, train_data(), valid_data())
    for name, value in state(net).items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)
