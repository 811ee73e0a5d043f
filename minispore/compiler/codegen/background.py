"""The background compiler: numba kernels compile on one thread, in submission order, while a
program's first calls run through numpy (numba_cpu's tiered steps), so a first call is never
slow. `COMPILER.wait()` blocks until every submitted kernel is compiled (tests and benchmarks).

Each kernel's machine code reaches numba's disk cache as soon as that kernel is compiled. A
short script that ends while kernels are still compiling would lose them (the thread is a
daemon: it must not keep a finished program alive), and its next run would compile them from
scratch again: so at exit the compiler goes on for a bounded time,
MINISPORE_EXIT_COMPILE_SECONDS (default 5; 0 leaves at once), and what it finishes is cached.
"""
import atexit
import os
import threading
import time

from ...core import blas

_EXIT_SECONDS = 5.0


def exit_compile_seconds():
    """How long an ending program lets queued kernels finish compiling (and be cached)."""
    value = os.environ.get("MINISPORE_EXIT_COMPILE_SECONDS")
    try:
        return _EXIT_SECONDS if value is None else max(0.0, float(value))
    except ValueError:
        return _EXIT_SECONDS


class Compiler:
    """Compiles GroupSteps on one background thread, in submission order."""

    def __init__(self):
        self._queue = []
        self._busy = False
        self._cv = threading.Condition()
        self._thread = None

    def submit(self, step):
        with self._cv:
            self._queue.append(step)
            self._cv.notify()
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="minispore-numba", daemon=True)
                self._thread.start()

    def _work(self):
        while True:
            with self._cv:
                while not self._queue:
                    blas.compiler_running(False)
                    self._cv.wait()
                step = self._queue.pop(0)
                self._busy = True
            blas.compiler_running(True)  # GEMMs leave this thread a core (core.blas)
            try:
                step.compile()
            finally:
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()

    def wait(self, timeout=None):
        """Block until every submitted kernel is compiled (tests and benchmarks use this), or
        `timeout` seconds have passed; True when nothing is left to compile."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cv:
            while self._queue or self._busy:
                if deadline is not None and time.monotonic() >= deadline:
                    return False
                self._cv.wait(0.01)
            return True

    def pending(self):
        """How many submitted kernels are not compiled yet."""
        with self._cv:
            return len(self._queue) + self._busy

    def finish_at_exit(self):
        """Let queued kernels compile for at most exit_compile_seconds(); those left are
        dropped (the next run compiles them)."""
        if self._thread is None:
            return
        if not self.wait(exit_compile_seconds()):
            with self._cv:
                self._queue.clear()


COMPILER = Compiler()
atexit.register(COMPILER.finish_at_exit)
