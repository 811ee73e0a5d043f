"""Accuracy, special values and vectorisation of compiler/codegen/fastmath.py's preamble.

Each (function, dtype) gets one numba kernel ``out[i] = f(x[i])``, written with the preamble into
a real module file (as the code generator does, so ``cache=True`` works) and compared with a
reference over dense sweeps: every binade of both signs (incl. subnormals), linear sweeps over
the function's active range and around 0, the special values, and for sin/cos the floats closest
to the zeros of sin/cos. Reference: float64 numpy/scipy for float32 results; long double numpy for
float64 results where long double is wider (``math.erf`` for erf), else float64 with 1 ulp slack.
"""
from __future__ import annotations

import importlib.util
import io
import math
import platform
import re
import tokenize

import numpy as np
import pytest
import scipy.special as sps

from minispore.compiler.codegen import fastmath

DTYPES = ("float32", "float64")
_WIDE_LONGDOUBLE = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant
_REF_SLACK = {"float32": 0.0, "float64": 0.0 if _WIDE_LONGDOUBLE else 1.0}

# Linear sweep over each function's active range (beyond it the function saturates / overflows).
_ACTIVE = {
    "float32": {"exp": (-110, 95), "log": (0, 10), "log1p": (-1, 10), "expm1": (-40, 95),
                "tanh": (-12, 12), "sigmoid": (-120, 120), "erf": (-6, 6), "sin": (-1e4, 1e4),
                "cos": (-1e4, 1e4)},
    "float64": {"exp": (-760, 720), "log": (0, 10), "log1p": (-1, 10), "expm1": (-50, 720),
                "tanh": (-25, 25), "sigmoid": (-800, 800), "erf": (-7, 7), "sin": (-1e4, 1e4),
                "cos": (-1e4, 1e4)},
}


def _kernel_source(dtype: str) -> str:
    src = ["import numpy as np", "import numba", fastmath.preamble(dtype)]
    for name in fastmath.FUNCTIONS:
        src.append(f'''
@numba.njit(fastmath=FASTMATH_FLAGS, error_model="numpy", cache=True)
def k_{name}(x, out):
    for i in range(x.shape[0]):
        out[i] = {name}(x[i])
''')
    src.append('''
@numba.njit(fastmath=FASTMATH_FLAGS, error_model="numpy", cache=True)
def k_template(x, y, out):
    for i in range(x.shape[0]):
        out[i] = tanh(x[i]) * exp(y[i]) + where(x[i] > y[i], sin(x[i]), cos(y[i]))
''')
    return "\n".join(src)


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """dtype -> generated kernel module (one lazily compiled kernel per function)."""
    mods = {}
    for dtype in DTYPES:
        path = tmp_path_factory.mktemp("fastmath") / f"fastmath_kernels_{dtype}.py"
        path.write_text(_kernel_source(dtype))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods[dtype] = mod
    return mods


def _binade_sweep(dtype: str, n: int) -> np.ndarray:
    """n values evenly spaced in bit pattern over [0, max finite]: every binade, subnormals too."""
    dt = np.dtype(dtype)
    itype = np.uint32 if dt.itemsize == 4 else np.uint64
    top = np.array([np.finfo(dt).max], dt).view(itype)[0]
    bits = np.linspace(0, float(top), n).astype(itype)
    bits = np.minimum(bits, top)
    return bits.view(dt)


def _special(dtype: str) -> np.ndarray:
    fi = np.finfo(dtype)
    vals = [0.0, -0.0, np.inf, -np.inf, np.nan, fi.max, -fi.max, fi.tiny, -fi.tiny,
            fi.smallest_subnormal, -fi.smallest_subnormal, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0,
            fi.eps, -fi.eps, 1.0 + fi.eps, 1.0 - fi.epsneg, -1.0 + fi.epsneg]
    return np.array(vals, dtype)


def _near_trig_zeros(dtype: str, limit: float) -> np.ndarray:
    """The floats closest to k*pi/2 (zeros of sin and cos), with neighbours: every k up to 2e4,
    then 2**16 random k up to |x| <= limit."""
    kmax = int(limit / (np.pi / 2))
    k = np.concatenate([np.arange(1, min(kmax, 20_000) + 1),
                        np.random.default_rng(1).integers(1, kmax, 1 << 15)]).astype(np.longdouble)
    pi = np.arctan(np.longdouble(1)) * 4
    x = (k * (pi / 2)).astype(dtype)
    big = np.array(np.finfo(dtype).max, dtype)
    x = np.concatenate([x, np.nextafter(x, big), np.nextafter(x, -big)])
    x = x[x <= limit]
    return np.concatenate([x, -x])


def _inputs(name: str, dtype: str) -> np.ndarray:
    dt = np.dtype(dtype)
    lo, hi = _ACTIVE[dtype][name]
    mags = _binade_sweep(dtype, 1 << 18)
    parts = [mags, -mags, np.linspace(lo, hi, 1 << 18, dtype=dt),
             np.linspace(-2, 2, 1 << 17, dtype=dt), _special(dtype)]
    if name in ("sin", "cos"):
        limit = fastmath.SINCOS_LIMIT[dtype]
        wide = np.geomspace(1e4, limit, 1 << 16).astype(dt)
        parts += [wide, -wide, _near_trig_zeros(dtype, limit)]
    return np.concatenate(parts)


