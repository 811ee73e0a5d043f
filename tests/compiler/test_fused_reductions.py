"""Fused kernels with broadcasting inputs and trailing reductions (numba codegen).

A reduction whose input an elementwise group produces is accumulated inside that group's
kernel; inputs that broadcast are read as C arrays of their own shape. Each distinct kernel
compiles (~0.5 s), so the cases share kernels: keep_dims and the reduction kinds of one set of
axes land in one kernel source.
"""
import numpy as np
import pytest

import minispore as ms
from minispore import ops
from minispore.compiler.codegen import numba_cpu
from minispore.compiler.fuse import FusedGroup, partition
from minispore.core.ir import Graph, Node, Var
from minispore.ops.primitive import REGISTRY

TOLERANCE = {np.float32: {"rtol": 2e-6, "atol": 1e-6}, np.float64: {"rtol": 1e-13, "atol": 1e-13}}


def _program(jitted):
    (executable,) = jitted.cache.values()
    return executable.program


def _kernels(program):
    return [s for s in program.steps if isinstance(s.fn, numba_cpu.GroupStep)]


def _normal(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# ***** reductions of every kind, over any axes, keep_dims both ways *****

def _reduced(x, axis, keep_dims):
    """sum, mean, max and min of one elementwise value: one kernel with three accumulators
    (mean is the sum, divided afterwards)."""
    y = ops.tanh(x) * x - 0.25
    return (y.sum(axis=axis, keep_dims=keep_dims), ops.mean(y, axis, keep_dims),
            ops.amax(y, axis, keep_dims), ops.amin(y, axis, keep_dims))


def _reduced_numpy(x, axis, keep_dims):
    y = np.tanh(x) * x - 0.25
    return [f(y, axis=axis, keepdims=keep_dims) for f in (np.sum, np.mean, np.max, np.min)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("axis", [(0,), (1,), (2,), (0, 2), (1, 2), None],
                         ids=["first", "middle", "last", "outer_and_last", "inner", "all"])
@pytest.mark.parametrize("keep_dims", [False, True], ids=["dropped", "kept"])
def test_a_reduction_fuses_into_its_producer_with_numpys_values(dtype, axis, keep_dims):
    x = _normal((4, 5, 6), dtype)
    f = ms.jit(_reduced)
    got = f(ms.Tensor(x), axis, keep_dims)
    want = _reduced_numpy(x.astype(np.float64), axis, keep_dims)
    eager = _reduced(ms.Tensor(x), axis, keep_dims)
    for g, w, e in zip(got, want, eager):
        assert g.dtype == e.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.asnumpy(), w, **TOLERANCE[dtype])
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), **TOLERANCE[dtype])
    (kernel,) = _kernels(_program(f))
    assert kernel.fn.kernel is not None
    assert [n.prim.name for n in kernel.fn.group.nodes].count("reduce_sum") == 1
    assert {"reduce_max", "reduce_min"} < {n.prim.name for n in kernel.fn.group.nodes}


def test_float32_sums_accumulate_without_drift():
    # a float32 running sum of 2**20 copies of 0.1 ends near 0.0953 * 2**20 (5% off); the
    # kernel's is the exact sum rounded once (numpy's pairwise sum is 3 ulp off here)
    x = np.full(1 << 20, 0.1, np.float32)
    f = ms.jit(lambda x: ops.abs(x).sum())
    got = f(ms.Tensor(x)).asnumpy()
    assert got == np.float32(x.astype(np.float64).sum())
    assert [s.label for s in _program(f).steps] == ["fused kernel (2 ops: abs, reduce_sum)"]


def test_max_and_min_propagate_nan_as_numpy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    x[1, 2] = np.nan
    f = ms.jit(lambda x: (ops.amax(x + 1, axis=1), ops.amin(x + 1, axis=0)))
    got_max, got_min = f(ms.Tensor(x))
    np.testing.assert_array_equal(got_max.asnumpy(), np.max(x + 1, axis=1))
    np.testing.assert_array_equal(got_min.asnumpy(), np.min(x + 1, axis=0))


