"""CUDA-graph replay of compiled programs, and the host<->device copies of training steps
(`pytest --gpu` on a machine with CuPy and an NVIDIA GPU; skipped elsewhere)."""
import numpy as np
import pytest
from gpu_env import GPU_MARKS
from graph_workloads import MLP, _classification_batch, compiled_train_step

import minispore as ms
from minispore import nn, ops

pytestmark = GPU_MARKS


@pytest.fixture
def gpu():
    ms.set_context(device_target="GPU")
    yield
    ms.set_context(device_target="CPU")


def programs_of(jitted):
    """The Programs a jitted function compiled (one per cached signature)."""
    return [exe.program for exe in jitted.cache.values() if hasattr(exe, "program")]


def _sgd_training(steps, dtype=np.float32):
    """(jitted step, [losses as Tensors], parameters as numpy arrays) of an MLP trained with SGD."""
    model = MLP((12, 32, 32, 4), dtype)
    x, labels = _classification_batch(16, (12,), 4, dtype)
    step = compiled_train_step(model, nn.SGD(model.trainable_params(), learning_rate=0.05))
    losses = [step(x, labels) for _ in range(steps)]
    return step, losses, [p.asnumpy() for p in model.trainable_params()]


def test_a_train_step_is_replayed_as_a_cuda_graph_with_the_step_by_step_values(
        gpu, monkeypatch):
    step, losses, params = _sgd_training(8)
    [program] = programs_of(step)
    assert program.why_not is None and program.recording is not None
    # losses are fresh arrays: a later replay never overwrote an earlier step's result
    replayed = [float(loss.asnumpy()) for loss in losses]
    assert len(set(replayed)) == len(replayed) and replayed[-1] < replayed[0]

    monkeypatch.setenv("MINISPORE_CUDA_GRAPHS", "0")
    step_by_step, plain_losses, plain_params = _sgd_training(8)
    [plain] = programs_of(step_by_step)
    assert plain.recording is None and plain.why_not == "MINISPORE_CUDA_GRAPHS=0"
    np.testing.assert_array_equal(replayed, [float(loss.asnumpy()) for loss in plain_losses])
    for got, want in zip(params, plain_params):
        np.testing.assert_array_equal(got, want)

    ms.set_context(device_target="CPU")
    _, cpu_losses, cpu_params = _sgd_training(8)
    np.testing.assert_allclose(replayed, [float(loss.asnumpy()) for loss in cpu_losses],
                               rtol=1e-5)
    for got, want in zip(params, cpu_params):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_a_replay_reads_the_current_inputs_and_never_writes_into_them(gpu):
    f = ms.jit(lambda x, y: ops.tanh(x) * y + x @ y)
    rng = np.random.default_rng(0)
    pairs = [[rng.standard_normal((4, 4)).astype(np.float32) for _ in range(2)] for _ in range(5)]
    tensors = [[ms.Tensor(a) for a in pair] for pair in pairs]
    outs = [f(*pair) for pair in tensors]
    [program] = programs_of(f)
    assert program.recording is not None
    for (a, b), pair, out in zip(pairs, tensors, outs):
        np.testing.assert_allclose(out.asnumpy(), np.tanh(a) * b + a @ b, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(pair[0].asnumpy(), a)
        np.testing.assert_array_equal(pair[1].asnumpy(), b)


def test_programs_that_talk_to_the_host_are_not_replayed(gpu, capsys):
    dropped = ms.jit(lambda x: ops.dropout(x, p=0.5) + 1.0)
    printed = ms.jit(lambda x: print("sum:", x.sum()) or x * 2.0)
    x = ms.Tensor(np.ones(256, np.float32))
    masks = [dropped(x).asnumpy() for _ in range(4)]
    assert len({m.tobytes() for m in masks}) == 4  # a new mask every call
    for _ in range(3):
        printed(x)
    assert capsys.readouterr().out.count("sum: 256.0") == 3
    for f, name in ((dropped, "dropout_mask"), (printed, "print")):
        [program] = programs_of(f)
        assert program.recording is None and name in program.why_not


def test_a_parameter_of_a_new_shape_runs_step_by_step(gpu):
    weight = ms.Parameter(ms.Tensor(np.ones((3,), np.float32)), name="w")
    f = ms.jit(lambda x: ops.matmul(x * weight, x) + (x * weight).sum())
    x = ms.Tensor(np.full(3, 2.0, np.float32))
    for _ in range(3):
        f(x)
    [program] = programs_of(f)
    assert program.recording is not None
    weight.set_data(ms.Tensor(np.arange(3, dtype=np.float32)))
    assert float(f(x).asnumpy()) == 18.0  # 4 + 8, then 2 + 4


# ***** host <-> device copies, counted by the CUDA profiler (CUPTI) *****

def count_copies(fn):
    """(host-to-device, device-to-host) memory copies the GPU executed while fn() ran,
    as CUPTI records them (through PyTorch's profiler: it sees every library's copies)."""
    torch = pytest.importorskip("torch", reason="copies are counted with PyTorch's profiler")
    import cupy
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.init()
    cupy.cuda.Device().synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        cupy.cuda.Device().synchronize()
    names = [event.name for event in prof.events()]
    return sum("HtoD" in n for n in names), sum("DtoH" in n for n in names)


def test_the_copy_counter_sees_copies(gpu):
    x = ms.Tensor(np.ones(1000, np.float32))
    assert count_copies(lambda: x.asnumpy()) == (0, 1)
    assert count_copies(lambda: ms.Tensor(np.ones(1000, np.float32)) * 2.0) == (1, 0)


@pytest.mark.parametrize("jit", [False, True], ids=["pynative", "graph"])
def test_training_steps_copy_nothing_between_host_and_device(jit, gpu):
    model = MLP((12, 32, 32, 4), np.float32)
    x, labels = _classification_batch(16, (12,), 4, np.float32)
    optimizer = nn.Momentum(model.trainable_params(), learning_rate=0.05, momentum=0.9)
    if jit:
        step = compiled_train_step(model, optimizer)
    else:
        loss_fn = nn.CrossEntropyLoss()
        grad_fn = ms.value_and_grad(lambda x, y: loss_fn(model(x), y), None,
                                    optimizer.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            optimizer(grads)
            return loss

    for _ in range(3):  # compiles, records, uploads the Python scalars once
        step(x, labels)
    assert count_copies(lambda: [step(x, labels) for _ in range(5)]) == (0, 0)
