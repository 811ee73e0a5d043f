"""The cuBLAS behind GPU matmuls, called directly rather than through CuPy.

CuPy refuses every cuBLAS call while a stream is being captured into a CUDA graph (its
wrapper checks, to stay clear of cuBLAS's workspace rules), which would keep every program
with a product out of graph replay (`codegen.cuda_graph`). minispore therefore calls the
cuBLAS library CuPy loaded, through ctypes, on a handle of its own whose workspace it
allocates once and never frees, as cuBLAS asks of captured calls: a recorded GEMM's
workspace address stays valid for every replay. Every GPU product runs here, recorded or
not, so that a replay computes exactly what the step-by-step run did.

`matmul(a, b)` is numpy's matmul for float32/float64 operands of rank >= 2 (broadcast batch
axes included): one `gemm` call, or one `gemmStridedBatched` for a batch, reading transposed
operands (views from swapaxes) in place. Other dtypes go to CuPy's matmul.
"""
import ctypes
import threading

import numpy as np

_OP_N, _OP_T = 0, 1
_WORKSPACE_BYTES = 32 << 20  # cuBLAS's recommendation for Hopper (4 MiB before it) is enough

_state = {}
_lock = threading.Lock()


def _library():
    """cuBLAS as CuPy loaded it (one copy of the library in the process)."""
    import cupy
    cupy.cuda.device.get_cublas_handle()  # makes CuPy load its cuBLAS now
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
        return ctypes.CDLL(load_nvidia_dynamic_lib("cublas").abs_path)
    except ImportError:  # an older CuPy without cuda-pathfinder: the library it mapped
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "/libcublas.so" in line}
        if not paths:
            raise RuntimeError("cuBLAS is not loaded in this process") from None
        return ctypes.CDLL(sorted(paths)[0])


def _declare(lib):
    p, i, ll = ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong
    functions = {}
    for name, scalar in (("Sgemm", ctypes.c_float), ("Dgemm", ctypes.c_double)):
        gemm = getattr(lib, f"cublas{name}_v2")
        gemm.argtypes = [p, i, i, i, i, i, p, p, i, p, i, p, p, i]
        batched = getattr(lib, f"cublas{name}StridedBatched")
        batched.argtypes = [p, i, i, i, i, i, p, p, i, ll, p, i, ll, p, p, i, ll, i]
        one, zero = scalar(1.0), scalar(0.0)
        functions[np.dtype(scalar)] = (gemm, batched, one, zero)
    lib.cublasSetStream_v2.argtypes = [p, p]
    lib.cublasSetWorkspace_v2.argtypes = [p, p, ctypes.c_size_t]
    lib.cublasCreate_v2.argtypes = [ctypes.POINTER(p)]
    return functions


def _setup():
    """(library, handle, {dtype: (gemm, strided batched gemm, 1, 0)}) for this device."""
    import cupy
    device = cupy.cuda.Device().id
    with _lock:
        if device not in _state:
            lib = _library()
            functions = _declare(lib)
            handle = ctypes.c_void_p()
            _check(lib.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate")
            workspace = cupy.cuda.alloc(_WORKSPACE_BYTES)  # kept for the process's lifetime
            _check(lib.cublasSetWorkspace_v2(handle, workspace.ptr, _WORKSPACE_BYTES),
                   "cublasSetWorkspace")
            _state[device] = (lib, handle, functions, workspace)
        return _state[device]


def _check(status, what):
    if status != 0:
        raise RuntimeError(f"cuBLAS {what} failed with status {status}")


def _layout(x):
    """(cuBLAS op, leading dimension) making the column-major reading of row-major
    x (r, c) into x^T, or None if x's matrix axes have no BLAS layout."""
    r, c = x.shape[-2:]
    s_r, s_c = x.strides[-2:]
    item = x.itemsize
    if (c == 1 or s_c == item) and (r == 1 or s_r == c * item):
        return _OP_N, max(1, c)      # row-major: its memory is x^T column-major
    if (r == 1 or s_r == item) and (c == 1 or s_c == r * item):
        return _OP_T, max(1, r)      # x^T is row-major: its memory is x column-major
    return None


def _batch_stride(x, batch):
    """The one stride in elements stepping through x's `batch` leading axes (x broadcast to
    them), or None where the batch is no single stride."""
    x_batch = (1,) * (len(batch) - (x.ndim - 2)) + tuple(x.shape[:-2])
    strides = (0,) * (len(batch) - (x.ndim - 2)) + tuple(x.strides[:-2])
    steps = [0 if n == 1 else s for n, s in zip(x_batch, strides)]
    if all(s == 0 for s, n in zip(steps, batch) if n > 1):
        return 0                      # one matrix for the whole batch
    stride = None
    expected = None
    for n, own, s in zip(reversed(batch), reversed(x_batch), reversed(steps)):
        if n == 1:
            continue
        if own != n:
            return None               # broadcast along some batch axes only
        if stride is None:
            stride = s
        elif s != expected:
            return None
        expected = s * n
    return None if stride is None or stride % x.itemsize else stride // x.itemsize


def _operand(x, batch):
    """(x, (op, ld), batch stride), x made contiguous where BLAS cannot read it as it is."""
    layout, stride = _layout(x), _batch_stride(x, batch)
    if layout is None or stride is None or stride < 0:
        import cupy
        x = cupy.ascontiguousarray(cupy.broadcast_to(x, tuple(batch) + x.shape[-2:]))
        layout, stride = _layout(x), _batch_stride(x, batch)
    return x, layout, stride


def matmul(a, b):
    """numpy.matmul(a, b) for CuPy arrays of rank >= 2, on cuBLAS (see the module doc)."""
    import cupy
    if a.dtype != b.dtype or a.dtype not in (np.float32, np.float64) or a.ndim < 2 or b.ndim < 2:
        return cupy.matmul(a, b)
    lib, handle, functions, _ = _setup()
    gemm, batched, one, zero = functions[a.dtype]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    (m, k), n = a.shape[-2:], b.shape[-1]
    out = cupy.empty(batch + (m, n), a.dtype)
    count = out.size // max(1, m * n)
    if out.size == 0:
        return out
    if k == 0:
        out.fill(0)
        return out
    a, (op_a, ld_a), stride_a = _operand(a, batch)
    b, (op_b, ld_b), stride_b = _operand(b, batch)
    _check(lib.cublasSetStream_v2(handle, cupy.cuda.get_current_stream().ptr), "cublasSetStream")
    # out^T = b^T a^T, column-major: out's memory is out^T column-major with ld n
    alpha, beta = ctypes.byref(one), ctypes.byref(zero)
    if count == 1:
        status = gemm(handle, op_b, op_a, n, m, k, alpha, b.data.ptr, ld_b, a.data.ptr, ld_a,
                      beta, out.data.ptr, n)
    else:
        status = batched(handle, op_b, op_a, n, m, k, alpha, b.data.ptr, ld_b, stride_b,
                         a.data.ptr, ld_a, stride_a, beta, out.data.ptr, n, m * n, count)
    _check(status, "gemm")
    return out
