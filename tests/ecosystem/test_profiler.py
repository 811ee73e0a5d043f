"""ms.Profiler: eager ops and compiled steps timed, with the user's line, as a Perfetto trace."""
import json

import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops
from minispore.context import interpreter, profiling
from minispore.core.eager import EAGER

X = ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))


def small_net():
    ms.set_seed(0)
    return nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2)])


def test_eager_ops_are_recorded_with_their_shapes_and_the_users_line(tmp_path):
    net = small_net()
    with ms.Profiler(output_path=str(tmp_path)) as prof:
        out = ops.exp(X) * 2.0                                      # the line events name
        net(X)
    np.testing.assert_allclose(out.asnumpy(), np.exp(X.asnumpy()) * 2.0, rtol=1e-6)
    first, second = prof.events[:2]
    assert (first.name, first.category, first.shapes) == ("exp", "op", "(3, 4)")
    assert second.name == "mul"
    assert first.source.endswith("out = ops.exp(X) * 2.0                                      "
                                 "# the line events name") and __file__ in first.source
    assert {e.name for e in prof.events} >= {"matmul", "relu"}
    assert all(e.duration_ns >= 0 for e in prof.events)


def test_compiled_steps_are_recorded_inside_their_program_run(tmp_path):
    net = small_net()

    @ms.jit
    def step(x):
        return ops.tanh(net(x) * 2.0 + 1.0).sum()

    expected = step(X)
    step(X)  # compiled and loaded before recording (the first calls may run through numpy)
    with ms.Profiler(output_path=str(tmp_path)) as prof:
        value = step(X)
    assert float(value) == pytest.approx(float(expected), rel=1e-6)
    runs = [e for e in prof.events if e.category == "graph"]
    kernels = [e for e in prof.events if e.category == "kernel"]
    assert len(runs) == 1 and kernels
    run = runs[0]
    assert run.source.startswith(__file__) and "value = step(X)" in run.source
    for k in kernels:   # nested in the run's time span, each naming where it was traced
        assert run.start_ns <= k.start_ns and k.start_ns + k.duration_ns <= run.start_ns + \
            run.duration_ns
        assert k.source.startswith(__file__)
    assert any("tanh" in k.name for k in kernels)


def test_the_trace_file_is_chrome_trace_event_json(tmp_path):
    with ms.Profiler(output_path=str(tmp_path / "prof")) as prof:
        ops.add(X, X)
    with open(prof.trace_path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    assert len(events) == 1
    event = events[0]
    assert event["ph"] == "X" and event["name"] == "add" and event["cat"] == "op"
    assert event["ts"] >= 0 and event["dur"] >= 0 and isinstance(event["tid"], int)
    assert isinstance(event["pid"], int)  # Perfetto's legacy JSON importer wants both ids
    assert __file__ in event["args"]["source"]


def test_analyse_prints_a_top_table_and_op_analyse_counts(tmp_path, capsys):
    prof = ms.Profiler(output_path=str(tmp_path))
    for _ in range(3):
        ops.exp(X)
    ops.log(ops.abs(X) + 1.0)
    table = prof.analyse(top=2)
    assert "exp" in table and len(table.splitlines()) == 3
    assert "minispore profile" in capsys.readouterr().out
    stats = prof.op_analyse(["exp", "log"])
    assert stats["exp"]["calls"] == 3 and stats["log"]["calls"] == 1
    with pytest.raises(TypeError, match="op_analyse: op_name must be a str"):
        prof.op_analyse(3)


def test_start_stop_rules_and_nothing_left_installed(tmp_path):
    prof = ms.Profiler(output_path=str(tmp_path), start_profile=False)
    assert interpreter.STATE.interp is EAGER and profiling.active is None
    with pytest.raises(RuntimeError, match="not recording"):
        prof.stop()
    prof.start()
    with pytest.raises(RuntimeError, match="already recording"):
        prof.start()
    with pytest.raises(RuntimeError, match="already recording"):
        ms.Profiler(output_path=str(tmp_path))
    prof.stop()
    assert interpreter.STATE.interp is EAGER and profiling.active is None
    ops.exp(X)
    assert prof.events == []   # nothing recorded once stopped


def test_op_time_false_records_nothing(tmp_path):
    with ms.Profiler(output_path=str(tmp_path), op_time=False) as prof:
        ops.exp(X)
    assert prof.events == [] and interpreter.STATE.interp is EAGER


def test_graph_mode_cell_and_gradients_are_profiled(tmp_path):
    net = small_net()
    loss_fn = nn.WithLossCell(net, nn.MSELoss())
    trainer = nn.TrainOneStepCell(loss_fn, nn.SGD(net.trainable_params(), 0.1))
    label = ms.Tensor(np.zeros((3, 2), np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        trainer(X, label)
        trainer(X, label)
        with ms.Profiler(output_path=str(tmp_path)) as prof:
            trainer(X, label)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert [e.category for e in prof.events].count("graph") >= 1
    assert sum(e.category == "kernel" for e in prof.events) >= 3
