"""Matrix multiplication (BLAS: minispore's OpenBLAS on CPU, cuBLAS through CuPy; a kernel
boundary for graph fusion)."""
import numpy as np

from ..grad.backward import needs_input_grad
from ..runtime import blas
from . import batching as B
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
    # a layer's input is often data: skip that product (half the backward's BLAS time)
    dx = F.sum_to(F.matmul(dout, F.swap_last_axes(y)), x.shape) if needs_input_grad(0) else None
    dy = F.sum_to(F.matmul(F.swap_last_axes(x), dout), y.shape) if needs_input_grad(1) else None
    return dx, dy


def _matmul_batch(prim, args, dims, axis_size):
    (x, y), (dx, dy) = args, dims
    if dy is None and B.ndim(y) == 2:  # the batch joins x's rows: one BLAS call
        x = B.to_front(x, dx)
        rows = F.reshape(x, (-1, x.shape[-1]))
        return F.reshape(prim(rows, y), tuple(x.shape[:-1]) + (y.shape[-1],)), 0
    if dx is None and B.ndim(x) == 2:  # the batch joins y's columns
        y = B.move_axis(y, dy, B.ndim(y) - 2)  # (..., k, B, m)
        shape = tuple(y.shape)
        out = prim(x, F.reshape(y, shape[:-2] + (shape[-2] * shape[-1],)))
        return F.reshape(out, shape[:-3] + (x.shape[0],) + shape[-2:]), B.ndim(y) - 2
    # otherwise batched matmul: the batch axis joins the broadcast batch dimensions
    rank = max(B.lane_ndim(x, dx), B.lane_ndim(y, dy))
    x, y = (a if d is None else B.with_lane_rank(B.to_front(a, d), rank)
            for a, d in ((x, dx), (y, dy)))
    return prim(x, y), 0


def _matmul_impl(xp, x, y):
    return blas.matmul(x, y) if xp is np else xp.matmul(x, y)


matmul = Primitive("matmul", infer=_matmul_infer, impl=_matmul_impl,
                   bprop=_matmul_bprop, batch=_matmul_batch)


# ***** addmm: c + alpha * (a @ b), one BLAS call *****
#
# BLAS computes C <- alpha * A @ B + beta * C in one pass over C. Graph mode's passes rewrite
# an update such as SGD's `w - lr * (dz.T @ x)` into this row, saving the pass that reads the
# product back to scale and subtract it (workload 2's first layer: ~50 us of its step).

def _addmm_infer(c, a, b, alpha):
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise OpShapeError(f"addmm multiplies matrices, got {a.shape} @ {b.shape}")
    if a.shape[1] != b.shape[0]:
        raise OpShapeError(f"contracted dimensions differ: {a.shape} @ {b.shape} "
                           f"({a.shape[1]} != {b.shape[0]})")
    out_shape = (a.shape[0], b.shape[1])
    if I.broadcast_shapes(tuple(c.shape), out_shape) != out_shape:
        raise OpShapeError(f"input {c.shape} does not broadcast to the product's {out_shape}")
    if len(alpha.shape) != 0:
        raise OpShapeError(f"alpha must be a scalar, got shape {alpha.shape}")
    if not (c.dtype == a.dtype == b.dtype == alpha.dtype) or a.dtype.kind != "f":
        raise OpTypeError(f"addmm needs one float dtype, got {c.dtype}, {a.dtype}, {b.dtype} "
                          f"and alpha {alpha.dtype}")
    return Aval(out_shape, a.dtype)


def _addmm_impl(xp, c, a, b, alpha):
    if xp is np:
        return blas.addmm(c, a, b, alpha)
    return c + alpha * xp.matmul(a, b)


def _addmm_bprop(c, a, b, alpha, out, dout):
    scaled = F.mul(dout, alpha) if needs_input_grad(1) or needs_input_grad(2) else None
    return (F.sum_to(dout, c.shape) if needs_input_grad(0) else None,
            F.matmul(scaled, F.swap_last_axes(b)) if needs_input_grad(1) else None,
            F.matmul(F.swap_last_axes(a), scaled) if needs_input_grad(2) else None,
            F.sum(F.mul(dout, F.matmul(a, b))) if needs_input_grad(3) else None)


def _addmm_batch(prim, args, dims, axis_size):
    # batched, the product is a batched matmul: c and alpha get unit axes to broadcast on it
    c, a, b, alpha = (B.batched_front(x, d, axis_size) for x, d in zip(args, dims))
    c = F.reshape(c, (axis_size,) + (1,) * (3 - c.ndim) + tuple(c.shape[1:]))
    return F.add(c, F.mul(F.reshape(alpha, (axis_size, 1, 1)), F.matmul(a, b))), 0


addmm = Primitive("addmm", infer=_addmm_infer, impl=_addmm_impl, bprop=_addmm_bprop,
                  batch=_addmm_batch,
                  doc="c + alpha * (a @ b) for matrices a, b, c broadcasting to the product, "
                      "alpha a scalar tensor")
