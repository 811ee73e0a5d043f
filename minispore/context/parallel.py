"""The parallel context: how many processes train together, and how.

`set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)`
makes `TrainOneStepCell` and `Model` all-reduce gradients, and datasets shard by rank.
The communication world (`world()`) is installed by `minispore.communication.init()`;
until then, and when no launcher started several processes, it is a one-process world whose
collectives return their input's values.
"""
from typing import Any


class ParallelMode:
    """MindSpore's parallel modes (minispore runs STAND_ALONE and DATA_PARALLEL)."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


_DEFAULTS = {"parallel_mode": ParallelMode.STAND_ALONE, "gradients_mean": False,
             "device_num": 1, "global_rank": 0, "all_reduce_fusion_config": [],
             "parameter_broadcast": False, "gradient_fp32_sync": True}
_context = dict(_DEFAULTS)


def set_auto_parallel_context(**kwargs: Any) -> None:
    """Set how processes train together (MindSpore's names).

        >>> ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
        ...                              gradients_mean=True)
    """
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"set_auto_parallel_context: unknown option {key!r} (minispore "
                             f"has {', '.join(sorted(_DEFAULTS))})")
        if key == "parallel_mode":
            if value not in ParallelMode.MODE_LIST:
                raise ValueError(f"set_auto_parallel_context: parallel_mode must be one of "
                                 f"{ParallelMode.MODE_LIST}, got {value!r}")
            if value in (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL):
                raise ValueError(f"set_auto_parallel_context: {value} (model parallelism) is "
                                 f"not supported by minispore; use data_parallel")
        if key == "all_reduce_fusion_config":
            value = [int(v) for v in value]
        _context[key] = value


def get_auto_parallel_context(key: str) -> Any:
    if key not in _context:
        raise ValueError(f"get_auto_parallel_context: unknown option {key!r}")
    return _context[key]


def reset_auto_parallel_context() -> None:
    _context.clear()
    _context.update(_DEFAULTS)


def data_parallel() -> bool:
    """Whether gradients are to be all-reduced (data or hybrid parallel, several processes)."""
    return _context["parallel_mode"] in (ParallelMode.DATA_PARALLEL,
                                         ParallelMode.HYBRID_PARALLEL) and world().size > 1


class SingleProcessWorld:
    """The world of one process: every collective's result is its own input's."""
    rank, size, local_rank, local_size = 0, 1, 0, 1
    backend_name = "none"

    def group(self, name):
        if name not in WORLD_NAMES:
            raise ValueError(f"communication group {name!r} does not exist (one-process world)")
        return self

    def all_reduce(self, array, op, group=None):
        return array.copy()

    def all_gather(self, array, group=None):
        return array.copy()

    def reduce_scatter(self, array, op, group=None):
        return array.copy()

    def broadcast(self, array, root, group=None):
        return array.copy()

    def barrier(self, group=None):
        pass

    def broadcast_object(self, value, root=0, group=None):
        return value

    def group_size(self, group=None):
        return 1

    def group_rank(self, group=None):
        return 0

    def create_group(self, name, rank_ids):
        if list(rank_ids) != [0]:
            raise ValueError(f"create_group: ranks {list(rank_ids)} do not exist in a "
                             f"one-process world")

    def destroy_group(self, name):
        pass

    def world_rank(self, group, group_rank):
        return group_rank

    def rank_in_group(self, world_rank, group):
        return world_rank


WORLD_GROUP = "world_group"
# the names that mean every process (MindSpore's own and its device-specific spellings)
WORLD_NAMES = (None, "", WORLD_GROUP, "hccl_world_group", "nccl_world_group")
_world = [SingleProcessWorld()]


def world():
    """The communication world collectives run in (see the module docstring)."""
    return _world[0]


def install_world(new_world) -> None:
    """Make `new_world` the one collectives use (minispore.communication.init)."""
    _world[0] = new_world

