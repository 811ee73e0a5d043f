"""Operators users add: PrimitiveWithInfer subclasses with bprop_getters, ops.Custom (pyfunc and
numba kernels). Each must behave like a built-in row: both modes, grad to higher order, vmap,
jit, a training step, and errors naming the op and the user's line."""
import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops
from minispore.compiler.trace import trace
from minispore.ops import OpShapeError, OpTypeError, bprop_getters, prim_attr_register

P = ops


# ***** seed 001: a Sin of one's own, its derivative registered beside it *****

class MySin(ops.PrimitiveWithInfer):
    """sin(x), defined outside minispore."""

    @prim_attr_register
    def __init__(self):
        self.init_prim_io_names(inputs=["x"], outputs=["y"])

    def infer_shape(self, x_shape):
        return x_shape

    def infer_dtype(self, x_dtype):
        return x_dtype

    def impl(self, x):
        return np.sin(x)


@bprop_getters.register(MySin)
def get_bprop_sin(self):
    """Grad definition for `MySin`, as seed 001 writes it for P.Sin."""
    cos = P.Cos()

    def bprop(x, out, dout):
        dx = dout * cos(x)
        return (dx,)

    return bprop


class Cube(ops.PrimitiveWithInfer):
    """scale * x**3, with an attribute; the `__infer__` form of the rule."""

    @prim_attr_register
    def __init__(self, scale=1.0):
        pass

    def __infer__(self, x):
        return {"shape": x["shape"], "dtype": x["dtype"], "value": None}

    def impl(self, x):
        return (self.scale * x ** 3).astype(x.dtype)

    def bprop(self, x, out, dout):          # the simpler form: a method of the primitive
        return (dout * (3.0 * self.scale) * x * x,)


class SplitHalves(ops.PrimitiveWithInfer):
    """Two outputs: the first and second half of the last axis."""

    def infer_shape(self, x_shape):
        half = x_shape[:-1] + [x_shape[-1] // 2]
        return half, half

    def infer_dtype(self, x_dtype):
        return x_dtype, x_dtype

    def impl(self, x):
        h = x.shape[-1] // 2
        return x[..., :h].copy(), x[..., h:].copy()

    def bprop(self, x, out, dout):
        return (ops.concat((dout[0], dout[1]), axis=-1),)


def pyfunc_cube(x):
    return x ** 3


def hybrid_cube(x):
    """A loop kernel numba compiles (MindSpore's hybrid DSL: output_tensor allocates)."""
    y = output_tensor(x.shape, x.dtype)  # noqa: F821  (provided by ops.Custom)
    for i in range(x.size):
        y.flat[i] = x.flat[i] * x.flat[i] * x.flat[i]
    return y


def cube_bprop(x, out, dout):
    return (dout * 3.0 * x * x,)


CUSTOM_PYFUNC = ops.Custom(pyfunc_cube, out_shape=lambda s: s, out_dtype=lambda t: t,
                           func_type="pyfunc", bprop=cube_bprop)
CUSTOM_HYBRID = ops.Custom(hybrid_cube, func_type="hybrid", bprop=cube_bprop)

# (op, numpy reference, its derivative, its second derivative)
OPS = {
    "seed-sin": (MySin(), np.sin, np.cos, lambda x: -np.sin(x)),
    "cube-attr": (Cube(scale=2.0), lambda x: 2 * x ** 3, lambda x: 6 * x ** 2, lambda x: 12 * x),
    "custom-pyfunc": (CUSTOM_PYFUNC, lambda x: x ** 3, lambda x: 3 * x ** 2, lambda x: 6 * x),
    "custom-numba": (CUSTOM_HYBRID, lambda x: x ** 3, lambda x: 3 * x ** 2, lambda x: 6 * x),
}
X = np.array([[0.3, -1.2, 0.7], [1.5, 0.1, -0.4]], np.float32)


def finite_difference(f, x, eps=1e-3):
    x = x.astype(np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up).sum() - f(down).sum()) / (2 * eps)
    return out


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("mode", ["pynative", "jit", "graph"])
def test_values_and_gradients_in_every_mode(name, mode):
    op, ref, d1, d2 = OPS[name]
    x = ms.Tensor(X)

    class Net(nn.Cell):
        def construct(self, x):
            return op(x)

    def run(fn, *args):
        if mode == "jit":
            return ms.jit(fn)(*args)
        if mode == "graph":
            ms.set_context(mode=ms.GRAPH_MODE)
            try:
                cell = type("Wrapped", (nn.Cell,), {"construct": lambda self, *a: fn(*a)})()
                return cell(*args)
            finally:
                ms.set_context(mode=ms.PYNATIVE_MODE)
        return fn(*args)

    np.testing.assert_allclose(run(Net(), x).asnumpy(), ref(X), rtol=1e-5, atol=1e-6)
    grad = run(ms.grad(lambda x: op(x).sum()), x)
    np.testing.assert_allclose(grad.asnumpy(), d1(X), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(grad.asnumpy(), finite_difference(ref, X), rtol=1e-2,
                               atol=1e-3)
    second = run(ms.grad(ms.grad(lambda x: op(x).sum())), x)   # its bprop is made of ops
    np.testing.assert_allclose(second.asnumpy(), d2(X), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(OPS))
def test_vmap_runs_a_user_op_per_lane(name):
    op, ref, _, _ = OPS[name]
    with pytest.warns(UserWarning, match="no batching rule"):
        out = ms.vmap(lambda x: op(x))(ms.Tensor(X))
    np.testing.assert_allclose(out.asnumpy(), ref(X), rtol=1e-5, atol=1e-6)


def test_several_outputs_and_their_gradient():
    x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
    first, second = SplitHalves()(x)
    assert first.asnumpy().tolist() == [[0, 1], [4, 5]] and second.shape == (2, 2)
    f = lambda x: (SplitHalves()(x)[0] * 2.0 + SplitHalves()(x)[1] * 3.0).sum()  # noqa: E731
    expected = [[2, 2, 3, 3], [2, 2, 3, 3]]
    assert ms.grad(f)(x).asnumpy().tolist() == expected
    assert ms.jit(ms.grad(f))(x).asnumpy().tolist() == expected


@pytest.mark.parametrize("name", sorted(OPS))
def test_a_user_op_trains_the_same_in_both_modes(name):
    op = OPS[name][0]

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Dense(3, 4), nn.Dense(4, 1)

        def construct(self, x):
            return self.fc2(op(self.fc1(x)) * 0.1)

    data = ms.Tensor(np.random.default_rng(0).standard_normal((8, 3)).astype(np.float32))
    label = ms.Tensor(np.random.default_rng(1).standard_normal((8, 1)).astype(np.float32))
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            ms.set_seed(0)
            net = Net()
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                       nn.SGD(net.trainable_params(), 0.05))
            runs.append([float(step(data, label)) for _ in range(4)])
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    assert runs[0][-1] < runs[0][0]
    np.testing.assert_allclose(runs[1], runs[0], rtol=1e-5)


