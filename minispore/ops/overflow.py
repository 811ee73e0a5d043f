"""all_finite: whether every element of every tensor given is finite, in one pass over all
of them. It is the overflow check of mixed-precision training (amp.all_finite, the loss-scale
cells), which reads every gradient of a step: Graph mode runs it as one CPU kernel over all
the gradients (compiler.codegen.cpu_kernels) rather than one reduction kernel per gradient.

    >>> ms.amp.all_finite([ms.Tensor([1.0, 2.0]), ms.Tensor([float("inf")])])
    Tensor(shape=[], dtype=Bool, value= False)
"""
import numpy as np

from . import batching as B
from . import functional as F
from .arguments import as_tensor
from .elementwise import no_grad
from .primitive import Aval, OpTypeError, Primitive, bind

__all__ = ["all_finite"]


def _infer(*xs):
    for x in xs:
        if np.dtype(x.dtype).kind != "f" and np.dtype(x.dtype).name != "bfloat16":
            raise OpTypeError(f"all_finite takes float tensors, got {x}")
    return Aval((), np.dtype(np.bool_))


def _impl(xp, *xs):
    finite = xp.asarray(True)
    for x in xs:  # stays on the device: no host round trip per tensor
        finite = xp.logical_and(finite, xp.isfinite(x).all())
    return finite


def _batch(prim, args, dims, axis_size):
    """Per lane: every element of that lane of every tensor finite."""
    finite = None
    for x, d in zip(args, dims):
        lanes = B.batched_front(x, d, axis_size)
        per_lane = F.reshape(F.isfinite(lanes), (axis_size, -1)).all(axis=1)
        finite = per_lane if finite is None else F.logical_and(finite, per_lane)
    return finite, 0


all_finite_p = Primitive("all_finite", infer=_infer, impl=_impl, bprop=no_grad, batch=_batch,
                         doc="whether every element of every input is finite (one pass)")


def all_finite(*tensors):
    """A bool scalar Tensor: whether every element of every float tensor given is finite
    (no inf, no nan); empty tensors and none at all are finite."""
    tensors = [as_tensor(t) for t in tensors]
    tensors = [t for t in tensors if t.size]
    if not tensors:
        return as_tensor(np.asarray(True))
    return bind(all_finite_p, *tensors)
