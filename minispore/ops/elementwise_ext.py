"""More elementwise primitives: inverse trigonometric and hyperbolic functions, exp2/log2/log10,
special functions (erfc, lgamma, polygamma, erfinv), float classification (isnan...), and the
binary rows atan2, hypot, copysign, fmod and the bitwise operators.

Same conventions as `ops.elementwise`: float functions compute integer/bool inputs in Float32,
binary rows receive inputs already promoted to one dtype (ops.math_ext wraps them), bprops are
written with ops. Templates name numpy's functions (the numba preamble imports them, the CUDA
preamble has an `ms_` device function of each name). polygamma and erfinv have no template
(numba has neither function): they run on scipy and bound a fused group.
"""
import math

import numpy as np

from . import batching as B
from . import functional as F
from . import infer as I
from .elementwise import _float, no_grad
from .primitive import Primitive

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2


def _scipy_special(xp):
    """scipy.special for numpy arrays, cupyx.scipy.special for CuPy (imported on first use:
    scipy costs 0.12 s of `import minispore`)."""
    if xp is np:
        import scipy.special
        return scipy.special
    import cupyx.scipy.special
    return cupyx.scipy.special


def _float_unary(name, ufunc, bprop, expr=None, impl=None):
    impl = impl or (lambda xp, x: getattr(xp, ufunc)(_float(x)))
    return Primitive(name, infer=I.float_unary, impl=impl, bprop=bprop,
                     expr=expr or f"{name}({{0}})")


# ***** inverse trigonometric and hyperbolic functions *****

asin = _float_unary("asin", "arcsin", lambda x, out, dout: (dout * F.rsqrt(1 - x * x),))
acos = _float_unary("acos", "arccos", lambda x, out, dout: (-dout * F.rsqrt(1 - x * x),))
atan = _float_unary("atan", "arctan", lambda x, out, dout: (dout / (1 + x * x),))
sinh = _float_unary("sinh", "sinh", lambda x, out, dout: (dout * cosh(x),))
cosh = _float_unary("cosh", "cosh", lambda x, out, dout: (dout * sinh(x),))
asinh = _float_unary("asinh", "arcsinh", lambda x, out, dout: (dout * F.rsqrt(x * x + 1),))
acosh = _float_unary("acosh", "arccosh", lambda x, out, dout: (dout * F.rsqrt(x * x - 1),))
atanh = _float_unary("atanh", "arctanh", lambda x, out, dout: (dout / (1 - x * x),))


# ***** powers and logarithms of other bases *****

exp2 = _float_unary("exp2", "exp2", lambda x, out, dout: (dout * out * _LN2,))
log2 = _float_unary("log2", "log2", lambda x, out, dout: (dout / (x * _LN2),))
log10 = _float_unary("log10", "log10", lambda x, out, dout: (dout / (x * _LN10),))


# ***** special functions *****

def _special(name):
    def impl(xp, x):
        x = _float(x)
        # scipy computes Float16 in Float32
        return getattr(_scipy_special(xp), name)(x).astype(x.dtype, copy=False)
    return impl


erfc = _float_unary("erfc", None, impl=_special("erfc"),
                    bprop=lambda x, out, dout: (-dout * F.exp(-x * x) * _TWO_OVER_SQRT_PI,))
lgamma = _float_unary("lgamma", None, impl=_special("gammaln"),
                      bprop=lambda x, out, dout: (dout * polygamma(x, n=0),))


def _polygamma_impl(xp, x, n):
    x = _float(x)
    special = _scipy_special(xp)
    out = special.digamma(x) if n == 0 else special.polygamma(n, x)
    return out.astype(x.dtype, copy=False)


polygamma = Primitive("polygamma", infer=I.float_unary, impl=_polygamma_impl,
                      bprop=lambda x, out, dout, n: (dout * polygamma(x, n=n + 1),),
                      batch=B.elementwise,
                      doc="the n-th derivative of the digamma function (n=0: digamma itself)")

erfinv = Primitive("erfinv", infer=I.float_unary, impl=_special("erfinv"),
                   bprop=lambda x, out, dout: (dout * F.exp(out * out) * _SQRT_PI_OVER_TWO,),
                   batch=B.elementwise, doc="the inverse of erf on (-1, 1)")


# ***** rounding and classification: no gradient *****

def _trunc_impl(xp, x):
    if x.dtype.kind == "b":  # as infer says (numpy would give Float16)
        raise TypeError("trunc is not defined on Bool tensors")
    return x.copy() if x.dtype.kind in "iu" else xp.trunc(x)


trunc = Primitive("trunc", infer=I.numeric, impl=_trunc_impl, bprop=no_grad, expr="trunc({0})")


