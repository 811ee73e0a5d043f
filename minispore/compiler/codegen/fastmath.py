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
(``math.erf`` for erf). The bounds are the maxima measured by ``tests/runtime/test_fastmath.py``
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
# tests/runtime/test_fastmath.py.
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

# --------------------------------------------------------------------------------------------
# Coefficients (ascending powers) and constants, per dtype. Float32 values are written as the
# exact decimal of the float32 number, so np.float32(literal) reproduces it without double
# rounding.
# --------------------------------------------------------------------------------------------
_COEFS = {
    "float32": {
        # expm1(r) = r + r^2 P(r) on |r| <= ln2/2 (deg 4, relative; exp(r) = 1 + expm1(r) too)
        "EXPM1": (0.4999999701976776, 0.16666540503501892, 0.041667211800813675,
                  0.008366897702217102, 0.0013882453786209226),
        # log1p(f) = f + f^2 P(f) on [sqrt(1/2) - 1, sqrt(2) - 1] (deg 8, P(0) = -1/2)
        "LOG1P": (-0.5, 0.3333333134651184, -0.250008225440979, 0.20001228153705597,
                  -0.16623350977897644, 0.14201737940311432, -0.1316022127866745,
                  0.12761752307415009, -0.07634613662958145),
        "ERF": (0.12837916612625122, -0.37612634897232056, 0.11283715069293976,
                -0.02686050906777382, 0.00520385941490531, -0.0008175639668479562,
                8.513105422025546e-05),
        "ERFC": (0.2155524343252182, -0.07756397873163223, 0.026485320180654526,
                 -0.008645188994705677, 0.002788132056593895, -0.0006986758089624345,
                 0.0002527032629586756, -0.00017603213200345635, -8.068862371146679e-05,
                 -3.578633550205268e-05),
        "SIN": (-0.16666655242443085, 0.00833216030150652, -0.0001951520098373294),
        "COS": (0.04166664555668831, -0.0013887315290048718, 2.4433062208117917e-05),
        # FLOAT64 (see _WIDE): pi/2 in 3 parts of <= 24 significant bits (last one full), so
        # q * part is exact in float64 for q < 2**29
        "PIO2": (1.5707963705062866, -4.371138828673793e-08, -1.7151244994428829e-15),
    },
    "float64": {
        # expm1(r) = r + r^2 P(r) on |r| <= ln2/2 (deg 10; fitted relative to exp(r), which keeps
        # expm1 within its bound too)
        "EXPM1": (0.5, 0.1666666666666667, 0.04166666666666658, 0.008333333333326035,
                  0.0013888888888940786, 0.00019841269875202488, 2.4801587193319293e-05,
                  2.7557254887813877e-06, 2.7557398723323527e-07, 2.5105439163297225e-08,
                  2.087328446419885e-09),
        "LOGR": (0.666666666666667, 0.39999999999897784, 0.28571428626698725,
                 0.22222211024092733, 0.1818289676191957, 0.15331479430502895,
                 0.14619322718362654),
        "ERF": (0.1283791670955126, -0.37612638903183726, 0.11283791670953704,
                -0.02686617064480663, 0.0052239776216031816, -0.0008548326754918015,
                0.00012055321042151598, -1.4925299738781745e-05, 1.6455213924720426e-06,
                -1.6275476075818214e-07, 1.4046047240933253e-08, -8.481850149129335e-10),
        "ERFC": (0.22962131986684, 1.5915997174747085, 3.631265122387647, 4.977707342125307,
                 1.5005795349158133, -6.758570217590075, -5.1951610407143365, 15.319725407639078,
                 9.524879820458578, -48.67160428535846, 7.775919866875777, 144.16059515859197,
                 -197.31481778452437),
        "SIN": (-0.1666666666666663, 0.008333333333322104, -0.0001984126982957761,
                2.755731361709867e-06, -2.5050747069657468e-08, 1.5896188767000993e-10),
        "COS": (0.041666666666666595, -0.0013888888888873036, 2.480158728883857e-05,
                -2.7557314175401707e-07, 2.087570029929188e-09, -1.1358507762739864e-11),
        # pi/2 in 5 parts of <= 26 significant bits (last one full): q * part exact for q < 2**27
        "PIO2": (1.5707963407039642, -1.3909067675399456e-08, 6.123233932053594e-17,
                 6.368317178484799e-25, -1.4973849048591698e-33),
    },
}

