"""set_context(num_threads=N) limits the BLAS thread pools (and numba's), None restores them."""
import os
import subprocess
import sys

import numpy as np
import pytest

import minispore as ms

threadpoolctl = pytest.importorskip("threadpoolctl", reason="num_threads acts through it")


def _blas_threads():
    return {pool["num_threads"] for pool in threadpoolctl.threadpool_info()
            if pool["user_api"] == "blas"}


def test_num_threads_limits_blas_and_none_restores_it():
    before = _blas_threads()
    try:
        ms.set_context(num_threads=1)
        assert ms.get_context("num_threads") == 1
        assert _blas_threads() == {1}
        x = ms.Tensor(np.ones((64, 64), np.float32))
        np.testing.assert_allclose(ms.ops.matmul(x, x).asnumpy(), np.full((64, 64), 64.0))
    finally:
        ms.set_context(num_threads=None)
    assert _blas_threads() == before


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"])
def test_num_threads_refuses_what_is_not_a_positive_int(bad):
    with pytest.raises(ValueError, match="num_threads"):
        ms.set_context(num_threads=bad)
    assert ms.get_context("num_threads") is None


def test_the_environment_variable_sets_it_at_import():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    script = ("import minispore as ms, threadpoolctl\n"
              "print(ms.get_context('num_threads'), {p['num_threads'] for p in "
              "threadpoolctl.threadpool_info() if p['user_api'] == 'blas'})")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=root, MINISPORE_NUM_THREADS="1"))
    assert done.stdout.split() == ["1", "{1}"]
