"""MindSpore's Primitive classes of the collectives (ops.collective holds the rows).

    >>> ops.AllReduce(ops.ReduceOp.SUM)(x)      # every rank gets the sum of all ranks' x
"""
from __future__ import annotations
from typing import Any
from ..context import parallel
from .classes import PrimitiveClass
from .collective import ReduceOp, all_gather_p, all_reduce_p, broadcast_p, reduce_scatter_p
from .primitive import bind


class AllReduce(PrimitiveClass):
    """`AllReduce(op=ReduceOp.SUM, group=WORLD)(x)`."""

    def __init__(self, op: Any = ReduceOp.SUM, group: Any = parallel.WORLD_GROUP) -> None:
        self.op, self.group = op, group

    def __call__(self, x):
        return bind(all_reduce_p, x, op=self.op, group=self.group)


class AllGather(PrimitiveClass):
    """`AllGather(group=WORLD)(x)`: concatenation along axis 0 in rank order."""

    def __init__(self, group: Any = parallel.WORLD_GROUP) -> None:
        self.group = group

    def __call__(self, x):
        return bind(all_gather_p, x, group=self.group)


class ReduceScatter(PrimitiveClass):
    """`ReduceScatter(op=ReduceOp.SUM, group=WORLD)(x)`."""

    def __init__(self, op: Any = ReduceOp.SUM, group: Any = parallel.WORLD_GROUP) -> None:
        self.op, self.group = op, group

    def __call__(self, x):
        return bind(reduce_scatter_p, x, op=self.op, group=self.group)


class Broadcast(PrimitiveClass):
    """`Broadcast(root_rank, group=WORLD)((x,))` -> (root's x,), MindSpore's tuple form."""

    def __init__(self, root_rank: Any, group: Any = parallel.WORLD_GROUP) -> None:
        self.root_rank, self.group = root_rank, group

    def __call__(self, inputs):
        single = not isinstance(inputs, (tuple, list))
        outs = tuple(bind(broadcast_p, x, root=self.root_rank, group=self.group)
                     for x in ((inputs,) if single else inputs))
        return outs[0] if single else outs
