"""Matrix multiplication (BLAS through numpy/CuPy; a kernel boundary for graph fusion)."""
from . import functional as F
from . import infer as I
from .primitive import Aval, OpShapeError, OpTypeError, Primitive


def _matmul_infer(x, y):
    if len(x.shape) < 2 or len(y.shape) < 2:
        raise OpShapeError(f"matmul needs inputs of rank >= 2 (ops.matmul handles vectors), got {x.shape} and {y.shape}")
    if x.shape[-1] != y.shape[-2]:
        raise OpShapeError(f"contracted dimensions differ: {x.shape} @ {y.shape} "
                           f"({x.shape[-1]} != {y.shape[-2]})")
    if x.dtype != y.dtype:
        raise OpTypeError(f"matmul inputs must have one dtype, got {x.dtype} and {y.dtype}")
    batch = I.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    return Aval(batch + (x.shape[-2], y.shape[-1]), x.dtype)


def _matmul_bprop(x, y, out, dout):
    dx = F.matmul(dout, F.swap_last_axes(y))
    dy = F.matmul(F.swap_last_axes(x), dout)
    return F.sum_to(dx, x.shape), F.sum_to(dy, y.shape)


matmul = Primitive("matmul", infer=_matmul_infer, impl=lambda xp, x, y: xp.matmul(x, y),
                   bprop=_matmul_bprop)
