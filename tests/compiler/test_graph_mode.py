"""Graph mode: the compile pipeline, its cache and guards, state, dumps, errors."""
import logging
import os

import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops
from minispore.compiler.codegen import numba_cpu
from minispore.context import cache_dir


def _t(*values):
    return ms.Tensor(np.array(values, np.float32))


def _chain(x):
    return ops.tanh(x * 0.5 + 0.1) * ops.sigmoid(x) + ops.exp(-x * x)


def test_a_jitted_chain_is_one_fused_kernel_and_matches_pynative():
    f = ms.jit(_chain)
    x = ms.Tensor(np.linspace(-3, 3, 1000).astype(np.float32))
    np.testing.assert_allclose(f(x).asnumpy(), _chain(x).asnumpy(), rtol=2e-6, atol=1e-6)
    steps = list(f.cache.values())[0].program.steps
    assert len(steps) == 1 and isinstance(steps[0].fn, numba_cpu.GroupStep)
    assert steps[0].fn.kernel is not None  # compiled (tests compile synchronously)


def test_kernels_do_not_specialise_on_sizes():
    f = ms.jit(_chain)
    f(ms.Tensor(np.ones(7, np.float32)))
    f(ms.Tensor(np.ones(300, np.float32)))
    kernels = {id(exe.program.steps[0].fn.kernel) for exe in f.cache.values()}
    assert len(f.cache) == 2 and len(kernels) == 1


def test_identical_layers_share_one_kernel():
    net = nn.SequentialCell([nn.Dense(8, 8, activation="tanh") for _ in range(4)])
    f = ms.jit(lambda x: net(x) * 2 - 1)
    f(ms.Tensor(np.ones((3, 8), np.float32)))
    groups = [s.fn for s in list(f.cache.values())[0].program.steps
              if isinstance(s.fn, numba_cpu.GroupStep)]
    assert len(groups) >= 4
    assert len({g.source for g in groups}) < len(groups)
    assert len({id(g.kernel) for g in groups}) == len({g.source for g in groups})


def test_kernel_source_is_written_to_the_cache_dir():
    ms.jit(lambda x: ops.exp(x) * 3 + 1)(_t(1.0, 2.0))
    kernels = os.listdir(os.path.join(cache_dir.path(), "kernels"))
    assert any(name.endswith(".py") for name in kernels)


def test_changed_cell_attribute_recompiles_instead_of_replaying(caplog):
    class Scale(nn.Cell):
        def __init__(self):
            super().__init__()
            self.factor = 2.0

        def construct(self, x):
            return x * self.factor

    net = Scale()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        assert net(_t(1.0)).asnumpy().tolist() == [2.0]
        net.factor = 5.0
        with caplog.at_level(logging.DEBUG, logger="minispore.jit"):
            assert net(_t(1.0)).asnumpy().tolist() == [5.0]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert "recompiling" in caplog.text and "Cell attributes" in caplog.text


def test_changed_global_recompiles():
    global OFFSET
    OFFSET = 1.0
    f = ms.jit(lambda x: x + OFFSET)
    assert f(_t(1.0)).asnumpy().tolist() == [2.0]
    OFFSET = 10.0
    assert f(_t(1.0)).asnumpy().tolist() == [11.0]
    assert ms.explain(f).recompiles


def test_recompile_limit_warns_and_keeps_serving(caplog, monkeypatch):
    from minispore.graph_mode import jit_function as jit_module
    monkeypatch.setattr(jit_module, "RECOMPILE_LIMIT", 3)
    f = ms.jit(lambda x: x * 2)
    with caplog.at_level(logging.WARNING, logger="minispore.jit"):
        for n in range(1, 6):
            assert f(ms.Tensor(np.ones(n, np.float32))).shape == (n,)
    assert "compiled 3 times" in caplog.text
    assert len(f.cache) == 5


def test_parameters_are_inputs_and_updates_are_written_back():
    w = ms.Parameter(_t(1.0, 2.0), name="w")

    @ms.jit
    def step(x):
        ops.assign(w, w - x)
        return w * 10

    out = step(_t(0.5, 0.5))
    assert w.asnumpy().tolist() == [0.5, 1.5]
    assert out.asnumpy().tolist() == [5.0, 15.0]
    step(_t(0.5, 0.5))  # replayed: reads the new value
    assert w.asnumpy().tolist() == [0.0, 1.0]


