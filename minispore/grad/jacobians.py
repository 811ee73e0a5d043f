"""Jacobians and Hessians: jacrev (vjp + vmap), jacfwd (jvp + vmap), hessian.

Each is one linearisation of fn and one batched pass over the rows (jacrev) or columns
(jacfwd) of an identity matrix: the basis vectors are a vmapped axis, so the Jacobian of a
function with N inputs costs one batched backward pass, not N.

Layout (MindSpore's, as JAX's): the Jacobian of an output of shape O with respect to an input
of shape I has shape O + I. With several outputs (a tuple, or nested tuples/lists/dicts) the
result has the outputs' structure; with a tuple grad_position each entry is a tuple with one
Jacobian per differentiated input. With has_aux, fn returns (output, aux...) and the result
is (jacobian, aux) where only the first output is differentiated.

    >>> import minispore as ms
    >>> ms.jacrev(lambda x: x * x)(ms.Tensor([1.0, 2.0]))
    Tensor(shape=[2, 2], dtype=Float32, value=
    [[ 2.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  4.00000000e+00]])
"""
from typing import Any, Callable, Union

import numpy as np

from ..context import device
from ..context.interpreter import STATE
from ..core.pytree import flatten, unflatten
from ..core.tensor import Tensor
from ..ops import functional as F
from . import tape
from .api import _api_error, _one_or_tuple, _positions, _split_aux, _vjp
from .backward import backward
from .vmap import vmap


def jacrev(fn: Callable[..., Any], grad_position: Union[int, tuple[int, ...]] = 0,
           has_aux: bool = False) -> Callable[..., Any]:
    """The Jacobian of fn by reverse mode: one vjp, vmapped over the rows of the identity.
    Cheaper than jacfwd when fn has fewer outputs than inputs. See the module docstring for
    the layout of the result.

    >>> import minispore as ms
    >>> ms.jacrev(lambda x, y: x * y, grad_position=(0, 1))(ms.Tensor(2.0), ms.Tensor(3.0))
    (Tensor(shape=[], dtype=Float32, value= 3), Tensor(shape=[], dtype=Float32, value= 2))
    """
    _check_arguments("jacrev", grad_position, has_aux)

    def jacobian_fn(*args):
        positions = _positions(grad_position, len(args), "jacrev")
        out, pullback = _vjp(fn, args, positions, None, reusable=True)
        roots, structure, aux = _differentiated_outputs(out, has_aux, "jacrev")
        # row r of the stacked identity is the cotangent picking output element r
        basis = _identity_blocks([r.shape for r in roots], [r._data.dtype for r in roots])
        rows = vmap(lambda *cotangents: pullback(roots, cotangents)[0])(*basis)
        # rows[p]: (total output size,) + input shape; cut it into one block per output
        jacobians, start = [], 0
        for r in roots:
            size = _size(r.shape)
            jacobians.append([_block(rows[p], start, size, tuple(r.shape), prefix_axes=True)
                              for p in range(len(positions))])
            start += size
        return _finish(jacobians, structure, grad_position, aux, has_aux)

    return jacobian_fn


def jacfwd(fn: Callable[..., Any], grad_position: Union[int, tuple[int, ...]] = 0,
           has_aux: bool = False) -> Callable[..., Any]:
    """The Jacobian of fn by forward mode: one linearisation, vmapped over the columns of the
    identity (the tangents). Cheaper than jacrev when fn has more outputs than inputs.

    >>> import minispore as ms
    >>> ms.jacfwd(lambda x: ms.ops.stack([x, x * x]))(ms.Tensor(3.0))
    Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  6.00000000e+00])
    """
    _check_arguments("jacfwd", grad_position, has_aux)

    def jacobian_fn(*args):
        positions = _positions(grad_position, len(args), "jacfwd")
        with tape.recording():
            out, pullback = _vjp(fn, args, positions, None, reusable=True)
            roots, structure, aux = _differentiated_outputs(out, has_aux, "jacfwd")
            # J^T u, recorded: it is linear in u, so its vjp along a tangent t is J t
            dummies = [tape.watch(_zeros(r.shape, r._data.dtype)) for r in roots]
            transposed = list(pullback(roots, dummies)[0])
        inputs = [args[p] for p in positions]
        basis = _identity_blocks([x.shape for x in inputs], [x._data.dtype for x in inputs])

        def push(*tangents):
            outs = backward(transposed, list(tangents), dummies, free=False)
            return tuple(_zeros(r.shape, r._data.dtype) if o is None else o
                         for o, r in zip(outs, roots))

        columns = vmap(push)(*basis)  # columns[k]: (total input size,) + output k's shape
        jacobians = []
        for k, r in enumerate(roots):
            blocks, start = [], 0
            for x in inputs:
                size = _size(x.shape)
                blocks.append(_block(columns[k], start, size, tuple(x.shape), prefix_axes=False))
                start += size
            jacobians.append(blocks)
        return _finish(jacobians, structure, grad_position, aux, has_aux)

    return jacobian_fn


