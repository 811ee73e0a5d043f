"""Matrix multiplication (BLAS: minispore's OpenBLAS on CPU, cuBLAS on GPU; a kernel
boundary for graph fusion)."""
from __future__ import annotations
from typing import Any
import numpy as np

from ..core import blas, cublas
from . import batching as B
from . import functional as F
from . import infer as I
from .primitive import ALL, Aval, OpShapeError, OpTypeError, Primitive, bind
from ..core.hints import Tensor, TensorLike

# Either operand may be used transposed (its last two axes swapped): `transpose_a` /
# `transpose_b`, as MindSpore's MatMul. BLAS takes a transposed operand at no cost, so Graph
# mode folds a transpose feeding a product into these flags (one step fewer per transpose).

def _as_multiplied(shape, transposed):
    return tuple(shape[:-2]) + (shape[-1], shape[-2]) if transposed else tuple(shape)


def _matmul_infer(x, y, transpose_a=False, transpose_b=False):
    if len(x.shape) < 2 or len(y.shape) < 2:
        raise OpShapeError(f"matmul needs inputs of rank >= 2 (ops.matmul handles vectors), got {x.shape} and {y.shape}")
    xs, ys = _as_multiplied(x.shape, transpose_a), _as_multiplied(y.shape, transpose_b)
    if xs[-1] != ys[-2]:
        raise OpShapeError(f"contracted dimensions differ: {xs} @ {ys} ({xs[-1]} != {ys[-2]})")
    if x.dtype != y.dtype:
        raise OpTypeError(f"matmul inputs must have one dtype, got {x.dtype} and {y.dtype}")
    batch = I.broadcast_shapes(xs[:-2], ys[:-2])
    return Aval(batch + (xs[-2], ys[-1]), x.dtype)


def _product_grads(x, y, dout, want_x, want_y, transpose_a, transpose_b):
    """(dx, dy) of op_a(x) @ op_b(y) for cotangent dout, each one product with flags (no
    transpose is materialised), summed over broadcast batch axes; None where not wanted."""
    dx = dy = None
    if want_x:  # d op_a(x) = dout @ op_b(y)^T
        dx = (matmul_flags(y, dout, transpose_b, True) if transpose_a
              else matmul_flags(dout, y, False, not transpose_b))
        dx = F.sum_to(dx, x.shape)
    if want_y:  # d op_b(y) = op_a(x)^T @ dout
        dy = (matmul_flags(dout, x, True, transpose_a) if transpose_b
              else matmul_flags(x, dout, not transpose_a, False))
        dy = F.sum_to(dy, y.shape)
    return dx, dy


def _matmul_bprop(x, y, out, dout, transpose_a=False, transpose_b=False, *, needed=ALL):
    # a layer's input is often data: skip that product (half the backward's BLAS time)
    return _product_grads(x, y, dout, needed[0], needed[1], transpose_a, transpose_b)


def _swapped_lanes(a, dim):
    """(a with its matrix axes swapped, its batch axis): the batch axis moves to the front
    first, so that it is never one of the two swapped."""
    if dim is None:
        return F.swap_last_axes(a), None
    return F.swap_last_axes(B.to_front(a, dim)), 0


def _matmul_batch(prim, args, dims, axis_size, transpose_a=False, transpose_b=False):
    (x, y), (dx, dy) = args, dims
    if transpose_a:  # materialise the transposes, then batch the plain product
        x, dx = _swapped_lanes(x, dx)
    if transpose_b:
        y, dy = _swapped_lanes(y, dy)
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


def _operands(xp, x, y, transpose_a, transpose_b):
    return (xp.swapaxes(x, -1, -2) if transpose_a else x,
            xp.swapaxes(y, -1, -2) if transpose_b else y)


def product(xp: Any, x: Tensor, y: TensorLike) -> Tensor:
    """numpy.matmul(x, y) on the device's BLAS: minispore's OpenBLAS, or cuBLAS (called so
    that a CUDA graph can record it)."""
    return blas.matmul(x, y) if xp is np else cublas.matmul(x, y)


def _matmul_impl(xp, x, y, transpose_a=False, transpose_b=False):
    return product(xp, *_operands(xp, x, y, transpose_a, transpose_b))


def _matmul_into(xp, out, x, y, transpose_a=False, transpose_b=False):
    return blas.matmul_into(*_operands(xp, x, y, transpose_a, transpose_b), out) \
        if xp is np else None


matmul = Primitive("matmul", infer=_matmul_infer, impl=_matmul_impl,
                   bprop=_matmul_bprop, batch=_matmul_batch, into=_matmul_into)


