"""`set_context(num_threads=N)`: how many threads BLAS (numpy's and scipy's OpenBLAS, which
matmul and numba's np.dot call) and numba's parallel loops use. None keeps the libraries'
own defaults (their environment variables: OPENBLAS_NUM_THREADS, NUMBA_NUM_THREADS...).
The environment variable MINISPORE_NUM_THREADS sets it at import. A number also goes into
the variables that libraries loaded later read (OPENBLAS_NUM_THREADS...); None leaves them.
"""
import os
import sys

# read by BLAS libraries loaded later. Not NUMBA_NUM_THREADS: numba re-reads it at every
# compile and refuses a value other than the one its thread pool was launched with
_LOAD_TIME_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_limits = None  # threadpoolctl's record of the original limits, once changed
_saved_environment = None  # the variables' values before the first change


def check(value):
    """A positive int or None, else a ValueError naming the option."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"set_context: num_threads must be a positive int or None, got {value!r}")


def apply(value):
    """Limit the thread pools to `value` threads (None: back to how they were)."""
    global _limits, _saved_environment
    from threadpoolctl import threadpool_limits
    if value is None:
        if _limits is not None:
            _limits.restore_original_limits()
            _limits = None
    else:
        limits = threadpool_limits(limits=value)
        if _limits is None:  # the first change remembers the libraries' own settings
            _limits = limits
    if value is not None:  # libraries loaded later (scipy's BLAS) read these
        if _saved_environment is None:
            _saved_environment = {name: os.environ.get(name) for name in _LOAD_TIME_VARIABLES}
        for name in _LOAD_TIME_VARIABLES:
            os.environ[name] = str(value)
    elif _saved_environment is not None:  # back to how they were
        for name, old in _saved_environment.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old
        _saved_environment = None
    numba = sys.modules.get("numba")  # imported when the first kernel compiles
    if numba is not None:
        numba.set_num_threads(min(value or numba.config.NUMBA_NUM_THREADS,
                                  numba.config.NUMBA_NUM_THREADS))


def from_environment():
    """MINISPORE_NUM_THREADS as an int, or None when unset."""
    value = os.environ.get("MINISPORE_NUM_THREADS")
    if not value:
        return None
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or number < 1:
        raise ValueError(f"MINISPORE_NUM_THREADS must be a positive int, got {value!r}")
    return number
