# mypy reaches this module before ops.elementwise_ext in their import cycle (through
# ops.functional), so it cannot yet tell the rows' types (EX.asin...); the names made from
# them take their types from unary_op's and binary_op's hints.
# mypy: disable-error-code="has-type"
"""Elementwise math of MindSpore 2.x's `ops`: the rows of `ops.elementwise_ext` with their
user-facing signatures, and the functions that are exact compositions of rows (logaddexp,
xlogy, lerp, nan_to_num...), which fuse in Graph mode and need no derivative of their own.

    >>> ops.logaddexp(ms.Tensor([0.0, 1.0]), ms.Tensor([0.0, -1.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 6.93147182e-01,  1.31326163e+00])
"""
import math
from typing import Optional, Sequence, Union

import numpy as np

from ..core.hints import TensorLike
from ..core.tensor import Tensor
from . import elementwise as E
from . import elementwise_ext as EX
from . import functional as F
from .arguments import as_tensor, binary_op, unary_op

__all__ = [
    "acos", "arccos", "acosh", "arccosh", "asin", "arcsin", "asinh", "arcsinh", "atan",
    "arctan", "atanh", "arctanh", "sinh", "cosh", "atan2", "arctan2", "exp2", "log2", "log10",
    "erfc", "erfinv", "lgamma", "digamma", "polygamma", "trunc", "fix", "isnan", "isinf",
    "isfinite", "isneginf", "isposinf", "isreal", "signbit", "hypot", "copysign", "fmod",
    "truncate_mod", "truncate_div", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm", "invert", "inv", "deg2rad",
    "rad2deg", "logaddexp", "logaddexp2", "logit", "xlogy", "xdivy", "sinc", "heaviside",
    "nan_to_num", "frac", "lerp", "addcmul", "addcdiv", "float_power", "fmax", "fmin", "ldexp",
    "positive", "negative", "absolute", "sgn", "is_floating_point", "is_complex", "allclose",
    "isclose", "approximate_equal", "addn", "accumulate_n", "clip", "clamp",
    "nextafter", "population_count",
]

# the rows of ops.elementwise_ext under their MindSpore names (a table, one name a line)
asin = arcsin = unary_op(EX.asin)
acos = arccos = unary_op(EX.acos)
atan = arctan = unary_op(EX.atan)
sinh = unary_op(EX.sinh)
cosh = unary_op(EX.cosh)
asinh = arcsinh = unary_op(EX.asinh)
acosh = arccosh = unary_op(EX.acosh)
atanh = arctanh = unary_op(EX.atanh)
exp2 = unary_op(EX.exp2)
log2 = unary_op(EX.log2)
log10 = unary_op(EX.log10)
erfc = unary_op(EX.erfc)
erfinv = unary_op(EX.erfinv)
lgamma = unary_op(EX.lgamma)
trunc = fix = unary_op(EX.trunc)
isnan = unary_op(EX.isnan)
isinf = unary_op(EX.isinf)
isfinite = unary_op(EX.isfinite)
signbit = unary_op(EX.signbit)
population_count = unary_op(EX.population_count)
atan2 = arctan2 = binary_op(EX.atan2)
hypot = binary_op(EX.hypot)
copysign = binary_op(EX.copysign)
fmod = truncate_mod = binary_op(EX.fmod)
bitwise_and = binary_op(EX.bitwise_and)
bitwise_or = binary_op(EX.bitwise_or)
bitwise_xor = binary_op(EX.bitwise_xor)
bitwise_left_shift = binary_op(EX.bitwise_left_shift)
bitwise_right_shift = binary_op(EX.bitwise_right_shift)
gcd = binary_op(EX.gcd)
lcm = binary_op(EX.lcm)
nextafter = binary_op(EX.nextafter)

# (new function objects: ops.functional is still being defined when this module loads)
remainder = binary_op(E.floor_mod)  # Python's modulo: the divisor's sign
invert = unary_op(E.bitwise_not)
sgn = unary_op(E.sign)
negative = unary_op(E.neg)
absolute = unary_op(E.abs)


def inv(x: Tensor) -> Tensor:
    """1 / x (MindSpore's name for ops.reciprocal)."""
    return F.reciprocal(x)


def digamma(input: TensorLike) -> Tensor:
    """The logarithmic derivative of the gamma function, elementwise."""
    return EX.polygamma(as_tensor(input), n=0)


