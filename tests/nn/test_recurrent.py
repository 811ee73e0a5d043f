"""nn.RNN, nn.LSTM, nn.GRU and their cells: values against a numpy reference written from
MindSpore's formulas (and against PyTorch's layers with the same weights, whose formulas and
gate order are the same), gradients by finite differences, both modes, parameter names and
order, seq_length masking, bidirectional stacks."""
import numpy as np
import pytest
from nn_checks import T, check_cell_grads

import minispore as ms
from minispore import nn, ops
from minispore.compiler import buckets
from minispore.compiler.codegen import numba_cpu

# ***** a numpy reference: MindSpore's rnns.py / rnn_cells.py, step by step *****


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def ref_cell(mode, x, state, w_ih, w_hh, b_ih, b_hh):
    gi = x @ w_ih.T + (0 if b_ih is None else b_ih)
    h = state[0] if mode == "LSTM" else state
    gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
    if mode == "RNN_TANH":
        return np.tanh(gi + gh)
    if mode == "RNN_RELU":
        return np.maximum(gi + gh, 0)
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=1)
        c = _sigmoid(f) * state[1] + _sigmoid(i) * np.tanh(g)
        return _sigmoid(o) * np.tanh(c), c
    i_r, i_z, i_n = np.split(gi, 3, axis=1)
    h_r, h_z, h_n = np.split(gh, 3, axis=1)
    r, z = _sigmoid(i_r + h_r), _sigmoid(i_z + h_z)
    n = np.tanh(i_n + r * h_n)
    return n + z * (h - n)


def _reverse_sequence(x, lengths):
    """MindSpore's ReverseSequence(seq_dim=0, batch_dim=1)."""
    out = x.copy()
    for b, n in enumerate(lengths):
        out[:n, b] = x[:n, b][::-1]
    return out


def ref_direction(mode, x, state, weights, lengths):
    """MindSpore's _DynamicRNNBase: recurrent / variable_recurrent."""
    outputs = []
    for t in range(x.shape[0]):
        new = ref_cell(mode, x[t], state, *weights)
        if lengths is None:
            state = new
            outputs.append(new[0] if mode == "LSTM" else new)
            continue
        alive = (np.asarray(lengths) > t)[:, None]
        if mode == "LSTM":
            state = (np.where(alive, new[0], state[0]), np.where(alive, new[1], state[1]))
            outputs.append(np.where(alive, new[0], 0))
        else:
            state = np.where(alive, new, state)
            outputs.append(np.where(alive, new, 0))
    return np.stack(outputs), state


def reference(net, mode, x, hx=None, lengths=None):
    """MindSpore's _RNNBase.construct in numpy, with net's weights."""
    params = {p.name.split(".")[-1]: p.asnumpy().astype(np.float64) for p in net.get_parameters()}
    layers, dirs, hidden = net.num_layers, net.num_directions, net.hidden_size
    x = np.asarray(x, np.float64)
    if net.batch_first:
        x = x.transpose(1, 0, 2)
    if hx is None:
        zeros = np.zeros((layers * dirs, x.shape[1], hidden))
        hx = (zeros, zeros) if mode == "LSTM" else zeros
    h_n, c_n = [], []
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            suffix = f"_l{layer}" + ("_reverse" if d else "")
            weights = [params.get(k + suffix) for k in ("weight_ih", "weight_hh", "bias_ih",
                                                        "bias_hh")]
            k = layer * dirs + d
            state = (hx[0][k], hx[1][k]) if mode == "LSTM" else hx[k]
            inp = x
            if d:
                inp = x[::-1] if lengths is None else _reverse_sequence(x, lengths)
            out, state = ref_direction(mode, inp, state, weights, lengths)
            if d:
                out = out[::-1] if lengths is None else _reverse_sequence(out, lengths)
            outs.append(out)
            h_n.append(state[0] if mode == "LSTM" else state)
            c_n.append(state[1] if mode == "LSTM" else None)
        x = np.concatenate(outs, 2)
    out = x.transpose(1, 0, 2) if net.batch_first else x
    if mode == "LSTM":
        return out, (np.stack(h_n), np.stack(c_n))
    return out, np.stack(h_n)


# ***** helpers *****

MODES = {"RNN_TANH": lambda *a, **k: nn.RNN(*a, **k),
         "RNN_RELU": lambda *a, **k: nn.RNN(*a, nonlinearity="relu", **k),
         "LSTM": nn.LSTM, "GRU": nn.GRU}


def _flat(outputs):
    out, state = outputs
    states = state if isinstance(state, tuple) else (state,)
    return [o.asnumpy() for o in (out,) + states]


