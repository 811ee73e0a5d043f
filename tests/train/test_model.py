"""Model.train / eval / predict and the built-in callbacks, on small hand-written Cells."""
import os

import numpy as np
import pytest

import minispore as ms
import minispore.dataset as ds
from minispore import nn, ops
from minispore.train import (
    Callback,
    CheckpointConfig,
    LossMonitor,
    Model,
    ModelCheckpoint,
    TimeMonitor,
    load_checkpoint,
    load_param_into_net,
)

TRUE_W, TRUE_B = np.array([[2.0], [-3.0]], np.float32), 1.0


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.zeros((2, 1), np.float32)), name="w")
        self.b = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


class SquaredError(nn.Cell):
    def construct(self, pred, label):
        return ((pred - label) ** 2).mean()


class SGDStep(nn.Cell):
    """A whole training step (what Model trains when it gets neither loss_fn nor optimizer)."""

    def __init__(self, net, lr=0.3):
        super().__init__()
        self.net, self.loss, self.lr = net, SquaredError(), lr
        self.weights = net.trainable_params()

    def forward_loss(self, x, y):
        return self.loss(self.net(x), y)

    def construct(self, x, y):
        loss, grads = ms.value_and_grad(self.forward_loss, None, self.weights)(x, y)
        for p, g in zip(self.weights, grads):
            ops.assign(p, p - self.lr * g)
        return loss


class EvalCell(nn.Cell):
    """(loss, prediction, label), as WithEvalCell returns."""

    def __init__(self, net):
        super().__init__()
        self.net, self.loss = net, SquaredError()

    def construct(self, x, y):
        pred = self.net(x)
        return self.loss(pred, y), pred, y


def regression_data(n=64, batch_size=16, shuffle=True):
    x = np.random.default_rng(0).standard_normal((n, 2)).astype(np.float32)
    y = x @ TRUE_W + TRUE_B
    return ds.NumpySlicesDataset((x, y), ["x", "y"], shuffle=shuffle).batch(batch_size)


class Recorder(Callback):
    """Records hook calls; uses the older hook names for the step (MindSpore 1.x style)."""

    def __init__(self):
        self.events = []

    def on_train_begin(self, run_context):
        self.events.append("begin")

    def on_train_epoch_begin(self, run_context):
        self.events.append(f"epoch_begin {run_context.original_args().cur_epoch_num}")

    def step_end(self, run_context):
        cb = run_context.original_args()
        loss = float(cb.net_outputs)
        self.events.append(f"step {cb.cur_step_num}/{cb.batch_num} loss={loss:.3g}")

    def on_train_epoch_end(self, run_context):
        self.events.append("epoch_end")

    def end(self, run_context):
        self.events.append("end")


def test_train_runs_callbacks_in_order_and_learns():
    net = Linear()
    recorder = Recorder()
    Model(SGDStep(net)).train(3, regression_data(), callbacks=recorder, progress_bar=False)
    assert recorder.events[:2] == ["begin", "epoch_begin 1"]
    assert [e.split(" loss")[0] for e in recorder.events if e.startswith("step")] == [
        f"step {i}/4" for i in range(1, 13)]
    assert recorder.events[-2:] == ["epoch_end", "end"]
    assert recorder.events.count("epoch_end") == 3
    np.testing.assert_allclose(net.w.asnumpy(), TRUE_W, atol=0.1)
    np.testing.assert_allclose(net.b.asnumpy(), [TRUE_B], atol=0.1)


