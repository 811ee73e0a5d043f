"""A stand-in GPU for tests on machines without one.

`FakeNamespace` is numpy's API over `DeviceArray`s, which behave like CuPy arrays where it
matters for placement: no implicit conversion to numpy (`np.asarray` raises), operations refuse
host arrays, host values only through `.get()` (or bool()/float()/int(), which copy). Transfers
are counted, so a test can assert that a training step copies nothing between host and device.

`fake_cupy_modules()` adds what minispore's GPU path uses of CuPy itself: `cuda.runtime`, `ndarray`
and an `ElementwiseKernel` that builds the kernel's C++ for the host with g++ (through the
same loop CuPy generates, `elementwise_loop`) and runs it with ctypes, so Graph-mode
programs run their generated CUDA kernels end to end.
"""
import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import types
from typing import ClassVar

import numpy as np

from minispore.compiler.codegen import cuda_gpu

# A stand-in for an installed library (CuPy): its transfer counters are its own state, not a
# Python side effect of the traced functions that use it (see fallback/side_effects.py).
__minispore_library__ = True


class Transfers:
    downloads = 0   # device -> host (.get())
    uploads = 0     # host data -> device (array/asarray of anything not on the device)


class DeviceArray:
    """A numpy array held 'on the device'."""

    __slots__ = ("a",)
    __array_ufunc__ = None  # numpy ufuncs refuse it (ndarray + DeviceArray: its __radd__)

    def __init__(self, a):
        self.a = a

    def __array__(self, *args, **kwargs):
        raise TypeError("implicit conversion of a device array to numpy (use .get())")

    # a value read on the host: allowed (CuPy copies it), counted as a download
    def __bool__(self):
        return bool(self.get())

    def __float__(self):
        return float(self.get())

    def __int__(self):
        return int(self.get())

    def __iter__(self):  # rows, still on the device (as CuPy iterates)
        return (DeviceArray(row) for row in self.a)

    def get(self):
        Transfers.downloads += 1
        return self.a.copy()

    @property
    def data(self):  # CuPy's memory pointer: `.data.ptr`, the address NCCL reads and writes
        return types.SimpleNamespace(ptr=self.a.ctypes.data)

    def __getattr__(self, name):
        if name.startswith("__"):  # __array_interface__ & co. would hand numpy the data
            raise AttributeError(name)
        return _on_device(getattr(self.a, name))

    def __repr__(self):
        return f"DeviceArray(shape={self.a.shape}, dtype={self.a.dtype})"

    def __len__(self):
        return len(self.a)

    def __getitem__(self, index):
        return _wrap(self.a[_unwrap(index)])

    def __setitem__(self, index, value):
        self.a[_unwrap(index)] = _unwrap(value)


def _operator(name):
    def op(self, *others):
        result = getattr(self.a, name)(*_unwrap(others))
        return self if name.startswith("__i") else _wrap(result)
    return op


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
              "xor", "lt", "le", "gt", "ge", "eq", "ne"):
    for _form in ("__{}__", "__r{}__", "__i{}__"):
        if hasattr(np.ndarray, _form.format(_name)):
            setattr(DeviceArray, _form.format(_name), _operator(_form.format(_name)))
for _name in ("__neg__", "__pos__", "__abs__", "__invert__"):
    setattr(DeviceArray, _name, _operator(_name))


def _unwrap(x):
    if isinstance(x, DeviceArray):
        return x.a
    if isinstance(x, np.ndarray):
        raise TypeError("a host numpy array reached a device operation")
    if isinstance(x, (tuple, list)):
        return type(x)(_unwrap(v) for v in x)
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    return x


def _wrap(x):
    if isinstance(x, (np.ndarray, np.generic)):
        return DeviceArray(np.asarray(x))  # reductions give device 0-d arrays, as CuPy's
    if isinstance(x, (tuple, list)):
        return type(x)(_wrap(v) for v in x)
    return x


def _on_device(attr):
    if isinstance(attr, types.ModuleType):
        return FakeNamespace(attr)
    if isinstance(attr, type) or not callable(attr):
        return _wrap(attr) if isinstance(attr, np.ndarray) else attr
    return DeviceFunction(attr)


