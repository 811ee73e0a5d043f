"""einsum: one primitive over an explicit equation ("ij,jk->ik"); numpy/CuPy's einsum
(with contraction-order optimisation, so products run on BLAS) computes it.

The gradient of operand k is itself an einsum: the output's cotangent contracted with the
other operands, written out with operand k's subscripts. Two cases need more: a letter
repeated in operand k (a diagonal, "ii->i") is written once and an identity matrix restores
the repeat; a letter found nowhere else (summed out of operand k alone) is missing from
that einsum, so its axis is broadcast back afterwards.

    >>> a = ms.Tensor(np.arange(6.0).reshape(2, 3))
    >>> ops.einsum("ij->j", a)
    Tensor(shape=[3], dtype=Float64, value= [ 3.00000000e+00,  5.00000000e+00,  7.00000000e+00])
"""
from __future__ import annotations
from typing import Any
import string

import numpy as np

from ..core.dtype import promote_np
from ..core.tensor import Tensor
from . import batching as B
from . import functional as F
from .arguments import as_tensor, op_error
from .primitive import Aval, OpShapeError, OpTypeError, Primitive

__all__ = ["einsum"]

_LETTERS = string.ascii_letters


def normalize_equation(equation, ranks):
    """The equation with explicit output and each '...' spelled as letters, e.g.
    ('...i,...i', ranks (3, 2)) -> 'ABi,Bi->ABi' (broadcast axes right-aligned)."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    subs = inputs.split(",")
    if len(subs) != len(ranks):
        raise ValueError(f"ops.einsum: the equation {equation!r} names {len(subs)} operands, "
                         f"got {len(ranks)}")
    free = [c for c in _LETTERS if c not in equation]
    widest = max((r - (len(s) - 3) for s, r in zip(subs, ranks) if "..." in s), default=0)
    ellipsis = "".join(free[:widest])
    spelled = []
    for s, rank in zip(subs, ranks):
        if "..." in s:
            s = s.replace("...", ellipsis[widest - (rank - (len(s) - 3)):])
        if len(s) != rank:
            raise ValueError(f"ops.einsum: subscripts {s!r} do not match an operand of rank {rank}")
        spelled.append(s)
    if arrow:
        output = output.replace("...", ellipsis)
    else:
        letters = "".join(spelled)
        output = ellipsis + "".join(sorted(c for c in set(letters) - set(ellipsis)
                                           if letters.count(c) == 1))
    return ",".join(spelled) + "->" + output


def _einsum_infer(*operands, equation):
    inputs, output = equation.split("->")
    sizes = {}
    for sub, aval in zip(inputs.split(","), operands):
        for letter, size in zip(sub, aval.shape):
            if sizes.get(letter, 1) not in (1, size) and size != 1:
                raise OpShapeError(f"subscript {letter!r} has sizes {sizes[letter]} and {size}")
            sizes[letter] = max(sizes.get(letter, 1), size)
    if len({a.dtype for a in operands}) > 1:
        raise OpTypeError(f"einsum operands must have one dtype, got "
                          f"{', '.join(str(a.dtype) for a in operands)}")
    return Aval(tuple(sizes[c] for c in output), operands[0].dtype)


def _einsum_impl(xp, *operands, equation):
    return xp.einsum(equation, *operands, optimize=True)  # BLAS for the contractions


def _operand_grad(k, subs, output, operands, dout):
    """d/d operands[k] of sum(einsum * dout), an einsum with operand k's subscripts."""
    x, sub = operands[k], subs[k]
    others = [(s, t) for j, (s, t) in enumerate(zip(subs, operands)) if j != k]
    free = iter(c for c in _LETTERS if c not in "".join(subs) + output)
    terms, written, seen = [(output, dout)] + others, [], set()
    for pos, letter in enumerate(sub):
        if letter in seen:  # a repeat: a fresh letter, tied to the first by an identity
            fresh = next(free)
            terms.append((letter + fresh, Tensor(np.eye(x.shape[pos], dtype=x._data.dtype))))
            written.append(fresh)
        else:
            seen.add(letter)
            written.append(letter)
    provided = set("".join(s for s, _ in terms))
    kept = [c for c in written if c in provided]
    equation = ",".join(s for s, _ in terms) + "->" + "".join(kept)
    grad = einsum_p(*(t for _, t in terms), equation=equation)
    # letters summed out of operand k alone: broadcast back along their axes
    sizes = dict(zip(kept, grad.shape))
    grad = F.reshape(grad, tuple(sizes.get(c, 1) for c in written))
    full = tuple(sizes.get(c, x.shape[p]) for p, c in enumerate(written))
    return F.sum_to(F.broadcast_to(grad, full), x.shape)


def _einsum_bprop(*args, equation):
    operands, dout = args[:-2], args[-1]
    inputs, output = equation.split("->")
    subs = inputs.split(",")
    return tuple(_operand_grad(k, subs, output, operands, dout) for k in range(len(operands)))


def _einsum_batch(prim, args, dims, axis_size, equation):
    """A fresh letter for the batch axis, first in every batched operand and the output."""
    inputs, output = equation.split("->")
    batch = next(c for c in _LETTERS if c not in equation)
    subs = [batch + s if d is not None else s for s, d in zip(inputs.split(","), dims)]
    operands = [B.to_front(a, d) for a, d in zip(args, dims)]
    return prim(*operands, equation=",".join(subs) + "->" + batch + output), 0


einsum_p = Primitive("einsum", infer=_einsum_infer, impl=_einsum_impl, bprop=_einsum_bprop,
                     batch=_einsum_batch,
                     doc="Einstein summation over an explicit equation ('ij,jk->ik')")


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation: ``ops.einsum("bij,bjk->bik", x, y)`` is a batched matmul;
    '...' stands for broadcast axes, and without '->' the output has the letters that
    occur once, sorted."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    tensors = [as_tensor(t) for t in operands]
    dtype = tensors[0]._data.dtype
    for t in tensors[1:]:
        dtype = promote_np(dtype, t._data.dtype)
    tensors = [F.cast(t, dtype) for t in tensors]
    try:
        equation = normalize_equation(equation, [t.ndim for t in tensors])
    except ValueError as e:
        raise op_error("einsum", tensors, str(e), OpShapeError) from None
    return einsum_p(*tensors, equation=equation)
