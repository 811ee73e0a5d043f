"""minispore's direct cuBLAS calls against numpy's matmul, for every operand layout they read
in place or copy (`pytest --gpu`; skipped without a GPU)."""
import numpy as np
import pytest
from gpu_env import GPU_MARKS

from minispore.core import cublas

pytestmark = GPU_MARKS


def _layouts(rng, shape, dtype):
    """(name, host array, device array) of `shape` in several memory layouts."""
    import cupy
    host = rng.standard_normal(shape).astype(dtype)
    transposed = cupy.ascontiguousarray(cupy.asarray(host).swapaxes(-1, -2)).swapaxes(-1, -2)
    wide = cupy.zeros(shape[:-1] + (shape[-1] * 2,), dtype)
    wide[..., ::2] = cupy.asarray(host)
    yield "row-major", host, cupy.asarray(host)
    yield "transposed view", host, transposed
    yield "strided columns", host, wide[..., ::2]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("a_shape, b_shape", [
    ((5, 3), (3, 4)),            # one gemm
    ((1, 3), (3, 1)),            # unit dimensions: either layout reading
    ((2, 5, 3), (2, 3, 4)),      # strided batched
    ((2, 5, 3), (3, 4)),         # b shared by the batch: stride 0
    ((3, 1, 5, 3), (2, 3, 4)),   # broadcast on both sides: a copy for one
    ((4, 0), (0, 3)),            # k == 0: zeros
])
def test_matmul_equals_numpy_for_every_layout(a_shape, b_shape, dtype):
    rng = np.random.default_rng(0)
    for a_name, a_host, a in _layouts(rng, a_shape, dtype):
        for b_name, b_host, b in _layouts(rng, b_shape, dtype):
            got = cublas.matmul(a, b)
            want = np.matmul(a_host, b_host)
            assert got.shape == want.shape and got.dtype == want.dtype
            rtol = 1e-5 if dtype == np.float32 else 1e-12
            np.testing.assert_allclose(got.get(), want, rtol=rtol, atol=rtol,
                                       err_msg=f"{a_name} @ {b_name}")


def test_other_dtypes_go_to_cupy():
    import cupy
    host = np.arange(6, dtype=np.int32).reshape(2, 3)
    a = cupy.asarray(host)
    np.testing.assert_array_equal(cublas.matmul(a, a.T).get(), host @ host.T)
