"""All-reduce buckets: in a compiled data-parallel step each gradient's producer writes into
its slice of the bucket, and the concatenation copies nothing (compiler.buckets)."""
import numpy as np
from helpers import assert_close

import minispore as ms
from minispore import nn, ops
from minispore.compiler.buckets import _Gather


def _data_parallel_step(seed=0):
    """A two-layer net's SGD step reducing its gradients with a DistributedGradReducer (a
    one-process world standing in for two ranks: the sum is the gradient, halved)."""
    ms.set_seed(seed)
    net = nn.SequentialCell(nn.Dense(64, 128), nn.ReLU(), nn.Dense(128, 10))
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.1)
    reducer = nn.DistributedGradReducer(optimizer.parameters, mean=True, degree=2)
    grad_fn = ms.value_and_grad(lambda x, y: ops.cross_entropy(net(x), y), None,
                                optimizer.parameters)

    def step(x, labels):
        loss, grads = grad_fn(x, labels)
        optimizer(reducer(grads))
        return loss

    return net, step


def _batch():
    rng = np.random.default_rng(0)
    return (ms.Tensor(rng.standard_normal((32, 64)).astype(np.float32)),
            ms.Tensor(rng.integers(0, 10, 32).astype(np.int32)))


def test_gradients_are_computed_into_the_bucket_and_train_as_pynative():
    x, labels = _batch()
    net, step = _data_parallel_step()
    compiled = ms.jit(step)
    for _ in range(3):
        compiled(x, labels)
    program = next(iter(compiled.cache.values())).program
    gather = [s.fn for s in program.steps if isinstance(s.fn, _Gather)]
    assert len(gather) == 1 and len(gather[0].sizes) == 4
    assert gather[0].copied == 0  # every gradient was written in place
    assert sum(s.label.startswith("bucket of 9610") for s in program.steps) == 1

    ref_net, ref_step = _data_parallel_step()
    ms.set_context(jit_enable=False)
    try:
        for _ in range(3):
            ref_step(x, labels)
    finally:
        ms.set_context(jit_enable=True)
    for mine, theirs in zip(net.trainable_params(), ref_net.trainable_params()):
        assert_close(mine.asnumpy(), theirs.asnumpy(), rtol=1e-5, atol=1e-6)


def test_a_part_that_is_not_computed_in_place_is_copied_into_the_bucket():
    a = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))

    @ms.jit
    def flat(a, b):
        return ops.concat([ops.reshape(ops.matmul(a, a.T), (-1,)), b, ops.reshape(a, (-1,))])

    b = ms.Tensor(np.array([7.0, 8.0], np.float32))
    out = flat(a, b).asnumpy()
    want = np.concatenate([(a.asnumpy() @ a.asnumpy().T).ravel(), [7, 8], np.arange(6)])
    np.testing.assert_array_equal(out, want)


def test_an_unrolled_loop_writes_each_step_into_the_stacked_output():
    """An RNN written with ops, its outputs stacked along a new first axis: each step's kernel
    writes its block of the stacked tensor; the concatenation copies nothing."""
    rng = np.random.default_rng(2)
    w = ms.Tensor(rng.standard_normal((16, 16)).astype(np.float32) * 0.3)
    xs = ms.Tensor(rng.standard_normal((5, 4, 16)).astype(np.float32))

    def unrolled(xs, w):
        h, outs = xs[0] * 0, []
        for t in range(xs.shape[0]):
            h = ops.sigmoid(ops.matmul(h, w) + xs[t]) * 2 - 1  # one fused kernel writes h
            outs.append(ops.expand_dims(h, 0))
        return ops.concat(outs, 0)

    compiled = ms.jit(unrolled)
    out = compiled(xs, w)
    program = next(iter(compiled.cache.values())).program
    gather = [s.fn for s in program.steps if isinstance(s.fn, _Gather)]
    assert len(gather) == 1 and gather[0].copied == 0
    ms.set_context(jit_enable=False)
    try:
        want = unrolled(xs, w)
    finally:
        ms.set_context(jit_enable=True)
    assert_close(out.asnumpy(), want.asnumpy(), rtol=1e-6, atol=1e-6)
