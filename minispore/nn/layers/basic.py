"""Dense, Linear, Flatten, Dropout, Embedding, EmbeddingLookup.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 4)                    # weight (4, 3), bias (4,)
    >>> net(ms.ops.ones((2, 3))).shape
    (2, 4)
"""
from __future__ import annotations
from typing import Any, Optional, Union
import math

from ...core.dtype import float32, to_type
from ...core.initializer import HeUniform, Uniform, initializer
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops import functional as F
from .. import validation as V
from ..cell import Cell
from .activation import get_activation
from ...core.hints import Axis, DTypeLike


def make_weight(init, shape, dtype, name, owner):
    """A Parameter from `init`; a Tensor given as init must already have `shape`."""
    if isinstance(init, Tensor) and tuple(init.shape) != tuple(shape):
        raise ValueError(f"{owner}: {name}_init has shape {init.shape}, expected {tuple(shape)}")
    if isinstance(init, Tensor):
        return Parameter(init, name=name)
    return Parameter(initializer(init, shape, dtype), name=name)


def default_bias_init(fan_in):
    """MindSpore's default bias for Dense and Conv2d: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    return Uniform(1.0 / math.sqrt(fan_in)) if fan_in > 0 else "zeros"


class Dense(Cell):
    """Fully connected layer: activation(x @ weight.T + bias), weight of shape (out, in).

    Args:
        in_channels, out_channels: sizes of the last input axis and of the output.
        weight_init: initializer for the weight (default HeUniform(sqrt(5)), as MindSpore).
        bias_init: initializer for the bias (default U(-1/sqrt(in), 1/sqrt(in))).
        has_bias: whether to add the bias.
        activation: None, a name ('relu'...), a Cell or any callable.
        dtype: dtype of the parameters.

    Inputs of shape (*, in_channels) give outputs of shape (*, out_channels).
    """

    def __init__(self, in_channels: int, out_channels: int, weight_init: Any = None, bias_init: Any = None,
                 has_bias: bool = True, activation: Union[str, Cell, None] = None, dtype: DTypeLike = float32) -> None:
        super().__init__()
        self.in_channels = V.positive_int(in_channels, "in_channels", "Dense")
        self.out_channels = V.positive_int(out_channels, "out_channels", "Dense")
        self.has_bias = V.boolean(has_bias, "has_bias", "Dense")
        dtype = to_type(dtype)
        weight_init = HeUniform(negative_slope=math.sqrt(5)) if weight_init is None else weight_init
        self.weight = make_weight(weight_init, (out_channels, in_channels), dtype, "weight",
                                  "Dense")
        self.bias = None
        if has_bias:
            bias_init = default_bias_init(in_channels) if bias_init is None else bias_init
            self.bias = make_weight(bias_init, (out_channels,), dtype, "bias", "Dense")
        if activation is not None and not (isinstance(activation, str) or callable(activation)):
            raise TypeError(f"Dense: activation must be a name, a Cell or a callable, "
                            f"got {type(activation).__name__}")
        self.activation = get_activation(activation) if isinstance(activation, str) else activation

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim < 1 or x.shape[-1] != self.in_channels:
            raise V.input_error("Dense", x, f"input of shape {x.shape} does not end in "
                                f"in_channels={self.in_channels}")
        batch_shape = x.shape[:-1]
        if x.ndim != 2:
            x = F.reshape(x, (-1, self.in_channels))
        # the weight transposed by the product's flag, not a transpose op: the latter's
        # gradient is a transposed (Fortran-order) view, and every optimizer step on it then
        # mixes layouts (PyNative: 0.8 ms instead of 0.03 for a (1024, 256) add)
        out = F.matmul(x, self.weight, transpose_b=True)
        if self.has_bias:
            out = F.add(out, self.bias)  # type: ignore[arg-type]  # has_bias: a Parameter
        if self.activation is not None:
            out = self.activation(out)
        if len(batch_shape) != 1:
            out = F.reshape(out, batch_shape + (self.out_channels,))
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"has_bias={self.has_bias}")


class Flatten(Cell):
    """Merge the axes start_dim..end_dim into one (default: all but the batch axis)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x: Tensor) -> Tensor:
        return F.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Dropout(Cell):
    """In training mode, zero each element with probability p and scale the others by
    1 / (1 - p); in evaluation mode (the default for a new Cell) pass x through.

    Give `p` (drop probability, MindSpore 2.x) or the older `keep_prob` = 1 - p; default p=0.5.
    Masks come from the generator `ms.set_seed` seeds.
    """

    def __init__(self, keep_prob: Optional[float] = None, p: Optional[float] = None, dtype: DTypeLike = float32) -> None:
        super().__init__()
        if p is None:
            keep_prob = 0.5 if keep_prob is None else keep_prob
            p = 1.0 - V.number_in(keep_prob, "keep_prob", "Dropout", 0.0, 1.0, low_open=True)
        else:
            p = V.number_in(p, "p", "Dropout", 0.0, 1.0, high_open=True)
        self.p = p
        self.keep_prob = 1.0 - p

    def construct(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        return F.dropout(x, p=self.p, training=True)

    def extend_repr(self):
        return f"p={self.p}"


class Embedding(Cell):
    """A lookup table: integer ids of any shape -> vectors, output shape ids.shape + (size,).

    Args:
        vocab_size, embedding_size: rows and columns of the table `embedding_table`.
        use_one_hot: compute the lookup as one_hot(ids) @ table.
        embedding_table: initializer of the table (default 'normal', sigma 0.01).
        padding_idx: a row initialised to zeros (its gradient is not masked, as in MindSpore).
        max_norm, norm_type: when max_norm is given, looked-up vectors whose norm_type norm
            exceeds it are scaled down to norm max_norm (the table itself is not changed;
            the norm is not differentiated, as PyTorch's renormalisation is not).
    """

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False, embedding_table: str = "normal",
                 dtype: Optional[DTypeLike] = None, padding_idx: Optional[int] = None, max_norm: Optional[float] = None, norm_type: float = 2.0) -> None:
        super().__init__()
        self.vocab_size = V.positive_int(vocab_size, "vocab_size", "Embedding")
        self.embedding_size = V.positive_int(embedding_size, "embedding_size", "Embedding")
        self.use_one_hot = V.boolean(use_one_hot, "use_one_hot", "Embedding")
        table = make_weight(embedding_table, (vocab_size, embedding_size), float32,
                            "embedding_table", "Embedding")
        if padding_idx is not None:
            if not -vocab_size <= padding_idx < vocab_size:
                raise ValueError(f"Embedding: padding_idx {padding_idx} is outside [-{vocab_size}, "
                                 f"{vocab_size})")
            data = table.asnumpy().copy()
            data[padding_idx] = 0
            table.set_data(Tensor(data))
        if max_norm is not None:
            V.number_in(max_norm, "max_norm", "Embedding", 0.0, float("inf"), low_open=True)
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.embedding_table = table

    def construct(self, ids: Any) -> Tensor:
        if not ids.dtype.is_int:
            raise TypeError(f"Embedding: ids must be an integer tensor, got {ids.dtype}")
        if self.use_one_hot:
            flat = F.one_hot(F.reshape(ids, (-1,)), self.vocab_size, 1.0, 0.0)
            out = F.matmul(F.cast(flat, self.embedding_table.dtype), self.embedding_table)
            rows = F.reshape(out, tuple(ids.shape) + (self.embedding_size,))
        else:
            rows = F.gather(self.embedding_table, ids, 0)
        if self.max_norm is not None:
            norms = F.stop_gradient(F.vector_norm(rows, self.norm_type, -1, True))
            rows = F.mul(rows, F.minimum(F.div(float(self.max_norm), F.maximum(norms, 1e-7)),
                                         1.0))
        return rows

    def extend_repr(self):
        return f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}"


