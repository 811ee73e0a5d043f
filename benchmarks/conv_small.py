"""Workload 6, conv_small: forward + backward of a LeNet-5-ish net (no parameter update).

conv 1->6 5x5 valid, ReLU, maxpool 2 -> conv 6->16 5x5, ReLU, maxpool 2 -> flatten 256 ->
dense 120, ReLU -> 84, ReLU -> 10 -> softmax cross-entropy (mean). Batch 32 of 1x28x28 N(0, 1)
and labels U{0..9} from default_rng(1); He-normal weights from default_rng(0) in layer order
(conv (out, in, 5, 5), dense (in, out)), every bias 0. `ms` = one call computing the loss and
the gradients of all parameters. Check: loss 5.3907 at init, and every adapter's gradients
against the hand-written numpy backward.

    python -m benchmarks.conv_small --adapter minispore_pynative
"""
import itertools

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import harness
from .harness import Adapters, main

BATCH = 32
CONV_SHAPES = ((6, 1, 5, 5), (16, 6, 5, 5))
DENSE_SIZES = (256, 120, 84, 10)
LOSS_INIT = 5.3907
KERNEL_WAIT_S = 120.0

ADAPTERS = Adapters()


def make_problem():
    """(params, x, labels): params = [conv1 w, b, conv2 w, b, fc1 w (in, out), b, ...]."""
    rng = np.random.default_rng(0)
    params = []
    for shape in CONV_SHAPES:
        fan_in = shape[1] * shape[2] * shape[3]
        params += [(rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32),
                   np.zeros(shape[0], np.float32)]
    for fan_in, fan_out in itertools.pairwise(DENSE_SIZES):
        params += [(rng.standard_normal((fan_in, fan_out)) * np.sqrt(2.0 / fan_in))
                   .astype(np.float32), np.zeros(fan_out, np.float32)]
    data = np.random.default_rng(1)
    x = data.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
    labels = data.integers(0, DENSE_SIZES[-1], BATCH).astype(np.int32)
    return params, x, labels


def check(ctx, loss, grads):
    """grads in make_problem's layout (dense weights (in, out))."""
    ctx.close("loss_init", float(loss), LOSS_INIT, atol=5e-4)
    want = numpy_loss_and_grads(*make_problem())[1]
    # error of each parameter's gradient relative to its largest entry; 1e-4 passes
    errors = [float(np.abs(np.asarray(g) - w).max() / np.abs(w).max()) if g.shape == w.shape
              else np.inf for g, w in zip(grads, want)]
    worst = int(np.argmax(errors))
    ctx.true("grads", len(grads) == len(want) and errors[worst] <= 1e-4,
             f"{len(grads)} gradients, worst relative error {errors[worst]:.2g} "
             f"(parameter {worst})")


# ***** numpy: hand-written forward and backward *****

def _conv(x, w):
    """Valid cross-correlation: x (N, C, H, W), w (O, C, k, k) -> (N, O, H-k+1, W-k+1)."""
    windows = sliding_window_view(x, w.shape[2:], axis=(2, 3))  # N, C, Ho, Wo, k, k
    return np.tensordot(windows, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)


