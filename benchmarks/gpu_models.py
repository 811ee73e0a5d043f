"""Workloads 7 and 8 of BENCHMARKS.md ("Bigger workloads") as train steps, built in minispore
and in PyTorch from the same float32 weights and data, for gpu_bench to time side by side.

* resnet_cnn: ResNet-style CNN, a 3x3 conv stem 3->16, BN, ReLU, then 3 stages x 2 basic
  blocks (16/32/64 channels; the first block of stages 2 and 3 has stride 2 and a 1x1 conv +
  BN projection shortcut), global average pool, Dense to 10 classes; softmax cross-entropy
  (mean); SGD with momentum 0.9, lr 0.01. Batch 64 of 3x32x32.
* transformer_block: one pre-LN Transformer encoder block (S=128, D=256, 4 heads, FFN 1024,
  tanh GELU), attention written by hand; loss = mean squared error against a fixed random
  target; Adam, lr 1e-3. Batch 8.

Every weight is He-normal, N(0, 2 / fan_in) drawn from default_rng(0) in layer order, in the
(out, in, ...) layout both frameworks store; biases 0, norm scales 1 and shifts 0. Inputs are
N(0, 1) and targets (class indices U{0..9} or N(0, 1) values) from default_rng(1). BatchNorm
trains on batch statistics (eps 1e-5, running = 0.9 * running + 0.1 * batch in both); LayerNorm
eps is 1e-5 in both (MindSpore's default would be 1e-7). PyTorch's Adam adds eps to
sqrt(v) / sqrt(1 - beta2^t) where MindSpore adds it to sqrt(v): Transformer losses agree to
~1e-4 after a few steps, ResNet losses to float32 rounding.

    step = minispore_step(ms, "resnet_cnn", jit=True)     # after ms.set_context(...)
    step = torch_step(torch, "resnet_cnn", device="cuda")
    loss = step()                                         # one forward + backward + update

    python -m benchmarks.gpu_models --check [--batch N] [--compile]

`--check` runs 3 steps of each workload in minispore PyNative, minispore Graph and PyTorch eager
on the CPU and compares the losses (exit status 1 if they disagree).
"""
import argparse
import math
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .harness import mindspore_train_step

CLASSES = 10
IMAGE_SHAPE = (3, 32, 32)
STAGE_CHANNELS = (16, 32, 64)
BLOCKS_PER_STAGE = 2
SGD_LR, SGD_MOMENTUM = 0.01, 0.9

SEQ, MODEL_DIM, HEADS, FFN_DIM = 128, 256, 4, 1024
HEAD_DIM = MODEL_DIM // HEADS
ADAM_LR = 1e-3
NORM_EPS = 1e-5

CHECK_STEPS = 3
CHECK_RTOL = 1e-4


@dataclass(frozen=True)
class Problem:
    """A workload's initial weights by layer name, (out, in, ...) layout, and one batch."""
    weights: dict
    inputs: np.ndarray
    targets: np.ndarray


@dataclass(frozen=True)
class Workload:
    """make_problem(batch) -> Problem; minispore_parts(ms, problem) -> (model, loss_fn,
    optimizer); torch_parts(torch, problem, device) -> (model, loss_fn, optimizer)."""
    batch: int
    make_problem: Callable
    minispore_parts: Callable
    torch_parts: Callable


def he_normal(rng, shape):
    """N(0, 2 / fan_in) float32 weights of shape (out, in, ...), fan_in = prod(shape[1:])."""
    return (rng.standard_normal(shape) * np.sqrt(2.0 / math.prod(shape[1:]))).astype(np.float32)


# ***** resnet_cnn *****

def resnet_blocks():
    """(name, in_channels, out_channels, stride) of each basic block, in order."""
    blocks, in_channels = [], STAGE_CHANNELS[0]
    for stage, channels in enumerate(STAGE_CHANNELS):
        for index in range(BLOCKS_PER_STAGE):
            stride = 2 if stage > 0 and index == 0 else 1
            blocks.append((f"stage{stage + 1}.block{index + 1}", in_channels, channels, stride))
            in_channels = channels
    return blocks


