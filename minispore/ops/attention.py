"""Multi-head attention as a function: `multi_head_attention_forward` (MindSpore's signature,
the computation of `nn.MultiheadAttention`) and `scaled_dot_product_attention`.

Composed of ops (dense, batched matmul, the softmax row, dropout), so both modes and the
gradient come from those rows. Masks become one additive bias on the scores: a Bool mask's
True (not allowed to attend) becomes a large negative number rather than -inf, so a
compiled kernel (fastmath: no infinities assumed) computes the same values as numpy; a row
whose keys are all masked then attends uniformly instead of giving nan.
"""
from typing import Optional

import numpy as np

from ..core.hints import DTypeLike, TensorLike
from ..core.tensor import Tensor
from . import batching as B
from . import functional as F
from . import infer as I
from .activation import shifted_by_max
from .arguments import as_tensor, op_error
from .dropout import dropout
from .primitive import Aval, OpShapeError, OpTypeError, Primitive

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]

# exp(-1e30 - max) is exactly 0 in float32 and float64; -1e30 + a score stays finite
_MASKED = -1e30


# ***** softmax(x * scale + bias) over the last axis: the attention weights in one row *****
#
# One row, so that Graph mode computes the scaled, masked scores' softmax in one pass over the
# scores (a hand-written kernel, compiler.codegen.cpu_kernels) instead of a scaling, an add of
# the mask and a softmax, each reading and writing the whole (N, H, L, S) tensor.

def _biased_softmax_infer(x, bias, scale):
    I.numeric(x)
    if len(bias.shape) != len(x.shape) or any(b not in (1, n) for b, n in zip(bias.shape, x.shape)):
        raise I.OpShapeError(f"bias {bias} must broadcast to scores {x} with as many axes")
    if len(x.shape) == 0:
        raise I.OpShapeError("scores must have at least one axis")
    return Aval(x.shape, I.float_dtype(x.dtype))


def _biased_softmax_impl(xp, x, bias, scale):
    z = x * x.dtype.type(scale) + bias.astype(x.dtype, copy=False)
    e = xp.exp(shifted_by_max(z, -1))
    e /= e.sum(axis=-1, keepdims=True)
    return e


def _biased_softmax_bprop(x, bias, out, dout, scale):
    g = F.mul(out, F.sub(dout, F.sum(F.mul(dout, out), -1, True)))
    return F.mul(g, scale), F.sum_to(g, bias.shape)


def _biased_softmax_batch(prim, args, dims, axis_size, scale):
    x = B.batched_front(args[0], dims[0], axis_size)
    bias = F.expand_dims(args[1], 0) if dims[1] is None else B.to_front(args[1], dims[1])
    return prim(x, bias, scale=scale), 0


biased_softmax = Primitive(
    "biased_softmax", infer=_biased_softmax_infer, impl=_biased_softmax_impl,
    bprop=_biased_softmax_bprop, batch=_biased_softmax_batch,
    doc="softmax(x * scale + bias) along the last axis; bias broadcasts to x (same rank)")


def _mask_bias(op, mask, dtype, name):
    """A Bool (True: masked) or float (added) mask as an additive float bias."""
    mask = as_tensor(mask)
    if _is_bool(mask):
        return F.where(mask, _MASKED, F.zeros((), dtype))
    if not mask.dtype.is_float:
        raise op_error(op, (mask,), f"{name} must be a Bool or float tensor", OpTypeError)
    return F.cast(mask, dtype) if mask.dtype != dtype else mask


def _is_bool(t):
    return t.dtype.kind == "b"


def scaled_dot_product_attention(query: TensorLike, key: TensorLike, value: TensorLike,
                                 attn_mask: Optional[TensorLike] = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: Optional[float] = None,
                                 training: bool = True) -> tuple[Tensor, Tensor]:
    """softmax(query @ key^T * scale + mask) @ value over the last two axes, and the weights.

    query (..., L, E), key (..., S, E), value (..., S, Ev); `attn_mask` broadcasts to
    (..., L, S): Bool (True: not allowed to attend) or float (added). `scale` defaults to
    1 / sqrt(E). Returns (output (..., L, Ev), weights (..., L, S)).

        >>> q = ms.Tensor(np.ones((1, 2, 4), np.float32))
        >>> ops.scaled_dot_product_attention(q, q, q)[1].asnumpy().tolist()
        [[[0.5, 0.5], [0.5, 0.5]]]
    """
    query, key, value = as_tensor(query), as_tensor(key), as_tensor(value)
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise op_error("scaled_dot_product_attention", (query, key, value),
                       "query and key need one feature size, key and value one length",
                       OpShapeError)
    scale = 1.0 / float(np.sqrt(query.shape[-1])) if scale is None else float(scale)
    scores = F.matmul(query, key, transpose_b=True)
    bias = None
    if is_causal:
        length, source = query.shape[-2], key.shape[-2]
        causal = np.triu(np.ones((length, source), np.bool_), 1)
        bias = F.where(F.Tensor(causal), _MASKED, F.zeros((), scores.dtype))
    if attn_mask is not None:
        mask = _mask_bias("scaled_dot_product_attention", attn_mask, scores.dtype, "attn_mask")
        bias = mask if bias is None else F.add(bias, mask)
    if bias is None:
        bias = F.zeros((1,) * scores.ndim, scores.dtype)
    elif bias.ndim > scores.ndim:
        raise op_error("scaled_dot_product_attention", (scores, bias),
                       "attn_mask has more axes than the scores", OpShapeError)
    bias = F.reshape(bias, (1,) * (scores.ndim - bias.ndim) + tuple(bias.shape))
    weights = biased_softmax(scores, bias, scale=scale)
    if training and dropout_p > 0:
        weights = dropout(weights, dropout_p)
    return F.matmul(weights, value), weights


