"""Device placement without a GPU, on the fake device of fake_device.py (CuPy-like arrays:
no implicit conversion to numpy, host arrays refused, transfers counted): any numpy call on
tensor data, host copy or host array reaching an op fails or is counted. Eager and Graph mode
run models on it and must give the CPU's values, copying only where the user asks for values.
"""
import numpy as np
import pytest
from fake_device import DeviceArray, FakeNamespace, Transfers
from graph_workloads import WORKLOADS

import minispore as ms
from minispore import nn, ops
from minispore.context import device
from minispore.core import cublas


@pytest.fixture
def fake_device(monkeypatch):
    """The fake namespace as the current device (restored afterwards)."""
    fake = FakeNamespace()
    monkeypatch.setattr(device, "_xp", fake)
    monkeypatch.setattr(device, "current_xp", fake)
    monkeypatch.setattr(device, "_scalars", {})
    monkeypatch.setattr(cublas, "matmul", fake.matmul)  # products on the fake: numpy's
    Transfers.downloads = Transfers.uploads = 0
    return fake


def test_the_fake_device_refuses_what_cupy_refuses(fake_device):
    x = ms.Tensor([1.0, 2.0])
    assert isinstance(x._data, DeviceArray)
    with pytest.raises(TypeError):
        np.asarray(x._data)
    with pytest.raises(TypeError):
        fake_device.add(x._data, np.ones(2))
    assert x.asnumpy().tolist() == [1.0, 2.0] and Transfers.downloads == 1


@pytest.mark.parametrize("name", sorted(set(WORKLOADS) - {"layer_norm_gelu"}))
def test_graph_workloads_give_the_cpu_values_on_the_device(name, fake_device, monkeypatch):
    # (layer_norm_gelu calls erf: scipy on numpy, cupyx on CuPy, nothing on the fake)
    on_device = WORKLOADS[name](np.float32)
    monkeypatch.setattr(device, "_xp", np)
    monkeypatch.setattr(device, "current_xp", np)
    on_cpu = WORKLOADS[name](np.float32)
    assert len(on_device) == len(on_cpu)
    for got, want in zip(on_device, on_cpu):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _train_mlp(steps, jit):
    ms.set_seed(0)
    model = nn.SequentialCell([nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 3)])
    optimizer = nn.Momentum(model.trainable_params(), 0.1, 0.9)
    loss_fn = nn.CrossEntropyLoss()
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(model(x), y), None, optimizer.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        return loss

    step = ms.jit(step) if jit else step
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((5, 6)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 3, 5).astype(np.int32))
    losses = [step(x, y) for _ in range(2)]  # warm-up (and compile)
    downloads, uploads = Transfers.downloads, Transfers.uploads
    losses += [step(x, y) for _ in range(steps)]
    moved = (Transfers.downloads - downloads, Transfers.uploads - uploads)
    return [float(loss) for loss in losses], moved


@pytest.mark.parametrize("jit", [False, True], ids=["pynative", "graph"])
def test_training_steps_move_no_array_between_host_and_device(jit, fake_device, monkeypatch):
    losses, moved = _train_mlp(steps=3, jit=jit)
    assert moved == (0, 0)
    monkeypatch.setattr(device, "_xp", np)
    monkeypatch.setattr(device, "current_xp", np)
    cpu_losses, _ = _train_mlp(steps=3, jit=jit)
    np.testing.assert_allclose(losses, cpu_losses, rtol=1e-6)


def test_eager_ops_indexing_and_printing_stay_on_the_device(fake_device, capsys):
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    y = ops.softmax(x * 0.5 - 1.0, axis=1)
    picked = x[np.array([2, 0])]  # a numpy index moves to the device once
    masked = x[x > 5.0]           # a mask's positions are read on the host (data-dependent shape)
    top = ops.argmax(y, axis=1)
    assert isinstance(y._data, DeviceArray) and isinstance(picked._data, DeviceArray)
    assert isinstance(top._data, DeviceArray) and isinstance(masked._data, DeviceArray)
    assert picked.asnumpy().tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    assert masked.asnumpy().tolist() == [6, 7, 8, 9, 10, 11]
    assert top.asnumpy().tolist() == [3, 3, 3]

    @ms.jit
    def show(t):
        print("value:", t * 2)
        return t + 1

    assert show(ms.Tensor([1.0, 2.0])).asnumpy().tolist() == [2.0, 3.0]
    assert "value: [2. 4.]" in capsys.readouterr().out


def test_graph_constants_live_on_the_host_until_a_program_uploads_them(fake_device):
    table = np.array([0.5, 1.5, 2.5], np.float32)

    @ms.jit
    def f(x):
        return x * ms.Tensor(table) + 1.0

    x = ms.Tensor(np.ones(3, np.float32))
    assert f(x).asnumpy().tolist() == [1.5, 2.5, 3.5]
    uploads = Transfers.uploads
    assert f(x).asnumpy().tolist() == [1.5, 2.5, 3.5]
    assert Transfers.uploads == uploads  # constants were uploaded once, with the program


def test_to_device_and_to_host_round_trip(fake_device):
    a = np.arange(4.0)
    on_device = device.to_device(a)
    assert isinstance(on_device, DeviceArray)
    assert device.to_host(on_device).tolist() == a.tolist()
    assert device.to_host(a) is a
