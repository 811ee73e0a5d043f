"""Parallel workers for pipeline steps: tasks run in threads or processes (see
worker_processes.py), results come back in submission order.

A step hands `run_ordered` a *job* (an object with `run(task) -> result`) and an iterator of
tasks (typically a block of rows each). With one worker the job runs inline; with more, a
pool keeps up to `workers * prefetch_size` tasks in flight while the consumer takes results
in order, so the output order never depends on which worker was faster.

A job reports a failure by returning a `Failure` instead of raising: the message and
traceback cross process boundaries as text, and the consumer raises RuntimeError (as
MindSpore does) naming what failed. Worker processes are forked so that the job (lambdas
included) need not be pickled; they ignore Ctrl-C (the consumer shuts them down), exit when
their parent disappears, and are joined, then terminated if need be, whenever the iteration
ends: normally, on an error, on KeyboardInterrupt, or when the consumer stops early.
Task assignment is round-robin (task k goes to worker k % n), as PyTorch's DataLoader does,
so a dead worker identifies the task it died on.
"""
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from . import config
from .failures import Failure
from .worker_processes import ProcessPool


def run_ordered(job, tasks, num_workers, use_processes, what):
    """Yields job.run(task) for every task, in order (Failures raised as RuntimeError).

    Args:
        job: the object whose `run` does the work (inherited by worker processes).
        tasks: an iterable of tasks; read lazily, in the consumer's thread.
        num_workers: 1 runs every task inline.
        use_processes: processes (True) or threads (False) for more than one worker.
        what: the step's name for error messages, e.g. "Dataset.map(Decode, Resize)".
    """
    if num_workers <= 1:
        for task in tasks:
            yield _checked(job.run(task))
        return
    if use_processes:
        pool = ProcessPool(job, num_workers, what)
    else:
        pool = _ThreadPool(job, num_workers)
    try:
        window = num_workers * config.get_prefetch_size()
        pending = 0
        tasks = iter(tasks)
        exhausted = False
        while True:
            while not exhausted and pending < window:
                try:
                    pool.submit(next(tasks))
                    pending += 1
                except StopIteration:
                    exhausted = True
            if pending == 0:
                return
            result = pool.next_result()
            pending -= 1
            yield _checked(result)
    finally:
        pool.close()


def _checked(result):
    if isinstance(result, Failure):
        result.raise_error()
    return result


class _ThreadPool:
    """Workers as threads: for jobs that release the GIL (image decoding, large numpy ops)."""

    def __init__(self, job, num_workers):
        self._job = job
        self._executor = ThreadPoolExecutor(num_workers, thread_name_prefix="minispore-data")
        self._futures = deque()

    def submit(self, task):
        self._futures.append(self._executor.submit(self._job.run, task))

    def next_result(self):
        return self._futures.popleft().result()

    def close(self):
        # running tasks finish (a thread cannot be stopped); queued ones are dropped
        self._executor.shutdown(wait=True, cancel_futures=True)
