"""minispore.profiler: where the time of a program goes, op by op and kernel by kernel.

    >>> profiler = ms.Profiler(output_path="./prof")   # starts recording (start_profile=True)
    >>> train(net)                                      # PyNative ops and Graph-mode steps
    >>> profiler.analyse()                              # trace JSON + a top-N table

See `Profiler`.
"""
from .profiler import Profiler

__all__ = ["Profiler"]
