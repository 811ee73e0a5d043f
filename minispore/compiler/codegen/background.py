"""The background compiler: numba kernels compile on one thread, in submission order, while a
program's first calls run through numpy (numba_cpu's tiered steps), so a first call is never
slow. `COMPILER.wait()` blocks until every submitted kernel is compiled (tests and benchmarks).
"""
import threading


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
                    self._cv.wait()
                step = self._queue.pop(0)
                self._busy = True
            try:
                step.compile()
            finally:
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()

    def wait(self):
        """Block until every submitted kernel is compiled (tests and benchmarks use this)."""
        with self._cv:
            while self._queue or self._busy:
                self._cv.wait(0.01)


COMPILER = Compiler()
