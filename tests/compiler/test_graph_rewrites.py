"""Graph passes that remove steps (views of views, GEMM epilogues) and the hand-written
numba kernels (codegen.cpu_kernels) that Graph mode runs for softmax-like primitives."""
import numpy as np
import pytest
from helpers import assert_close

import minispore as ms
from minispore import ops
from minispore.compiler import passes
from minispore.compiler.codegen import numba_cpu
from minispore.compiler.codegen.cpu_kernels import CPU_KERNELS
from minispore.compiler.trace import trace
from minispore.core.ir import Node, Var
from minispore.ops.primitive import REGISTRY


def _optimized(fn, *arrays):
    graph = trace(fn, tuple(ms.Tensor(a) for a in arrays), {}, fn.__name__).graph
    return passes.optimize(graph)


def _names(graph):
    return [n.prim.name for n in graph.nodes]


def _rng_arrays(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


# ***** views of views *****

def test_a_transpose_of_a_transpose_disappears_and_composes_otherwise():
    def cancel(x):
        return ops.transpose(ops.transpose(x, (1, 0, 2)), (1, 0, 2)) * 2

    def compose(x):
        return ops.transpose(ops.transpose(x, (1, 0, 2)), (0, 2, 1)) * 2

    x, = _rng_arrays((2, 3, 4))
    assert "transpose" not in _names(_optimized(cancel, x))
    graph = _optimized(compose, x)
    assert _names(graph).count("transpose") == 1
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = ms.jit(compose)(ms.Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert_close(got, np.transpose(x, (1, 0, 2)).transpose(0, 2, 1) * 2)


def test_reshape_of_a_kept_dims_reduction_is_the_reduction_without_them():
    def column_sums(x):
        return ops.reshape(ops.sum(x, 0, keepdims=True), (4,)) + 1

    x, = _rng_arrays((3, 4))
    graph = _optimized(column_sums, x)
    sums = [n for n in graph.nodes if n.prim.name == "reduce_sum"]
    assert "reshape" not in _names(graph) and sums and not sums[0].attrs["keep_dims"]
    assert_close(ms.jit(column_sums)(ms.Tensor(x)).asnumpy(), x.sum(0) + 1, rtol=1e-6)


# ***** transposes read by products *****

def _dense_train_step(w, x, dz):
    """A Dense layer's forward (weight kept (out, in)) and its weight update by hand."""
    out = ops.matmul(x, ops.transpose(w, (1, 0)))
    grad_w = ops.transpose(ops.matmul(ops.transpose(x, (1, 0)), dz), (1, 0))
    return out, w - 0.5 * grad_w


def test_transposes_read_by_products_become_transpose_flags():
    w, x, dz = _rng_arrays((5, 3), (4, 3), (4, 5))
    graph = _optimized(_dense_train_step, w, x, dz)
    assert "transpose" not in _names(graph)
    flags = {n.prim.name: n.attrs for n in graph.nodes}
    # x @ w^T; the update w - 0.5 * dz^T @ x: the weight gradient comes out as (out, in)
    assert flags == {"matmul": {"transpose_b": True}, "addmm": {"transpose_a": True}}
    got = ms.jit(_dense_train_step)(*(ms.Tensor(v) for v in (w, x, dz)))
    x64 = x.astype(np.float64)
    assert_close(got[0].asnumpy(), x64 @ w.T, rtol=1e-6, check_dtype=False)
    assert_close(got[1].asnumpy(), w - 0.5 * (dz.T @ x64), rtol=1e-6, check_dtype=False)


def test_a_transposed_product_of_transposed_operands_flips_both_flags():
    def f(a, b):
        return ops.transpose(ops.matmul(a, b, transpose_a=True), (1, 0)) * 2

    a, b = _rng_arrays((3, 4), (3, 5))
    graph = _optimized(f, a, b)
    products = [n for n in graph.nodes if n.prim.name == "matmul"]
    assert "transpose" not in _names(graph) and products[0].attrs == {"transpose_a": True}
    assert products[0].inputs[0].shape == (3, 5)  # (a^T b)^T = b^T a
    assert_close(ms.jit(f)(ms.Tensor(a), ms.Tensor(b)).asnumpy(), (a.T @ b).T * 2, rtol=1e-6)


def test_matmul_transpose_flags_reject_vectors_and_mismatched_shapes():
    a, b = _rng_arrays((3, 4), (3, 5))
    with pytest.raises(ValueError, match="transpose_a/transpose_b need matrices"):
        ops.matmul(ms.Tensor(a[0]), ms.Tensor(b), transpose_b=True)
    with pytest.raises(ms.ops.OpShapeError, match=r"\(4, 3\) @ \(5, 3\)"):
        ops.matmul(ms.Tensor(a), ms.Tensor(b), transpose_a=True, transpose_b=True)


# ***** GEMM epilogues *****

def _sgd_update(w, a, b, lr):
    return w - lr * ops.matmul(a, b)


def test_an_sgd_style_update_becomes_one_addmm_with_the_same_values():
    w, a, b = _rng_arrays((64, 96), (64, 128), (128, 96))
    lr = np.float32(0.1)
    graph = _optimized(_sgd_update, w, a, b, lr)
    assert "addmm" in _names(graph) and "matmul" not in _names(graph)
    got = ms.jit(_sgd_update)(*(ms.Tensor(v) for v in (w, a, b, lr))).asnumpy()
    assert_close(got, w - 0.1 * (a.astype(np.float64) @ b), rtol=1e-5, atol=1e-4, check_dtype=False)


def test_epilogue_fusion_leaves_shared_products_and_broadcast_biases_alone():
    def shared(w, a, b):
        product = ops.matmul(a, b)
        return w + product, product

    def biased(bias, a, b):
        return ops.relu(ops.matmul(a, b) + bias)

    w, a, b, bias = _rng_arrays((4, 5), (4, 3), (3, 5), (5,))
    assert "addmm" not in _names(_optimized(shared, w, a, b))
    assert "addmm" not in _names(_optimized(biased, bias, a, b))


# ***** hand-written kernels: every primitive that has one, against its impl *****

KERNEL_CASES = {
    "softmax": [dict(axis=(1,))],
    "log_softmax": [dict(axis=(1,))],
    "biased_softmax": [dict(scale=0.5), dict(scale=1.0)],
    "sparse_softmax_cross_entropy": [dict(ignore_index=i, reduction=r)
                                     for i in (None, 2) for r in ("mean", "sum", "none")],
    "sparse_softmax_cross_entropy_grad": [dict(ignore_index=i, reduction=r)
                                          for i in (None, 2) for r in ("mean", "sum", "none")],
    "sparse_softmax_cross_entropy_and_grad": [dict(ignore_index=i, reduction=r)
                                              for i in (None, 2) for r in ("mean", "sum", "none")],
    "all_finite": [dict()],
    "lstm_recurrence": [dict(reverse=False), dict(reverse=True)],
    "lstm_recurrence_grad": [dict(reverse=False), dict(reverse=True)],
    "rnn_recurrence": [dict(mode=m, reverse=r) for m in ("RNN_TANH", "RNN_RELU", "GRU")
                       for r in (False, True)],
    "rnn_recurrence_grad": [dict(mode=m, reverse=r) for m in ("RNN_TANH", "RNN_RELU", "GRU")
                            for r in (False, True)],
}


def _rnn_inputs(name, dtype, attrs, rng):
    """As _lstm_inputs, for the Elman RNN and GRU recurrences."""
    width = (3 if attrs["mode"] == "GRU" else 1) * 3
    gi, h0, w_hh, b_ih, b_hh = (rng.standard_normal(shape).astype(dtype) for shape in
                                ((4, 4, width), (4, 3), (width, 3), (width,), (width,)))
    lengths = np.array([4, 2, 0, 4], np.int32)
    if name == "rnn_recurrence":
        return [gi, h0, w_hh, b_ih, b_hh, lengths]
    outs = REGISTRY["rnn_recurrence"].impl(np, gi, h0, w_hh, b_ih, b_hh, lengths, **attrs)
    cotangents = [rng.standard_normal(o.shape).astype(dtype) for o in outs]
    return [w_hh, outs[2], outs[3], lengths, *cotangents]


def _lstm_inputs(name, dtype, attrs, rng):
    """T 4, B 4 (lengths 4, 2, 0, 4: finished and empty sequences beside full ones), H 3."""
    gi, h0, c0 = (rng.standard_normal(shape).astype(dtype) for shape in
                  ((4, 4, 12), (4, 3), (4, 3)))
    w_hh = (rng.standard_normal((12, 3)) * 0.5).astype(dtype)
    bias = rng.standard_normal(12).astype(dtype)
    lengths = np.array([4, 2, 0, 4], np.int32)
    if name == "lstm_recurrence":
        return [gi, h0, c0, w_hh, bias, lengths]
    outs = REGISTRY["lstm_recurrence"].impl(np, gi, h0, c0, w_hh, bias, lengths, **attrs)
    cotangents = [rng.standard_normal(o.shape).astype(dtype) for o in outs]
    return [w_hh, outs[3], outs[5], lengths, *cotangents]


def test_every_primitive_with_a_kernel_has_cases_here():
    with_kernels = {prim.name for prim in CPU_KERNELS}
    assert with_kernels == set(KERNEL_CASES)


def _inputs(name, dtype, attrs, rng):
    if name.startswith("lstm_"):
        return _lstm_inputs(name, dtype, attrs, rng)
    if name.startswith("rnn_"):
        return _rnn_inputs(name, dtype, attrs, rng)
    logits = (rng.standard_normal((6, 5)) * 30).astype(dtype)
    logits[1] = [np.inf, 1, 2, 3, 4]           # an infinite logit
    logits[3] = [1e30, -1e30, 0, 5, 5]         # huge spread
    logits[4, 2] = np.nan                      # nan propagates
    if name in ("softmax", "log_softmax"):
        return [logits]
    if name == "all_finite":       # finite rows, then all of them (inf and nan among them)
        return [logits[[0, 2, 5]], logits[[0, 2, 5]].T, logits]
    if name == "biased_softmax":   # a mask's bias: -1e30 where masked, shared by the rows
        bias = np.where(rng.random((1, 5)) > 0.6, -1e30, rng.standard_normal((1, 5)))
        return [logits, bias.astype(dtype)]
    labels = np.array([0, 2, 4, 1, 3, 2], np.int32)
    if name == "sparse_softmax_cross_entropy":
        return [logits, labels]
    dout = rng.standard_normal((6,) if attrs["reduction"] == "none" else ()).astype(dtype)
    return [logits, labels, dout]


def _kernel_step(name, inputs, attrs):
    prim = REGISTRY[name]
    with np.errstate(all="ignore"):  # inf - inf in the rows with infinite logits
        out = prim.impl(np, *inputs, **attrs)
    outs = out if prim.multiple_results else (out,)
    node = Node(prim, [Var(a.shape, a.dtype) for a in inputs], attrs,
                [Var(np.shape(o), o.dtype) for o in outs])
    step = numba_cpu.lower_primitive(node, background=False)
    numba_cpu.start([step])
    assert step.failed is None and step.kernel is not None
    return step, out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(KERNEL_CASES))
def test_kernel_matches_the_numpy_impl(name, dtype):
    rng = np.random.default_rng(3)
    multiple = REGISTRY[name].multiple_results
    for attrs in KERNEL_CASES[name]:
        inputs = _inputs(name, dtype, attrs, rng)
        step, want = _kernel_step(name, inputs, attrs)
        with np.errstate(all="ignore"):
            got = step(np, *inputs, **attrs)
        tol = 2e-6 if dtype == np.float32 else 1e-12
        for g, w in zip(got, want) if multiple else [(got, want)]:
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True,
                                       err_msg=f"{name} {attrs}")
            assert np.asarray(g).dtype == w.dtype and np.shape(g) == np.shape(w)


