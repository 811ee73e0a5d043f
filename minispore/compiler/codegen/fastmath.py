"""Vectorisable float32/float64 exp, log, tanh, erf, sin, ... for numba kernels, as SOURCE TEXT.

Why this exists
---------------
pip's llvmlite has no SVML, so inside a numba kernel ``np.exp`` / ``math.tanh`` / ``math.log``
become calls into scalar libm: a fused elementwise loop over transcendental math then runs 5-10x
slower than numpy's own SIMD ufuncs. The functions here are plain arithmetic (minimax
polynomials, Cody-Waite range reduction, exponent-field bit tricks, selects) that LLVM inlines and
auto-vectorises: 8-50x faster than numba + libm, 0.7-2x numpy's SIMD ufuncs (float32 ``exp`` ~2x
``np.exp``, log/log1p/expm1/tanh ~1.25x, sin/cos 0.7x; 10-30x scipy's ``expit``/``erf`` and numpy's
float64 sin/cos), and they fuse into a kernel with no temporaries: workload 2's 14-op chain runs
in one pass 6-10x faster than through numpy (``benchmarks/fastmath_bench.py``, AVX-512, one
thread). A vector select computes both of its branches, so where possible one formula covers
the whole range (exp, expm1, tanh, sigmoid); erf's two ranges and sin/cos's quadrants still pay
for both.

Contract
--------
``preamble(dtype)`` (dtype "float32" or "float64") returns Python source to paste near the top of
a generated, self-contained kernel module that already did ``import numpy as np`` and
``import numba``. The preamble imports only numba and llvmlite (never minispore). It defines:

* ``exp, log, log1p, expm1, tanh, sigmoid, erf, sin, cos``: numba functions taking and returning
  that dtype, so an expression template such as ``tanh({0}) * exp({1})`` works verbatim inside a
  kernel. Every constant is a module-level ``np.float32``/``np.float64`` value, which numba
  freezes as a constant of exactly that type (a bare literal is float64/int64 in numba and would
  silently promote float32 code to float64, halving the vector width).
* ``where(c, a, b)``: branch-free select (``a if c else b`` of two already-computed values, which
  LLVM turns into a vector select/blend).
* ``FASTMATH_FLAGS``: the same set as this module's ``FASTMATH_FLAGS``, for the kernel decorator:
  ``@numba.njit(fastmath=FASTMATH_FLAGS, error_model="numpy", cache=True)``.
* private helpers prefixed ``_fm_`` / ``_FM_`` (kernels must not use those prefixes). The few
  things numba cannot express as scalar Python (float <-> int bitcasts to build ``2**n`` and split
  exponent/mantissa, an nsz max/min, LLVM's fmuladd and copysign) are tiny
  ``numba.extending.intrinsic`` functions emitting llvmlite IR.

One dtype per generated module: both preambles define the same names. Pass arguments of the
preamble's dtype (cast first): other types compile, but may come back wider with this dtype's
accuracy.

Decorators and fast-math flags
------------------------------
Helpers use ``numba.njit(inline="always", fastmath=FASTMATH_FLAGS, error_model="numpy")``:

* ``inline="always"`` inlines at numba-IR level, so every helper is lowered inside the caller's
  loop body with the caller's flags; nothing is compiled standalone and no call survives to block
  vectorisation.
* ``error_model="numpy"``: the default "python" model guards every division with a zero check
  (raise ZeroDivisionError), a branch that stops the loop vectoriser.
* no ``cache=True`` on the helpers: they are never compiled on their own (the kernel that inlines
  them is what gets cached, which works because the generated module is a real file), and numba
  refuses ``cache=True`` for functions defined by ``exec`` of a string.

``FASTMATH_FLAGS = {"nsz", "contract"}``. Deliberately NOT included:

* ``nnan`` / ``ninf`` (part of ``fastmath=True``): they let LLVM assume no nan/inf ever occurs and
  delete the selects that implement numpy's special values (exp overflow to inf, log(0) = -inf,
  nan propagation, ...).
* ``reassoc``: lets LLVM re-associate ``(x - n*C1) - n*C2`` into ``x - n*(C1+C2)`` and cancel
  error-free transformations (``(x/ln2 + SHIFT) - SHIFT``, which rounds ``n`` in exp, the
  rounding-error term ``x - ((1 + x) - 1)`` of log1p, the TwoSums of the sin/cos reduction),
  destroying what the range reductions depend on. The price: floating-point *reductions* (sums
  over a loop) do not vectorise under these flags; elementwise loops do.
* ``afn`` / ``arcp``: these functions do not need them (results measured bit-identical with and
  without), and on the user arithmetic of the same kernel they would allow ``a / b`` ->
  ``a * (1/b)`` and approximate sqrt, drifting from numpy.

Kept: ``contract`` (fused multiply-add: faster, and every algorithm here is exact or more accurate
when LLVM fuses; the few places that need a product rounded once whatever the flags call
``llvm.fmuladd`` directly) and ``nsz`` (treats -0.0 like +0.0, so e.g. ``tanh(-0.0)`` may return
+0.0 where numpy returns -0.0: equal as values).
The helpers are inlined, so the *kernel's* flags are the ones that apply: a kernel may drop
``nsz``/``contract`` (its max/min and clamp intrinsics carry their own nsz), but must never add
``nnan``/``ninf``/``reassoc``/``fast`` (``fastmath=True`` breaks the special values).

Accuracy (``ULP_BOUNDS``)
-------------------------
Metric: ``|y - ref| / ulp(ref)``, ``ref`` the exact value, ``ulp(ref) = np.spacing(|ref|)`` in the
result dtype, so a correctly rounded result scores <= 0.5; subnormal results are measured in
subnormal ulps (i.e. absolutely), and an overflow to inf counts inf as the value ``2**(emax+1)``.
References: float64 numpy/scipy for float32 results; long double numpy for float64 results
(``math.erf`` for erf). The bounds are the maxima measured by ``tests/compiler/test_fastmath.py``
with a small margin, over every binade of both signs (subnormals to the largest finite value),
linear sweeps over each function's active range and around 0, the special values, and for sin/cos
the floats closest to the zeros of sin/cos. Measured maxima (float32 / float64):

========  ===============  ======================================================================
function  max ulp          notes
========  ===============  ======================================================================
exp       1.03 / 0.96      overflow -> inf, underflow -> 0 through correctly rounded subnormals
log       0.91 / 0.78      log(0) = -inf, log(x<0) = nan, log(inf) = inf, subnormal inputs exact
log1p     0.89 / 0.79      relative accuracy kept for tiny x; log1p(-1) = -inf, log1p(x<-1) = nan
expm1     1.24 / 1.29      relative accuracy kept for tiny x; expm1(-inf) = -1
tanh      1.83 / 2.03      saturates to exactly +-1; relative accuracy kept for tiny x
sigmoid   2.10 / 2.08      saturates to 0/1, never nan, keeps the tiny (even subnormal) results
                           of very negative x
erf       0.93 / 1.00      saturates to exactly +-1 (float64 1.00: one subnormal unit near 0)
sin, cos  0.78 / 0.76      for |x| <= SINCOS_LIMIT (2**24 / 2**27), including the arguments
                           closest to the zeros of sin/cos (the range reduction is exact there, so
                           the error stays relative); beyond SINCOS_LIMIT and for +-inf: nan
                           (numpy returns the exact value there; that would need Payne-Hanek)
========  ===============  ======================================================================

On a CPU without FMA (measured with ``NUMBA_CPU_NAME=nehalem``) the maxima move by at most 0.15
ulp (log / log1p 1.06, expm1 1.37, tanh 2.09, erf 1.09), still within the bounds.

nan propagates through every function.

Algorithms and where the coefficients come from
-----------------------------------------------
Polynomial coefficients are minimax fits (Remez exchange in 50-digit arithmetic with mpmath, or
the equivalent linear program over a dense grid) for the stated form, interval and weight, then
rounded to the target dtype. Degrees are float32 / float64.

* exp: ``x = n ln2 + r``, ``|r| <= ln2/2``, ``n = round(x/ln2)`` rounded by adding the "shifter"
  ``1.5 * 2**mant`` (+ an offset), which leaves ``n + offset`` in the low mantissa bits: no float ->
  int conversion, nan passes through. ``exp(r) = 1 + expm1(r)``, ``expm1(r) = r + r^2 P(r)``
  (deg 4 / 10); ``2**n`` is applied as two exponent-field powers cut from those bits by shifts,
  so subnormal results round once and too large ones overflow.
* expm1: the same reduction and polynomial; ``expm1(x) = 2 (h (r + r^2 P) + (h - 1/2))`` with
  ``h = 2**(n-1)`` (normal up to the overflow threshold), summed as
  ``h r^2 P + (h r + (h - 1/2))``: the inner fused sum is exact for ``n = 1``, where
  ``2 (1 + expm1(r)) - 1`` would cancel.
* log: exponent/mantissa split with ``m in [sqrt(1/2), sqrt(2))``. float32:
  ``log1p(f) = f + f^2 P(f)`` (deg 8, ``P(0) = -1/2``, relative), plus ``k ln2`` in one FMA;
  float64: fdlibm's ``log1p(f) = f - hfsq + s (hfsq + z P(z))``, ``s = f / (2 + f)``, ``z = s^2``
  (7 coefficients).
* log1p: log of ``u = 1 + x`` plus ``c / u``, ``c = x - (u - 1)`` the rounding error of ``u``.
* tanh: one branch-free formula, ``tanh|x| = -e / (2 + e)`` with ``e = expm1(-2|x|)`` in
  ``(-1, 0]`` (numerator and denominator each rounded once from the expm1 parts; neither cancels;
  one rounded ln2 in the reduction), sign copied from x.
* sigmoid: ``e / (1 + e)``, ``e = exp(x)`` with x clamped at SATURATE, evaluated as
  ``y / (y + 2**-k)`` for ``e = y 2**k`` so that subnormal results round once.
* erf: ``|x| < 0.9``: ``x + x Q(x^2)`` (deg 6 / 11, relative; writing ``2/sqrt(pi)`` as ``1 + Q(0)``
  keeps it exact); ``0.9 <= |x| <= 4 / 6``: ``1 - exp(-x^2) R``, ``R`` a polynomial in
  ``x - 2.4375`` (deg 9) / in ``1/(x + 2) - 0.234375`` (deg 12), absolute error of erf.
* sin/cos: ``x = q pi/2 + r + rlo`` with pi/2 split in parts of few significant bits so that every
  ``q * part`` is exact: float32 arguments are reduced in float64 (3 parts of <= 24 bits), float64
  ones with 5 parts of <= 26 bits, the roundings of the partial differences recovered by TwoSum.
  ``sin r = r + r^3 P(r^2)``, ``cos r = 1 - r^2/2 + r^4 Q(r^2)`` on ``|r| <= pi/4`` (3 / 6
  coefficients each, plus the first-order ``rlo`` term), selected and signed by ``q mod 4``.
"""
from __future__ import annotations

