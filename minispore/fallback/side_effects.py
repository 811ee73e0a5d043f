"""Python side effects in traced code: made to run on every call, never skipped on replay.

A compiled program replays without running Python. That is only correct for code whose only
effects are on tensors. So:
* `print` while tracing becomes the graph's print op (ops.debug), which runs at every call;
* a function whose first trace changed Python state, or whose source holds a statement that
  changes it, runs its Python at every call (its tensor work still compiled into cached
  segments), and each such statement is reported once with its line;
* arguments: a list/tuple/dict holding no tensor is passed to the trace as the caller's own
  object, so effects on it land; one holding tensors is a copy (its tensors are symbolic), and
  changing it raises, as the change could not reach the caller.

`Watch` (around a function's first trace) decides what counts as an effect, two ways:
* dynamically: a call-only `sys.settrace` hook (chained to a debugger's) sees every user
  function that runs, however it was reached (helpers, methods, callbacks); at its first call
  the state it can reach -- the globals its code names, its closure values -- and, before the
  trace, the arguments (a Cell with its sub-cells) and global random generators are
  fingerprinted: container items and object attributes by identity, arrays by checksum. What
  differs when the trace ends was changed, through whatever alias.
* statically: the source of each user function that ran is scanned for statements that write
  to state older than the trace (attribute/item assignment, mutating methods, `+=` on a
  mutable argument, setattr, `global`/`nonlocal` rebinding, output to files and loggers),
  names resolved through the frame's globals, closure, arguments and simple aliases. This names
  the line of each effect and also covers what fingerprints cannot see (a line not taken on
  this call, output, iterators).
Objects made during the trace (locals, the closures of nested functions) are not state.
Code under minispore, the standard library and site-packages (or in a module that sets
`__minispore_library__ = True`) is trusted to keep its state to itself; its effects on the
user's objects are still seen by the fingerprints.

This module holds the entry points (graph_print, Watch, and TracedArguments/SideEffectError
from fallback.arguments); the parts live in fallback.user_code (which code is the user's),
fallback.state_snapshot (the fingerprints) and fallback.effect_scan (the source scan).
"""
import builtins
import inspect
import linecache
import logging
import random
import sys
import threading
import types
from contextlib import contextmanager

import numpy as np

from ..ops.debug import print_values
from .arguments import SideEffectError, TracedArguments
from .effect_scan import UserCall, scan
from .state_snapshot import GlobalNames, StateSnapshot
from .user_code import is_user_code, is_user_module

__all__ = ["SideEffectError", "TracedArguments", "Watch", "graph_print"]

log = logging.getLogger("minispore.fallback")


# ***** print *****

_routing = threading.local()     # .depth: graph_print() nesting in this thread
_install_lock = threading.Lock()
_original_print = builtins.print


def _dispatching_print(*objects, sep=" ", end="\n", file=None, flush=False):
    """builtins.print once a trace has run: the graph's print in a thread that is tracing
    (inside graph_print), the original print everywhere else."""
    if getattr(_routing, "depth", 0) and file is None:
        return print_values(*objects, sep=sep, end=end)
    return _original_print(*objects, sep=sep, end=end, file=file, flush=flush)


@contextmanager
def graph_print():
    """Route this thread's print() to the graph's print op while it traces.

    builtins.print is replaced once, for good, by a dispatcher that asks a thread-local flag:
    other threads, and this one after the trace, print as before, and no interleaving of
    threads entering and leaving traces can leave a tracing print behind."""
    global _original_print
    if builtins.print is not _dispatching_print:
        with _install_lock:
            if builtins.print is not _dispatching_print:
                _original_print = builtins.print
                builtins.print = _dispatching_print
    _routing.depth = getattr(_routing, "depth", 0) + 1
    try:
        yield
    finally:
        _routing.depth -= 1


# ***** the watch *****

