"""GPU parity: `pytest --gpu` on a machine with CuPy and an NVIDIA GPU (skipped elsewhere).

device_target="GPU" must give the CPU's results:
* every primitive, on the samples of tests/ops/test_registry.py: values and gradients, in
  PyNative and in Graph mode;
* every fused-group shape of the CUDA codegen walk (tests/compiler/test_cuda_codegen.py) run
  as a real kernel, with CUDA's math library, against the eager numpy ops;
* the representative Graph-mode workloads (fused kernels, cuBLAS matmul, state updates);
* the digits demo trains to >= 95% test accuracy, in both modes.
"""
import logging
import os
import sys

import numpy as np
import pytest
from gpu_env import GPU_MARKS
from graph_workloads import WORKLOADS
from helpers import run_in_mode, to_numpy

import minispore as ms
from minispore.compiler.codegen import cuda_gpu
from minispore.context import cache_dir, device
from minispore.examples import digits
from minispore.ops.primitive import REGISTRY

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(_HERE, "..", "ops"), os.path.join(_HERE, "..", "compiler")]
import test_cuda_codegen as codegen_walk  # noqa: E402  (the walk and its inputs)
import test_registry as registry  # noqa: E402  (SAMPLES and the vjp helpers)

USER_CUPY_CACHE_DIR = os.environ.get("CUPY_CACHE_DIR")  # minispore keeps a user's choice
pytestmark = GPU_MARKS


def on(device_target, fn, *args):
    """fn(*args) with `device_target` selected, its results as numpy arrays; CPU afterwards."""
    ms.set_context(device_target=device_target)
    try:
        return to_numpy(fn(*args))
    finally:
        ms.set_context(device_target="CPU")


def assert_same(got, want, what, f32=(1e-5, 1e-6), f64=(1e-10, 1e-12)):
    """Integers and bools exactly; floats to a few ulp of their dtype (CUDA's libm, cuBLAS
    summation order and the CPU kernels' own approximations differ in the last bits)."""
    got, want = list(got), list(want)
    assert len(got) == len(want), what
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, \
            f"{what}[{k}]: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        if w.dtype.kind == "f":
            rtol, atol = f32 if w.dtype.itemsize <= 4 else f64
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{what}[{k}]")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{what}[{k}]")


@pytest.fixture
def gpu():
    ms.set_context(device_target="GPU")
    yield
    ms.set_context(device_target="CPU")


@pytest.fixture
def no_kernel_fallback(caplog):
    """Fails the test if a fused CUDA kernel could not be built (and ran op by op)."""
    with caplog.at_level(logging.WARNING, logger="minispore.jit"):
        yield
    failed = [r.getMessage() for r in caplog.records if "CUDA kernel" in r.getMessage()]
    assert not failed, failed


# ***** placement *****

def test_tensors_and_results_live_on_the_gpu(gpu):
    import cupy
    assert os.environ["CUPY_CACHE_DIR"] == (USER_CUPY_CACHE_DIR
                                            or os.path.join(cache_dir.path(), "cupy"))
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = ms.ops.softmax(x * 0.5, axis=1) @ ms.Tensor(np.ones((3, 2), np.float32))
    assert isinstance(x._data, cupy.ndarray) and isinstance(y._data, cupy.ndarray)
    assert isinstance(y.asnumpy(), np.ndarray)
    np.testing.assert_allclose(y.asnumpy(), np.ones((2, 2)), rtol=1e-6)
    assert device.xp() is cupy


# ***** every primitive *****

def _values(prim, sample, mode):
    tensors = [ms.Tensor(a) for a in sample.inputs]
    out = run_in_mode(lambda *xs: prim(*xs, **sample.attrs), mode, *tensors)
    return registry.results(prim, out)