import functools

from .fastmath_constants import COEFS, COMMON_SCALARS, LAYOUT, SCALARS, WIDE
from .fastmath_source import BODY, ERFC_T, INTRINSICS, LOG_CORE, TRIG_REDUCE

FUNCTIONS: tuple[str, ...] = ("exp", "log", "log1p", "expm1", "tanh", "sigmoid", "erf", "sin",
                              "cos")

# See the module docstring: no nnan/ninf (special values), no reassoc (range reductions), no
# afn/arcp (not needed here; they would let user arithmetic in the same kernel drift from numpy).
FASTMATH_FLAGS: set[str] = {"nsz", "contract"}

# sin/cos keep ULP_BOUNDS for |x| <= SINCOS_LIMIT (the range reduction is exact there, near the
# zeros of sin/cos too) and return nan beyond it (and for +-inf), rather than an inaccurate value.
SINCOS_LIMIT: dict[str, float] = {"float32": 2.0 ** 24, "float64": 2.0 ** 27}

# Max error in ulps of the exact value (metric in the module docstring): the measured maxima
# (docstring table, with or without FMA) rounded up with a small margin. Asserted by
# tests/compiler/test_fastmath.py.
ULP_BOUNDS: dict[tuple[str, str], float] = {
    ("exp", "float32"): 1.1, ("exp", "float64"): 1.1,
    ("log", "float32"): 1.1, ("log", "float64"): 1.1,
    ("log1p", "float32"): 1.1, ("log1p", "float64"): 1.1,
    ("expm1", "float32"): 1.5, ("expm1", "float64"): 1.5,
    ("tanh", "float32"): 2.25, ("tanh", "float64"): 2.25,
    ("sigmoid", "float32"): 2.5, ("sigmoid", "float64"): 2.5,
    ("erf", "float32"): 1.25, ("erf", "float64"): 1.25,
    ("sin", "float32"): 1.0, ("sin", "float64"): 1.0,
    ("cos", "float32"): 1.0, ("cos", "float64"): 1.0,
}

