"""Mode-parity cases of the activations of issue 15 (see test_mode_parity.py)."""
from parity_harness import Setup, conv_then, dense_then, on_input, randn

from minispore import nn

# (class, variant, build): every build runs in both modes; inputs scaled (scale=3) so that
# the kinks and the saturating halves are trained through
CASES = [
    (nn.PReLU, "", lambda: dense_then(nn.PReLU(), scale=3.0)),
    (nn.PReLU, "per-channel", lambda: on_input(nn.PReLU(3, 0.1), (4, 3, 2), (4, 3, 2))),
    (nn.HSwish, "", lambda: dense_then(nn.HSwish(), scale=3.0)),
    (nn.HSigmoid, "", lambda: dense_then(nn.HSigmoid(), scale=3.0)),
    (nn.Mish, "", lambda: dense_then(nn.Mish(), scale=3.0)),
    (nn.Mish, "saturated", lambda: dense_then(nn.Mish(), scale=30.0)),
    (nn.Hardtanh, "", lambda: dense_then(nn.Hardtanh(-0.5, 0.8), scale=3.0)),
    (nn.SeLU, "", lambda: dense_then(nn.SeLU(), scale=3.0)),
    (nn.CELU, "", lambda: dense_then(nn.CELU(0.5), scale=3.0)),
    (nn.GLU, "", lambda: Setup(nn.SequentialCell([nn.Dense(4, 6), nn.GLU()]), randn((5, 4), 1),
                               randn((5, 3), 2))),
    (nn.LogSigmoid, "", lambda: dense_then(nn.LogSigmoid(), scale=3.0)),
    (nn.Softsign, "", lambda: dense_then(nn.Softsign(), scale=3.0)),
    (nn.Softmin, "", lambda: dense_then(nn.Softmin(0))),
    (nn.SoftShrink, "", lambda: dense_then(nn.SoftShrink(0.3), scale=3.0)),
    (nn.HShrink, "", lambda: dense_then(nn.HShrink(0.3), scale=3.0)),
    (nn.Tanhshrink, "", lambda: dense_then(nn.Tanhshrink(), scale=3.0)),
    (nn.Threshold, "", lambda: dense_then(nn.Threshold(0.1, -1.0), scale=3.0)),
    (nn.FastGelu, "", lambda: dense_then(nn.FastGelu(), scale=3.0)),
    # training: a fresh slope per element and step, drawn alike in both modes
    (nn.RReLU, "", lambda: dense_then(nn.RReLU(), scale=3.0)),
    (nn.Softmax2d, "", lambda: conv_then(nn.Softmax2d(), (2, 3, 5, 5))),
]