def make_resnet_problem(batch):
    """Conv weights (out, in, 3, 3) or (out, in, 1, 1) and the fc weight (10, 64); `batch`
    images and class labels (int32)."""
    rng = np.random.default_rng(0)
    weights = {"stem": he_normal(rng, (STAGE_CHANNELS[0], IMAGE_SHAPE[0], 3, 3))}
    for name, in_channels, channels, stride in resnet_blocks():
        weights[f"{name}.conv1"] = he_normal(rng, (channels, in_channels, 3, 3))
        weights[f"{name}.conv2"] = he_normal(rng, (channels, channels, 3, 3))
        if stride != 1 or in_channels != channels:
            weights[f"{name}.shortcut"] = he_normal(rng, (channels, in_channels, 1, 1))
    weights["fc"] = he_normal(rng, (CLASSES, STAGE_CHANNELS[-1]))
    data = np.random.default_rng(1)
    inputs = data.standard_normal((batch,) + IMAGE_SHAPE).astype(np.float32)
    return Problem(weights, inputs, data.integers(0, CLASSES, batch).astype(np.int32))


def minispore_resnet(ms, problem):
    """The ResNet as an nn.Cell in training mode, its loss and nn.Momentum."""
    nn, ops = ms.nn, ms.ops
    weights = problem.weights

    def conv_bn(name, stride):
        """Conv (no bias) + BatchNorm. Explicit symmetric padding: pad_mode='same' would pad
        a stride-2 3x3 conv only at the bottom and right, unlike PyTorch's padding=1."""
        w = weights[name]
        conv = nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], stride=stride, pad_mode="pad",
                         padding=w.shape[2] // 2, weight_init=ms.Tensor(w))
        return nn.SequentialCell([conv, nn.BatchNorm2d(w.shape[0], eps=NORM_EPS, momentum=0.9)])

    class BasicBlock(nn.Cell):
        def __init__(self, name, stride):
            super().__init__()
            self.branch = nn.SequentialCell([conv_bn(f"{name}.conv1", stride), nn.ReLU(),
                                             conv_bn(f"{name}.conv2", 1)])
            projection = f"{name}.shortcut" in weights
            self.shortcut = conv_bn(f"{name}.shortcut", stride) if projection else None
            self.relu = nn.ReLU()

        def construct(self, x):
            shortcut = x if self.shortcut is None else self.shortcut(x)
            return self.relu(self.branch(x) + shortcut)

    class ResNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.stem = nn.SequentialCell([conv_bn("stem", 1), nn.ReLU()])
            self.blocks = nn.SequentialCell([BasicBlock(name, stride)
                                             for name, _, _, stride in resnet_blocks()])
            self.fc = nn.Dense(STAGE_CHANNELS[-1], CLASSES, weight_init=ms.Tensor(weights["fc"]),
                               bias_init="zeros")

        def construct(self, x):
            features = ops.mean(self.blocks(self.stem(x)), (2, 3))  # global average pool
            return self.fc(features)

    model = ResNet().set_train()
    optimizer = nn.Momentum(model.trainable_params(), SGD_LR, SGD_MOMENTUM)
    return model, nn.CrossEntropyLoss(), optimizer


def torch_resnet(torch, problem, device):
    """The same ResNet as a torch.nn.Module on `device` in training mode, its loss and SGD
    with momentum (identical to MindSpore's Momentum: v = 0.9 v + g, p -= lr v)."""
    tnn = torch.nn
    weights = problem.weights

    def conv_bn(name, stride):
        w = weights[name]
        conv = tnn.Conv2d(w.shape[1], w.shape[0], w.shape[2], stride=stride,
                          padding=w.shape[2] // 2, bias=False)
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(w))
        return tnn.Sequential(conv, tnn.BatchNorm2d(w.shape[0], eps=NORM_EPS, momentum=0.1))

    class BasicBlock(tnn.Module):
        def __init__(self, name, stride):
            super().__init__()
            self.branch = tnn.Sequential(conv_bn(f"{name}.conv1", stride), tnn.ReLU(),
                                         conv_bn(f"{name}.conv2", 1))
            projection = f"{name}.shortcut" in weights
            self.shortcut = conv_bn(f"{name}.shortcut", stride) if projection else tnn.Identity()

        def forward(self, x):
            return torch.relu(self.branch(x) + self.shortcut(x))

    fc = tnn.Linear(STAGE_CHANNELS[-1], CLASSES)
    with torch.no_grad():
        fc.weight.copy_(torch.from_numpy(weights["fc"]))
        fc.bias.zero_()
    model = tnn.Sequential(conv_bn("stem", 1), tnn.ReLU(),
                           *(BasicBlock(name, stride) for name, _, _, stride in resnet_blocks()),
                           tnn.AdaptiveAvgPool2d(1), tnn.Flatten(), fc).to(device).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=SGD_LR, momentum=SGD_MOMENTUM)
    return model, tnn.functional.cross_entropy, optimizer


