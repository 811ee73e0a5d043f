"""Parallel workers for pipeline steps: tasks run in threads or processes, results come back
in submission order.

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
import multiprocessing
import os
import pickle
import queue
import signal
import traceback
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from . import config

# how long a worker waits for a task before checking that its parent is still alive, and how
# long the consumer waits for a result before checking that the worker is still alive
_POLL_S = 0.5
_JOIN_S = 2.0


class Failure:
    """What a job returns instead of raising: a message for the user and the traceback."""

    def __init__(self, message, details="", cause=None):
        self.message = message
        self.details = details
        self.cause = cause  # the exception itself, only when the job ran in this process

    def raise_error(self):
        text = self.message
        if self.cause is None and self.details:
            text += "\n\nTraceback in the worker:\n" + self.details.rstrip()
        raise RuntimeError(text) from self.cause


def failure_from(error, message):
    """A Failure for `error` caught while running a job."""
    return Failure(f"{message}: {type(error).__name__}: {error}", traceback.format_exc(), error)


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
    pool = (_ProcessPool if use_processes else _ThreadPool)(job, num_workers, what)
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

    def __init__(self, job, num_workers, what):
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


class _ProcessPool:
    """Workers as forked processes, one task queue and one result queue each."""

    def __init__(self, job, num_workers, what):
        self._what = what
        context = _process_context()
        self._workers = []
        # every process starts before any queue is used: a queue's feeder thread must not
        # exist yet when the next worker forks
        for i in range(num_workers):
            tasks, results = context.Queue(), context.Queue()
            process = context.Process(target=_worker_main, name=f"minispore-data-{i}",
                                      args=(job, tasks, results, os.getpid()), daemon=True)
            try:
                process.start()
            except Exception as error:  # a spawn context must pickle the job
                self._workers.append((process, tasks, results))
                self.close()
                raise RuntimeError(f"{what}: cannot start worker processes "
                                   f"({context.get_start_method()} start method): {error}; "
                                   f"use python_multiprocessing=False (threads) or picklable "
                                   f"operations") from error
            self._workers.append((process, tasks, results))
        self._submitted = 0
        self._received = 0
        self._descriptions = deque()

    def submit(self, task):
        _, tasks, _ = self._workers[self._submitted % len(self._workers)]
        # pickled here, not in the queue's feeder thread, which would only log a failure
        tasks.put(pickle.dumps(task, pickle.HIGHEST_PROTOCOL))
        self._descriptions.append(getattr(task, "description", f"task {self._submitted}"))
        self._submitted += 1

    def next_result(self):
        index = self._received % len(self._workers)
        process, _, results = self._workers[index]
        description = self._descriptions.popleft()
        self._received += 1
        while True:
            try:
                return pickle.loads(results.get(timeout=_POLL_S))
            except queue.Empty:
                if not process.is_alive():
                    break
        raise RuntimeError(f"{self._what}: worker process {index} (pid {process.pid}) died "
                           f"unexpectedly ({_exit_reason(process.exitcode)}) while working on "
                           f"{description}; the pipeline was shut down")

    def close(self):
        for process, tasks, _ in self._workers:
            if process.is_alive():
                try:
                    tasks.put(None)
                except (OSError, ValueError):
                    pass
        for process, tasks, results in self._workers:
            if process.pid is not None:
                process.join(_JOIN_S)
                if process.is_alive():  # stuck in a task (or in a send nobody reads)
                    process.terminate()
                    process.join(_JOIN_S)
                if process.is_alive():
                    process.kill()
                    process.join()
            for channel in (tasks, results):
                channel.cancel_join_thread()  # never block on data nobody will read
                channel.close()
        self._workers = []


def _process_context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _worker_main(job, tasks, results, parent_pid):
    """A worker process: run tasks until told to stop or orphaned."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the consumer's to handle
    results.cancel_join_thread()  # on exit, do not wait for a consumer that stopped reading
    while True:
        try:
            task = tasks.get(timeout=_POLL_S)
        except queue.Empty:
            if os.getppid() != parent_pid:
                return  # the consumer died without shutting us down
            continue
        if task is None:
            return
        result = job.run(pickle.loads(task))
        if isinstance(result, Failure):
            result.cause = None  # exceptions need not pickle; the text says it all
        try:
            payload = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
        except Exception as error:  # noqa: BLE001  (e.g. an output that cannot pickle)
            failure = failure_from(error, "the worker could not send its result back")
            failure.cause = None
            payload = pickle.dumps(failure)
        results.put(payload)


def _exit_reason(exitcode):
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"
