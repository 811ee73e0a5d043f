"""EarlyStopping, ReduceLROnPlateau, LearningRateScheduler, LambdaCallback and History:
their rules driven step by step with a fixed sequence of monitored values, and inside
Model.fit / Model.train in both modes (a learning rate a callback changes reaches the compiled
step)."""
import numpy as np
import pytest
from test_model_fit import build, train_data, valid_data

import minispore as ms
from minispore.train import (
    CallbackParams,
    EarlyStopping,
    History,
    LambdaCallback,
    LearningRateScheduler,
    ReduceLROnPlateau,
    RunContext,
)


class _Optimizer:
    def __init__(self, lr):
        self.learning_rate = ms.Parameter(ms.Tensor(np.float32(lr)), name="learning_rate")


def _drive(callback, values, monitor="eval_loss", lr=1.0):
    """Run callback over epochs whose monitored value is values[k]; returns (the epochs it
    asked to stop at, the learning rate after each epoch)."""
    params = CallbackParams(optimizer=_Optimizer(lr), train_network=ms.nn.Dense(1, 1),
                            net_outputs=None, cur_epoch_num=0)
    run = RunContext(params)
    callback.on_train_begin(run)
    stops, rates = [], []
    for epoch, value in enumerate(values, 1):
        params.cur_epoch_num = epoch
        if monitor == "loss":
            params.net_outputs = ms.Tensor(np.float32(value))
        else:
            params.eval_results = {monitor: value}
        run._stop_requested = False
        callback.on_train_epoch_end(run)
        if run.get_stop_requested():
            stops.append(epoch)
        rates.append(float(params.optimizer.learning_rate.asnumpy()))
    return stops, rates


def test_early_stopping_waits_patience_epochs_without_improvement():
    losses = [1.0, 0.8, 0.79, 0.795, 0.9, 0.7, 0.71, 0.72, 0.73]
    assert _drive(EarlyStopping(patience=2), losses)[0] == [5, 8, 9]
    # min_delta: 0.79 is not better than 0.8 by more than 0.05; nor is 0.7 than 0.8... it is
    assert _drive(EarlyStopping(patience=2, min_delta=0.05), losses)[0] == [4, 5, 8, 9]
    # "acc" improves upwards (mode auto); patience 0 stops at the first epoch
    assert _drive(EarlyStopping("acc", patience=1), [0.5, 0.6, 0.6], "acc")[0] == [3]
    assert _drive(EarlyStopping("acc", patience=0), [0.5, 0.6], "acc")[0] == [1, 2]
    # a baseline: improvements that do not beat it do not reset the wait
    assert _drive(EarlyStopping(patience=2, baseline=0.5), [1.0, 0.9, 0.8])[0] == [2, 3]


def test_early_stopping_restores_the_best_weights():
    net, model = build()
    seen = []

    class Record(ms.train.Callback):
        def on_train_epoch_end(self, run_context):
            seen.append({p.name: p.asnumpy().copy() for p in net.trainable_params()})

    # with min_delta 100 only the first epoch counts as an improvement: stop after the second
    stopper = EarlyStopping("loss", patience=1, min_delta=100, restore_best_weights=True)
    model.train(4, train_data(), callbacks=[Record(), stopper], progress_bar=False)
    assert stopper.stopped_epoch == 2 and len(seen) == 2
    for p in net.trainable_params():
        np.testing.assert_array_equal(p.asnumpy(), seen[0][p.name])
    assert not all(np.array_equal(seen[0][k], seen[1][k]) for k in seen[0])


def test_reduce_lr_on_plateau_lowers_the_rate_then_cools_down():
    values = [1.0, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]
    _, rates = _drive(ReduceLROnPlateau(factor=0.5, patience=2), values)
    assert rates == [1.0, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.125]
    _, rates = _drive(ReduceLROnPlateau(factor=0.5, patience=1, cooldown=2), values)
    assert rates == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.125, 0.125]  # as MindSpore counts
    _, rates = _drive(ReduceLROnPlateau(factor=0.1, patience=1, min_lr=0.05), values)
    assert rates == pytest.approx([1.0, 1.0, 0.1, 0.05, 0.05, 0.05, 0.05, 0.05])


def test_plateau_callbacks_refuse_bad_arguments():
    with pytest.raises(ValueError, match="mode"):
        EarlyStopping(mode="up")
    with pytest.raises(ValueError, match="factor"):
        ReduceLROnPlateau(factor=1.5)
    with pytest.raises(ValueError, match="one number"):
        params = CallbackParams(optimizer=type("O", (), {"learning_rate": ms.nn.Dense(1, 1)})(),
                                cur_epoch_num=1, eval_results={"eval_loss": 1.0})
        ReduceLROnPlateau().on_train_epoch_end(RunContext(params))


def test_fit_with_early_stopping_and_plateau_in_both_modes(mode):
    net, model = build(metrics=("accuracy",))
    history = History()
    lrs = []
    record = LambdaCallback(on_train_epoch_end=lambda rc: lrs.append(
        float(rc.original_args().optimizer.learning_rate.asnumpy())))
    # patience 0 on "accuracy": it stops at the first epoch whose accuracy does not rise
    stopper = EarlyStopping("accuracy", patience=0)
    plateau = ReduceLROnPlateau("eval_loss", factor=0.5, patience=0, min_delta=10.0)
    model.fit(6, train_data(), valid_data(), callbacks=[history, plateau, record, stopper],
              progress_bar=False)
    epochs = history.epoch["epoch"]
    assert epochs == list(range(1, len(epochs) + 1)) and len(epochs) >= 1
    assert len(history.history["accuracy"]) == len(epochs)
    assert len(history.history["net_output"]) == len(epochs)
    # min_delta 10: only the first epoch improves, the rate halves from the second on
    assert lrs == pytest.approx([0.1 * 0.5 ** k for k in range(len(lrs))])


def test_learning_rate_scheduler_reaches_the_compiled_step(mode):
    net, model = build()
    rates = []
    model.train(2, train_data(), callbacks=[
        LearningRateScheduler(lambda lr, step: lr * 0.5 if step % 2 == 0 else lr),
        LambdaCallback(on_train_step_end=lambda rc: rates.append(
            float(rc.original_args().optimizer.learning_rate.asnumpy())))],
        progress_bar=False)
    assert rates == pytest.approx([0.1, 0.05, 0.05, 0.025, 0.025, 0.0125])
    # the same run with the rates given as a schedule gives the same weights
    schedule_net, _ = build()
    optimizer = ms.nn.Momentum(schedule_net.trainable_params(),
                               learning_rate=[0.1, 0.1, 0.05, 0.05, 0.025, 0.025],
                               momentum=0.9)
    loss_fn = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    ms.train.Model(schedule_net, loss_fn, optimizer).train(2, train_data(), progress_bar=False)
    for a, b in zip(net.get_parameters(), schedule_net.get_parameters()):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)


def test_lambda_callback_calls_each_given_hook():
    calls = []
    cb = LambdaCallback(on_train_begin=lambda rc: calls.append("begin"),
                        on_eval_end=lambda rc: calls.append("eval_end"))
    run = RunContext(CallbackParams())
    cb.on_train_begin(run)
    cb.on_train_step_end(run)   # not given: nothing
    cb.on_eval_end(run)
    assert calls == ["begin", "eval_end"]
    with pytest.raises(TypeError, match="callable"):
        LambdaCallback(on_train_end=3)
