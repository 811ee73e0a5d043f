"""The BLAS behind CPU matmuls: a private OpenBLAS whose kernels minispore chooses.

numpy's matmul calls the OpenBLAS bundled inside numpy, with the kernel table that OpenBLAS
picked when numpy loaded it. minispore loads its own copy (the `scipy-openblas32` wheel,
OpenBLAS's official Python packaging) so that it can choose the kernels. That matters on AMD
Zen 4: OpenBLAS gives it the Skylake-X AVX-512 kernels, whose blocking assumes 512-bit FMA
units, while Zen 4 executes AVX-512 on 256-bit units; OpenBLAS's AVX2 "Zen" kernels run the
float32 GEMMs of training 5-15% faster there (measured on one core: the eight GEMMs of the MLP
benchmark step, 1.63 ms through numpy, 1.51 ms here). The copy is loaded with local symbols,
so numpy's BLAS, and every result the user's own numpy code computes, stay as they were.

Environment:
  MINISPORE_BLAS=numpy              use numpy's matmul everywhere
  MINISPORE_BLAS_CORETYPE=NAME      an OPENBLAS_CORETYPE name for minispore's copy ("auto": let
                                    OpenBLAS detect); a user's OPENBLAS_CORETYPE is respected

`matmul(a, b)` is numpy's 2-D matmul and `addmm(c, a, b, alpha)` is c + alpha * (a @ b)
(`addmm_into` accumulates into c itself), on that copy for float32/float64 products large
enough to amortise a foreign call (~4 us); everything else goes to numpy.
"""
import ctypes
import importlib.util
import logging
import os

import numpy as np

log = logging.getLogger("minispore.blas")

# below ~4M multiply-adds numpy wins: its call costs ~1 us, a ctypes call ~4 us
MIN_MACS = 1 << 22
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112


def _cpu_info():
    """(vendor, family, flags) from /proc/cpuinfo; empty where there is none (not Linux)."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # the first processor says it all
                key, _, value = line.partition(":")
                info[key.strip()] = value.strip()
    except OSError:
        pass
    family = info.get("cpu family", "")
    return info.get("vendor_id", ""), int(family) if family.isdigit() else -1, set(info.get("flags", "").split())


def default_coretype(cpu=None):
    """The OpenBLAS kernel set minispore asks for, or None to let OpenBLAS detect.

    Zen 4 (AMD family 25 with AVX-512) gets the AVX2 Zen kernels (see the module docstring);
    Zen 3 is family 25 without AVX-512 and is detected as Zen anyway; Zen 5 (family 26) has
    full-width AVX-512 units and keeps OpenBLAS's choice.
    """
    vendor, family, flags = cpu if cpu is not None else _cpu_info()
    if vendor == "AuthenticAMD" and family == 25 and "avx512f" in flags:
        return "Zen"
    return None


class _Threads:
    """The threads of minispore's OpenBLAS while Graph mode compiles beside the program.

    The compiler's thread keeps a core busy for seconds; a GEMM that also wants that core for
    a BLAS thread waits on it (idle OpenBLAS threads spin): a first-seconds MLP step took 6 ms
    instead of 2 while kernels compiled. So while the compiler runs, GEMMs leave it one core.
    The compiler only raises a flag; the thread count changes on the thread that runs GEMMs,
    between them (OpenBLAS must not change it under a running call)."""
    library = None      # the loaded OpenBLAS
    compiling = False   # set by the background compiler (compiler.codegen.background)
    lent = None         # the thread count to give back when the compiler is done

    @classmethod
    def follow(cls):
        library = cls.library
        if cls.compiling and cls.lent is None:
            threads = library.scipy_openblas_get_num_threads()
            if threads > 1:
                cls.lent = threads
                library.scipy_openblas_set_num_threads(threads - 1)
        elif not cls.compiling and cls.lent is not None:
            # unless someone chose a count meanwhile (set_context(num_threads=...))
            if library.scipy_openblas_get_num_threads() == cls.lent - 1:
                library.scipy_openblas_set_num_threads(cls.lent)
            cls.lent = None



def compiler_running(running):
    """Say that Graph mode's compiler thread starts (True) or stops (False) using a core."""
    _Threads.compiling = running


def _load():
    """(sgemm, dgemm, core name) of minispore's OpenBLAS copy, or None to use numpy."""
    if os.environ.get("MINISPORE_BLAS", "").lower() == "numpy":
        return None
    spec = importlib.util.find_spec("scipy_openblas32")
    if spec is None or spec.origin is None:
        log.debug("scipy-openblas32 is not installed: matmuls use numpy's BLAS")
        return None
    lib_dir = os.path.join(os.path.dirname(spec.origin), "lib")
    names = [f for f in os.listdir(lib_dir)
             if f.startswith("libscipy_openblas") and f.endswith((".so", ".dylib", ".dll"))]
    if not names:
        return None
    path = os.path.join(lib_dir, names[0])
    wanted = os.environ.get("MINISPORE_BLAS_CORETYPE") or default_coretype()
    # OpenBLAS reads OPENBLAS_CORETYPE once, while the library loads
    override = wanted not in (None, "auto") and "OPENBLAS_CORETYPE" not in os.environ
    if override:
        os.environ["OPENBLAS_CORETYPE"] = wanted
    try:
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    except OSError as e:
        log.debug("could not load %s (%s): matmuls use numpy's BLAS", path, e)
        return None
    finally:
        if override:
            del os.environ["OPENBLAS_CORETYPE"]
    lib.scipy_openblas_get_corename.restype = ctypes.c_char_p
    _Threads.library = lib
    gemms = []
    for name, scalar in (("scipy_cblas_sgemm", ctypes.c_float), ("scipy_cblas_dgemm", ctypes.c_double)):
        fn = getattr(lib, name)
        i, p = ctypes.c_int, ctypes.c_void_p
        fn.argtypes = [i, i, i, i, i, i, scalar, p, i, p, i, scalar, p, i]
        fn.restype = None
        gemms.append(fn)
    return gemms[0], gemms[1], lib.scipy_openblas_get_corename().decode()