def _project(x, weight, bias):
    """x (..., in) @ weight.T + bias as one 2-D GEMM: a 3-D input would be a batched matmul
    forward and, backward, a batch of weight-gradient products summed afterwards (measured:
    50 ms instead of 6 on the benchmark's encoder block)."""
    rows = F.reshape(x, (-1, x.shape[-1]))
    out = F.matmul(rows, weight, transpose_b=True)
    if bias is not None:
        out = F.add(out, bias)
    return F.reshape(out, x.shape[:-1] + (weight.shape[0],))


def _split_in_proj(in_proj_weight, in_proj_bias, embed_dim):
    weights = F.split(in_proj_weight, embed_dim, 0)
    biases = F.split(in_proj_bias, embed_dim, 0) if in_proj_bias is not None else (None,) * 3
    return weights, biases


def _check(query, key, value, embed_dim, num_heads):
    op = "multi_head_attention_forward"
    if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
        raise op_error(op, (query, key, value), "query, key and value must all be 2-D "
                       "(unbatched) or all 3-D (L, N, E)", OpShapeError)
    if query.shape[-1] != embed_dim:
        raise op_error(op, (query,), f"query's feature size must be embed_dim {embed_dim}",
                       OpShapeError)
    if embed_dim % num_heads:
        raise op_error(op, (query,), f"embed_dim {embed_dim} is not divisible by num_heads "
                       f"{num_heads}", ValueError)
    if key.shape[:-1] != value.shape[:-1]:
        raise op_error(op, (key, value), "key and value must have one length and batch",
                       OpShapeError)
    if query.ndim == 3 and key.shape[1] != query.shape[1]:
        raise op_error(op, (query, key), "query and key must have one batch size",
                       OpShapeError)


