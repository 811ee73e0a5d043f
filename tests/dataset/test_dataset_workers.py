"""Parallel workers: the same rows and augmentations for any worker count, threads or
processes; clear errors (a failing transform, a corrupt image, a killed worker) and a clean
shutdown (also on KeyboardInterrupt and early stops) with nothing left running."""
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from data_helpers import assert_no_workers_left, column, deadline, rows, write_image_folder

import minispore as ms
import minispore.dataset as ds
import minispore.dataset.vision as vision

MAIN_PID = os.getpid()
WORKER_SETTINGS = [(1, False), (2, False), (2, True)]  # (workers, processes)


def augmented(workers=1, processes=False, n=40):
    images = np.arange(n * 4 * 4 * 3, dtype=np.uint8).reshape(n, 4, 4, 3)
    data = ds.NumpySlicesDataset((images, np.arange(n)), ["image", "label"])
    data = data.map([vision.RandomCrop(3), vision.RandomHorizontalFlip(), vision.HWC2CHW()],
                    "image", num_parallel_workers=workers, python_multiprocessing=processes)
    return data.batch(8)


def digest(dataset):
    h = hashlib.sha256()
    for row in dataset.create_tuple_iterator(output_numpy=True):
        for value in row:
            h.update(np.ascontiguousarray(value).tobytes())
    return h.hexdigest()


def fails_on_7(x):
    if int(x) == 7:
        raise ValueError("seven is not allowed")
    return x


def dies_on_20(x):
    if int(x) == 20 and os.getpid() != MAIN_PID:
        os.kill(os.getpid(), signal.SIGKILL)
    return x


def slow(x):
    time.sleep(0.02)
    return x


def test_output_is_the_same_for_any_workers():
    with deadline(60):
        digests = {digest(augmented(w, p)) for w, p in WORKER_SETTINGS}
        assert len(digests) == 1
        assert digest(augmented()) != digest(augmented(n=39))  # the digest does see the data
    assert_no_workers_left()


def test_same_seed_same_order_in_both_modes(mode):
    want = digest(augmented())
    assert digest(augmented(2, False)) == want
    previous = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        assert digest(augmented()) == want
    finally:
        ms.set_context(mode=previous)


def test_same_seed_same_order_across_runs():
    script = ("import hashlib, numpy as np, minispore.dataset as ds, sys; "
              "sys.path.insert(0, {path!r}); import test_dataset_workers as t; "
              "ds.config.set_seed(123); print(t.digest(t.augmented(2, True)))")
    done = subprocess.run([sys.executable, "-c", script.format(path=os.path.dirname(__file__))],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONHASHSEED="random"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == digest(augmented())


@pytest.mark.parametrize("workers,processes", WORKER_SETTINGS)
def test_a_failing_transform_names_itself_and_the_sample(workers, processes):
    data = ds.NumpySlicesDataset(np.arange(30), ["n"], shuffle=False)
    data = data.map([lambda x: x + 0, fails_on_7], "n", num_parallel_workers=workers,
                    python_multiprocessing=processes)
    with deadline(30):
        with pytest.raises(RuntimeError, match=r"transform fails_on_7 failed on sample 7 .*"
                                               r"ValueError: seven is not allowed"):
            rows(data)
    assert_no_workers_left()


def test_a_corrupt_image_is_a_clear_error(tmp_path):
    write_image_folder(str(tmp_path), per_class=3)
    (tmp_path / "dog" / "1.png").write_bytes(b"\x89PNG\r\n\x1a\n not really a png")
    with deadline(30):
        data = ds.ImageFolderDataset(str(tmp_path), shuffle=False).map(
            vision.Decode(), "image", num_parallel_workers=2, python_multiprocessing=True)
        with pytest.raises(RuntimeError, match=r"transform Decode failed on sample 4 .*"
                                               r"cannot decode the \d+ bytes"):
            rows(data)
        decoded = ds.ImageFolderDataset(str(tmp_path), shuffle=False, decode=True)
        with pytest.raises(RuntimeError, match=r"reading row 4 failed.*dog.1\.png"):
            rows(decoded)
    assert_no_workers_left()


def test_a_killed_worker_stops_the_pipeline_cleanly():
    data = ds.NumpySlicesDataset(np.arange(64), ["n"], shuffle=False)
    data = data.map(dies_on_20, "n", num_parallel_workers=2, python_multiprocessing=True)
    with deadline(30):
        with pytest.raises(RuntimeError, match=r"worker process 1 \(pid \d+\) died unexpectedly "
                                               r"\(killed by SIGKILL\) while working on "
                                               r"samples 16\.\.31"):
            rows(data)
    assert_no_workers_left()


@pytest.mark.parametrize("processes", [False, True])
def test_keyboard_interrupt_shuts_the_workers_down(processes):
    data = ds.NumpySlicesDataset(np.arange(400), ["n"], shuffle=False)
    data = data.map(slow, "n", num_parallel_workers=2, python_multiprocessing=processes)
    interrupt = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    with deadline(30):
        interrupt.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                rows(data)
        finally:
            interrupt.cancel()
    assert_no_workers_left()


def test_stopping_early_shuts_the_workers_down():
    data = ds.NumpySlicesDataset(np.arange(200), ["n"], shuffle=False)
    data = data.map(slow, "n", num_parallel_workers=2, python_multiprocessing=True)
    with deadline(30):
        iterator = data.create_tuple_iterator(output_numpy=True)
        assert int(next(iterator)[0]) == 0
        iterator.stop()
        assert_no_workers_left()
        assert column(data.take(3)) == [0, 1, 2]  # take closes its child when it has enough
    assert_no_workers_left()


def test_parallel_sources_and_batches_match_serial():
    class Squares:
        def __getitem__(self, i):
            return np.array(i), np.array(i * i)

        def __len__(self):
            return 37

    with deadline(30):
        serial = rows(ds.GeneratorDataset(Squares(), ["i", "sq"]))
        for processes in (False, True):
            parallel = ds.GeneratorDataset(Squares(), ["i", "sq"], num_parallel_workers=2,
                                           python_multiprocessing=processes)
            assert rows(parallel) == serial
        numbers = ds.NumpySlicesDataset(np.arange(50), ["n"], shuffle=False)
        doubled = numbers.batch(4, per_batch_map=lambda v, info: ([x * 2 for x in v],),
                                num_parallel_workers=2)
        assert rows(doubled) == rows(numbers.batch(4).map(lambda v: v * 2))
    assert_no_workers_left()


def test_worker_errors_in_parallel_sources():
    class Broken:
        def __getitem__(self, i):
            if i == 5:
                raise KeyError("no row five")
            return np.array(i)

        def __len__(self):
            return 10

    with deadline(30):
        data = ds.GeneratorDataset(Broken(), "n", shuffle=False, num_parallel_workers=2)
        with pytest.raises(RuntimeError, match="GeneratorDataset: reading row 5 failed: "
                                               "KeyError: 'no row five'"):
            rows(data)
    assert_no_workers_left()
