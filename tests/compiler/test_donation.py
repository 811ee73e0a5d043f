"""Donated state buffers: a compiled SGD step updates a weight inside its current buffer when
nothing but the Parameter holds that buffer, and never when anything else could see it."""
import numpy as np
import pytest
from graph_workloads import compiled_train_step
from helpers import assert_close

import minispore as ms
from minispore import nn, ops
from minispore.compiler import executor

IN, OUT, BATCH = 256, 256, 128  # the weight's gradient GEMM is past blas.MIN_MACS


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((OUT, IN)) * 0.05).astype(np.float32)
    x = rng.standard_normal((BATCH, IN)).astype(np.float32)
    labels = rng.integers(0, OUT, BATCH).astype(np.int32)
    return w, x, labels


def _train_step(w):
    """(net, jitted SGD step(x, labels) -> loss) for one Dense layer and cross-entropy."""
    net = nn.Dense(IN, OUT, weight_init=ms.Tensor(w), bias_init="zeros")
    return net, compiled_train_step(net, nn.SGD(net.trainable_params(), learning_rate=0.1))


def _reference_weights(w, x, labels, steps):
    """The weight after `steps` SGD steps run eagerly (no buffer is ever reused there)."""
    net, step = _train_step(w)
    ms.set_context(jit_enable=False)
    try:
        for _ in range(steps):
            step(ms.Tensor(x), ms.Tensor(labels))
    finally:
        ms.set_context(jit_enable=True)
    return net.weight.asnumpy()


def test_an_sgd_step_updates_the_weight_in_its_own_buffer_with_pynative_values():
    w, x, labels = _problem()
    net, step = _train_step(w)
    step(ms.Tensor(x), ms.Tensor(labels))
    address = net.weight._data.__array_interface__["data"][0]
    for _ in range(2):
        step(ms.Tensor(x), ms.Tensor(labels))
    assert net.weight._data.__array_interface__["data"][0] == address
    donating = [s.label for s in next(iter(step.cache.values())).program.donating]
    assert donating == ["ops.addmm"]
    assert_close(net.weight.asnumpy(), _reference_weights(w, x, labels, 3), rtol=1e-5, atol=1e-6)


def test_a_buffer_someone_else_holds_is_never_overwritten():
    w, x, labels = _problem()
    net, step = _train_step(w)
    step(ms.Tensor(x), ms.Tensor(labels))
    held = net.weight.asnumpy()  # shares the buffer (CPU): it must keep its values
    snapshot = net.weight.value()
    before = held.copy()
    step(ms.Tensor(x), ms.Tensor(labels))
    np.testing.assert_array_equal(held, before)
    np.testing.assert_array_equal(snapshot.asnumpy(), before)
    assert not np.array_equal(net.weight.asnumpy(), before)


def test_a_failing_step_leaves_every_parameter_as_it_was():
    w, x, labels = _problem()
    net, step = _train_step(w)
    step(ms.Tensor(x), ms.Tensor(labels))
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    bad = labels.copy()
    bad[3] = OUT + 5  # out of range: the loss kernel raises, at run time
    with pytest.raises(Exception, match="label"):
        step(ms.Tensor(x), ms.Tensor(bad))
    for p, old in zip(net.trainable_params(), before):
        np.testing.assert_array_equal(p.asnumpy(), old)


def test_a_step_returning_the_old_weight_or_reading_it_after_the_update_gets_old_values():
    w, x, _ = _problem()
    weight = ms.Parameter(ms.Tensor(w.copy()), name="w")

    @ms.jit
    def update_and_return_old(x):
        old = weight * 1  # a new array: a plain value
        ops.assign(weight, weight - 0.5 * ops.matmul(x, x, transpose_a=True))
        return old, weight

    old, new = update_and_return_old(ms.Tensor(x))
    assert_close(old.asnumpy(), w)
    want = w - 0.5 * (x.T.astype(np.float64) @ x)
    assert_close(new.asnumpy(), want, rtol=1e-4, atol=1e-4, check_dtype=False)
    assert_close(weight.asnumpy(), want, rtol=1e-4, atol=1e-4, check_dtype=False)