_SCALARS = {
    "float32": {
        "LOG2E": 1.4426950216293335,
        "TWO_OVER_PI": 0.6366197723675814, "HALF_D": 0.5,     # float64 (see _WIDE)
        # ln2 = hi + lo, hi with 12 significant bits: n * hi exact for |n| < 2**12
        "LN2_HI": 0.693115234375, "LN2_LO": 3.194618329871446e-05,
        "LN2": 0.6931471824645996,  # rounded ln2 (see log and tanh)
        # exp: below EXP_LO the result rounds to 0, above EXP_HI it overflows to inf
        "EXP_LO": -104.0, "EXP_HI": 89.0,
        # x * log2(e) + SHIFT rounds to the integer n and leaves n + offset in the low mantissa
        # bits (offset 2 * bias for _fm_exp_scales, bias - 1 for _fm_pow2_low)
        "EXP_SHIFT": 1.5 * 2.0 ** 23 + 2 * 127, "EXPM1_SHIFT": 1.5 * 2.0 ** 23 + 126,
        "EXPM1_LO": -30.0,          # expm1(x) rounds to -1 below this
        # from here on 1 + exp(x) rounds to exp(x): sigmoid(x) and tanh(x/2) round to 1
        "SATURATE": 18.2,
        "ERF_SPLIT": 0.9, "ERF_HI": 4.0, "ERFC_X0": 2.4375,
        "TINY": 1.1754943508222875e-38,     # smallest normal
        "SUB_SCALE": 33554432.0, "SUB_LOG2": 25.0,     # 2**25: scales subnormals to normal
        "SINCOS_LIMIT": 16777216.0,     # 2**24 (q stays exact in float32)
    },
    "float64": {
        "LOG2E": 1.4426950408889634, "TWO_OVER_PI": 0.6366197723675814,
        # ln2 = hi + lo, hi with 29 significant bits: n * hi exact for |n| < 2**24
        "LN2_HI": 0.6931471806019545, "LN2_LO": -4.2009150726810846e-11,
        "LN2": 0.6931471805599453,
        "EXP_LO": -750.0, "EXP_HI": 710.0,
        "EXP_SHIFT": 1.5 * 2.0 ** 52 + 2 * 1023, "EXPM1_SHIFT": 1.5 * 2.0 ** 52 + 1022,
        "EXPM1_LO": -45.0,
        "SATURATE": 38.2,
        "ERF_SPLIT": 0.9, "ERF_HI": 6.0, "ERFC_T0": 0.234375,
        "TINY": 2.2250738585072014e-308,
        "SUB_SCALE": 18014398509481984.0, "SUB_LOG2": 54.0,     # 2**54
        "SINCOS_LIMIT": 134217728.0,    # 2**27
    },
}
# float32 sin/cos reduce their argument in float64: these constants are float64 in that preamble.
_WIDE = {"float32": {"PIO2", "TWO_OVER_PI", "HALF_D"}, "float64": set()}
_COMMON_SCALARS = {"ZERO": 0.0, "HALF": 0.5, "QUARTER": 0.25, "ONE": 1.0, "TWO": 2.0,
                   "FOUR": 4.0}

# Integer layout of the float, for the exponent-field intrinsics.
_LAYOUT = {
    # bits, exponent bias, mantissa bits, bit pattern of sqrt(1/2) (rounded down)
    "float32": dict(BITS=32, BIAS=127, MANT=23, SQRTH_BITS=0x3F3504F3,
                    IRFLOAT="_fm_ir.FloatType()"),
    "float64": dict(BITS=64, BIAS=1023, MANT=52, SQRTH_BITS=0x3FE6A09E667F3BCD,
                    IRFLOAT="_fm_ir.DoubleType()"),
}


def _horner(var: str, name: str, n: int) -> str:
    """Source of ``C0 + var * (C1 + var * (... + var * C{n-1}))`` over constants _FM_{name}_{k}."""
    expr = f"_FM_{name}_{n - 1}"
    for k in range(n - 2, -1, -1):
        expr = f"_FM_{name}_{k} + {var} * ({expr})"
    return expr


