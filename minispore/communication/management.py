"""init, ranks and groups: MindSpore's `communication.management` over MPI (mpi4py)."""
import os

from ..context import config, device, parallel
from ..context.parallel import WORLD_GROUP
from .mpi_world import MpiWorld
from .nccl_world import NcclWorld

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
# environment variables a launcher sets (Open MPI, MPICH/Hydra, PMIx/Slurm)
_LAUNCHER_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK",
                       "MPI_LOCALNRANKS", "SLURM_PROCID")


class GlobalComm:
    """MindSpore's record of the communication setup."""
    BACKEND = "none"
    WORLD_COMM_GROUP = WORLD_GROUP
    INITED = False


def init(backend_name: str | None = None) -> None:
    """Join the processes of this job: MPI when a launcher (mpirun, mpiexec, srun) started
    several, a one-process world otherwise; with `device_target="GPU"`, NCCL (through CuPy)
    carries the collectives of device tensors. backend_name: None (by the device target),
    "mpi", or MindSpore's device names: "nccl" (NCCL on GPU, MPI on CPU) and "hccl" (MPI).

        >>> init(); get_rank(), get_group_size()
        (0, 1)
    """
    if backend_name not in (None, "mpi", "hccl", "nccl"):
        raise ValueError(f"communication.init: unknown backend {backend_name!r} "
                         f"(minispore runs 'mpi', and 'nccl' on GPU; 'hccl' means MPI)")
    if GlobalComm.INITED:
        return
    launched = backend_name == "mpi" or any(v in os.environ for v in _LAUNCHER_VARIABLES)
    world: MpiWorld | NcclWorld | parallel.SingleProcessWorld
    if launched:
        world = MpiWorld()  # imports mpi4py: only in a launched job
    else:
        world = parallel.SingleProcessWorld()
    on_gpu = config.get_context("device_target") == "GPU"
    if on_gpu and backend_name in (None, "nccl"):
        world = NcclWorld(world, device.xp())
    parallel.install_world(world)
    parallel.set_auto_parallel_context(device_num=world.size, global_rank=world.rank)
    GlobalComm.BACKEND, GlobalComm.INITED = world.backend_name, True
    _share_cores(world.local_size)


def _share_cores(local_size):
    """Give each of the ranks on this machine its share of the cores, unless the user chose a
    thread count. Every rank's BLAS otherwise starts a thread per core, and idle OpenBLAS
    threads spin: with 2 ranks on 2 cores the spinning took the other rank's core and the
    MLP step ran 2-10x slower than with one thread per rank (benchmarks/dist_bench.py)."""
    if local_size > 1 and config.get_context("num_threads") is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        config.set_context(num_threads=max(1, (cores or 1) // local_size))


def release() -> None:
    """Leave the communication world (back to one process)."""
    parallel.install_world(parallel.SingleProcessWorld())
    GlobalComm.BACKEND, GlobalComm.INITED = "none", False


def _world():
    return parallel.world()


def get_rank(group: str = WORLD_GROUP) -> int:
    """This process's rank in `group`."""
    return _world().group_rank(group)


def get_group_size(group: str = WORLD_GROUP) -> int:
    """The number of processes in `group`."""
    return _world().group_size(group)


def get_local_rank(group: str = WORLD_GROUP) -> int:
    """This process's rank among the processes of its machine."""
    return _world().local_rank


def get_local_rank_size(group: str = WORLD_GROUP) -> int:
    """The number of processes of this job on this machine."""
    return _world().local_size


def create_group(group: str, rank_ids: list) -> None:
    """A named group of some world ranks (every process of the job must call it)."""
    _world().create_group(group, list(rank_ids))


def destroy_group(group: str) -> None:
    _world().destroy_group(group)


def get_world_rank_from_group_rank(group: str, group_rank_id: int) -> int:
    return _world().world_rank(group, group_rank_id)


def get_group_rank_from_world_rank(world_rank_id: int, group: str) -> int:
    return _world().rank_in_group(world_rank_id, group)