# ***** broadcasting inputs *****

def _broadcasts(x, row, col, mid, s, t):
    """x (4, 5, 6) with a row vector (6,), a column (5, 1), a size-1 middle axis (4, 1, 6), a
    scalar () and a transposed view (its kernel input is not contiguous)."""
    return ops.relu(x * row + col) * s - mid + ops.transpose(t, (2, 1, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_broadcasting_inputs_give_numpys_values(dtype):
    shapes = [(4, 5, 6), (6,), (5, 1), (4, 1, 6), (), (6, 5, 4)]
    arrays = [_normal(s, dtype, seed) for seed, s in enumerate(shapes)]
    f = ms.jit(_broadcasts)
    got = f(*[ms.Tensor(a) for a in arrays]).asnumpy()
    x, row, col, mid, s, t = [a.astype(np.float64) for a in arrays]
    want = np.maximum(x * row + col, 0) * s - mid + t.transpose(2, 1, 0)
    np.testing.assert_allclose(got, want, **TOLERANCE[dtype])
    (kernel,) = _kernels(_program(f))
    assert "ops.transpose" in [s.label for s in _program(f).steps]
    assert kernel.fn.kernel is not None and len(kernel.fn.group.nodes) == 6


def _group(shape, input_shapes, reduced_axes=None):
    """A FusedGroup adding its inputs (with broadcasting) over `shape`, for LoopNest."""
    inputs = [Var(s, np.float32) for s in input_shapes]
    out = Var(shape, np.float32)
    node = Node(REGISTRY["add"], inputs, {}, [out])
    return FusedGroup(nodes=[node], inputs=inputs, outputs=[out], shape=shape,
                      float_dtype=np.dtype(np.float32), reduced_axes=reduced_axes)


@pytest.mark.parametrize("shape, inputs, reduced, loops, arg_shapes", [
    ((8, 16), [(8, 16), (8, 16)], None, (128,), [(128,), (128,)]),          # one flat loop
    ((8, 16), [(8, 16), (16,)], None, (8, 16), [(8, 16), (16,)]),           # a row vector
    ((8, 16), [(8, 16), (8, 1)], None, (8, 16), [(8, 16), (8,)]),           # a column
    ((8, 16), [(8, 16), ()], None, (128,), [(128,), ()]),                   # a scalar
    ((2, 3, 4, 5), [(2, 3, 4, 5), (1, 3, 1, 1)], None, (2, 3, 20), [(2, 3, 20), (3,)]),
    ((8, 1, 16), [(8, 1, 16), (16,)], None, (8, 16), [(8, 16), (16,)]),     # size-1 axis
    ((8, 16), [(8, 16), (8, 16)], (1,), (8, 16), [(8, 16), (8, 16)]),       # kept | reduced
    ((2, 3, 4), [(2, 3, 4), (2, 3, 4)], (0, 1), (6, 4), [(6, 4), (6, 4)]),
    ((1, 1), [(1, 1), (1, 1)], None, (1,), [(), ()]),                       # one element
])
def test_loop_nests_merge_axes_that_broadcast_alike(shape, inputs, reduced, loops, arg_shapes):
    group = _group(shape, inputs, reduced)
    nest = numba_cpu.LoopNest(group)
    assert nest.shape == loops
    assert [nest.arg_shape(v) for v in group.inputs] == arg_shapes


# ***** what fuses *****

def _steps(f, *arrays):
    jitted = ms.jit(f)
    jitted(*[ms.Tensor(a) for a in arrays])
    return [s.label for s in _program(jitted).steps]


def test_relu_backward_and_bias_gradient_are_one_kernel():
    def relu_backward(x, dy):
        dx = ops.select(x > 0, dy, ops.zeros_like(dy))
        return dx, dx.sum(axis=0)

    labels = _steps(relu_backward, _normal((8, 16), np.float32), _normal((8, 16), np.float32, 1))
    assert labels == ["fused kernel (3 ops: greater, select, reduce_sum)"]


def _softmax(x):
    e = ops.exp(x - ops.amax(x, -1, True))
    return e / e.sum(axis=-1, keep_dims=True)


def test_softmax_exp_and_its_sum_are_one_kernel_and_the_division_reads_the_sum():
    x = _normal((8, 10), np.float32)
    f = ms.jit(_softmax)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(f(ms.Tensor(x)).asnumpy(), e / e.sum(-1, keepdims=True),
                               rtol=2e-6, atol=1e-7)
    labels = [s.label for s in _program(f).steps]
    assert labels == ["ops.reduce_max", "fused kernel (3 ops: sub, exp, reduce_sum)", "ops.div"]


def test_a_mean_squared_error_is_one_kernel_and_a_division():
    a, b = _normal((8, 16), np.float32), _normal((8, 16), np.float32, 1)
    labels = _steps(lambda a, b: ops.mean(ops.square(a - b)), a, b)
    assert len(labels) == 2 and labels[0].startswith("fused kernel (3 ops: sub,")
    assert labels[0].endswith("reduce_sum)") and labels[1] == "ops.div"


def test_no_node_of_a_group_reads_its_reduction():
    # x - sum(x * 2, keep_dims) has the domain shape but needs the finished sum
    x = Var((1, 4), np.float32)
    two, y, s, z = (Var((), np.float32, const=np.float32(2)), Var((1, 4), np.float32),
                    Var((1, 1), np.float32), Var((1, 4), np.float32))
    graph = Graph("g")
    graph.inputs, graph.outputs = [x], [z]
    graph.nodes = [Node(REGISTRY["mul"], [x, two], {}, [y]),
                   Node(REGISTRY["reduce_sum"], [y], {"axis": (1,), "keep_dims": True}, [s]),
                   Node(REGISTRY["sub"], [y, s], {}, [z])]
    items = partition(graph, fuse_reductions=True)
    assert [type(item) for item in items] == [FusedGroup, Node]
    assert [n.prim.name for n in items[0].nodes] == ["mul", "reduce_sum"]
    assert not any(isinstance(item, FusedGroup) for item in partition(graph))  # not asked to


# ***** epilogues: elementwise nodes after the loops, over the reduced shape *****

def _bias_update(x, dy, b, lr):
    dx = ops.select(x > 0, dy, ops.zeros_like(dy))
    return dx, b - lr * dx.sum(axis=0)


def test_an_sgd_bias_update_is_the_epilogue_of_its_gradients_sum():
    x, dy = _normal((8, 16), np.float32), _normal((8, 16), np.float32, 1)
    b = _normal((16,), np.float32, 2)
    lr = np.float32(0.1)
    f = ms.jit(_bias_update)
    dx, new_b = f(*(ms.Tensor(a) for a in (x, dy, b, lr)))
    want_dx = np.where(x > 0, dy, 0)
    np.testing.assert_array_equal(dx.asnumpy(), want_dx)
    np.testing.assert_allclose(new_b.asnumpy(), b - lr * want_dx.astype(np.float64).sum(0),
                               rtol=2e-6)
    (step,) = _kernels(_program(f))
    group = step.fn.group
    assert [n.prim.name for n in group.nodes] == ["greater", "select", "reduce_sum", "mul", "sub"]
    assert [n.prim.name for n in group.epilogue] == ["mul", "sub"]
    (executable,) = f.cache.values()
    value_of = {v.id: a for v, a in zip(executable.traced.graph.inputs, (x, dy, b, lr))}
    inputs = [value_of[v.id] if v.const is None else v.const for v in group.inputs]
    tier = numba_cpu.GroupStep(group, step.fn.source)  # not compiled: the numpy tier
    for got, want in zip(tier(np, *inputs), step.fn(np, *inputs)):
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


def _row_sums_then(keep_dims, x_shape=(4, 6)):
    """(graph, its partition) of reduce_sum(x * 2, axis 1) + v, v of the sum's shape."""
    sum_shape = (x_shape[0], 1) if keep_dims else (x_shape[0],)
    x, v = Var(x_shape, np.float32), Var(sum_shape, np.float32)
    two, y, total, z = (Var((), np.float32, const=np.float32(2)), Var(x_shape, np.float32),
                        Var(sum_shape, np.float32), Var(sum_shape, np.float32))
    graph = Graph("g")
    graph.inputs, graph.outputs = [x, v], [z]
    graph.nodes = [Node(REGISTRY["mul"], [x, two], {}, [y]),
                   Node(REGISTRY["reduce_sum"], [y], {"axis": (1,), "keep_dims": keep_dims},
                        [total]),
                   Node(REGISTRY["add"], [total, v], {}, [z])]
    return graph, partition(graph, fuse_reductions=True)


def test_an_epilogue_input_must_broadcast_over_the_loops_as_over_the_reduced_shape():
    # a (4,) added to row sums of a (4, 6) would align with the rows' 6 in the loops: it
    # stays out; kept as (4, 1) it lines up, and joins
    _, dropped = _row_sums_then(keep_dims=False)
    assert [type(item) for item in dropped] == [FusedGroup, Node]
    graph, kept = _row_sums_then(keep_dims=True)
    (group,) = kept
    assert [n.prim.name for n in group.epilogue] == ["add"]
    x, v = _normal((4, 6), np.float32), _normal((4, 1), np.float32, 1)
    tier = numba_cpu.GroupStep(group, numba_cpu.render_module(group))
    tier.compile()
    value_of = {graph.inputs[0].id: x, graph.inputs[1].id: v}
    (got,) = tier(np, *[value_of[u.id] if u.const is None else u.const for u in group.inputs])
    np.testing.assert_allclose(got, (x * 2).sum(1, keepdims=True) + v, rtol=2e-6)


# ***** the numpy tier, gradients *****

def test_the_numpy_tier_computes_fused_reductions_too():
    x, b = _normal((8, 16), np.float32), _normal((16,), np.float32, 1)
    f = ms.jit(lambda x, b: _reduced(x + b, (0,), True))
    f(ms.Tensor(x), ms.Tensor(b))
    (step,) = _kernels(_program(f))
    group = step.fn.group
    arrays = iter([x, b])
    inputs = [next(arrays) if v.const is None else v.const for v in group.inputs]
    tier = numba_cpu.GroupStep(group, step.fn.source)  # not compiled: runs numpy
    assert tier.kernel is None and step.fn.kernel is not None
    for got, want in zip(tier(np, *inputs), step.fn(np, *inputs)):
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


def _loss(x, w, b, target):
    """A small regression loss: bias add, relu, softmax over the last axis, mean squared error."""
    h = ops.relu(x * w + b)
    p = _softmax(h)
    return ops.mean(ops.square(p - target)) + ops.amax(h, axis=0).sum() * 0.1


def test_gradients_through_fused_reductions_match_pynative():
    arrays = [_normal((6, 5), np.float32), _normal((5,), np.float32, 1),
              _normal((6, 1), np.float32, 2), _normal((6, 5), np.float32, 3)]
    tensors = [ms.Tensor(a) for a in arrays]
    grad = ms.grad(_loss, grad_position=(0, 1, 2))
    graph = ms.jit(grad)(*tensors)
    eager = grad(*tensors)
    for g, e in zip(graph, eager):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-7)


def test_gradient_of_a_fused_mean_squared_error_is_its_closed_form():
    x, y = _normal((7, 3), np.float64), _normal((7, 3), np.float64, 1)
    w = ms.Tensor(np.float64(1.5))
    grad = ms.jit(ms.grad(lambda x, y, w: ops.mean(ops.square(x * w - y)), grad_position=(0, 2)))
    dx, dw = grad(ms.Tensor(x), ms.Tensor(y), w)
    residual = x * 1.5 - y
    np.testing.assert_allclose(dx.asnumpy(), 2 * residual * 1.5 / x.size, rtol=1e-13)
    np.testing.assert_allclose(dw.asnumpy(), np.sum(2 * residual * x) / x.size, rtol=1e-13)
