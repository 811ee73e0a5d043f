"""minispore.common: initializers and the global seed (MindSpore's `mindspore.common`).

    >>> import minispore as ms
    >>> from minispore.common.initializer import initializer
    >>> ms.set_seed(0)
    >>> initializer("zeros", (2,)).asnumpy()
    array([0., 0.], dtype=float32)
"""
from ..core import dtype  # noqa: F401
from ..core.tensor import Tensor  # noqa: F401
from . import initializer  # noqa: F401
from .seed import get_seed, set_seed  # noqa: F401
