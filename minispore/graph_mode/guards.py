"""Cache guards: the Python state, besides input shapes and dtypes, that a compiled program
depends on. Compiled code must never replay a value its trace read that has since changed.

A trace runs the user's Python on symbolic tensors; whatever plain Python values it read
(numbers, strings, flags, enum members, container items, object fields) are baked into the
graph. So a call's cache key holds a *value key* of all the state the traces could read:

* the Cell being run (every sub-cell's training flag and attributes, hooks, casts);
* the compiled function's globals, closure values and defaults;
* `Reads`: every user function that ran while tracing (helpers, methods, properties,
  callbacks; the fallback's watch sees them), with the globals its code names.

Values are keyed deeply but only along names some traced code uses: an object's or module's
attributes whose names appear in that code (`cfg.opt.lr` keys `cfg`'s `opt` and its `lr`),
every item of a list, tuple or dict up to `ITEMS` of them, a Cell's whole tree. Arrays and
Tensors are keyed by identity: the trace reads them by reference at every call (their values
may change in place freely), so only rebinding the name to another array recompiles.
A changed key recompiles, and `ms.explain` says which read changed:
"global SCALE in model.py:12: 2.0 -> 1.0".
"""
import enum
import functools
import os
import types

import numpy as np

from ..core.cell_base import CellBase
from ..core.tensor import Tensor
from ..fallback.user_code import is_user_module, is_user_type

_SIMPLE = (int, float, str, bool, complex, bytes, type(None), np.dtype, np.generic, enum.Enum)
ITEMS = 1024   # containers up to this many items are keyed item by item, larger ones by identity
DEPTH = 4      # how deep a chain of attributes and items is followed
_ABSENT = ("absent",)


_PLAIN = frozenset({int, float, str, bool, type(None)})


def value_key(v, names, depth=DEPTH):
    """A hashable key that changes when `v` changes in a way a trace reading it (through the
    attribute `names` of its code) could see."""
    t = type(v)
    if t in _PLAIN:
        return v
    keyer = _KEYERS.get(t)
    if keyer is None:  # decided once per type: guards run on every call
        keyer = _KEYERS[t] = _keyer_for(t)
    return keyer(v, names, depth)


def _itself(v, names, depth):
    return v


def _identity(v, names, depth):
    return ("id", id(v))


def _sequence(v, names, depth):
    if depth == 0 or len(v) > ITEMS:
        return ("id", id(v), len(v))
    return (type(v).__name__,) + tuple(value_key(x, names, depth - 1) for x in v)


def _mapping(v, names, depth):
    if depth == 0 or len(v) > ITEMS:
        return ("id", id(v), len(v))
    return ("dict",) + tuple((k, value_key(x, names, depth - 1)) for k, x in v.items())


def _partial(v, names, depth):
    return function_key(v, names, depth)


def _module(v, names, depth):
    if depth == 0 or not _is_user_module(v):
        return ("module", id(v))
    return ("module", id(v)) + _named_attrs(vars(v), names, depth - 1)


def _class(v, names, depth):
    if depth == 0 or not is_user_type(v):
        return ("type", id(v))
    return ("type", id(v)) + _named_attrs(v.__dict__, names, depth - 1)


def _object(v, names, depth):
    if depth == 0:
        return ("id", id(v))
    return ("object", id(v)) + _named_attrs(vars(v), names, depth - 1)


def _cell(v, names, depth):
    return cell_key(v, names)


def _keyer_for(t):
    if issubclass(t, _SIMPLE):
        return _itself
    if issubclass(t, (np.ndarray, Tensor)):
        return _identity              # read by reference at every call
    if issubclass(t, CellBase):
        return _cell
    if issubclass(t, (tuple, list)):
        return _sequence
    if issubclass(t, dict):
        return _mapping
    if issubclass(t, functools.partial):
        return _partial
    if issubclass(t, types.ModuleType):
        return _module
    if issubclass(t, type):
        return _class
    if t is types.SimpleNamespace or (is_user_type(t) and hasattr(t, "__dict__")
                                      and not issubclass(t, (types.FunctionType,
                                                             types.MethodType))):
        return _object
    return _identity


_KEYERS: dict = {}  # type -> its keyer


def _is_user_module(module):
    user = _user_modules.get(id(module))
    if user is None:
        user = _user_modules[id(module)] = is_user_module(module)
    return user


_user_modules: dict[int, bool] = {}  # id(module) -> whether it is the user's (modules live as long as the process)


def _named_attrs(attrs, names, depth):
    return tuple((n, value_key(attrs[n], names, depth)) for n in names if n in attrs)


def cell_key(cell, names=frozenset()):
    """Every sub-cell's identity, training flag, public attributes (and the private ones some
    traced code names: a property's backing field), hooks and mixed-precision casts."""
    out = []
    for name, sub in cell.cells_and_names():
        attrs = tuple((k, value_key(v, names, 2)) for k, v in sub.__dict__.items()
                      if (not k.startswith("_") or k in names) and not isinstance(v, CellBase)
                      and not isinstance(v, types.FunctionType))
        # forward hooks and to_float casts are traced into the graph: changing them recompiles
        wrappers = (tuple(sub._forward_pre_hooks), tuple(sub._forward_hooks),
                    sub._amp_dtype, sub._amp_output)
        out.append((name, id(sub), sub.training, attrs, wrappers))
    return tuple(out)