def _gradients(prim, sample, mode):
    f, positions = registry.call_with_floats(prim, sample)
    if not positions:
        return ()
    arrays = [sample.inputs[p] for p in positions]
    cots = registry.cotangents(np.random.default_rng(3), f(*(ms.Tensor(a) for a in arrays)))

    def loss(*xs):
        terms = [ms.ops.sum(o * ms.Tensor(c)) for o, c in zip(f(*xs), cots)]
        return sum(terms[1:], terms[0])

    grad_fn = ms.grad(loss, grad_position=tuple(range(len(arrays))))
    return registry.as_tuple(run_in_mode(grad_fn, mode, *(ms.Tensor(a) for a in arrays)))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", registry.ALL)
def test_every_primitive_gives_the_cpu_values_and_gradients(name, mode, no_kernel_fallback):
    prim = REGISTRY[name]
    for k, sample in enumerate(registry.samples_of(name)):
        what = f"{name} sample {k} ({mode})"
        assert_same(on("GPU", _values, prim, sample, mode),
                    on("CPU", _values, prim, sample, mode), what)
        if name not in registry.NO_GRADIENT and name not in registry.FIRST_ORDER_ONLY:
            assert_same(on("GPU", _gradients, prim, sample, mode),
                        on("CPU", _gradients, prim, sample, mode), what + " gradient")


# ***** fused kernels *****

def test_every_fused_group_of_the_walk_runs_as_a_cuda_kernel_with_numpys_values(gpu):
    import cupy
    failures = []
    for case in codegen_walk._walk_cases():
        group = case.group
        arrays = iter(codegen_walk._inputs(case))
        host = [v.const if v.const is not None else next(arrays) for v in group.inputs]
        with np.errstate(all="ignore"):
            want = [np.broadcast_to(np.asarray(w), group.shape).astype(v.dtype)
                    for v, w in zip(group.outputs, group.run_nodes(np, host))]
        step = cuda_gpu.CudaGroupStep(group)
        # as the operands come (broadcast: the ElementwiseKernel), then each of the group's
        # full shape (contiguous: the flat kernel)
        full = [np.ascontiguousarray(np.broadcast_to(a, group.shape)) for a in host]
        for flat in (False, True):
            got = step(cupy, *[a if v.const is not None else cupy.asarray(f if flat else a)
                               for v, a, f in zip(group.inputs, host, full)])
            assert step.failed is None, f"{case}: {step.failed}\n{step.source}"
            assert not flat or step.flat, f"{case}: the flat kernel did not run"
            try:
                # CUDA's float32 libm is within 2-4 ulp, numpy's within 1-4
                assert_same([g.get() for g in got], want, f"{case!r} flat={flat}",
                            f32=(2e-6, 0), f64=(1e-14, 0))
            except AssertionError as e:
                failures.append(str(e))
    assert not failures, f"{len(failures)} groups differ:\n" + "\n".join(failures[:10])


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_graph_workloads_give_the_cpu_results(name, dtype, no_kernel_fallback):
    got = on("GPU", WORKLOADS[name], dtype)
    want = on("CPU", WORKLOADS[name], dtype)
    # a few train steps: last-bit differences of the first step propagate
    assert_same(got, want, name, f32=(1e-4, 1e-5), f64=(1e-9, 1e-11))


def test_kernel_objects_are_shared_by_source(gpu):
    x = ms.Tensor(np.linspace(-2, 2, 10, dtype=np.float32))
    first = ms.jit(lambda x: ms.ops.tanh(x * 2.0) + 1.0)
    second = ms.jit(lambda x: ms.ops.tanh(x * 2.0) + 1.0)
    want = np.tanh(np.linspace(-2, 2, 10) * 2) + 1
    np.testing.assert_allclose(first(x).asnumpy(), want, rtol=1e-6, atol=1e-6)
    kernels = len(cuda_gpu._kernels)
    second(x)
    assert len(cuda_gpu._kernels) == kernels  # the same source: the same kernel object


# ***** the demo *****

@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_digits_demo_trains_to_95_percent_on_the_gpu(mode, gpu, tmp_path):
    result = digits.run(mode=mode, ckpt_path=str(tmp_path / "digits.ckpt"), progress_bar=False,
                        log=lambda message: None)
    assert result.accuracy >= 0.95
    assert result.passed
