"""Mode-parity cases of MultiheadAttention and the Transformer layers (see
test_mode_parity.py): masks of each kind, dropout while training, pre- and post-norm."""
import numpy as np
from nn_checks import T
from parity_harness import Setup, randn

from minispore import nn

L, N, E = 4, 2, 8


class SelfAttention(nn.Cell):
    """mha(x, x, x) with the given masks; the output only (so that the loss reads it)."""

    def __init__(self, mha, attn_mask=None, key_padding_mask=None):
        super().__init__()
        self.mha, self.attn_mask, self.key_padding_mask = mha, attn_mask, key_padding_mask

    def construct(self, x):
        return self.mha(x, x, x, attn_mask=self.attn_mask,
                        key_padding_mask=self.key_padding_mask)[0]


class CrossAttention(nn.Cell):
    """mha(x, memory, memory) with memory = a Dense of x's first positions (kdim = vdim = 5)."""

    def __init__(self, mha):
        super().__init__()
        self.mha, self.to_memory = mha, nn.Dense(E, 5)

    def construct(self, x):
        memory = self.to_memory(x[:3])
        out, weights = self.mha(x, memory, memory)
        return out + weights.sum() * 0.01


class Decoding(nn.Cell):
    """decoder(x, memory) with memory = a Dense of x, and a causal target mask."""

    def __init__(self, decoder):
        super().__init__()
        self.decoder, self.to_memory = decoder, nn.Dense(E, E)
        self.causal = T(np.triu(np.ones((L, L), np.bool_), 1))

    def construct(self, x):
        return self.decoder(x, self.to_memory(x), tgt_mask=self.causal)


class EncodingDecoding(nn.Cell):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.causal = T(np.triu(np.ones((L, L), np.float32), 1) * -1e9)

    def construct(self, x):
        return self.model(x, x * 0.5, tgt_mask=self.causal)


def sequence(net, training=True, shape=(L, N, E)):
    return Setup(net, randn(shape, 11), randn(shape, 12), training=training)


_PADDING = T(np.array([[False, False, False, True], [False, False, True, True]]))
_FLOAT_MASK = T(np.random.default_rng(13).standard_normal((L, L)).astype(np.float32))

CASES = [
    (nn.MultiheadAttention, "", lambda: sequence(SelfAttention(nn.MultiheadAttention(E, 2)))),
    (nn.MultiheadAttention, "bool-masks", lambda: sequence(SelfAttention(
        nn.MultiheadAttention(E, 2), T(np.triu(np.ones((L, L), np.bool_), 1)), _PADDING))),
    (nn.MultiheadAttention, "float-mask-batch-first", lambda: sequence(SelfAttention(
        nn.MultiheadAttention(E, 4, batch_first=True), _FLOAT_MASK), shape=(N, L, E))),
    (nn.MultiheadAttention, "kdim-vdim-bias-kv-zero-attn", lambda: sequence(CrossAttention(
        nn.MultiheadAttention(E, 2, kdim=5, vdim=5, add_bias_kv=True, add_zero_attn=True)))),
    (nn.MultiheadAttention, "dropout", lambda: sequence(SelfAttention(
        nn.MultiheadAttention(E, 2, dropout=0.3)))),
    (nn.TransformerEncoderLayer, "", lambda: sequence(nn.TransformerEncoderLayer(E, 2, 16))),
    (nn.TransformerEncoderLayer, "pre-norm-gelu-eval", lambda: sequence(
        nn.TransformerEncoderLayer(E, 2, 16, activation="gelu", norm_first=True),
        training=False)),
    (nn.TransformerDecoderLayer, "", lambda: sequence(Decoding(
        nn.TransformerDecoderLayer(E, 2, 16)))),
    (nn.TransformerDecoderLayer, "pre-norm", lambda: sequence(Decoding(
        nn.TransformerDecoderLayer(E, 2, 16, dropout=0.0, norm_first=True)))),
    (nn.TransformerEncoder, "", lambda: sequence(nn.TransformerEncoder(
        nn.TransformerEncoderLayer(E, 2, 16), 2, nn.LayerNorm((E,))))),
    (nn.TransformerDecoder, "", lambda: sequence(Decoding(nn.TransformerDecoder(
        nn.TransformerDecoderLayer(E, 2, 16), 2)))),
    (nn.Transformer, "", lambda: sequence(EncodingDecoding(nn.Transformer(E, 2, 1, 1, 16)))),
]