def function_key(fn, names=frozenset(), depth=DEPTH):
    """The globals `fn`'s code names, its closure values and its defaults, keyed by value."""
    if isinstance(fn, functools.partial):
        return ("partial", function_key(fn.func, names, depth), value_key(fn.args, names, depth),
                value_key(fn.keywords, names, depth))
    code = getattr(fn, "__code__", None)
    if code is None:
        return ()
    g = fn.__globals__
    found = tuple((n, value_key(g[n], names, depth)) for n in code.co_names if n in g)
    closure = []
    for c in fn.__closure__ or ():
        try:
            closure.append(value_key(c.cell_contents, names, depth))
        except ValueError:  # a cell not yet assigned
            closure.append(_ABSENT)
    return (found, tuple(closure), value_key(fn.__defaults__, names, depth),
            value_key(fn.__kwdefaults__, names, depth))


class Reads:
    """The globals that user code run by a function's traces names (helpers, methods,
    properties), gathered from the fallback's watch of each trace."""

    def __init__(self, fn):
        self.roots = []          # (label, globals dict, name)
        # every name the traced user code uses (globals, attributes), the function's own first
        code, namespace = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
        self.names = frozenset(code.co_names) if code is not None else frozenset()
        # the function's own globals are keyed by function_key already
        self._seen = {(id(namespace), n) for n in code.co_names} if code is not None else set()
        self.where = _where(code) if code is not None else "the function"

    def add(self, calls):
        """Learn from a trace's UserCalls (code, globals) what the next calls must check."""
        names = set(self.names)
        for call in calls:
            code, namespace = call.code, call.globals
            names.update(code.co_names)
            where = _where(code)
            for n in code.co_names:
                if n in namespace and (id(namespace), n) not in self._seen:
                    self._seen.add((id(namespace), n))
                    self.roots.append((f"global {n} in {where}", namespace, n))
        self.names = frozenset(names)

    def key(self):
        names = self.names
        return tuple(value_key(g.get(n, _ABSENT), names) for _, g, n in self.roots)


def snapshot(fn, args, reads):
    """The guard part of a cache key for calling fn(*args)."""
    names = reads.names
    cell = cell_key(args[0], names) if args and isinstance(args[0], CellBase) else ()
    return (cell, function_key(fn, names), reads.key())


_ENVIRONMENT = ("MINISPORE_FUSION", "MINISPORE_SYNC_COMPILE", "MINISPORE_BLAS")
# os.environ's own store, keyed by encoded names: reading it skips os.environ.get's encoding of
# the name (0.7 us each, on every call); os.environ keeps it in step with every change
_RAW_ENVIRON = getattr(os.environ, "_data", None)
_RAW_NAMES = tuple(os.environ.encodekey(n) for n in _ENVIRONMENT) \
    if _RAW_ENVIRON is not None and hasattr(os.environ, "encodekey") else None


def environment():
    """Configuration read from the environment when a program is built (fusion, the compile
    tier, the BLAS): a program built under other settings is another program."""
    if _RAW_NAMES is not None:
        get = _RAW_ENVIRON.get
        return tuple(get(n) for n in _RAW_NAMES)
    return tuple(os.environ.get(n) for n in _ENVIRONMENT)


_PARTS = ("argument structure or static arguments", "input shapes/dtypes",
          "Cell attributes, globals or closure values read by the trace",
          "context (device, syntax level, MINISPORE_* environment)", "gradient recording")


def explain_change(key, old_keys, reads):
    """Why `key` missed the cache, against the closest cached key: the parts that differ,
    and for the Python state the reads that changed ("global SCALE in m.py:3: 2.0 -> 1.0")."""
    best = min(old_keys, key=lambda k: sum(a != b for a, b in zip(k, key)))
    changed = [name for name, a, b in zip(_PARTS, best, key) if a != b]
    if not changed:
        return "new signature"
    details = _state_changes(best[2], key[2], reads)
    return "changed: " + ", ".join(changed) + (f" ({'; '.join(details)})" if details else "")


def _state_changes(old, new, reads):
    (old_cell, old_fn, old_reads), (new_cell, new_fn, new_reads) = old, new
    details = []
    for (label, _, _), a, b in zip(reads.roots, old_reads, new_reads):
        if a != b:
            details.append(f"{label}: {_short(a)} -> {_short(b)}")
    old_subs = {sub[0]: sub for sub in old_cell}
    for name, _, training, attrs, _ in new_cell:
        before = old_subs.get(name)
        if before is None:
            continue
        prefix = f"Cell {name}." if name else "Cell."
        if before[2] != training:
            details.append(f"{prefix}training: {before[2]} -> {training}")
        old_attrs = dict(before[3])
        details += [f"{prefix}{k}: {_short(old_attrs.get(k))} -> {_short(v)}"
                    for k, v in attrs if old_attrs.get(k) != v]
    if old_fn and new_fn and old_fn[0] != new_fn[0]:
        old_globals = dict(old_fn[0])
        details += [f"global {n} in {reads.where}: {_short(old_globals.get(n))} -> {_short(v)}"
                    for n, v in new_fn[0] if old_globals.get(n) != v]
    if old_fn[1:] != new_fn[1:]:
        details.append(f"the closure or defaults of the function at {reads.where}")
    return details


def _where(code):
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}"


def _short(v, limit=60):
    text = repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."