# --------------------------------------------------------------------------------------------
# Source templates. Fields in {braces} are filled per dtype; the templates use no other braces.
# --------------------------------------------------------------------------------------------
_INTRINSICS = '''
from llvmlite import ir as _fm_ir
from numba.core import types as _fm_types
from numba.extending import intrinsic as _fm_intrinsic

_FM_NBFLOAT = _fm_types.{dtype}
_FM_IRFLOAT = {IRFLOAT}
_FM_IRINT = _fm_ir.IntType({BITS})


def _fm_ic(value):
    """An LLVM integer constant as wide as the float."""
    return _fm_ir.Constant(_FM_IRINT, value)


@_fm_intrinsic
def _fm_pow2_low(typingctx, z):
    """2.0**(j - bias) where the integer j (1 <= j < 2 * bias + 1) sits in z's low mantissa bits
    (z = j + 1.5 * 2**mant): shifting z's bits by the mantissa width moves j into the exponent
    field and everything above it out. (numba has no scalar bitcast; ldexp would be libm.)"""
    def codegen(context, builder, sig, args):
        bits = builder.bitcast(args[0], _FM_IRINT)
        return builder.bitcast(builder.shl(bits, _fm_ic({MANT})), _FM_IRFLOAT)
    return _FM_NBFLOAT(_FM_NBFLOAT), codegen


def _fm_select_cmp(op):
    """Intrinsic ``a OP b ? a : b`` (ordered compare, so a nan operand selects b), flagged nsz:
    with +-0 declared interchangeable LLVM lowers it to one max/min instruction (x86 max/min
    return their second operand on nan: exactly these semantics)."""
    @_fm_intrinsic
    def select_cmp(typingctx, a, b):
        def codegen(context, builder, sig, args):
            c = builder.fcmp_ordered(op, args[0], args[1], flags=("nsz",))
            return builder.select(c, args[0], args[1], flags=("nsz",))
        return _FM_NBFLOAT(_FM_NBFLOAT, _FM_NBFLOAT), codegen
    return select_cmp


_fm_max = _fm_select_cmp(">")
_fm_min = _fm_select_cmp("<")


def _fm_call_llvm(name, builder, args):
    fnty = _fm_ir.FunctionType(_FM_IRFLOAT, [_FM_IRFLOAT] * len(args))
    return builder.call(builder.module.declare_intrinsic(name, [_FM_IRFLOAT], fnty), args)


@_fm_intrinsic
def _fm_fma(typingctx, a, b, c):
    """a * b + c, rounded once where the target has FMA (llvm.fmuladd). Written out instead, a
    product used twice is computed once and each sum rounds it again."""
    def codegen(context, builder, sig, args):
        return _fm_call_llvm("llvm.fmuladd", builder, args)
    return _FM_NBFLOAT(_FM_NBFLOAT, _FM_NBFLOAT, _FM_NBFLOAT), codegen


@_fm_intrinsic
def _fm_copysign(typingctx, a, b):
    """|a| with the sign of b (one bitwise instruction)."""
    def codegen(context, builder, sig, args):
        return _fm_call_llvm("llvm.copysign", builder, args)
    return _FM_NBFLOAT(_FM_NBFLOAT, _FM_NBFLOAT), codegen


@_fm_intrinsic
def _fm_pow2_recip(typingctx, s):
    """1 / s for a power of two s whose reciprocal is normal too: negates the unbiased exponent."""
    def codegen(context, builder, sig, args):
        bits = builder.sub(_fm_ic(2 * {BIAS} << {MANT}), builder.bitcast(args[0], _FM_IRINT))
        return builder.bitcast(bits, _FM_IRFLOAT)
    return _FM_NBFLOAT(_FM_NBFLOAT), codegen


@_fm_intrinsic
def _fm_exp_scales(typingctx, z):
    """(s1, s2): two normal powers of two with s1 * s2 = 2**n, where j = n + 2 * bias
    (2 <= j < 4 * bias + 2) sits in z's low mantissa bits (z = j + 1.5 * 2**mant). Their biased
    exponents are ceil(j / 2) and floor(j / 2), so 2**n can be applied as two multiplies by
    normal numbers: a subnormal result is rounded by the last one only, a too large one overflows
    to inf. Shifting by the mantissa width drops the bits above j (see _fm_pow2_low)."""
    def codegen(context, builder, sig, args):
        bits = builder.bitcast(args[0], _FM_IRINT)
        half = builder.lshr(bits, _fm_ic(1))
        s1 = builder.shl(builder.sub(bits, half), _fm_ic({MANT}))
        s2 = builder.shl(half, _fm_ic({MANT}))
        parts = (builder.bitcast(s1, _FM_IRFLOAT), builder.bitcast(s2, _FM_IRFLOAT))
        return context.make_tuple(builder, sig.return_type, parts)
    return _fm_types.UniTuple(_FM_NBFLOAT, 2)(_FM_NBFLOAT), codegen


@_fm_intrinsic
def _fm_log_split(typingctx, x):
    """(k, m) with x = m * 2**k and m in [sqrt(1/2), sqrt(2)), for finite normal x > 0 (garbage
    otherwise; callers select the special values). Subtracting the bits of sqrt(1/2) before
    splitting moves the mantissa range without a compare, and leaves k unbiased."""
    def codegen(context, builder, sig, args):
        ix = builder.sub(builder.bitcast(args[0], _FM_IRINT), _fm_ic({SQRTH_BITS}))
        k = builder.ashr(ix, _fm_ic({MANT}))
        m = builder.add(builder.and_(ix, _fm_ic((1 << {MANT}) - 1)), _fm_ic({SQRTH_BITS}))
        parts = (builder.sitofp(k, _FM_IRFLOAT), builder.bitcast(m, _FM_IRFLOAT))
        return context.make_tuple(builder, sig.return_type, parts)
    return _fm_types.UniTuple(_FM_NBFLOAT, 2)(_FM_NBFLOAT), codegen
'''