class DeviceFunction:
    """A numpy function (or ufunc, with its .at/.reduce...) on DeviceArrays."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return _wrap(self.fn(*_unwrap(args), **_unwrap(kwargs)))

    def __getattr__(self, name):
        return _on_device(getattr(self.fn, name))


class FakeNamespace:
    """numpy's API over DeviceArrays; array()/asarray() also upload host data."""

    ndarray = DeviceArray

    def __init__(self, module=np, name=None):
        self.__name__ = name or "fake_device_" + module.__name__
        self._module = module

    def __getattr__(self, name):
        return _on_device(getattr(self._module, name))

    def asarray(self, x, dtype=None):
        return self._upload(np.asarray, x, dtype)

    def array(self, x, dtype=None, copy=True):
        return self._upload(np.array, x, dtype)

    @staticmethod
    def _upload(make, x, dtype):
        if isinstance(x, DeviceArray):
            return DeviceArray(make(x.a, dtype=dtype))
        Transfers.uploads += 1
        return DeviceArray(make(_unwrap(x) if not isinstance(x, np.ndarray) else x, dtype=dtype))


# ***** CuPy's elementwise kernels, built for the host *****

HOST_SHIMS = r"""
#include <math.h>
#include <stdio.h>
#include <string.h>
#define __device__
#define __forceinline__ inline
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, sizeof f); return f; }
static inline double __longlong_as_double(long long i) {
  double d; memcpy(&d, &i, sizeof d); return d;
}
"""


def elementwise_loop(source, host):
    """A cuda_gpu.KernelSource in the loop cupy.ElementwiseKernel generates (each parameter
    bound to its element by reference), as a __global__ kernel or a host function."""
    ctype = cuda_gpu.ctype
    params = [f"const {ctype(d)}* _raw_{n}" for d, n in source.inputs]
    params += [f"{ctype(d)}* _raw_{n}" for d, n in source.outputs]
    binds = [f"const {ctype(d)} &{n} = _raw_{n}[i];" for d, n in source.inputs]
    binds += [f"{ctype(d)} &{n} = _raw_{n}[i];" for d, n in source.outputs]
    head, loop = (
        ('extern "C" void', "for (long long i = 0; i < n; ++i)") if host else
        ('extern "C" __global__ void', ("for (long long i = blockIdx.x * (long long)blockDim.x"
                                         " + threadIdx.x; i < n;"
                                         " i += (long long)blockDim.x * gridDim.x)")))
    body = "\n".join("    " + line for line in binds + source.operation.splitlines())
    signature = f"{head} {source.name}({', '.join(params + ['long long n'])})"
    return f"{signature} {{\n  {loop} {{\n{body}\n  }}\n}}\n"


def _params(text):
    return tuple(tuple(p.split()) for p in text.split(",")) if text.strip() else ()


class HostElementwiseKernel:
    """cupy.ElementwiseKernel(in_params, out_params, operation, name, preamble=...) for
    DeviceArrays: inputs broadcast to the given outputs' shape, the operation compiled with
    g++ on first call (the numeric semantics of the CUDA source, with the host's libm)."""

    builds = 0

    def __init__(self, in_params, out_params, operation, name, preamble=""):
        self.source = cuda_gpu.KernelSource(name, _params(in_params), _params(out_params),
                                            operation)
        self.preamble = preamble
        self.function = None

    def _build(self):
        text = HOST_SHIMS + self.preamble + "\n" + elementwise_loop(self.source, host=True)
        directory = tempfile.mkdtemp(prefix="minispore-host-kernel-")
        try:
            src = os.path.join(directory, "kernel.cpp")
            lib = os.path.join(directory, f"k{hashlib.sha1(text.encode()).hexdigest()[:8]}.so")
            with open(src, "w") as f:
                f.write(text)
            subprocess.run(["g++", "-std=c++17", "-O1", "-fwrapv", "-w", "-shared", "-fPIC", "-o",
                            lib, src], check=True, capture_output=True, text=True)
            function = getattr(ctypes.CDLL(lib), self.source.name)
        finally:
            shutil.rmtree(directory, ignore_errors=True)  # the loaded library stays mapped
        HostElementwiseKernel.builds += 1
        return function

    def __call__(self, *args):
        if self.function is None:
            self.function = self._build()
        n_in = len(self.source.inputs)
        ins, outs = args[:n_in], args[n_in:]
        assert len(outs) == len(self.source.outputs), "outputs are always given"
        shape = outs[0].a.shape
        buffers = [np.ascontiguousarray(np.broadcast_to(_unwrap(a), shape), dtype=d)
                   for a, (d, _) in zip(ins, self.source.inputs)]
        results = [np.empty(shape, d) for d, _ in self.source.outputs]
        pointers = [ctypes.c_void_p(b.ctypes.data) for b in buffers + results]
        self.function(*pointers, ctypes.c_longlong(int(np.prod(shape))))
        for out, result in zip(outs, results):
            out.a[...] = result
        return outs[0] if len(outs) == 1 else tuple(outs)