def _reference(name: str, x: np.ndarray, dtype: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        if dtype == "float32":
            xd = x.astype(np.float64)
            ufunc = {"sigmoid": sps.expit, "erf": sps.erf}.get(name) or getattr(np, name)
            ref = ufunc(xd)
            if name in ("sin", "cos"):   # documented: nan beyond SINCOS_LIMIT
                ref = np.where(np.abs(xd) <= fastmath.SINCOS_LIMIT[dtype], ref, np.nan)
            return ref
        if name == "erf":   # glibc's erf is correctly rounded in practice; scipy's is off by ~2 ulp
            return np.vectorize(math.erf, otypes=[np.float64])(x).astype(np.longdouble)
        xl = x.astype(np.longdouble)
        if name in ("sin", "cos"):   # documented: nan beyond SINCOS_LIMIT
            return np.where(np.abs(xl) <= fastmath.SINCOS_LIMIT[dtype], getattr(np, name)(xl),
                            np.nan)
        if name == "sigmoid":
            e = np.exp(-np.abs(xl))
            return np.where(xl < 0, e, 1) / (1 + e)
        return getattr(np, name)(xl)


def _ulp_error(y: np.ndarray, ref: np.ndarray, dtype: str) -> np.ndarray:
    """|y - ref| in ulps of ref (rounded to dtype); inf counts as the value 2**(emax+1), so an
    overflow one ulp early costs ~1 ulp; nan must match nan exactly (else the error is inf)."""
    dt = np.dtype(dtype)
    fi = np.finfo(dt)
    wide = ref.dtype
    top = wide.type(2.0) ** (fi.maxexp)
    with np.errstate(all="ignore"):
        r = np.where(np.isinf(ref), np.sign(ref) * top, ref)
        yy = y.astype(wide)
        yy = np.where(np.isinf(yy), np.sign(yy) * top, yy)
        mag = np.minimum(np.abs(r), wide.type(fi.max)).astype(dt)
        ulp = np.spacing(mag).astype(wide)
        err = np.abs(yy - r) / ulp
    nan_y, nan_r = np.isnan(y), np.isnan(ref)
    err = np.where(nan_y | nan_r, np.where(nan_y & nan_r, 0.0, np.inf), err)
    return err.astype(np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", fastmath.FUNCTIONS)
def test_accuracy_and_special_values(kernels, name, dtype):
    x = _inputs(name, dtype)
    out = np.empty_like(x)
    getattr(kernels[dtype], f"k_{name}")(x, out)
    assert out.dtype == np.dtype(dtype)
    err = _ulp_error(out, _reference(name, x, dtype), dtype)
    worst = int(np.argmax(err))
    bound = fastmath.ULP_BOUNDS[(name, dtype)] + _REF_SLACK[dtype]
    assert err[worst] <= bound, (
        f"{name}[{dtype}]({x[worst]!r}) = {out[worst]!r}: {err[worst]:.3f} ulp > {bound}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_saturation_and_special_cases(kernels, dtype):
    """The numpy special cases, spelled out (the sweep checks them too, against the reference)."""
    k = kernels[dtype]
    dt = np.dtype(dtype)
    inf, nan = np.inf, np.nan

    def run(name, *vals):
        x = np.array(vals, dt)
        out = np.empty_like(x)
        getattr(k, f"k_{name}")(x, out)
        return out

    np.testing.assert_array_equal(run("exp", inf, -inf, 1000, -1000, nan), [inf, 0, inf, 0, nan])
    np.testing.assert_array_equal(run("log", 0, -0.0, -1, inf, -inf, nan),
                                  [-inf, -inf, nan, inf, nan, nan])
    np.testing.assert_array_equal(run("log1p", -1, -2, inf, nan), [-inf, nan, inf, nan])
    np.testing.assert_array_equal(run("expm1", -inf, inf, -1000, 1000, nan),
                                  [-1, inf, -1, inf, nan])
    np.testing.assert_array_equal(run("tanh", inf, -inf, 50, -50, 1e30, nan),
                                  [1, -1, 1, -1, 1, nan])
    np.testing.assert_array_equal(run("sigmoid", inf, -inf, 1e4, -1e4, nan), [1, 0, 1, 0, nan])
    np.testing.assert_array_equal(run("erf", inf, -inf, 10, -10, 0, nan), [1, -1, 1, -1, 0, nan])
    for name in ("sin", "cos"):
        limit = fastmath.SINCOS_LIMIT[dtype]
        out = run(name, inf, -inf, nan, 2.0 * limit, -2.0 * limit)
        assert np.isnan(out).all(), (name, out)
    # tiny arguments keep full relative accuracy
    tiny = np.finfo(dt).tiny * 4
    for name, expected in (("expm1", tiny), ("log1p", tiny), ("sin", tiny), ("tanh", tiny)):
        assert run(name, tiny)[0] == expected, name
    # results in the subnormal range are produced, not flushed to 0
    x = np.log(np.finfo(dt).tiny) - 5
    for name in ("exp", "sigmoid"):
        assert 0 < run(name, x)[0] < np.finfo(dt).tiny, name


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["tanh", "erf"])
def test_odd_functions_are_exactly_odd(kernels, name, dtype):
    """f(-x) == -f(x) bit for bit over the whole sweep (both are built on |x| and the sign)."""
    x = _inputs(name, dtype)
    x = x[~np.isnan(x)]
    kernel = getattr(kernels[dtype], f"k_{name}")
    pos, neg = np.empty_like(x), np.empty_like(x)
    kernel(x, pos)
    kernel(-x, neg)
    np.testing.assert_array_equal(neg, -pos)


@pytest.mark.parametrize("dtype", DTYPES)
def test_expression_template_kernel(kernels, dtype):
    """Names are usable verbatim in an expression template, mixed with where()."""
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, 1000).astype(dtype)
    y = rng.uniform(-3, 3, 1000).astype(dtype)
    out = np.empty_like(x)
    kernels[dtype].k_template(x, y, out)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    expected = np.tanh(xd) * np.exp(yd) + np.where(xd > yd, np.sin(xd), np.cos(yd))
    np.testing.assert_allclose(out, expected, rtol=1e-5 if dtype == "float32" else 1e-13,
                               atol=1e-6 if dtype == "float32" else 1e-14)


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                    reason="checks x86 assembly")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", fastmath.FUNCTIONS)
def test_kernels_vectorise_without_calls_or_float64(kernels, name, dtype):
    """Every kernel is SIMD-vectorised, calls nothing (a libm call would stop vectorisation), and
    a float32 kernel never promotes to float64 (a stray float64 constant would show up as
    cvtss2sd / cvtps2pd and halve the vector width). sin/cos are the documented exception: their
    float32 argument reduction runs in float64 on purpose."""
    kernel = getattr(kernels[dtype], f"k_{name}")
    x = np.linspace(-1, 1, 64, dtype=dtype)
    kernel(x, np.empty_like(x))
    asm = kernel.inspect_asm(kernel.signatures[0])
    body = asm.split(".Lfunc_end0")[0]   # the kernel itself, before numba's CPython wrapper
    packed = "ps" if dtype == "float32" else "pd"
    assert re.search(rf"\bv?(mul|fmadd\d*|add){packed}\b", body), f"{name}: not vectorised"
    assert not re.search(r"\bcall", body), f"{name}: the kernel calls a function"
    if dtype == "float32" and name not in ("sin", "cos"):
        assert not re.search(r"cvt(ss2sd|sd2ss|ps2pd|pd2ps)", body), f"{name}: float64 promotion"