def test_request_stop_ends_training_after_the_step():
    class StopAt(Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 6:
                run_context.request_stop()

    recorder = Recorder()
    Model(SGDStep(Linear())).train(5, regression_data(), callbacks=[StopAt(), recorder],
                                   progress_bar=False)
    steps = [e for e in recorder.events if e.startswith("step")]
    assert len(steps) == 6 and recorder.events[-1] == "end"


def test_initial_epoch_and_sink_size():
    recorder = Recorder()
    Model(SGDStep(Linear())).train(3, regression_data(), callbacks=recorder, initial_epoch=1,
                                   progress_bar=False)
    assert recorder.events[1] == "epoch_begin 2" and recorder.events.count("epoch_end") == 2

    recorder = Recorder()
    Model(SGDStep(Linear())).train(3, regression_data(), callbacks=recorder,
                                   dataset_sink_mode=True, sink_size=3, progress_bar=False)
    steps = [e.split(" loss")[0] for e in recorder.events if e.startswith("step")]
    assert steps == [f"step {i}/3" for i in range(1, 10)]  # 9 steps draw across epochs


def test_eval_with_eval_network_and_predict():
    net = Linear()
    Model(SGDStep(net)).train(5, regression_data(), progress_bar=False)
    model = Model(net, eval_network=EvalCell(net), eval_indexes=[0, 1, 2],
                  metrics={"mse", "loss", "mae"})
    result = model.eval(regression_data(shuffle=False))
    assert set(result) == {"mse", "loss", "mae"}
    x = np.random.default_rng(0).standard_normal((64, 2)).astype(np.float32)
    errors = net(ms.Tensor(x)).asnumpy() - (x @ TRUE_W + TRUE_B)
    assert result["mse"] == pytest.approx(float((errors ** 2).sum() / 64), rel=1e-4)
    assert result["mae"] == pytest.approx(float(np.abs(errors).sum() / 64), rel=1e-4)
    assert result["loss"] == pytest.approx(result["mse"], rel=1e-4)  # equal batches
    np.testing.assert_allclose(model.predict(ms.Tensor(x)).asnumpy(), errors + x @ TRUE_W + TRUE_B,
                               rtol=1e-5, atol=1e-5)
    assert not net.training


def test_eval_callbacks_see_metrics():
    seen = {}

    class Watch(Callback):
        def on_eval_step_end(self, run_context):
            seen.setdefault("steps", 0)
            seen["steps"] += 1

        def on_eval_end(self, run_context):
            seen["metrics"] = run_context.original_args().metrics

    net = Linear()
    model = Model(net, eval_network=EvalCell(net), eval_indexes=[0, 1, 2], metrics={"loss"})
    result = model.eval(regression_data(), callbacks=[Watch()])
    assert seen == {"steps": 4, "metrics": result}


def test_loss_monitor_prints_and_stops_on_nan(capsys):
    Model(SGDStep(Linear())).train(2, regression_data(), callbacks=LossMonitor(2),
                                   progress_bar=False)
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(",")[0] for line in lines] == [
        "epoch: 1 step: 2", "epoch: 1 step: 4", "epoch: 2 step: 2", "epoch: 2 step: 4"]
    assert all(float(line.split("loss is ")[1]) >= 0 for line in lines)

    # a NaN learning rate: step 1's loss is finite, then NaN weights give a NaN loss
    with pytest.raises(ValueError, match="epoch: 1 step: 2. Invalid loss nan"):
        Model(SGDStep(Linear(), lr=float("nan"))).train(
            1, regression_data(), callbacks=LossMonitor(0), progress_bar=False)
    with pytest.raises(ValueError, match="per_print_times"):
        LossMonitor(-1)


def test_time_monitor_prints_per_epoch(capsys):
    Model(SGDStep(Linear())).train(2, regression_data(), callbacks=TimeMonitor(),
                                   progress_bar=False)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("Train epoch time: ") for line in lines)
    assert all("per step time: " in line for line in lines)


def test_progress_bar_draws_epochs_and_loss(capsys):
    Model(SGDStep(Linear())).train(2, regression_data(), progress_bar=True)
    err = capsys.readouterr().err
    assert "epoch 2/2" in err and "loss=" in err and "8/8" in err


def test_model_checkpoint_saves_keeps_and_never_overwrites(tmp_path):
    net = Linear()
    config = CheckpointConfig(save_checkpoint_steps=3, keep_checkpoint_max=2,
                              append_info=["epoch_num", "step_num", {"tag": "run"}])
    ckpt_cb = ModelCheckpoint(prefix="lin", directory=str(tmp_path), config=config)
    Model(SGDStep(net)).train(2, regression_data(), callbacks=ckpt_cb, progress_bar=False)
    # saves at steps 3, 6 and the last step 8; keeps the newest two
    assert sorted(os.listdir(tmp_path)) == ["lin-2_2.ckpt", "lin-2_4.ckpt"]
    assert ckpt_cb.latest_ckpt_file_name == str(tmp_path / "lin-2_4.ckpt")
    saved = load_checkpoint(ckpt_cb.latest_ckpt_file_name)
    assert set(saved) == {"net.w", "net.b", "epoch_num", "step_num", "tag"}
    np.testing.assert_array_equal(saved["net.w"].asnumpy(), net.w.asnumpy())
    assert int(saved["epoch_num"].asnumpy()) == 2 and int(saved["step_num"].asnumpy()) == 8
    assert saved["tag"] == "run"

    second = ModelCheckpoint(prefix="lin", directory=str(tmp_path), config=config)
    Model(SGDStep(Linear())).train(1, regression_data(), callbacks=second, progress_bar=False)
    assert sorted(os.listdir(tmp_path)) == ["lin-2_2.ckpt", "lin-2_4.ckpt",
                                            "lin_1-1_3.ckpt", "lin_1-1_4.ckpt"]