def fake_cupy_modules():
    """{module name: module-like object} to put in sys.modules: `cupy` (what minispore's GPU
    path uses of it) and `cupyx.scipy.special` (erf)."""
    import scipy.special

    cupy = FakeNamespace(np, name="cupy")
    cupy.cuda = types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceCount=lambda: 1),
        Device=FakeCudaDevice, get_current_stream=lambda: FakeStream, nccl=FakeNccl)
    cupy.ElementwiseKernel = HostElementwiseKernel
    modules = {"cupy": cupy}
    for name in ("cupyx", "cupyx.scipy", "cupyx.scipy.special"):
        modules[name] = types.ModuleType(name)
    modules["cupyx"].scipy = modules["cupyx.scipy"]
    modules["cupyx.scipy"].special = modules["cupyx.scipy.special"]
    modules["cupyx.scipy.special"].erf = DeviceFunction(scipy.special.erf)
    return modules


# ***** CuPy's NCCL binding, over MPI *****

class FakeCudaDevice:
    used: ClassVar[list] = []   # the device ids `use()`d, in order

    def __init__(self, index):
        self.index = index

    def use(self):
        FakeCudaDevice.used.append(self.index)


class FakeStream:
    ptr = 0x5EA
    synchronized = 0

    @classmethod
    def synchronize(cls):
        cls.synchronized += 1


class FakeNccl:
    """`cupy.cuda.nccl` for DeviceArrays: the communicator reads and writes the buffers at the
    addresses it is given, as NCCL does, and exchanges them over MPI (mpi4py's COMM_WORLD)
    when it has several ranks. `calls` records (method, count, dtype code, op code or root)."""

    available = True
    # ncclDataType_t and ncclRedOp_t numbers (nccl.h)
    DTYPES: ClassVar[dict] = {0: np.int8, 1: np.uint8, 2: np.int32, 3: np.uint32, 4: np.int64, 5: np.uint64,
              6: np.float16, 7: np.float32, 8: np.float64}
    OPS: ClassVar[dict] = {0: "SUM", 1: "PROD", 2: "MAX", 3: "MIN"}
    calls: ClassVar[list] = []
    ids_made = 0

    @classmethod
    def get_unique_id(cls):
        cls.ids_made += 1
        return tuple(np.random.default_rng().integers(0, 256, 128).tolist())

    class NcclCommunicator:
        def __init__(self, ndev, unique_id, rank):
            assert len(unique_id) == 128
            self.ndev, self.rank, self.unique_id = ndev, rank, unique_id
            if ndev > 1:
                from mpi4py import MPI
                self.mpi = MPI
                ids = MPI.COMM_WORLD.allgather(unique_id)
                assert all(i == unique_id for i in ids), "ranks were given different ids"

        def _view(self, pointer, count, dtype):
            dtype = np.dtype(FakeNccl.DTYPES[dtype])
            buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(pointer)
            return np.frombuffer(buffer, dtype)

        def _record(self, *call, stream):
            assert stream == FakeStream.ptr, "NCCL runs on CuPy's current stream"
            FakeNccl.calls.append(call)

        def allReduce(self, send, recv, count, dtype, op, stream):
            self._record("allReduce", count, dtype, op, stream=stream)
            out = self._view(recv, count, dtype)
            if self.ndev == 1:
                out[:] = self._view(send, count, dtype)
                return
            self.mpi.COMM_WORLD.Allreduce(self._view(send, count, dtype).copy(), out,
                                          op=getattr(self.mpi, FakeNccl.OPS[op]))

        def allGather(self, send, recv, count, dtype, stream):
            self._record("allGather", count, dtype, None, stream=stream)
            out = self._view(recv, count * self.ndev, dtype)
            if self.ndev == 1:
                out[:] = self._view(send, count, dtype)
                return
            self.mpi.COMM_WORLD.Allgather(self._view(send, count, dtype).copy(), out)

        def reduceScatter(self, send, recv, recvcount, dtype, op, stream):
            self._record("reduceScatter", recvcount, dtype, op, stream=stream)
            out = self._view(recv, recvcount, dtype)
            whole = self._view(send, recvcount * self.ndev, dtype).copy()
            if self.ndev == 1:
                out[:] = whole
                return
            self.mpi.COMM_WORLD.Reduce_scatter_block(whole, out,
                                                     op=getattr(self.mpi, FakeNccl.OPS[op]))

        def bcast(self, buffer, count, dtype, root, stream):
            self._record("bcast", count, dtype, root, stream=stream)
            if self.ndev > 1:
                self.mpi.COMM_WORLD.Bcast(self._view(buffer, count, dtype), root=root)
