"""Worker processes for pipeline steps: forked workers, each fed by its own pipe pair.

Data crosses a pipe as pickle protocol 5 with the numpy buffers out of band: the sender
writes each array's memory straight into the pipe and the receiver reads it into a fresh
buffer the unpickled array then uses, so an image is copied once per crossing instead of
three times (pickle, queue, unpickle) as through multiprocessing.Queue - on a 2-core machine
that copying decided whether worker processes paid at all. Each sending side has a sender
thread, so a worker computes its next block while the previous one is being sent, and the
consumer never blocks on a busy worker's full pipe.

Workers are forked, so the job (lambdas included) is inherited, not pickled; they ignore
Ctrl-C (the consumer shuts them down) and exit when their parent disappears. Shutdown asks
each worker to stop, then terminates (and at last kills) those that do not.
"""
import multiprocessing
import os
import pickle
import queue
import signal
import threading
from collections import deque
from multiprocessing.connection import wait

import numpy as np

from .failures import Failure, failure_from

__all__ = ["ProcessPool"]

# a worker waiting for a task checks this often that its parent is alive; shutdown waits this
# long for a worker to finish its task before terminating it
_POLL_S = 0.5
_JOIN_S = 2.0
_STOP = object()  # tells a sender thread to finish


class _Channel:
    """Objects through one end of a pipe, numpy buffers out of band (see the module)."""

    def __init__(self, connection):
        self.connection = connection

    def send(self, obj):
        buffers = []
        header = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
        raws = [b.raw() for b in buffers]
        self.connection.send_bytes(pickle.dumps((header, [r.nbytes for r in raws])))
        for raw in raws:
            self.connection.send_bytes(raw)

    def recv(self):
        header, sizes = pickle.loads(self.connection.recv_bytes())
        buffers = []
        for size in sizes:
            buffer = bytearray(size)  # writable: the arrays built on it are ordinary arrays
            self.connection.recv_bytes_into(buffer)
            buffers.append(buffer)
        return pickle.loads(header, buffers=buffers)


class _Sender:
    """A thread sending objects through a channel, so the producer never waits on the pipe."""

    def __init__(self, channel, name):
        self._channel = channel
        self._pending = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def put(self, obj):
        self._pending.put(obj)

    def _run(self):
        while True:
            obj = self._pending.get()
            if obj is _STOP:
                return
            try:
                self._channel.send(obj)
            except (BrokenPipeError, ConnectionError, OSError):
                return  # the other side is gone; whoever waits for it will notice
            except Exception as error:  # noqa: BLE001  (an object that cannot pickle)
                failure = failure_from(error, "a result could not be sent between processes")
                failure.cause = None
                self._channel.send(failure)

    def close(self, timeout=None):
        """Send what is queued, then stop the thread (give up after `timeout` seconds)."""
        self._pending.put(_STOP)
        self._thread.join(timeout)


def _contiguous(value):
    """Arrays made contiguous (their buffers then travel out of band), through lists/tuples."""
    if isinstance(value, np.ndarray):
        return value if value.flags.c_contiguous else value.copy(order="C")
    if isinstance(value, (list, tuple)):
        return type(value)(_contiguous(v) for v in value)
    return value


class _Worker:
    """One worker process and the consumer's ends of its two pipes."""

    def __init__(self, process, tasks, results):
        self.process = process
        self.tasks = tasks        # the consumer sends tasks here (through `sender`)
        self.results = results    # and reads results here
        self.sender = None


class ProcessPool:
    """`num_workers` forked workers running `job.run(task)`; task k goes to worker k % n and
    results come back in submission order."""

    def __init__(self, job, num_workers, what):
        self._what = what
        context = _process_context()
        self._workers = []
        for i in range(num_workers):  # every fork before any thread of ours exists
            task_recv, task_send = context.Pipe(duplex=False)
            result_recv, result_send = context.Pipe(duplex=False)
            process = context.Process(target=_worker_main, name=f"minispore-data-{i}",
                                      args=(job, task_recv, result_send, os.getpid()),
                                      daemon=True)
            self._workers.append(_Worker(process, task_send, result_recv))
            try:
                process.start()
            except Exception as error:  # a spawn context must pickle the job
                self.close()
                raise RuntimeError(f"{what}: cannot start worker processes "
                                   f"({context.get_start_method()} start method): {error}; "
                                   f"use python_multiprocessing=False (threads) or picklable "
                                   f"operations") from error
            task_recv.close()
            result_send.close()
        for i, worker in enumerate(self._workers):
            worker.sender = _Sender(_Channel(worker.tasks), f"minispore-data-feeder-{i}")
        self._submitted = 0
        self._received = 0
        self._descriptions = deque()

    def submit(self, task):
        self._workers[self._submitted % len(self._workers)].sender.put(task)
        self._descriptions.append(getattr(task, "description", f"task {self._submitted}"))
        self._submitted += 1

    def next_result(self):
        index = self._received % len(self._workers)
        worker = self._workers[index]
        description = self._descriptions.popleft()
        self._received += 1
        if worker.results in wait([worker.results, worker.process.sentinel]):
            try:
                return _Channel(worker.results).recv()
            except (EOFError, OSError):
                pass  # the pipe closed: the worker died
        worker.process.join(_JOIN_S)  # its exit status may lag its pipes closing by a moment
        raise RuntimeError(f"{self._what}: worker process {index} (pid {worker.process.pid}) "
                           f"died unexpectedly ({_exit_reason(worker.process.exitcode)}) while "
                           f"working on {description}; the pipeline was shut down")

    def close(self):
        # with results still pending (an error, an early stop) nothing the workers do is
        # wanted any more: stop them at once instead of letting them finish their tasks
        graceful = self._received == self._submitted
        for worker in self._workers:
            if worker.process.is_alive():
                if graceful:
                    worker.sender.put(None)  # the worker's signal to stop
                else:
                    worker.process.terminate()
        for worker in self._workers:
            process = worker.process
            if process.pid is not None:
                process.join(_JOIN_S)
                if process.is_alive():  # stuck in a task, or blocked sending a result
                    process.terminate()
                    process.join(_JOIN_S)
                if process.is_alive():
                    process.kill()
                    process.join()
            worker.tasks.close()  # a sender blocked on a dead worker's pipe now fails
            worker.results.close()
            if worker.sender is not None:
                worker.sender.close(_JOIN_S)
        self._workers = []


def _process_context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _worker_main(job, task_connection, result_connection, parent_pid):
    """A worker process: run tasks until told to stop or orphaned."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the consumer's to handle
    tasks = _Channel(task_connection)
    results = _Sender(_Channel(result_connection), "minispore-data-results")
    try:
        while True:
            if not task_connection.poll(_POLL_S):
                if os.getppid() != parent_pid:
                    return  # the consumer died without shutting us down
                continue
            task = tasks.recv()
            if task is None:
                return
            result = job.run(task)
            if isinstance(result, Failure):
                result.cause = None  # exceptions need not pickle; the text says it all
            results.put(_contiguous(result))
    except (EOFError, OSError):
        return  # the consumer closed its end
    finally:
        results.close(timeout=0)  # the consumer has every result it still wants


def _exit_reason(exitcode):
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"
