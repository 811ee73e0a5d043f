"""Run by test_mpi.py under `mpirun -n 2 python -m mpi4py mpi_worker.py CHECK`: each check
asserts on every rank; a failing assertion aborts the job (non-zero exit)."""
import contextlib
import os
import sys

import numpy as np

import minispore as ms
from minispore import dataset as ds
from minispore import nn, ops
from minispore.communication import comm_func as cf
from minispore.communication import create_group, get_group_size, get_rank, init

if sys.argv[1] == "nccl":  # a stand-in GPU whose NCCL exchanges over MPI (fake_device.py)
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from fake_device import FakeNccl, fake_cupy_modules
    sys.modules.update(fake_cupy_modules())
    ms.set_context(device_target="GPU")
init()
RANK, SIZE = get_rank(), get_group_size()
assert SIZE == 2, SIZE


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def check_collectives():
    x = ms.Tensor(np.arange(4, dtype=np.float32) + 10 * RANK)     # rank 0: 0..3, rank 1: 10..13
    both = np.stack([np.arange(4) + 10 * r for r in range(SIZE)]).astype(np.float32)
    for mode in ("pynative", "jit"):
        run = (lambda f: f) if mode == "pynative" else ms.jit
        close(run(lambda x: cf.all_reduce(x))(x), both.sum(0))
        close(run(lambda x: cf.all_reduce(x, "max"))(x), both.max(0))
        close(run(lambda x: cf.all_reduce(x, "min"))(x), both.min(0))
        close(run(lambda x: cf.all_gather_into_tensor(x))(x), both.reshape(-1))
        close(run(lambda x: cf.reduce_scatter_tensor(x))(x), both.sum(0)[2 * RANK:2 * RANK + 2])
        close(run(lambda x: cf.broadcast(x, 1))(x), both[1])
        close(run(lambda x: ops.AllReduce()(x) * 2.0)(x), both.sum(0) * 2)
        # gradients: the loss of the job is the sum of the ranks' losses
        w = np.arange(8, dtype=np.float32).reshape(2, 4) + 1                # d loss_r / d out
        g = run(ms.grad(lambda x: (cf.all_reduce(x) * ms.Tensor(w[RANK])).sum()))(x)
        close(g, w.sum(0))                                                  # all_reduce(dout)
        g = run(ms.grad(lambda x: (cf.all_gather_into_tensor(x) * ms.Tensor(w.reshape(-1)
                                                                            * (RANK + 1))).sum()))(x)
        close(g, (w.reshape(-1) * 3)[4 * RANK:4 * RANK + 4])                # reduce_scatter
        g = run(ms.grad(lambda x: (cf.reduce_scatter_tensor(x) * float(RANK + 1)).sum()))(x)
        close(g, np.repeat([1.0, 2.0], 2))                                  # all_gather
        g = run(ms.grad(lambda x: (cf.broadcast(x, 0) * float(RANK + 1)).sum()))(x)
        close(g, np.full(4, 3.0) if RANK == 0 else np.zeros(4))
    create_group("pair", [0, 1])
    close(cf.all_reduce(x, group="pair"), both.sum(0))
    cf.barrier()


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Dense(6, 16, activation="tanh"), nn.Dense(16, 3)

    def construct(self, x):
        return self.fc2(self.fc1(x))


class SmallCNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="same", has_bias=True)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc = nn.Dense(4 * 4 * 4, 3)

    def construct(self, x):
        return self.fc(ops.reshape(self.pool(ops.relu(self.conv(x))), (x.shape[0], -1)))


@contextlib.contextmanager
def training(parallel, mode):
    """The context of one training run: `mode`, data parallel or not, seeded so that every
    rank starts from the same parameters; all reset afterwards."""
    ms.set_context(mode=mode)
    ms.reset_auto_parallel_context()
    if parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True)
    try:
        ms.set_seed(0)
        yield
    finally:
        ms.reset_auto_parallel_context()
        ms.set_context(mode=ms.PYNATIVE_MODE)


def values(net):
    return [p.asnumpy().copy() for p in net.trainable_params()]


def train(build, data, label, parallel, mode, steps=4):
    """TrainOneStepCell: it all-reduces the gradients by itself in data-parallel mode."""
    with training(parallel, mode):
        net = build()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                   nn.Momentum(net.trainable_params(), 0.1, 0.9))
        for _ in range(steps):
            step(ms.Tensor(data), ms.Tensor(label))
        return values(net)


