"""Elementwise primitives: unary, binary (broadcasting), comparisons, select, cast.

Binary rules fold `dout` back to each input's shape with `F.sum_to` (broadcast reduction is
written once). `expr` templates use {0}, {1}... for inputs and the helper names of the fused
kernel preamble (exp, log, log1p, expm1, tanh, sigmoid, erf, sin, cos, where).
"""
import math

import numpy as np

from ..core.dtype import is_float_np
from . import functional as F
from . import infer as I
from .primitive import ALL, Primitive


def _float(x):
    """Compute in float: integer/bool inputs to float ops become Float32 (MindSpore rule)."""
    return x if is_float_np(x.dtype) else x.astype(np.float32)


def no_grad(*inputs_out_dout, **attrs):
    """bprop of a piecewise-constant op (comparisons, rounding): no gradient for any input."""
    return (None,) * (len(inputs_out_dout) - 2)


# ***** unary *****

neg = Primitive("neg", infer=I.numeric, impl=lambda xp, x: xp.negative(x),
                bprop=lambda x, out, dout: (-dout,), expr="-{0}")

abs = Primitive("abs", infer=I.same, impl=lambda xp, x: xp.abs(x),
                bprop=lambda x, out, dout: (dout * F.sign(x),), expr="abs({0})")

exp = Primitive("exp", infer=I.float_unary, impl=lambda xp, x: xp.exp(_float(x)),
                bprop=lambda x, out, dout: (dout * out,), expr="exp({0})")

log = Primitive("log", infer=I.float_unary, impl=lambda xp, x: xp.log(_float(x)),
                bprop=lambda x, out, dout: (dout / x,), expr="log({0})")

log1p = Primitive("log1p", infer=I.float_unary, impl=lambda xp, x: xp.log1p(_float(x)),
                  bprop=lambda x, out, dout: (dout / (x + 1),), expr="log1p({0})")

expm1 = Primitive("expm1", infer=I.float_unary, impl=lambda xp, x: xp.expm1(_float(x)),
                  bprop=lambda x, out, dout: (dout * (out + 1),), expr="expm1({0})")

sqrt = Primitive("sqrt", infer=I.float_unary, impl=lambda xp, x: xp.sqrt(_float(x)),
                 bprop=lambda x, out, dout: (dout / (out * 2),), expr="sqrt({0})")

rsqrt = Primitive("rsqrt", infer=I.float_unary, impl=lambda xp, x: 1 / xp.sqrt(_float(x)),
                  bprop=lambda x, out, dout: (dout * out * out * out * -0.5,), expr="1 / sqrt({0})")

sin = Primitive("sin", infer=I.float_unary, impl=lambda xp, x: xp.sin(_float(x)),
                bprop=lambda x, out, dout: (dout * F.cos(x),), expr="sin({0})")

cos = Primitive("cos", infer=I.float_unary, impl=lambda xp, x: xp.cos(_float(x)),
                bprop=lambda x, out, dout: (-dout * F.sin(x),), expr="cos({0})")

tan = Primitive("tan", infer=I.float_unary, impl=lambda xp, x: xp.tan(_float(x)),
                bprop=lambda x, out, dout: (dout * (out * out + 1),), expr="tan({0})")

tanh = Primitive("tanh", infer=I.float_unary, impl=lambda xp, x: xp.tanh(_float(x)),
                 bprop=lambda x, out, dout: (dout * (1 - out * out),), expr="tanh({0})")


def _sigmoid_impl(xp, x):
    x = _float(x)
    # exp of -|x| never overflows; both halves of the select are then finite
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


sigmoid = Primitive("sigmoid", infer=I.float_unary, impl=_sigmoid_impl,
                    bprop=lambda x, out, dout: (dout * out * (1 - out),), expr="sigmoid({0})")

relu = Primitive("relu", infer=I.same, impl=lambda xp, x: xp.maximum(x, 0).astype(x.dtype, copy=False),
                 # select on x > 0, not a product with a step: gradient 0 (not 1/2) at x == 0,
                 # as PyTorch and MindSpore give
                 bprop=lambda x, out, dout: (F.where(x > 0, dout, 0),),
                 expr="where(not ({0} <= 0), {0}, 0)")  # nan stays nan, as maximum

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _erf_impl(xp, x):
    x = _float(x)
    if xp is np:
        import scipy.special  # here, not at module level: it costs 0.12 s of `import minispore`
        # scipy computes Float16 in Float32
        return scipy.special.erf(x).astype(x.dtype, copy=False)
    import cupyx.scipy.special  # CuPy's scipy.special
    return cupyx.scipy.special.erf(x).astype(x.dtype, copy=False)


erf = Primitive("erf", infer=I.float_unary, impl=_erf_impl,
                bprop=lambda x, out, dout: (dout * F.exp(-x * x) * _TWO_OVER_SQRT_PI,),
                expr="erf({0})")

