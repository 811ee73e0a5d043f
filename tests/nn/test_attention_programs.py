"""Two small programs in the style of MindSpore's tutorials, built from the library's attention
layers: a tiny Vision Transformer on synthetic images and a Transformer encoder-decoder on a
copy task. Each trains in PyNative and in Graph mode to the same losses and a stated accuracy.
"""
import numpy as np
from nn_checks import T

import minispore as ms
from minispore import nn, ops
from minispore.common.initializer import Normal, initializer

MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}


def train(build, batches, steps, mode):
    """(losses, network) after `steps` Adam steps of build()'s (net, loss_fn) in `mode`."""
    ms.set_context(mode=mode)
    try:
        ms.set_seed(0)
        net, loss_fn, lr = build()
        optimizer = nn.Adam(net.trainable_params(), learning_rate=lr)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)
        step.set_train(True)
        losses = [float(step(*batches[i % len(batches)]).asnumpy()) for i in range(steps)]
        net.set_train(False)
        return losses, net
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


# ***** a tiny ViT: 8x8 images, 4x4 patches, a class token, one encoder layer *****

def quadrant_images(n, seed):
    """(images (n, 1, 8, 8), labels): the label is the quadrant holding a bright 3x3 blob."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, n)
    images = rng.standard_normal((n, 1, 8, 8)).astype(np.float32) * 0.3
    for i, label in enumerate(labels):
        top, left = 4 * (label // 2) + rng.integers(0, 2), 4 * (label % 2) + rng.integers(0, 2)
        images[i, 0, top:top + 3, left:left + 3] += 1.5
    return images, labels.astype(np.int32)


class TinyViT(nn.Cell):
    """Patch embedding (a Dense on flattened 4x4 patches), class token, learnt positions,
    a TransformerEncoder, LayerNorm and a Dense head on the class token."""

    def __init__(self, dim=32, classes=4, patch=4, image=8):
        super().__init__()
        self.patch, self.grid = patch, image // patch
        self.embed = nn.Dense(patch * patch, dim)
        self.cls_token = ms.Parameter(initializer(Normal(0.02), (1, 1, dim)), "cls_token")
        self.pos_embed = ms.Parameter(initializer(Normal(0.02), (1, self.grid ** 2 + 1, dim)),
                                      "pos_embed")
        layer = nn.TransformerEncoderLayer(dim, 2, 2 * dim, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, nn.LayerNorm((dim,)))
        self.head = nn.Dense(dim, classes)

    def construct(self, images):
        n, g, p = images.shape[0], self.grid, self.patch
        # (N, 1, g*p, g*p) -> (N, g*g, p*p): one row per patch
        patches = ops.transpose(ops.reshape(images, (n, g, p, g, p)), (0, 1, 3, 2, 4))
        tokens = self.embed(ops.reshape(patches, (n, g * g, p * p)))
        cls = ops.broadcast_to(self.cls_token, (n, 1, tokens.shape[-1]))
        x = ops.cat([cls, tokens], 1) + self.pos_embed
        return self.head(self.encoder(x)[:, 0])


def build_vit():
    return TinyViT(), nn.CrossEntropyLoss(), 0.003


def test_tiny_vit_trains_to_the_same_results_in_both_modes():
    data = [quadrant_images(64, seed) for seed in range(16)]
    batches = [(T(x), T(y)) for x, y in data]
    test_x, test_y = quadrant_images(256, 99)
    results = {}
    for name, mode in MODES.items():
        losses, net = train(build_vit, batches, 120, mode)
        accuracy = float((net(T(test_x)).asnumpy().argmax(-1) == test_y).mean())
        results[name] = losses, accuracy
    (eager, eager_acc), (graph, graph_acc) = results["pynative"], results["graph"]
    assert eager[-1] < 0.1 * eager[0]
    # the same training: float32 rounding differences only, through 120 Adam steps
    np.testing.assert_allclose(graph, eager, rtol=2e-3, atol=2e-4)
    assert eager_acc >= 0.95 and abs(graph_acc - eager_acc) <= 1 / 256, results


# ***** a Transformer encoder-decoder copying its input *****

VOCAB, LENGTH, BOS = 7, 6, 0   # tokens 1..6, 0 starts the target


def copy_batches(count, batch, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        src = rng.integers(1, VOCAB, (batch, LENGTH)).astype(np.int32)
        tgt_in = np.concatenate([np.full((batch, 1), BOS, np.int32), src[:, :-1]], 1)
        out.append((src, tgt_in, src))
    return out


class Copier(nn.Cell):
    """Token and position embeddings, nn.Transformer (batch first), a Dense to the vocabulary;
    the decoder sees the target shifted right under a causal mask."""

    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        self.pos = ms.Parameter(initializer(Normal(0.1), (1, LENGTH, dim)), "pos")
        self.transformer = nn.Transformer(dim, 4, 1, 1, 64, dropout=0.0, batch_first=True)
        self.out = nn.Dense(dim, VOCAB)
        self.causal = T(np.triu(np.ones((LENGTH, LENGTH), np.bool_), 1))

    def construct(self, src, tgt_in):
        src_x = self.embed(src) + self.pos
        tgt_x = self.embed(tgt_in) + self.pos
        return self.out(self.transformer(src_x, tgt_x, tgt_mask=self.causal))


class TokenLoss(nn.Cell):
    """Cross-entropy over every position: logits (N, T, V), labels (N, T)."""

    def __init__(self):
        super().__init__()
        self.ce = nn.CrossEntropyLoss()

    def construct(self, logits, labels):
        return self.ce(ops.reshape(logits, (-1, VOCAB)), ops.reshape(labels, (-1,)))


class CopyWithLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net, self.loss = net, TokenLoss()

    def construct(self, src, tgt_in, labels):
        return self.loss(self.net(src, tgt_in), labels)


def train_copier(mode, steps=100):
    ms.set_context(mode=mode)
    try:
        ms.set_seed(0)
        net = Copier()
        step = nn.TrainOneStepCell(CopyWithLoss(net), nn.Adam(net.trainable_params(), 0.005))
        step.set_train(True)
        batches = [tuple(T(a) for a in b) for b in copy_batches(8, 32, 1)]
        losses = [float(step(*batches[i % len(batches)]).asnumpy()) for i in range(steps)]
        net.set_train(False)
        src, tgt_in, labels = copy_batches(1, 256, 2)[0]
        predicted = net(T(src), T(tgt_in)).asnumpy().argmax(-1)
        return losses, float((predicted == labels).mean())
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_transformer_learns_to_copy_in_both_modes():
    eager, eager_acc = train_copier(ms.PYNATIVE_MODE)
    graph, graph_acc = train_copier(ms.GRAPH_MODE)
    assert eager[-1] < 0.2 * eager[0]
    np.testing.assert_allclose(graph, eager, rtol=2e-3, atol=2e-4)
    # teacher-forced token accuracy on unseen sequences
    assert eager_acc >= 0.95 and abs(graph_acc - eager_acc) <= 0.01, (eager_acc, graph_acc)

