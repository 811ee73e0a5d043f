"""Optimizers: called as `optimizer(grads)`, they update their Parameters in place.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> opt = ms.nn.RMSProp(net.trainable_params(), learning_rate=0.01, centered=True)
"""
from .ada_grad import Adadelta, Adagrad, ProximalAdagrad  # noqa: F401
from .adam import Adam, AdaMax, AdamWeightDecay, LazyAdam  # noqa: F401
from .asgd import ASGD, Rprop  # noqa: F401
from .ftrl import FTRL  # noqa: F401
from .lamb import LARS, Lamb  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .rmsprop import RMSProp  # noqa: F401
from .sgd import SGD, Momentum  # noqa: F401
