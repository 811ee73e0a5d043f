"""`ms.run_check()`: is minispore installed and computing? A multiplication runs eagerly and
compiled (its fused kernel built and run) on the current device and is compared with numpy.

    >>> ms.run_check()                                         # doctest: +SKIP
    MindSpore version: 0.x (minispore)
    The result of multiplication calculation is correct, MindSpore has been installed on platform [CPU] successfully!
"""
import numpy as np

from .compiler.codegen.background import COMPILER
from .context import get_context
from .core.tensor import Tensor
from .graph_mode import jit
from .ops import functional as F
from .version import __version__


def run_check() -> None:
    """Check that eager and compiled computation give numpy's numbers on the current device,
    and print MindSpore's two lines (the first names minispore's version); raise
    RuntimeError naming the mode that does not."""
    print(f"MindSpore version: {__version__} (minispore)")
    x, y = np.array([1.0, 2.0, 3.0], np.float32), np.array([4.0, 5.0, 6.0], np.float32)
    want = x * y + 1.0
    compiled = jit(lambda a, b: F.mul(a, b) + 1.0)
    results = {"eager": F.mul(Tensor(x), Tensor(y)) + 1.0}
    compiled(Tensor(x), Tensor(y))
    COMPILER.wait(60)  # the second call runs the compiled kernel
    results["compiled"] = compiled(Tensor(x), Tensor(y))
    for mode, result in results.items():
        if not np.array_equal(result.asnumpy(), want):
            raise RuntimeError(f"run_check: the {mode} multiplication gave "
                               f"{result.asnumpy().tolist()}, expected {want.tolist()}")
    print("The result of multiplication calculation is correct, MindSpore has been installed "
          f"on platform [{get_context('device_target')}] successfully!")
