"""Tensor-conditioned loops in Graph mode: `while`/`for range()` on tensors become one graph
loop (ops.while_loop, compiler.graph_loop) and compile whole; break/continue become flags; loops
that cannot be converted still run correctly through graph breaks that say why.

Every case runs eagerly and compiled: values and gradients must match PyNative (which
unrolls the Python loop on its tape), and gradients also match finite differences.
"""
import inspect
import logging

import numpy as np
import pytest
from helpers import numeric_grad

import minispore as ms
from minispore import nn, ops
from minispore.compiler.codegen import numba_cpu
from minispore.compiler.loop_spec import LoopCarryError
from minispore.ops.control_flow import while_loop_p


@pytest.fixture(autouse=True)
def _quiet_break_reports():
    logging.getLogger("minispore.fallback").disabled = True
    yield
    logging.getLogger("minispore.fallback").disabled = False


def _t(*values, dtype=np.float32):
    return ms.Tensor(np.array(values, dtype))


def _line(fn, marker):
    """The file line of fn's source line containing `marker`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if marker in line)


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return x.asnumpy() if isinstance(x, ms.Tensor) else np.asarray(x)


def _assert_same(got, want, tol=1e-6):
    got = _np(got) if isinstance(got, tuple) else [_np(got)]
    want = _np(want) if isinstance(want, tuple) else [_np(want)]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def check_compiles_whole(fn, *inputs, wrt=(0,), fullgraph=True):
    """fn compiled with ms.jit: whole (no break; fullgraph=True proves it), values and
    gradients (of the first output's sum, w.r.t. inputs `wrt`) equal to PyNative's."""
    compiled = ms.jit(fn, fullgraph=fullgraph)
    _assert_same(compiled(*inputs), fn(*inputs))
    assert ms.explain(compiled).compiled_whole, str(ms.explain(compiled))

    def loss(f):
        def value(*xs):
            out = f(*xs)
            return (out[0] if isinstance(out, tuple) else out).sum()
        return ms.grad(value, grad_position=wrt)

    _assert_same(loss(compiled)(*inputs), loss(fn)(*inputs))
    # the gradient traced into the graph too: forward, loop and backward in one program
    _assert_same(ms.jit(loss(fn))(*inputs), loss(fn)(*inputs))
    return compiled


def check_finite_differences(fn, *arrays, wrt=0):
    """The compiled gradient of sum(fn(...)) against central differences, in float64."""
    grad = ms.jit(ms.grad(lambda *xs: fn(*xs).sum(), grad_position=wrt))
    got = grad(*(ms.Tensor(a) for a in arrays)).asnumpy()
    want = numeric_grad(lambda arrs: float(fn(*(ms.Tensor(a) for a in arrs)).sum().asnumpy()),
                        arrays, wrt)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


# ***** while loops on tensors *****

def doubling(x):
    while ops.abs(x).sum() < 20:
        x = x * 2
    return x


def damped(x, w):  # x grows towards pi: a few iterations until the sum passes 6
    while x.sum() < 6:
        x = ops.sin(x) * w + x
    return x


def test_while_on_a_tensor_compiles_whole_with_values_and_gradients_of_pynative():
    for x in (_t(1.0, -2.0, 3.0), _t(0.1, 0.2, 0.3), _t(30.0, 1.0, 1.0)):  # 2, 6 and 0 trips
        check_compiles_whole(doubling, x)
    check_compiles_whole(damped, _t(0.5, 1.0, 1.5), _t(0.9, 1.1, 1.3), wrt=(0, 1))


def test_while_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    x, w = rng.uniform(0.5, 1.5, 3), rng.uniform(0.8, 1.4, 3)
    check_finite_differences(damped, x, w, wrt=0)
    check_finite_differences(damped, x, w, wrt=1)  # an invariant: summed over iterations


def test_the_loop_is_one_node_whose_body_is_compiled_once_with_fused_kernels():
    compiled = ms.jit(damped)
    w = _t(0.9, 1.1, 1.3)
    for x in (_t(0.5, 1.0, 1.5), _t(0.01, 0.02, 0.03), _t(3.0, 3.0, 3.0)):  # 2, 6, 0 trips
        _assert_same(compiled(x, w), damped(x, w))
    assert len(compiled.cache) == 1 and not compiled.recompiles  # replayed, never retraced
    steps = next(iter(compiled.cache.values())).program.steps
    loops = [s for s in steps if s.label == "ops.while_loop"]
    assert len(loops) == 1
    spec = loops[0].attrs["loop"]
    assert [n.prim.name for n in spec.body.nodes] == ["sin", "mul", "add"]
    # one program per iteration: the body, fused, then the condition on its result
    kernels = [s for s in spec.program("step").steps if isinstance(s.fn, numba_cpu.GroupStep)]
    assert len(kernels) == 1 and "sin, mul, add" in kernels[0].label


def test_a_zero_trip_loop_returns_its_inputs_and_identity_gradients():
    def shrink(x, n):
        while x.sum() > 100:
            x = x / 2
        for _ in range(n):
            x = x * 3
        return x

    x = _t(1.0, 2.0)
    compiled = check_compiles_whole(shrink, x, ms.Tensor(0))
    _assert_same(compiled(x, ms.Tensor(0)), x)
    _assert_same(ms.grad(lambda v: compiled(v, ms.Tensor(0)).sum())(x), [1.0, 1.0])


def test_loop_values_of_several_dtypes():
    def mixed(x, y):
        k = 0                   # a Python int: carried as Int64 once the loop changes it
        done = x.sum() > 100    # a Bool tensor
        scale = 2               # a Python int the loop never changes: stays Python
        while not done:
            x = x * scale
            y = y + 1.0         # Float64
            k = k + 1
            done = x.sum() > 10
        return x, y, k

    x, y = _t(1.0, 2.0), _t(0.5, dtype=np.float64)
    compiled = check_compiles_whole(mixed, x, y)
    gx, gy, gk = compiled(x, y)
    assert (gx.dtype, gy.dtype, gk.dtype) == (ms.float32, ms.float64, ms.int64)
    assert int(gk.asnumpy()) == mixed(x, y)[2] == 2


def test_while_true_with_a_break_on_a_tensor():
    def until_large(x):
        while True:
            x = x * 2
            if x.sum() > 20:
                break
        return x

    check_compiles_whole(until_large, _t(1.0, 2.0))
    check_compiles_whole(until_large, _t(30.0, 2.0))


# ***** for loops over range(tensor) *****

def powers(x, n):
    total = ops.zeros_like(x)
    for i in range(n):
        total = total + x ** 2 * i
        x = x * 0.5
    return total


def test_for_over_range_of_a_tensor_compiles_whole():
    x = _t(1.0, -2.0, 3.0)
    for n in (0, 1, 4):
        check_compiles_whole(powers, x, ms.Tensor(n))
    # one compiled program serves every trip count
    compiled = ms.jit(powers)
    for n in (2, 7):
        _assert_same(compiled(x, ms.Tensor(n)), powers(x, ms.Tensor(n)))
    assert len(compiled.cache) == 1


def test_for_range_gradients_match_finite_differences():
    arrays = [np.array([0.3, -1.2, 2.0]), np.array(3, np.int64)]
    check_finite_differences(powers, *arrays)


def test_range_with_start_stop_step_and_the_loop_variable_after_the_loop():
    def countdown(x, a, b):
        for i in range(b, a, -2):
            x = x + i * x
        return x, i

    x, a, b = _t(0.5, 1.0), ms.Tensor(1), ms.Tensor(8)
    compiled = check_compiles_whole(countdown, x, a, b)
    assert int(compiled(x, a, b)[1].asnumpy()) == countdown(x, a, b)[1] == 2


def test_range_of_a_float_tensor_is_a_type_error_naming_the_line():
    def bad(x, n):
        for _ in range(n):  # FLOAT RANGE
            x = x + 1
        return x

    with pytest.raises(TypeError, match=f"test_loops.py:{_line(bad, 'FLOAT RANGE')}"):
        ms.jit(bad)(_t(1.0), _t(3.0))


# ***** break and continue on tensor conditions *****

def capped(x, n):
    for _ in range(n):
        if x.max() > 4:
            break
        x = x + 1
    return x


def summed_unless_large(x, n):
    total = ops.zeros_like(x)
    for k in range(n):
        if (x * k).sum() > 8:
            continue
        total = total + x * k
    return total


def test_break_and_continue_on_tensors_compile_whole():
    for x in (_t(1.0, -2.0, 3.0), _t(5.0, 1.0, 1.0), _t(-3.0, -2.0, -1.0)):
        check_compiles_whole(capped, x, ms.Tensor(5))
        check_compiles_whole(summed_unless_large, x, ms.Tensor(4))
    check_finite_differences(summed_unless_large, np.array([0.5, 1.5, 0.25]),
                             np.array(5, np.int64))


def test_break_in_a_while_loop_and_in_a_python_range():
    def search(x):
        k = 0
        while k < 10:
            x = x * 1.5
            if x.sum() > 6:
                break
            k += 1
        return x, k

    def python_range(x):  # range(5): a Python loop until the break flag is a tensor
        for i in range(5):
            if x.max() > 4:
                break
            x = x + i
        return x, i

    def over_a_list(x):  # any iterable: iterations after a tensor break are guarded off
        for scale in [1.0, 2.0, 3.0, 4.0]:
            if x.sum() > 10:
                break
            x = x * scale
        return x, scale

    for x in (_t(1.0, 0.5), _t(5.0, 0.5), _t(0.01, 0.01)):
        check_compiles_whole(search, x)
        check_compiles_whole(python_range, x)
        check_compiles_whole(over_a_list, x)


# ***** nesting *****

def test_a_loop_inside_an_if_and_loops_inside_loops():
    def loop_in_if(x, n):
        if x.sum() > 0:
            for _ in range(n):
                x = x * 1.1
        else:
            x = -x
        return x

    def triangle(x, n):
        total = ops.zeros_like(x)
        for i in range(n):
            j = 0
            while j < i + 1:
                total = total + x * j
                j = j + 1
        return total

    for x in (_t(1.0, 2.0), _t(-1.0, -2.0)):
        check_compiles_whole(loop_in_if, x, ms.Tensor(3))
    check_compiles_whole(triangle, _t(1.0, 2.0), ms.Tensor(4))
    check_finite_differences(triangle, np.array([0.5, -1.0]), np.array(3, np.int64))


# ***** errors and the loops that stay in Python *****

def test_a_body_changing_a_shape_is_an_error_naming_the_line_and_variable():
    def grow(x):
        while x.sum() < 20:  # GROW
            x = ops.concat([x, x])
        return x

    def recast(x):
        while x.sum() < 20:  # RECAST
            x = ops.cast(x * 2, ms.float64)
        return x

    x = _t(1.0, 2.0)
    assert grow(x).shape == (16,)  # PyNative: a Python loop, any shapes
    with pytest.raises(LoopCarryError, match=f"test_loops.py:{_line(grow, 'GROW')}") as info:
        ms.jit(grow)(x)
    assert "'x'" in str(info.value) and "Float32[2]" in str(info.value) \
        and "Float32[4]" in str(info.value)
    with pytest.raises(ValueError, match="Float32.2. to Float64.2."):  # also a TypeError
        ms.jit(recast)(x)


def test_the_loop_primitive_names_an_input_that_does_not_fit_its_loop(mode):
    compiled = ms.jit(damped)
    compiled(_t(0.5, 1.0, 1.5), _t(0.9, 1.1, 1.3))
    step = next(s for s in next(iter(compiled.cache.values())).program.steps
                if s.label == "ops.while_loop")
    run = ms.jit(while_loop_p) if mode == "graph" else while_loop_p
    with pytest.raises(ms.ops.OpError, match=r"while_loop: input 0 \(x\) is Float32\[2\] but "
                                             r"the loop at .*test_loops.py:\d+ was traced for "
                                             r"Float32\[3\]"):
        run(_t(1.0, 2.0), _t(1.0, 2.0, 3.0), **step.attrs)


def test_a_python_number_that_becomes_a_tensor_of_another_shape_is_an_error():
    def accumulate(x):
        acc = 0
        while x.sum() < 10:  # ACC
            x = x * 2
            acc = acc + x
        return acc

    with pytest.raises(LoopCarryError, match=f"test_loops.py:{_line(accumulate, 'ACC')}: 'acc' "
                                             f"starts as a Python number"):
        ms.jit(accumulate)(_t(1.0, 2.0))


def test_a_variable_set_in_one_branch_has_no_value_after_the_if():
    def one_sided(x):
        if x.sum() > 0:
            y = x * 2
        return y

    with pytest.raises(UnboundLocalError, match="'y' is assigned in only one branch"):
        ms.jit(one_sided)(_t(1.0))


def _first_break(compiled):
    report = ms.explain(compiled)
    assert report.breaks, "expected a graph break"
    return report.breaks[0]


def test_a_return_inside_a_loop_breaks_with_the_reason_and_matches_pynative():
    def early(x):
        while x.sum() < 20:  # RETURN LOOP
            x = x * 2
            if x.max() > 7:
                return x - 1
        return x

    compiled = ms.jit(early)
    for x in (_t(1.0, 2.0), _t(1.0, 0.5), _t(30.0, 0.0)):
        _assert_same(compiled(x), early(x))
        _assert_same(ms.grad(lambda v: compiled(v).sum())(x), ms.grad(lambda v: early(v).sum())(x))
    first = _first_break(compiled)
    assert f"test_loops.py:{_line(early, 'RETURN LOOP')}" in first.location
    assert "`while` loop" in first.reason and "`return`" in first.reason and first.hint
    with pytest.raises(ms.fallback.GraphBreakError, match="`return`"):
        ms.jit(early, fullgraph=True)(_t(1.0, 2.0))


def test_a_host_read_in_the_body_keeps_the_loop_in_python_and_says_why():
    def host_read(x):
        while x.sum() < 20:  # HOST LOOP
            x = x * float(x.max())
        return x

    compiled = ms.jit(host_read)
    _assert_same(compiled(_t(1.0, 2.0)), host_read(_t(1.0, 2.0)))
    first = _first_break(compiled)
    assert f"test_loops.py:{_line(host_read, 'HOST LOOP')}" in first.location
    assert "float(tensor)" in first.reason


def test_state_writes_in_the_body_run_every_iteration_as_in_pynative():
    class Counter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.count = ms.Parameter(_t(0.0), name="count")

        def construct(self, x):
            while x.sum() < 20:
                x = x * 2
                ops.assign_add(self.count, _t(1.0))
            return x

    eager = Counter()
    want = eager(_t(1.0, 2.0))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Counter()
        _assert_same(net(_t(1.0, 2.0)), want)
        assert "effects" in ms.explain(net).breaks[0].reason
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _assert_same(net.count, eager.count)
    assert float(net.count.asnumpy()[0]) == 3.0


def test_python_side_effects_keep_the_loop_in_python():
    def collect(x):
        seen = []
        while x.sum() < 20:
            x = x * 2
            seen.append(1)
        return x * len(seen)

    compiled = ms.jit(collect)
    _assert_same(compiled(_t(1.0, 2.0)), collect(_t(1.0, 2.0)))
    assert "seen.append()" in _first_break(compiled).reason


# ***** Cells, Parameters, ms.jit in GRAPH_MODE *****

class Decay(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([0.9, 0.8, 0.7])), name="w")
        self.b = ms.Parameter(ms.Tensor(np.array([0.1, 0.2, 0.3])), name="b")

    def construct(self, x, n):
        for _ in range(n):
            x = ops.tanh(x * self.w + self.b)
        return x.sum()


def test_a_cell_in_graph_mode_compiles_a_loop_whole_with_parameter_gradients():
    x, n = ms.Tensor(np.array([0.5, -1.0, 2.0])), ms.Tensor(4)
    eager = Decay()
    want_loss = eager(x, n)
    want = ms.grad(eager, None, eager.trainable_params())(x, n)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Decay()
        _assert_same(net(x, n), want_loss, tol=1e-12)
        assert ms.explain(net).compiled_whole
        got = ms.grad(net, None, net.trainable_params())(x, n)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-12, atol=1e-12)

    # against finite differences of the loss in the weights
    def loss_at(arrays):
        probe = Decay()
        probe.w.set_data(ms.Tensor(arrays[0]))
        probe.b.set_data(ms.Tensor(arrays[1]))
        return float(probe(x, n).asnumpy())

    arrays = [net.w.asnumpy(), net.b.asnumpy()]
    for k in range(2):
        np.testing.assert_allclose(got[k].asnumpy(), numeric_grad(loss_at, arrays, k),
                                   rtol=1e-6, atol=1e-9)


def test_a_training_step_with_a_loop_compiles_into_one_graph():
    def make():
        net = Decay()
        opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
        grad_fn = ms.value_and_grad(net, None, opt.parameters)

        def step(x, n):
            loss, grads = grad_fn(x, n)
            opt(grads)
            return loss
        return net, step

    x, n = ms.Tensor(np.array([0.5, -1.0, 2.0])), ms.Tensor(3)
    eager_net, eager_step = make()
    net, step = make()
    compiled = ms.jit(step, fullgraph=True)
    for _ in range(3):
        _assert_same(compiled(x, n), eager_step(x, n), tol=1e-12)
    _assert_same(net.w, eager_net.w, tol=1e-12)
    assert ms.explain(compiled).compiled_whole


# ***** the functional API: ops.while_loop *****

def test_ops_while_loop_in_both_modes(mode):
    def halve(x):
        return ops.while_loop(lambda v: v.sum() > 1, lambda v: v / 2, x)

    def run(x):
        return ms.jit(halve)(x) if mode == "graph" else halve(x)

    _assert_same(run(_t(3.0, 5.0)), [0.375, 0.625])
    _assert_same(ms.grad(lambda v: run(v).sum())(_t(3.0, 5.0)), [0.125, 0.125])
    # a tuple of values, with a Python number
    out = ops.WhileLoop()(lambda v: v[0] < 5, lambda v: (v[0] + 1, v[1] * 2), (0, _t(1.0)))
    assert out[0] == 5 and float(out[1].asnumpy()[0]) == 32.0


def test_vmap_runs_every_lane_until_its_own_condition_is_false():
    def halve(x):
        return ops.while_loop(lambda v: v.sum() > 1, lambda v: v / 2, x)

    xs = _t([3.0, 5.0], [0.2, 0.3], [40.0, 1.0])
    want = np.stack([halve(x).asnumpy() for x in xs])
    _assert_same(ms.vmap(halve)(xs), want)
    _assert_same(ms.jit(ms.vmap(halve))(xs), want)
    grads = ms.grad(lambda v: ms.vmap(halve)(v).sum())(xs)
    want_grads = np.stack([ms.grad(lambda v: halve(v).sum())(x).asnumpy() for x in xs])
    _assert_same(grads, want_grads)

    def scaled(x, w):  # w: an invariant shared by every lane, its gradient one per lane
        return ops.while_loop(lambda v: v.sum() < 5, lambda v: v * w, x).sum()

    w = _t(1.5, 2.0)
    per_lane = ms.jit(ms.vmap(ms.grad(scaled, grad_position=(0, 1)), in_axes=(0, None)))(xs, w)
    for k, x in enumerate(xs):
        for got, want in zip(per_lane, ms.grad(scaled, grad_position=(0, 1))(x, w)):
            _assert_same(got[k], want)


def test_second_order_gradients_through_a_graph_loop_are_a_clear_error():
    def cube_until(x):
        return ops.while_loop(lambda v: v.sum() < 10, lambda v: v * v * v, x).sum()

    with pytest.raises(ms.ops.OpError, match="second-order"):
        ms.jit(lambda v: ms.grad(ms.grad(cube_until))(v))(_t(1.5))
    # outside a graph, PyNative unrolls the Python loop, so higher orders work
    assert float(ms.grad(ms.grad(cube_until))(_t(1.5)).asnumpy()[0]) > 0
