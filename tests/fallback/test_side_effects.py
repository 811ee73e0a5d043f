"""Python side effects in Graph mode run on every call, as in PyNative, never skipped on replay.

Each effect case makes a fresh function whose Python side effect is reached some indirect way
(an alias, a helper, a method, setattr, __dict__, +=, a closure dict, nonlocal, an argument,
a default, a class attribute, a dispatch table, output, an iterator, random numbers). Called 3
times eagerly (the reference) and 3 times through ms.jit, the state must end the same, the
function's Python must have run at every call, and the report must name the line marked
`# EFFECT: <case name>`. Pure functions must still replay without running Python.
"""
import inspect
import io
import itertools
import logging
import operator
import types
from unittest import mock

import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops
from minispore.compiler import executable as executables
from minispore.fallback.side_effects import SideEffectError
from minispore.graph_mode import jit_function as jit_module

LOG = []
COUNTS = {}
OUT = io.StringIO()
TICKS = itertools.count()
LOGGER = logging.getLogger("tests.fallback.side_effects")
LOGGED = []


def _t(*values):
    return ms.Tensor(np.array(values, np.float32))


X = _t(1.0, -2.0, 3.0)


@pytest.fixture
def traces(monkeypatch):
    """Counts traces (a jitted function's Python runs only while it is traced). A Mock, not a
    function of this file: a counter here would itself be a side effect of the traced code."""
    counting = mock.Mock(wraps=jit_module.trace)
    monkeypatch.setattr(jit_module, "trace", counting)
    return counting


def _line(tag):
    """The line of this file marked `# EFFECT: tag`."""
    lines, _ = inspect.findsource(inspect.getmodule(_line))
    marked = [k + 1 for k, text in enumerate(lines) if text.rstrip().endswith(f"# EFFECT: {tag}")]
    assert len(marked) == 1, tag
    return f"test_side_effects.py:{marked[0]}"


# ***** effect cases: () -> (function, extra arguments, state reader) *****

def case_alias():
    LOG.clear()

    def fn(x):
        log = LOG
        log.append(len(log))  # EFFECT: alias
        return x * 2
    return fn, (), lambda: list(LOG)


def _bump(key):
    COUNTS[key] = COUNTS.get(key, 0) + 1  # EFFECT: helper_mutates_a_global_dict


def case_helper_mutates_a_global_dict():
    COUNTS.clear()

    def fn(x):
        _bump("calls")
        return x + 1
    return fn, (), lambda: dict(COUNTS)


class Recorder:
    calls = 0

    def __init__(self):
        self.seen = []

    def note(self, value):
        self.seen.append(value)  # EFFECT: method_of_a_closure_object


def case_method_of_a_closure_object():
    recorder = Recorder()

    def fn(x):
        recorder.note(len(x.shape))
        return x * 3
    return fn, (), lambda: list(recorder.seen)


def case_setattr():
    box = types.SimpleNamespace(n=0)

    def fn(x):
        setattr(box, "n", box.n + 1)  # noqa: B010  # EFFECT: setattr
        return x - 1
    return fn, (), lambda: box.n


def case_instance_dict():
    recorder = Recorder()

    def fn(x):
        recorder.__dict__["last"] = len(recorder.__dict__)  # EFFECT: instance_dict
        return x * 2
    return fn, (), lambda: dict(vars(recorder))


def case_inplace_add_to_an_argument():
    items = []

    def fn(x, lst):
        lst += [len(lst)]  # EFFECT: inplace_add_to_an_argument
        return x * 2
    return fn, (items,), lambda: list(items)


def case_closure_dict_item():
    table = {}

    def fn(x):
        table[len(table)] = "seen"  # EFFECT: closure_dict_item
        return x + 2
    return fn, (), lambda: dict(table)


def case_nonlocal_counter():
    n = 0

    def fn(x):
        nonlocal n
        n += 1  # EFFECT: nonlocal_counter
        return x * n
    return fn, (), lambda: n


def case_argument_append():
    events = []

    def fn(x, log):
        log.append("called")  # EFFECT: argument_append
        return x * 2
    return fn, (events,), lambda: list(events)


def case_mutable_default():
    def fn(x, seen=[]):  # noqa: B006  (the effect under test)
        seen.append(1)  # EFFECT: mutable_default
        return x * 2
    return fn, (), lambda: list(fn.__defaults__[0])


