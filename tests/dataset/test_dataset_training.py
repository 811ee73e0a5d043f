"""Pipelines feeding Model.train (also in dataset sink mode), and the digits-from-PNG-files
example trained end to end through ImageFolderDataset, map and batch."""
import os

import numpy as np
import pytest
from data_helpers import assert_no_workers_left, write_idx

import minispore as ms
import minispore.dataset as ds
import minispore.dataset.transforms as transforms
import minispore.dataset.vision as vision
from minispore import nn
from minispore.examples import digits_folder
from minispore.train import Callback, Model


class StepCounter(Callback):
    def __init__(self):
        self.steps, self.losses = [], []

    def on_train_step_end(self, run_context):
        params = run_context.original_args()
        self.steps.append((params.cur_epoch_num, params.cur_step_num))
        self.losses.append(float(params.net_outputs.asnumpy()))


def mnist_pipeline(root, workers):
    """Two classes told apart by brightness: a bright and a dark half of the images."""
    rng = np.random.default_rng(0)
    labels = np.arange(48) % 2
    images = (rng.integers(0, 100, (48, 28, 28)) + 150 * labels[:, None, None]).astype(np.uint8)
    write_idx(os.path.join(root, "train-images-idx3-ubyte"), images)
    write_idx(os.path.join(root, "train-labels-idx1-ubyte"), labels)
    data = ds.MnistDataset(root, usage="train", shuffle=True)
    data = data.map([vision.Rescale(1 / 255, 0), vision.Normalize([0.5], [0.5]),
                     vision.HWC2CHW()], "image", num_parallel_workers=workers)
    data = data.map(transforms.TypeCast(ms.int32), "label")
    return data.batch(16, drop_remainder=True)


def build_model():
    net = nn.SequentialCell(nn.Flatten(), nn.Dense(28 * 28, 2))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(net, loss, nn.SGD(net.trainable_params(), learning_rate=0.05),
                 metrics={"accuracy"})


def test_model_trains_on_an_mnist_pipeline_with_a_progress_bar(tmp_path, capsys):
    data = mnist_pipeline(str(tmp_path), workers=2)
    assert data.get_dataset_size() == 3
    model, counter = build_model(), StepCounter()
    model.train(4, data, callbacks=counter, progress_bar=True)
    assert counter.steps[-1] == (4, 12) and counter.losses[-1] < counter.losses[0]
    assert "12/12" in capsys.readouterr().err  # the bar knew the dataset's size
    assert model.eval(data)["accuracy"] == 1.0
    assert_no_workers_left()


def test_dataset_sink_mode_and_endless_datasets(tmp_path):
    data = mnist_pipeline(str(tmp_path), workers=1)
    counter = StepCounter()
    build_model().train(3, data.repeat(), callbacks=counter, dataset_sink_mode=True,
                        sink_size=2)
    assert counter.steps == [(1, 1), (1, 2), (2, 3), (2, 4), (3, 5), (3, 6)]
    with pytest.raises(ValueError, match="repeats without end"):
        build_model().train(1, data.repeat())


def test_digits_from_png_files_example(tmp_path):
    messages = []
    accuracy, _ = digits_folder.run(epochs=2, workers=2, processes=True, progress_bar=False,
                                    log=messages.append)
    assert accuracy >= digits_folder.QUICK_FLOOR
    assert "1797 PNG files" in messages[0] and "43 training batches" in messages[0]
    assert_no_workers_left()
