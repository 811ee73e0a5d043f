"""minispore.experimental: MindSpore's experimental namespace (PyTorch-style optimizers).

    >>> import minispore as ms
    >>> opt = ms.experimental.optim.AdamW(ms.nn.Dense(3, 1).trainable_params(), lr=1e-3)
"""
from . import optim  # noqa: F401