def polygamma(n: int, input: TensorLike) -> Tensor:
    """The n-th derivative of digamma: ``ops.polygamma(1, x)`` is the trigamma function."""
    if int(n) < 0:
        raise ValueError(f"ops.polygamma: n must be >= 0, got {n}")
    return EX.polygamma(as_tensor(input), n=int(n))


def positive(input: TensorLike) -> Tensor:
    """input itself (unary plus)."""
    return as_tensor(input)


def isneginf(input: TensorLike) -> Tensor:
    """Elementwise: is input negative infinity."""
    return F.logical_and(isinf(input), signbit(input))


def isposinf(input: TensorLike) -> Tensor:
    return F.logical_and(isinf(input), F.logical_not(signbit(input)))


def isreal(input: TensorLike) -> Tensor:
    """Elementwise True: minispore tensors are never complex."""
    return F.ones_like(as_tensor(input), np.bool_)


def is_floating_point(input: TensorLike) -> bool:
    return as_tensor(input).dtype.is_float


def is_complex(input: TensorLike) -> bool:
    return False


def truncate_div(x: TensorLike, y: TensorLike) -> Tensor:
    """x / y rounded toward zero (integers stay integers)."""
    a, b = (as_tensor(v) for v in F.promote(x, y))  # a Python number comes back an array
    if a.dtype.is_float:
        return trunc(F.div(a, b))
    return F.cast(trunc(F.div(a, b)), a.dtype)


def deg2rad(x: TensorLike) -> Tensor:
    return F.mul(_as_float(x), math.pi / 180)


def rad2deg(x: TensorLike) -> Tensor:
    return F.mul(_as_float(x), 180 / math.pi)


def _as_float(x: TensorLike) -> Tensor:
    x = as_tensor(x)
    return x if x.dtype.is_float else F.cast(x, np.float32)


def logaddexp(input: TensorLike, other: TensorLike) -> Tensor:
    """log(exp(input) + exp(other)) without overflow: the larger plus softplus of the
    difference (softplus's composite has the exact gradient where input == other)."""
    input, other = F.promote(_as_float(input), _as_float(other))
    return F.add(input, F.softplus(F.sub(other, input)))


def logaddexp2(input: TensorLike, other: TensorLike) -> Tensor:
    """log2(2**input + 2**other)."""
    input, other = F.promote(_as_float(input), _as_float(other))
    return F.div(logaddexp(F.mul(input, math.log(2)), F.mul(other, math.log(2))), math.log(2))


