"""Train a small CNN on scikit-learn's 8x8 handwritten digits, save it, reload it, check it.

    python -m minispore.examples.digits                  # PyNative mode, the full run
    python -m minispore.examples.digits --mode graph     # the same script in Graph mode
    python -m minispore.examples.digits --quick          # a short smoke run (2 epochs)

The data set (1797 images, 10 classes) ships with scikit-learn: nothing is downloaded. The
script trains with `Model.train`, reports the training time and the test accuracy, saves a
checkpoint, loads it into a freshly initialised network and checks that the reloaded model
gives exactly the same predictions. It exits with status 1 when the test accuracy is below
the floor (95%; 85% with --quick) or the reload check fails.
"""
import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

import minispore as ms
import minispore.dataset as ds
from minispore import nn
from minispore.common import set_seed
from minispore.train import LossMonitor, Model, load_checkpoint, save_checkpoint

MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}
FULL_EPOCHS, QUICK_EPOCHS = 10, 2
FULL_FLOOR, QUICK_FLOOR = 0.95, 0.85
BATCH_SIZE = 32


class DigitsCNN(nn.Cell):
    """Two conv blocks (Conv2d, BatchNorm2d, ReLU, MaxPool2d) and a Dense classifier:
    (N, 1, 8, 8) images -> (N, 10) logits."""

    def __init__(self):
        super().__init__()
        self.features = nn.SequentialCell(
            nn.Conv2d(1, 16, 3, pad_mode="same"), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),                     # 16 x 4 x 4
            nn.Conv2d(16, 32, 3, pad_mode="same"), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))                     # 32 x 2 x 2
        self.flatten = nn.Flatten()
        self.classifier = nn.Dense(32 * 2 * 2, 10)

    def construct(self, x):
        return self.classifier(self.flatten(self.features(x)))


def load_data(seed):
    """(x_train, x_test, y_train, y_test): images scaled to [0, 1] as (N, 1, 8, 8) float32,
    int32 labels; a stratified 75/25 split."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int32)
    return train_test_split(images, labels, test_size=0.25, random_state=seed, stratify=labels)


def build_model(network):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Adam(network.trainable_params(), learning_rate=0.01)
    return Model(network, loss_fn=loss, optimizer=optimizer, metrics={"accuracy"})


def train_and_evaluate(model, train_data, test_data, epochs, progress_bar, log):
    """Model.train with a loss line per epoch, then Model.eval: (seconds, test accuracy)."""
    start = time.perf_counter()
    model.train(epochs, train_data, progress_bar=progress_bar,
                callbacks=[LossMonitor(per_print_times=train_data.get_dataset_size())])
    seconds = time.perf_counter() - start
    accuracy = model.eval(test_data)["accuracy"]
    log(f"trained in {seconds:.1f} s; test accuracy {accuracy:.2%}")
    return seconds, accuracy


@dataclass
class DemoResult:
    train_seconds: float
    accuracy: float
    reload_accuracy: float
    reload_identical: bool
    ckpt_path: str
    floor: float

    @property
    def passed(self):
        return self.accuracy >= self.floor and self.reload_identical and \
            self.reload_accuracy == self.accuracy


def run(mode="pynative", epochs=None, quick=False, ckpt_path=None, progress_bar=None, seed=0,
        log=print):
    """Train, evaluate, save, reload and re-check; returns a DemoResult.

    Args:
        mode: "pynative" or "graph".
        epochs: training epochs (default 10, or 2 with `quick`).
        quick: a short smoke run with a lower accuracy floor.
        ckpt_path: where to save the checkpoint (default: a file in the temp directory).
        progress_bar: passed to Model.train (None: shown on a terminal).
        seed: seeds the split, the initial weights and the shuffling.
        log: where progress messages go.
    """
    epochs = epochs or (QUICK_EPOCHS if quick else FULL_EPOCHS)
    ckpt_path = ckpt_path or os.path.join(tempfile.gettempdir(), "minispore_digits_cnn.ckpt")
    previous_mode = ms.get_context("mode")
    ms.set_context(mode=MODES[mode])
    try:
        set_seed(seed)
        x_train, x_test, y_train, y_test = load_data(seed)
        train_data = ds.NumpySlicesDataset((x_train, y_train), ["image", "label"], shuffle=True)
        train_data = train_data.batch(BATCH_SIZE)
        test_data = ds.NumpySlicesDataset((x_test, y_test), ["image", "label"], shuffle=False)
        test_data = test_data.batch(256)
        log(f"minispore digits demo: {mode} mode, {len(x_train)} training and {len(x_test)} "
            f"test images (8x8), {epochs} epochs, seed {seed}")

        network = DigitsCNN()
        train_seconds, accuracy = train_and_evaluate(build_model(network), train_data,
                                                     test_data, epochs, progress_bar, log)

        save_checkpoint(network, ckpt_path)
        log(f"checkpoint saved to {ckpt_path}")
        reloaded = DigitsCNN()
        load_checkpoint(ckpt_path, net=reloaded, strict_load=True)
        reload_accuracy = build_model(reloaded).eval(test_data)["accuracy"]
        images = ms.Tensor(x_test)
        identical = bool(np.array_equal(Model(network).predict(images).asnumpy(),
                                        Model(reloaded).predict(images).asnumpy()))
        log(f"reloaded into a fresh network: test accuracy {reload_accuracy:.2%}, "
            f"{'identical' if identical else 'DIFFERENT'} predictions")
    finally:
        ms.set_context(mode=previous_mode)
    return DemoResult(train_seconds, accuracy, reload_accuracy, identical, ckpt_path,
                      QUICK_FLOOR if quick else FULL_FLOOR)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m minispore.examples.digits",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=sorted(MODES), default="pynative")
    parser.add_argument("--epochs", type=int, default=None,
                        help=f"training epochs (default {FULL_EPOCHS}, "
                             f"{QUICK_EPOCHS} with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help=f"short smoke run; accuracy floor {QUICK_FLOOR:.0%} instead of "
                             f"{FULL_FLOOR:.0%}")
    parser.add_argument("--ckpt", default=None, help="checkpoint path (default: in the temp dir)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if args.epochs is not None and args.epochs < 1:
        parser.error("--epochs must be at least 1")

    result = run(args.mode, args.epochs, args.quick, args.ckpt,
                 progress_bar=False if args.no_progress else None, seed=args.seed)
    if result.passed:
        print(f"PASS: test accuracy {result.accuracy:.2%} >= {result.floor:.0%}, "
              f"checkpoint reload reproduces it")
        return 0
    print(f"FAIL: test accuracy {result.accuracy:.2%} (floor {result.floor:.0%}), reloaded "
          f"{result.reload_accuracy:.2%}, identical predictions: {result.reload_identical}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
