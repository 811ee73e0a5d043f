"""core.blas: CPU matmuls on minispore's own OpenBLAS, and the choice of its kernels."""
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import assert_close

from minispore.core import blas

LARGE = (96, 200, 300)  # (m, k, n): 5.8M multiply-adds, past blas.MIN_MACS
SMALL = (3, 4, 5)


def _layouts(a):
    """a as C-contiguous, Fortran-ordered, read-only, and a strided view: the same values."""
    strided = np.zeros((a.shape[0], 2 * a.shape[1]), a.dtype)[:, ::2]
    strided[...] = a
    read_only = a.copy()
    read_only.flags.writeable = False
    return {"C": a, "F": np.asfortranarray(a), "read-only": read_only, "strided": strided}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m, k, n", [LARGE, SMALL])
def test_matmul_matches_numpy_for_every_operand_layout(dtype, m, k, n):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    for a_view in _layouts(a).values():
        for b_view in _layouts(b).values():
            got = blas.matmul(a_view, b_view)
            assert got.dtype == dtype and got.flags.c_contiguous
            assert_close(got, want, rtol=tol, atol=tol * k, check_dtype=False)


def test_matmul_leaves_other_cases_to_numpy():
    ints = np.arange(6).reshape(2, 3)
    assert np.array_equal(blas.matmul(ints, ints.T), ints @ ints.T)
    batched = np.ones((2, 3, 4), np.float32)
    assert blas.matmul(batched, np.ones((4, 5), np.float32)).shape == (2, 3, 5)
    with pytest.raises(ValueError):
        blas.matmul(np.ones((300, 200)), np.ones((300, 200)))  # numpy's own shape error
    assert blas.matmul(np.ones((0, 4)), np.ones((4, 3))).shape == (0, 3)


@pytest.mark.parametrize("c_shape", [(LARGE[0], LARGE[2]), (LARGE[2],)])
def test_addmm_accumulates_into_a_copy_of_c(c_shape):
    rng = np.random.default_rng(1)
    m, k, n = LARGE
    a, b = rng.standard_normal((k, m)).astype(np.float32).T, rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal(c_shape).astype(np.float32)
    before = c.copy()
    got = blas.addmm(c, a, b, np.float32(-0.25))
    assert_close(got, c - 0.25 * (a.astype(np.float64) @ b), rtol=1e-4, atol=1e-3, check_dtype=False)
    assert np.array_equal(c, before)  # c itself is never written


def test_zen4_gets_the_avx2_kernels_and_other_cpus_keep_openblas_choice():
    assert blas.default_coretype(("AuthenticAMD", 25, {"avx2", "avx512f"})) == "Zen"   # Zen 4
    assert blas.default_coretype(("AuthenticAMD", 25, {"avx2"})) is None               # Zen 3
    assert blas.default_coretype(("AuthenticAMD", 26, {"avx2", "avx512f"})) is None   # Zen 5
    assert blas.default_coretype(("GenuineIntel", 6, {"avx2", "avx512f"})) is None
    assert blas.default_coretype(("", -1, set())) is None


def _core_in_subprocess(**env):
    code = "from minispore.core import blas; print(blas.core_name())"
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_environment_picks_numpy_or_a_kernel_set():
    assert _core_in_subprocess(MINISPORE_BLAS="numpy") == "numpy"
    if blas.core_name() == "numpy":
        pytest.skip("scipy-openblas32 is not installed here")
    assert _core_in_subprocess(MINISPORE_BLAS_CORETYPE="Haswell") == "Haswell"
    # numpy's OpenBLAS never sees minispore's choice
    assert "OPENBLAS_CORETYPE" not in os.environ


@pytest.mark.skipif(blas._Threads.library is None, reason="minispore's OpenBLAS is not loaded")
def test_gemms_leave_the_compiler_a_core_while_it_runs():
    library = blas._Threads.library
    before = library.scipy_openblas_get_num_threads()
    a = np.ones((256, 256), np.float32)
    try:
        library.scipy_openblas_set_num_threads(3)
        blas.compiler_running(True)
        np.testing.assert_array_equal(blas.matmul(a, a), a @ a)  # the change comes with a GEMM
        assert library.scipy_openblas_get_num_threads() == 2
        blas.compiler_running(False)
        blas.matmul(a, a)
        assert library.scipy_openblas_get_num_threads() == 3
    finally:
        blas.compiler_running(False)
        blas.matmul(a, a)
        library.scipy_openblas_set_num_threads(before)
