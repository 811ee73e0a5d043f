"""Optimizers: called as `optimizer(grads)`, they update their Parameters in place."""
from .adam import Adam, AdamWeightDecay  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD, Momentum  # noqa: F401