sign = Primitive("sign", infer=I.numeric, impl=lambda xp, x: xp.sign(x), bprop=no_grad, expr="sign({0})")
floor = Primitive("floor", infer=I.same, impl=lambda xp, x: xp.floor(x), bprop=no_grad, expr="floor({0})")
ceil = Primitive("ceil", infer=I.same, impl=lambda xp, x: xp.ceil(x), bprop=no_grad, expr="ceil({0})")
def _round_impl(xp, x):
    # rint keeps the dtype and refuses Bool (np.round would give Float16 for Bool)
    return x.copy() if x.dtype.kind in "iu" else xp.rint(x, dtype=x.dtype)


# numpy and MindSpore both round half to even
round = Primitive("round", infer=I.numeric, impl=_round_impl, bprop=no_grad, expr="rint({0})")
logical_not = Primitive("logical_not", infer=I.compare, impl=lambda xp, x: xp.logical_not(x),
                        bprop=no_grad, expr="not {0}")
bitwise_not = Primitive("bitwise_not", infer=I.integral, impl=lambda xp, x: xp.invert(x),
                        bprop=no_grad, expr="~{0}")


# ***** binary (inputs arrive with one dtype: ops.functional promotes first) *****

add = Primitive("add", infer=I.broadcast, impl=lambda xp, x, y: xp.add(x, y),
                bprop=lambda x, y, out, dout: (F.sum_to(dout, x.shape), F.sum_to(dout, y.shape)),
                expr="{0} + {1}")

sub = Primitive("sub", infer=I.broadcast_numeric, impl=lambda xp, x, y: xp.subtract(x, y),
                bprop=lambda x, y, out, dout: (F.sum_to(dout, x.shape), F.sum_to(-dout, y.shape)),
                expr="{0} - {1}")

mul = Primitive("mul", infer=I.broadcast, impl=lambda xp, x, y: xp.multiply(x, y),
                bprop=lambda x, y, out, dout: (F.sum_to(dout * y, x.shape),
                                               F.sum_to(dout * x, y.shape)),
                expr="{0} * {1}")


def _div_impl(xp, x, y):
    out = xp.true_divide(x, y)
    return out if is_float_np(x.dtype) else out.astype(np.float32)  # int / int -> Float32


div = Primitive("div", infer=I.broadcast_float, impl=_div_impl,
                bprop=lambda x, y, out, dout: (F.sum_to(dout / y, x.shape),
                                               F.sum_to(-dout * out / y, y.shape)),
                expr="{0} / {1}")

# dtype=x.dtype: numpy would turn Bool inputs into Int8; with it, numpy refuses them as infer does
floor_div = Primitive("floor_div", infer=I.broadcast_numeric,
                      impl=lambda xp, x, y: xp.floor_divide(x, y, dtype=x.dtype),
                      bprop=no_grad, expr="floor({0} / {1})")

floor_mod = Primitive("floor_mod", infer=I.broadcast_numeric,
                      impl=lambda xp, x, y: xp.mod(x, y, dtype=x.dtype),
                      bprop=lambda x, y, out, dout: (F.sum_to(dout, x.shape),
                                                     F.sum_to(-dout * F.floor_div(x, y), y.shape)),
                      expr="{0} - floor({0} / {1}) * {1}")


def _pow_bprop(x, y, out, dout, *, needed=ALL):
    dx = F.sum_to(dout * y * F.pow(x, y - 1), x.shape) if needed[0] else None
    # d/dy x**y = out * log(x), defined for x > 0 (0 elsewhere, as PyTorch/MindSpore give);
    # skipped for a constant exponent (x ** 2), whose log would be computed for nothing
    dy = F.sum_to(dout * out * F.log(F.where(x > 0, x, 1)), y.shape) if needed[1] else None
    return dx, dy


def _square_root(x, mul, recip, sqrt):
    return sqrt(x)


# A float power by a constant exponent of this table is computed from products, a reciprocal
# and sqrt, given as functions: `recipe(x, mul, recip, sqrt)`. powf is a scalar libm call
# (measured 10x slower than the multiplies on 2^20 floats, and it stops a fused loop from
# vectorising); x * x is also exact where powf may round. numpy's `x ** 2` operator does the
# same. The PyNative impl, the graph simplification pass and the numba kernel templates all
# read this table, so both modes compute the same bits.
POWER_RECIPES = {
    1.0: lambda x, mul, recip, sqrt: x,
    2.0: lambda x, mul, recip, sqrt: mul(x, x),
    3.0: lambda x, mul, recip, sqrt: mul(mul(x, x), x),
    4.0: lambda x, mul, recip, sqrt: (lambda s: mul(s, s))(mul(x, x)),
    -1.0: lambda x, mul, recip, sqrt: recip(x),
    -2.0: lambda x, mul, recip, sqrt: recip(mul(x, x)),
    0.5: _square_root,
    -0.5: lambda x, mul, recip, sqrt: recip(sqrt(x)),
}


def power_recipe(x_dtype, exponent):
    """The POWER_RECIPES entry for a float base and a scalar exponent value, or None."""
    exponent = np.asarray(exponent)
    if not is_float_np(x_dtype) or exponent.ndim != 0 or exponent.dtype.kind not in "iuf":
        return None
    return POWER_RECIPES.get(float(exponent))