def _count_call():
    Recorder.calls += 1  # EFFECT: class_attribute_in_a_helper


def case_class_attribute_in_a_helper():
    Recorder.calls = 0

    def fn(x):
        _count_call()
        return x * 2
    return fn, (), lambda: Recorder.calls


def _log_shape(x):
    LOG.append(tuple(x.shape))  # EFFECT: helper_from_a_dispatch_table


HANDLERS = {"log": _log_shape}


def case_helper_from_a_dispatch_table():
    LOG.clear()

    def fn(x):
        HANDLERS["log"](x)
        return x * 2
    return fn, (), lambda: list(LOG)


def case_print_to_a_file():
    OUT.seek(0)
    OUT.truncate()

    def fn(x):
        print("step", file=OUT)  # EFFECT: print_to_a_file
        return x * 2
    return fn, (), lambda: OUT.getvalue()


class _ListHandler(logging.Handler):
    def emit(self, record):
        LOGGED.append(record.getMessage())


LOGGER.addHandler(_ListHandler())
LOGGER.propagate = False


def case_logging():
    LOGGED.clear()

    def fn(x):
        LOGGER.warning("step")  # EFFECT: logging
        return x * 2
    return fn, (), lambda: list(LOGGED)


def case_iterator():
    global TICKS
    TICKS = itertools.count()

    def fn(x):
        return x * next(TICKS)  # EFFECT: iterator
    return fn, (), lambda: repr(TICKS)


def case_global_random_numbers():
    np.random.seed(0)

    def fn(x):
        return x * float(np.random.rand())  # EFFECT: global_random_numbers
    return fn, (), lambda: np.random.get_state()[2]


def case_through_a_builtin():
    COUNTS.clear()

    def fn(x):  # EFFECT: through_a_builtin
        operator.setitem(COUNTS, "n", COUNTS.get("n", 0) + 1)  # no line changes COUNTS itself
        return x * 2
    return fn, (), lambda: dict(COUNTS)


def case_through_getattr():
    box = types.SimpleNamespace(items=[])

    def fn(x):
        getattr(box, "items").append(1)  # noqa: B009  # EFFECT: through_getattr
        return x * 2
    return fn, (), lambda: list(box.items)


