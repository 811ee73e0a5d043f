"""Fingerprints of Python state, taken before a trace, to tell what the trace changed.

The state reachable from some roots (arguments, globals and closure values a function names,
random generators) is walked breadth-first within budgets: container items and object
attributes are recorded by identity, arrays by checksum, random generators by their state.
Comparing again after the trace names each object whose contents differ, whatever alias
changed it (see fallback.side_effects).
"""
import pickle
import random
import types
import zlib
from collections import deque
from dataclasses import is_dataclass

import numpy as np

from ..core.tensor import Tensor
from .user_code import is_cell, is_user_code, is_user_type

_MAX_OBJECTS = 50_000       # objects walked per trace; beyond, the source scan alone decides
_MAX_DEPTH = 8              # attribute/item steps from a root
_MAX_ARRAY_BYTES = 1 << 26  # array bytes checksummed per trace
ATOMS = (int, float, complex, str, bytes, bool, type(None), range, slice, np.generic, np.dtype)
RNGS = (np.random.Generator, np.random.RandomState, random.Random)
_PLAIN_OBJECTS = (types.SimpleNamespace,)
ABSENT = type("Absent", (), {"__repr__": lambda self: "<unset>"})()


class GlobalNames:
    """Some names of a globals dict: `global x` rebinds one."""

    def __init__(self, namespace, names):
        self.dict, self.names = namespace, names


class _Entry:
    __slots__ = ("contents", "kind", "obj", "path")

    def __init__(self, obj, path, kind, contents):
        self.obj, self.path, self.kind, self.contents = obj, path, kind, contents


class StateSnapshot:
    """Fingerprints of the Python state reachable from some roots, taken before it may change."""

    def __init__(self):
        self.entries = {}   # id -> _Entry of each object with contents to compare
        self.reached = {}   # id -> (object, least depth met at); keeps it alive: ids stay unique
        self.array_bytes = 0
        self.complete = True  # False: the walk stopped at a budget

    def add(self, root, path):
        queue = deque([(root, path, 0)])
        while queue:
            obj, path, depth = queue.popleft()
            met = self.reached.get(id(obj))
            if met is not None and met[1] <= depth:
                continue
            if met is None and len(self.reached) >= _MAX_OBJECTS:
                self.complete = False
                return
            self.reached[id(obj)] = (obj, depth)
            found = self._fingerprint(obj)
            if found is None:
                continue
            kind, contents, children = found
            if kind is not None and id(obj) not in self.entries:  # the first (earliest) contents
                self.entries[id(obj)] = _Entry(obj, path, kind, contents)
            if depth < _MAX_DEPTH:
                queue.extend((child, path + (step,), depth + 1) for step, child in children)

    def _fingerprint(self, obj):
        if isinstance(obj, np.ndarray) and not obj.dtype.hasobject:
            if self.array_bytes + obj.nbytes > _MAX_ARRAY_BYTES:
                self.complete = False
                return None
            self.array_bytes += obj.nbytes
        return _fingerprint(obj)

    def changes(self):
        """[(path, how, ids)] for each object whose contents differ from its fingerprint."""
        found = []
        for entry in list(self.entries.values()):
            now = _fingerprint(entry.obj)
            contents = now[1] if now is not None else ()
            if not same_items(entry.contents, contents):
                found.append((_format_path(entry.path), _describe(entry, contents),
                              _explained_by(entry, contents)))
        return found


def _fingerprint(obj):
    """(kind, contents to compare, [(path step, child)]) or None for what holds no state."""
    if isinstance(obj, (*ATOMS, Tensor)):
        return None
    if isinstance(obj, (list, deque)):
        items = tuple(enumerate(obj))
        return "items", items, [(("[]", i), v) for i, v in items]
    if isinstance(obj, dict):
        items = tuple(obj.items())
        return "entries", items, [(("[]", k), v) for k, v in items]
    if isinstance(obj, (set, frozenset)):
        members = tuple(sorted(((id(v), v) for v in obj), key=lambda m: m[0]))
        kind = "members" if isinstance(obj, set) else None
        return kind, members, [(("in",), v) for _, v in members]
    if isinstance(obj, tuple):
        return None, (), [(("[]", i), v) for i, v in enumerate(obj)]
    if isinstance(obj, bytearray):
        return "bytes", (("bytes", bytes(obj)),), []
    if isinstance(obj, np.ndarray):
        if obj.dtype.hasobject:
            return None
        digest = f"{obj.shape}{obj.dtype.str}{zlib.crc32(np.ascontiguousarray(obj).data)}"
        return "array", (("data", digest),), []
    if isinstance(obj, RNGS):
        return "random state", (("state", pickle.dumps(_rng_state(obj))),), []
    if isinstance(obj, GlobalNames):
        items = tuple((n, obj.dict.get(n, ABSENT)) for n in obj.names)
        return "names", items, [(("global", n), v) for n, v in items]
    if isinstance(obj, types.MethodType):
        return None, (), [((".", "__self__"), obj.__self__), ((".", "__func__"), obj.__func__)]
    if isinstance(obj, types.FunctionType):
        if not is_user_code(obj.__code__.co_filename, obj.__globals__):
            return None
        # its attributes, and its closure variables (`nonlocal` rebinds one)
        items = tuple(vars(obj).items()) + tuple(
            (name, _cell_value(cell)) for name, cell in zip(obj.__code__.co_freevars,
                                                            obj.__closure__ or ()))
        defaults = [((".", n), getattr(obj, n)) for n in ("__defaults__", "__kwdefaults__")]
        children = [((".", k), v) for k, v in items] + defaults
        return "attributes", items, children
    if isinstance(obj, type):
        if not is_user_type(obj):
            return None
        items = tuple(vars(obj).items())
        return "attributes", items, [((".", k), v) for k, v in items]
    if isinstance(obj, types.ModuleType) or not _holds_state(obj):
        return None
    items = _attributes(obj)
    return "attributes", items, [((".", k), v) for k, v in items] + [(("class",), type(obj))]


