"""Batching rules (vmap): the helpers they share, and the two generic rules.

A primitive's `batch` rule says how it runs on a whole batch of inputs at once:

    batch(prim, args, dims, axis_size, **attrs) -> (out, out_dims)

`args` are the primitive's inputs with the batch axis still in them (Tensors of the
interpreter below vmap: eager, the tracer, or an outer vmap), `dims[i]` is the position of
the batch axis in args[i], or None for an input that is the same for every lane (it has one
lane's shape). `axis_size` is the batch size; `attrs` are the primitive's attributes as the
user's call gave them (one lane's view: axes count from the lane's first axis). The rule
calls ops, which run on the interpreter below, and returns the output(s) with the position
of the batch axis in each (None: the output is the same for every lane). Like bprops, rules
are written with ops only, so a vmapped function traces into one graph.

Elementwise primitives share `elementwise` (batch axes to the front, broadcasting does the
rest). A primitive without a rule runs through `loop`: once per lane, then stacked, with a
one-time warning naming it.
"""
import warnings

from ..core.tensor import Tensor
from . import functional as F


class VmapError(RuntimeError, ValueError):
    """vmap cannot do what was asked (bad in_axes/out_axes, a batched value where one value
    per call is needed). A RuntimeError as in MindSpore, and a ValueError as in JAX."""


# ***** helpers for rules *****

def ndim(x):
    """Rank of a Tensor, array or Python scalar (0)."""
    return len(getattr(x, "shape", ()))


def lane_ndim(x, dim):
    """Rank of one lane of x (x itself when it is not batched)."""
    return ndim(x) - (dim is not None)


def move_axis(x, source, destination):
    """x with its axis `source` moved to position `destination`."""
    if source == destination:
        return x
    perm = list(range(ndim(x)))
    perm.remove(source)
    perm.insert(destination, source)
    return F.transpose(x, tuple(perm))


def to_front(x, dim):
    """x with its batch axis first (x unchanged when it is not batched)."""
    return x if dim is None or dim == 0 else move_axis(x, dim, 0)


def batched_front(x, dim, axis_size):
    """x with its batch axis first; an unbatched x is broadcast over the batch (a view)."""
    if dim is not None:
        return to_front(x, dim)
    x = x if isinstance(x, Tensor) else Tensor(x)
    return F.broadcast_to(x, (axis_size,) + tuple(x.shape))


def lane(x, dim, index):
    """Lane `index` of x (x itself when it is not batched)."""
    if dim is None:
        return x
    return F.getitem(x, (slice(None),) * dim + (int(index),))


def with_lane_rank(x, rank):
    """Batched-first x with size-1 axes after the batch axis, so that its lane has `rank`
    axes and lines up with other lanes under (right-aligned) broadcasting."""
    missing = rank - (ndim(x) - 1)
    if missing <= 0:
        return x
    shape = tuple(x.shape)
    return F.reshape(x, shape[:1] + (1,) * missing + shape[1:])


def shift_axes(axes):
    """Lane axes (a tuple) as axes of the batched-first value."""
    return tuple(a + 1 for a in axes)


def draws_random(rule):
    """Mark the rule of a random primitive: vmap calls it even when no input is batched, so
    that every lane draws its own values (see vmap's `randomness`)."""
    rule.draws_random = True
    return rule


# ***** the generic rules *****

def elementwise(prim, args, dims, axis_size, **attrs):
    """Any elementwise primitive: batch axes first, lanes aligned; broadcasting does the rest."""
    rank = max(lane_ndim(a, d) for a, d in zip(args, dims))
    moved = [a if d is None else with_lane_rank(to_front(a, d), rank) for a, d in zip(args, dims)]
    return prim(*moved, **attrs), 0


LOOPED = set()  # names of the primitives that ran on the loop fallback in this process


def loop(prim, args, dims, axis_size, **attrs):
    """The fallback for a primitive without a rule: run it once per lane and stack."""
    if prim.name not in LOOPED:
        LOOPED.add(prim.name)
        warnings.warn(f"vmap: ops.{prim.name} has no batching rule, so it runs once per lane "
                      f"(slow); give its Primitive row a `batch` rule", stacklevel=2)
    if axis_size == 0:
        raise VmapError(f"vmap: ops.{prim.name} has no batching rule and cannot run on an "
                        f"empty batch")
    outs = [prim(*(lane(a, d, b) for a, d in zip(args, dims)), **attrs) for b in range(axis_size)]
    if prim.multiple_results:
        return tuple(F.stack([o[k] for o in outs]) for k in range(len(outs[0]))), \
            (0,) * len(outs[0])
    return F.stack(outs), 0

