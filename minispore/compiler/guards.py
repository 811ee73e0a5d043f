"""Cache guards: the values, besides input shapes/dtypes, that a compiled program depends on.

A trace reads Python values (a Cell's non-Parameter attributes, globals, closure variables)
and bakes them in. The snapshot of those values is part of the cache key, so a changed
attribute recompiles instead of replaying stale code.
"""
import types

import numpy as np

from ..core.cell_base import CellBase

_SIMPLE = (int, float, str, bool, type(None), np.dtype, np.generic)


def _value_key(v):
    if isinstance(v, _SIMPLE):
        return v
    if isinstance(v, tuple) and all(isinstance(x, _SIMPLE) for x in v):
        return v
    if isinstance(v, (list, dict)) and len(v) <= 16:
        items = v.items() if isinstance(v, dict) else enumerate(v)
        if all(isinstance(x, _SIMPLE) for _, x in items):
            return (type(v).__name__, tuple(v.items()) if isinstance(v, dict) else tuple(v))
    return ("id", id(v))


def _cell_key(cell):
    out = []
    for name, sub in cell.cells_and_names():
        attrs = tuple((k, _value_key(v)) for k, v in sub.__dict__.items()
                      if not k.startswith("_") and not _is_cell(v)
                      and not isinstance(v, types.FunctionType))
        # forward hooks and to_float casts are traced into the graph: changing them recompiles
        wrappers = (tuple(sub._forward_pre_hooks), tuple(sub._forward_hooks),
                    sub._amp_dtype, sub._amp_output)
        out.append((name, id(sub), sub.training, attrs, wrappers))
    return tuple(out)


def _function_key(fn):
    code = getattr(fn, "__code__", None)
    if code is None:
        return ()
    g = fn.__globals__
    names = _global_names.get(code)
    if names is None:  # the names this code reads, once per code object
        names = _global_names[code] = tuple(n for n in code.co_names if n in g)
    values = tuple((n, _value_key(g[n])) for n in names if isinstance(g.get(n), _SIMPLE)) \
        if names else ()
    closure = fn.__closure__
    if not closure:
        return values
    contents = []
    for c in closure:
        try:
            value = c.cell_contents
        except ValueError:  # a cell not yet assigned
            continue
        if isinstance(value, _SIMPLE):
            contents.append(_value_key(value))
    return values + tuple(contents)


_global_names = {}


def snapshot(fn, args):
    """The guard part of a cache key for calling fn(*args)."""
    if args and _is_cell(args[0]):  # a Cell method: the Cell is its first argument
        return (_cell_key(args[0]), _function_key(fn))
    return (_function_key(fn),)


def _is_cell(x):
    return isinstance(x, CellBase)


_PARTS = ("argument structure or static arguments", "input shapes/dtypes",
          "Cell attributes, globals or closure values read by the trace", "context (device, syntax level)",
          "gradient recording")


def explain_change(key, old_keys):
    """Why `key` missed the cache: the parts that differ from the closest cached key."""
    best = min(old_keys, key=lambda k: sum(a != b for a, b in zip(k, key)))
    changed = [name for name, a, b in zip(_PARTS, best, key) if a != b]
    return "changed: " + ", ".join(changed) if changed else "new signature"
