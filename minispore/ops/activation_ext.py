"""More activations with MindSpore 2.x's signatures and formulas: prelu, mish, hardtanh, selu,
celu, glu, logsigmoid, softsign, softmin, softshrink, hardshrink, tanhshrink, threshold,
fast_gelu, rrelu.

Each is written with elementwise rows that have an `expr` (select, compare, exp, tanh,
sigmoid...), so Graph mode fuses the whole activation, with its neighbours, into one kernel;
a row of its own would add a derivative to keep in step and nothing to the kernel (the
parametrised ones carry their constants, which templates cannot). Selects, not products
with a step, so the gradient at a kink is the one PyTorch and MindSpore give, and every
branch that could overflow sees only its own half-line (a select's zero gradient times an
inf from the other branch would be nan).
"""
from __future__ import annotations
from typing import Any, Optional
import numpy as np

from . import functional as F
from .array_functions import one_hot
from .activation import softmax
from .arguments import as_tensor, op_error
from .primitive import OpShapeError, OpTypeError
from .random_ops import rand_like
from ..core.hints import Tensor, TensorLike, Axis, DTypeLike

__all__ = ["celu", "fast_gelu", "glu", "gumbel_softmax", "hardshrink", "hardtanh", "logsigmoid",
           "mish", "prelu", "rrelu", "selu", "softmin", "softshrink", "softsign", "swiglu",
           "tanhshrink", "threshold"]

# SELU's constants (Klambauer et al. 2017), as MindSpore and PyTorch define them
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _float_input(op, x):
    x = as_tensor(x)
    if not x.dtype.is_float:
        raise op_error(op, (x,), "input must be a float tensor", OpTypeError)
    return x


def _negative_expm1(x, positive, alpha, inner_scale=1.0):
    """alpha * (exp(x * inner_scale) - 1) where x <= 0, computed on x clamped to <= 0."""
    negative_part = F.where(positive, 0.0, x)
    if inner_scale != 1.0:
        negative_part = F.mul(negative_part, inner_scale)
    return F.mul(F.expm1(negative_part), alpha)


def prelu(x: Tensor, weight: TensorLike) -> Tensor:
    """x where x > 0, weight * x elsewhere; `weight` is one slope per channel (axis 1, a 1-D
    input's axis 0) or a single slope.

        >>> ops.prelu(ms.Tensor([-2.0, 3.0]), ms.Tensor([0.25])).asnumpy().tolist()
        [-0.5, 3.0]
    """
    x, weight = _float_input("prelu", x), as_tensor(weight)
    if weight.ndim > 1:
        raise op_error("prelu", (x, weight), "weight must be 1-D", OpShapeError)
    channels = x.shape[1] if x.ndim >= 2 else (x.shape[0] if x.ndim == 1 else 1)
    if weight.size not in (1, channels):
        raise op_error("prelu", (x, weight),
                       f"weight has {weight.size} slopes for {channels} channels", OpShapeError)
    if weight.size > 1 and x.ndim >= 2:  # one slope per channel along axis 1
        weight = F.reshape(weight, (channels,) + (1,) * (x.ndim - 2))
    return F.where(F.greater(x, 0), x, F.mul(x, weight))


def mish(x: Tensor) -> Tensor:
    """x * tanh(softplus(x)).

        >>> round(float(ops.mish(ms.Tensor(1.0))), 4)
        0.8651
    """
    x = _float_input("mish", x)
    return F.mul(x, F.tanh(F.softplus(x)))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """x clipped to [min_val, max_val]; gradient 1 strictly inside, 0 outside.

        >>> ops.hardtanh(ms.Tensor([-3.0, 0.5, 3.0])).asnumpy().tolist()
        [-1.0, 0.5, 1.0]
    """
    x = _float_input("hardtanh", input)
    if min_val > max_val:
        raise op_error("hardtanh", (x,), f"min_val {min_val} > max_val {max_val}", ValueError)
    return F.where(F.less_equal(x, min_val), float(min_val),
                   F.where(F.greater_equal(x, max_val), float(max_val), x))