def test_an_update_traced_before_a_failing_op_is_not_written():
    w, x, labels = _problem()
    weight = ms.Parameter(ms.Tensor(w.copy()), name="w")

    @ms.jit
    def update_then_loss(x, labels):
        ops.assign(weight, weight - 0.5 * ops.matmul(x, x, transpose_a=True))
        return ops.cross_entropy(x, labels)  # independent of the update: traced after it

    update_then_loss(ms.Tensor(x), ms.Tensor(labels))
    assert [s.label for s in next(iter(update_then_loss.cache.values())).program.donating] \
        == ["ops.addmm"]
    after_one = weight.asnumpy().copy()
    bad = labels.copy()
    bad[0] = -7
    with pytest.raises(ValueError, match="label"):
        update_then_loss(ms.Tensor(x), ms.Tensor(bad))
    np.testing.assert_array_equal(weight.asnumpy(), after_one)
    update_then_loss(ms.Tensor(x), ms.Tensor(labels))
    want = after_one - 0.5 * (x.T.astype(np.float64) @ x)
    assert_close(weight.asnumpy(), want, rtol=1e-4, atol=1e-3, check_dtype=False)


def _adam_step(w):
    net = nn.Dense(IN, OUT, weight_init=ms.Tensor(w), bias_init="zeros")
    optimizer = nn.Adam(net.trainable_params(), learning_rate=0.01)
    return net, optimizer, compiled_train_step(net, optimizer)


def _addresses(tensors):
    return [t._data.__array_interface__["data"][0] for t in tensors]


def test_a_fused_adam_update_writes_weight_and_moments_in_their_own_buffers(monkeypatch):
    w, x, labels = _problem()
    net, optimizer, step = _adam_step(w)
    step(ms.Tensor(x), ms.Tensor(labels))
    state = [net.weight, optimizer.moment1[0], optimizer.moment2[0]]
    addresses = _addresses(state)
    for _ in range(2):
        step(ms.Tensor(x), ms.Tensor(labels))
    assert _addresses(state) == addresses
    donating = next(iter(step.cache.values())).program.donating
    assert any(len(s.donated) == 3 and s.label.startswith("fused kernel") for s in donating)

    # the same compiled step writing new buffers computes the very same numbers
    monkeypatch.setattr(executor, "_can_donate", lambda step, pairs: None)
    ref_net, ref_optimizer, ref_step = _adam_step(w)
    for _ in range(3):
        ref_step(ms.Tensor(x), ms.Tensor(labels))
    assert not next(iter(ref_step.cache.values())).program.donating
    for mine, theirs in zip(state, [ref_net.weight, ref_optimizer.moment1[0],
                                    ref_optimizer.moment2[0]]):
        np.testing.assert_array_equal(mine.asnumpy(), theirs.asnumpy())


def test_a_fused_update_leaves_a_moment_someone_holds_alone():
    w, x, labels = _problem()
    _, optimizer, step = _adam_step(w)
    step(ms.Tensor(x), ms.Tensor(labels))
    held = optimizer.moment1[0].asnumpy()  # shares the buffer: it must keep its values
    before = held.copy()
    step(ms.Tensor(x), ms.Tensor(labels))
    np.testing.assert_array_equal(held, before)
    assert not np.array_equal(optimizer.moment1[0].asnumpy(), before)


