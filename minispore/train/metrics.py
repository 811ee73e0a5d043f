"""minispore.train.metrics: the metrics of `minispore.nn.metrics`, under their train path.

    >>> from minispore.train.metrics import Accuracy
    >>> from minispore import nn
    >>> Accuracy is nn.Accuracy
    True
"""
from ..nn.metrics import *  # noqa: F401,F403
from ..nn.metrics import __all__  # noqa: F401
