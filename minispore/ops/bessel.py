# mypy reaches this module before ops.functional in their import cycle, so it cannot yet tell
# the types of F.add... used by the module-level derivative table (their hints come from
# ops.arguments.binary_op); the functions' own hints are checked.
# mypy: disable-error-code="has-type"
"""Bessel functions (MindSpore's ops.bessel_*): first and second kind j0 j1 y0 y1, modified
i0 i1 k0 k1 and the exponentially scaled i0e i1e k0e k1e, one row each over scipy.special
(cupyx.scipy.special on GPU). No fused-kernel templates: numba has none of them. Each
derivative is a combination of its neighbours in the family (Abramowitz & Stegun 9.1.28,
9.6.27), written with these rows, so it differentiates again.

    >>> ops.bessel_j0(ms.Tensor([0.0, 1.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  7.65197694e-01])
"""
from typing import Callable

from ..core.hints import TensorLike
from ..core.tensor import Tensor
from . import batching as B
from . import functional as F
from . import infer as I
from .arguments import as_tensor
from .elementwise import _float
from .elementwise_ext import _scipy_special
from .primitive import Primitive

# name -> d/dx of it, given x and the rows by name (R)
_DERIVATIVES = {
    "j0": lambda x, R: F.neg(R["j1"](x)),
    "j1": lambda x, R: F.sub(R["j0"](x), F.div(R["j1"](x), x)),
    "y0": lambda x, R: F.neg(R["y1"](x)),
    "y1": lambda x, R: F.sub(R["y0"](x), F.div(R["y1"](x), x)),
    "i0": lambda x, R: R["i1"](x),
    "i1": lambda x, R: F.sub(R["i0"](x), F.div(R["i1"](x), x)),
    "i0e": lambda x, R: F.sub(R["i1e"](x), F.mul(F.sign(x), R["i0e"](x))),
    "i1e": lambda x, R: F.sub(R["i0e"](x), F.mul(R["i1e"](x), F.add(F.sign(x), F.div(1, x)))),
    "k0": lambda x, R: F.neg(R["k1"](x)),
    "k1": lambda x, R: F.neg(F.add(R["k0"](x), F.div(R["k1"](x), x))),
    "k0e": lambda x, R: F.sub(R["k0e"](x), R["k1e"](x)),
    "k1e": lambda x, R: F.sub(F.mul(R["k1e"](x), F.sub(1, F.div(1, x))), R["k0e"](x)),
}
ROWS: dict[str, Primitive] = {}


def _row(name: str) -> Primitive:
    def impl(xp, x):
        x = _float(x)
        return getattr(_scipy_special(xp), name)(x).astype(x.dtype, copy=False)
    derivative = _DERIVATIVES[name]
    return Primitive(f"bessel_{name}", infer=I.float_unary, impl=impl,
                     bprop=lambda x, out, dout: (F.mul(dout, derivative(x, ROWS)),),
                     batch=B.elementwise, doc=f"the Bessel function {name}, elementwise")


ROWS.update({name: _row(name) for name in _DERIVATIVES})


def _function(name: str) -> Callable[[TensorLike], Tensor]:
    row = ROWS[name]

    def bessel(x: TensorLike) -> Tensor:
        return row(as_tensor(x))
    bessel.__name__ = bessel.__qualname__ = f"bessel_{name}"
    bessel.__doc__ = f"The Bessel function {name} of x, elementwise."
    return bessel


bessel_j0, bessel_j1, bessel_y0, bessel_y1 = (_function(n) for n in ("j0", "j1", "y0", "y1"))
bessel_i0, bessel_i1, bessel_i0e, bessel_i1e = (_function(n) for n in ("i0", "i1", "i0e",
                                                                        "i1e"))
bessel_k0, bessel_k1, bessel_k0e, bessel_k1e = (_function(n) for n in ("k0", "k1", "k0e",
                                                                        "k1e"))
i0 = bessel_i0

__all__ = [f"bessel_{name}" for name in _DERIVATIVES] + ["i0"]
