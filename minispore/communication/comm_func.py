"""Collectives as functions (MindSpore's `communication.comm_func`), usable eagerly, under
grad and in Graph mode (they are rows of ops.collective)."""
from ..context.parallel import WORLD_GROUP
from ..core.tensor import Tensor
from ..ops import functional as F
from ..ops.collective import (
    ReduceOp,
    all_gather_p,
    all_reduce_p,
    barrier_p,
    broadcast_p,
    reduce_scatter_p,
)
from ..ops.primitive import bind


def all_reduce(tensor: Tensor, op: str = ReduceOp.SUM, group: str = WORLD_GROUP) -> Tensor:
    """Every rank's `tensor` combined by `op` ("sum", "max", "min", "prod")."""
    return bind(all_reduce_p, tensor, op=op, group=group)


def all_gather_into_tensor(tensor: Tensor, group: str = WORLD_GROUP) -> Tensor:
    """The ranks' tensors concatenated along axis 0, in rank order."""
    return bind(all_gather_p, tensor, group=group)


def reduce_scatter_tensor(tensor: Tensor, op: str = ReduceOp.SUM,
                          group: str = WORLD_GROUP) -> Tensor:
    """The ranks' tensors combined by `op`, then split along axis 0: this rank's part."""
    return bind(reduce_scatter_p, tensor, op=op, group=group)


def broadcast(tensor: Tensor, src: int = 0, group: str = WORLD_GROUP) -> Tensor:
    """Rank `src`'s tensor, on every rank."""
    return bind(broadcast_p, tensor, root=src, group=group)


def barrier(group: str = WORLD_GROUP) -> None:
    """Wait until every rank of `group` gets here."""
    bind(barrier_p, F.zeros((), None), group=group)
