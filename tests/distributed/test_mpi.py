"""Data-parallel training on 2 MPI ranks (mpirun), and the one-process world.

The multi-process checks run `mpi_worker.py` under `mpirun --oversubscribe -n 2 python -m
mpi4py`; they skip, saying why, when mpi4py or its mpirun is not installed
(`pip install 'minispore[dist]'`)."""
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops
from minispore.communication import comm_func as cf
from minispore.communication import get_group_size, get_rank, init, release

WORKER = os.path.join(os.path.dirname(__file__), "mpi_worker.py")


def mpirun():
    pytest.importorskip("mpi4py", reason="mpi4py not installed: pip install 'minispore[dist]'")
    found = shutil.which("mpirun", path=os.path.dirname(sys.executable) + os.pathsep +
                         os.environ.get("PATH", ""))
    if found is None:
        pytest.skip("no mpirun (pip install 'minispore[dist]' brings Open MPI's)")
    return found


def run_ranks(check, *args, timeout=240):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_mpi_yield_when_idle="1", OMPI_MCA_rmaps_base_oversubscribe="1",
               PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.monotonic()
    done = subprocess.run([mpirun(), "--oversubscribe", "-n", "2", sys.executable, "-m",
                           "mpi4py", WORKER, check, *args], env=env, capture_output=True,
                          text=True, timeout=timeout)
    return done, time.monotonic() - start


@pytest.mark.parametrize("check", ["collectives", "training", "sharding", "nccl"])
def test_on_two_ranks(check):
    done, _ = run_ranks(check)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK rank 0" in done.stdout and "OK rank 1" in done.stdout


def test_rank_zero_alone_writes_the_checkpoint(tmp_path):
    done, _ = run_ranks("checkpoint", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(os.listdir(tmp_path)) == ["each_rank0.ckpt", "each_rank1.ckpt", "model.ckpt"]
    assert ms.load_checkpoint(str(tmp_path / "model.ckpt"))["w"].asnumpy().tolist() == [0.0] * 3


def test_a_failing_rank_ends_the_job_promptly():
    done, seconds = run_ranks("failure", timeout=120)
    assert done.returncode != 0
    assert "rank 1 fails on purpose" in done.stderr
    assert seconds < 60, seconds


# ***** one process: the same API, a world of one *****

def test_one_process_world():
    init()
    try:
        assert (get_rank(), get_group_size()) == (0, 1)
        x = ms.Tensor(np.arange(4, dtype=np.float32))
        for fn in (cf.all_reduce, cf.all_gather_into_tensor, cf.reduce_scatter_tensor,
                   cf.broadcast, ops.AllReduce(), ops.AllGather()):
            assert fn(x).asnumpy().tolist() == [0.0, 1.0, 2.0, 3.0]
        assert ms.jit(lambda x: cf.all_reduce(x) * 2.0)(x).asnumpy().tolist() == [0, 2, 4, 6]
        assert ms.grad(lambda x: (cf.all_reduce(x) * x).sum())(x).asnumpy().tolist() == \
            [0, 2, 4, 6]
        cf.barrier()
    finally:
        release()


def test_parallel_context_validation_and_reset():
    with pytest.raises(ValueError, match="not supported by minispore"):
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
    with pytest.raises(ValueError, match="unknown option"):
        ms.set_auto_parallel_context(pipeline_stages=2)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    assert ms.get_auto_parallel_context("gradients_mean") is True
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("parallel_mode") == ms.ParallelMode.STAND_ALONE


def test_grad_reducer_buckets_and_means():
    grads = (ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.full(4, 2.0, np.float32)),
             ms.Tensor(np.arange(3, dtype=np.int32)))
    ms.set_auto_parallel_context(all_reduce_fusion_config=[1])
    try:
        reducer = nn.DistributedGradReducer(grads, mean=True, degree=2)
        assert reducer._buckets(grads) == [[0], [1], [2]]       # a split point, a dtype change
    finally:
        ms.reset_auto_parallel_context()
    reduced = reducer(grads)    # one process: the sum is the gradient, the mean halves it
    assert [r.shape for r in reduced] == [(2, 3), (4,), (3,)]
    np.testing.assert_allclose(reduced[0].asnumpy(), 0.5)
    np.testing.assert_allclose(reduced[1].asnumpy(), 1.0)
