"""Argument handling shared by the user-facing nn functions (conv2d, pooling, normalisation,
losses...): array-likes as Tensors, and bad input as an OpError in the standard form."""
from ..core.tensor import Tensor
from .primitive import OpShapeError, aval_of, with_context


def op_error(op, inputs, message, error=OpShapeError):
    """An OpError for a user-facing composite: names the op, its inputs and the user's line."""
    return error(with_context(op, [aval_of(t) for t in inputs], {}, message))


def as_tensor(x):
    """x as a Tensor (array-likes and Python numbers are wrapped)."""
    return x if isinstance(x, Tensor) else Tensor(x)