_loaded = _load()
_GEMM = {} if _loaded is None else {np.dtype(np.float32): _loaded[0], np.dtype(np.float64): _loaded[1]}


def core_name():
    """The kernel set minispore's BLAS runs ("Zen", "SkylakeX"...), or "numpy"."""
    return "numpy" if _loaded is None else _loaded[2]


def _address(a):
    """The address of a C-contiguous array's data. (ctypes' from_buffer takes ~0.3 us where
    `a.ctypes.data` takes ~1 us, a sixth of a small GEMM's call; it needs a writable buffer.)"""
    try:
        return ctypes.addressof(_BYTE.from_buffer(a))
    except TypeError:  # read-only
        return a.ctypes.data


_BYTE = ctypes.c_char


def _operand(a):
    """(address, transpose flag, leading dimension) as cblas wants a row-major operand;
    `a` is C- or F-contiguous (see `_blas_layout`)."""
    if a.flags.c_contiguous:
        return _address(a), _NO_TRANS, max(1, a.shape[1])
    # a.T is row-major: hand BLAS that and ask for its transpose
    return _address(a.T), _TRANS, max(1, a.shape[0])


def _blas_layout(a):
    """a, or a C-contiguous copy of it where neither it nor its transpose is row-major."""
    return a if a.flags.c_contiguous or a.flags.f_contiguous else np.ascontiguousarray(a)


def _gemm_ready(a, b):
    """The gemm for a @ b if minispore's BLAS should run it, else None."""
    gemm = _GEMM.get(a.dtype)
    if (gemm is None or a.ndim != 2 or b.ndim != 2 or b.dtype != a.dtype
            or a.shape[1] != b.shape[0] or a.shape[0] * a.shape[1] * b.shape[1] < MIN_MACS):
        return None
    return gemm


def _gemm(gemm, a, b, alpha, beta, out):
    """out <- alpha * a @ b + beta * out (out: C-contiguous and writable)."""
    (m, k), n = a.shape, b.shape[1]
    if _Threads.compiling is not (_Threads.lent is not None):
        _Threads.follow()
    a, b = _blas_layout(a), _blas_layout(b)  # these names keep any copy alive over the call
    a_address, trans_a, lda = _operand(a)
    b_address, trans_b, ldb = _operand(b)
    gemm(_ROW_MAJOR, trans_a, trans_b, m, n, k, alpha, a_address, lda, b_address, ldb,
         beta, _address(out), max(1, n))
    return out


def matmul(a, b):
    """numpy.matmul(a, b), on minispore's BLAS for large 2-D float32/float64 products."""
    if a.dtype.itemsize == 2 and a.dtype == b.dtype:
        # half precision (float16, bfloat16): numpy multiplies float16 in scalar loops (150x
        # slower than sgemm here) and ml_dtypes' bfloat16 answers in float32: multiply in
        # float32 on BLAS (float32 accumulation, as CPU frameworks do) and round once
        return matmul(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
    gemm = _gemm_ready(a, b)
    if gemm is None:
        return np.matmul(a, b)
    return _gemm(gemm, a, b, 1.0, 0.0, np.empty((a.shape[0], b.shape[1]), a.dtype))


def matmul_into(a, b, out):
    """a @ b for 2-D a and b written into `out` (a C-contiguous matrix of the product's
    shape and dtype) and returned: by one BLAS call, or numpy's for products too small for
    it; None for half precision (see `matmul`) or an `out` that does not fit."""
    if (a.ndim != 2 or b.ndim != 2 or a.dtype.itemsize == 2 or not a.dtype == b.dtype == out.dtype
            or out.shape != (a.shape[0], b.shape[1]) or not out.flags.c_contiguous
            or not out.flags.writeable):
        return None
    gemm = _gemm_ready(a, b)
    return np.matmul(a, b, out=out) if gemm is None else _gemm(gemm, a, b, 1.0, 0.0, out)


def addmm(c, a, b, alpha):
    """c + alpha * (a @ b) for matrices a, b, c broadcasting to the product and a scalar
    alpha; one BLAS call accumulating into a copy of c where minispore's BLAS runs it."""
    gemm = _gemm_ready(a, b)
    if gemm is None:
        out = matmul(a, b)
        if alpha != 1:
            out *= alpha
        out += c
        return out
    out = np.empty((a.shape[0], b.shape[1]), a.dtype)
    out[...] = c
    return _gemm(gemm, a, b, float(alpha), 1.0, out)


def addmm_into(c, a, b, alpha):
    """A function of no arguments adding alpha * (a @ b) into c itself by one BLAS call (and
    returning c), or None where minispore's BLAS does not run the product or c is not a
    writable C-contiguous matrix of the product's shape and dtype. Whatever allocates (a
    copy of an operand BLAS cannot read) happens now; the function only calls BLAS."""
    gemm = _gemm_ready(a, b)
    if (gemm is None or c.dtype != a.dtype or c.shape != (a.shape[0], b.shape[1])
            or not c.flags.c_contiguous or not c.flags.writeable):
        return None
    a, b, alpha = _blas_layout(a), _blas_layout(b), float(alpha)
    return lambda: _gemm(gemm, a, b, alpha, 1.0, c)