def test_a_data_parallel_step_updates_parameters_in_place():
    """The gradient mean of nn.DistributedGradReducer fuses into SGD's update, which writes
    each parameter in its own buffer (a one-process world standing in for two ranks)."""
    w, x, labels = _problem()
    net = nn.Dense(IN, OUT, weight_init=ms.Tensor(w), bias_init="zeros")
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.1)
    reducer = nn.DistributedGradReducer(optimizer.parameters, mean=True, degree=2)
    grad_fn = ms.value_and_grad(lambda x, y: ops.cross_entropy(net(x), y), None,
                                optimizer.parameters)

    @ms.jit
    def step(x, labels):
        loss, grads = grad_fn(x, labels)
        optimizer(reducer(grads))
        return loss

    step(ms.Tensor(x), ms.Tensor(labels))
    address = _addresses([net.weight])
    step(ms.Tensor(x), ms.Tensor(labels))
    assert _addresses([net.weight]) == address
    before = net.weight.asnumpy().copy()
    ms.set_context(jit_enable=False)
    try:
        _, grads = grad_fn(ms.Tensor(x), ms.Tensor(labels))
    finally:
        ms.set_context(jit_enable=True)
    step(ms.Tensor(x), ms.Tensor(labels))
    assert_close(net.weight.asnumpy(), before - 0.1 * grads[0].asnumpy() / 2,
                 rtol=1e-5, atol=1e-6)


def test_updates_of_one_structure_run_as_one_multi_tensor_kernel(monkeypatch):
    """Adam's updates of a network's weights (one structure) are one kernel call over all of
    them, in place, with the numbers of one call per weight."""
    rng = np.random.default_rng(3)
    x = ms.Tensor(rng.standard_normal((16, 32)).astype(np.float32))
    labels = ms.Tensor(rng.integers(0, 8, 16).astype(np.int32))

    def train(steps=3):
        """(parameters and moments, whether their buffers stayed, the step's program)"""
        ms.set_seed(0)
        net = nn.SequentialCell(nn.Dense(32, 32), nn.ReLU(), nn.Dense(32, 32), nn.ReLU(),
                                nn.Dense(32, 8))
        optimizer = nn.Adam(net.trainable_params(), learning_rate=0.01)
        step = compiled_train_step(net, optimizer)
        # the weights and their moments (a bias's update fuses with its gradient's sum)
        state = [p for p in list(net.trainable_params()) + list(optimizer.moment1) if p.ndim == 2]
        step(x, labels)
        addresses = _addresses(state)
        for _ in range(steps - 1):
            step(x, labels)
        values = [t.asnumpy() for t in net.trainable_params() + list(optimizer.moment2)]
        return values, _addresses(state) == addresses, next(iter(step.cache.values())).program

    values, kept, program = train()
    merged = [s for s in program.donating if s.label.startswith("fused update of 3 tensors")]
    assert len(merged) == 1 and len(merged[0].donated) == 9  # 3 weights, 3 x 2 moments
    assert kept

    monkeypatch.setattr(executor.Program, "merge_updates", False)
    ref_values, ref_kept, ref_program = train()
    assert ref_kept and not any(s.label.startswith("fused update") for s in ref_program.donating)
    for mine, theirs in zip(values, ref_values):
        np.testing.assert_array_equal(mine, theirs)


def test_an_update_kernel_that_runs_in_place_compiles_its_allocating_twin_only_when_needed(
        monkeypatch):
    """With background compilation, the allocating kernel of an update that runs in place is
    taken off the queue (reaching compiled speed sooner); a call that cannot donate (a user
    holds the moment) compiles it then."""
    from minispore.compiler.codegen.background import COMPILER
    monkeypatch.setenv("MINISPORE_SYNC_COMPILE", "0")
    w, x, labels = _problem(5)
    _, optimizer, step = _adam_step(w)
    step(ms.Tensor(x), ms.Tensor(labels))
    assert COMPILER.wait(120)
    donating = next(iter(step.cache.values())).program.donating
    plain = [s.fn for s in donating if s.label.startswith("fused kernel")]
    assert plain and all(fn.deferred_for is not None and fn.kernel is None for fn in plain)
    step(ms.Tensor(x), ms.Tensor(labels))      # in place: still not needed
    assert all(fn.deferred_for is not None for fn in plain)
    held = optimizer.moment1[0].asnumpy()      # shares the moment's buffer: no donation
    step(ms.Tensor(x), ms.Tensor(labels))
    assert COMPILER.wait(120)
    assert all(fn.deferred_for is None and fn.kernel is not None for fn in plain)
    del held
