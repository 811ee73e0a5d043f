"""The NCCL world (device tensors' collectives through CuPy's NCCL) on a stand-in GPU:
fake_device's CuPy, whose NCCL communicator reads and writes the buffers at the addresses it
is given. One rank here; two ranks in mpi_worker.py's `nccl` check. The real NCCL runs in
`pytest --gpu` (tests/gpu)."""
import numpy as np
import pytest
from fake_device import DeviceArray, FakeCudaDevice, FakeNccl, FakeStream

import minispore as ms
from minispore.communication import comm_func as cf
from minispore.communication import init, release
from minispore.communication.nccl_world import NcclWorld, nccl_dtype
from minispore.context import parallel


@pytest.fixture
def nccl(fake_gpu):
    FakeNccl.calls.clear()
    FakeNccl.ids_made = 0
    init()                                   # device_target="GPU": NCCL by default
    yield parallel.world()
    release()


def test_init_on_gpu_makes_the_nccl_world(nccl):
    assert isinstance(nccl, NcclWorld) and nccl.backend_name == "nccl"
    assert FakeCudaDevice.used[-1] == 0      # local rank 0 of 1 device
    assert ms.communication.GlobalComm.BACKEND == "nccl"


def test_device_collectives_go_through_nccl(nccl):
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    assert isinstance(x._data, DeviceArray)    # on the (stand-in) GPU
    for mode in ("pynative", "jit"):
        run = (lambda f: f) if mode == "pynative" else ms.jit
        FakeNccl.calls.clear()
        np.testing.assert_array_equal(run(lambda t: cf.all_reduce(t, "max"))(x).asnumpy(),
                                      x.asnumpy())
        np.testing.assert_array_equal(run(cf.all_gather_into_tensor)(x).asnumpy(), x.asnumpy())
        np.testing.assert_array_equal(run(cf.reduce_scatter_tensor)(x).asnumpy(), x.asnumpy())
        np.testing.assert_array_equal(run(lambda t: cf.broadcast(t, 0))(x).asnumpy(),
                                      x.asnumpy())
        # (method, element count, ncclFloat32 = 7, op: ncclMax = 2, ncclSum = 0; root 0)
        assert FakeNccl.calls == [("allReduce", 6, 7, 2), ("allGather", 6, 7, None),
                                  ("reduceScatter", 6, 7, 0), ("bcast", 6, 7, 0)]
    assert FakeNccl.ids_made == 1            # one communicator for the world, made once


def test_gradients_of_device_collectives(nccl):
    x = ms.Tensor(np.array([1.0, -2.0, 3.0], np.float32))
    g = ms.grad(lambda t: (cf.all_reduce(t) * t).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy())


def test_host_arrays_and_barrier_stay_on_the_host_world(nccl):
    FakeNccl.calls.clear()
    before = FakeStream.synchronized
    np.testing.assert_array_equal(nccl.all_reduce(np.ones(3, np.float32), "sum"), np.ones(3))
    cf.barrier()
    assert FakeNccl.calls == [] and FakeStream.synchronized == before + 1


def test_dtypes_nccl_lacks_are_named():
    assert nccl_dtype(np.float16) == 6 and nccl_dtype(np.int64) == 4
    with pytest.raises(TypeError, match="complex64"):
        nccl_dtype(np.complex64)


def test_nccl_backend_on_cpu_means_mpi():
    init("nccl")                              # a GPU script run on a CPU machine
    try:
        assert not isinstance(parallel.world(), NcclWorld)
    finally:
        release()
