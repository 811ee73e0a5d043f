"""Where compiled artifacts live: $MINISPORE_CACHE_DIR, default ~/.cache/minispore.

Generated kernel modules and numba's machine code for them (cache=True writes next to the
module) are kept there, so a second process loads code instead of compiling it.
"""
import os
import shutil


def path():
    """The cache directory (not created until something is written)."""
    return os.environ.get("MINISPORE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "minispore")


def clear():
    """Delete every cached kernel (they are rebuilt on demand)."""
    shutil.rmtree(path(), ignore_errors=True)
