"""float16 and bfloat16 in fused CPU kernels: half values are read and written as their bits
and computed in float32, each half node's result rounded as numpy rounds it, so Graph mode
gives PyNative's numbers bit for bit; casts fuse into the kernels around them, half products
run as float32 GEMMs between fused conversions, half sums accumulate in float32."""
import numpy as np
import pytest

import minispore as ms
from minispore import ops

HALVES = [pytest.param(ms.float16, id="float16"), pytest.param(ms.bfloat16, id="bfloat16")]


def _both_modes(fn, *args):
    """(Graph-mode outputs, PyNative outputs, the compiled program) of fn on args."""
    compiled = ms.jit(fn)
    graph = compiled(*args)
    ms.set_context(jit_enable=False)
    try:
        eager = fn(*args)
    finally:
        ms.set_context(jit_enable=True)
    return graph, eager, next(iter(compiled.cache.values())).program


def _assert_same(graph, eager):
    for g, e in zip(graph, eager):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g.asnumpy().astype(np.float32),
                                      e.asnumpy().astype(np.float32))


@pytest.mark.parametrize("half", HALVES)
def test_a_half_chain_with_its_casts_is_one_kernel_with_pynative_bits(half):
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal(4096).astype(np.float32))
    w = ms.Tensor(rng.standard_normal(4096).astype(np.float32))

    def chain(x, w):
        h = ops.cast(x, half)
        y = ops.relu(h * ops.cast(w, half) + 1.5)
        return ops.cast(ops.exp(y * 0.1) - y, ms.float32), y

    graph, eager, program = _both_modes(chain, x, w)
    _assert_same(graph, eager)
    assert [s.label.split(" (")[0] for s in program.steps] == ["fused kernel"]
    assert all(s.fn.kernel is not None for s in program.steps)  # compiled, not numpy's tier


@pytest.mark.parametrize("half", HALVES)
def test_conversions_round_to_nearest_even_and_keep_specials(half):
    values = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 65504.0, 65520.0, 1e6,
                       1e-7, 6e-8, 2.0 ** -24 * 1.5, 1.00048828125, 1.000732421875,
                       1.00390625, 1.005859375, 3.4e38, -1.17e-38], np.float32)
    x = ms.Tensor(values)
    graph, eager, _ = _both_modes(lambda x: (ops.cast(ops.cast(x, half) * 1.0, ms.float32),), x)
    want = values.astype(half.np).astype(np.float32)
    np.testing.assert_array_equal(graph[0].asnumpy(), want)
    np.testing.assert_array_equal(eager[0].asnumpy(), want)
    np.testing.assert_array_equal(np.signbit(graph[0].asnumpy()), np.signbit(want))


@pytest.mark.parametrize("half", HALVES)
def test_half_products_and_sums_match_pynative(half):
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal((64, 32)).astype(np.float32))
    w = ms.Tensor(rng.standard_normal((32, 48)).astype(np.float32))

    def layer(x, w):
        y = ops.relu(ops.matmul(ops.cast(x, half), ops.cast(w, half)) + 1.5)
        s = ops.sum(y, 0)
        return ops.cast(s * 2, ms.float32), s, y

    graph, eager, program = _both_modes(layer, x, w)
    _assert_same(graph, eager)
    product = [s for s in program.steps if s.label == "ops.matmul"]
    assert [v.dtype for v in product[0].nodes[0].inputs] == [np.float32, np.float32]
    assert "reduce_sum" in next(s.label for s in program.steps if "relu" in s.label)
    # the sum accumulates in float32 in both modes: 64 values ~1e2 in float16 steps would not
    ref = layer(x, w)[2].asnumpy().astype(np.float64).sum(0)
    np.testing.assert_allclose(eager[1].asnumpy().astype(np.float64), ref, rtol=2 ** -7)