def _horner(var: str, name: str, n: int) -> str:
    """Source of ``C0 + var * (C1 + var * (... + var * C{n-1}))`` over constants _FM_{name}_{k}."""
    expr = f"_FM_{name}_{n - 1}"
    for k in range(n - 2, -1, -1):
        expr = f"_FM_{name}_{k} + {var} * ({expr})"
    return expr


def _constants_source(dtype: str) -> str:
    lines = [f"FASTMATH_FLAGS = {{{', '.join(repr(f) for f in sorted(FASTMATH_FLAGS))}}}"]
    wide = WIDE[dtype]
    scalars = {**COMMON_SCALARS, **SCALARS[dtype]}
    lines += [f"_FM_{name} = np.{'float64' if name in wide else dtype}({value!r})"
              for name, value in scalars.items()]
    lines += [f"_FM_INF = np.{dtype}(np.inf)", f"_FM_NAN = np.{dtype}(np.nan)"]
    for name, coefs in COEFS[dtype].items():
        ctype = "float64" if name in wide else dtype
        lines += [f"_FM_{name}_{k} = np.{ctype}({c!r})" for k, c in enumerate(coefs)]
    return "\n".join(lines) + "\n"


def _reduce_source(dtype: str) -> str:
    if dtype == "float32":
        return TRIG_REDUCE[dtype]
    last = len(COEFS[dtype]["PIO2"]) - 1
    lines = ["r = x - q * _FM_PIO2_0    # exact (Sterbenz)"]
    lines += [f"r, e{k} = _fm_two_diff(r, q * _FM_PIO2_{k})" for k in range(1, last)]
    errors = " + ".join(f"e{k}" for k in range(1, last))
    lines += [f"r, rlo = _fm_two_diff(r, q * _FM_PIO2_{last} - ({errors}))"]
    return TRIG_REDUCE[dtype].format(STEPS="\n    ".join(lines))


