"""Python side effects in traced code: made to run on every call, never skipped on replay.

A compiled program replays without running Python. That is only correct for code whose
only effects are on tensors. So:
* `print` while tracing becomes the graph's print op (ops.debug), which runs at every call;
* other side effects (attribute writes on a Cell, list.append on an outer list, global /
  nonlocal rebinding, item assignment on non-local objects) are found by a scan of the
  function's source (and each Cell's construct); such a function runs its Python at every
  call, its tensor work still compiled into cached segments.
"""
import ast
import builtins
import inspect
import textwrap
from contextlib import contextmanager


_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
             "add", "discard", "popitem", "sort", "reverse", "write", "__setitem__"}


@contextmanager
def graph_print():
    """Route print() to the graph's print op while tracing (restored afterwards)."""
    from ..ops.debug import print_values
    saved = builtins.print

    def traced_print(*objects, sep=" ", end="\n", file=None, flush=False):
        if file is not None:
            return saved(*objects, sep=sep, end=end, file=file, flush=flush)
        print_values(*objects, sep=sep, end=end)

    builtins.print = traced_print
    try:
        yield
    finally:
        builtins.print = saved


_scans = {}


def scan(fn):
    """[("file:line: source", description)] of Python side effects in fn's own source."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    if code not in _scans:
        _scans[code] = _scan_source(fn)
    return _scans[code]


def _scan_source(fn):
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return []
    first = fn.__code__.co_firstlineno - 1
    local_names = set(fn.__code__.co_varnames) - set(
        fn.__code__.co_varnames[:fn.__code__.co_argcount])
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0) + first
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            found.append((line, f"{type(node).__name__.lower()} {', '.join(node.names)}"))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                root = _root_name(t)
                if isinstance(t, (ast.Attribute, ast.Subscript)) and root not in local_names:
                    found.append((line, f"assignment to {ast.unparse(t)}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _MUTATORS and _root_name(node.func.value) not in local_names \
                and not inspect.ismodule(fn.__globals__.get(_root_name(node.func.value))):
            # (a module function such as ops.add / F.add is not a container's add)
            found.append((line, f"call {ast.unparse(node.func)}()"))
    import linecache
    filename = fn.__code__.co_filename
    return [(f"{filename}:{line}: {linecache.getline(filename, line).strip()}", what)
            for line, what in found]


def _root_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def python_side_effects(fn, args):
    """Side effects in fn and, for a Cell argument, in the construct of every cell in it."""
    from ..nn.cell import Cell
    found = list(scan(fn))
    for a in args[:1]:
        if isinstance(a, Cell):
            for _, cell in a.cells_and_names():
                found += scan(type(cell).construct)
    return found