def _pow_impl(xp, x, y):
    # a host exponent only: reading a device scalar's value would wait for the device
    recipe = power_recipe(x.dtype, y) if isinstance(y, np.ndarray) else None
    if recipe is not None:
        result = recipe(x, xp.multiply, lambda a: 1 / a, xp.sqrt)
        return x.copy() if result is x else result  # a new value, never the input's buffer
    return xp.power(x, y, dtype=x.dtype)


pow = Primitive("pow", infer=I.broadcast_numeric, impl=_pow_impl,
                bprop=_pow_bprop, expr="{0} ** {1}")

maximum = Primitive("maximum", infer=I.broadcast, impl=lambda xp, x, y: xp.maximum(x, y),
                    bprop=lambda x, y, out, dout: (F.sum_to(F.where(x >= y, dout, 0), x.shape),
                                                   F.sum_to(F.where(x >= y, 0, dout), y.shape)),
                    expr="max({0}, {1})")

minimum = Primitive("minimum", infer=I.broadcast, impl=lambda xp, x, y: xp.minimum(x, y),
                    bprop=lambda x, y, out, dout: (F.sum_to(F.where(x <= y, dout, 0), x.shape),
                                                   F.sum_to(F.where(x <= y, 0, dout), y.shape)),
                    expr="min({0}, {1})")


# ***** comparisons and logic: Bool results, no gradient *****

def _compare(name, ufunc, symbol=None, expr=None):
    return Primitive(name, infer=I.compare, impl=lambda xp, x, y: getattr(xp, ufunc)(x, y),
                     bprop=no_grad, expr=expr or f"{{0}} {symbol} {{1}}")


equal = _compare("equal", "equal", "==")
not_equal = _compare("not_equal", "not_equal", "!=")
less = _compare("less", "less", "<")
less_equal = _compare("less_equal", "less_equal", "<=")
greater = _compare("greater", "greater", ">")
greater_equal = _compare("greater_equal", "greater_equal", ">=")
logical_and = _compare("logical_and", "logical_and", "and")
logical_or = _compare("logical_or", "logical_or", "or")
# on truth values: 2 xor 3 is False, but 2 != 3
logical_xor = _compare("logical_xor", "logical_xor", expr="(not {0}) != (not {1})")


# ***** select, cast, identity *****

def _select_infer(c, x, y):
    if c.dtype.kind != "b":
        raise I.OpTypeError(f"condition must be a Bool tensor, got {c}")
    out = I.broadcast(x, y)
    return I.Aval(I.broadcast_shapes(c.shape, out.shape), out.dtype)


# numpy's where branches on every element: on a random mask of 1M floats it takes 3.8 ms, a
# tenth of that on a constant mask. Above this size a select on the host is a bitwise blend
# of the two bit patterns instead (five branch-free passes, ~0.8 ms), bit for bit where's
# result (nan payloads and -0.0 included).
_BLEND_MIN = 1 << 14


def _blend(c, x, y):
    """np.where(c, x, y) as y ^ ((x ^ y) & mask), on the bits of the result dtype."""
    dtype = np.result_type(x, y)
    shape = np.broadcast_shapes(c.shape, np.shape(x), np.shape(y))
    bits = np.dtype(f"u{dtype.itemsize}")
    x_bits, y_bits = (np.asarray(v).astype(dtype, copy=False).view(bits) for v in (x, y))
    mask = np.broadcast_to(c, shape).astype(bits)
    np.negative(mask, out=mask)  # True -> all bits set
    out = np.bitwise_xor(x_bits, y_bits, dtype=bits)
    if out.shape != shape:
        out = np.broadcast_to(out, shape).copy()
    out &= mask
    out ^= y_bits
    return out.view(dtype)


def _select_impl(xp, c, x, y):
    if c.dtype != np.bool_:  # numpy would take any truth value; MindSpore wants Bool
        raise TypeError("the condition of select must be Bool")
    if xp is np and c.size >= _BLEND_MIN:
        dtype = np.result_type(x, y)
        if dtype.kind in "fiub" and dtype.itemsize in (1, 2, 4, 8):
            return _blend(c, x, y)
    return xp.where(c, x, y)


select = Primitive("select", infer=_select_infer, impl=_select_impl,
                   bprop=lambda c, x, y, out, dout: (
                       None,
                       F.sum_to(F.where(c, dout, 0), x.shape),
                       F.sum_to(F.where(c, 0, dout), y.shape)),
                   expr="where({0}, {1}, {2})")


def _cast_bprop(x, out, dout, dtype):
    return (F.cast(dout, x.dtype) if x.dtype.is_float else None,)


cast = Primitive("cast", infer=lambda x, dtype: I.Aval(x.shape, dtype),
                 impl=lambda xp, x, dtype: x.astype(dtype), bprop=_cast_bprop,
                 expr="{dtype}({0})")

identity = Primitive("identity", infer=I.same, impl=lambda xp, x: x.copy(),
                     bprop=lambda x, out, dout: (dout,), expr="{0}")

stop_gradient = Primitive("stop_gradient", infer=I.same, impl=lambda xp, x: x,
                          bprop=lambda x, out, dout: (None,), expr="{0}")
