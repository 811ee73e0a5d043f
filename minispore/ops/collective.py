"""Collective communication as primitive rows: all_reduce, all_gather, reduce_scatter,
broadcast, barrier. Each runs in the communication world of `context.parallel` (MPI across
processes after `communication.init()`; one process otherwise) on every rank in the same
order. Rows are `effect`s, so graph passes never fuse, merge, reorder or drop them, and
`host_io` (they exchange data with other processes), so a CUDA graph never replays them.

    >>> ops.AllReduce(ops.ReduceOp.SUM)(x)      # every rank gets the sum of all ranks' x
    (the Primitive classes are in ops.classes_comm)

Gradients follow the data: all_gather's is a reduce_scatter of the cotangent, reduce_scatter's
an all_gather, all_reduce's (sum) an all_reduce of the cotangent.
"""
from ..context import parallel
from ..core.errors import OpShapeError
from ..core.ir import Aval
from . import functional as F
from .primitive import Primitive


class ReduceOp:
    """How all_reduce and reduce_scatter combine the ranks' values."""
    SUM, MAX, MIN, PROD = "sum", "max", "min", "prod"


_OPS = (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD)


def _size(group):
    return parallel.world().group_size(group)


def _check_op(op):
    if op not in _OPS:
        raise OpShapeError(f"op must be one of {_OPS}, got {op!r}")


def _all_reduce_infer(x, op, group):
    _check_op(op)
    return x


def _all_reduce_bprop(x, out, dout, op, group):
    total = all_reduce_p(dout, op=ReduceOp.SUM, group=group)  # every rank's loss reads out
    if op == ReduceOp.SUM:
        return (total,)
    if op == ReduceOp.PROD:
        return (total * out / x,)
    return (total * F.cast(F.equal(x, out), total.dtype),)  # max / min: where x is the extreme


all_reduce_p = Primitive(
    "all_reduce", infer=_all_reduce_infer,
    impl=lambda xp, x, op, group: parallel.world().all_reduce(x, op, group),
    bprop=_all_reduce_bprop, effect=True, host_io=True,
    doc="every rank's x combined by op (sum, max, min, prod), on every rank of the group")


def _all_gather_infer(x, group):
    if not x.shape:
        raise OpShapeError("all_gather needs a tensor of at least one dimension")
    return Aval((x.shape[0] * _size(group),) + tuple(x.shape[1:]), x.dtype)


all_gather_p = Primitive(
    "all_gather", infer=_all_gather_infer,
    impl=lambda xp, x, group: parallel.world().all_gather(x, group),
    bprop=lambda x, out, dout, group: (
        reduce_scatter_p(dout, op=ReduceOp.SUM, group=group),),  # type: ignore[has-type]  # defined below; mypy cannot type a forward name in a lambda
    effect=True, host_io=True,
    doc="the ranks' x concatenated along axis 0, in rank order, on every rank")


def _reduce_scatter_infer(x, op, group):
    _check_op(op)
    n = _size(group)
    if not x.shape or x.shape[0] % n:
        raise OpShapeError(f"reduce_scatter: axis 0 of {tuple(x.shape)} must divide by the "
                           f"group size {n}")
    return Aval((x.shape[0] // n,) + tuple(x.shape[1:]), x.dtype)


def _reduce_scatter_bprop(x, out, dout, op, group):
    if op != ReduceOp.SUM:
        raise NotImplementedError(f"reduce_scatter's gradient is defined for op='sum' "
                                  f"(got {op!r})")
    return (all_gather_p(dout, group=group),)


reduce_scatter_p = Primitive(
    "reduce_scatter", infer=_reduce_scatter_infer,
    impl=lambda xp, x, op, group: parallel.world().reduce_scatter(x, op, group),
    bprop=_reduce_scatter_bprop, effect=True, host_io=True,
    doc="the ranks' x combined by op, then split along axis 0: rank i keeps part i")


def _broadcast_bprop(x, out, dout, root, group):
    total = all_reduce_p(dout, op=ReduceOp.SUM, group=group)  # every rank read root's x
    return (total if parallel.world().group_rank(group) == root else F.zeros_like(x),)


broadcast_p = Primitive(
    "broadcast", infer=lambda x, root, group: x,
    impl=lambda xp, x, root, group: parallel.world().broadcast(x, root, group),
    bprop=_broadcast_bprop, effect=True, host_io=True,
    doc="the root rank's x on every rank of the group")


def _barrier_impl(xp, x, group):
    parallel.world().barrier(group)
    return x.copy()


barrier_p = Primitive(
    "barrier", infer=lambda x, group: x, impl=_barrier_impl,
    bprop=lambda x, out, dout, group: (dout,), effect=True, host_io=True,
    doc="x, once every rank of the group has reached this point")
