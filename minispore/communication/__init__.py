"""minispore.communication: several processes training together (MindSpore's API), on MPI.

    $ mpirun -n 2 python -m mpi4py train.py

    >>> from minispore.communication import init, get_rank, get_group_size
    >>> init()                                  # MPI when launched by mpirun/srun, else 1 process
    >>> ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
    ...                              gradients_mean=True)

See `management` (init, ranks, groups) and `comm_func` (collectives as functions).
"""
from . import comm_func  # noqa: F401
from .management import (  # noqa: F401
                         HCCL_WORLD_COMM_GROUP,
                         NCCL_WORLD_COMM_GROUP,
                         GlobalComm,
                         create_group,
                         destroy_group,
                         get_group_rank_from_world_rank,
                         get_group_size,
                         get_local_rank,
                         get_local_rank_size,
                         get_rank,
                         get_world_rank_from_group_rank,
                         init,
                         release,
)
