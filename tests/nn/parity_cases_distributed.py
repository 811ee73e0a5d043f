"""Mode-parity cases of the data-parallel Cells (in one process: a world of one)."""
from parity_harness import conv_then

from minispore import nn

CASES = [
    # one process: its batch is the whole batch, so it trains as BatchNorm2d does
    (nn.SyncBatchNorm, "one-process", lambda: conv_then(nn.SyncBatchNorm(3), (2, 3, 5, 5))),
]

NOT_A_CASE = {
    "DistributedGradReducer": "all-reduces gradients across processes, no parameters: both "
                              "modes on 2 MPI ranks in tests/distributed/test_mpi.py",
}
