"""JIT fallback matrix: Python constructs run in Graph mode exactly as in PyNative.

Each case is a function of tensors. It runs eagerly and through ms.jit; values must match,
gradients (where the output is a float tensor) must match, and `ms.explain` must say whether
the function compiled whole or where it broke: BREAKS gives the source line of each case's
expected first break (a line in this file containing the marker text).
"""
import contextlib
import math

import numpy as np
import pytest
import scipy.special

import minispore as ms
from minispore import nn, ops

SCALE = 3.0  # a global the traces read


def _t(*values):
    return ms.Tensor(np.array(values, np.float32))


def helper_square(v):
    return v * v


def recursive_power(x, n):
    return x if n == 1 else x * recursive_power(x, n - 1)


# ***** constructs that compile whole *****

def c_numpy_constant(x):
    return x + ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))


def c_math_on_constants(x):
    return x * math.sqrt(4.0) + math.pi


def c_len_and_range(x):
    for i in range(len(x.shape)):
        x = x + i
    return x


def c_isinstance(x):
    return x * 2 if isinstance(x, ms.Tensor) else x


def c_enumerate_zip(x):
    parts = [x, x * 2]
    total = ops.zeros_like(x)
    for i, (a, b) in enumerate(zip(parts, reversed(parts))):
        total = total + a * b * (i + 1)
    return total


def c_comprehension(x):
    return sum(x ** k for k in [1, 2, 3])


def c_dict(x):
    d = {"a": x, "b": x * 3}
    return d["a"] + d["b"]


def c_closure(x):
    factor = 1.5

    def scale(v):
        return v * factor
    return scale(x)


def c_nested_function(x):
    return helper_square(x) + 1


def c_recursion(x):
    return recursive_power(x, 3)


def c_third_party_constant(x):
    return x * float(scipy.special.gamma(4.0))


def c_args_kwargs(x):
    def f(*args, **kwargs):
        return args[0] * kwargs["k"] + args[1]
    return f(x, x, k=2.0)


def c_global_read(x):
    return x * SCALE


def c_fstring(x):
    name = f"layer_{len(x.shape)}"
    return x * len(name)


def c_try_except(x):
    try:
        scale = {"a": 2.0}["b"]
    except KeyError:
        scale = 3.0
    return x * scale


def c_with(x):
    with contextlib.nullcontext():
        y = x + 1
    return y


def c_generator(x):
    def gen():
        for k in range(3):
            yield x * k
    return sum(gen())