def test_the_graph_node_names_the_op_and_the_users_line():
    traced = trace(lambda x: MySin()(x) * 2.0, (ms.Tensor(X),), {}, "probe")
    node = next(n for n in traced.graph.nodes if n.prim.name == "MySin")
    assert __file__ in node.loc and "MySin()(x)" in node.loc
    assert "MySin(" in traced.graph.to_text()


def test_instances_configured_alike_share_one_compiled_program():
    f = ms.jit(lambda x: Cube(scale=2.0)(x))    # a new instance at every call
    for _ in range(3):
        f(ms.Tensor(X))
    assert len(f.cache) == 1
    assert Cube(2.0)._row is Cube(3.0)._row


# ***** errors name the op and the user's line, alike in both modes *****

class WrongImpl(ops.PrimitiveWithInfer):
    def infer_shape(self, x_shape):
        return x_shape

    def infer_dtype(self, x_dtype):
        return x_dtype

    def impl(self, x):
        return x[:1]                       # disagrees with its rule


class WrongArity(ops.PrimitiveWithInfer):
    def infer_shape(self, x_shape, y_shape):
        return x_shape

    def infer_dtype(self, x_dtype, y_dtype):
        return x_dtype

    def impl(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return (dout * y,)                 # one gradient for two inputs


class WrongShape(ops.PrimitiveWithInfer):
    def infer_shape(self, x_shape):
        return x_shape

    def infer_dtype(self, x_dtype):
        return x_dtype

    def impl(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        return (dout.sum(),)               # a scalar for a (2, 3) input


def in_mode(mode, fn, *args):
    return ms.jit(fn)(*args) if mode == "jit" else fn(*args)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_an_implementation_that_disagrees_with_its_rule(mode):
    with pytest.raises(OpShapeError, match=r"(?s)WrongImpl.*implementation returned output 0 "
                                           r"as Float32\[1, 3\] where its rule says "
                                           r"Float32\[2, 3\].*test_user_ops\.py"):
        in_mode(mode, lambda x: WrongImpl()(x) + 1.0, ms.Tensor(X))


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_a_bprop_with_the_wrong_number_of_gradients(mode):
    y = ms.Tensor(X)
    with pytest.raises(OpTypeError, match=r"(?s)WrongArity.*bprop returned 1 gradients for 2 "
                                          r"inputs.*test_user_ops\.py"):
        in_mode(mode, ms.grad(lambda x: WrongArity()(x, y).sum()), ms.Tensor(X))


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_a_bprop_with_a_wrong_gradient_shape(mode):
    with pytest.raises(OpShapeError, match=r"(?s)WrongShape.*gradient 0 of shape \(\) for an "
                                           r"input of shape \(2, 3\).*test_user_ops\.py"):
        in_mode(mode, ms.grad(lambda x: WrongShape()(x).sum()), ms.Tensor(X))


def test_custom_refuses_toolchains_it_does_not_have():
    with pytest.raises(ValueError, match="func_type 'aot' is not supported"):
        ops.Custom(pyfunc_cube, func_type="aot")


def test_a_bprop_registered_for_a_builtin_class_replaces_its_derivative():
    row = ops.REGISTRY["sin"]
    saved = row.bprop, row.bprop_takes_needed
    try:
        @bprop_getters.register(ops.Sin)
        def get_bprop_sin(self):
            def bprop(x, out, dout):
                return (dout * 10.0,)      # deliberately not cos: to see that it is used
            return bprop
        grad = ms.grad(lambda x: ops.Sin()(x).sum())(ms.Tensor(X))
        np.testing.assert_allclose(grad.asnumpy(), np.full(X.shape, 10.0))
    finally:
        row.bprop, row.bprop_takes_needed = saved
    np.testing.assert_allclose(ms.grad(lambda x: ops.sin(x).sum())(ms.Tensor(X)).asnumpy(),
                               np.cos(X), rtol=1e-6)