def _conv_grads(x, w, dout, need_dx):
    windows = sliding_window_view(x, w.shape[2:], axis=(2, 3))
    dw = np.tensordot(dout, windows, axes=([0, 2, 3], [0, 2, 3]))
    dx = None
    if need_dx:  # full correlation of dout with the flipped kernel
        k = w.shape[2] - 1
        padded = np.pad(dout, ((0, 0), (0, 0), (k, k), (k, k)))
        dx = _conv(padded, w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    return dw, dout.sum(axis=(0, 2, 3)), dx


def _pool(x):
    """2x2 max pool: (output, one-hot mask of the first maximum of each window)."""
    n, c, h, w = x.shape
    windows = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5)
    windows = windows.reshape(n, c, h // 2, w // 2, 4)
    first_max = windows.argmax(axis=-1)
    mask = np.zeros_like(windows)
    np.put_along_axis(mask, first_max[..., None], 1.0, axis=-1)
    return np.take_along_axis(windows, first_max[..., None], axis=-1)[..., 0], mask


def _unpool(dout, mask):
    n, c, h2, w2, _ = mask.shape
    d = (mask * dout[..., None]).reshape(n, c, h2, w2, 2, 2).transpose(0, 1, 2, 4, 3, 5)
    return d.reshape(n, c, 2 * h2, 2 * w2)


def numpy_loss_and_grads(params, x, labels):
    cw1, cb1, cw2, cb2, w1, b1, w2, b2, w3, b3 = params
    a1 = _conv(x, cw1) + cb1[:, None, None]
    p1, m1 = _pool(np.maximum(a1, 0))
    a2 = _conv(p1, cw2) + cb2[:, None, None]
    p2, m2 = _pool(np.maximum(a2, 0))
    f = p2.reshape(len(x), -1)
    d1 = f @ w1 + b1
    h1 = np.maximum(d1, 0)
    d2 = h1 @ w2 + b2
    h2 = np.maximum(d2, 0)
    z = h2 @ w3 + b3
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    total = e.sum(axis=1, keepdims=True)
    rows = np.arange(len(labels))
    loss = (np.log(total[:, 0]) - z[rows, labels]).mean()
    dz = e / total
    dz[rows, labels] -= 1
    dz /= len(labels)
    dd2 = (dz @ w3.T) * (d2 > 0)
    dd1 = (dd2 @ w2.T) * (d1 > 0)
    df = (dd1 @ w1.T).reshape(p2.shape)
    da2 = _unpool(df, m2) * (a2 > 0)
    gcw2, gcb2, dp1 = _conv_grads(p1, cw2, da2, need_dx=True)
    da1 = _unpool(dp1, m1) * (a1 > 0)
    gcw1, gcb1, _ = _conv_grads(x, cw1, da1, need_dx=False)
    grads = [gcw1, gcb1, gcw2, gcb2, f.T @ dd1, dd1.sum(0), h1.T @ dd2, dd2.sum(0),
             h2.T @ dz, dz.sum(0)]
    return loss, grads


@ADAPTERS.add("numpy")
def numpy_ref(ctx):
    problem = make_problem()
    ms_per_call = ctx.time(lambda: numpy_loss_and_grads(*problem)) * 1e3
    check(ctx, *numpy_loss_and_grads(*problem))
    return {"conv_small": {"ms": ms_per_call}}


# ***** minispore *****

def minispore_loss_and_grads(jit):
    """(grad_fn() -> (loss, grads in make_problem's layout))."""
    import minispore as ms
    from minispore import nn

    params, x, labels = make_problem()
    convs, denses = params[:4], params[4:]

    class LeNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = (
                nn.Conv2d(w.shape[1], w.shape[0], 5, pad_mode="valid", has_bias=True,
                          weight_init=ms.Tensor(w), bias_init="zeros") for w in convs[::2])
            # nn.Dense keeps weights as (out, in): the same numbers, transposed
            self.fc1, self.fc2, self.fc3 = (
                nn.Dense(w.shape[0], w.shape[1], weight_init=ms.Tensor(w.T.copy()),
                         bias_init="zeros") for w in denses[::2])
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.relu = nn.ReLU()
            self.flatten = nn.Flatten()

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = self.flatten(x)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    net = LeNet()
    loss_fn = nn.CrossEntropyLoss()
    weights = [net.conv1.weight, net.conv1.bias, net.conv2.weight, net.conv2.bias,
               net.fc1.weight, net.fc1.bias, net.fc2.weight, net.fc2.bias,
               net.fc3.weight, net.fc3.bias]
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, weights)
    grad_fn = ms.jit(grad_fn) if jit else grad_fn
    data, label = ms.Tensor(x), ms.Tensor(labels)

    def call():
        return grad_fn(data, label)

    def as_numpy(result):
        loss, grads = result
        grads = [g.asnumpy() for g in grads]
        for i in (4, 6, 8):
            grads[i] = grads[i].T
        return loss.asnumpy(), grads

    return call, as_numpy


