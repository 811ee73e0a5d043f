"""Mode-parity cases of the thin cells over math, linear-algebra and image ops, Linear,
EmbeddingLookup, TimeDistributed and the 1-D/3-D unpooling (see test_mode_parity.py): each
trains a tiny model in PyNative and Graph mode."""
from dataclasses import replace

from parity_harness import Setup, integers, on_input, randn

import minispore as ms
from minispore import nn, ops


def dense_into(layer, out_shape, width=3):
    """Dense(4, width) on a (5, 4) input, then `layer`, trained towards a random target."""
    return Setup(nn.SequentialCell([nn.Dense(4, width), layer]), randn((5, 4), 1),
                 randn(out_shape, 2))


def conv_into(layer, out_shape, channels=3):
    """Conv2d(2, channels, 3) ('same', with bias) on a (2, 2, 5, 5) input, then `layer`."""
    return Setup(nn.SequentialCell([nn.Conv2d(2, channels, 3, has_bias=True), layer]),
                 randn((2, 2, 5, 5), 3), randn(out_shape, 4))


class Summed(nn.Cell):
    """The sum of a layer's tuple of outputs (Moments, ImageGradients)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x):
        first, second = self.layer(x)
        return first + second


class Positive(nn.Cell):
    """x^2 + 0.5 then `layer`: inputs where the gamma functions are smooth."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x):
        return self.layer(x * x + 0.5)


class TwoFromOne(nn.Cell):
    """A two-input layer fed with (f(x), g(x))."""

    def __init__(self, layer, first, second):
        super().__init__()
        self.layer, self.first, self.second = layer, first, second

    def construct(self, x):
        return self.layer(self.first(x), self.second(x))


class Matrices(nn.Cell):
    """(5, 9) -> (5, 3, 3) well-conditioned matrices 3 I + x, then `layer`."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer
        self.eye = ops.eye(3, 3, ms.float32) * 3.0

    def construct(self, x):
        return self.layer(ops.reshape(x, (-1, 3, 3)) * 0.3 + self.eye)


class TimesRange(nn.Cell):
    def __init__(self):
        super().__init__()
        self.range = nn.Range(0.5, 3.0, 1.0)

    def construct(self, x):
        return x * self.range()


class PlusL1(nn.Cell):
    def __init__(self):
        super().__init__()
        self.l1 = nn.L1Regularizer(0.05)

    def construct(self, x):
        return x + self.l1(x)


class AgainstShifted(nn.Cell):
    """PSNR / SSIM of x against 0.5 x + 0.2."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def construct(self, x):
        return self.layer(x, x * 0.5 + 0.2)


