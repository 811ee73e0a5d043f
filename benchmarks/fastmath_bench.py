"""Benchmark minispore's vectorisable fastmath functions against numpy ufuncs and numba + libm.

    NUMBA_NUM_THREADS=1 python benchmarks/fastmath_bench.py [--n 1048576] [--repeat 31]
            [--dtype float32] [--asm]

For each function: one numba kernel ``out[i] = f(x[i])`` using the fastmath preamble (built from
minispore.compiler.codegen.fastmath exactly as the code generator does: preamble pasted into a
generated module file), the numpy ufunc (scipy.special.expit / erf for sigmoid / erf), and the
same numba loop calling libm through ``math.*`` / ``np.*``. Prints the median time per call
(single thread) and the speed-up of fastmath over numpy and over numba+libm. The last row,
``ew_chain``, is workload 2's 14-op chain ``tanh(x/2 + 0.1) sigmoid(x) + exp(-x^2) - 0.3x^2 +
log1p(|x|)`` fused into one kernel over the preamble (what the graph code generator emits), against
numpy ops and the same fused loop over libm. A small ``--n`` (e.g. 32768) keeps the data in cache
and shows compute alone. ``--asm`` also reports whether the compiled fastmath loops use packed
zmm/ymm instructions.
"""
from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.special as sps  # noqa: E402

# fastmath.py is self-contained: load it by path so the benchmark does not import all of minispore.
_FASTMATH_PY = (Path(__file__).resolve().parents[1] / "minispore" / "runtime" / "codegen"
                / "fastmath.py")
_spec = importlib.util.spec_from_file_location("minispore_fastmath", _FASTMATH_PY)
fastmath = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fastmath)

# Inputs per function: a representative range (no nan/inf), as used by DL workloads.
RANGES = {"exp": (-80.0, 80.0), "log": (1e-3, 1e3), "log1p": (-0.9, 100.0), "expm1": (-20.0, 20.0),
          "tanh": (-8.0, 8.0), "sigmoid": (-20.0, 20.0), "erf": (-5.0, 5.0), "sin": (-100.0, 100.0),
          "cos": (-100.0, 100.0)}

NUMPY = {"exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "tanh": np.tanh,
         "sigmoid": sps.expit, "erf": sps.erf, "sin": np.sin, "cos": np.cos}

CHAIN = "ew_chain"
RANGES[CHAIN] = (-4.0, 4.0)


def _numpy_chain(x, out):
    xx = x * x
    np.add(np.tanh(x * 0.5 + 0.1) * sps.expit(x) + np.exp(-xx) - 0.3 * xx, np.log1p(np.abs(x)),
           out=out)


NUMPY[CHAIN] = _numpy_chain

# numba + libm: what a kernel gets from math.* (scalar calls; no SVML in pip llvmlite).
LIBM_EXPR = {"exp": "math.exp(v)", "log": "math.log(v)", "log1p": "math.log1p(v)",
             "expm1": "math.expm1(v)", "tanh": "math.tanh(v)",
             "sigmoid": "one / (one + math.exp(-v))", "erf": "math.erf(v)", "sin": "math.sin(v)",
             "cos": "math.cos(v)",
             CHAIN: "math.tanh(v * half + c01) * (one / (one + math.exp(-v))) + math.exp(-(v * v))"
                    " - c03 * (v * v) + math.log1p(abs(v))"}
FASTMATH_EXPR = {name: f"{name}(v)" for name in LIBM_EXPR}
FASTMATH_EXPR[CHAIN] = ("tanh(v * half + c01) * sigmoid(v) + exp(-(v * v)) - c03 * (v * v)"
                        " + log1p(abs(v))")


def _module_source(dtype: str) -> str:
    src = ["import math", "import numpy as np", "import numba", fastmath.preamble(dtype)]
    src.append(f"one, half, c01, c03 = (np.{dtype}(c) for c in (1.0, 0.5, 0.1, 0.3))")
    for name in fastmath.FUNCTIONS + (CHAIN,):
        src.append(f'''
@numba.njit(fastmath=FASTMATH_FLAGS, error_model="numpy", cache=True)
def fm_{name}(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = {FASTMATH_EXPR[name]}


@numba.njit(fastmath=FASTMATH_FLAGS, error_model="numpy", cache=True)
def libm_{name}(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = {LIBM_EXPR[name]}
''')
    return "\n".join(src)


def _load(dtype: str, directory: Path):
    path = directory / f"fastmath_bench_{dtype}.py"
    path.write_text(_module_source(dtype))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _median_times(fns, repeat: int) -> list[float]:
    """Median wall time of each callable; the callables are timed round-robin so that a change in
    machine load affects all of them alike."""
    for fn in fns:
        fn()  # warm-up (and compile)
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, ts in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
    return [statistics.median(ts) for ts in times]


def _packed_width(kernel) -> str:
    asm = kernel.inspect_asm(kernel.signatures[0])
    if re.search(r"\bv\w+p[sd]\b[^\n]*%zmm", asm):
        return "zmm"
    if re.search(r"\bv\w+p[sd]\b[^\n]*%ymm", asm):
        return "ymm"
    if re.search(r"\b\w+p[sd]\b[^\n]*%xmm", asm):
        return "xmm"
    return "scalar"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--repeat", type=int, default=31)
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--asm", action="store_true", help="report the vector width of each kernel")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory(prefix="fastmath-bench-") as tmp:
        os.environ.setdefault("NUMBA_CACHE_DIR", tmp)
        module = _load(args.dtype, Path(tmp))
        print(f"{args.n} x {args.dtype}, median of {args.repeat}, "
              f"NUMBA_NUM_THREADS={os.environ['NUMBA_NUM_THREADS']}")
        print(f"{'function':9s} {'fastmath':>10s} {'numpy':>10s} {'numba+libm':>11s}"
              f" {'vs numpy':>9s} {'vs libm':>8s}" + ("  vector" if args.asm else ""))
        for name in fastmath.FUNCTIONS + (CHAIN,):
            lo, hi = RANGES[name]
            x = rng.uniform(lo, hi, args.n).astype(args.dtype)
            out = np.empty_like(x)
            fm = getattr(module, f"fm_{name}")
            libm = getattr(module, f"libm_{name}")
            ufunc = NUMPY[name]
            t_fm, t_np, t_libm = _median_times(
                [lambda: fm(x, out), lambda: ufunc(x, out=out), lambda: libm(x, out)], args.repeat)
            line = (f"{name:9s} {t_fm * 1e3:8.3f}ms {t_np * 1e3:8.3f}ms {t_libm * 1e3:9.3f}ms"
                    f" {t_np / t_fm:8.2f}x {t_libm / t_fm:7.2f}x")
            if args.asm:
                line += f"  {_packed_width(fm)}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
