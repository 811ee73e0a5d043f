"""Compiled code never replays stale Python state.

Each case compiles a function (`@ms.jit`) or a GRAPH_MODE Cell that reads some Python state,
calls it, changes the state, and calls it again: the second call must see the new state,
as PyNative does (either a guard recompiles, or the value is read fresh at every call).
"""
import enum
import functools
import os
import sys
import types

import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops

X = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))


def values(t):
    return t.asnumpy().tolist()


def graph_cell(construct, **attrs):
    """A Cell with `construct` and `attrs`, to be called in GRAPH_MODE."""
    cell_type = type("Probe", (nn.Cell,), {"construct": construct})
    cell = cell_type()
    for name, value in attrs.items():
        setattr(cell, name, value)
    return cell


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def check(call, change, before, after):
    np.testing.assert_allclose(values(call()), before, rtol=1e-6)
    np.testing.assert_allclose(values(call()), before, rtol=1e-6)   # compiled now, replayed
    change()
    np.testing.assert_allclose(values(call()), after, rtol=1e-6)


# ***** module globals and what they hold *****

SCALE = 2.0
FLAG = True
NAME = "double"
PAIR = (1.0, 2.0)
CFG = {"b": 1.0, "opt": {"lr": 0.5}}
LIST = [1.0, 2.0]
ARRAY = np.array([1.0, 1.0, 1.0], np.float32)
TENSOR = ms.Tensor(np.array([1.0, 1.0, 1.0], np.float32))


class Settings:
    def __init__(self):
        self.s = 1.0
        self.inner = types.SimpleNamespace(k=1.0)


SETTINGS = Settings()


class Mode(enum.Enum):
    ADD = 1
    MUL = 2


MODE = Mode.ADD


def restore_globals(**saved):
    def undo():
        globals().update(saved)
    return undo


@pytest.fixture(autouse=True)
def fresh_globals():
    saved = {"SCALE": SCALE, "FLAG": FLAG, "NAME": NAME, "PAIR": PAIR, "MODE": MODE,
             "TENSOR": TENSOR, "SETTINGS": SETTINGS}
    cfg = {"b": 1.0, "opt": {"lr": 0.5}}
    CFG.clear()
    CFG.update(cfg)
    LIST[:] = [1.0, 2.0]
    ARRAY[:] = 1.0
    SETTINGS.s, SETTINGS.inner.k = 1.0, 1.0
    Settings.factor = 1.0
    yield
    globals().update(saved)


def set_global(name, value):
    return lambda: globals().__setitem__(name, value)


def test_global_scalar_in_a_graph_mode_cell(graph_mode):
    cell = graph_cell(lambda self, x: x * self.k * SCALE, k=1.0)
    check(lambda: cell(X), set_global("SCALE", 1.0), [2, 4, 6], [1, 2, 3])


def test_global_scalar_in_a_jit_function():
    f = ms.jit(lambda x: x * SCALE)
    check(lambda: f(X), set_global("SCALE", 3.0), [2, 4, 6], [3, 6, 9])


def scaled(x):
    return x * SCALE


def test_global_read_by_a_helper():
    f = ms.jit(lambda x: scaled(x) + 1.0)
    check(lambda: f(X), set_global("SCALE", 1.0), [3, 5, 7], [2, 3, 4])


def test_global_bool_flag():
    f = ms.jit(lambda x: x * 2.0 if FLAG else x)
    check(lambda: f(X), set_global("FLAG", False), [2, 4, 6], [1, 2, 3])


def test_global_string_switch():
    f = ms.jit(lambda x: x * 2.0 if NAME == "double" else x * 3.0)
    check(lambda: f(X), set_global("NAME", "triple"), [2, 4, 6], [3, 6, 9])


def test_global_tuple():
    f = ms.jit(lambda x: x * PAIR[1])
    check(lambda: f(X), set_global("PAIR", (1.0, 4.0)), [2, 4, 6], [4, 8, 12])


def test_global_dict_item():
    f = ms.jit(lambda x: x + CFG["b"])
    check(lambda: f(X), lambda: CFG.__setitem__("b", 5.0), [2, 3, 4], [6, 7, 8])


def test_nested_dict_item():
    f = ms.jit(lambda x: x * CFG["opt"]["lr"])
    check(lambda: f(X), lambda: CFG["opt"].__setitem__("lr", 2.0), [0.5, 1, 1.5], [2, 4, 6])


def test_global_list_item():
    f = ms.jit(lambda x: x * LIST[0])
    check(lambda: f(X), lambda: LIST.__setitem__(0, 3.0), [1, 2, 3], [3, 6, 9])