class Watch:
    """Around a function's first trace: the Python side effects the traced code had.

    >>> with Watch(fn, args, kwargs) as watch:
    ...     traced = trace(fn, args, kwargs, name)
    >>> watch.effects()   # [("file.py:12: source line", "call LOG.append()"), ...]
    """

    def __init__(self, fn, args, kwargs):
        self.state = StateSnapshot()
        self.calls = []       # UserCall of each user function's first call, in order
        self.errors = []      # what could not be checked (then: an effect, to be safe)
        self._codes = set()   # code objects already called
        self._cell_makers = []  # user code objects that ran and made closure cells
        self._previous = None
        code = getattr(fn, "__code__", None)
        own = code is not None and is_user_code(code.co_filename, getattr(fn, "__globals__", {}))
        self._own_code = code if own else None
        for path, root in _roots(fn, args, kwargs):
            self._add(root, path)

    def __enter__(self):
        self._previous = sys.gettrace()
        sys.settrace(self._on_call)
        return self

    def __exit__(self, *exc_info):
        if sys.gettrace() == self._on_call:
            sys.settrace(self._previous)
        else:  # a debugger started meanwhile: keep its hook; calls after that went unseen
            self.errors.append("the trace hook was replaced while tracing (a debugger?)")
        return False

    def _add(self, root, path):
        try:
            self.state.add(root, (path,))
        except Exception as e:  # noqa: BLE001  (an object we cannot read: unsure, so an effect)
            self.errors.append(f"could not fingerprint {path}: {type(e).__name__}: {e}")

    def _on_call(self, frame, event, arg):
        code = frame.f_code
        if code not in self._codes:
            self._codes.add(code)
            # (a module imported meanwhile fills its own globals: no effect of the trace's)
            if code.co_name != "<module>" and is_user_code(code.co_filename, frame.f_globals):
                try:
                    self._first_call(frame, code)
                except Exception as e:  # noqa: BLE001  (unsure: an effect)
                    self.errors.append(f"could not inspect {code.co_name}: {type(e).__name__}: {e}")
        previous = self._previous
        return previous(frame, event, arg) if previous is not None else None

    def _first_call(self, frame, code):
        if code.co_cellvars:
            self._cell_makers.append(code)
        local_freevars = {n for n in code.co_freevars if self._made_while_tracing(code, n)}
        call = UserCall.of_frame(frame, local_freevars)
        namespace = frame.f_globals
        names = [n for n in code.co_names if n in namespace and not n.startswith("__minispore")]
        self._add(GlobalNames(namespace, names), namespace.get("__name__", "globals"))
        for name in names:  # a user module's attributes this code names (mod.X = ...)
            module = namespace[name]
            if isinstance(module, types.ModuleType) and is_user_module(module):
                self._add(GlobalNames(vars(module), [n for n in code.co_names if n in vars(module)]),
                          name)
        for name, value in call.closure.items():
            self._add(value, name)
        self.calls.append(call)

    def _made_while_tracing(self, code, name):
        """A closure variable of a function nested in one that ran while tracing: a cell made
        by that run, so a local of the traced code."""
        return any(name in maker.co_cellvars and code in _nested_codes(maker)
                   for maker in self._cell_makers)

    def effects(self):
        """[(location "file:line: source", what)] of each Python side effect, once each."""
        sites = []
        for call in self.calls:
            try:
                sites += [(call.code.co_filename, s) for s in scan(call, self.state)]
            except Exception as e:  # noqa: BLE001  (unsure: an effect)
                self.errors.append(f"could not scan {call.code.co_name}: {type(e).__name__}: {e}")
        if not self.state.complete:
            log.debug("the state reachable from %s exceeds the fingerprint budget; the source "
                      "scan decides for the rest", self._fallback_location())
        certain = [(f, s) for f, s in sites if s.certain]
        explained = set().union(*(s.explains for _, s in certain))
        found = [(_location(f, s.line), s.what) for f, s in certain]
        try:
            changes = self.state.changes()
        except Exception as e:  # noqa: BLE001  (unsure: an effect)
            changes = [("Python state", f"could not compare: {type(e).__name__}: {e}", set())]
        unexplained = [(path, how) for path, how, ids in changes if not ids & explained]
        if unexplained:
            changed = "; ".join(f"changes {path} ({how})" for path, how in unexplained)
            candidates = [(f, s) for f, s in sites if not s.certain]
            found += [(_location(f, s.line), f"{s.what}: {changed}") for f, s in candidates] or \
                [(self._fallback_location(), changed)]
        found += [(self._fallback_location(), error) for error in self.errors]
        return list(dict.fromkeys(found))

    def _fallback_location(self):
        """Where an effect no statement explains is reported: the function's def line."""
        code = self._own_code or (self.calls[0].code if self.calls else None)
        return _location(code.co_filename, code.co_firstlineno) if code else "<unknown>"


def _roots(fn, args, kwargs):
    """(name, object) of the state a call can reach before it runs: arguments, the function
    (its defaults, its bound object), the global random generators."""
    try:
        named = list(inspect.signature(fn).bind(*args, **kwargs).arguments.items())
    except (TypeError, ValueError):
        named = [(f"args[{i}]", a) for i, a in enumerate(args)] + list(kwargs.items())
    yield from named
    yield getattr(fn, "__name__", "the function"), fn
    yield "np.random (numpy's global generator)", getattr(np.random.mtrand, "_rand", None)
    yield "random (the random module's generator)", getattr(random, "_inst", None)


_nested = {}


def _nested_codes(code):
    found = _nested.get(code)
    if found is None:
        found = set()
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                found |= {const} | _nested_codes(const)
        found = _nested[code] = frozenset(found)
    return found


def _location(filename, line):
    return f"{filename}:{line}: {linecache.getline(filename, line).strip()}"
