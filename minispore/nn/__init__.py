"""minispore.nn: Cell, Parameter, layers, losses, optimizers and training wrappers."""
from .cell import Cell  # noqa: F401
from .parameter import Parameter, ParameterTuple  # noqa: F401
