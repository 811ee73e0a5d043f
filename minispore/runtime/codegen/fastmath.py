"""Vectorisable float32/float64 exp, log, tanh, erf, sin, ... for numba kernels, as SOURCE TEXT.

Why this exists
---------------
pip's llvmlite has no SVML, so inside a numba kernel ``np.exp`` / ``math.tanh`` / ``math.log``
become calls into scalar libm: a fused elementwise loop over transcendental math then runs 5-10x
slower than numpy's own SIMD ufuncs. The functions here are plain arithmetic (minimax
polynomials, Cody-Waite range reduction, exponent-field bit tricks, selects) that LLVM inlines and
auto-vectorises: 7-60x faster than numba + libm, 0.7-1.7x numpy's SIMD ufuncs (float32 ``exp``
~1.7x ``np.exp``; 10-50x scipy's ``expit``/``erf`` and numpy's float64 sin/cos), and they fuse into
a kernel with no temporaries (``benchmarks/fastmath_bench.py``, AVX-512, one thread).

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
  exponent/mantissa, an nsz max/min) are tiny ``numba.extending.intrinsic`` functions
  emitting llvmlite IR.

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
  error-free transformations (the TwoSums in log1p and in the sin/cos reduction), destroying the
  extra precision the range reductions depend on. The price: floating-point *reductions* (sums
  over a loop) do not vectorise under these flags; elementwise loops do.
* ``afn`` / ``arcp``: these functions do not need them (results measured bit-identical with and
  without), and on the user arithmetic of the same kernel they would allow ``a / b`` ->
  ``a * (1/b)`` and approximate sqrt, drifting from numpy.

Kept: ``contract`` (fused multiply-add: faster, and every algorithm here is exact or more accurate
whether or not LLVM fuses; the bounds below hold with and without it) and ``nsz`` (treats -0.0
like +0.0, so e.g. ``tanh(-0.0)`` may return +0.0 where numpy returns -0.0: equal as values).
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
exp       0.95 / 0.96      overflow -> inf, underflow -> 0 through correctly rounded subnormals
log       0.78 / 0.78      log(0) = -inf, log(x<0) = nan, log(inf) = inf, subnormal inputs exact
log1p     0.88 / 0.79      relative accuracy kept for tiny x; log1p(-1) = -inf, log1p(x<-1) = nan
expm1     0.99 / 1.10      relative accuracy kept for tiny x; expm1(-inf) = -1
tanh      1.24 / 1.28      saturates to exactly +-1
sigmoid   2.10 / 2.08      1/(1+e) or e/(1+e), e = exp(-|x|): saturates to 0/1, never nan, keeps
                           the tiny (even subnormal) results of very negative x
erf       0.93 / 1.00      saturates to exactly +-1 (float64 1.00: one subnormal unit near 0)
sin, cos  0.78 / 0.76      for |x| <= SINCOS_LIMIT (2**24 / 2**27), including the arguments
                           closest to the zeros of sin/cos (the range reduction is exact there, so
                           the error stays relative); beyond SINCOS_LIMIT and for +-inf: nan
                           (numpy returns the exact value there; that would need Payne-Hanek)
========  ===============  ======================================================================

Without FMA contraction the maxima move by at most 0.2 ulp (expm1 1.18, erf 1.09), still within
the bounds.

nan propagates through every function.

Algorithms and where the coefficients come from
-----------------------------------------------
Polynomial coefficients were fitted with a Remez exchange in 50-digit arithmetic (mpmath; tanh's
by an equivalent weighted fit) for the stated form, interval and weight, then rounded to the
target dtype. Degrees are float32 / float64.

* exp: ``x = n ln2 + r``, ``|r| <= ln2/2``; ``exp(r) = 1 + r + r^2 P(r)`` (deg 5 / 10, relative
  error); ``2**n`` applied as two exponent-field powers so subnormal results round once.
* expm1: same reduction but ``n = floor(x/ln2)`` on ``[0, 1.5 ln2)`` (avoids a cancelling
  ``2 (1 + p) - 1``); ``expm1(r) = r + r^2 P(r)`` on ``[-ln2/2, ln2]`` (deg 6 / 11), combined as
  ``2**n ((1 - 2**-n) + p)`` (FreeBSD's trick, one rounding).
* log: exponent/mantissa split with ``m in [sqrt(1/2), sqrt(2))``. float32:
  ``log1p(f) = f - f^2/2 + f^3 P(f)`` (deg 8, relative); float64: fdlibm's
  ``log1p(f) = f - hfsq + s (hfsq + z P(z))``, ``s = f / (2 + f)``, ``z = s^2`` (7 coefficients).
* log1p: log of ``u = 1 + x`` plus the exact rounding error of ``u`` (TwoSum) divided by ``u``.
* tanh: ``|x| < 0.625``: ``x + x^3 P(x^2)`` (5 / 11 coefficients, relative); else
  ``1 - 2 / (exp(2|x|) + 1)``.
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
# (docstring table) rounded up with a small margin. Asserted by tests/runtime/test_fastmath.py.
ULP_BOUNDS: dict[tuple[str, str], float] = {
    ("exp", "float32"): 1.1, ("exp", "float64"): 1.1,
    ("log", "float32"): 1.0, ("log", "float64"): 1.0,
    ("log1p", "float32"): 1.0, ("log1p", "float64"): 1.0,
    ("expm1", "float32"): 1.25, ("expm1", "float64"): 1.25,
    ("tanh", "float32"): 1.5, ("tanh", "float64"): 1.5,
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
        # exp(r) = 1 + r + r^2 P(r) on |r| <= ln2/2 (deg 5)
        "EXP": (0.5, 0.1666666567325592, 0.041666463017463684, 0.008333398960530758,
                0.001393379527144134, 0.0001983293186640367),
        # expm1(r) = r + r^2 P(r) on [-ln2/2, ln2] (deg 6)
        "EXPM1": (0.5, 0.1666666567325592, 0.041666705161333084, 0.008333451114594936,
                  0.0013881855411455035, 0.0001980342494789511, 2.8360225769574754e-05),
        "LOG1P": (0.3333333134651184, -0.24999989569187164, 0.20000723004341125,
                  -0.16668486595153809, 0.14249350130558014, -0.12410391867160797,
                  0.11667048931121826, -0.11579358577728271, 0.07144856452941895),
        "ERF": (0.12837916612625122, -0.37612634897232056, 0.11283715069293976,
                -0.02686050906777382, 0.00520385941490531, -0.0008175639668479562,
                8.513105422025546e-05),
        "ERFC": (0.2155524343252182, -0.07756397873163223, 0.026485320180654526,
                 -0.008645188994705677, 0.002788132056593895, -0.0006986758089624345,
                 0.0002527032629586756, -0.00017603213200345635, -8.068862371146679e-05,
                 -3.578633550205268e-05),
        "TANH": (-0.3333328068256378, 0.13331441581249237, -0.05373971536755562,
                 0.02063908614218235, -0.005704986862838268),
        "SIN": (-0.16666655242443085, 0.00833216030150652, -0.0001951520098373294),
        "COS": (0.04166664555668831, -0.0013887315290048718, 2.4433062208117917e-05),
        # FLOAT64 (see _WIDE): pi/2 in 3 parts of <= 24 significant bits (last one full), so
        # q * part is exact in float64 for q < 2**29
        "PIO2": (1.5707963705062866, -4.371138828673793e-08, -1.7151244994428829e-15),
    },
    "float64": {
        "EXP": (0.5, 0.1666666666666667, 0.04166666666666658, 0.008333333333326035,
                0.0013888888888940786, 0.00019841269875202488, 2.4801587193319293e-05,
                2.7557254887813877e-06, 2.7557398723323527e-07, 2.5105439163297225e-08,
                2.087328446419885e-09),
        "EXPM1": (0.5, 0.1666666666666667, 0.04166666666666613, 0.008333333333329675,
                  0.001388888888917591, 0.00019841269849158694, 2.480158671600545e-05,
                  2.755731591247078e-06, 2.7557824254737753e-07, 2.5048270028450034e-08,
                  2.0735338090075927e-09, 1.8624302106892852e-10),
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
        "TANH": (-0.33333333333332854, 0.13333333333262093, -0.0539682539312681,
                 0.02186948757610211, -0.008863221002713615, 0.003591989174387485,
                 -0.0014549588805324845, 0.000586316547654267, -0.0002285642242667477,
                 7.714438008270647e-05, -1.607257563915984e-05),
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
        # exp: below EXP_LO the result rounds to 0, above EXP_HI it overflows to inf
        "EXP_LO": -104.0, "EXP_HI": 89.0,
        "EXPM1_LO": -30.0,          # expm1(x) rounds to -1 below this
        "EXPM1_NBIG": 25.0,         # 1 - 2**-n is exact in float32 for n < 25
        "EXPM1_FLOOR_HI": 1.0397207708399179,     # 1.5 ln2
        "TANH_HI": 9.1,             # tanh(x) rounds to 1 from here on
        "TANH_SPLIT": 0.625,
        "ERF_SPLIT": 0.9, "ERF_HI": 4.0, "ERFC_X0": 2.4375,
        "TINY": 1.1754943508222875e-38,     # smallest normal
        "SUB_SCALE": 33554432.0, "SUB_LOG2": 25.0,     # 2**25: scales subnormals to normal
        "MIN_EXP": -126.0,
        "SINCOS_LIMIT": 16777216.0,     # 2**24 (q stays exact in float32)
    },
    "float64": {
        "LOG2E": 1.4426950408889634, "TWO_OVER_PI": 0.6366197723675814,
        # ln2 = hi + lo, hi with 29 significant bits: n * hi exact for |n| < 2**24
        "LN2_HI": 0.6931471806019545, "LN2_LO": -4.2009150726810846e-11,
        "EXP_LO": -750.0, "EXP_HI": 710.0,
        "EXPM1_LO": -45.0,
        "EXPM1_NBIG": 54.0,
        "EXPM1_FLOOR_HI": 1.0397207708399179,
        "TANH_HI": 19.1,            # tanh(x) rounds to 1 from here on
        "TANH_SPLIT": 0.625,
        "ERF_SPLIT": 0.9, "ERF_HI": 6.0, "ERFC_T0": 0.234375,
        "TINY": 2.2250738585072014e-308,
        "SUB_SCALE": 18014398509481984.0, "SUB_LOG2": 54.0,     # 2**54
        "MIN_EXP": -1022.0,
        "SINCOS_LIMIT": 134217728.0,    # 2**27
    },
}
# float32 sin/cos reduce their argument in float64: these constants are float64 in that preamble.
_WIDE = {"float32": {"PIO2", "TWO_OVER_PI", "HALF_D"}, "float64": set()}
_COMMON_SCALARS = {"ZERO": 0.0, "HALF": 0.5, "QUARTER": 0.25, "ONE": 1.0, "TWO": 2.0,
                   "FOUR": 4.0}

# Integer layout of the float, for the exponent-field intrinsics.
_LAYOUT = {
    # bits, exponent bias, mantissa bits, bit pattern of 1.0, of sqrt(1/2) (rounded down)
    "float32": dict(BITS=32, BIAS=127, MANT=23, ONE_BITS=0x3F800000, SQRTH_BITS=0x3F3504F3,
                    IRFLOAT="_fm_ir.FloatType()"),
    "float64": dict(BITS=64, BIAS=1023, MANT=52, ONE_BITS=0x3FF0000000000000,
                    SQRTH_BITS=0x3FE6A09E667F3BCD, IRFLOAT="_fm_ir.DoubleType()"),
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
def _fm_pow2(typingctx, n):
    """2.0**n for an integral float n whose power is a normal number: writes the exponent field
    directly (numba has no scalar bitcast, and ldexp would be a libm call)."""
    def codegen(context, builder, sig, args):
        i = builder.fptosi(args[0], _FM_IRINT)
        i = builder.shl(builder.add(i, _fm_ic({BIAS})), _fm_ic({MANT}))
        return builder.bitcast(i, _FM_IRFLOAT)
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


@_fm_intrinsic
def _fm_ldexp(typingctx, y, n):
    """y * 2.0**n for an integral float n with |n| <= 2 * max exponent: 2**n is applied as two
    normal powers 2**h * 2**(n-h), h = n >> 1, so a subnormal result is rounded once (by the last
    multiply) and a too-large one overflows to inf."""
    def codegen(context, builder, sig, args):
        i = builder.fptosi(args[1], _FM_IRINT)
        h = builder.ashr(i, _fm_ic(1))
        lo = builder.shl(builder.add(h, _fm_ic({BIAS})), _fm_ic({MANT}))
        hi = builder.shl(builder.add(builder.sub(i, h), _fm_ic({BIAS})), _fm_ic({MANT}))
        y = builder.fmul(args[0], builder.bitcast(lo, _FM_IRFLOAT))
        return builder.fmul(y, builder.bitcast(hi, _FM_IRFLOAT))
    return _FM_NBFLOAT(_FM_NBFLOAT, _FM_NBFLOAT), codegen


@_fm_intrinsic
def _fm_log_split(typingctx, x):
    """(k, m) with x = m * 2**k and m in [sqrt(1/2), sqrt(2)), for finite normal x > 0 (garbage
    otherwise; callers select the special values). Offsetting the bits by 1.0 - sqrt(1/2) before
    splitting moves the mantissa range without a compare."""
    def codegen(context, builder, sig, args):
        ix = builder.add(builder.bitcast(args[0], _FM_IRINT), _fm_ic({ONE_BITS} - {SQRTH_BITS}))
        k = builder.sub(builder.ashr(ix, _fm_ic({MANT})), _fm_ic({BIAS}))
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


@_fm_inline
def _fm_clamp_nonan(x, lo, hi):
    """x limited to [lo, hi], nan -> lo. (One max and one min instruction.)"""
    return _fm_min(_fm_max(x, lo), hi)


# ---- exp, expm1 -----------------------------------------------------------------------------
@_fm_inline
def _fm_exp_reduce(x, offset):
    """x = n*ln2 + r, n = floor(x/ln2 + offset) (offset 1/2: |r| <= ln2/2; 0: r in [0, ln2)).
    Cody-Waite: n*LN2_HI is exact. x must not be nan (n is converted to an integer)."""
    n = np.floor(x * _FM_LOG2E + offset)
    r = (x - n * _FM_LN2_HI) - n * _FM_LN2_LO
    return n, r


@_fm_inline
def exp(x):
    # clamped (nan -> EXP_LO) so that n stays a small integer; nan is put back at the end.
    n, r = _fm_exp_reduce(_fm_clamp_nonan(x, _FM_EXP_LO, _FM_EXP_HI), _FM_HALF)
    y = _fm_ldexp(_FM_ONE + (r + r * r * ({EXP_POLY})), n)
    return where(x == x, y, x)


@_fm_inline
def _fm_expm1_poly(r):
    """expm1(r) for r in [-ln2/2, ln2], relative error far below an ulp."""
    return r + r * r * ({EXPM1_POLY})


@_fm_inline
def expm1(x):
    xc = _fm_clamp_nonan(x, _FM_EXPM1_LO, _FM_EXP_HI)
    # Nearest n (|r| <= ln2/2) except on [0, 1.5 ln2): there n = floor(x/ln2), r in [0, ln2), since
    # n = 1 with r < 0 would make 2 (1 + p) - 1 cancel and lose an ulp. Small |x| keeps n = 0, where
    # expm1 = p exactly.
    floor_n = (xc >= _FM_ZERO) & (xc < _FM_EXPM1_FLOOR_HI)
    n, r = _fm_exp_reduce(xc, where(floor_n, _FM_ZERO, _FM_HALF))
    p = _fm_expm1_poly(r)
    m = _fm_pow2(_fm_max(-n, _FM_MIN_EXP))    # 2**-n (tiny powers: negligible)
    # expm1 = 2**n ((1 - 2**-n) + p): 1 - 2**-n is exact while n < EXPM1_NBIG; beyond, the -2**-n
    # is folded into p first.
    y = where(n < _FM_EXPM1_NBIG, (_FM_ONE - m) + p, (p - m) + _FM_ONE)
    return where(x == x, _fm_ldexp(y, n), x)


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
    # TwoSum: c is the exact rounding error of u, i.e. 1 + x == u + c exactly (needs no reassoc).
    xv = u - _FM_ONE
    c = (_FM_ONE - (u - xv)) + (x - xv)
    k, m = _fm_log_split(u)
    f = m - _FM_ONE
    # log(u + c) = log(u) + c/u to far below an ulp; c/u = c * 2**-k / (1 + f), and 1 - f + f^2 is
    # a close enough 1/(1 + f) for this tiny term. (2**-k clamped to a normal power: negligible.)
    cu = c * _fm_pow2(_fm_max(-k, _FM_MIN_EXP)) * ((_FM_ONE - f) + f * f)
    return _fm_log_special(u, _fm_log_core(f, k, cu))


# ---- tanh, sigmoid --------------------------------------------------------------------------
@_fm_inline
def tanh(x):
    a = _fm_min(_FM_TANH_HI, abs(x))    # nan passes; at TANH_HI tanh already rounds to 1
    z = a * a
    small = a + a * z * ({TANH_POLY})
    # |x| >= TANH_SPLIT: tanh = 1 - 2 / (exp(2a) + 1), no cancellation there. exp(2a) is at most
    # exp(2 TANH_HI), a normal number, so one 2**n factor does (an: the nan-free copy of a).
    an = _fm_clamp_nonan(abs(x), _FM_ZERO, _FM_TANH_HI)
    n, r = _fm_exp_reduce(an + an, _FM_HALF)
    s = _fm_pow2(n)
    e = s + s * (r + r * r * ({EXP_POLY}))
    big = _FM_ONE - _FM_TWO / (e + _FM_ONE)
    t = where(a >= _FM_TANH_SPLIT, big, small)    # nan -> small (nan)
    return where(x < _FM_ZERO, -t, t)


@_fm_inline
def sigmoid(x):
    # e = exp(-|x|) <= 1 never overflows: 1/(1+e) for x >= 0, e/(1+e) for x < 0 (keeps the tiny,
    # even subnormal, results of very negative x instead of rounding 1 - sigmoid(-x) to 0).
    e = exp(-abs(x))
    return where(x < _FM_ZERO, e, _FM_ONE) / (_FM_ONE + e)


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
    """log(2**k * (1 + f)) + corr for f in [sqrt(1/2) - 1, sqrt(2) - 1], corr tiny."""
    z = f * f
    y = f * z * ({LOG1P_POLY}) + (k * _FM_LN2_LO + corr)
    y = y - _FM_HALF * z
    return (f + y) + k * _FM_LN2_HI''',
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
        TANH_POLY=_horner("z", "TANH", len(coefs["TANH"])),
        EXP_POLY=_horner("r", "EXP", len(coefs["EXP"])),
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