@ADAPTERS.add("minispore_pynative")
def minispore_pynative(ctx):
    call, as_numpy = minispore_loss_and_grads(jit=False)
    check(ctx, *as_numpy(call()))
    return {"conv_small": {"ms": ctx.time(call) * 1e3}}


@ADAPTERS.add("minispore_graph")
def minispore_graph(ctx):
    call, as_numpy = minispore_loss_and_grads(jit=True)
    check(ctx, *as_numpy(call()))
    ready, waited = harness.wait_for_kernels(KERNEL_WAIT_S)
    ctx.info["kernel_wait_s"] = waited
    ctx.true("kernels_compiled", ready, f"waited {waited:.1f} s for the fused kernels")
    return {"conv_small": {"ms": ctx.time(call) * 1e3}}


# ***** torch and jax *****

def _torch_run(ctx, compile_loss):
    torch = harness.import_torch()
    functional = torch.nn.functional
    params, x, labels = make_problem()
    params = [torch.tensor(p, requires_grad=True) for p in params]
    data, target = torch.from_numpy(x), torch.from_numpy(labels.astype(np.int64))

    def loss_fn(data, target):
        cw1, cb1, cw2, cb2, w1, b1, w2, b2, w3, b3 = params
        h = functional.max_pool2d(torch.relu(functional.conv2d(data, cw1, cb1)), 2)
        h = functional.max_pool2d(torch.relu(functional.conv2d(h, cw2, cb2)), 2)
        h = torch.relu(h.flatten(1) @ w1 + b1)
        h = torch.relu(h @ w2 + b2)
        return functional.cross_entropy(h @ w3 + b3, target)

    loss_fn = torch.compile(loss_fn) if compile_loss else loss_fn

    def call():
        loss = loss_fn(data, target)
        return loss.detach(), torch.autograd.grad(loss, params)

    loss, grads = call()
    check(ctx, loss.item(), [g.numpy() for g in grads])
    return {"conv_small": {"ms": ctx.time(call) * 1e3}}


@ADAPTERS.add("torch_eager", needs="torch")
def torch_eager(ctx):
    return _torch_run(ctx, compile_loss=False)


@ADAPTERS.add("torch_compile", needs="torch", slow=True)
def torch_compile(ctx):
    return _torch_run(ctx, compile_loss=True)


@ADAPTERS.add("jax_jit", needs="jax")
def jax_jit(ctx):
    jax = harness.import_jax()
    jnp, lax = jax.numpy, jax.lax
    params, x, labels = make_problem()
    params = [jnp.asarray(p) for p in params]
    data, target = jnp.asarray(x), jnp.asarray(labels)

    def conv_relu_pool(h, w, b):
        h = lax.conv_general_dilated(h, w, (1, 1), "VALID",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        h = jax.nn.relu(h + b[:, None, None])
        return lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def loss_fn(params, data, target):
        cw1, cb1, cw2, cb2, w1, b1, w2, b2, w3, b3 = params
        h = conv_relu_pool(conv_relu_pool(data, cw1, cb1), cw2, cb2)
        h = jax.nn.relu(h.reshape(h.shape[0], -1) @ w1 + b1)
        h = jax.nn.relu(h @ w2 + b2)
        log_probs = jax.nn.log_softmax(h @ w3 + b3)
        return -jnp.take_along_axis(log_probs, target[:, None], axis=1).mean()

    grad_fn = jax.jit(jax.value_and_grad(loss_fn))

    def call():
        return jax.block_until_ready(grad_fn(params, data, target))

    loss, grads = call()
    check(ctx, float(loss), [np.asarray(g) for g in grads])
    return {"conv_small": {"ms": ctx.time(call) * 1e3}}


if __name__ == "__main__":
    main("conv_small", ADAPTERS)
