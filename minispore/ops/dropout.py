"""Dropout: a random keep-mask primitive, and the dropout functions that scale by it
(elementwise, or whole channels for dropout1d/2d/3d)."""
from __future__ import annotations
from typing import Optional
from ..core import seed as random_state
from . import batching as B
from . import functional as F
from .arguments import as_tensor, op_error
from .primitive import OpTypeError, Primitive
from ..core.hints import Tensor

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d"]


def _dropout_mask_impl(xp, x, p, seed):
    keep = random_state.get_generator(seed).random(x.shape) >= p
    return xp.asarray(keep / (1.0 - p), dtype=x.dtype)


@B.draws_random
def _dropout_mask_batch(prim, args, dims, axis_size, p, seed):
    # one draw of the whole batch's shape: every lane gets its own mask
    return prim(B.batched_front(args[0], dims[0], axis_size), p=p, seed=seed), 0


# A primitive, not a constant built while tracing: a compiled graph then draws a new mask on
# every run. `effect` keeps graph passes from folding, merging or dropping the draw.
dropout_mask = Primitive(
    "dropout_mask", infer=lambda x, p, seed: x, impl=_dropout_mask_impl, effect=True, host_io=True,
    bprop=lambda x, out, dout, p, seed: (None,),  # the mask does not depend on x's values
    batch=_dropout_mask_batch,
    doc="keep-mask of x's shape and dtype: 1 / (1 - p) with probability 1 - p, else 0")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, seed: Optional[int] = None) -> Tensor:
    """Zero each element with probability p and scale the rest by 1 / (1 - p) (training only).

    The mask comes from the generator `ms.set_seed` seeds (core.seed); `seed` gives this call
    site a stream of its own. The gradient is dout * mask / (1 - p).

        >>> ops.dropout(ms.Tensor(np.ones(4, np.float32)), p=0.5).asnumpy().tolist()  # random
        [2.0, 0.0, 2.0, 0.0]
    """
    return _dropout("dropout", input, p, training, seed, spatial=0)


def _dropout(op, input, p, training, seed, spatial):
    """x times a keep-mask: one entry per element (spatial=0), or per (sample, channel) of an
    (N, C, *spatial) or (C, *spatial) input, broadcast over the spatial axes."""
    x = as_tensor(input)
    if spatial and x.ndim not in (spatial + 1, spatial + 2):
        raise op_error(op, (x,), f"input must have {spatial + 1} or {spatial + 2} dimensions")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"ops.{op}: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return F.mul(x, 0.0)
    if not x.dtype.is_float:
        raise op_error(op, (x,), "input must be a float tensor", OpTypeError)
    # a channel mask's shape comes from a size-1 slice of the spatial axes (values unread)
    template = x[(Ellipsis,) + (slice(0, 1),) * spatial] if spatial else x
    return F.mul(x, dropout_mask(template, p=float(p), seed=None if seed is None else int(seed)))


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    """Channel dropout of (N, C, L) or (C, L) inputs: each channel zeroed with probability p,
    the others scaled by 1 / (1 - p) (training only)."""
    return _dropout("dropout1d", input, p, training, None, 1)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    """Channel dropout of (N, C, H, W) or (C, H, W) inputs (see dropout1d).

        >>> ops.dropout2d(ops.ones((2, 3, 4, 4)), 0.5).shape
        (2, 3, 4, 4)
    """
    return _dropout("dropout2d", input, p, training, None, 2)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    """Channel dropout of (N, C, D, H, W) or (C, D, H, W) inputs (see dropout1d)."""
    return _dropout("dropout3d", input, p, training, None, 3)