def hessian(fn: Callable[..., Any], grad_position: Union[int, tuple[int, ...]] = 0,
            has_aux: bool = False) -> Callable[..., Any]:
    """The Hessian of a scalar fn: jacfwd of jacrev (forward over reverse). Shape: input shape
    + input shape; with a tuple grad_position, H[i][j] holds d2 fn / dx_i dx_j.

    >>> import minispore as ms
    >>> ms.hessian(lambda x: (x ** 3).sum())(ms.Tensor([1.0, 2.0]))
    Tensor(shape=[2, 2], dtype=Float32, value=
    [[ 6.00000000e+00,  0.00000000e+00],
     [ 0.00000000e+00,  1.20000000e+01]])
    """
    _check_arguments("hessian", grad_position, has_aux)
    return jacfwd(jacrev(fn, grad_position, has_aux), grad_position, has_aux)


# ***** helpers *****

def _check_arguments(api, grad_position, has_aux):
    positions = grad_position if isinstance(grad_position, tuple) else (grad_position,)
    if not positions or not all(isinstance(p, int) and not isinstance(p, bool)
                                for p in positions):
        raise _api_error(TypeError, api, f"grad_position must be an int or a non-empty tuple of "
                         f"ints, got {grad_position!r}")
    if not isinstance(has_aux, bool):
        raise _api_error(TypeError, api, f"has_aux must be a bool, got {has_aux!r}")


def _differentiated_outputs(out, has_aux, api):
    """(output tensors to differentiate, their structure, aux) of fn's result."""
    if has_aux:
        differentiated, aux = _split_aux(out, True, api)
        differentiated = differentiated[0]
    else:
        differentiated, aux = out, ()
    roots, structure = flatten(differentiated, lambda x: isinstance(x, Tensor))
    if not roots:
        raise _api_error(TypeError, api, f"fn must return Tensors to differentiate, got "
                         f"{type(differentiated).__name__}")
    for r in roots:
        if r.dtype.kind != "f":
            raise _api_error(TypeError, api, f"can only differentiate float outputs, got {r.dtype}")
    return roots, structure, aux


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _zeros(shape, dtype):
    return Tensor._wrap(device.xp().zeros(tuple(shape), dtype))


def _identity_blocks(shapes, dtypes):
    """The rows of the identity of size sum(sizes), cut into one block per shape: block i
    has shape (total,) + shapes[i] (a constant: no op records it)."""
    total = sum(_size(s) for s in shapes)
    eye = np.eye(total)
    blocks, start = [], 0
    for shape, dtype in zip(shapes, dtypes):
        size = _size(shape)
        block = eye[:, start:start + size].reshape((total,) + tuple(shape)).astype(dtype)
        blocks.append(Tensor._wrap(device.xp().asarray(block)))
        start += size
    return blocks


def _block(stacked, start, size, shape, prefix_axes):
    """Rows start..start+size of stacked ((total,) + other) as a Jacobian block: shape +
    other if prefix_axes (jacrev: the rows are output elements), else other + shape."""
    rows = F.slice_axis(stacked, 0, start, start + size) if size != stacked.shape[0] else stacked
    other = tuple(stacked.shape[1:])
    if prefix_axes:
        return F.reshape(rows, shape + other)
    moved = F.transpose(rows, tuple(range(1, len(other) + 1)) + (0,)) if other else rows
    return F.reshape(moved, other + shape)


def _finish(jacobians, structure, grad_position, aux, has_aux):
    per_output = [blocks[0] if isinstance(grad_position, int) else tuple(blocks)
                  for blocks in jacobians]
    result = unflatten(structure, per_output)
    if STATE.recording == 0:
        tape.detach((result, aux))  # nothing outside records: drop the forward's tape
    return (result, _one_or_tuple(aux)) if has_aux else result