def transpose_attrs(transpose_a: bool, transpose_b: bool) -> dict[str, bool]:
    """The attributes of a matmul/addmm node: only flags that are set, so that a plain product
    has none and equal products always compare equal (CSE)."""
    flags = (("transpose_a", transpose_a), ("transpose_b", transpose_b))
    return {name: True for name, flag in flags if flag}


def matmul_flags(x: Tensor, y: TensorLike, transpose_a: bool, transpose_b: bool) -> Tensor:
    """op_a(x) @ op_b(y) for tensors of rank >= 2 (no dtype promotion: see ops.matmul)."""
    return bind(matmul, x, y, **transpose_attrs(transpose_a, transpose_b))


# ***** addmm: c + alpha * (a @ b), one BLAS call *****
#
# BLAS computes C <- alpha * A @ B + beta * C in one pass over C. Graph mode's passes rewrite
# an update such as SGD's `w - lr * (dz.T @ x)` into this row, saving the pass that reads the
# product back to scale and subtract it (workload 2's first layer: ~50 us of its step).

def _addmm_infer(c, a, b, alpha, transpose_a=False, transpose_b=False):
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise OpShapeError(f"addmm multiplies matrices, got {a.shape} @ {b.shape}")
    a_shape, b_shape = _as_multiplied(a.shape, transpose_a), _as_multiplied(b.shape, transpose_b)
    if a_shape[1] != b_shape[0]:
        raise OpShapeError(f"contracted dimensions differ: {a_shape} @ {b_shape} "
                           f"({a_shape[1]} != {b_shape[0]})")
    out_shape = (a_shape[0], b_shape[1])
    if I.broadcast_shapes(tuple(c.shape), out_shape) != out_shape:
        raise OpShapeError(f"input {c.shape} does not broadcast to the product's {out_shape}")
    if len(alpha.shape) != 0:
        raise OpShapeError(f"alpha must be a scalar, got shape {alpha.shape}")
    if not (c.dtype == a.dtype == b.dtype == alpha.dtype) or a.dtype.kind != "f":
        raise OpTypeError(f"addmm needs one float dtype, got {c.dtype}, {a.dtype}, {b.dtype} "
                          f"and alpha {alpha.dtype}")
    return Aval(out_shape, a.dtype)


def _addmm_impl(xp, c, a, b, alpha, transpose_a=False, transpose_b=False):
    a, b = _operands(xp, a, b, transpose_a, transpose_b)
    if xp is np:
        return blas.addmm(c, a, b, alpha)
    return c + alpha * cublas.matmul(a, b)


def _addmm_in_place(xp, c, a, b, alpha, transpose_a=False, transpose_b=False):
    """The write c += alpha * (op_a(a) @ op_b(b)), BLAS accumulating into c; None off the
    CPU's BLAS."""
    if xp is not np:
        return None
    a, b = _operands(xp, a, b, transpose_a, transpose_b)
    return blas.addmm_into(c, a, b, alpha)


def _addmm_bprop(c, a, b, alpha, out, dout, transpose_a=False, transpose_b=False, *,
                 needed=ALL):
    want_a, want_b = needed[1], needed[2]
    da, db = _product_grads(a, b, F.mul(dout, alpha) if want_a or want_b else None,
                            want_a, want_b, transpose_a, transpose_b)
    product = matmul_flags(a, b, transpose_a, transpose_b) if needed[3] else None
    return (F.sum_to(dout, c.shape) if needed[0] else None, da, db,
            F.sum(F.mul(dout, product)) if product is not None else None)


def _addmm_batch(prim, args, dims, axis_size, transpose_a=False, transpose_b=False):
    # batched, the product is a batched matmul: c and alpha get unit axes to broadcast on it
    c, a, b, alpha = (B.batched_front(x, d, axis_size) for x, d in zip(args, dims))
    c = F.reshape(c, (axis_size,) + (1,) * (3 - c.ndim) + tuple(c.shape[1:]))
    product = matmul_flags(a, b, transpose_a, transpose_b)
    return F.add(c, F.mul(F.reshape(alpha, (axis_size, 1, 1)), product)), 0


addmm = Primitive("addmm", infer=_addmm_infer, impl=_addmm_impl, bprop=_addmm_bprop,
                  batch=_addmm_batch, in_place=_addmm_in_place,
                  doc="c + alpha * (op_a(a) @ op_b(b)) for matrices a, b, c broadcasting to the "
                      "product, alpha a scalar tensor; op_a/op_b transpose where "
                      "transpose_a/transpose_b are set")
