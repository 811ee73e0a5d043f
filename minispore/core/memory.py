"""Allocator tuning: keep freed tensor memory for reuse instead of returning it to the OS.

Tensors of a training step are large, short-lived and allocated again at the next step.
glibc serves allocations above its mmap threshold (128 KiB, adaptive up to 32 MiB) with
fresh mmaps and unmaps them on free, so every step pays a page fault per 4 KiB of every
intermediate. Measured here on the 14-op chain of benchmarks/ew_fwd (2^20 float32): PyNative
forward 41 ms -> 9.7 ms and its gradient 115 ms -> 35 ms once freed memory is reused, as a
framework's caching allocator would. The cost: the process keeps its peak heap (up to
`_TRIM` of unused memory) instead of returning it. Set MINISPORE_MALLOC_TUNING=0 to opt out.
"""
import ctypes
import ctypes.util
import os
import sys

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3   # glibc mallopt parameter numbers
_MMAP = 1 << 30   # only allocations of 1 GiB and more get their own mmap
_TRIM = 1 << 30   # return heap memory to the OS only past 1 GiB of free space at its top


def tune_allocator():
    """Apply the tuning once (Linux with glibc only); returns whether it was applied."""
    if os.environ.get("MINISPORE_MALLOC_TUNING", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (e.g. musl): nothing to tune
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP)) and bool(mallopt(_M_TRIM_THRESHOLD, _TRIM))
