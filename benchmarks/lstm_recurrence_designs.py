"""Why nn.LSTM runs its time loop as one primitive in Graph mode: nn.LSTM (ops.recurrence's
lstm_recurrence: a GEMM and one numba kernel per time step inside one graph step) against the
same LSTM written with ops, unrolled by tracing the Python loop (a recurrent GEMM, the split
of the gates and one fused kernel per step, each a graph step) and as one ops.while_loop
node; all compiled with ms.jit (forward and backward, T=64, B=32, input and hidden 256; the
same loss).

The graph loop re-runs the forward in its backward (while_loop_vjp), reads each step's input
with a tensor index (whose gradient scatters into the whole sequence's shape) and writes each
step's output into the whole output buffer; the unrolled graph pays a dozen graph steps per
time step, copies of the split gates and an accumulation of W_hh's gradient per step.
Measured on the 2-core machine, one core, after the kernels compiled (2026-11-25, load
0.4-0.5, four runs): primitive 76-87 ms, unrolled 86-91 ms, while_loop 125-142 ms per step;
first call (trace, then numpy while the kernels compile) 0.24-0.36 s, 0.9-1.0 s, 0.85-0.98 s.

    taskset -c 0 python -m benchmarks.lstm_recurrence_designs
"""
import time

import numpy as np

import minispore as ms
from minispore import nn, ops
from minispore.nn.layers.rnn_cells import chunks

from . import harness

T_, B, H = 64, 32, 256


def losses(lstm):
    """(primitive, unrolled, looped): sum of squared outputs of `lstm`, of the same LSTM
    written with ops in a Python loop, and as one ops.while_loop node."""
    w_ih, w_hh = lstm.weight_ih_l0, lstm.weight_hh_l0
    b_ih, b_hh = lstm.bias_ih_l0, lstm.bias_hh_l0

    def primitive(x):
        return ops.sum(lstm(x)[0] ** 2)

    def projected(x):
        xw = ops.matmul(ops.reshape(x, (T_ * B, H)), w_ih, transpose_b=True) + b_ih + b_hh
        return ops.reshape(xw, (T_, B, 4 * H))

    def cell(xw_t, h, c):
        xs, hs = chunks(xw_t, 4), chunks(ops.matmul(h, w_hh, transpose_b=True), 4)
        i, f = ops.sigmoid(xs[0] + hs[0]), ops.sigmoid(xs[1] + hs[1])
        g, o = ops.tanh(xs[2] + hs[2]), ops.sigmoid(xs[3] + hs[3])
        c = f * c + i * g
        return o * ops.tanh(c), c

    def unrolled(x):
        xw = projected(x)
        h = c = ops.zeros((B, H), ms.float32)
        outs = []
        for t in range(T_):
            h, c = cell(xw[t], h, c)
            outs.append(h)
        return ops.sum(ops.stack(outs) ** 2)

    def looped(x):
        xw = projected(x)

        def body(v):
            t, h, c, outs = v
            h, c = cell(xw[t], h, c)
            outs = ops.tensor_scatter_update(outs, ops.reshape(t, (1, 1)), ops.expand_dims(h, 0))
            return t + 1, h, c, outs

        z = ops.zeros((B, H), ms.float32)
        init = (ms.Tensor(0, ms.int32), z, z, ops.zeros((T_, B, H), ms.float32))
        outs = ops.while_loop(lambda v: v[0] < T_, body, init)[3]
        return ops.sum(outs ** 2)

    return primitive, unrolled, looped


def main():
    lstm = nn.LSTM(H, H)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((T_, B, H)).astype(np.float32))
    for name, fn in zip(("primitive", "unrolled", "while_loop"), losses(lstm)):
        step = ms.jit(ms.value_and_grad(fn, 0, lstm.trainable_params()))
        t0 = time.perf_counter()
        loss, _ = step(x)
        first = time.perf_counter() - t0
        harness.wait_for_kernels(300)
        times = []
        for _ in range(7):
            t0 = time.perf_counter()
            step(x)
            times.append(time.perf_counter() - t0)
        print(f"{name}: loss {float(loss):.4f}, first call {first:.2f} s, "
              f"median {np.median(times) * 1e3:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