def _classify(name):
    return Primitive(name, infer=I.compare, impl=lambda xp, x: getattr(xp, name)(x),
                     bprop=no_grad, expr=f"{name}({{0}})")


isnan = _classify("isnan")
isinf = _classify("isinf")
isfinite = _classify("isfinite")
signbit = _classify("signbit")


# ***** binary float functions *****

def _atan2_bprop(y, x, out, dout):
    scale = dout / (x * x + y * y)
    return F.sum_to(scale * x, y.shape), F.sum_to(-scale * y, x.shape)


# atan2(y, x): the angle of the point (x, y), MindSpore's argument order (input, other)
atan2 = Primitive("atan2", infer=I.broadcast_float,
                  impl=lambda xp, y, x: xp.arctan2(_float(y), _float(x)), bprop=_atan2_bprop,
                  expr="atan2({0}, {1})")

hypot = Primitive("hypot", infer=I.broadcast_float,
                  impl=lambda xp, x, y: xp.hypot(_float(x), _float(y)),
                  bprop=lambda x, y, out, dout: (F.sum_to(dout * x / out, x.shape),
                                                 F.sum_to(dout * y / out, y.shape)),
                  expr="hypot({0}, {1})")


def _copysign_bprop(x, y, out, dout):
    # |x| carries the sign of y: x's gradient flips where the signs differ; y's is zero
    flip = F.not_equal(signbit(x), signbit(y))
    return F.sum_to(F.where(flip, -dout, dout), x.shape), F.sum_to(dout * 0, y.shape)


copysign = Primitive("copysign", infer=I.broadcast_float,
                     impl=lambda xp, x, y: xp.copysign(_float(x), _float(y)),
                     bprop=_copysign_bprop, expr="copysign({0}, {1})")

# C's remainder: the sign of the dividend (floor_mod takes the divisor's)
fmod = Primitive("fmod", infer=I.broadcast_numeric,
                 impl=lambda xp, x, y: xp.fmod(x, y, dtype=x.dtype),
                 bprop=lambda x, y, out, dout: (F.sum_to(dout, x.shape),
                                                F.sum_to(-dout * trunc(x / y), y.shape)),
                 expr="fmod({0}, {1})")


# ***** bitwise operators on Bool and integers; shifts, gcd and lcm on integers only *****

def _bitwise_infer(x, y, **attrs):
    I.integral(x)
    I.integral(y)
    return I.broadcast(x, y)


def _integer_infer(x, y, **attrs):
    I.require_int("x", x)
    I.require_int("y", y)
    return I.broadcast(x, y)


def _integer_binary(name, ufunc, expr=None, infer=_integer_infer):
    def impl(xp, x, y):
        if infer is _integer_infer and x.dtype.kind not in "iu":  # numpy would shift Bools
            raise TypeError(f"{name} needs integer tensors")
        return getattr(xp, ufunc)(x, y)
    # rows without a template run on numpy (numba and CUDA have no gcd/lcm to call)
    return Primitive(name, infer=infer, impl=impl, bprop=no_grad, expr=expr,
                     batch=None if expr else B.elementwise)


bitwise_and = _integer_binary("bitwise_and", "bitwise_and", "{0} & {1}", _bitwise_infer)
bitwise_or = _integer_binary("bitwise_or", "bitwise_or", "{0} | {1}", _bitwise_infer)
bitwise_xor = _integer_binary("bitwise_xor", "bitwise_xor", "{0} ^ {1}", _bitwise_infer)
# no templates: C and LLVM leave shifts by the bit width or more undefined, numpy gives 0
bitwise_left_shift = _integer_binary("bitwise_left_shift", "left_shift")
bitwise_right_shift = _integer_binary("bitwise_right_shift", "right_shift")
gcd = _integer_binary("gcd", "gcd")
lcm = _integer_binary("lcm", "lcm")


# ***** nextafter and population count: piecewise constant, on numpy *****

nextafter = Primitive("nextafter", infer=I.broadcast_float,
                      impl=lambda xp, x, y: xp.nextafter(_float(x), _float(y)), bprop=no_grad,
                      batch=B.elementwise, doc="the next float after x toward y")


def _population_count_impl(xp, x):
    if x.dtype.kind not in "iu":  # as infer says
        raise TypeError("population_count needs an integer tensor")
    # numpy counts the bits of |x|; MindSpore those of the two's complement pattern
    unsigned = x.view(np.dtype(f"uint{8 * x.dtype.itemsize}"))
    return xp.bitwise_count(unsigned).astype(np.uint8)


population_count = Primitive("population_count",
                             infer=lambda x: (I.require_int("x", x), I.Aval(x.shape, np.dtype(
                                 np.uint8)))[1],
                             impl=_population_count_impl, bprop=no_grad, batch=B.elementwise,
                             doc="the number of set bits of each integer (UInt8)")
