"""The source templates of codegen.fastmath's preamble: numba intrinsics, then the functions
(exp, log, tanh, erf, sin, cos...), with placeholders for the polynomials and per-dtype parts
that `fastmath.preamble` fills in."""
# --------------------------------------------------------------------------------------------
# Source templates. Fields in {braces} are filled per dtype; the templates use no other braces.
# --------------------------------------------------------------------------------------------
INTRINSICS = '''
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

BODY = '''
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

LOG_CORE = {
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

ERFC_T = {
    "float32": "t = a - _FM_ERFC_X0",
    "float64": "t = _FM_ONE / (a + _FM_TWO) - _FM_ERFC_T0",
}




TRIG_REDUCE = {
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
