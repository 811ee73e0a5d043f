"""MultiheadAttention and the Transformer layers, with MindSpore 2.x's signatures, defaults and
parameter names (`in_proj_weight`, `in_proj_bias`, `out_proj.weight`; `q_proj_weight`...
when kdim/vdim differ from embed_dim; `self_attn`, `dense1`, `dense2`, `norm1`...).

    >>> import minispore as ms, numpy as np
    >>> layer = ms.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16)
    >>> layer(ms.Tensor(np.ones((5, 3, 8), np.float32))).shape
    (5, 3, 8)

One difference from MindSpore's source: `TransformerEncoder`/`TransformerDecoder` build
`num_layers` independent layers (MindSpore's CellList repeats one layer object, so its layers
share weights; PyTorch's, like these, do not).
"""
from __future__ import annotations
from typing import Any, Optional
import math

from ...core.dtype import float32, to_type
from ...core.initializer import HeUniform, Uniform, XavierNormal, XavierUniform, initializer
from ...core.parameter import Parameter
from ...ops import functional as F
from ...ops.attention import multi_head_attention_forward
from .. import validation as V
from ..cell import Cell
from .activation import GELU, ReLU
from .basic import Dense, Dropout
from .container import CellList
from .normalization import LayerNorm
from ...core.hints import Tensor, DTypeLike


class MultiheadAttention(Cell):
    """Multi-head attention: Concat(head_1..head_h) W^O with head_i = Attention(Q W_i^Q,
    K W_i^K, V W_i^V) (Vaswani et al. 2017).

    Args: embed_dim, num_heads (embed_dim must divide by it), dropout (on the attention
    weights, training only), has_bias, add_bias_kv, add_zero_attn, kdim, vdim (default
    embed_dim), batch_first (inputs (N, L, E) instead of (L, N, E)), dtype.

    Inputs: query, key, value, key_padding_mask=None (N, S), need_weights=True,
    attn_mask=None ((L, S) or (N * num_heads, L, S)), average_attn_weights=True; masks Bool
    (True: ignore) or float (added to the scores). Output: (attn_output, attn_weights), or
    (attn_output,) when need_weights is False.

        >>> mha = ms.nn.MultiheadAttention(8, 2)
        >>> x = ms.Tensor(np.ones((5, 3, 8), np.float32))
        >>> [t.shape for t in mha(x, x, x)]
        [(5, 3, 8), (3, 5, 5)]
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, has_bias: bool = True, add_bias_kv: bool = False,
                 add_zero_attn: bool = False, kdim: Any = None, vdim: Any = None, batch_first: bool = False, dtype: DTypeLike = float32) -> None:
        super().__init__()
        who = "MultiheadAttention"
        self.embed_dim = V.positive_int(embed_dim, "embed_dim", who)
        self.num_heads = V.positive_int(num_heads, "num_heads", who)
        if embed_dim % num_heads:
            raise ValueError(f"{who}: embed_dim {embed_dim} must be divisible by num_heads "
                             f"{num_heads}")
        self.kdim = embed_dim if kdim is None else V.positive_int(kdim, "kdim", who)
        self.vdim = embed_dim if vdim is None else V.positive_int(vdim, "vdim", who)
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout = V.number_in(dropout, "dropout", who, 0.0, 1.0, high_open=True)
        self.batch_first = V.boolean(batch_first, "batch_first", who)
        self.head_dim = embed_dim // num_heads
        dtype = to_type(dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight: Optional[Parameter] = Parameter(
                initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype), "in_proj_weight")
            self.q_proj_weight: Optional[Parameter] = None
            self.k_proj_weight: Optional[Parameter] = None
            self.v_proj_weight: Optional[Parameter] = None
        else:
            self.q_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, embed_dim), dtype), "q_proj_weight")
            self.k_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, self.kdim), dtype), "k_proj_weight")
            self.v_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, self.vdim), dtype), "v_proj_weight")
            self.in_proj_weight = None
        self.in_proj_bias = None
        if has_bias:
            self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype),
                                          "in_proj_bias")
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias,
                              weight_init=HeUniform(math.sqrt(5)),
                              bias_init=Uniform(1 / math.sqrt(embed_dim)), dtype=dtype)
        self.bias_k = self.bias_v = None
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_v")
        self.add_zero_attn = bool(add_zero_attn)

    def construct(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor] = None, need_weights: bool = True,
                  attn_mask: Optional[Tensor] = None, average_attn_weights: bool = True) -> tuple[Tensor, ...]:
        # identity read while tracing: self-attention takes one GEMM for q, k and v
        q_is_k, k_is_v = query is key, key is value
        batched = query.ndim == 3
        if self.batch_first and batched:
            query, key, value = (F.swapaxes(t, 0, 1) for t in (query, key, value))
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            k_is_v=k_is_v, q_is_k=q_is_k, need_weights=need_weights)
        if self.batch_first and batched:
            out = F.swapaxes(out, 0, 1)
        return (out, weights) if weights is not None else (out,)  # None: need_weights False


def _activation(activation, who):
    """'relu', 'gelu', a Cell or a callable, as the feed-forward block's function."""
    if isinstance(activation, str):
        if activation not in ("relu", "gelu"):
            raise ValueError(f"{who}: activation must be 'relu', 'gelu', a Cell or a callable, "
                             f"got {activation!r}")
        return ReLU() if activation == "relu" else GELU(approximate=False)
    if not callable(activation):
        raise ValueError(f"{who}: activation must be 'relu', 'gelu', a Cell or a callable, got "
                         f"{type(activation).__name__}")
    return activation


