"""Gradients of selections (x[t], x[:, a:b], x[index_tensor]) sum into one buffer of x's size
per tensor (ops.array.index_add_many), not one zero-filled full-size array per selection:
the buffers a backward pass makes are linear in the number of selections, in both modes."""
import numpy as np
import pytest

import minispore as ms
from minispore import ops
from minispore.compiler.trace import trace
from minispore.context import interpreter


def _unrolled(x, w):
    """An LSTM-like unroll: one product, then x[t] and column slices of it at every step."""
    xp = ops.matmul(x, w)                      # (T, B, 4H)
    h = ops.zeros(xp[0].shape[:1] + (w.shape[1] // 4,), xp.dtype)
    total = 0
    quarter = w.shape[1] // 4
    for t in range(x.shape[0]):
        g = xp[t]
        h = ops.tanh(g[:, :quarter]) * ops.sigmoid(g[:, quarter:2 * quarter]) + h * 0.5
        total = total + ops.sum(h * g[:, 3 * quarter:])
    rows = xp[ms.Tensor([0, 0, x.shape[0] - 1])]   # a tensor index, a repeated row
    return total + ops.sum(rows * rows)


def _inputs(steps, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((steps, 3, 5)), rng.standard_normal((5, 8)) * 0.5


def _torch_grads(x, w):
    torch = pytest.importorskip("torch", reason="reference gradients from PyTorch")
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    xp = tx @ tw
    q = w.shape[1] // 4
    h, total = torch.zeros(xp.shape[1], q, dtype=xp.dtype), 0
    for t in range(x.shape[0]):
        g = xp[t]
        h = torch.tanh(g[:, :q]) * torch.sigmoid(g[:, q:2 * q]) + h * 0.5
        total = total + (h * g[:, 3 * q:]).sum()
    rows = xp[torch.tensor([0, 0, x.shape[0] - 1])]
    (total + (rows * rows).sum()).backward()
    return tx.grad.numpy(), tw.grad.numpy()


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_selection_gradients_match_pytorch(mode):
    x, w = _inputs(6)
    grad = ms.grad(_unrolled, (0, 1))
    if mode == "graph":
        grad = ms.jit(grad)
    got = grad(ms.Tensor(x), ms.Tensor(w))
    for g, want in zip(got, _torch_grads(x, w)):
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-12, atol=1e-12)


def test_selection_gradients_second_order_match_finite_differences():
    x, w = _inputs(3, seed=1)
    v = np.random.default_rng(2).standard_normal(w.shape)

    def directional(w_):  # d/dw <grad_w f(x, w), v>
        dw = ms.grad(_unrolled, 1)(ms.Tensor(x), w_)
        return ops.sum(dw * ms.Tensor(v))

    got = ms.grad(directional)(ms.Tensor(w)).asnumpy()
    eps, want = 1e-5, np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = eps
        want[i] = (float(directional(ms.Tensor(w + e))) -
                   float(directional(ms.Tensor(w - e)))) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def _full_size_nodes(graph, shape):
    return [n for n in graph.nodes if any(tuple(o.shape) == shape for o in n.outputs)]


def test_the_traced_backward_makes_a_bounded_number_of_full_size_buffers():
    counts = {}
    for steps in (4, 16):
        x, w = _inputs(steps)
        grad = ms.grad(_unrolled, (0, 1))
        graph = trace(grad, (ms.Tensor(x), ms.Tensor(w)), {}, "unrolled_grad").graph
        full = _full_size_nodes(graph, (steps, 3, 8))
        counts[steps] = len(full)
        assert [n.prim.name for n in full].count("index_add_many") == 1
        assert not [n for n in full if n.prim.name in ("index_add", "zeros_like")]
    assert counts[4] == counts[16]


class _CountingInterpreter:
    """The eager interpreter, noting the shape of every result."""

    def __init__(self, inner):
        self.inner, self.shapes = inner, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def process(self, prim, args, attrs):
        out = self.inner.process(prim, args, attrs)
        for o in out if isinstance(out, tuple) else (out,):
            self.shapes.append(tuple(getattr(o, "shape", ())))
        return out


def test_pynative_backward_makes_a_bounded_number_of_full_size_buffers():
    counts = {}
    for steps in (4, 16):
        x, w = _inputs(steps)
        tx, tw = ms.Tensor(x), ms.Tensor(w)
        counting = _CountingInterpreter(interpreter.current())
        with interpreter.using(counting):
            ms.grad(_unrolled, (0, 1))(tx, tw)
        counts[steps] = counting.shapes.count((steps, 3, 8))
    assert counts[4] == counts[16]
