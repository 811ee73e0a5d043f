"""Mode-parity cases of the convolution, pooling, resizing and padding Cells (see
test_mode_parity.py): each trains a tiny model in PyNative and Graph mode."""
from parity_harness import Setup, conv_then, on_input, randn, sequence_then

from minispore import nn


class UnpoolAfterPool(nn.Cell):
    """MaxPool2d(return_indices=True) then MaxUnpool2d of its values at its indices."""

    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(2, 2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2, output_size=(5, 5))

    def construct(self, x):
        values, indices = self.pool(x)
        return self.unpool(values, indices)


class Resized(nn.Cell):
    """ResizeBilinear to a fixed size (its construct takes the size)."""

    def __init__(self, size, **kwargs):
        super().__init__()
        self.resize, self.size, self.kwargs = nn.ResizeBilinear(), size, kwargs

    def construct(self, x):
        return self.resize(x, self.size, **self.kwargs)


def volume_then(layer, out_shape):
    """Conv3d(2, 3, 3) ('same', with bias) on a (2, 2, 4, 5, 5) volume, then `layer`."""
    net = nn.SequentialCell([nn.Conv3d(2, 3, 3, has_bias=True), layer])
    return Setup(net, randn((2, 2, 4, 5, 5), 3), randn(out_shape, 4))