def test_api_contract():
    assert fastmath.FUNCTIONS == ("exp", "log", "log1p", "expm1", "tanh", "sigmoid", "erf", "sin",
                                  "cos")
    assert set(fastmath.ULP_BOUNDS) == {(f, d) for f in fastmath.FUNCTIONS for d in DTYPES}
    assert isinstance(fastmath.FASTMATH_FLAGS, set)
    assert not fastmath.FASTMATH_FLAGS & {"fast", "nnan", "ninf", "reassoc"}
    for dtype in DTYPES:
        src = fastmath.preamble(dtype)
        assert "minispore" not in src.replace("minispore fastmath preamble", "")
        for name in fastmath.FUNCTIONS + ("where",):
            assert re.search(rf"^def {name}\(", src, re.M), name
        # no untyped literal may reach numba code (a Python float is float64 and an int is int64,
        # either promotes float32 math): every constant is a module-level np.<dtype>(...) value
        body = src[src.index("_fm_inline = "):]
        numbers = [t.string for t in tokenize.generate_tokens(io.StringIO(body).readline)
                   if t.type == tokenize.NUMBER]
        assert not numbers, f"bare literals in the {dtype} preamble body: {numbers}"
    with pytest.raises(ValueError):
        fastmath.preamble("float16")


def test_preamble_works_when_exec_from_a_string():
    """exec() of the preamble (no file: numba cannot cache) compiles and runs too."""
    import numba

    ns = {"np": np, "numba": numba}
    exec(fastmath.preamble("float32"), ns)
    exec('''
@numba.njit(fastmath=FASTMATH_FLAGS, error_model="numpy")
def k(x, out):
    for i in range(x.shape[0]):
        out[i] = sigmoid(x[i]) + log1p(x[i] * x[i])
''', ns)
    x = np.linspace(-4, 4, 101, dtype=np.float32)
    out = np.empty_like(x)
    ns["k"](x, out)
    xd = x.astype(np.float64)
    np.testing.assert_allclose(out, sps.expit(xd) + np.log1p(xd * xd), rtol=1e-6)