def c_tensor_if(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def c_tensor_if_elif(x):
    s = x.sum()
    if s > 5:
        y = x * 3
    elif s > 0:
        y = x * 2
    else:
        y = -x
    return y


def c_python_if(x):
    if x.shape[0] > 2:
        return x * 2
    return x


def c_where(x):
    return ops.where(x > 0, x, x * 0.1)


def c_python_early_return(x):
    for k in range(5):
        x = x + 1
        if k == 2:
            return x
    return x


def c_python_break_continue(x):
    for k in range(6):
        if k == 1:
            continue
        if k == 4:
            break
        x = x * 1.5
    return x


def c_unpacking(x):
    a, *rest = (x, x * 2, x * 3)
    return a + rest[0] + rest[1]


def c_lambda(x):
    f = lambda v: ops.tanh(v) * 2  # noqa: E731
    return f(x)


def c_python_while(x):
    k = 0
    while k < 3:
        x = x + k
        k += 1
    return x


def c_print(x):
    print("value:", x)  # prints at run time, inside the graph
    return x + 1


def c_tensor_if_nested_in_loop(x):
    for _ in range(2):
        if x.mean() > 0:
            x = x * 0.5
        else:
            x = x + 1
    return x


# ***** constructs that break (marker comments give the expected line) *****

def b_float(x):
    s = float(x.sum())  # BREAK
    return x * s


def b_asnumpy(x):
    a = x.asnumpy()  # BREAK
    return ms.Tensor(a * 2) + x


def b_np_asarray(x):
    a = np.asarray(x)  # BREAK
    return x + float(a.max())


def b_tolist(x):
    values = x.tolist()  # BREAK
    return x * len([v for v in values if v > 0])


def b_item(x):
    first = x[0].item()  # BREAK
    return x + first


def b_python_index(x):
    table = [1.0, 2.0, 3.0, 4.0]
    k = int(x.sum() > 0)  # BREAK
    return x * table[k]


def c_tensor_while(x):  # a graph while loop
    while ops.abs(x).sum() < 20:
        x = x * 2
    return x


def b_tensor_range(x):
    n = ms.Tensor(3, ms.int64)
    for _ in range(int(n + (x.sum() > 100))):  # BREAK
        x = x + 1
    return x


def b_return_in_tensor_loop(x):
    for _ in range(5):
        x = x * 1.5
        if x.sum() > 10:  # BREAK
            return x
    return x


def c_break_on_tensor(x):  # a break flag; the rest of the loop a graph loop
    for _ in range(5):
        if x.max() > 4:
            break
        x = x + 1
    return x


def c_continue_on_tensor(x):  # a continue flag guarding the rest of the body
    total = ops.zeros_like(x)
    for k in range(4):
        if (x * k).sum() > 8:
            continue
        total = total + x * k
    return total


def b_if_with_return(x):
    if x.sum() > 0:  # BREAK
        return x * 2
    return x - 1


def b_bool_mask(x):
    return x[x > 0].sum() + x  # BREAK


def b_list_append(x):
    LOG.append(1)  # BREAK
    return x * 2


LOG = []

WHOLE = [c_numpy_constant, c_math_on_constants, c_len_and_range, c_isinstance, c_enumerate_zip,
         c_comprehension, c_dict, c_closure, c_nested_function, c_recursion,
         c_third_party_constant, c_args_kwargs, c_global_read, c_fstring, c_try_except, c_with,
         c_generator, c_tensor_if, c_tensor_if_elif, c_python_if, c_where,
         c_python_early_return, c_python_break_continue, c_unpacking, c_lambda, c_python_while,
         c_print, c_tensor_if_nested_in_loop, c_tensor_while, c_break_on_tensor,
         c_continue_on_tensor]
BREAKS = [b_float, b_asnumpy, b_np_asarray, b_tolist, b_item, b_python_index, b_tensor_range,
          b_return_in_tensor_loop, b_if_with_return, b_bool_mask, b_list_append]
INPUTS = [_t(1.0, -2.0, 3.0), _t(-1.0, -2.0, -0.5), _t(2.0, 0.5, 4.0)]


def _break_line(fn):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if "# BREAK" in line:
            return first + k
    raise AssertionError(f"{fn.__name__} has no BREAK marker")


def _values(fn, x):
    out = fn(x)
    return out.asnumpy()


def _check_same(fn, compiled):
    for x in INPUTS:  # several inputs: a branch decided by a value must not replay wrongly
        np.testing.assert_allclose(_values(compiled, x), _values(fn, x), rtol=1e-6, atol=1e-6)
        g_eager = ms.grad(lambda v: fn(v).sum())(x)
        g_graph = ms.grad(lambda v: compiled(v).sum())(x)
        np.testing.assert_allclose(g_graph.asnumpy(), g_eager.asnumpy(), rtol=1e-6, atol=1e-6)


def test_the_matrix_has_at_least_forty_constructs():
    assert len(WHOLE) + len(BREAKS) >= 40


@pytest.mark.parametrize("fn", WHOLE, ids=lambda f: f.__name__)
def test_compiles_whole_and_matches_pynative(fn):
    compiled = ms.jit(fn)
    _check_same(fn, compiled)
    report = ms.explain(compiled)
    assert report.compiled_whole, str(report)


@pytest.mark.parametrize("fn", BREAKS, ids=lambda f: f.__name__)
def test_breaks_where_expected_and_matches_pynative(fn):
    compiled = ms.jit(fn)
    _check_same(fn, compiled)
    report = ms.explain(compiled)
    assert report.breaks, f"{fn.__name__} was expected to break"
    first = report.breaks[0]
    assert f"test_constructs.py:{_break_line(fn)}" in first.location, str(report)
    assert first.hint


def test_a_side_effect_runs_on_every_call():
    LOG.clear()
    compiled = ms.jit(b_list_append)
    for _ in range(3):
        compiled(INPUTS[0])
    assert len(LOG) == 3


def test_print_prints_runtime_values_on_every_call(capsys):
    compiled = ms.jit(c_print)
    compiled(_t(1.0, 2.0))
    compiled(_t(5.0, 6.0))
    out = capsys.readouterr().out.splitlines()
    assert out == ["value: [1. 2.]", "value: [5. 6.]"]


def test_cell_attribute_write_runs_on_every_call():
    class Counter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def construct(self, x):
            self.calls += 1
            return x * 2

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Counter()
        for _ in range(3):
            np.testing.assert_allclose(net(INPUTS[0]).asnumpy(), INPUTS[0].asnumpy() * 2)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert net.calls == 3


def test_tensor_if_in_a_graph_mode_cell_compiles_whole():
    class Gate(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(_t(2.0, 3.0, 4.0), name="w")

        def construct(self, x):
            if x.sum() > 0:
                y = x * self.w
            else:
                y = x
            return y

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Gate()
        for x in INPUTS:
            want = x.asnumpy() * net.w.asnumpy() if x.asnumpy().sum() > 0 else x.asnumpy()
            np.testing.assert_allclose(net(x).asnumpy(), want)
        assert ms.explain(net).compiled_whole
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_fullgraph_raises_at_the_first_break_with_the_report():
    compiled = ms.jit(b_float, fullgraph=True)
    with pytest.raises(ms.fallback.GraphBreakError, match=f"test_constructs.py:{_break_line(b_float)}"):
        compiled(INPUTS[0])


def test_strict_syntax_level_raises():
    ms.set_context(jit_syntax_level=ms.STRICT)
    try:
        with pytest.raises(ms.fallback.GraphBreakError, match="float"):
            ms.jit(b_float)(INPUTS[0])
    finally:
        ms.set_context(jit_syntax_level=ms.LAX)


def test_branches_of_different_shapes_name_the_if_line():
    def mismatch(x):
        if x.sum() > 0:
            y = x
        else:
            y = x[:2]
        return y

    with pytest.raises(TypeError, match="different types") as info:
        ms.jit(mismatch)(INPUTS[0])
    assert "test_constructs.py" in str(info.value)


def test_jit_enable_false_runs_python_eagerly():
    seen = []

    @ms.jit
    def f(x):
        seen.append(type(x._data).__name__)
        return x + 1

    ms.set_context(jit_enable=False)
    try:
        f(INPUTS[0])
    finally:
        ms.set_context(jit_enable=True)
    assert seen == ["ndarray"]  # a concrete value: a debugger can step through