# ***** transformer_block *****

TRANSFORMER_LINEARS = (("query", MODEL_DIM, MODEL_DIM), ("key", MODEL_DIM, MODEL_DIM),
                       ("value", MODEL_DIM, MODEL_DIM), ("out", MODEL_DIM, MODEL_DIM),
                       ("ffn1", FFN_DIM, MODEL_DIM), ("ffn2", MODEL_DIM, FFN_DIM))


def make_transformer_problem(batch):
    """The six Dense/Linear weights (out, in); `batch` input sequences and regression targets."""
    rng = np.random.default_rng(0)
    weights = {name: he_normal(rng, (n_out, n_in)) for name, n_out, n_in in TRANSFORMER_LINEARS}
    data = np.random.default_rng(1)
    inputs = data.standard_normal((batch, SEQ, MODEL_DIM)).astype(np.float32)
    return Problem(weights, inputs,
                   data.standard_normal((batch, SEQ, MODEL_DIM)).astype(np.float32))


def minispore_transformer(ms, problem):
    """The encoder block as an nn.Cell, its loss (mean squared error) and nn.Adam."""
    nn, ops = ms.nn, ms.ops

    def dense(name):
        w = problem.weights[name]
        return nn.Dense(w.shape[1], w.shape[0], weight_init=ms.Tensor(w), bias_init="zeros")

    class EncoderBlock(nn.Cell):
        def __init__(self):
            super().__init__()
            self.norm1 = nn.LayerNorm((MODEL_DIM,), epsilon=NORM_EPS)
            self.query, self.key, self.value, self.out = map(dense, ("query", "key", "value",
                                                                     "out"))
            self.scores = ops.BatchMatMul(transpose_b=True)
            self.mix = ops.BatchMatMul()
            self.norm2 = nn.LayerNorm((MODEL_DIM,), epsilon=NORM_EPS)
            self.ffn = nn.SequentialCell([dense("ffn1"), nn.GELU(approximate=True),
                                          dense("ffn2")])

        def heads(self, x):
            """(B, S, D) -> (B, HEADS, S, HEAD_DIM)."""
            batch, seq, _ = x.shape
            return ops.transpose(ops.reshape(x, (batch, seq, HEADS, HEAD_DIM)), (0, 2, 1, 3))

        def attention(self, x):
            batch, seq, _ = x.shape
            q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
            weights = ops.softmax(self.scores(q, k) * (1.0 / math.sqrt(HEAD_DIM)), axis=-1)
            context = ops.transpose(self.mix(weights, v), (0, 2, 1, 3))
            return self.out(ops.reshape(context, (batch, seq, MODEL_DIM)))

        def construct(self, x):
            x = x + self.attention(self.norm1(x))
            return x + self.ffn(self.norm2(x))

    model = EncoderBlock().set_train()
    optimizer = nn.Adam(model.trainable_params(), learning_rate=ADAM_LR)
    return model, nn.MSELoss(), optimizer


def torch_transformer(torch, problem, device):
    """The same encoder block as a torch.nn.Module on `device`, its loss and Adam."""
    tnn = torch.nn

    def linear(name):
        w = problem.weights[name]
        layer = tnn.Linear(w.shape[1], w.shape[0])
        with torch.no_grad():
            layer.weight.copy_(torch.from_numpy(w))
            layer.bias.zero_()
        return layer

    class EncoderBlock(tnn.Module):
        def __init__(self):
            super().__init__()
            self.norm1 = tnn.LayerNorm(MODEL_DIM, eps=NORM_EPS)
            self.query, self.key, self.value, self.out = map(linear, ("query", "key", "value",
                                                                      "out"))
            self.norm2 = tnn.LayerNorm(MODEL_DIM, eps=NORM_EPS)
            self.ffn = tnn.Sequential(linear("ffn1"), tnn.GELU(approximate="tanh"),
                                      linear("ffn2"))

        def heads(self, x):
            batch, seq, _ = x.shape
            return x.reshape(batch, seq, HEADS, HEAD_DIM).transpose(1, 2)

        def attention(self, x):
            batch, seq, _ = x.shape
            q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
            weights = torch.softmax((q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(HEAD_DIM)), -1)
            return self.out((weights @ v).transpose(1, 2).reshape(batch, seq, MODEL_DIM))

        def forward(self, x):
            x = x + self.attention(self.norm1(x))
            return x + self.ffn(self.norm2(x))

    model = EncoderBlock().to(device).train()
    # MindSpore's Adam defaults: betas (0.9, 0.999), eps 1e-8 (placed differently, see above)
    optimizer = torch.optim.Adam(model.parameters(), lr=ADAM_LR, betas=(0.9, 0.999), eps=1e-8)
    return model, tnn.functional.mse_loss, optimizer