def _feed_forward(cell, d_model, dim_feedforward, dropout, dtype):
    """dense1, dropout, dense2 with MindSpore's initialisation."""
    cell.dense1 = Dense(d_model, dim_feedforward, weight_init=HeUniform(math.sqrt(5)),
                        bias_init=Uniform(1 / math.sqrt(d_model)), dtype=dtype)
    cell.dropout = Dropout(p=dropout)
    cell.dense2 = Dense(dim_feedforward, d_model, weight_init=HeUniform(math.sqrt(5)),
                        bias_init=Uniform(1 / math.sqrt(dim_feedforward)), dtype=dtype)


class _LayerConfig(Cell):
    """What the encoder and decoder layers share: their arguments, kept so that
    TransformerEncoder/Decoder can build more layers like one."""

    def _configure(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                   batch_first, norm_first, dtype, cross_attention):
        """The arguments, then the sub-cells in MindSpore's order: self_attn (multihead_attn),
        dense1, dense2, norm1, norm2 (norm3), dropout1, dropout2 (dropout3)."""
        who = type(self).__name__
        self.d_model = V.positive_int(d_model, "d_model", who)
        self.nhead = V.positive_int(nhead, "nhead", who)
        self.dim_feedforward = V.positive_int(dim_feedforward, "dim_feedforward", who)
        self.dropout_num, self.layernorm_eps = dropout, layer_norm_eps
        self.batch_first, self.norm_first = bool(batch_first), bool(norm_first)
        self.dtype = to_type(dtype)
        # the argument as given, for config(); not a child Cell (that is `activation`)
        object.__setattr__(self, "activation1", activation)
        self.activation = _activation(activation, who)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        if cross_attention:
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                     batch_first=batch_first, dtype=dtype)
        _feed_forward(self, d_model, dim_feedforward, dropout, dtype)
        blocks = 3 if cross_attention else 2
        for k in range(1, blocks + 1):
            setattr(self, f"norm{k}", LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for k in range(1, blocks + 1):
            setattr(self, f"dropout{k}", Dropout(p=dropout))

    def config(self):
        return (self.d_model, self.nhead, self.dim_feedforward, self.dropout_num,
                self.activation1, self.layernorm_eps, self.batch_first, self.norm_first,
                self.dtype)

    def _ff_block(self, x, dropout_after):
        return dropout_after(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def _sa_block(self, x, mask, key_padding_mask):
        return self.dropout1(self._attention(self.self_attn, x, x, mask, key_padding_mask))

    def _attention(self, attn, x, mem, mask, key_padding_mask):
        return attn(x, mem, mem, attn_mask=mask, key_padding_mask=key_padding_mask,
                    need_weights=False)[0]


def _check_padding_mask(mask, who):
    if mask is not None and not (mask.dtype.kind == "b" or mask.dtype.is_float):
        raise TypeError(f"{who}: only Bool and float key padding masks are supported, got "
                        f"{mask.dtype}")


class TransformerEncoderLayer(_LayerConfig):
    """Self-attention then a feed-forward block, each with dropout, a residual connection and
    LayerNorm (after it; before it with `norm_first=True`).

    Args: d_model, nhead, dim_feedforward=2048, dropout=0.1, activation='relu' ('relu',
    'gelu', a Cell or a callable), layer_norm_eps=1e-5, batch_first=False, norm_first=False,
    dtype. Inputs: src, src_mask=None, src_key_padding_mask=None.

        >>> layer = ms.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        >>> layer(ms.Tensor(np.ones((3, 5, 8), np.float32))).shape
        (3, 5, 8)
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1, activation: str = "relu",
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False, dtype: DTypeLike = float32) -> None:
        super().__init__()
        self._configure(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                        batch_first, norm_first, dtype, cross_attention=False)

    def construct(self, src: Tensor, src_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        _check_padding_mask(src_key_padding_mask, "TransformerEncoderLayer")
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x, self.dropout2))
        return x


class TransformerDecoderLayer(_LayerConfig):
    """Self-attention over the target, attention over the encoder's output (`memory`), then a
    feed-forward block; each with dropout, a residual connection and LayerNorm.

    Args as TransformerEncoderLayer. Inputs: tgt, memory, tgt_mask=None, memory_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None.

        >>> layer = ms.nn.TransformerDecoderLayer(8, 2, 16)
        >>> tgt, mem = ms.ops.ones((4, 3, 8)), ms.ops.ones((5, 3, 8))
        >>> layer(tgt, mem).shape
        (4, 3, 8)
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1, activation: str = "relu",
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False, dtype: DTypeLike = float32) -> None:
        super().__init__()
        self._configure(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                        batch_first, norm_first, dtype, cross_attention=True)

    def construct(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None, memory_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                  memory_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x, self.dropout3))
        return x

    def _mha_block(self, x, memory, mask, key_padding_mask):
        return self.dropout2(self._attention(self.multihead_attn, x, memory, mask,
                                             key_padding_mask))