def case_effect_next_to_a_tensor_if():
    LOG.clear()

    def fn(x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = x
        LOG.append(1)  # EFFECT: effect_next_to_a_tensor_if
        return y
    return fn, (), lambda: list(LOG)


CASES = [case_alias, case_helper_mutates_a_global_dict, case_method_of_a_closure_object,
         case_setattr, case_instance_dict, case_inplace_add_to_an_argument,
         case_closure_dict_item, case_nonlocal_counter, case_argument_append,
         case_mutable_default, case_class_attribute_in_a_helper,
         case_helper_from_a_dispatch_table, case_print_to_a_file, case_logging, case_iterator,
         case_global_random_numbers, case_through_a_builtin, case_through_getattr,
         case_effect_next_to_a_tensor_if]


def _three_calls(fn, extra):
    return [fn(X, *extra).asnumpy() for _ in range(3)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__[5:])
def test_an_effect_runs_on_every_call_as_in_pynative(case, traces):
    fn, extra, state = case()
    before = state()
    want_values = _three_calls(fn, extra)
    want_state = state()
    assert want_state != before  # the case has an effect at all

    fn, extra, state = case()
    compiled = ms.jit(fn)
    got_values = _three_calls(compiled, extra)
    assert state() == want_state
    np.testing.assert_allclose(np.array(got_values), np.array(want_values))
    assert traces.call_count == 3  # the Python ran at every call
    report = ms.explain(compiled)
    locations = [b.location for b in report.breaks]
    assert any(_line(case.__name__[5:]) in where for where in locations), str(report)
    assert all(b.category == "side effect" and b.hint for b in report.breaks)


@pytest.mark.parametrize("case", [case_alias, case_helper_mutates_a_global_dict,
                                  case_argument_append], ids=lambda c: c.__name__[5:])
@pytest.mark.parametrize("how", ["fullgraph", "strict"])
def test_fullgraph_raises_on_an_effect_with_its_line(case, how):
    fn, extra, _ = case()
    ms.set_context(jit_syntax_level=ms.STRICT if how == "strict" else ms.LAX)
    try:
        with pytest.raises(ms.fallback.GraphBreakError, match=_line(case.__name__[5:])) as info:
            ms.jit(fn, fullgraph=how == "fullgraph")(X, *extra)
    finally:
        ms.set_context(jit_syntax_level=ms.LAX)
    assert info.value.report.category == "side effect"


def test_an_effect_under_grad_runs_on_every_call(traces):
    fn, _, state = case_alias()
    want = [ms.grad(lambda v: fn(v).sum())(X).asnumpy() for _ in range(3)]
    want_state = state()
    fn, _, state = case_alias()
    compiled = ms.jit(fn)
    got = [ms.grad(lambda v: compiled(v).sum())(X).asnumpy() for _ in range(3)]
    np.testing.assert_allclose(np.array(got), np.array(want))
    assert state() == want_state == [0, 1, 2]
    assert traces.call_count == 1  # traced once; later calls run eagerly, as PyNative


def test_an_effect_is_reported_once(caplog):
    def fn(x):
        LOG.append(1)  # EFFECT: once
        return x * 2

    compiled = ms.jit(fn)
    with caplog.at_level(logging.WARNING, logger="minispore.fallback"):
        for _ in range(3):
            compiled(X)
    reports = [r for r in caplog.records if _line("once") in r.getMessage()]
    assert len(reports) == 1


def test_a_counter_the_function_updates_is_not_a_new_variant_each_call(caplog):
    count = 0

    def fn(x):
        nonlocal count
        count += 1
        return x * count

    compiled = ms.jit(fn)
    with caplog.at_level(logging.WARNING, logger="minispore"):
        got = [compiled(X).asnumpy() for _ in range(12)]
    np.testing.assert_allclose(np.array(got), np.array([X.asnumpy() * k for k in range(1, 13)]))
    assert count == 12
    # its Python runs every call anyway: the changed closure value is no reason to recompile
    assert compiled.recompiles == [] and len(compiled.cache) == 1
    # one report, at the `nonlocal` rebinding (not a second one for the changed closure)
    assert [b.location.split(": ", 1)[1] for b in compiled.breaks] == ["count += 1"]
    assert not [r for r in caplog.records if "compiled" in r.getMessage()]


def test_changing_an_argument_list_of_tensors_raises():
    def fn(x, xs):
        xs.append(x * 2)
        return x

    xs = [X]
    with pytest.raises(SideEffectError, match=r"fn: the list argument args\[1\] holds tensors"):
        ms.jit(fn)(X, xs)
    assert xs == [X]


# ***** Cells in GRAPH_MODE *****

class History(nn.Cell):
    def __init__(self):
        super().__init__()
        self.history = []
        self.w = ms.Parameter(_t(1.0, 2.0, 3.0), name="w")

    def record(self, value):
        self.history.append(value)  # EFFECT: cell method

    def construct(self, x):
        self.record(len(self.history))
        return x * self.w


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = History()

    def construct(self, x):
        return self.inner(x) + 1


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("make", [History, Outer], ids=["cell", "sub-cell"])
def test_a_cell_method_effect_runs_on_every_call(mode, make):
    ms.set_context(mode=mode)
    try:
        net = make()
        values = [net(X).asnumpy() for _ in range(3)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    history = net.history if make is History else net.inner.history
    assert history == [0, 1, 2]
    np.testing.assert_allclose(np.array(values), np.array([X.asnumpy() * [1, 2, 3]] * 3) +
                               (make is Outer))
    if mode == ms.GRAPH_MODE:
        assert any(_line("cell method") in b.location for b in ms.explain(net).breaks)


# ***** pure functions still replay *****

class Pure(nn.Cell):
    """Reads its Parameters and attributes, calls other Cells, builds local lists."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")
        self.scale = ms.Parameter(_t(2.0), name="scale")
        self.offset = 0.5
        self.names = ["a", "bb"]

    def construct(self, x):
        y = self.dense(x) * self.scale
        if self.training:
            y = y * 2
        parts = []
        for name in self.names:
            parts.append(y + len(name))

        def add(v):  # a local helper filling a local list
            parts.append(v)
        add(sum(parts))
        return parts[-1] + ms.Tensor(np.arange(3, dtype=np.float32) * self.offset)


def p_local_lists_and_dicts(x):
    acc, table = [], {}
    for k in range(3):
        acc.append(x * k)
        table[k] = acc[-1]
    acc.sort(key=lambda t: 0)
    squares = [v * v for v in acc]
    return sum(squares) + table[2]


def p_numpy_on_constants(x):
    weights = np.linspace(0.0, 1.0, 3).astype(np.float32)
    weights[0] = 1.0  # a local array
    return x * ms.Tensor(weights) + float(np.sqrt(4.0))


def p_reads_globals(x):
    return x * (len(LOG) + len(COUNTS) + 1) + ops.ones_like(x)


def _local_counter():
    count = 0

    def step():
        nonlocal count  # a cell made by this call: local to the trace
        count += 1
        return count
    return step


def p_nested_nonlocal(x):
    step = _local_counter()
    step()
    return x * step()


@pytest.mark.parametrize("fn", [p_local_lists_and_dicts, p_numpy_on_constants, p_reads_globals,
                                p_nested_nonlocal], ids=lambda f: f.__name__)
def test_a_pure_function_replays_without_python(fn, traces):
    compiled = ms.jit(fn)
    for _ in range(3):
        np.testing.assert_allclose(compiled(X).asnumpy(), fn(X).asnumpy(), rtol=1e-6)
    assert traces.call_count == 1
    assert ms.explain(compiled).compiled_whole
    assert all(isinstance(exe, executables.Executable) for exe in compiled.cache.values())


def test_a_pure_function_under_grad_replays(traces):
    compiled = ms.jit(p_local_lists_and_dicts)
    for _ in range(3):
        got = ms.grad(lambda v: compiled(v).sum())(X)
    want = ms.grad(lambda v: p_local_lists_and_dicts(v).sum())(X)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)
    assert traces.call_count == 1
    assert all(isinstance(exe, executables.VjpExecutable) for exe in compiled.cache.values())


@pytest.mark.parametrize("training", [False, True], ids=["eval", "train"])
def test_a_pure_cell_replays_in_graph_mode(training, traces):
    net = Pure().set_train(training)
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    want = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for _ in range(3):
            np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert traces.call_count == 1
    assert ms.explain(net).compiled_whole


# ***** effects in helpers called from converted tensor control flow *****

def c_helper_in_a_tensor_if():
    log = []

    def note(s):
        log.append(s)

    def fn(x):
        if x.sum() > 0:
            note("pos")
            x = x + 1
        else:
            x = x - 1
        return x
    return fn, _t(-1.0, -2.0), lambda: list(log)


def c_helper_in_a_tensor_while():
    log = []

    def note(s):
        log.append(s)

    def fn(x):
        while x.sum() < 10:
            note("iteration")
            x = x * 2
        return x
    return fn, _t(0.1, 0.1, 0.1), lambda: list(log)


def c_nonlocal_write_in_a_converted_function():
    count = 0

    def fn(x):
        nonlocal count
        count += 1
        if x.sum() > 0:
            x = x + count
        return x
    return fn, _t(1.0, 2.0), lambda: count


@pytest.mark.parametrize("case", [c_helper_in_a_tensor_if, c_helper_in_a_tensor_while,
                                  c_nonlocal_write_in_a_converted_function],
                         ids=lambda c: c.__name__[2:])
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_converted_control_flow_keeps_python_effects(case, mode):
    fn, x, state = case()
    want = [fn(x).asnumpy() for _ in range(3)]
    want_state = state()

    fn, x, state = case()
    ms.set_context(mode=mode)
    try:
        compiled = ms.jit(fn)
        got = [compiled(x).asnumpy() for _ in range(3)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert state() == want_state
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=1e-6)


def test_reference_effects_of_converted_control_flow():
    """The eager reference the test above compares with (so it cannot pass vacuously)."""
    for case, after in [(c_helper_in_a_tensor_if, []),
                        (c_helper_in_a_tensor_while, ["iteration"] * 18),
                        (c_nonlocal_write_in_a_converted_function, 3)]:
        fn, x, state = case()
        for _ in range(3):
            fn(x)
        assert state() == after
