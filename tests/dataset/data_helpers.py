"""Shared by the dataset tests: rows as lists, a deadline for tests that could hang, small
image folders and idx files written to disk, and a check that no worker is left behind."""
import gzip
import multiprocessing
import os
import signal
import threading
from contextlib import contextmanager

import numpy as np
import pytest
from PIL import Image

import minispore.dataset as ds


@pytest.fixture(autouse=True)
def dataset_seed():
    ds.config.set_seed(123)
    yield
    ds.config._seed = None


def rows(dataset, **kwargs):
    """Every row of one epoch as lists of Python values."""
    return [[np.asarray(a).tolist() for a in row]
            for row in dataset.create_tuple_iterator(output_numpy=True, **kwargs)]


def column(dataset, index=0):
    return [row[index] for row in rows(dataset)]


@contextmanager
def deadline(seconds):
    """Fail (with TimeoutError raised in the test's thread) if the block runs too long."""
    assert threading.current_thread() is threading.main_thread()

    def expire(signum, frame):
        raise TimeoutError(f"the test did not finish within {seconds} s (a hang?)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def assert_no_workers_left():
    """Every worker process a pipeline started has been joined."""
    alive = multiprocessing.active_children()
    assert not alive, f"worker processes still running: {alive}"
    data_threads = [t for t in threading.enumerate() if t.name.startswith("minispore-data")]
    assert not data_threads, f"worker threads still running: {data_threads}"


def write_image_folder(root, per_class=4, size=(6, 5), classes=("cat", "dog")):
    """root/<class>/<i>.png with random RGB images; returns {path: array}."""
    rng = np.random.default_rng(7)
    images = {}
    for name in classes:
        os.makedirs(os.path.join(root, name), exist_ok=True)
        for i in range(per_class):
            array = rng.integers(0, 256, (*size, 3), dtype=np.uint8)
            path = os.path.join(root, name, f"{i}.png")
            Image.fromarray(array).save(path)
            images[path] = array
    return images


def write_idx(path, array, compress=False):
    """`array` as an idx-ubyte file (MNIST's format), gzipped with `compress`."""
    header = (0x0800 + array.ndim).to_bytes(4, "big") + b"".join(
        int(d).to_bytes(4, "big") for d in array.shape)
    opener = gzip.open if compress else open
    with opener(path + (".gz" if compress else ""), "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())