def _run(net, mode, *args):
    ms.set_context(mode=mode)
    try:
        return net(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _rand(shape, seed, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# ***** values *****

@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("config", [
    {},
    {"num_layers": 2, "bidirectional": True},
    {"num_layers": 2, "batch_first": True, "has_bias": False},
    {"bidirectional": True, "batch_first": True},
], ids=["plain", "2-layer-bidirectional", "2-layer-batch-first-no-bias", "bidirectional"])
@pytest.mark.parametrize("graph", [False, True], ids=["pynative", "graph"])
def test_layer_matches_mindspores_formulas(mode, config, graph):
    ms.set_seed(1)
    net = MODES[mode](3, 5, **config)
    dirs, layers = net.num_directions, net.num_layers
    x = _rand((2, 4, 3) if net.batch_first else (4, 2, 3), 0)
    shape = (layers * dirs, 2, 5)
    hx = (_rand(shape, 1), _rand(shape, 2)) if mode == "LSTM" else _rand(shape, 1)
    hx_t = tuple(T(h) for h in hx) if mode == "LSTM" else T(hx)
    got = _run(net, ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE, T(x), hx_t)
    want = reference(net, mode, x, hx)
    for g, w in zip(_flat(got), [want[0]] + list(want[1] if mode == "LSTM" else [want[1]])):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("graph", [False, True], ids=["pynative", "graph"])
def test_seq_length_masks_like_mindspore(mode, graph):
    ms.set_seed(2)
    net = MODES[mode](3, 4, num_layers=2, bidirectional=True)
    x = _rand((6, 3, 3), 3)
    lengths = np.array([6, 2, 4], np.int32)
    got = _run(net, ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE, T(x), None, T(lengths))
    want = reference(net, mode, x, None, lengths)
    flat_want = [want[0]] + list(want[1] if mode == "LSTM" else [want[1]])
    for g, w in zip(_flat(got), flat_want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)
    assert (_flat(got)[0][2:, 1] == 0).all()  # past its length a sequence outputs zeros


@pytest.mark.parametrize("cls,mode", [(nn.RNNCell, "RNN_TANH"), (nn.LSTMCell, "LSTM"),
                                      (nn.GRUCell, "GRU")])
def test_cells_match_mindspores_formulas(cls, mode):
    ms.set_seed(3)
    cell = cls(3, 4)
    x, h, c = _rand((2, 3), 4), _rand((2, 4), 5), _rand((2, 4), 6)
    weights = [p.asnumpy().astype(np.float64) for p in (cell.weight_ih, cell.weight_hh,
                                                       cell.bias_ih, cell.bias_hh)]
    state = (h, c) if mode == "LSTM" else h
    want = ref_cell(mode, x.astype(np.float64), state, *weights)
    for graph in (False, True):
        arg = (T(h), T(c)) if mode == "LSTM" else T(h)
        got = _run(cell, ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE, T(x), arg)
        got = [g.asnumpy() for g in got] if mode == "LSTM" else [got.asnumpy()]
        for g, w in zip(got, want if mode == "LSTM" else [want]):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


def test_relu_cell_and_no_bias():
    cell = nn.RNNCell(3, 4, has_bias=False, nonlinearity="relu")
    assert [p.name for p in cell.get_parameters()] == ["weight_ih", "weight_hh"]
    x, h = _rand((2, 3), 7), _rand((2, 4), 8)
    want = np.maximum(x @ cell.weight_ih.asnumpy().T + h @ cell.weight_hh.asnumpy().T, 0)
    np.testing.assert_allclose(cell(T(x), T(h)).asnumpy(), want, rtol=1e-5, atol=1e-6)


# ***** the same numbers as PyTorch's layers with copied weights *****

@pytest.mark.parametrize("mode", ["RNN_TANH", "LSTM", "GRU"])
def test_same_values_as_torch(mode):
    torch = pytest.importorskip("torch", reason="compares with PyTorch's recurrent layers")
    ms.set_seed(4)
    net = MODES[mode](3, 5, num_layers=2, bidirectional=True, batch_first=True)
    torch_cls = {"RNN_TANH": torch.nn.RNN, "LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU}[mode]
    ref = torch_cls(3, 5, num_layers=2, bidirectional=True, batch_first=True)
    with torch.no_grad():
        for p in net.get_parameters():
            getattr(ref, p.name).copy_(torch.from_numpy(p.asnumpy()))
    x = _rand((2, 4, 3), 9)
    want_out, want_state = ref(torch.from_numpy(x))
    got = _flat(net(T(x)))
    want_states = want_state if isinstance(want_state, tuple) else (want_state,)
    for g, w in zip(got, (want_out,) + tuple(want_states)):
        np.testing.assert_allclose(g, w.detach().numpy(), rtol=1e-5, atol=1e-6)


# ***** gradients *****

class Flattened(nn.Cell):
    """The output and the final states of a recurrent layer in one vector (for check_cell_grads)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x, h, *rest):
        hx = (h, rest[0]) if isinstance(self.layer, nn.LSTM) else h
        seq_length = rest[-1] if rest and rest[-1].dtype in (ms.int32, ms.int64) else None
        out, state = self.layer(x, hx, seq_length)
        states = state if isinstance(state, tuple) else (state,)
        return ops.concat([ops.reshape(t, (-1,)) for t in (out,) + states], 0)


@pytest.mark.parametrize("mode", list(MODES))
def test_gradients_match_finite_differences(mode):
    ms.set_seed(5)
    layer = MODES[mode](2, 3, num_layers=2, bidirectional=True, dtype=ms.float64)
    x, h, c = _rand((3, 2, 2), 10, np.float64), _rand((4, 2, 3), 11, np.float64), \
        _rand((4, 2, 3), 12, np.float64)
    lengths = np.array([3, 2], np.int32)
    inputs = (x, h, c, lengths) if mode == "LSTM" else (x, h, lengths)
    check_cell_grads(Flattened(layer), *inputs, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("cls", [nn.RNNCell, nn.LSTMCell, nn.GRUCell])
def test_cell_gradients_match_finite_differences(cls):
    ms.set_seed(6)
    cell = cls(2, 3, dtype=ms.float64)

    class Both(nn.Cell):
        def __init__(self):
            super().__init__()
            self.cell = cell

        def construct(self, x, h, c):
            if isinstance(self.cell, nn.LSTMCell):
                return ops.concat(self.cell(x, (h, c)), 1)
            return self.cell(x, h) + c

    check_cell_grads(Both(), _rand((2, 2), 13, np.float64), _rand((2, 3), 14, np.float64),
                     _rand((2, 3), 15, np.float64))


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_graph_mode_gradients_equal_pynatives(mode):
    ms.set_seed(7)
    net = MODES[mode](3, 4, num_layers=2, bidirectional=True, batch_first=True)
    x, lengths = T(_rand((2, 5, 3), 16)), T(np.array([5, 3], np.int32))

    def loss(x):
        out, _ = net(x, None, lengths)
        return ops.sum(out * out)

    grad_fn = ms.value_and_grad(loss, 0, net.trainable_params())
    eager = grad_fn(x)
    compiled = ms.jit(grad_fn)(x)
    for e, c in zip([eager[0], eager[1][0]] + list(eager[1][1]),
                    [compiled[0], compiled[1][0]] + list(compiled[1][1])):
        np.testing.assert_allclose(c.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


# ***** parameters and compilation *****

def test_parameter_names_order_and_shapes_are_mindspores():
    net = nn.LSTM(3, 5, num_layers=2, bidirectional=True)
    names = [p.name for p in net.get_parameters()]
    runs = [f"_l{k}{s}" for k in range(2) for s in ("", "_reverse")]
    assert names == [kind + r for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
                     for r in runs]
    shapes = {p.name: p.shape for p in net.get_parameters()}
    assert shapes["weight_ih_l0"] == (20, 3) and shapes["weight_ih_l1_reverse"] == (20, 10)
    assert shapes["weight_hh_l0"] == (20, 5) and shapes["bias_hh_l1"] == (20,)
    bound = 1 / np.sqrt(5)
    assert all(np.abs(p.asnumpy()).max() <= bound for p in net.get_parameters())
    assert [p.name for p in nn.GRU(3, 4, has_bias=False).get_parameters()] == \
        ["weight_ih_l0", "weight_hh_l0"]
    assert nn.GRU(3, 4).weight_ih_l0.shape == (12, 3) and nn.RNN(3, 4).weight_hh_l0.shape == (4, 4)

    class Model(nn.Cell):
        def __init__(self):
            super().__init__()
            self.encoder = nn.GRU(3, 4)

    assert [p.name for p in Model().get_parameters()][:2] == ["encoder.weight_ih_l0",
                                                              "encoder.weight_hh_l0"]


def test_a_mindspore_style_checkpoint_loads(tmp_path):
    source = nn.LSTM(3, 4, bidirectional=True)
    path = str(tmp_path / "lstm.ckpt")
    ms.save_checkpoint(source, path)
    target = nn.LSTM(3, 4, bidirectional=True)
    assert ms.load_param_into_net(target, ms.load_checkpoint(path)) == ([], [])
    x = T(_rand((2, 1, 3), 17))
    np.testing.assert_array_equal(target(x)[0].asnumpy(), source(x)[0].asnumpy())


def _kernel(step):
    """A program step's kernel, also where it writes into a concatenation (compiler.buckets)."""
    return step.fn.fn if isinstance(step.fn, buckets._Into) else step.fn


@pytest.mark.parametrize("layer, primitive", [(nn.LSTM, "lstm_recurrence"),
                                              (nn.GRU, "rnn_recurrence"),
                                              (nn.RNN, "rnn_recurrence")])
def test_a_recurrent_layer_is_one_recurrence_step_each_way(layer, primitive):
    """Graph mode runs a direction as one recurrence step (a GEMM and a numba kernel per time
    step inside it), its gradient as one gradient step, and W_hh's gradient as one GEMM over
    all time steps."""
    net = layer(4, 8)
    x = T(_rand((5, 2, 4), 18))
    f = ms.jit(lambda x: net(x)[0])
    f(x)
    steps = next(iter(f.cache.values())).program.steps
    recurrences = [s for s in steps if s.nodes and s.nodes[0].prim.name == primitive]
    assert len(recurrences) == 1 and isinstance(_kernel(recurrences[0]), numba_cpu.PrimitiveStep)
    grad = ms.jit(ms.grad(lambda x: ops.sum(net(x)[0] ** 2), 0, net.trainable_params()))
    grad(x)
    steps = next(iter(grad.cache.values())).program.steps
    names = [s.nodes[0].prim.name for s in steps if s.nodes]
    assert names.count(primitive + "_grad") == 1
    # the input projection, its two gradients (W_ih, x) and W_hh's gradient
    assert names.count("matmul") + names.count("addmm") == 4


def test_dropout_between_layers_only_in_training():
    net = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = T(_rand((3, 2, 3), 19))
    ms.set_seed(0)
    first = net(x)[0].asnumpy()
    np.testing.assert_array_equal(net(x)[0].asnumpy(), first)  # evaluation: no dropout
    net.set_train(True)
    ms.set_seed(0)
    a = net(x)[0].asnumpy()
    ms.set_seed(1)
    assert not np.allclose(net(x)[0].asnumpy(), a)


# ***** bad input: the same error in both modes *****

@pytest.mark.parametrize("graph", [False, True], ids=["pynative", "graph"])
def test_bad_inputs_raise_clear_errors(graph):
    mode = ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE
    net = nn.LSTM(3, 4)
    with pytest.raises(ValueError, match="LSTM.*input_size=3"):
        _run(net, mode, T(_rand((2, 2, 5), 0)))
    with pytest.raises(ValueError, match="LSTM.*hx\\[0\\]"):
        _run(net, mode, T(_rand((2, 2, 3), 0)), (T(_rand((1, 3, 4), 0)), T(_rand((1, 2, 4), 0))))
    with pytest.raises(ValueError, match="GRU.*seq_length"):
        _run(nn.GRU(3, 4), mode, T(_rand((2, 2, 3), 0)), None, T(np.array([1, 2, 2], np.int32)))
    with pytest.raises(ValueError, match="GRUCell.*hx"):
        _run(nn.GRUCell(3, 4), mode, T(_rand((2, 3), 0)), T(_rand((3, 4), 0)))


def test_bad_arguments():
    with pytest.raises(ValueError, match="dropout"):
        nn.LSTM(3, 4, dropout=1.0)
    with pytest.raises(TypeError, match="batch_first"):
        nn.GRU(3, 4, batch_first=1)
    with pytest.raises(ValueError, match="nonlinearity"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="hidden_size"):
        nn.LSTMCell(3, 0)


@pytest.mark.parametrize("layer", [nn.LSTM, nn.GRU, nn.RNN])
def test_recurrent_layers_train_on_a_gpu_as_on_the_cpu(layer, fake_gpu, mode):
    """device_target="GPU" (the stand-in CuPy): the recurrence primitives' array impls run on
    the device's arrays, masking every step (no host read of the lengths), in both modes."""
    x, lengths = _rand((5, 2, 3), 21), np.array([5, 3], np.int32)

    def loss_and_grads():
        ms.set_seed(5)  # the same weights on either device
        net = layer(3, 4, bidirectional=True)
        step = ms.value_and_grad(lambda x, n: ops.sum(net(x, seq_length=n)[0] ** 2), None,
                                 net.trainable_params())
        loss, grads = (ms.jit(step) if mode == "graph" else step)(T(x), T(lengths))
        return [loss.asnumpy()] + [g.asnumpy() for g in grads]

    on_gpu = loss_and_grads()
    ms.set_context(device_target="CPU")
    for got, want in zip(on_gpu, loss_and_grads()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
