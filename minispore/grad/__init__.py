"""Automatic differentiation: the tape, the one backward engine, and the transforms.

Importing this package installs the tape's recorder (grad.tape) and adds the transforms to
`minispore.ops`, whose namespace holds them in MindSpore (ops sits below grad).
"""
from .. import ops
from . import tape  # noqa: F401  (installs the recorder)
from .api import GradOperation, get_grad, grad, jvp, value_and_grad, vjp
from .hooks import HookBackward
from .jacobians import hessian, jacfwd, jacrev
from .vmap import vmap

for _transform in (GradOperation, grad, jvp, value_and_grad, vjp, hessian, jacfwd, jacrev, vmap,
                   get_grad, HookBackward):
    setattr(ops, _transform.__name__, _transform)