def multi_head_attention_forward(
        query: TensorLike, key: TensorLike, value: TensorLike, embed_dim_to_check: int,
        num_heads: int, in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor],
        bias_k: Optional[Tensor], bias_v: Optional[Tensor], add_zero_attn: bool,
        dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Optional[Tensor],
        training: bool = True, key_padding_mask: Optional[TensorLike] = None,
        attn_mask: Optional[TensorLike] = None, use_separate_proj_weight: bool = False,
        q_proj_weight: Optional[Tensor] = None, k_proj_weight: Optional[Tensor] = None,
        v_proj_weight: Optional[Tensor] = None, static_k: Optional[Tensor] = None,
        static_v: Optional[Tensor] = None, average_attn_weights: bool = True,
        is_causal: bool = False, k_is_v: bool = False, q_is_k: bool = False,
        dtype: Optional[DTypeLike] = None,
        need_weights: bool = True) -> tuple[Tensor, Optional[Tensor]]:
    """Multi-head attention of query (L, N, E) over key (S, N, Ek) and value (S, N, Ev)
    (unbatched: (L, E), (S, Ek), (S, Ev)), as `nn.MultiheadAttention` computes it: project,
    split into `num_heads` heads, softmax(q k^T / sqrt(head_dim) + masks) v, join, project.

    Masks: `key_padding_mask` (N, S) and `attn_mask` (L, S) or (N * num_heads, L, S), each
    Bool (True: ignore that key) or float (added to the scores). Returns (output (L, N, E),
    weights (N, L, S) averaged over heads, or (N, num_heads, L, S); None when
    `need_weights` is False).

        >>> x = ms.Tensor(np.ones((3, 1, 4), np.float32))
        >>> w, b = ms.Tensor(np.eye(12, 4, dtype=np.float32)), ms.Tensor(np.zeros(12, np.float32))
        >>> out, weights = ops.multi_head_attention_forward(
        ...     x, x, x, 4, 2, w, b, None, None, False, 0.0, ms.Tensor(np.eye(4, dtype=np.float32)),
        ...     None)
        >>> weights.shape
        (1, 3, 3)
    """
    query, key, value = as_tensor(query), as_tensor(key), as_tensor(value)
    embed_dim, op = int(embed_dim_to_check), "multi_head_attention_forward"
    _check(query, key, value, embed_dim, num_heads)
    if static_k is not None or static_v is not None or is_causal and attn_mask is None:
        raise op_error(op, (query,), "static_k, static_v and is_causal without attn_mask are "
                       "not supported", NotImplementedError)
    batched = query.ndim == 3
    if not batched:
        query, key, value = (F.expand_dims(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = F.expand_dims(as_tensor(key_padding_mask), 0)
    length, batch = query.shape[0], query.shape[1]
    heads, head_dim = num_heads, embed_dim // num_heads

    # ***** input projections *****
    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise op_error(op, (query,), "use_separate_proj_weight needs q_proj_weight, "
                           "k_proj_weight and v_proj_weight", ValueError)
        proj_weights = (q_proj_weight, k_proj_weight, v_proj_weight)
        proj_biases = (F.split(in_proj_bias, embed_dim, 0) if in_proj_bias is not None
                  else (None,) * 3)
    else:
        proj_weights, proj_biases = _split_in_proj(in_proj_weight, in_proj_bias, embed_dim)
    if q_is_k and k_is_v and not use_separate_proj_weight:
        # self-attention: one GEMM for the three projections
        q, k, v = F.split(_project(query, in_proj_weight, in_proj_bias), embed_dim, -1)
    else:
        q = _project(query, proj_weights[0], proj_biases[0])
        k = _project(key, proj_weights[1], proj_biases[1])
        v = _project(value, proj_weights[2], proj_biases[2])

    if bias_k is not None and bias_v is not None:
        k = F.cat([k, F.broadcast_to(bias_k, (1, batch, embed_dim))], 0)
        v = F.cat([v, F.broadcast_to(bias_v, (1, batch, embed_dim))], 0)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)

    # (L, N, E) -> (N, H, L, head_dim)
    def heads_first(t):
        return F.transpose(F.reshape(t, (t.shape[0], batch, heads, head_dim)), (1, 2, 0, 3))

    q, k, v = heads_first(q), heads_first(k), heads_first(v)
    if add_zero_attn:
        zeros = F.zeros((batch, heads, 1, head_dim), q.dtype)
        k, v = F.cat([k, zeros], 2), F.cat([v, zeros], 2)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    source = k.shape[2]

    # ***** one additive bias from both masks, broadcasting to (N, H, L, S) *****
    bias = None
    if attn_mask is not None:
        attn_mask = as_tensor(attn_mask)
        if attn_mask.shape == (length, source):
            bias = _mask_bias(op, attn_mask, q.dtype, "attn_mask")
        elif attn_mask.shape == (batch * heads, length, source):
            bias = F.reshape(_mask_bias(op, attn_mask, q.dtype, "attn_mask"),
                             (batch, heads, length, source))
        else:
            raise op_error(op, (attn_mask,), f"attn_mask must be ({length}, {source}) or "
                           f"({batch * heads}, {length}, {source})", OpShapeError)
    if key_padding_mask is not None:
        key_padding_mask = as_tensor(key_padding_mask)
        if key_padding_mask.shape != (batch, source):
            raise op_error(op, (key_padding_mask,), f"key_padding_mask must be ({batch}, "
                           f"{source})", OpShapeError)
        padding = F.reshape(_mask_bias(op, key_padding_mask, q.dtype, "key_padding_mask"),
                            (batch, 1, 1, source))
        bias = padding if bias is None else F.add(bias, padding)

    out, attention = scaled_dot_product_attention(q, k, v, bias, dropout_p if training else 0.0,
                                                  training=training)
    # (N, H, L, head_dim) -> (L, N, E)
    out = F.reshape(F.transpose(out, (2, 0, 1, 3)), (length, batch, embed_dim))
    out = _project(out, out_proj_weight, out_proj_bias)
    weights: Optional[Tensor] = None
    if need_weights:
        weights = F.mean(attention, 1) if average_attn_weights else attention
    if not batched:
        out = F.squeeze(out, 1)
        weights = None if weights is None else F.squeeze(weights, 0)
    return out, weights


def _pad_last(mask):
    """A mask with one more key at the end, not masked (for bias_k/bias_v and zero attention)."""
    if mask is None:
        return None
    mask = as_tensor(mask)
    pad = ((0, 0),) * (mask.ndim - 1) + ((0, 1),)
    if _is_bool(mask):
        return F.cast(F.pad(F.cast(mask, np.float32), pad), mask.dtype)
    return F.pad(mask, pad)