@pytest.mark.parametrize("name", ["sparse_softmax_cross_entropy",
                                  "sparse_softmax_cross_entropy_and_grad"])
def test_cross_entropy_kernels_reject_labels_out_of_range_like_the_impl(name):
    logits, = _rng_arrays((3, 4))
    labels = np.array([0, 4, 1], np.int32)
    attrs = dict(ignore_index=None, reduction="mean")
    dout = [np.float32(1)] if name.endswith("_and_grad") else []
    step, _ = _kernel_step(name, [logits, np.zeros(3, np.int32), *dout], attrs)
    with pytest.raises(ValueError, match=r"class indices in \[0, 4\)"):
        step(np, logits, labels, *dout, **attrs)
    with pytest.raises(ValueError, match=r"class indices in \[0, 4\)"):
        REGISTRY[name].impl(np, logits, labels, *dout, **attrs)


def test_a_loss_and_its_gradient_on_the_same_logits_become_one_node():
    def loss_and_grad(logits, labels):
        return ms.value_and_grad(lambda z: ops.cross_entropy(z, labels))(logits)

    logits, = _rng_arrays((6, 5))
    labels = np.array([0, 2, 4, 1, 3, 2], np.int32)
    args = (ms.Tensor(logits), ms.Tensor(labels))
    names = _names(_optimized(loss_and_grad, logits, labels))
    assert names == ["sparse_softmax_cross_entropy_and_grad"]
    got, want = ms.jit(loss_and_grad)(*args), loss_and_grad(*args)
    assert_close([g.asnumpy() for g in got], [w.asnumpy() for w in want], rtol=1e-6)


def test_softmax_kernel_leaves_other_axes_to_the_impl():
    x, = _rng_arrays((3, 4))
    step, want = _kernel_step("softmax", [x], dict(axis=(0,)))
    assert_close(step(np, x, axis=(0,)), want)
