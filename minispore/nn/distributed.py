"""Data-parallel training: gradients all-reduced across the processes of the job.

    >>> reducer = nn.DistributedGradReducer(optimizer.parameters, mean=True)
    >>> grads = reducer(grads)            # the same gradients on every rank

`TrainOneStepCell` and `Model` do this by themselves once
`set_auto_parallel_context(parallel_mode=DATA_PARALLEL)` is set and several processes run.
"""
from typing import Any, Optional, Sequence, Tuple

from ..context import parallel
from ..core.dtype import float32
from ..core.hints import DTypeLike
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..ops import functional as F
from ..ops.collective import ReduceOp, all_reduce_p
from ..ops.primitive import bind
from .cell import Cell
from .layers.normalization import _BatchNorm, _check_channels

BUCKET_ELEMENTS = 1 << 22  # gradients are all-reduced in buckets of up to 4M elements


class DistributedGradReducer(Cell):
    """All-reduce a tuple of gradients (MindSpore's `nn.DistributedGradReducer`).

    Gradients are flattened and concatenated into buckets (one all-reduce each rather than one
    per parameter: few large messages cost less than many small ones), summed across ranks,
    divided by `degree` when `mean`, and split back.

    Args:
        parameters: the parameters the gradients belong to (their order).
        mean: divide the sum by `degree` (default: the parallel context's gradients_mean).
        degree: the number of processes (default: the group's size).
        fusion_type, group: MindSpore's; `group` names the communication group.
    """

    def __init__(self, parameters: Sequence[Parameter], mean: Optional[bool] = None,
                 degree: Optional[int] = None, fusion_type: int = 1,
                 group: str = parallel.WORLD_GROUP) -> None:
        super().__init__(auto_prefix=False)
        self.mean = parallel.get_auto_parallel_context("gradients_mean") if mean is None \
            else bool(mean)
        self.degree = degree if degree is not None else parallel.world().group_size(group)
        self.group = group
        self._split_points = tuple(parallel.get_auto_parallel_context("all_reduce_fusion_config"))

    def construct(self, grads: Sequence[Tensor]) -> Tuple[Tensor, ...]:
        grads = tuple(grads)
        reduced: list = [None] * len(grads)
        for bucket in self._buckets(grads):
            flat = F.concat([F.reshape(grads[i], (-1,)) for i in bucket], 0) \
                if len(bucket) > 1 else F.reshape(grads[bucket[0]], (-1,))
            total = bind(all_reduce_p, flat, op=ReduceOp.SUM, group=self.group)
            start = 0
            for i in bucket:
                size = grads[i].size
                reduced[i] = F.reshape(total[start:start + size], grads[i].shape)
                if self.mean:  # per gradient: in Graph mode it fuses into the update kernel
                    reduced[i] = reduced[i] / float(self.degree)
                start += size
        return tuple(reduced)

    def _buckets(self, grads):
        """Index lists of gradients reduced together: split where all_reduce_fusion_config
        says, else every BUCKET_ELEMENTS elements; one dtype per bucket."""
        buckets, current, elements = [], [], 0
        for i, g in enumerate(grads):
            if current and (i in self._split_points or elements + g.size > BUCKET_ELEMENTS
                            or g.dtype != grads[current[0]].dtype):
                buckets.append(current)
                current, elements = [], 0
            current.append(i)
            elements += g.size
        if current:
            buckets.append(current)
        return buckets


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation whose batch statistics are those of every rank's batch together
    (MindSpore's `nn.SyncBatchNorm`): in a data-parallel job the ranks then train as one
    process on the combined batch would. Inputs (N, C), (N, C, L) or (N, C, H, W).

    process_groups: the ranks normalised together (None: all of them); minispore takes one
    group, named by `communication.create_group`, or None.

        >>> bn = nn.SyncBatchNorm(16)       # in a network trained on several processes
    """
    _ranks = (2, 3, 4)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9,
                 affine: bool = True, gamma_init: Any = "ones", beta_init: Any = "zeros",
                 moving_mean_init: Any = "zeros", moving_var_init: Any = "ones",
                 use_batch_statistics: Optional[bool] = None,
                 process_groups: Optional[str] = None, dtype: DTypeLike = float32) -> None:
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, "NCHW", dtype)
        if process_groups is not None and not isinstance(process_groups, str):
            raise TypeError("SyncBatchNorm: process_groups must be a group name (see "
                            "communication.create_group) or None")
        self.group = process_groups or parallel.WORLD_GROUP

    def construct(self, x: Tensor) -> Tensor:
        _check_channels(self, x, self._ranks, self.num_features)
        use_batch = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        return F.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma, self.beta,
                            training=use_batch, momentum=1.0 - self.momentum, eps=self.eps,
                            group=self.group if use_batch else None)