def train_functional(build, data, label, parallel, mode, steps=4):
    """MindSpore's functional recipe: value_and_grad, DistributedGradReducer, optimizer, in
    a @jit step (Graph mode) or eagerly."""
    with training(parallel, ms.PYNATIVE_MODE):
        net = build()
        loss_fn = nn.MSELoss()
        optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, optimizer.parameters)
        reducer = nn.DistributedGradReducer(optimizer.parameters) if parallel else None

        def train_step(x, y):
            loss, grads = grad_fn(x, y)
            if reducer is not None:
                grads = reducer(grads)
            optimizer(grads)
            return loss
        step = ms.jit(train_step) if mode == ms.GRAPH_MODE else train_step
        for _ in range(steps):
            step(ms.Tensor(data), ms.Tensor(label))
        return values(net)


def train_model(build, data, label, parallel, mode):
    """Model.train over a dataset: in data-parallel mode it shards by rank by itself."""
    with training(parallel, mode):
        net = build()
        model = ms.train.Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        dataset = ds.NumpySlicesDataset((data, label), ["x", "y"], shuffle=False)
        model.train(2, dataset.batch(4 if parallel else 8))
        return values(net)


def check_training():
    rng = np.random.default_rng(0)
    for build, shape in ((MLP, (8, 6)), (SmallCNN, (8, 1, 8, 8))):
        data = rng.standard_normal(shape).astype(np.float32)
        label = rng.standard_normal((8, 3)).astype(np.float32)
        # the dataset gives rank r rows r, r + 2, ...: the others take those rows by hand
        mine = slice(RANK, None, SIZE)
        for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
            for recipe in (train, train_functional):
                together = recipe(build, data, label, False, mode)         # one process
                apart = recipe(build, data[mine], label[mine], True, mode)  # 4 rows a rank
                for a, b in zip(apart, together):
                    close(a, b, 1e-5)  # float32: the mean of two means vs one mean
            together = train_model(build, data, label, False, mode)
            for a, b in zip(train_model(build, data, label, True, mode), together):
                close(a, b, 1e-5)


def check_sharding():
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    try:
        data = ds.NumpySlicesDataset(np.arange(10), ["n"], shuffle=False)
        mine = [int(row["n"]) for row in data.create_dict_iterator(output_numpy=True)]
    finally:
        ms.reset_auto_parallel_context()
    everyone = cf.all_gather_into_tensor(ms.Tensor(np.array(mine, np.int64))).asnumpy()
    assert sorted(everyone.tolist()) == list(range(10)), everyone


def check_checkpoint():
    directory = sys.argv[2]
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    try:
        ms.save_checkpoint({"w": ms.Tensor(np.full(3, float(RANK)))},
                           os.path.join(directory, "model.ckpt"))
        ms.save_checkpoint({"w": ms.Tensor(np.full(3, float(RANK)))},
                           os.path.join(directory, "each.ckpt"), integrated_save=False)
    finally:
        ms.reset_auto_parallel_context()
    cf.barrier()


def check_nccl():
    from minispore.communication.nccl_world import NcclWorld
    assert isinstance(ms.communication.management._world(), NcclWorld)
    x = ms.Tensor(np.arange(4, dtype=np.float32) + 10 * RANK)
    both = np.stack([np.arange(4) + 10 * r for r in range(SIZE)]).astype(np.float32)
    for run in (lambda f: f, ms.jit):
        FakeNccl.calls.clear()
        close(run(lambda x: cf.all_reduce(x))(x).asnumpy(), both.sum(0))
        close(run(lambda x: cf.all_gather_into_tensor(x))(x).asnumpy(), both.reshape(-1))
        close(run(lambda x: cf.reduce_scatter_tensor(x, "max"))(x).asnumpy(),
              both.max(0)[2 * RANK:2 * RANK + 2])
        close(run(lambda x: cf.broadcast(x, 1))(x).asnumpy(), both[1])
        assert [c[0] for c in FakeNccl.calls] == ["allReduce", "allGather", "reduceScatter",
                                                  "bcast"], FakeNccl.calls
    w = np.arange(8, dtype=np.float32).reshape(2, 4) + 1
    g = ms.grad(lambda x: (cf.all_reduce(x) * ms.Tensor(w[RANK])).sum())(x)
    close(g.asnumpy(), w.sum(0))
    assert FakeNccl.ids_made == (1 if RANK == 0 else 0)  # rank 0 made the id, MPI carried it


def check_failure():
    if RANK == 1:
        raise RuntimeError("rank 1 fails on purpose")
    cf.all_reduce(ms.Tensor(np.ones(3, np.float32)))   # would wait forever for rank 1


globals()[f"check_{sys.argv[1]}"]()
print(f"OK rank {RANK}", flush=True)
