"""Shared fixtures: the execution `mode` (both modes for every test that asks for it).

Compiled-kernel caches go to a temp dir of this test session, so tests neither read a stale
cache nor leave one behind; they must be set before minispore (and numba) are imported.
Kernels are deduplicated by structure and cached on disk, so the suite compiles each
distinct fused kernel once.
"""
import atexit
import logging
import os
import shutil
import sys
import tempfile

_CACHE_DIR = tempfile.mkdtemp(prefix="minispore-tests-")
os.environ["NUMBA_CACHE_DIR"] = os.path.join(_CACHE_DIR, "numba")
os.environ["MINISPORE_CACHE_DIR"] = os.path.join(_CACHE_DIR, "minispore")
# Graph-mode tests check the fused numba kernels, not the numpy tier that serves calls while
# kernels compile in the background: compile them before the first call returns.
os.environ["MINISPORE_SYNC_COMPILE"] = "1"


def _remove_cache_dir():
    # a kernel still compiling on the background thread loses its file now: not worth a warning
    logging.getLogger("minispore.jit").disabled = True
    shutil.rmtree(_CACHE_DIR, ignore_errors=True)


atexit.register(_remove_cache_dir)

import pytest  # noqa: E402
from fake_device import fake_cupy_modules  # noqa: E402

import minispore as ms  # noqa: E402
from minispore.compiler.codegen import cuda_gpu  # noqa: E402
from minispore.core import cublas  # noqa: E402

MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}


def pytest_addoption(parser):
    parser.addoption("--gpu", action="store_true", default=False,
                     help="also run the tests marked gpu (they need CuPy and an NVIDIA GPU)")


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs CuPy and an NVIDIA GPU; runs with --gpu")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--gpu"):
        return
    skip = pytest.mark.skip(reason="a GPU test: run pytest --gpu on a machine with CuPy and a GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(params=sorted(MODES))
def mode(request):
    """"pynative" or "graph", with the context set to that mode (PyNative restored after)."""
    ms.set_context(mode=MODES[request.param])
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.fixture
def fake_gpu(monkeypatch):
    """device_target="GPU" on fake_device's CuPy: host arrays, kernels built with g++."""
    for name, module in fake_cupy_modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delenv("CUPY_CACHE_DIR", raising=False)
    monkeypatch.setattr(cuda_gpu, "_kernels", {})
    monkeypatch.setattr(cublas, "matmul", sys.modules["cupy"].matmul)  # no cuBLAS here
    ms.set_context(device_target="GPU")
    yield sys.modules["cupy"]
    ms.set_context(device_target="CPU")
