"""NCCL collectives for tensors on NVIDIA GPUs, through CuPy's NCCL binding (`cupy.cuda.nccl`).

The host world (MPI across processes, or the one-process world) still keeps the ranks, the
groups and the barrier, carries the NCCL unique id from each group's rank 0 to the others, and
runs the collectives of host (numpy) arrays. Device arrays go to NCCL on CuPy's current
stream: a collective is ordered after the kernels that made its input, and the host does
not wait for it. Each process uses GPU `local_rank % device count`.

    $ mpirun -n 2 python -m mpi4py train.py     # with set_context(device_target="GPU")
"""
import numpy as np

from ..context.parallel import WORLD_GROUP
from ..context.parallel import WORLD_NAMES as _WORLD_NAMES

# ncclDataType_t and ncclRedOp_t as nccl.h numbers them (stable across NCCL 2.x)
_NCCL_DTYPES = {"int8": 0, "uint8": 1, "bool": 1, "int32": 2, "uint32": 3, "int64": 4,
                "uint64": 5, "float16": 6, "float32": 7, "float64": 8, "bfloat16": 9}
_NCCL_OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3}


def nccl_dtype(dtype):
    """NCCL's number for a numpy/CuPy dtype; a TypeError naming it when NCCL has none."""
    try:
        return _NCCL_DTYPES[np.dtype(dtype).name]
    except (KeyError, TypeError):
        raise TypeError(f"NCCL collectives take {sorted(_NCCL_DTYPES)} tensors, "
                        f"got {dtype}") from None


class NcclWorld:
    """The communication world of a GPU job: NCCL for device arrays, `host` for the rest.

    cupy: the CuPy module (its `cuda.nccl` must be available)."""
    backend_name = "nccl"

    def __init__(self, host, cupy):
        if not getattr(cupy.cuda.nccl, "available", True):
            raise RuntimeError("communication.init: this CuPy was built without NCCL; install "
                               "a CuPy wheel with NCCL (pip install 'minispore[gpu]') or train "
                               "on CPU with MPI")
        self.host, self.cupy, self.nccl = host, cupy, cupy.cuda.nccl
        self.rank, self.size = host.rank, host.size
        self.local_rank, self.local_size = host.local_rank, host.local_size
        cupy.cuda.Device(self.local_rank % cupy.cuda.runtime.getDeviceCount()).use()
        self._communicators = {}  # group name -> NcclCommunicator, made at its first use

    # ----- groups: the host world's -----
    def create_group(self, name, rank_ids):
        self.host.create_group(name, rank_ids)

    def destroy_group(self, name):
        self._communicators.pop(name, None)
        self.host.destroy_group(name)

    def group_size(self, group=None):
        return self.host.group_size(group)

    def group_rank(self, group=None):
        return self.host.group_rank(group)

    def world_rank(self, group, group_rank):
        return self.host.world_rank(group, group_rank)

    def rank_in_group(self, world_rank, group):
        return self.host.rank_in_group(world_rank, group)

    def broadcast_object(self, value, root=0, group=None):
        return self.host.broadcast_object(value, root, group)

    # ----- collectives -----
    def _communicator(self, group):
        """The group's NCCL communicator. Made collectively: every rank of the group reaches
        its first device collective on the group in the same order (as with any collective)."""
        key = WORLD_GROUP if group in _WORLD_NAMES else group
        communicator = self._communicators.get(key)
        if communicator is None:
            rank = self.host.group_rank(group)
            unique_id = self.nccl.get_unique_id() if rank == 0 else None
            unique_id = self.host.broadcast_object(unique_id, 0, group)
            communicator = self.nccl.NcclCommunicator(self.host.group_size(group), unique_id,
                                                      rank)
            self._communicators[key] = communicator
        return communicator

    def _device(self, array):
        """`array` as a C-contiguous device array, or None for a host array."""
        if isinstance(array, (np.ndarray, np.generic)):
            return None
        return self.cupy.ascontiguousarray(array)

    def _stream(self):
        return self.cupy.cuda.get_current_stream().ptr

    def all_reduce(self, array, op, group=None):
        send = self._device(array)
        if send is None:
            return self.host.all_reduce(array, op, group)
        out = self.cupy.empty_like(send)
        self._communicator(group).allReduce(send.data.ptr, out.data.ptr, send.size,
                                            nccl_dtype(send.dtype), _NCCL_OPS[op], self._stream())
        return out

    def all_gather(self, array, group=None):
        send = self._device(array)
        if send is None:
            return self.host.all_gather(array, group)
        n = self.host.group_size(group)
        out = self.cupy.empty((send.shape[0] * n,) + send.shape[1:], send.dtype)
        self._communicator(group).allGather(send.data.ptr, out.data.ptr, send.size,
                                            nccl_dtype(send.dtype), self._stream())
        return out

    def reduce_scatter(self, array, op, group=None):
        send = self._device(array)
        if send is None:
            return self.host.reduce_scatter(array, op, group)
        n = self.host.group_size(group)
        out = self.cupy.empty((send.shape[0] // n,) + send.shape[1:], send.dtype)
        self._communicator(group).reduceScatter(send.data.ptr, out.data.ptr, out.size,
                                                nccl_dtype(send.dtype), _NCCL_OPS[op],
                                                self._stream())
        return out

    def broadcast(self, array, root, group=None):
        send = self._device(array)
        if send is None:
            return self.host.broadcast(array, root, group)
        out = send.copy()
        self._communicator(group).bcast(out.data.ptr, out.size, nccl_dtype(out.dtype), root,
                                        self._stream())
        return out

    def barrier(self, group=None):
        # the host barrier means "every rank got here": its queued device work first
        self.cupy.cuda.get_current_stream().synchronize()
        self.host.barrier(group)