def _holds_state(obj):
    """An object whose attributes are the user's state (not a library's internals)."""
    return (is_cell(obj) or is_user_type(type(obj)) or isinstance(obj, _PLAIN_OBJECTS)
            or is_dataclass(obj))


def _attributes(obj):
    items = list(raw_attribute(obj, "__dict__", {}).items())
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__"):
                items.append((name, raw_attribute(obj, name, ABSENT)))
    return tuple(items)


def raw_attribute(obj, name, default):
    """obj.name without calling a user __getattr__ (which could have effects of its own)."""
    try:
        return object.__getattribute__(obj, name)
    except AttributeError:
        return default


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # not yet bound
        return ABSENT


def _rng_state(rng):
    if isinstance(rng, np.random.Generator):
        return rng.bit_generator.state
    return rng.get_state() if isinstance(rng, np.random.RandomState) else rng.getstate()


_VALUE_TYPES = (int, float, complex, str, bytes, bool)


def same_items(old, new):
    """Same keys, and each value the very same object (or an equal number/string)."""
    if len(old) != len(new):
        return False
    for (k1, v1), (k2, v2) in zip(old, new):
        if not (k1 is k2 or _equal(k1, k2)) or not (v1 is v2 or _equal(v1, v2)):
            return False
    return True


def _equal(a, b):
    return type(a) is type(b) and isinstance(a, _VALUE_TYPES) and a == b


def identities(obj):
    """The ids a statement may name this object by (an object's __dict__ is the object)."""
    ids = {id(obj)}
    if isinstance(obj, GlobalNames):
        ids.add(id(obj.dict))
    elif isinstance(getattr(obj, "__dict__", None), dict):
        ids.add(id(obj.__dict__))
    return ids


def _describe(entry, now):
    if entry.kind == "items" and len(entry.contents) != len(now):
        return f"{len(entry.contents)} -> {len(now)} items"
    if entry.kind in ("entries", "attributes", "names"):
        old, new = dict(entry.contents), dict(now)
        what = {"entries": "key", "attributes": "attribute", "names": "global"}[entry.kind]
        return ", ".join(f"{what} {k!r} {_change_word(old, new, k)}"
                         for k in _changed_keys(entry, now)[:3])
    return {"items": "an item replaced", "members": "members changed",
            "random state": "random numbers drawn"}.get(entry.kind, "contents changed")


def _changed_keys(entry, now):
    old, new = dict(entry.contents), dict(now)
    return [k for k in {**old, **new} if old.get(k, ABSENT) is not new.get(k, ABSENT)
            and not _equal(old.get(k), new.get(k))]


def _explained_by(entry, now):
    """The ids a statement explaining this change names. A function whose closure variables
    alone changed was changed by `nonlocal` rebindings, which name the variable, not the
    function: ("nonlocal", name) each."""
    obj = entry.obj
    if isinstance(obj, types.FunctionType) and entry.kind == "attributes":
        keys = _changed_keys(entry, now)
        if keys and set(keys) <= set(obj.__code__.co_freevars):
            return {("nonlocal", k) for k in keys}
    return identities(obj)


def _change_word(old, new, key):
    return "added" if key not in old else "removed" if key not in new else "changed"


def _format_path(path):
    text = path[0]
    for step in path[1:]:
        if step[0] == ".":
            text += f".{step[1]}"
        elif step[0] == "[]":
            text += f"[{step[1]!r}]"
        elif step[0] == "global":
            text = step[1]
        else:
            text = f"type({text})" if step[0] == "class" else f"a member of {text}"
    return text
