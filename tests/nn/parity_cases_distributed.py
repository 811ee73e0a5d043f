"""Mode-parity entries for the data-parallel Cells."""
CASES = []

NOT_A_CASE = {
    "DistributedGradReducer": "all-reduces gradients across processes, no parameters: both "
                              "modes on 2 MPI ranks in tests/distributed/test_mpi.py",
}
