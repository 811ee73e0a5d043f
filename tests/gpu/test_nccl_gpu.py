"""NCCL through CuPy on a real GPU, as a one-rank world (`pytest --gpu`; skipped without a
GPU): every collective of device tensors, eagerly and under jit, and a data-parallel-style
DistributedGradReducer, against the values a one-process world gives."""
import numpy as np
import pytest
from gpu_env import GPU_MARKS

import minispore as ms
from minispore import nn
from minispore.communication import comm_func as cf
from minispore.communication import init, release
from minispore.communication.nccl_world import NcclWorld
from minispore.context import parallel

pytestmark = GPU_MARKS


@pytest.fixture
def nccl_world():
    ms.set_context(device_target="GPU")
    init("nccl")
    yield parallel.world()
    release()
    ms.set_context(device_target="CPU")


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_collectives_of_device_tensors(nccl_world, dtype):
    assert isinstance(nccl_world, NcclWorld)
    x = ms.Tensor(np.arange(12).reshape(4, 3).astype(dtype))
    for run in (lambda f: f, ms.jit):
        for name, fn in (("sum", lambda t: cf.all_reduce(t)),
                         ("max", lambda t: cf.all_reduce(t, "max")),
                         ("gather", cf.all_gather_into_tensor),
                         ("scatter", cf.reduce_scatter_tensor),
                         ("broadcast", lambda t: cf.broadcast(t, 0))):
            out = run(fn)(x)
            np.testing.assert_array_equal(out.asnumpy(), x.asnumpy(), err_msg=name)


def test_grad_reducer_on_the_gpu(nccl_world):
    grads = (ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.arange(4, dtype=np.float32)))
    reduced = nn.DistributedGradReducer([ms.Parameter(g) for g in grads], mean=True)(grads)
    for r, g in zip(reduced, grads):
        np.testing.assert_array_equal(r.asnumpy(), g.asnumpy())