_BODY = '''
_fm_inline = numba.njit(inline="always", fastmath=FASTMATH_FLAGS, error_model="numpy")


@_fm_inline
def where(c, a, b):
    """Branch-free select: both operands are already computed, so LLVM emits a (vector) select."""
    return a if c else b


@_fm_inline
def _fm_clamp(x, lo, hi):
    """x limited to [lo, hi]; nan passes through. (One max and one min instruction.)"""
    return _fm_min(hi, _fm_max(lo, x))


# ---- exp, expm1 -----------------------------------------------------------------------------
@_fm_inline
def _fm_round_log2(x, shift):
    """(z, n): n = round(x/ln2) for |x/ln2| < 2**(mant-1), and z = n + shift, a float whose low
    mantissa bits hold n + (shift - 1.5 * 2**mant). The addition itself rounds to an integer: no
    float -> int conversion, so nan passes through as nan."""
    z = x * _FM_LOG2E + shift
    return z, z - shift


@_fm_inline
def _fm_exp_reduce(x, shift):
    """(z, r) with x = n*ln2 + r, |r| <= ~ln2/2 (z, n: _fm_round_log2). Cody-Waite: n*LN2_HI is
    exact."""
    z, n = _fm_round_log2(x, shift)
    return z, (x - n * _FM_LN2_HI) - n * _FM_LN2_LO


@_fm_inline
def _fm_exp_parts(x):
    """(y, s) with exp(x) = y * s, y normal and s a power of two (see _fm_exp_scales), for x in
    [EXP_LO, EXP_HI] or nan."""
    z, r = _fm_exp_reduce(x, _FM_EXP_SHIFT)
    s1, s2 = _fm_exp_scales(z)
    return s1 + s1 * (r + r * r * ({EXPM1_POLY})), s2


@_fm_inline
def exp(x):
    y, s = _fm_exp_parts(_fm_clamp(x, _FM_EXP_LO, _FM_EXP_HI))
    return y * s


@_fm_inline
def expm1(x):
    # expm1(x) = 2 (h (r + r^2 P) + (h - 1/2)), h = 2**(n-1): halved so that it stays a normal
    # number up to the overflow threshold; h -+ 1/2 is exact while |n| < mant (0 for n = 0). Fused,
    # h r + (h - 1/2) is exact for n = 1 (r + 1/2), where h expm1(r) + 1/2 would cancel the
    # rounding error of expm1(r) to a full ulp; the small h r^2 P is added last.
    z, r = _fm_exp_reduce(_fm_clamp(x, _FM_EXPM1_LO, _FM_EXP_HI), _FM_EXPM1_SHIFT)
    h = _fm_pow2_low(z)
    return _FM_TWO * _fm_fma(h * (r * r), {EXPM1_POLY}, _fm_fma(h, r, h - _FM_HALF))


# ---- log, log1p -----------------------------------------------------------------------------
{LOG_CORE}


@_fm_inline
def _fm_log_special(x, y):
    """numpy's special cases: log(inf) = inf, log(0) = -inf, log(x < 0) = log(nan) = nan."""
    y = where(x == _FM_INF, x, y)
    return where(x > _FM_ZERO, y, where(x == _FM_ZERO, -_FM_INF, _FM_NAN))


@_fm_inline
def log(x):
    sub = x < _FM_TINY   # subnormal inputs: scale to normal first, correct the exponent after
    k, m = _fm_log_split(where(sub, x * _FM_SUB_SCALE, x))
    k = k - where(sub, _FM_SUB_LOG2, _FM_ZERO)
    return _fm_log_special(x, _fm_log_core(m - _FM_ONE, k, _FM_ZERO))


@_fm_inline
def log1p(x):
    u = _FM_ONE + x
    # c: the rounding error of u (1 + x == u + c). Exact for |x| <= 1 (Fast2Sum) and for
    # u < 2**(mant+1) (u - 1 is then exact, and so is x - (u - 1) by Sterbenz); beyond, c/u is
    # negligible next to log(u) > 16. log(u + c) = log(u) + c/u to far below an ulp.
    c = x - (u - _FM_ONE)
    k, m = _fm_log_split(u)
    return _fm_log_special(u, _fm_log_core(m - _FM_ONE, k, c / u))


# ---- tanh, sigmoid --------------------------------------------------------------------------
@_fm_inline
def tanh(x):
    # tanh(|x|) = -e / (2 + e), e = expm1(-2|x|) = 2 (h p + (h - 1/2)) in (-1, 0] (see expm1,
    # p = expm1(r)): numerator and denominator are each rounded once,
    # ((1/2 - h) - h p) / (h p + (h + 1/2)), and neither cancels (n <= 0, h <= 1/2). Near 0
    # (h = 1/2) it is -p / (p + 2): relative accuracy. From 2|x| = SATURATE on both round to 1/2:
    # exactly 1. nan passes the clamp and copysign.
    a = _fm_max(-_FM_SATURATE, _fm_copysign(x + x, -_FM_ONE))    # -2|x|
    z, n = _fm_round_log2(a, _FM_EXPM1_SHIFT)
    # One rounded ln2 suffices here: its error n (LN2 - ln2) matters only for large |n|, where
    # exp(-2|x|) is negligible next to 1.
    r = a - n * _FM_LN2
    h = _fm_pow2_low(z)
    p = r + r * r * ({EXPM1_POLY})
    return _fm_copysign(_fm_fma(-h, p, _FM_HALF - h) / _fm_fma(h, p, h + _FM_HALF), x)


@_fm_inline
def sigmoid(x):
    # e / (1 + e), e = exp(x) <= exp(SATURATE): keeps the tiny (even subnormal) results of very
    # negative x, where 1 / (1 + exp(-x)) would overflow; exactly 1 from SATURATE on.
    # With e = y * s: y / (y + 1/s), 1/s exact, so a subnormal result is rounded once.
    y, s = _fm_exp_parts(_fm_clamp(x, _FM_EXP_LO, _FM_SATURATE))
    return y / (y + _fm_pow2_recip(s))


# ---- erf ------------------------------------------------------------------------------------
@_fm_inline
def erf(x):
    ax = abs(x)
    z = x * x
    small = x + x * ({ERF_POLY})    # erf = x (1 + Q): 2/sqrt(pi) = 1 + Q(0) keeps its precision
    # |x| >= ERF_SPLIT: erf = 1 - exp(-x^2) R(x); beyond ERF_HI erf rounds to +-1 (clamp).
    a = _fm_clamp(ax, _FM_ERF_SPLIT, _FM_ERF_HI)
    {ERFC_T}
    big = _FM_ONE - exp(-(a * a)) * ({ERFC_POLY})
    return where(ax < _FM_ERF_SPLIT, small, where(x < _FM_ZERO, -big, big))


# ---- sin, cos -------------------------------------------------------------------------------
@_fm_inline
def _fm_two_diff(a, b):
    """(s, e) with s = fl(a - b) and a - b == s + e exactly (Knuth's TwoSum; needs no reassoc)."""
    s = a - b
    bv = s - a
    av = s - bv
    return s, (a - av) - (b + bv)


{TRIG_REDUCE}


@_fm_inline
def _fm_sin_quadrant(q, r, rlo):
    """sin(q*pi/2 + r + rlo) = +-sin or +-cos of r + rlo by q mod 4 (both polynomials evaluated,
    one picked); rlo (below half an ulp of r) enters to first order."""
    qm = q - _FM_FOUR * np.floor(q * _FM_QUARTER)    # q mod 4 in {{0, 1, 2, 3}}, exact
    z = r * r
    hz = _FM_HALF * z
    w = _FM_ONE - hz
    s = r + (r * z * ({SIN_POLY}) + rlo * w)
    # fdlibm's __kernel_cos: ((1 - w) - hz) recovers the rounding of w = 1 - hz
    c = w + (((_FM_ONE - w) - hz) + (z * z * ({COS_POLY}) - r * rlo))
    y = where(abs(qm - _FM_TWO) == _FM_ONE, c, s)    # odd quadrant -> cos
    return where(qm >= _FM_TWO, -y, y)


@_fm_inline
def sin(x):
    q, r, rlo = _fm_trig_reduce(x)
    # beyond SINCOS_LIMIT the reduction is not exact any more: nan rather than an inaccurate value
    return where(abs(x) <= _FM_SINCOS_LIMIT, _fm_sin_quadrant(q, r, rlo), _FM_NAN)


@_fm_inline
def cos(x):
    q, r, rlo = _fm_trig_reduce(x)
    return where(abs(x) <= _FM_SINCOS_LIMIT, _fm_sin_quadrant(q + _FM_ONE, r, rlo), _FM_NAN)
'''

