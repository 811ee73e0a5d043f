"""`ms.Profiler`: MindSpore's profiling API over minispore's two execution paths.

PyNative ops are timed by an interpreter that wraps the eager one while the profiler records
(so an unprofiled program runs exactly the code it always runs); Graph-mode programs report
each run and each step (fused kernel, BLAS call, loop, primitive) through
`context.profiling`. Every event carries the user's file:line.
"""
import os
import time
import weakref
from typing import Any

import numpy as np

from ..compiler.executor import Program
from ..context import device, interpreter, profiling
from ..core.eager import EAGER
from ..core.source import user_frame_summary
from .events import Event, EventLog, chrome_trace, statistics, top_table, write_json

TRACE_FILE = "minispore_trace.json"


class Profiler:
    """Record where a program's time goes; write a Chrome/Perfetto trace and a summary.

    Args:
        output_path: folder for the trace (``<output_path>/minispore_trace.json``).
        op_time: record op and kernel times (MindSpore's switch; False records nothing).
        start_profile: start recording now (else call ``start()``).
        **kwargs: MindSpore's Ascend-specific options (profile_memory, aicore_metrics, ...)
            are accepted and have no effect here.

    Example:
        >>> with ms.Profiler(output_path="./prof") as prof:
        ...     loss = train_step(data, label)
        >>> prof.events[0].name, prof.events[0].source   # ('matmul', 'train.py:12: ...')
    """

    def __init__(self, output_path: str = "./data", op_time: bool = True,
                 start_profile: bool = True, **kwargs: Any) -> None:
        self.output_path = os.path.abspath(output_path)
        self.op_time = op_time
        self.log = EventLog()
        self.origin_ns: int | None = None
        self._running = False
        self._previous_interp = None
        # Program -> its steps with timed functions
        self._timed: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._sync = _synchronizer()
        if start_profile:
            self.start()

    @property
    def events(self) -> list:
        return self.log.events

    # ----- start / stop -----
    def start(self) -> None:
        """Start recording. RuntimeError if this or another profiler already records."""
        if self._running or profiling.active is not None:
            raise RuntimeError("Profiler.start: a profiler is already recording; stop it first")
        if self.origin_ns is None:
            self.origin_ns = time.perf_counter_ns()
        self._running = True
        if not self.op_time:
            return
        profiling.install(self)
        self._previous_interp = interpreter.STATE.interp
        if self._previous_interp is EAGER:
            interpreter.set_default(_TimedEager(self))

    def stop(self) -> None:
        """Stop recording. RuntimeError if it is not recording."""
        if not self._running:
            raise RuntimeError("Profiler.stop: the profiler is not recording")
        self._running = False
        if not self.op_time:
            return
        profiling.install(None)
        if isinstance(interpreter.STATE.interp, _TimedEager):
            interpreter.set_default(self._previous_interp)

    def __enter__(self):
        if not self._running:
            self.start()
        return self

    def __exit__(self, *exc):
        if self._running:
            self.stop()
        self.analyse()
        return False

    # ----- results -----
    def analyse(self, top: int = 20) -> str:
        """Stop if recording, write the trace JSON, print and return the top-`top` table."""
        if self._running:
            self.stop()
        write_json(chrome_trace(self.events, self.origin_ns or 0), self.trace_path)
        table = top_table(self.events, top)
        print(f"minispore profile ({len(self.events)} events; trace: {self.trace_path})")
        print(table)
        return table

    @property
    def trace_path(self) -> str:
        return os.path.join(self.output_path, TRACE_FILE)

    def op_analyse(self, op_name, device_id=None) -> dict:
        """{name: {"calls", "total_us", "mean_us"}} of the named op(s) (str or list)."""
        names = [op_name] if isinstance(op_name, str) else op_name
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            raise TypeError(f"Profiler.op_analyse: op_name must be a str or a list of str, "
                            f"got {op_name!r}")
        stats = statistics(e for e in self.events if e.name in names and e.category != "graph")
        return {name: {"calls": calls, "total_us": ns / 1e3, "mean_us": ns / calls / 1e3}
                for (_, name), (calls, ns) in stats.items()}

    # ----- recording (called by the timed interpreter and by compiled programs) -----
    def record(self, name, category, start_ns, shapes, source):
        self._sync()
        end = time.perf_counter_ns()
        self.log.add(Event(name, category, start_ns, end - start_ns, self.log.thread_id(),
                           shapes, source))

    def run_program(self, program: Program, inputs) -> list:
        """Run a compiled program with each of its steps timed, and the run as a whole."""
        steps = self._timed.get(program)
        if steps is None:  # timed copies of its steps, made once per program
            steps = self._timed[program] = [step.calling(_timed_step(self, step))
                                            for step in program.plain_steps]
        start = time.perf_counter_ns()
        outs = program.run_steps(inputs, steps)
        self.record(f"graph ({len(steps)} steps)", "graph", start, _shapes(inputs),
                    user_frame_summary())
        return outs


class _TimedEager(interpreter.Interpreter):
    """The eager interpreter, timing each op."""

    def __init__(self, profiler):
        self.profiler = profiler

    def process(self, prim, args, attrs):
        start = time.perf_counter_ns()
        out = EAGER.process(prim, args, attrs)
        self.profiler.record(prim.name, "op", start, _shapes(args), user_frame_summary())
        return out


def _timed_step(profiler, step):
    fn, label = step.fn, step.label
    source = step.nodes[0].loc if step.nodes else ""

    def timed(xp, *inputs, **attrs):
        start = time.perf_counter_ns()
        out = fn(xp, *inputs, **attrs)
        profiler.record(label, "kernel", start, _shapes(inputs), source)
        return out
    return timed


def _shapes(values):
    return " ".join(str(tuple(getattr(v, "shape", ()))) for v in values)


def _synchronizer():
    """On a GPU, wait for the device before reading the clock (kernels run asynchronously)."""
    if device.xp() is np:
        return lambda: None
    import cupy  # only on GPU
    return cupy.cuda.get_current_stream().synchronize
