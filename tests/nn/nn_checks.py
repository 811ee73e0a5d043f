"""Checks shared by the nn tests: finite-difference gradients of Cells and functions."""
import numpy as np

import minispore as ms
from minispore import ops


def T(a, dtype=None):
    return ms.Tensor(np.asarray(a), dtype)


def fd_grad(f, arrays, index, step=1e-6):
    """Central difference of the float f(*arrays) with respect to arrays[index]."""
    arrays = [np.array(a, np.float64) if np.asarray(a).dtype.kind == "f" else np.array(a)
              for a in arrays]
    grad = np.zeros(arrays[index].shape)
    for k in range(arrays[index].size):
        saved = arrays[index].flat[k]
        arrays[index].flat[k] = saved + step
        up = f(*arrays)
        arrays[index].flat[k] = saved - step
        down = f(*arrays)
        arrays[index].flat[k] = saved
        grad.flat[k] = (up - down) / (2 * step)
    return grad


def check_cell_grads(cell, *inputs, seed=0, atol=1e-6, rtol=1e-5):
    """ms.grad of <c, cell(*inputs)> (c a fixed random cotangent) with respect to the float64
    inputs and every trainable Parameter matches central differences."""
    inputs = [np.asarray(x) for x in inputs]
    out = cell(*[T(x) for x in inputs])
    cotangent = T(np.random.default_rng(seed).standard_normal(out.shape))
    params = cell.trainable_params()
    assert all(p.dtype == ms.float64 for p in params), "use float64 parameters for FD checks"

    def loss(*xs):
        return ops.sum(cell(*xs) * cotangent)

    positions = tuple(i for i, x in enumerate(inputs) if x.dtype.kind == "f")
    input_grads, param_grads = ms.grad(loss, positions, params)(*[T(x) for x in inputs])

    def loss_value(*xs):
        return float(loss(*[T(x) for x in xs]))

    for p, g in zip(positions, input_grads):
        np.testing.assert_allclose(g.asnumpy(), fd_grad(loss_value, inputs, p), atol=atol,
                                   rtol=rtol, err_msg=f"gradient of input {p}")
    for param, g in zip(params, param_grads):
        original = param.asnumpy().copy()

        def with_param(value):
            param.set_data(T(value))
            return loss_value(*inputs)

        want = fd_grad(with_param, [original], 0)
        param.set_data(T(original))
        np.testing.assert_allclose(g.asnumpy(), want, atol=atol, rtol=rtol,
                                   err_msg=f"gradient of {param.name}")


def check_fn_grads(fn, *arrays, seed=0, atol=1e-6, rtol=1e-5):
    """ms.grad of <c, fn(*arrays)> with respect to every float input matches differences."""
    arrays = [np.asarray(a) for a in arrays]
    out = fn(*[T(a) for a in arrays])
    cotangent = T(np.random.default_rng(seed).standard_normal(out.shape))

    def loss(*xs):
        return ops.sum(fn(*xs) * cotangent)

    positions = tuple(i for i, a in enumerate(arrays) if a.dtype.kind == "f")
    grads = ms.grad(loss, positions)(*[T(a) for a in arrays])
    for p, g in zip(positions, grads):
        want = fd_grad(lambda *xs: float(loss(*[T(x) for x in xs])), arrays, p)
        np.testing.assert_allclose(g.asnumpy(), want, atol=atol, rtol=rtol,
                                   err_msg=f"gradient of input {p}")