_LOG_CORE = {
    # float32: log1p(f) by one polynomial, no division (cheaper than fdlibm's s-form here).
    "float32": '''
@_fm_inline
def _fm_log_core(f, k, corr):
    """log(2**k * (1 + f)) + corr for f in [sqrt(1/2) - 1, sqrt(2) - 1], corr tiny. With k != 0
    the result is >= ln2/2 in magnitude, so k (LN2 - ln2) stays below 0.03 ulp of it."""
    return k * _FM_LN2 + (f + (f * f * ({LOG1P_POLY}) + corr))''',
    # float64: fdlibm's form, a short polynomial in s^2 after one division.
    "float64": '''
@_fm_inline
def _fm_log_core(f, k, corr):
    """log(2**k * (1 + f)) + corr for f in [sqrt(1/2) - 1, sqrt(2) - 1], corr tiny (fdlibm's
    e_log.c scheme)."""
    s = f / (_FM_TWO + f)
    z = s * s
    hfsq = _FM_HALF * f * f
    r = z * ({LOGR_POLY})
    return k * _FM_LN2_HI - ((hfsq - (s * (hfsq + r) + (k * _FM_LN2_LO + corr))) - f)''',
}

_ERFC_T = {
    "float32": "t = a - _FM_ERFC_X0",
    "float64": "t = _FM_ONE / (a + _FM_TWO) - _FM_ERFC_T0",
}