class _Stack(Cell):
    """`num_layers` layers configured like `layer` (each with its own weights), then `norm`."""

    def _stack(self, layer, layer_class, num_layers, norm):
        who = type(self).__name__
        if not isinstance(layer, layer_class):
            raise TypeError(f"{who}: the layer must be a {layer_class.__name__}, got "
                            f"{type(layer).__name__}")
        count = V.positive_int(num_layers, "num_layers", who)
        self.layers = CellList([layer_class(*layer.config()) for _ in range(count)])
        self.num_layers = num_layers
        self.norm = norm


class TransformerEncoder(_Stack):
    """`num_layers` encoder layers configured like `encoder_layer`, then `norm` if given.

        >>> enc = ms.nn.TransformerEncoder(ms.nn.TransformerEncoderLayer(8, 2, 16), 2)
        >>> enc(ms.ops.ones((5, 3, 8))).shape
        (5, 3, 8)
    """

    def __init__(self, encoder_layer: Any, num_layers: int, norm: Any = None) -> None:
        super().__init__()
        self._stack(encoder_layer, TransformerEncoderLayer, num_layers, norm)

    def construct(self, src: Tensor, src_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        _check_padding_mask(src_key_padding_mask, "TransformerEncoder")
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.norm(output) if self.norm is not None else output


class TransformerDecoder(_Stack):
    """`num_layers` decoder layers configured like `decoder_layer`, then `norm` if given.

        >>> dec = ms.nn.TransformerDecoder(ms.nn.TransformerDecoderLayer(8, 2, 16), 2)
        >>> dec(ms.ops.ones((4, 3, 8)), ms.ops.ones((5, 3, 8))).shape
        (4, 3, 8)
    """

    def __init__(self, decoder_layer: Any, num_layers: int, norm: Any = None) -> None:
        super().__init__()
        self._stack(decoder_layer, TransformerDecoderLayer, num_layers, norm)

    def construct(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None, memory_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                  memory_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask)
        return self.norm(output) if self.norm is not None else output


class Transformer(Cell):
    """An encoder-decoder Transformer: TransformerEncoder and TransformerDecoder (each ending in
    a LayerNorm), or `custom_encoder`/`custom_decoder`; weights of 2 or more axes are
    re-drawn Xavier-uniform, as MindSpore does.

        >>> model = ms.nn.Transformer(8, 2, 1, 1, 16)
        >>> model(ms.ops.ones((5, 3, 8)), ms.ops.ones((4, 3, 8))).shape
        (4, 3, 8)
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation: str = "relu", custom_encoder: Any = None,
                 custom_decoder: Any = None, layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 dtype: DTypeLike = float32) -> None:
        super().__init__()
        config = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                  batch_first, norm_first, dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*config), num_encoder_layers,
                LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*config), num_decoder_layers,
                LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for _, p in self.parameters_and_names():
            if p.ndim > 1:
                p.set_data(initializer("xavier_uniform", p.shape, p.dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def construct(self, src: Tensor, tgt: Tensor, src_mask: Optional[Tensor] = None, tgt_mask: Optional[Tensor] = None, memory_mask: Optional[Tensor] = None,
                  src_key_padding_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                  memory_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        batch_axis = 0 if self.batch_first else 1
        if src.ndim == 3 and (tgt.ndim != 3 or src.shape[batch_axis] != tgt.shape[batch_axis]):
            raise ValueError("Transformer: the batch sizes of 'src' and 'tgt' must be equal, got "
                             f"shapes {src.shape} and {tgt.shape}")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"Transformer: the feature size of 'src' and 'tgt' must be d_model "
                             f"{self.d_model}, got shapes {src.shape} and {tgt.shape}")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)
