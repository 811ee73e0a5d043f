"""minispore.experimental.optim: PyTorch-style optimizers and lr_scheduler (MindSpore's).

    >>> import minispore as ms
    >>> from minispore.experimental import optim
    >>> opt = optim.Adam(ms.nn.Dense(3, 1).trainable_params(), lr=1e-3)
    >>> scheduler = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
"""
from . import lr_scheduler  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