def _constants_source(dtype: str) -> str:
    lines = [f"FASTMATH_FLAGS = {{{', '.join(repr(f) for f in sorted(FASTMATH_FLAGS))}}}"]
    wide = _WIDE[dtype]
    scalars = {**_COMMON_SCALARS, **_SCALARS[dtype]}
    lines += [f"_FM_{name} = np.{'float64' if name in wide else dtype}({value!r})"
              for name, value in scalars.items()]
    lines += [f"_FM_INF = np.{dtype}(np.inf)", f"_FM_NAN = np.{dtype}(np.nan)"]
    for name, coefs in _COEFS[dtype].items():
        ctype = "float64" if name in wide else dtype
        lines += [f"_FM_{name}_{k} = np.{ctype}({c!r})" for k, c in enumerate(coefs)]
    return "\n".join(lines) + "\n"


_TRIG_REDUCE = {
    "float32": '''@_fm_inline
def _fm_trig_reduce(x):
    """x = q*pi/2 + r + rlo, |r| <= ~pi/4, computed in float64: pi/2 in 3 parts of <= 24 bits makes
    every q * part exact, and float64 leaves 29 bits of headroom, so r + rlo is x mod pi/2 to far
    below a float32 ulp for all |x| <= SINCOS_LIMIT, including the arguments nearest the zeros."""
    xd = np.float64(x)
    q = np.floor(xd * _FM_TWO_OVER_PI + _FM_HALF_D)
    rd = ((xd - q * _FM_PIO2_0) - q * _FM_PIO2_1) - q * _FM_PIO2_2
    r = np.float32(rd)
    return np.float32(q), r, np.float32(rd - np.float64(r))''',
    "float64": '''@_fm_inline
def _fm_trig_reduce(x):
    """x = q*pi/2 + r + rlo, |r| <= ~pi/4. pi/2 is split into parts with few significant bits, so
    each q * part is exact (|x| <= SINCOS_LIMIT); near the zeros of sin/cos (r tiny) the
    subtractions are exact too, which keeps the error relative there. Elsewhere they round: the
    TwoSum errors are added back so that r is rounded once, and that rounding is returned as rlo."""
    q = np.floor(x * _FM_TWO_OVER_PI + _FM_HALF)
    {STEPS}
    return q, r, rlo''',
}


