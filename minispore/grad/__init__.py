"""Automatic differentiation: the tape, the one backward engine, and the transforms."""
from .api import GradOperation, grad, jvp, value_and_grad, vjp  # noqa: F401