class Linear(Dense):
    """Fully connected layer with PyTorch-style arguments (MindSpore 2.x's nn.Linear, the same
    class as mint.nn.Linear): y = x @ weight.T + bias, weight (out_features, in_features),
    HeUniform weight and uniform bias by default.

        >>> ms.nn.Linear(3, 4)(ms.ops.ones((2, 3))).shape
        (2, 4)
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 weight_init: Any = None, bias_init: Any = None,
                 dtype: Optional[DTypeLike] = None) -> None:
        super().__init__(in_features, out_features, weight_init=weight_init, bias_init=bias_init,
                         has_bias=V.boolean(bias, "bias", "Linear"),
                         dtype=float32 if dtype is None else dtype)
        self.in_features, self.out_features = in_features, out_features


class EmbeddingLookup(Cell):
    """Rows of the table `embedding_table` (vocab_size, embedding_size) at integer indices:
    output indices.shape + (embedding_size,). With max_norm, each looked-up vector longer than
    max_norm (L2) is scaled to it (ClipByNorm, differentiated). On one device `target`,
    `slice_mode`, `manual_shapes`, `sparse` and `vocab_cache_size` change nothing (they choose
    how MindSpore places the table across devices); they are checked and kept.

        >>> import numpy as np
        >>> table = ms.nn.EmbeddingLookup(10, 3)
        >>> table(ms.Tensor(np.array([[1, 2], [9, 0]], np.int32))).shape
        (2, 2, 3)
    """

    _SLICE_MODES = ("field_slice", "table_row_slice", "table_column_slice", "batch_slice")

    def __init__(self, vocab_size: int, embedding_size: int, param_init: Any = "normal",
                 target: str = "CPU", slice_mode: str = "batch_slice",
                 manual_shapes: Optional[tuple[int, ...]] = None,
                 max_norm: Optional[float] = None, sparse: bool = True,
                 vocab_cache_size: int = 0, dtype: DTypeLike = float32) -> None:
        super().__init__()
        self.vocab_size = V.positive_int(vocab_size, "vocab_size", "EmbeddingLookup")
        self.embedding_size = V.positive_int(embedding_size, "embedding_size", "EmbeddingLookup")
        self.target = V.one_of(target, "target", "EmbeddingLookup", ("CPU", "DEVICE"))
        self.slice_mode = V.one_of(slice_mode, "slice_mode", "EmbeddingLookup",
                                   self._SLICE_MODES)
        self.sparse = V.boolean(sparse, "sparse", "EmbeddingLookup")
        if isinstance(vocab_cache_size, bool) or not isinstance(vocab_cache_size, int) \
                or vocab_cache_size < 0:
            raise ValueError(f"EmbeddingLookup: vocab_cache_size must be an int >= 0, "
                             f"got {vocab_cache_size!r}")
        self.manual_shapes, self.vocab_cache_size = manual_shapes, vocab_cache_size
        if max_norm is not None:
            V.number_in(max_norm, "max_norm", "EmbeddingLookup", 0.0, float("inf"),
                        low_open=True)
        self.max_norm = max_norm
        self.embedding_table = make_weight(param_init, (vocab_size, embedding_size),
                                           to_type(dtype), "embedding_table", "EmbeddingLookup")

    def construct(self, indices: Tensor) -> Tensor:
        if not indices.dtype.is_int:
            raise TypeError(f"EmbeddingLookup: indices must be an integer tensor, "
                            f"got {indices.dtype}")
        rows = F.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norms = F.sqrt(F.reduce_sum(F.square(rows), -1, True))
            rows = rows * (float(self.max_norm) / F.maximum(norms, float(self.max_norm)))
        return rows

    def extend_repr(self):
        return f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}"