def _reduce_source(dtype: str) -> str:
    if dtype == "float32":
        return _TRIG_REDUCE[dtype]
    last = len(_COEFS[dtype]["PIO2"]) - 1
    lines = ["r = x - q * _FM_PIO2_0    # exact (Sterbenz)"]
    lines += [f"r, e{k} = _fm_two_diff(r, q * _FM_PIO2_{k})" for k in range(1, last)]
    errors = " + ".join(f"e{k}" for k in range(1, last))
    lines += [f"r, rlo = _fm_two_diff(r, q * _FM_PIO2_{last} - ({errors}))"]
    return _TRIG_REDUCE[dtype].format(STEPS="\n    ".join(lines))


@functools.lru_cache(maxsize=None)
def preamble(dtype: str) -> str:
    """Source defining exp, log, log1p, expm1, tanh, sigmoid, erf, sin, cos, where and
    FASTMATH_FLAGS for ``dtype`` ("float32" or "float64"); needs ``np`` and ``numba`` imported."""
    if dtype not in _COEFS:
        raise ValueError(f"fastmath preamble: dtype must be 'float32' or 'float64', got {dtype!r}")
    coefs = _COEFS[dtype]
    log_poly = {"LOG1P_POLY": _horner("f", "LOG1P", len(coefs["LOG1P"]))} \
        if dtype == "float32" else {"LOGR_POLY": _horner("z", "LOGR", len(coefs["LOGR"]))}
    body = _BODY.format(
        EXPM1_POLY=_horner("r", "EXPM1", len(coefs["EXPM1"])),
        LOG_CORE=_LOG_CORE[dtype].format(**log_poly),
        ERF_POLY=_horner("z", "ERF", len(coefs["ERF"])),
        ERFC_T=_ERFC_T[dtype],
        ERFC_POLY=_horner("t", "ERFC", len(coefs["ERFC"])),
        TRIG_REDUCE=_reduce_source(dtype),
        SIN_POLY=_horner("z", "SIN", len(coefs["SIN"])),
        COS_POLY=_horner("z", "COS", len(coefs["COS"])),
    )
    header = f"# ---- minispore fastmath preamble ({dtype}): generated source, do not edit ----\n"
    footer = f"# ---- end of fastmath preamble ({dtype}) ----\n"
    return (header + _constants_source(dtype) + _INTRINSICS.format(dtype=dtype, **_LAYOUT[dtype])
            + body + footer)
