"""jacfwd / jacrev / hessian: MindSpore's layout and conventions, float64 finite differences,
agreement with each other and with vjp, aux outputs, errors, both modes."""
import numpy as np
import pytest
from helpers import assert_close, run_in_mode, to_numpy

import minispore as ms
from minispore import Tensor, nn, ops

RNG = np.random.default_rng(0)
XA = RNG.standard_normal((2, 3))
YA = RNG.standard_normal(3)


def two_outputs(x, y):
    """Several inputs, several outputs of different shapes."""
    return ops.sin(x) * y + x * x, ops.sum(ops.exp(x) * y) + ops.sum(y * y * y)


def numeric_jacobian(f, arrays, index, step=1e-6):
    """Central differences of every output of f(arrays) with respect to arrays[index]: one
    array of shape output shape + input shape per output."""
    arrays = [np.array(a) for a in arrays]
    x = arrays[index]
    columns = []
    for i in np.ndindex(x.shape):
        orig = x[i]
        x[i] = orig + step
        plus = [to_numpy(o) for o in f(*(Tensor(a) for a in arrays))]
        x[i] = orig - step
        minus = [to_numpy(o) for o in f(*(Tensor(a) for a in arrays))]
        x[i] = orig
        columns.append([(p - m) / (2 * step) for p, m in zip(plus, minus)])
    return [np.stack([c[k] for c in columns], axis=-1).reshape(np.shape(columns[0][k]) + x.shape)
            for k in range(len(columns[0]))]


def expected_jacobians(f, arrays):
    """want[k][i]: d output k / d input i, by finite differences."""
    per_input = [numeric_jacobian(f, arrays, i) for i in range(len(arrays))]
    return [[per_input[i][k] for i in range(len(arrays))] for k in range(len(per_input[0]))]


@pytest.mark.parametrize("transform", [ms.jacrev, ms.jacfwd])
def test_jacobians_match_finite_differences(transform, mode):
    jac = run_in_mode(transform(two_outputs, grad_position=(0, 1)), mode, Tensor(XA), Tensor(YA))
    want = expected_jacobians(two_outputs, [XA, YA])
    assert isinstance(jac, tuple) and len(jac) == 2 and all(len(j) == 2 for j in jac)
    assert jac[0][0].shape == (2, 3, 2, 3) and jac[0][1].shape == (2, 3, 3)
    assert jac[1][0].shape == (2, 3) and jac[1][1].shape == (3,)
    assert_close(jac, tuple(tuple(w) for w in want), rtol=1e-7, atol=1e-8)


def test_jacfwd_and_jacrev_agree(mode):
    f = lambda x, y: (ops.tanh(ops.matmul(x, ops.reshape(y, (3, 1)))), x * 2)  # noqa: E731
    forward = run_in_mode(ms.jacfwd(f, grad_position=(0, 1)), mode, Tensor(XA), Tensor(YA))
    reverse = run_in_mode(ms.jacrev(f, grad_position=(0, 1)), mode, Tensor(XA), Tensor(YA))
    assert_close(forward, tuple(tuple(to_numpy(j) for j in js) for js in reverse),
                 rtol=1e-12, atol=1e-12)


def test_an_int_grad_position_gives_one_jacobian_per_output():
    jac = ms.jacrev(two_outputs, grad_position=1)(Tensor(XA), Tensor(YA))
    want = expected_jacobians(two_outputs, [XA, YA])
    assert_close(jac, (want[0][1], want[1][1]), rtol=1e-7, atol=1e-8)
    single = ms.jacfwd(lambda x: ops.sin(x))(Tensor(YA))
    assert_close(single, np.diag(np.cos(YA)), rtol=1e-12, atol=1e-12)


class MultipleInputsMultipleOutputsNet(nn.Cell):
    def construct(self, x, y, z):
        return x ** 2 + y ** 2 + z ** 2, x * y * z