def selu(input_x: Tensor) -> Tensor:
    """scale * (x where x > 0, alpha * (exp(x) - 1) elsewhere), with SELU's fixed alpha and
    scale (1.6733, 1.0507).

        >>> round(float(ops.selu(ms.Tensor(1.0))), 4)
        1.0507
    """
    x = _float_input("selu", input_x)
    positive = F.greater(x, 0)
    return F.mul(F.where(positive, x, _negative_expm1(x, positive, _SELU_ALPHA)), _SELU_SCALE)


def celu(x: Tensor, alpha: float = 1.0) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

        >>> round(float(ops.celu(ms.Tensor(-1.0), alpha=2.0)), 4)
        -0.7869
    """
    x = _float_input("celu", x)
    if alpha == 0:
        raise op_error("celu", (x,), "alpha must not be 0", ValueError)
    positive = F.greater(x, 0)
    return F.where(positive, x, _negative_expm1(x, positive, alpha, 1.0 / alpha))


def glu(x: Tensor, axis: int = -1) -> Tensor:
    """a * sigmoid(b), where a and b are the two halves of x along `axis`.

        >>> ops.glu(ms.Tensor([[1.0, 0.0]])).asnumpy().tolist()
        [[0.5]]
    """
    x = _float_input("glu", x)
    if x.ndim == 0 or x.shape[axis] % 2:
        raise op_error("glu", (x,), f"axis {axis} must have an even size", OpShapeError)
    a, b = F.split(x, x.shape[axis] // 2, axis)
    return F.mul(a, F.sigmoid(b))


def swiglu(input: Tensor, dim: int = -1) -> Tensor:
    """SwiGLU: swish(a) * b = a * sigmoid(a) * b, a and b the two halves of `input` along
    `dim` (the gated feed-forward of LLaMA-style Transformers).

        >>> ops.swiglu(ms.Tensor([[1.0, 2.0]])).asnumpy().round(4).tolist()
        [[1.4621]]
    """
    x = _float_input("swiglu", input)
    if x.ndim == 0 or x.shape[dim] % 2:
        raise op_error("swiglu", (x,), f"dim {dim} must have an even size", OpShapeError)
    a, b = F.split(x, x.shape[dim] // 2, dim)
    return F.mul(F.mul(a, F.sigmoid(a)), b)


def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, dim: int = -1) -> Tensor:
    """softmax((logits + g) / tau) along `dim`, g drawn from the Gumbel(0, 1) distribution
    (-log(-log(u)), u uniform; from the ms.set_seed / manual_seed generator). With `hard`, the
    one-hot of its argmax, whose gradient is the soft sample's (straight-through).

        >>> ms.set_seed(0); y = ops.gumbel_softmax(ops.zeros((2, 5)), hard=True)
        >>> y.sum(-1).asnumpy().tolist()
        [1.0, 1.0]
    """
    logits = _float_input("gumbel_softmax", logits)
    if tau <= 0:
        raise op_error("gumbel_softmax", (logits,), f"tau must be positive, got {tau}", ValueError)
    finfo = np.finfo(logits.dtype.np)  # u in [tiny, 1 - eps]: both logs finite
    uniform = F.minimum(F.maximum(rand_like(logits), float(finfo.tiny)), 1.0 - float(finfo.eps))
    gumbel = F.neg(F.log(F.neg(F.log(uniform))))
    soft = softmax(F.div(F.add(logits, gumbel), tau), dim)
    if not hard:
        return soft
    dim = dim % soft.ndim
    hot = one_hot(F.argmax(soft, axis=dim), soft.shape[dim], 1.0, 0.0, axis=dim)
    return F.add(F.sub(F.cast(hot, soft.dtype), F.stop_gradient(soft)), soft)


def logsigmoid(x: Tensor) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), without overflow.

        >>> round(float(ops.logsigmoid(ms.Tensor(0.0))), 4)
        -0.6931
    """
    return F.neg(F.softplus(F.neg(_float_input("logsigmoid", x))))


