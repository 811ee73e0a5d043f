"""Hand-written numba kernels for the ew_fwd chain and its analytic gradient.

    y  = tanh(0.5x + 0.1) * sigmoid(x) + exp(-x^2) - 0.3x^2 + log1p(|x|)
    dy = 0.5(1 - t^2)s + t s(1 - s) - 2x exp(-x^2) - 0.6x + sign(x) / (1 + |x|)

Two versions, as BENCHMARKS.md defines them:

* `*_libm`: the straightforward fused loop over math.tanh / math.exp / math.log1p (serial).
  Numba calls scalar libm for these (pip's llvmlite has no SVML), so the loop does not vectorise.
* `*_fast`: the same math through exp and log only, both written here as branch-free
  float32 polynomials (Cephes-style range reduction, exponent-field bit casts), which LLVM
  inlines and vectorises; `parallel=True, fastmath=True` with prange (one thread under
  NUMBA_NUM_THREADS=1).

The functions are plain Python here and compiled by `compile_kernels`, so that one source serves
cache=False (compile latency) and cache=True (disk cache) variants; numba's disk cache needs the
functions to live in a real file, which this is.
"""
import math

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.extending import intrinsic


@intrinsic
def _int32_bits_as_float32(typingctx, bits):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.int32), codegen


@intrinsic
def _float32_bits_as_int32(typingctx, value):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return types.int32(types.float32), codegen


# Typed constants: a bare literal is float64 in numba and would widen the float32 loop.
_F = np.float32
_ZERO, _HALF, _ONE, _TWO = _F(0.0), _F(0.5), _F(1.0), _F(2.0)
_P01, _P02, _P03, _P06 = _F(0.1), _F(0.2), _F(0.3), _F(0.6)
_LOG2E, _LN2_HI, _LN2_LO = _F(1.44269504088896341), _F(0.693359375), _F(-2.12194440e-4)
_EXP_LO, _EXP_HI = _F(-87.0), _F(88.0)
_EXP_C = tuple(_F(c) for c in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
                               4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1))
_LOG_C = tuple(_F(c) for c in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                               -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                               2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_SQRT_HALF = _F(0.707106781186547524)
_MANTISSA, _ONE_BITS = np.int32(0x007FFFFF), np.int32(0x3F800000)
_FAST = {"inline": "always", "fastmath": True, "error_model": "numpy"}


@numba.njit(**_FAST)
def fast_exp(x):
    """exp for float32: x = n ln2 + r, exp(r) by a degree-7 polynomial, 2^n by bit cast."""
    x = min(max(x, _EXP_LO), _EXP_HI)
    n = np.floor(x * _LOG2E + _HALF)
    r = x - n * _LN2_HI - n * _LN2_LO
    c = _EXP_C
    p = ((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]
    p = p * r * r + r + _ONE
    return p * _int32_bits_as_float32((np.int32(n) + np.int32(127)) << np.int32(23))


@numba.njit(**_FAST)
def fast_log(x):
    """log for finite float32 x > 0: exponent/mantissa split, m in [sqrt(1/2), sqrt(2))."""
    bits = _float32_bits_as_int32(x)
    e = _F((bits >> np.int32(23)) - np.int32(127))
    m = _int32_bits_as_float32((bits & _MANTISSA) | _ONE_BITS) * _HALF   # m in [0.5, 1)
    small = m < _SQRT_HALF
    m = m + m if small else m
    e = e if small else e + _ONE
    f = m - _ONE
    z = f * f
    c = _LOG_C
    y = ((((((((c[0] * f + c[1]) * f + c[2]) * f + c[3]) * f + c[4]) * f + c[5]) * f
           + c[6]) * f + c[7]) * f + c[8]) * f * z
    return f + (y + e * _LN2_LO - _HALF * z) + e * _LN2_HI


# ***** the kernels (plain Python; compile_kernels compiles them) *****

def chain_libm(x, out):
    for i in range(x.size):
        v = x[i]
        xx = v * v
        sig = _ONE / (_ONE + math.exp(-v))
        out[i] = (math.tanh(v * _HALF + _P01) * sig + math.exp(-xx) - _P03 * xx
                  + math.log1p(abs(v)))


def grad_libm(x, out):
    for i in range(x.size):
        v = x[i]
        t = math.tanh(v * _HALF + _P01)
        s = _ONE / (_ONE + math.exp(-v))
        a = abs(v)
        sign = _ONE if v > _ZERO else (-_ONE if v < _ZERO else _ZERO)
        out[i] = (_HALF * (_ONE - t * t) * s + t * s * (_ONE - s) - _TWO * v * math.exp(-v * v)
                  - _P06 * v + sign / (_ONE + a))


def chain_fast(x, out):
    for i in prange(x.size):
        v = x[i]
        xx = v * v
        t = _ONE - _TWO / (fast_exp(v + _P02) + _ONE)   # tanh(u) = 1 - 2 / (exp(2u) + 1)
        s = _ONE / (_ONE + fast_exp(-v))
        out[i] = t * s + fast_exp(-xx) - _P03 * xx + fast_log(_ONE + abs(v))


def grad_fast(x, out):
    for i in prange(x.size):
        v = x[i]
        t = _ONE - _TWO / (fast_exp(v + _P02) + _ONE)
        s = _ONE / (_ONE + fast_exp(-v))
        a = abs(v)
        sign = _ONE if v > _ZERO else (-_ONE if v < _ZERO else _ZERO)
        out[i] = (_HALF * (_ONE - t * t) * s + t * s * (_ONE - s) - _TWO * v * fast_exp(-v * v)
                  - _P06 * v + sign / (_ONE + a))


def compile_kernels(cache=False):
    """{name: njit function} for the four kernels (compiled lazily at their first call)."""
    serial = {"error_model": "numpy", "cache": cache}
    fast = {"parallel": True, "fastmath": True, "error_model": "numpy", "cache": cache}
    return {"chain_libm": numba.njit(**serial)(chain_libm),
            "grad_libm": numba.njit(**serial)(grad_libm),
            "chain_fast": numba.njit(**fast)(chain_fast),
            "grad_fast": numba.njit(**fast)(grad_fast)}