def test_field_of_a_config_object():
    f = ms.jit(lambda x: x * SETTINGS.s)
    check(lambda: f(X), lambda: setattr(SETTINGS, "s", 2.0), [1, 2, 3], [2, 4, 6])


def test_attribute_chain():
    f = ms.jit(lambda x: x + SETTINGS.inner.k)
    check(lambda: f(X), lambda: setattr(SETTINGS.inner, "k", 0.0), [2, 3, 4], [1, 2, 3])


def test_class_attribute():
    f = ms.jit(lambda x: x * Settings.factor)
    check(lambda: f(X), lambda: setattr(Settings, "factor", 3.0), [1, 2, 3], [3, 6, 9])


def test_enum_value():
    f = ms.jit(lambda x: x + 1.0 if MODE is Mode.ADD else x * 10.0)
    check(lambda: f(X), set_global("MODE", Mode.MUL), [2, 3, 4], [10, 20, 30])


def test_attribute_of_an_imported_config_module(tmp_path, monkeypatch):
    (tmp_path / "probe_config.py").write_text("LR = 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import probe_config
    f = ms.jit(lambda x: x * probe_config.LR)
    try:
        check(lambda: f(X), lambda: setattr(probe_config, "LR", 4.0), [1, 2, 3], [4, 8, 12])
    finally:
        sys.modules.pop("probe_config", None)


def test_functools_partial_rebound():
    global HELPER
    HELPER = functools.partial(lambda x, k: x * k, k=2.0)
    f = ms.jit(lambda x: HELPER(x))
    check(lambda: f(X), set_global("HELPER", functools.partial(lambda x, k: x * k, k=5.0)),
          [2, 4, 6], [5, 10, 15])


def test_partial_object_as_the_compiled_function():
    part = functools.partial(lambda x, k: x * k, k=2.0)
    f = ms.jit(part)
    np.testing.assert_allclose(values(f(X)), [2, 4, 6])
    g = ms.jit(functools.partial(part.func, k=3.0))
    np.testing.assert_allclose(values(g(X)), [3, 6, 9])


# ***** closures, defaults, counters *****

def test_closure_scalar():
    k = 1.0

    def f(x):
        return x * k
    jf = ms.jit(f)

    def change():
        nonlocal k
        k = 2.0
    check(lambda: jf(X), change, [1, 2, 3], [2, 4, 6])


def test_nonlocal_counter_read_by_the_function():
    calls = 0

    def bump():
        nonlocal calls
        calls += 1

    jf = ms.jit(lambda x: x + calls)
    check(lambda: jf(X), bump, [1, 2, 3], [2, 3, 4])


def test_defaults_changed():
    def f(x, k=1.0):
        return x * k
    jf = ms.jit(f)
    check(lambda: jf(X), lambda: setattr(f, "__defaults__", (3.0,)), [1, 2, 3], [3, 6, 9])


# ***** arrays and tensors reached from Python state: read at every call *****

def test_module_numpy_array_mutated_in_place():
    f = ms.jit(lambda x: x * ARRAY)
    check(lambda: f(X), lambda: ARRAY.__setitem__(0, 5.0), [1, 2, 3], [5, 2, 3])


def test_module_numpy_array_through_tensor_constructor():
    f = ms.jit(lambda x: x + ms.Tensor(ARRAY))
    check(lambda: f(X), lambda: ARRAY.__setitem__(1, 0.0), [2, 3, 4], [2, 2, 4])


def test_numpy_array_held_by_a_cell_mutated_in_place(graph_mode):
    mask = np.ones(3, np.float32)
    cell = graph_cell(lambda self, x: x * self.mask, mask=mask)
    check(lambda: cell(X), lambda: mask.__setitem__(2, 0.0), [1, 2, 3], [1, 2, 0])


def test_numpy_array_in_a_closure_mutated_in_place():
    mask = np.ones(3, np.float32)
    f = ms.jit(lambda x: x * mask)
    check(lambda: f(X), lambda: mask.__setitem__(0, 0.0), [1, 2, 3], [0, 2, 3])


def test_numpy_array_default_mutated_in_place():
    mask = np.ones(3, np.float32)

    def f(x, m=mask):
        return x * m
    jf = ms.jit(f)
    check(lambda: jf(X), lambda: mask.__setitem__(1, 3.0), [1, 2, 3], [1, 6, 3])


def test_numpy_array_argument_mutated_in_place():
    arr = np.ones(3, np.float32)
    f = ms.jit(lambda x, a: x * a)
    check(lambda: f(X, arr), lambda: arr.__setitem__(0, 7.0), [1, 2, 3], [7, 2, 3])


def test_global_tensor_reassigned():
    f = ms.jit(lambda x: x + TENSOR)
    check(lambda: f(X), set_global("TENSOR", ms.Tensor(np.zeros(3, np.float32))),
          [2, 3, 4], [1, 2, 3])


def test_global_tensor_changed_in_place():
    t = ms.Tensor(np.ones(3, np.float32))
    f = ms.jit(lambda x: x * ops.exp(t))        # all-constant subexpression: not folded away
    check(lambda: f(X), lambda: t.assign_value(ms.Tensor(np.zeros(3, np.float32))),
          np.e * np.array([1, 2, 3]), [1, 2, 3])


# ***** Cells *****

class Scaler(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 2.0
        self._factor = 1.0
        self.weights = [1.0] * 20

    @property
    def factor(self):
        return self._factor

    def construct(self, x):
        y = x * self.k * self.factor * self.weights[19]
        return y * 10.0 if self.training else y


GLOBAL_NET = Scaler()


def test_global_cell_set_train():
    GLOBAL_NET.set_train(True)
    f = ms.jit(lambda x: GLOBAL_NET(x))
    check(lambda: f(X), lambda: GLOBAL_NET.set_train(False), [20, 40, 60], [2, 4, 6])


def test_global_cell_attribute():
    net = Scaler()
    net.set_train(False)
    f = ms.jit(lambda x: net(x) + 0.0)
    check(lambda: f(X), lambda: setattr(net, "k", 3.0), [2, 4, 6], [3, 6, 9])


def test_property_of_a_cell(graph_mode):
    net = Scaler()
    net.set_train(False)
    check(lambda: net(X), lambda: setattr(net, "_factor", 0.5), [2, 4, 6], [1, 2, 3])


def test_long_list_attribute_changed_in_place(graph_mode):
    net = Scaler()
    net.set_train(False)
    check(lambda: net(X), lambda: net.weights.__setitem__(19, 2.0), [2, 4, 6], [4, 8, 12])


# ***** configuration *****

def test_environment_configuration_is_part_of_the_cache_key(monkeypatch):
    f = ms.jit(lambda x: ops.exp(x) * 2.0 + 1.0)
    monkeypatch.setenv("MINISPORE_FUSION", "1")
    f(X)
    monkeypatch.setenv("MINISPORE_FUSION", "0")
    np.testing.assert_allclose(values(f(X)), np.exp([1, 2, 3]) * 2 + 1, rtol=1e-6)
    assert len(ms.explain(f).recompiles) == 1


def test_a_recompile_says_which_read_changed():
    f = ms.jit(lambda x: x * SCALE)
    f(X)
    globals()["SCALE"] = 5.0
    f(X)
    reasons = ms.explain(f).recompiles
    assert len(reasons) == 1
    assert "SCALE" in reasons[0] and "2.0 -> 5.0" in reasons[0], reasons
    assert os.path.basename(__file__) in reasons[0]


# ***** no process-wide damage *****

def test_tracing_in_threads_leaves_print_working(capsys):
    import builtins
    import threading

    def make():
        @ms.jit
        def f(x):
            print("value", x)
            return x * 2.0
        return f

    errors = []

    def work():
        try:
            for _ in range(5):
                f = make()
                np.testing.assert_allclose(values(f(X)), [2, 4, 6])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    capsys.readouterr()
    print("plain", 1)                      # a print outside any trace prints as ever
    builtins.print("builtin", 2)
    assert capsys.readouterr().out == "plain 1\nbuiltin 2\n"


def test_value_and_grad_from_many_threads_at_once():
    import threading
    net = nn.Dense(4, 3)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
    grad_fn = ms.value_and_grad(lambda x, s: (ops.tanh(net(x)) * s).sum(), None,
                                net.trainable_params())
    expected = {}
    for s in range(6):
        value, grads = grad_fn(x, ms.Tensor(float(s + 1)))
        expected[s] = [value.asnumpy()] + [g.asnumpy() for g in grads]
    wrong = []

    def work(s):
        for _ in range(100):
            value, grads = grad_fn(x, ms.Tensor(float(s + 1)))
            got = [value.asnumpy()] + [g.asnumpy() for g in grads]
            if not all(np.allclose(a, b, rtol=1e-6) for a, b in zip(got, expected[s])):
                wrong.append(s)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)     # threads interleave as often as they can
    try:
        threads = [threading.Thread(target=work, args=(s,)) for s in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    assert not wrong


def test_a_value_folded_in_the_trace_stays_a_constant():
    f = ms.jit(lambda x: x * ops.exp(ms.Tensor(1.0)) + ops.sqrt(ms.Tensor([4.0, 4.0, 4.0])))
    np.testing.assert_allclose(values(f(X)), np.e * np.array([1, 2, 3]) + 2, rtol=1e-6)
    executable = next(iter(f.cache.values()))
    assert executable.traced.captured == []     # folded host values are not graph inputs