def softsign(x: Tensor) -> Tensor:
    """x / (1 + |x|).

        >>> ops.softsign(ms.Tensor([-1.0, 3.0])).asnumpy().tolist()
        [-0.5, 0.75]
    """
    x = _float_input("softsign", x)
    return F.div(x, F.add(F.abs(x), 1.0))


def softmin(x: Tensor, axis: Axis = -1, *, dtype: Optional[DTypeLike] = None) -> Tensor:
    """softmax(-x) along `axis` (optionally cast to `dtype` first).

        >>> ops.softmin(ms.Tensor([0.0, 0.0])).asnumpy().tolist()
        [0.5, 0.5]
    """
    x = as_tensor(x)
    if dtype is not None:
        x = F.cast(x, dtype)
    return softmax(F.neg(x), axis)


def softshrink(x: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd where x > lambd, x + lambd where x < -lambd, 0 between.

        >>> ops.softshrink(ms.Tensor([-1.0, 0.2, 1.0])).asnumpy().tolist()
        [-0.5, 0.0, 0.5]
    """
    x = _float_input("softshrink", x)
    if lambd < 0:
        raise op_error("softshrink", (x,), f"lambd must be >= 0, got {lambd}", ValueError)
    return F.where(F.greater(x, lambd), F.sub(x, float(lambd)),
                   F.where(F.less(x, -lambd), F.add(x, float(lambd)), 0.0))


def hardshrink(x: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, 0 elsewhere.

        >>> ops.hardshrink(ms.Tensor([-1.0, 0.2, 1.0])).asnumpy().tolist()
        [-1.0, 0.0, 1.0]
    """
    x = _float_input("hardshrink", x)
    return F.where(F.greater(F.abs(x), lambd), x, 0.0)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x).

        >>> round(float(ops.tanhshrink(ms.Tensor(1.0))), 4)
        0.2384
    """
    x = _float_input("tanhshrink", input)
    return F.sub(x, F.tanh(x))


def threshold(input: Tensor, thr: Any, value: float) -> Tensor:
    """x where x > thr, `value` elsewhere.

        >>> ops.threshold(ms.Tensor([0.5, 2.0]), 1.0, 9.0).asnumpy().tolist()
        [9.0, 2.0]
    """
    x = _float_input("threshold", input)
    return F.where(F.greater(x, thr), x, float(value))


def fast_gelu(x: Tensor) -> Tensor:
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)), MindSpore's FastGelu: the same as
    x * sigmoid(1.702 x), which is how it is computed (no overflow for any x).

        >>> round(float(ops.fast_gelu(ms.Tensor(1.0))), 4)
        0.8458
    """
    x = _float_input("fast_gelu", x)
    return F.mul(x, F.sigmoid(F.mul(x, 1.702)))


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = True) -> Tensor:
    """Randomized leaky ReLU: x where x >= 0, a * x elsewhere, with a drawn uniformly from
    [lower, upper] per element while training (from the `ms.set_seed` generator) and
    (lower + upper) / 2 otherwise.

        >>> ops.rrelu(ms.Tensor([-1.0, 2.0]), 0.25, 0.25).asnumpy().tolist()
        [-0.25, 2.0]
    """
    x = _float_input("rrelu", input)
    if not 0 <= lower <= upper:
        raise op_error("rrelu", (x,), f"need 0 <= lower <= upper, got {lower}, {upper}",
                       ValueError)
    if training and upper > lower:
        slope: Tensor | float = F.add(F.mul(rand_like(x), float(upper - lower)), float(lower))
    else:
        slope = float((lower + upper) / 2)
    return F.where(F.greater_equal(x, 0), x, F.mul(x, slope))