class Unpool1d(nn.Cell):
    """1-D max pooling with indices (MaxPool2d on a height-1 image) then MaxUnpool1d."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d((1, 2), (1, 2), return_indices=True)
        self.unpool = nn.MaxUnpool1d(2)

    def construct(self, x):
        values, indices = self.pool(ops.expand_dims(x, 2))
        return self.unpool(ops.squeeze(values, 2), ops.squeeze(indices, 2))


class Unpool3d(nn.Cell):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool3d(2, 2, return_indices=True)
        self.unpool = nn.MaxUnpool3d(2, output_size=(4, 5, 5))

    def construct(self, x):
        values, indices = self.pool(x)
        return self.unpool(values, indices)


def volume_into(layer, out_shape):
    net = nn.SequentialCell([nn.Conv3d(2, 3, 3, has_bias=True), layer])
    return Setup(net, randn((2, 2, 4, 5, 5), 3), randn(out_shape, 4))


CASES = [
    (nn.Linear, "", lambda: on_input(nn.Linear(4, 3), (5, 4), (5, 3))),
    (nn.Linear, "no-bias-3d", lambda: on_input(nn.Linear(4, 2, bias=False), (2, 5, 4),
                                               (2, 5, 2))),
    (nn.Norm, "axis-keep_dims", lambda: dense_into(nn.Norm(axis=1, keep_dims=True), (5, 1))),
    (nn.ReduceLogSumExp, "", lambda: dense_into(nn.ReduceLogSumExp(1), (5,))),
    (nn.Moments, "", lambda: dense_into(Summed(nn.Moments(axis=0, keep_dims=True)), (1, 3))),
    (nn.LGamma, "", lambda: dense_into(Positive(nn.LGamma()), (5, 3))),
    (nn.DiGamma, "", lambda: dense_into(Positive(nn.DiGamma()), (5, 3))),
    (nn.LBeta, "", lambda: dense_into(Positive(TwoFromOne(nn.LBeta(), ops.exp, ops.sigmoid)),
                                      (5, 3))),
    (nn.MatMul, "transpose_x2", lambda: dense_into(
        TwoFromOne(nn.MatMul(transpose_x2=True), ops.tanh, ops.sigmoid), (5, 5))),
    # the inverse of 3 I + 0.3 x moves little: a larger step makes the training visible
    (nn.MatInverse, "", lambda: replace(dense_into(Matrices(nn.MatInverse()), (5, 3, 3), width=9),
                                        make_optimizer=lambda ps: nn.SGD(ps, 2.0))),
    (nn.MatDet, "", lambda: dense_into(Matrices(nn.MatDet()), (5,), width=9)),
    (nn.MatrixDiag, "", lambda: dense_into(nn.MatrixDiag(), (5, 3, 3))),
    (nn.MatrixDiagPart, "", lambda: dense_into(Matrices(nn.MatrixDiagPart()), (5, 3), width=9)),
    (nn.MatrixSetDiag, "", lambda: dense_into(Matrices(TwoFromOne(
        nn.MatrixSetDiag(), ops.tanh, lambda m: ops.diagonal(m, 0, -2, -1) * 2.0)), (5, 3, 3),
        width=9)),
    (nn.OneHot, "", lambda: Setup(nn.SequentialCell([nn.OneHot(depth=4), nn.Dense(4, 3)]),
                                  integers(4, (5,), 1), randn((5, 3), 2))),
    (nn.Range, "", lambda: dense_into(TimesRange(), (5, 3))),
    (nn.L1Regularizer, "", lambda: dense_into(PlusL1(), (5, 3))),
    (nn.ImageGradients, "", lambda: conv_into(Summed(nn.ImageGradients()), (2, 3, 5, 5))),
    (nn.PSNR, "", lambda: conv_into(AgainstShifted(nn.PSNR()), (2,))),
    (nn.SSIM, "", lambda: conv_into(AgainstShifted(nn.SSIM(filter_size=3)), (2,))),
    (nn.CentralCrop, "", lambda: conv_into(nn.CentralCrop(0.6), (2, 3, 3, 3))),
    (nn.ChannelShuffle, "", lambda: conv_into(nn.ChannelShuffle(2), (2, 4, 5, 5), channels=4)),
    (nn.TimeDistributed, "reshape", lambda: on_input(
        nn.TimeDistributed(nn.Dense(4, 3), time_axis=1, reshape_with_axis=0), (2, 5, 4),
        (2, 5, 3))),
    (nn.TimeDistributed, "per-step", lambda: on_input(
        nn.TimeDistributed(nn.Dense(4, 3), time_axis=1), (2, 5, 4), (2, 5, 3))),
    (nn.EmbeddingLookup, "", lambda: Setup(nn.EmbeddingLookup(10, 3), integers(10, (5, 2), 1),
                                           randn((5, 2, 3), 2))),
    (nn.EmbeddingLookup, "max_norm", lambda: Setup(
        nn.EmbeddingLookup(10, 3, param_init="uniform", max_norm=0.3),
        integers(10, (5, 2), 1), randn((5, 2, 3), 2))),
    (nn.AdaptiveMaxPool3d, "", lambda: volume_into(nn.AdaptiveMaxPool3d((2, 3, 2)),
                                                   (2, 3, 2, 3, 2))),
    (nn.MaxUnpool1d, "", lambda: Setup(nn.SequentialCell([nn.Conv1d(2, 3, 3, has_bias=True),
                                                          Unpool1d()]),
                                       randn((2, 2, 6), 1), randn((2, 3, 6), 2))),
    (nn.MaxUnpool3d, "", lambda: volume_into(Unpool3d(), (2, 3, 4, 5, 5))),
]

CASES += [
    # images in (0, 1) (a sigmoid), as MS-SSIM expects: every scale's factor stays positive
    (nn.MSSSIM, "", lambda: Setup(nn.SequentialCell([nn.Conv2d(1, 2, 3, has_bias=True),
                                                     nn.Sigmoid(),
                                                     AgainstShifted(nn.MSSSIM(
                                                         power_factors=(0.6, 0.4),
                                                         filter_size=3))]),
                                  randn((2, 1, 8, 8), 3), randn((2,), 4))),
]