def logit(input: TensorLike, eps: Optional[float] = None) -> Tensor:
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given."""
    p = _as_float(input)
    if eps is not None:
        p = F.clip(p, eps, 1 - eps)
    return F.log(F.div(p, F.sub(1, p)))


def xlogy(input: TensorLike, other: TensorLike) -> Tensor:
    """input * log(other), 0 where input is 0 (even where other is 0 or nan)."""
    x, y = F.promote(_as_float(input), _as_float(other))
    zero = F.equal(x, 0)
    return F.where(zero, F.zeros_like(x), F.mul(x, F.log(F.where(zero, F.ones_like(y), y))))


def xdivy(x: TensorLike, y: TensorLike) -> Tensor:
    """x / y, 0 where x is 0."""
    a, b = F.promote(_as_float(x), _as_float(y))
    zero = F.equal(a, 0)
    return F.where(zero, F.zeros_like(a), F.div(a, F.where(zero, F.ones_like(b), b)))


def sinc(input: TensorLike) -> Tensor:
    """sin(pi x) / (pi x), 1 at x == 0."""
    x = _as_float(input)
    zero = F.equal(x, 0)
    pix = F.mul(F.where(zero, F.ones_like(x), x), math.pi)
    return F.where(zero, F.ones_like(x), F.div(F.sin(pix), pix))


def heaviside(input: TensorLike, values: TensorLike) -> Tensor:
    """The step function: 0 below zero, 1 above, `values` at zero."""
    x, v = F.promote(input, values)
    step = F.cast(F.greater(x, 0), x.dtype)
    return F.where(F.equal(x, 0), v, step)


def nan_to_num(input: TensorLike, nan: Optional[float] = None, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> Tensor:
    """nan -> `nan` (default 0), +inf/-inf -> `posinf`/`neginf` (default: the dtype's
    largest/lowest finite value); finite values pass (with their gradient)."""
    x = as_tensor(input)
    if not x.dtype.is_float:
        return x
    info = np.finfo(x._data.dtype)
    x = F.where(isnan(x), F.full((), 0.0 if nan is None else nan, x.dtype), x)
    x = F.where(isposinf(x), F.full((), info.max if posinf is None else posinf, x.dtype), x)
    return F.where(isneginf(x), F.full((), info.min if neginf is None else neginf, x.dtype), x)


def frac(x: TensorLike) -> Tensor:
    """The fractional part, x - trunc(x) (with x's sign)."""
    x = as_tensor(x)
    return F.sub(x, trunc(x))


def lerp(input: TensorLike, end: TensorLike, weight: TensorLike) -> Tensor:
    """input + weight * (end - input)."""
    input, end = F.promote(input, end)
    return F.add(input, F.mul(weight, F.sub(end, input)))


def addcmul(input: TensorLike, tensor1: TensorLike, tensor2: TensorLike,
            value: TensorLike = 1) -> Tensor:
    """input + value * tensor1 * tensor2."""
    return F.add(input, F.mul(value, F.mul(tensor1, tensor2)))


def addcdiv(input: TensorLike, tensor1: TensorLike, tensor2: TensorLike,
            value: TensorLike = 1) -> Tensor:
    """input + value * tensor1 / tensor2."""
    return F.add(input, F.mul(value, F.div(tensor1, tensor2)))


def float_power(input: TensorLike, exponent: Union[Tensor, float]) -> Tensor:
    """input ** exponent computed in Float64."""
    base = F.cast(as_tensor(input), np.float64)
    exponent = F.cast(exponent, np.float64) if isinstance(exponent, Tensor) else float(exponent)
    return F.pow(base, exponent)


def fmax(input: TensorLike, other: TensorLike) -> Tensor:
    """Elementwise maximum that ignores nan (nan only where both are nan)."""
    input, other = F.promote(input, other)
    return F.where(isnan(other), input, F.where(isnan(input), other, F.maximum(input, other)))


def fmin(input: TensorLike, other: TensorLike) -> Tensor:
    input, other = F.promote(input, other)
    return F.where(isnan(other), input, F.where(isnan(input), other, F.minimum(input, other)))


def ldexp(x: TensorLike, other: TensorLike) -> Tensor:
    """x * 2**other."""
    return F.mul(x, exp2(other))


def isclose(input: TensorLike, other: TensorLike, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other|, elementwise (nan == nan if equal_nan)."""
    input, other = F.promote(input, other)
    close = F.less_equal(F.abs(F.sub(input, other)), F.add(F.mul(F.abs(other), rtol), atol))
    close = F.logical_or(close, F.equal(input, other))  # equal infinities
    if equal_nan:
        close = F.logical_or(close, F.logical_and(isnan(input), isnan(other)))
    return close


def allclose(input: TensorLike, other: TensorLike, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether every element is close (a Python bool)."""
    return bool(F.all(isclose(input, other, rtol, atol, equal_nan)))


def approximate_equal(x: TensorLike, y: TensorLike, tolerance: float = 1e-05) -> Tensor:
    """|x - y| < tolerance, elementwise."""
    return F.less(F.abs(F.sub(x, y)), tolerance)


def addn(x: Sequence[Tensor]) -> Tensor:
    """The sum of a list of tensors of one shape."""
    total = x[0]
    for t in x[1:]:
        total = F.add(total, t)
    return total


accumulate_n = addn


def clip(input: TensorLike, min: Optional[TensorLike] = None,
         max: Optional[TensorLike] = None) -> Tensor:
    """Values of input limited to [min, max] (either may be None, a number or a Tensor;
    where min > max the result is max, as MindSpore's).

        >>> ops.clip(ms.Tensor([-2.0, 0.5, 3.0]), min=-1, max=1)
        Tensor(shape=[3], dtype=Float32, value= [-1.00000000e+00,  5.00000000e-01,  1.00000000e+00])
    """
    x = as_tensor(input)
    if min is None and max is None:
        raise ValueError("ops.clip: give min, max or both")
    if min is not None:
        x = F.maximum(x, min)
    if max is not None:
        x = F.minimum(x, max)
    return x


clamp = clip   # ops.clip_by_value, which also takes a tuple of Tensors, is in ops.clip