def test_a_failing_run_writes_back_nothing():
    w = ms.Parameter(_t(1.0, 2.0), name="w")

    @ms.jit
    def step(x, y):
        ops.assign(w, w + 1)
        return ops.matmul(x, y)   # fails at run time for mismatched shapes

    good = ms.Tensor(np.ones((2, 2), np.float32))
    step(good, good)
    assert w.asnumpy().tolist() == [2.0, 3.0]
    with pytest.raises(Exception):
        step(good, ms.Tensor(np.ones((3, 2), np.float32)))
    assert w.asnumpy().tolist() == [2.0, 3.0]


def test_trace_time_errors_name_the_op_and_the_user_line():
    def bad(x, y):
        return ops.matmul(x, y)

    with pytest.raises(ms.ops.OpShapeError) as info:
        ms.jit(bad)(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((2, 3), np.float32)))
    message = str(info.value)
    assert "ops.matmul" in message and "Float32[2, 3]" in message
    assert "test_graph_mode.py" in message and "return ops.matmul(x, y)" in message


def test_save_graphs_dumps_ir_dot_and_kernels(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        ms.jit(lambda x: ops.tanh(x) * 2 + 1)(_t(1.0, 2.0))
    finally:
        ms.set_context(save_graphs=False)
    names = os.listdir(tmp_path)
    for suffix in ("_before.ir", "_before.dot", "_after.ir", "_after.dot", "_after_kernels.py"):
        assert any(n.endswith(suffix) for n in names), (suffix, names)
    ir = open(tmp_path / next(n for n in names if n.endswith("_before.ir"))).read()
    assert "tanh(" in ir and "test_graph_mode.py" in ir
    dot = open(tmp_path / next(n for n in names if n.endswith("_after.dot"))).read()
    assert dot.startswith("digraph")


def test_passes_fold_cse_and_dce():
    from minispore.compiler import passes
    from minispore.compiler.trace import trace

    def f(x):
        unused = ops.exp(x)  # noqa: F841  (dead)
        a = ops.sin(x) * (np.float32(2) + np.float32(3))   # constant folded at trace time
        b = ops.sin(x) * 5                                  # the same value: CSE
        return a + b + 0

    graph = passes.optimize(trace(f, (_t(1.0, 2.0),), {}, "f").graph)
    names = [n.prim.name for n in graph.nodes]
    assert names.count("sin") == 1 and "exp" not in names
    assert names.count("mul") == 1 and "add" in names


def test_mixed_mode_gradients_match_pynative():
    w = ms.Parameter(_t(0.5, -1.0), name="w")

    def f(x):
        return (ops.tanh(x * w) * x).sum()

    compiled = ms.jit(f)
    x = _t(0.3, 0.7)
    eager = ms.value_and_grad(f, 0, [w])(x)
    mixed = ms.value_and_grad(lambda v: compiled(v) * 1.0, 0, [w])(x)
    np.testing.assert_allclose(mixed[0].asnumpy(), eager[0].asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(mixed[1][0].asnumpy(), eager[1][0].asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(mixed[1][1][0].asnumpy(), eager[1][1][0].asnumpy(), rtol=1e-6)


def test_graph_mode_train_one_step_cell_is_one_executable():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        ms.set_seed(0)
        net = nn.Dense(4, 2)
        trainer = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                      nn.SGD(net.trainable_params(), 0.1))
        x, y = ms.Tensor(np.ones((3, 4), np.float32)), ms.Tensor(np.zeros((3, 2), np.float32))
        losses = [float(trainer(x, y)) for _ in range(5)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert losses[-1] < losses[0]
    jitted = trainer.__dict__["_graph_jit"]
    assert len(jitted.cache) == 1 and ms.explain(trainer).compiled_whole


def test_cache_clear_removes_kernels():
    ms.jit(lambda x: ops.exp(x) * 7 + 3)(_t(1.0))
    numba_cpu.COMPILER.wait()
    assert os.path.isdir(cache_dir.path())
    cache_dir.clear()
    assert not os.path.exists(os.path.join(cache_dir.path(), "kernels"))


def test_mutable_numbers_share_one_compiled_program():
    f = ms.jit(lambda x, scale: x * scale)
    for value in (1.0, 2.0, 3.0):
        assert f(_t(2.0), ms.mutable(value)).asnumpy().tolist() == [2.0 * value]
    assert len(f.cache) == 1
    for value in (1.0, 2.0):  # plain numbers are constants: one program each
        f(_t(2.0), value)
    assert len(f.cache) == 3
    assert ms.mutable((1, [2.0]))[1][0].dtype == ms.float32
