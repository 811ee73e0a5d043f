"""Train the digits CNN from image files, through a MindSpore-style data pipeline.

    python -m minispore.examples.digits_folder                   # PyNative mode
    python -m minispore.examples.digits_folder --mode graph      # the same in Graph mode
    python -m minispore.examples.digits_folder --quick --workers 2 --processes

The script writes scikit-learn's 1797 8x8 digits as PNG files into a temporary folder, one
sub-folder per class (``0/0000.png`` ...), and trains `digits.DigitsCNN` on them the way
MindSpore's image tutorials read data:

    ImageFolderDataset -> split([0.75, 0.25])
      -> map([Decode(), RandomCrop(8, padding=1) (training only), Grayscale(), ToTensor()])
      -> batch(32) -> Model.train

It exits with status 1 when the test accuracy is below the floor (95%; 80% with --quick).
"""
import argparse
import os
import sys
import tempfile

import numpy as np
from PIL import Image

import minispore as ms
import minispore.dataset as ds
import minispore.dataset.vision as vision
from minispore.common import set_seed
from minispore.examples.digits import MODES, DigitsCNN, build_model, train_and_evaluate

FULL_EPOCHS, QUICK_EPOCHS = 10, 2
FULL_FLOOR, QUICK_FLOOR = 0.95, 0.80
BATCH_SIZE = 32


def write_digit_folder(root):
    """scikit-learn's digits as 8-bit grayscale PNGs in root/<label>/<index>.png."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    pixels = np.clip(np.rint(digits.images * (255 / 16)), 0, 255).astype(np.uint8)
    for label in range(10):
        os.makedirs(os.path.join(root, str(label)), exist_ok=True)
    for index, (image, label) in enumerate(zip(pixels, digits.target)):
        Image.fromarray(image, "L").save(os.path.join(root, str(label), f"{index:04d}.png"))
    return len(pixels)


def pipelines(root, workers=1, processes=False):
    """(train, test) datasets of (image (1, 8, 8) float32 in [0, 1], label int32) batches."""
    images = ds.ImageFolderDataset(root, extensions=[".png"])
    train, test = images.split([0.75, 0.25], randomize=True)
    to_input = [vision.Grayscale(), vision.ToTensor()]
    train = train.map([vision.Decode(), vision.RandomCrop(8, padding=1)] + to_input, "image",
                      num_parallel_workers=workers, python_multiprocessing=processes)
    test = test.map([vision.Decode()] + to_input, "image", num_parallel_workers=workers,
                    python_multiprocessing=processes)
    return train.batch(BATCH_SIZE), test.batch(256)


def run(mode="pynative", epochs=None, quick=False, workers=1, processes=False,
        progress_bar=None, seed=0, log=print):
    """Write the PNGs, train, evaluate; returns (test accuracy, training seconds)."""
    epochs = epochs or (QUICK_EPOCHS if quick else FULL_EPOCHS)
    previous_mode = ms.get_context("mode")
    ms.set_context(mode=MODES[mode])
    try:
        set_seed(seed)
        with tempfile.TemporaryDirectory(prefix="minispore-digits-") as root:
            count = write_digit_folder(root)
            train, test = pipelines(root, workers, processes)
            log(f"minispore digits-from-files demo: {mode} mode, {count} PNG files in {root}, "
                f"{train.get_dataset_size()} training batches, {epochs} epochs, {workers} "
                f"{'process' if processes else 'thread'} worker(s) per map")
            seconds, accuracy = train_and_evaluate(build_model(DigitsCNN()), train, test,
                                                   epochs, progress_bar, log)
    finally:
        ms.set_context(mode=previous_mode)
    return accuracy, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m minispore.examples.digits_folder",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=sorted(MODES), default="pynative")
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_EPOCHS} epochs, accuracy floor {QUICK_FLOOR:.0%}")
    parser.add_argument("--workers", type=int, default=1, help="workers per map (default 1)")
    parser.add_argument("--processes", action="store_true",
                        help="worker processes instead of threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    if (args.epochs is not None and args.epochs < 1) or args.workers < 1:
        parser.error("--epochs and --workers must be at least 1")
    accuracy, _ = run(args.mode, args.epochs, args.quick, args.workers, args.processes,
                      progress_bar=False if args.no_progress else None, seed=args.seed)
    floor = QUICK_FLOOR if args.quick else FULL_FLOOR
    print(f"{'PASS' if accuracy >= floor else 'FAIL'}: test accuracy {accuracy:.2%} "
          f"(floor {floor:.0%})")
    return 0 if accuracy >= floor else 1


if __name__ == "__main__":
    sys.exit(main())