@pytest.mark.parametrize("transform", [ms.jacfwd, ms.jacrev])
def test_mindspore_documentation_example(transform):
    # mindspore.jacfwd / jacrev docs: the Jacobian of the first output, the second as aux
    x = Tensor(np.array([[1, 2], [3, 4]]).astype(np.float32))
    y = Tensor(np.array([[1, 2], [3, 4]]).astype(np.float32))
    z = Tensor(np.array([[1, 1], [1, 1]]).astype(np.float32))
    jac, aux = transform(MultipleInputsMultipleOutputsNet(), grad_position=0, has_aux=True)(
        x, y, z)
    want = np.zeros((2, 2, 2, 2), np.float32)
    for i, j in np.ndindex(2, 2):
        want[i, j, i, j] = 2 * (2 * i + j + 1)
    assert_close(jac, want)
    assert_close(aux, np.array([[1, 4], [9, 16]], np.float32))


def test_has_aux_returns_the_other_outputs_undifferentiated(mode):
    f = lambda x: (ops.sum(x * x), x + 1, ops.sum(x))  # noqa: E731
    jac, aux = run_in_mode(ms.jacrev(f, has_aux=True), mode, Tensor(YA))
    assert_close(jac, 2 * YA)
    assert_close(aux, (YA + 1, YA.sum()))


def test_hessian_matches_the_closed_form_and_finite_differences(mode):
    a = RNG.standard_normal((3, 3))

    def f(x, y):
        return ops.sum(x * ops.matmul(Tensor(a), x)) + ops.sum(ops.sin(x) * y * y)

    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    h = run_in_mode(ms.hessian(f, grad_position=(0, 1)), mode, Tensor(x), Tensor(y))
    assert_close(h[0][0], a + a.T - np.diag(np.sin(x) * y * y), rtol=1e-10, atol=1e-10)
    assert_close(h[0][1], np.diag(2 * np.cos(x) * y), rtol=1e-10, atol=1e-10)
    assert_close(h[1][0], np.diag(2 * np.cos(x) * y), rtol=1e-10, atol=1e-10)
    assert_close(h[1][1], np.diag(2 * np.sin(x)), rtol=1e-10, atol=1e-10)
    # each row of the Hessian is the Jacobian of the gradient, by finite differences
    gradient = lambda u, v: ms.grad(f, grad_position=(0, 1))(u, v)  # noqa: E731
    fd = expected_jacobians(gradient, [x, y])
    assert_close(h, tuple(tuple(row) for row in fd), rtol=1e-6, atol=1e-7)


def test_hessian_with_aux():
    h, aux = ms.hessian(lambda x: (ops.sum(x ** 3), x * 2), has_aux=True)(Tensor(YA))
    assert_close(h, np.diag(6 * YA), rtol=1e-12, atol=1e-12)
    assert_close(aux, 2 * YA)


def test_jacrev_rows_are_vjps():
    f = lambda x: ops.tanh(ops.cumsum(x, 0)) * x  # noqa: E731
    x = Tensor(RNG.standard_normal(6))
    _, vjp_fn = ms.vjp(f, x)
    rows = np.stack([vjp_fn(Tensor(e))[0].asnumpy() for e in np.eye(6)])
    assert_close(ms.jacrev(f)(x), rows, rtol=1e-12, atol=1e-12)


def test_batched_jacobians_with_vmap(mode):
    xs = RNG.standard_normal((4, 3))
    got = run_in_mode(ms.vmap(ms.jacrev(lambda x: ops.sin(x) * ops.sum(x))), mode, Tensor(xs))
    want = [np.diag(np.cos(x) * x.sum()) + np.sin(x)[:, None] for x in xs]
    assert_close(got, np.stack(want), rtol=1e-12, atol=1e-12)


def test_bad_arguments_are_reported():
    with pytest.raises(TypeError, match="jacrev: grad_position must be an int"):
        ms.jacrev(ops.sin, grad_position=[0])
    with pytest.raises(TypeError, match="jacfwd: has_aux must be a bool"):
        ms.jacfwd(ops.sin, has_aux=1)
    with pytest.raises(ValueError, match="grad_position 2 is out of range"):
        ms.jacrev(ops.sin, grad_position=2)(Tensor(YA))
    with pytest.raises(TypeError, match="can only differentiate float outputs"):
        ms.jacfwd(lambda x: ops.argmax(x, dim=0))(Tensor(YA))
    with pytest.raises(ValueError, match="has_aux=True"):
        ms.jacrev(ops.sin, has_aux=True)(Tensor(YA))
