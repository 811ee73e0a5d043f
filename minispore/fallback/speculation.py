"""Speculative tracing: code traced whatever a tensor says must not change Python state.

A tensor-conditioned `if` traces both of its branches, and a graph loop traces its body (and
condition) a fixed number of times whatever the number of iterations, so a Python side effect
in them would run on the branch not taken, or once per trace instead of once per iteration.
fallback.convert refuses blocks whose own statements have effects; the user functions such a
block calls are checked here, *before* each one runs: while speculating, a call hook
(sys.settrace, chained to any other) scans the source of each user function at its call
(fallback.effect_scan, counting every object older than the call as state, the trace's own
locals included) and, if it may change state, aborts the speculation by raising from the
hook, before the function's first line. The construct then abandons its conversion and takes
the graph-break path: its condition is read on the host, so Python runs exactly the branch
taken (each iteration), as written, at every call.

Why abort before rather than undo after: an effect may be output, a logging call or an
array write, which no snapshot can take back; a function stopped at its call did nothing.
An abort inside nested speculation (an `if` in a loop body being traced) goes to the
outermost one, whose construct then runs in Python and speculates again for the inner ones.
"""
import linecache
import sys
import threading

from .effect_scan import UserCall, scan
from .state_snapshot import StateSnapshot
from .user_code import is_user_code


class SpeculationAborted(BaseException):
    """Internal: a speculatively traced block would change Python state (`reason` says where).
    A BaseException, so that the user's `except Exception` does not swallow it."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


_local = threading.local()  # (sys.settrace is per thread too)


def speculating():
    """True while some block is being traced speculatively on this thread."""
    return getattr(_local, "depth", 0) > 0


def speculate(fn, *args):
    """fn(*args) traced speculatively: (True, result), or (False, reason) when it would have
    changed Python state (the offending function did not run). Inside an enclosing
    speculation the abort propagates, to be handled by the outermost one."""
    if speculating():
        _local.depth += 1
        try:
            return True, fn(*args)
        finally:
            _local.depth -= 1
    previous = sys.gettrace()
    guard = _Guard(previous)
    _local.depth = 1
    sys.settrace(guard.on_call)
    try:
        result = fn(*args)
    except SpeculationAborted as e:
        return False, e.reason
    finally:
        _local.depth = 0
        sys.settrace(previous)  # (a hook that raised was removed by Python: put it back)
    if guard.reason:  # the abort was swallowed (a bare `except:`); it still stands
        return False, guard.reason
    return True, result


class _Guard:
    def __init__(self, previous):
        self.previous = previous
        self.reason = None

    def on_call(self, frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_name != "<module>" \
                and is_user_code(code.co_filename, frame.f_globals):
            reason = _effect_of(frame)
            if reason:
                self.reason = self.reason or reason
                raise SpeculationAborted(reason)
        previous = self.previous
        return previous(frame, event, arg) if previous is not None else None


def _effect_of(frame):
    """Where the user function starting in `frame` may change state, or None."""
    code = frame.f_code
    try:
        sites = scan(UserCall.of_frame(frame), StateSnapshot())
    except Exception as e:  # noqa: BLE001  (unsure: an effect)
        return f"{code.co_name}() could not be checked for side effects ({type(e).__name__}: {e})"
    if not sites:
        return None
    line = sites[0].line
    source = linecache.getline(code.co_filename, line).strip()
    return f"{sites[0].what} in {code.co_name}() at {code.co_filename}:{line}: {source}"
