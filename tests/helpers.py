"""Test helpers shared across the suite: running a function in a mode, numeric checks."""
import numpy as np
import pytest

import minispore as ms


def run_in_mode(fn, mode, *args):
    """fn(*args) run eagerly ("pynative") or compiled with ms.jit ("graph")."""
    if mode == "pynative":
        return fn(*args)
    if not hasattr(ms, "jit"):
        pytest.skip("graph mode not built yet")
    return ms.jit(fn)(*args)


def to_numpy(x):
    """numpy value of a Tensor (or nested tuple/list of them), array or scalar."""
    if isinstance(x, (tuple, list)):
        return type(x)(to_numpy(v) for v in x)
    return x.asnumpy() if isinstance(x, ms.Tensor) else np.asarray(x)


def assert_close(got, want, rtol=1e-6, atol=1e-6, check_dtype=True):
    """Values (and shapes, and dtypes of numpy `want`s) agree; works on nested tuples."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            assert_close(g, w, rtol, atol, check_dtype)
        return
    g, w = to_numpy(got), np.asarray(want)
    assert g.shape == w.shape, f"shape {g.shape} != {w.shape}"
    if check_dtype and isinstance(want, np.ndarray):
        assert g.dtype == w.dtype, f"dtype {g.dtype} != {w.dtype}"
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def numeric_grad(f, arrays, index, step=1e-6):
    """Central finite difference of the scalar f(arrays) with respect to arrays[index]."""
    arrays = [np.array(a) for a in arrays]  # private copies: perturbed in place below
    x = arrays[index]
    grad = np.zeros(x.shape, np.float64)
    for i in np.ndindex(x.shape):
        orig = x[i]
        x[i] = orig + step
        f_plus = f(arrays)
        x[i] = orig - step
        f_minus = f(arrays)
        x[i] = orig
        grad[i] = (f_plus - f_minus) / (2 * step)
    return grad
