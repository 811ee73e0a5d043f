"""Powers by constant exponents (x ** 2, x ** 3, x ** 0.5, x ** -1...) are products, a
reciprocal and sqrt in both modes: the simplification pass rewrites the graph's pow nodes, the
numba template renders a pow it leaves the same way, and PyNative's impl computes the same bits
(ops.elementwise.POWER_RECIPES). A powf call is a scalar libm call that stops vectorisation."""
import re

import numpy as np
import pytest

import minispore as ms
from minispore import ops
from minispore.compiler import passes
from minispore.compiler.codegen import numba_cpu
from minispore.compiler.fuse import partition
from minispore.compiler.trace import trace
from minispore.core.ir import Graph, Node, Var
from minispore.ops.primitive import REGISTRY

EXPONENTS = (1.0, 2.0, 3.0, 4.0, -1.0, -2.0, 0.5, -0.5)


def _powers(x):
    total = x ** 2.5  # not in the table: stays a pow
    for e in EXPONENTS:
        total = total + ops.pow(x, e)
    return total


def _powers_numpy(x):
    return x ** 2.5 + sum(np.power(x, e) for e in EXPONENTS)


def _body(source):
    """The kernel's computing lines (`t3 = ...`; the math preamble has powers of its own)."""
    return [line for line in source.splitlines() if re.match(r"\s+t\d+ = ", line)]


def _positive(shape, dtype, seed=0):
    return (np.random.default_rng(seed).random(shape) + 0.5).astype(dtype)


def test_the_pass_leaves_no_pow_for_table_exponents():
    x = _positive((3, 4), np.float32)
    graph = passes.optimize(trace(_powers, (ms.Tensor(x),), {}, "powers").graph)
    pows = [n for n in graph.nodes if n.prim.name == "pow"]
    assert len(pows) == 1 and float(pows[0].inputs[1].const) == 2.5
    assert {"mul", "div", "sqrt"} <= {n.prim.name for n in graph.nodes}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_powers_in_graph_mode_match_pynative_and_numpy(dtype):
    x = _positive((64, 33), dtype)
    f = ms.jit(_powers)
    got = f(ms.Tensor(x)).asnumpy()
    eager = _powers(ms.Tensor(x)).asnumpy()
    want = _powers_numpy(x.astype(np.float64))
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got, want, rtol=rtol)
    np.testing.assert_allclose(eager, want, rtol=rtol)
    (executable,) = f.cache.values()
    sources = [s.fn.source for s in executable.program.steps
               if isinstance(s.fn, numba_cpu.GroupStep)]
    powers = [line for src in sources for line in _body(src) if "**" in line]
    assert len(powers) == 1 and "c" in powers[0]  # x ** 2.5 only


def test_pynative_powers_are_exact_products():
    x = _positive((1000,), np.float32)
    t = ms.Tensor(x)
    np.testing.assert_array_equal((t ** 2).asnumpy(), x * x)
    np.testing.assert_array_equal((t ** 3).asnumpy(), x * x * x)
    np.testing.assert_array_equal(ops.pow(t, 0.5).asnumpy(), np.sqrt(x))
    np.testing.assert_array_equal((t ** -1).asnumpy(), 1 / x)
    one = ops.pow(t, 1.0)
    assert one.asnumpy() is not x and one.dtype == ms.float32
    np.testing.assert_array_equal(one.asnumpy(), x)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_gradients_of_powers_are_their_closed_forms(mode):
    x = _positive((5, 7), np.float64)
    grad = ms.grad(lambda t: ops.sum(_powers(t)))
    if mode == "graph":
        grad = ms.jit(grad)
    got = grad(ms.Tensor(x)).asnumpy()
    want = 2.5 * x ** 1.5 + sum(e * x ** (e - 1) for e in EXPONENTS)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_the_numba_template_renders_a_pow_the_pass_left_as_products():
    # built by hand, no passes: the template alone must avoid powf
    x, three, y = Var((6, 5), np.float32), Var((), np.float32, const=np.float32(3)), \
        Var((6, 5), np.float32)
    half, z = Var((), np.float32, const=np.float32(-0.5)), Var((6, 5), np.float32)
    graph = Graph("g")
    graph.inputs, graph.outputs = [x], [z]
    graph.nodes = [Node(REGISTRY["pow"], [x, three], {}, [y]),
                   Node(REGISTRY["pow"], [y, half], {}, [z])]
    (group,) = partition(graph, fuse_reductions=True)
    source = numba_cpu.render_module(group)
    assert not [line for line in _body(source) if "**" in line]
    step = numba_cpu.GroupStep(group, source)
    step.compile()
    a = _positive((6, 5), np.float32)
    (got,) = step(np, *[a if u.const is None else u.const for u in group.inputs])
    np.testing.assert_allclose(got, 1 / np.sqrt(a.astype(np.float64) ** 3), rtol=2e-6)
