"""Acceptance programs of the convolution family, each trained in PyNative and Graph mode
with the same results: a 1-D conv classifier of synthetic waveforms (three frequencies), and
a small conv autoencoder whose decoder is made of transposed convolutions."""
import numpy as np

import minispore as ms
from minispore import nn


def waveforms(n=48, length=64, seed=0):
    """Noisy sines of 2, 5 or 9 cycles per window with random phase; label = frequency."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    t = np.arange(length) / length
    cycles = np.array([2.0, 5.0, 9.0])[labels]
    x = np.sin(2 * np.pi * (cycles[:, None] * t + rng.random((n, 1))))
    x += 0.3 * rng.standard_normal(x.shape)
    return x[:, None, :].astype(np.float32), labels.astype(np.int32)


def audio_classifier():
    return nn.SequentialCell([
        nn.Conv1d(1, 8, 9, stride=2, has_bias=True), nn.ReLU(),
        nn.Conv1d(8, 8, 5, stride=2, pad_mode="pad", padding=2, has_bias=True), nn.ReLU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Dense(8, 3)])


def blobs(n=16, size=8, seed=1):
    """Smooth images: one Gaussian blob at a random place."""
    rng = np.random.default_rng(seed)
    grid = np.arange(size)
    centres = rng.uniform(1.5, size - 2.5, (n, 2))
    image = np.exp(-((grid[None, :, None] - centres[:, 0, None, None]) ** 2
                     + (grid[None, None, :] - centres[:, 1, None, None]) ** 2) / 4.0)
    return image[:, None].astype(np.float32)


def autoencoder():
    return nn.SequentialCell([
        nn.Conv2d(1, 8, 3, stride=2, has_bias=True), nn.ReLU(),           # 8 -> 4
        nn.Conv2d(8, 8, 3, stride=2, has_bias=True), nn.ReLU(),           # 4 -> 2
        nn.Conv2dTranspose(8, 8, 2, stride=2, has_bias=True), nn.ReLU(),  # 2 -> 4
        nn.Conv2dTranspose(8, 1, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                           has_bias=True)])                                 # 4 -> 8


def train(build, data, label, loss_fn, mode, steps, lr):
    ms.set_context(mode=mode)
    try:
        ms.set_seed(0)
        net = build()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn),
                                   nn.Adam(net.trainable_params(), lr))
        step.set_train()
        losses = [float(step(ms.Tensor(data), ms.Tensor(label)).asnumpy()) for _ in range(steps)]
        net.set_train(False)
        return losses, net(ms.Tensor(data)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def both_modes(*args):
    eager = train(*args, ms.PYNATIVE_MODE, *TRAINING[args[0]])
    graph = train(*args, ms.GRAPH_MODE, *TRAINING[args[0]])
    # float32 rounding differs between numpy and the compiled kernels, and many Adam steps
    # carry it along: the same losses and outputs to a few ulps of their scale
    np.testing.assert_allclose(graph[0], eager[0], rtol=2e-4, atol=1e-5)
    scale = np.abs(eager[1]).max()
    np.testing.assert_allclose(graph[1], eager[1], rtol=1e-3, atol=1e-4 * scale)
    return eager


TRAINING = {audio_classifier: (80, 0.02), autoencoder: (150, 0.01)}


def test_conv1d_classifier_learns_the_frequencies_in_both_modes():
    x, y = waveforms()
    losses, logits = both_modes(audio_classifier, x, y,
                                nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    assert losses[-1] < 0.25 * losses[0]
    assert (logits.argmax(1) == y).mean() >= 0.9
    net = audio_classifier()
    assert [p.name for p in net.trainable_params()][:2] == ["0.weight", "0.bias"]


def test_transposed_conv_autoencoder_reconstructs_in_both_modes():
    images = blobs()
    losses, recon = both_modes(autoencoder, images, images, nn.MSELoss())
    # well below the error of predicting the mean image
    baseline = ((images - images.mean(0)) ** 2).mean()
    assert ((recon - images) ** 2).mean() < 0.3 * baseline
    assert losses[-1] < 0.1 * losses[0]