CASES = [
    (nn.Conv1d, "pad-stride-dilation-group", lambda: on_input(
        nn.Conv1d(4, 6, 3, stride=2, pad_mode="pad", padding=(1, 2), dilation=2, group=2,
                  has_bias=True), (2, 4, 9), (2, 6, 4))),
    (nn.Conv1d, "same", lambda: on_input(nn.Conv1d(2, 3, 4), (2, 2, 7), (2, 3, 7))),
    (nn.Conv3d, "same-bias", lambda: on_input(nn.Conv3d(2, 3, 3, has_bias=True),
                                              (2, 2, 4, 5, 5), (2, 3, 4, 5, 5))),
    (nn.Conv3d, "pad-stride-group", lambda: on_input(
        nn.Conv3d(4, 2, (2, 3, 2), stride=(2, 1, 2), pad_mode="pad", padding=(1, 0, 1, 1, 0, 1),
                  group=2), (2, 4, 5, 4, 5), (2, 2, 3, 4, 3))),
    (nn.Conv1dTranspose, "pad-output_padding", lambda: on_input(
        nn.Conv1dTranspose(3, 2, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                           has_bias=True), (2, 3, 5), (2, 2, 10))),
    (nn.Conv2dTranspose, "same", lambda: conv_then(nn.Conv2dTranspose(3, 2, 3, stride=2),
                                                   (2, 2, 10, 10))),
    (nn.Conv2dTranspose, "valid-group-dilation", lambda: conv_then(
        nn.Conv2dTranspose(3, 6, 2, stride=2, pad_mode="valid", dilation=2, group=3,
                           has_bias=True), (2, 6, 11, 11))),
    (nn.Conv3dTranspose, "same", lambda: volume_then(nn.Conv3dTranspose(3, 2, 2, stride=2),
                                                     (2, 2, 8, 10, 10))),
    (nn.Conv3dTranspose, "pad", lambda: volume_then(
        nn.Conv3dTranspose(3, 2, 3, stride=(2, 1, 2), pad_mode="pad", padding=1,
                           output_padding=(1, 0, 0), has_bias=True), (2, 2, 8, 5, 9))),
    (nn.MaxPool3d, "", lambda: volume_then(nn.MaxPool3d(2, 2), (2, 3, 2, 2, 2))),
    (nn.MaxPool3d, "pad-ceil", lambda: volume_then(
        nn.MaxPool3d(3, 2, pad_mode="pad", padding=1, ceil_mode=True), (2, 3, 3, 3, 3))),
    (nn.AvgPool3d, "", lambda: volume_then(nn.AvgPool3d(2, 2), (2, 3, 2, 2, 2))),
    (nn.AvgPool3d, "pad-exclude", lambda: volume_then(
        nn.AvgPool3d(3, 2, pad_mode="pad", padding=1, count_include_pad=False),
        (2, 3, 2, 3, 3))),
    (nn.AdaptiveAvgPool1d, "", lambda: sequence_then(nn.AdaptiveAvgPool1d(4), (2, 3, 4))),
    (nn.AdaptiveAvgPool2d, "", lambda: conv_then(nn.AdaptiveAvgPool2d((2, 3)), (2, 3, 2, 3))),
    (nn.AdaptiveAvgPool3d, "", lambda: volume_then(nn.AdaptiveAvgPool3d((3, 2, 4)),
                                                   (2, 3, 3, 2, 4))),
    (nn.AdaptiveMaxPool1d, "", lambda: sequence_then(nn.AdaptiveMaxPool1d(4), (2, 3, 4))),
    (nn.AdaptiveMaxPool2d, "", lambda: conv_then(nn.AdaptiveMaxPool2d((2, 3)), (2, 3, 2, 3))),
    (nn.LPPool1d, "", lambda: sequence_then(nn.LPPool1d(2, 2), (2, 3, 3))),
    (nn.LPPool2d, "", lambda: conv_then(nn.LPPool2d(2, 2, 1), (2, 3, 4, 4))),
    (nn.MaxUnpool2d, "", lambda: conv_then(UnpoolAfterPool(), (2, 3, 5, 5))),
    (nn.Upsample, "nearest", lambda: conv_then(nn.Upsample(scale_factor=2), (2, 3, 10, 10))),
    (nn.Upsample, "bilinear-align", lambda: conv_then(
        nn.Upsample(size=(7, 8), mode="bilinear", align_corners=True), (2, 3, 7, 8))),
    (nn.Upsample, "bicubic", lambda: conv_then(nn.Upsample(size=(6, 4), mode="bicubic"),
                                               (2, 3, 6, 4))),
    (nn.ResizeBilinear, "", lambda: conv_then(Resized((7, 4)), (2, 3, 7, 4))),
    (nn.PixelShuffle, "", lambda: on_input(nn.SequentialCell(
        [nn.Conv2d(2, 8, 3, has_bias=True), nn.PixelShuffle(2)]), (2, 2, 3, 3), (2, 2, 6, 6))),
    (nn.PixelUnshuffle, "", lambda: on_input(nn.SequentialCell(
        [nn.Conv2d(2, 2, 3, has_bias=True), nn.PixelUnshuffle(2)]), (2, 2, 4, 6), (2, 8, 2, 3))),
    (nn.Unfold, "same", lambda: conv_then(nn.Unfold([1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1],
                                                    "same"), (2, 12, 3, 3))),
    (nn.Fold, "", lambda: on_input(nn.SequentialCell([nn.Dense(4, 6), nn.Fold((3, 4), 2)]),
                                  (2, 8, 4), (2, 2, 3, 4))),
    (nn.Pad, "reflect", lambda: conv_then(nn.Pad(((0, 0), (0, 0), (1, 2), (2, 0)), "REFLECT"),
                                          (2, 3, 8, 7))),
    (nn.Pad, "symmetric", lambda: conv_then(nn.Pad(((0, 0), (1, 0), (0, 2), (2, 2)),
                                                   "SYMMETRIC"), (2, 4, 7, 9))),
    (nn.ZeroPad1d, "", lambda: sequence_then(nn.ZeroPad1d((1, 2)), (2, 3, 9))),
    (nn.ZeroPad2d, "", lambda: conv_then(nn.ZeroPad2d((1, 0, 2, 1)), (2, 3, 8, 6))),
    (nn.ZeroPad3d, "", lambda: volume_then(nn.ZeroPad3d(1), (2, 3, 6, 7, 7))),
    (nn.ConstantPad1d, "", lambda: sequence_then(nn.ConstantPad1d((2, 1), 0.5), (2, 3, 9))),
    (nn.ConstantPad2d, "", lambda: conv_then(nn.ConstantPad2d(1, -1.0), (2, 3, 7, 7))),
    (nn.ConstantPad3d, "", lambda: volume_then(nn.ConstantPad3d((1, 0, 0, 1, 1, 1), 0.5),
                                               (2, 3, 6, 6, 6))),
    (nn.ReflectionPad1d, "", lambda: sequence_then(nn.ReflectionPad1d((2, 1)), (2, 3, 9))),
    (nn.ReflectionPad2d, "", lambda: conv_then(nn.ReflectionPad2d((1, 2, 0, 1)), (2, 3, 6, 8))),
    (nn.ReflectionPad3d, "", lambda: volume_then(nn.ReflectionPad3d(1), (2, 3, 6, 7, 7))),
    (nn.ReplicationPad1d, "", lambda: sequence_then(nn.ReplicationPad1d((0, 3)), (2, 3, 9))),
    (nn.ReplicationPad2d, "", lambda: conv_then(nn.ReplicationPad2d((2, 0, 1, 1)),
                                                (2, 3, 7, 7))),
    (nn.ReplicationPad3d, "", lambda: volume_then(nn.ReplicationPad3d((1, 1, 0, 2, 1, 0)),
                                                  (2, 3, 5, 7, 7))),
]