def test_model_errors():
    with pytest.raises(TypeError, match="network must be a Cell"):
        Model(lambda x: x)
    with pytest.raises(ValueError, match="metrics need an evaluation network"):
        Model(Linear(), metrics={"accuracy"})
    with pytest.raises(ValueError, match="eval_indexes"):
        Model(Linear(), eval_network=EvalCell(Linear()), eval_indexes=[0, 1], metrics={"loss"})
    model = Model(SGDStep(Linear()))
    with pytest.raises(ValueError, match=r"epoch \(1\) must be larger than initial_epoch \(1\)"):
        model.train(1, regression_data(), initial_epoch=1)
    with pytest.raises(ValueError, match="has no metrics"):
        model.eval(regression_data())
    empty = ds.NumpySlicesDataset(np.zeros((3, 2)), ["x"]).batch(4, drop_remainder=True)
    with pytest.raises(ValueError, match="training dataset is empty"):
        model.train(1, empty)


def blobs(n=120, batch_size=24):
    """Three well-separated Gaussian blobs in 2-D, int32 labels."""
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 3, n).astype(np.int32)
    centers = np.array([[0.0, 4.0], [4.0, -2.0], [-4.0, -2.0]], np.float32)
    x = (centers[labels] + rng.standard_normal((n, 2))).astype(np.float32)
    return x, labels, ds.NumpySlicesDataset((x, labels), ["x", "y"]).batch(batch_size)


def test_model_with_loss_and_optimizer_trains_evaluates_and_checkpoints(tmp_path, mode):
    ms.common.set_seed(0)
    net = nn.Dense(2, 3)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss_fn, nn.Adam(net.trainable_params(), learning_rate=0.05),
                  metrics={"accuracy", "loss"})
    x, labels, data = blobs()
    ckpt_cb = ModelCheckpoint("blobs", str(tmp_path), CheckpointConfig(save_checkpoint_steps=100))
    model.train(10, data, callbacks=ckpt_cb, progress_bar=False)

    result = model.eval(data)
    logits = model.predict(ms.Tensor(x))
    assert result["accuracy"] == pytest.approx(np.mean(logits.asnumpy().argmax(1) == labels))
    assert result["accuracy"] > 0.95
    batch_losses = [float(loss_fn(net(bx), by)) for bx, by in data.create_tuple_iterator()]
    assert result["loss"] == pytest.approx(np.mean(batch_losses), rel=1e-5)

    # the training network's checkpoint holds the optimizer state too; the bare net loads
    fresh = nn.Dense(2, 3)
    params = load_checkpoint(ckpt_cb.latest_ckpt_file_name)
    param_not_load, ckpt_not_load = load_param_into_net(fresh, params, strict_load=True)
    assert param_not_load == [] and "moment1.weight" in ckpt_not_load
    np.testing.assert_array_equal(fresh(ms.Tensor(x)).asnumpy(), logits.asnumpy())


def train_blobs_and_regression():
    ms.common.set_seed(0)
    net = nn.Dense(2, 3)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.05, 0.9), metrics={"loss"})
    data = blobs()[2]
    model.train(3, data, progress_bar=False)
    linear = Linear()
    Model(SGDStep(linear)).train(2, regression_data(), progress_bar=False)
    return [model.eval(data)["loss"], net.weight.asnumpy(), linear.w.asnumpy()]


def test_pynative_and_graph_mode_train_to_the_same_numbers():
    results = {}
    try:
        for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
            ms.set_context(mode=mode)
            results[mode] = train_blobs_and_regression()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for eager, graph in zip(results[ms.PYNATIVE_MODE], results[ms.GRAPH_MODE]):
        np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)
