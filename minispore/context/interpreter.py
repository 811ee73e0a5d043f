"""The thread-local interpreter stack: who runs a primitive right now.

Every op goes through `ops.primitive.bind`, which hands the primitive to `STATE.interp`:
the eager interpreter runs it at once, the tracer records it into a graph. Modes are
interpreters; nothing below the entry points (`Cell.__call__`, `jit`) branches on the mode.

While a differentiation transform is active (`STATE.recording` > 0), `bind` also hands each
op to `STATE.record`, the tape's recorder. The layers that define them sit above this one,
so they install themselves here: the eager interpreter (`set_default`, by core.eager) and
the tape's recorder (`set_recorder`, by grad.tape).
"""
import threading
from contextlib import contextmanager


class Interpreter:
    """Base class: `process(prim, args, attrs)` returns the primitive's output Tensor(s)."""

    def process(self, prim, args, attrs):
        raise NotImplementedError


_default_interp = None  # the eager interpreter (core.eager installs it)
_recorder = None        # grad.tape.record (grad.tape installs it)


class _State(threading.local):
    def __init__(self):
        self.interp = _default_interp
        self.record = _recorder   # record(prim, args, attrs, out): appends a tape node
        self.recording = 0        # depth of active differentiation transforms (tapes)
        self.trace_stack = []     # active tracers, innermost last


STATE = _State()


def set_recorder(record):
    """Install the tape's recorder, for every thread."""
    global _recorder
    _recorder = record
    STATE.record = record


def set_default(interp):
    """Install the interpreter that every thread starts with."""
    global _default_interp
    _default_interp = interp
    STATE.interp = interp


def current():
    """The interpreter that runs ops in this thread now."""
    return STATE.interp


@contextmanager
def using(interp):
    """Run the body with `interp` as the current interpreter, restoring the previous one."""
    prev = STATE.interp
    STATE.interp = interp
    try:
        yield interp
    finally:
        STATE.interp = prev
