"""Automatic differentiation: the tape, the one backward engine, and the transforms."""
from .api import GradOperation, grad, jvp, value_and_grad, vjp  # noqa: F401
from .vmap import vmap  # noqa: F401
from .jacobians import hessian, jacfwd, jacrev  # noqa: F401