WORKLOADS = {
    "resnet_cnn": Workload(64, make_resnet_problem, minispore_resnet, torch_resnet),
    "transformer_block": Workload(8, make_transformer_problem, minispore_transformer,
                                  torch_transformer),
}


# ***** train steps *****

def minispore_step(ms, name, jit, batch=None):
    """A zero-argument callable running one train step of workload `name` on minispore's
    current device and returning the loss, in the MindSpore 2.x pattern (value_and_grad over
    the optimizer's parameters, then optimizer(grads)); jit=True compiles the step (ms.jit)."""
    workload = WORKLOADS[name]
    problem = workload.make_problem(batch or workload.batch)
    model, loss_fn, optimizer = workload.minispore_parts(ms, problem)
    train_step = mindspore_train_step(ms, model, loss_fn, optimizer, jit)
    data, target = ms.Tensor(problem.inputs), ms.Tensor(problem.targets)
    return lambda: train_step(data, target)


def torch_step(torch, name, device="cuda", compile=False, batch=None):
    """A zero-argument callable running one train step of workload `name` in PyTorch on
    `device` and returning the loss (detached); compile=True wraps the model's forward and the
    loss in torch.compile (the backward then comes from AOTAutograd, the optimizer stays eager).
    On CUDA this turns TF32 off for matmuls and convolutions (process-wide), so that PyTorch
    computes in float32 as minispore does."""
    if torch.device(device).type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    workload = WORKLOADS[name]
    problem = workload.make_problem(batch or workload.batch)
    model, loss_fn, optimizer = workload.torch_parts(torch, problem, device)
    targets = problem.targets
    if targets.dtype.kind == "i":
        targets = targets.astype(np.int64)  # PyTorch's class indices
    data = torch.from_numpy(problem.inputs).to(device)
    target = torch.from_numpy(targets).to(device)

    def forward(data, target):
        return loss_fn(model(data), target)

    forward = torch.compile(forward) if compile else forward

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = forward(data, target)
        loss.backward()
        optimizer.step()
        return loss.detach()

    return step


# ***** the CPU check *****

def check(batch=None, torch_compile=False):
    """Run CHECK_STEPS steps of every workload in each framework on the CPU and print the
    losses; True when every framework's losses agree with PyNative's to CHECK_RTOL."""
    import torch

    import minispore as ms

    agree = True
    for name in WORKLOADS:
        steps = {"minispore_pynative": minispore_step(ms, name, jit=False, batch=batch),
                 "minispore_graph": minispore_step(ms, name, jit=True, batch=batch),
                 "torch_eager": torch_step(torch, name, device="cpu", batch=batch)}
        if torch_compile:
            steps["torch_compile"] = torch_step(torch, name, "cpu", compile=True, batch=batch)
        losses = {framework: [float(step()) for _ in range(CHECK_STEPS)]
                  for framework, step in steps.items()}
        reference = np.array(losses["minispore_pynative"])
        print(f"{name} (batch {batch or WORKLOADS[name].batch}), losses of steps 1..{CHECK_STEPS}:")
        for framework, values in losses.items():
            error = float(np.max(np.abs(np.array(values) - reference) / np.abs(reference)))
            agree &= error <= CHECK_RTOL
            print(f"  {framework:<20} {' '.join(f'{v:.7f}' for v in values)}"
                  f"   max relative difference {error:.2g}")
    print("losses agree" if agree else f"losses DISAGREE (tolerance {CHECK_RTOL:g} relative)")
    return agree


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu_models", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="compare minispore's and PyTorch's losses on the CPU")
    parser.add_argument("--batch", type=int, help="batch size for the check (default: each "
                                                  "workload's own)")
    parser.add_argument("--compile", action="store_true",
                        help="also check torch.compile (slow: tens of seconds per workload)")
    args = parser.parse_args(argv)
    if not args.check:
        parser.print_help()
        return 0
    return 0 if check(args.batch, args.compile) else 1


if __name__ == "__main__":
    sys.exit(main())
