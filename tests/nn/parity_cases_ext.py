"""Mode-parity cases of the PyTorch-signature "Ext" layers (nn.AvgPool2dExt...): each trains
a tiny model in PyNative and Graph mode (see test_mode_parity.py)."""
from parity_harness import Setup, conv_then, dense_then, randn, sequence_then

from minispore import nn


def volume_then(layer, out_shape):
    net = nn.SequentialCell([nn.Conv3d(2, 3, 3, has_bias=True), layer])
    return Setup(net, randn((2, 2, 4, 5, 5), 3), randn(out_shape, 4))


CASES = [
    (nn.AvgPool1dExt, "pad-exclude", lambda: sequence_then(
        nn.AvgPool1dExt(3, 2, 1, count_include_pad=False), (2, 3, 3))),
    (nn.AvgPool2dExt, "ceil", lambda: conv_then(nn.AvgPool2dExt(2, ceil_mode=True),
                                                (2, 3, 3, 3))),
    (nn.AvgPool3dExt, "divisor", lambda: volume_then(nn.AvgPool3dExt(2, divisor_override=3),
                                                     (2, 3, 2, 2, 2))),
    (nn.MaxPool2dExt, "pad-dilation", lambda: conv_then(
        nn.MaxPool2dExt(2, 1, padding=1, dilation=2), (2, 3, 5, 5))),
    (nn.DropoutExt, "train", lambda: dense_then(nn.DropoutExt(0.3))),
    (nn.Dropout2dExt, "train", lambda: conv_then(nn.Dropout2dExt(0.4), (2, 3, 5, 5))),
    (nn.LogSoftmaxExt, "", lambda: dense_then(nn.LogSoftmaxExt(1))),
    (nn.L1LossExt, "", lambda: Setup(nn.Dense(4, 3), randn((5, 4), 1), randn((5, 3), 2),
                                     loss_fn=nn.L1LossExt())),
]
