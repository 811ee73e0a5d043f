"""The MPI world (mpi4py): collectives over numpy buffers, named groups, fail-fast errors.

Half-precision arrays travel as float32 (MPI has no float16/bfloat16 type). With
MINISPORE_COMM_CHECK=1 every collective first compares its kind, shape and dtype across the
group and raises a clear error on a mismatch instead of deadlocking.
"""
import os
import sys

import numpy as np

from ..context.parallel import WORLD_NAMES as _WORLD_NAMES


class MpiWorld:
    backend_name = "mpi"

    def __init__(self):
        from mpi4py import MPI  # the optional `dist` extra: imported only in a launched job
        self.MPI = MPI
        self.ops = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}
        self.comm = MPI.COMM_WORLD
        self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()
        local = self.comm.Split_type(MPI.COMM_TYPE_SHARED)
        self.local_rank, self.local_size = local.Get_rank(), local.Get_size()
        self.groups = {}
        self.check = os.environ.get("MINISPORE_COMM_CHECK") == "1"
        _abort_on_uncaught_exceptions(self.comm)

    # ----- groups -----
    def _comm(self, group):
        if group in _WORLD_NAMES:
            return self.comm
        try:
            return self.groups[group][0]
        except KeyError:
            raise ValueError(f"communication group {group!r} does not exist "
                             f"(create_group first)") from None

    def create_group(self, name, rank_ids):
        if name in self.groups or name in _WORLD_NAMES:
            raise ValueError(f"create_group: group {name!r} exists already")
        ranks = sorted(set(int(r) for r in rank_ids))
        if not ranks or ranks[0] < 0 or ranks[-1] >= self.size:
            raise ValueError(f"create_group: ranks {rank_ids} are not all in 0..{self.size - 1}")
        sub = self.comm.Create_group(self.comm.Get_group().Incl(ranks))
        self.groups[name] = (sub, ranks)

    def destroy_group(self, name):
        sub, _ = self.groups.pop(name)
        if sub != self.MPI.COMM_NULL:
            sub.Free()

    def group_size(self, group=None):
        return self._comm(group).Get_size()

    def group_rank(self, group=None):
        return self._comm(group).Get_rank()

    def world_rank(self, group, group_rank):
        return group_rank if group in _WORLD_NAMES else self.groups[group][1][group_rank]

    def rank_in_group(self, world_rank, group):
        return world_rank if group in _WORLD_NAMES else self.groups[group][1].index(world_rank)

    # ----- collectives -----
    def _prepare(self, kind, array, group):
        comm = self._comm(group)
        send = np.ascontiguousarray(array)
        wire = send.astype(np.float32) if send.dtype.itemsize == 2 and send.dtype.kind in "fV" \
            or send.dtype.name == "bfloat16" else send
        if self.check:
            signatures = comm.allgather((kind, send.shape, str(send.dtype)))
            if len(set(signatures)) > 1:
                raise RuntimeError(f"collective mismatch across ranks in group {group!r}: "
                                   f"{dict(enumerate(signatures))} (every rank must run the "
                                   f"same collectives in the same order on the same shapes)")
        return comm, send, wire

    def all_reduce(self, array, op, group=None):
        comm, send, wire = self._prepare("all_reduce", array, group)
        out = np.empty_like(wire)
        comm.Allreduce(wire, out, op=self.ops[op])
        return out.astype(send.dtype, copy=False)

    def all_gather(self, array, group=None):
        comm, send, wire = self._prepare("all_gather", array, group)
        out = np.empty((wire.shape[0] * comm.Get_size(),) + wire.shape[1:], wire.dtype)
        comm.Allgather(wire, out)
        return out.astype(send.dtype, copy=False)

    def reduce_scatter(self, array, op, group=None):
        comm, send, wire = self._prepare("reduce_scatter", array, group)
        out = np.empty((wire.shape[0] // comm.Get_size(),) + wire.shape[1:], wire.dtype)
        comm.Reduce_scatter_block(wire, out, op=self.ops[op])
        return out.astype(send.dtype, copy=False)

    def broadcast(self, array, root, group=None):
        comm, send, wire = self._prepare("broadcast", array, group)
        out = wire.copy()
        comm.Bcast(out, root=root)
        return out.astype(send.dtype, copy=False)

    def barrier(self, group=None):
        self._comm(group).Barrier()

    def broadcast_object(self, value, root=0, group=None):
        """A picklable value of the group's rank `root`, on every rank of the group."""
        return self._comm(group).bcast(value, root=root)


def _abort_on_uncaught_exceptions(comm):
    """An exception that ends one rank ends the job (MPI would otherwise leave the other
    ranks waiting in their next collective forever): print it with the rank, then abort."""
    previous = sys.excepthook

    def excepthook(kind, value, traceback):
        sys.stderr.write(f"[rank {comm.Get_rank()}] uncaught {kind.__name__}: {value}; "
                         f"aborting the job\n")
        previous(kind, value, traceback)
        sys.stderr.flush()
        comm.Abort(1)
    sys.excepthook = excepthook
