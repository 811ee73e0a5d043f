"""Neural-network ops: softmax family now; conv, pooling, normalisation, dropout and losses.

Composites where the composition is exact (softmax, log_softmax, losses); primitives where a
direct kernel matters (conv2d, pooling).
"""
from . import functional as F

__all__ = ["softmax", "log_softmax"]


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis`."""
    # the shift by the max cancels in value and gradient; it only keeps exp in range
    shifted = F.sub(x, F.stop_gradient(F.amax(x, axis, True)))
    e = F.exp(shifted)
    return F.div(e, F.sum(e, axis, True))


def log_softmax(x, axis=-1):
    """x - logsumexp(x) along `axis`."""
    shifted = F.sub(x, F.stop_gradient(F.amax(x, axis, True)))
    return F.sub(shifted, F.log(F.sum(F.exp(shifted), axis, True)))