@functools.lru_cache(maxsize=None)
def preamble(dtype: str) -> str:
    """Source defining exp, log, log1p, expm1, tanh, sigmoid, erf, sin, cos, where and
    FASTMATH_FLAGS for ``dtype`` ("float32" or "float64"); needs ``np`` and ``numba`` imported."""
    if dtype not in COEFS:
        raise ValueError(f"fastmath preamble: dtype must be 'float32' or 'float64', got {dtype!r}")
    coefs = COEFS[dtype]
    log_poly = {"LOG1P_POLY": _horner("f", "LOG1P", len(coefs["LOG1P"]))} \
        if dtype == "float32" else {"LOGR_POLY": _horner("z", "LOGR", len(coefs["LOGR"]))}
    body = BODY.format(
        EXPM1_POLY=_horner("r", "EXPM1", len(coefs["EXPM1"])),
        LOG_CORE=LOG_CORE[dtype].format(**log_poly),
        ERF_POLY=_horner("z", "ERF", len(coefs["ERF"])),
        ERFC_T=ERFC_T[dtype],
        ERFC_POLY=_horner("t", "ERFC", len(coefs["ERFC"])),
        TRIG_REDUCE=_reduce_source(dtype),
        SIN_POLY=_horner("z", "SIN", len(coefs["SIN"])),
        COS_POLY=_horner("z", "COS", len(coefs["COS"])),
    )
    header = f"# ---- minispore fastmath preamble ({dtype}): generated source, do not edit ----\n"
    footer = f"# ---- end of fastmath preamble ({dtype}) ----\n"
    return (header + _constants_source(dtype) + INTRINSICS.format(dtype=dtype, **LAYOUT[dtype])
            + body + footer)
