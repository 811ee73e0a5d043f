"""Source scan: the statements of a user function that change (or may change) Python state.

The source of a function that ran while tracing is scanned for writes to state older than the
trace: attribute/item assignment, mutating methods, `+=` on a mutable argument, setattr,
`global`/`nonlocal` rebinding, output to files and loggers, random draws, `next()`. Names are
resolved through what the function's first call saw (its globals, closure, arguments, simple
aliases); objects made during the trace are not state. Each site names its line (see
fallback.side_effects).
"""
import ast
import builtins
import inspect
import io
import linecache
import logging
import types
import warnings
from collections import deque

import numpy as np

from ..core.tensor import Tensor
from .state_snapshot import ABSENT, ATOMS, RNGS, identities, raw_attribute
from .user_code import is_cell

_LIST_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"}
_MUTATORS_OF = {
    list: _LIST_MUTATORS, bytearray: _LIST_MUTATORS,
    deque: _LIST_MUTATORS | {"appendleft", "extendleft", "popleft", "rotate"},
    dict: {"update", "setdefault", "pop", "popitem", "clear"},
    set: {"add", "discard", "remove", "pop", "clear", "update", "intersection_update",
          "difference_update", "symmetric_difference_update"},
    np.ndarray: {"fill", "sort", "put", "itemset", "resize", "partition", "setfield",
                 "setflags", "byteswap"},
}
MUTATORS = set().union(*_MUTATORS_OF.values()) | {
    "write", "writelines", "__setitem__", "__delitem__", "__setattr__", "__delattr__"}
_LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
_OUTPUT_FUNCTIONS = {getattr(logging, n) for n in _LOG_METHODS} | {warnings.warn,
                                                                  warnings.warn_explicit}
_ATTRIBUTE_SETTERS = {setattr, delattr, object.__setattr__, object.__delattr__}
_FUNCTION_TYPES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                   types.WrapperDescriptorType, types.MethodWrapperType)
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_FRESH = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp,
          ast.Constant, ast.JoinedStr, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)
# how a name or expression resolves
_VALUE, _STATE, _LOCAL, _UNKNOWN = "value", "state", "local", "unknown"


class UserCall:
    """A user function's first call while tracing: its code, globals, closure, arguments."""

    def __init__(self, code, namespace, closure, arguments, local_freevars):
        self.code, self.globals, self.closure = code, namespace, closure
        self.arguments, self.local_freevars = arguments, local_freevars

    @classmethod
    def of_frame(cls, frame, local_freevars=frozenset()):
        """The call starting in `frame` (local_freevars: closure variables that are locals
        of the trace, not state)."""
        code, values = frame.f_code, frame.f_locals
        closure = {n: values[n] for n in code.co_freevars
                   if n in values and n not in local_freevars}
        n_args = code.co_argcount + code.co_kwonlyargcount + \
            bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
        arguments = {n: values[n] for n in code.co_varnames[:n_args] if n in values}
        return cls(code, frame.f_globals, closure, arguments, local_freevars)


class _Site:
    """A statement that changes (certain) or may change (a candidate) Python state."""

    def __init__(self, line, what, certain, explains=()):
        self.line, self.what, self.certain, self.explains = line, what, certain, set(explains)


class _Scope:
    """The names of one function's own scope, and what its plain local names were bound to."""

    def __init__(self, node):
        args = node.args
        self.params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        self.params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        self.globals, self.nonlocals, assigned = set(), set(), set()
        self.aliases = {}   # name -> [expression it was bound to]
        self.fresh = {}     # name -> every binding made a new object (a literal, an operation)
        for n in _own_nodes(node):
            if isinstance(n, ast.Global):
                self.globals.update(n.names)
            elif isinstance(n, ast.Nonlocal):
                self.nonlocals.update(n.names)
            elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                assigned.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                assigned.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                assigned.update((a.asname or a.name).split(".")[0] for a in n.names)
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and n.value is not None:
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in targets:
                    self._bind(t, n.value)
            elif isinstance(n, (ast.For, ast.comprehension)):
                # a loop variable is an item of what it iterates
                self._bind(n.target, ast.Subscript(n.iter, ast.Constant(None), ast.Load()))
            elif isinstance(n, ast.withitem) and n.optional_vars is not None:
                self._bind(n.optional_vars, n.context_expr)
        self.locals = (self.params | assigned) - self.globals - self.nonlocals

    def _bind(self, target, value):
        if isinstance(target, ast.Name):
            self.aliases.setdefault(target.id, []).append(value)
            self.fresh[target.id] = self.fresh.get(target.id, True) and isinstance(value, _FRESH)
        else:  # unpacking: the parts of `value`, unknown
            for t in ast.walk(target):
                if isinstance(t, ast.Name):
                    self.fresh[t.id] = False


def _own_nodes(function_node):
    """The nodes of a function's own scope (nested functions and classes: their def only)."""
    body = function_node.body
    stack = list(body) if isinstance(body, list) else [body]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _NESTED_SCOPES):
            stack.extend(ast.iter_child_nodes(node))


class _Resolver:
    """What object an expression of one function names, from what its first call saw."""

    def __init__(self, scope, call, state):
        self.scope, self.call, self.state = scope, call, state

    def resolve(self, node, seen=()):
        """(how, object): _VALUE (a known object older than the trace), _STATE (an unknown
        part of one), _LOCAL (made during the trace) or _UNKNOWN."""
        if isinstance(node, ast.Name):
            return self._name(node.id, seen)
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            how, obj = self.resolve(node.value, seen)
            if how != _VALUE:
                return how, None
            try:
                return _VALUE, _part(obj, node)
            except Exception:  # noqa: BLE001  (a property, a computed key: some part of it)
                return (_STATE if _is_state(obj) else _UNKNOWN), None
        return _UNKNOWN, None

    def _name(self, name, seen):
        scope, call = self.scope, self.call
        if name in scope.nonlocals or name in call.code.co_freevars:
            if name in call.local_freevars:
                return _LOCAL, None
            return (_VALUE, call.closure[name]) if name in call.closure else (_UNKNOWN, None)
        if name in scope.locals and name not in seen:
            for expr in scope.aliases.get(name, ()):
                how, obj = self.resolve(expr, seen + (name,))
                if how in (_VALUE, _STATE):
                    return how, obj
            if name in scope.params:  # an argument older than the trace is state
                value = call.arguments.get(name, ABSENT)
                known = id(value) in self.state.reached or isinstance(value, Tensor)
                return (_VALUE, value) if known else (_UNKNOWN, None)
            return (_LOCAL if scope.fresh.get(name) else _UNKNOWN), None
        if name in scope.locals:
            return _UNKNOWN, None
        if name in call.globals:
            return _VALUE, call.globals[name]
        return (_VALUE, getattr(builtins, name)) if hasattr(builtins, name) else (_UNKNOWN, None)


def _part(obj, node):
    """obj.attr or obj[constant] for the Attribute/Subscript node, without running user code."""
    if isinstance(node, ast.Subscript):
        key = node.slice
        if not isinstance(key, ast.Constant) or key.value is None or \
                not isinstance(obj, (dict, list, tuple)):
            raise LookupError("not a constant item")
        return obj[key.value]
    name = node.attr
    own = raw_attribute(obj, "__dict__", {})
    if name == "__dict__" or isinstance(obj, types.ModuleType) or name in own:
        return own if name == "__dict__" else own[name]
    if is_cell(obj):
        for table in (own["_params"], own["_cells"]):
            if name in table:
                return table[name]
    value = inspect.getattr_static(obj, name)
    if hasattr(type(value), "__get__") and not isinstance(value, types.FunctionType):
        raise AttributeError(name)  # a property or other descriptor: would run code
    return value


def _is_state(obj):
    return not isinstance(obj, (Tensor, types.ModuleType) + ATOMS)


def scan(call, state):
    """The sites of the user function `call` ran that change or may change state."""
    node = _function_node(call.code)
    if node is None:
        return []
    resolver = _Resolver(_scope(node), call, state)
    sites = []
    for n in _own_nodes(node):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            if isinstance(n, ast.AnnAssign) and n.value is None:
                continue
            targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target]
            for t in targets:
                sites += _target_sites(t, n, resolver)
        elif isinstance(n, ast.Call):
            site = _call_site(n, resolver)
            if site is not None:
                sites.append(site)
    return sites


def _target_sites(target, statement, resolver):
    if isinstance(target, (ast.Tuple, ast.List)):
        return [s for t in target.elts for s in _target_sites(t, statement, resolver)]
    if isinstance(target, ast.Starred):
        return _target_sites(target.value, statement, resolver)
    verb = {ast.Delete: "deletion of", ast.AugAssign: "augmented assignment to"}.get(
        type(statement), "assignment to")
    what = f"{verb} {ast.unparse(target)}"
    scope, call = resolver.scope, resolver.call
    if isinstance(target, ast.Name):
        name = target.id
        if name in scope.globals:
            return [_Site(target.lineno, f"{verb} global {name}", True, [id(call.globals)])]
        if name in scope.nonlocals and name not in call.local_freevars:
            return [_Site(target.lineno, f"{verb} nonlocal {name}", True, [("nonlocal", name)])]
        if isinstance(statement, ast.AugAssign):  # `lst += [x]` changes a list in place
            how, obj = resolver.resolve(target)
            if how == _VALUE and isinstance(obj, tuple(_MUTATORS_OF)):
                return [_Site(target.lineno, what, True, identities(obj))]
        return []
    how, owner = resolver.resolve(target.value)
    if how == _LOCAL or isinstance(target, ast.Subscript) and isinstance(owner, Tensor):
        return []  # a tensor's items: a traced assignment
    if how == _UNKNOWN:
        return [_Site(target.lineno, what, False)]
    explains = identities(owner) if how == _VALUE else set()
    if isinstance(statement, ast.AugAssign):
        how_now, now = resolver.resolve(target)
        explains |= identities(now) if how_now == _VALUE else set()
    return [_Site(target.lineno, what, True, explains)]


def _call_site(node, resolver):
    what = f"call {ast.unparse(node.func)}()"
    how, fn = resolver.resolve(node.func)
    if how == _VALUE and isinstance(fn, _FUNCTION_TYPES):
        if _is_one_of(fn, _ATTRIBUTE_SETTERS) and node.args:
            how, obj = resolver.resolve(node.args[0])
            if how != _LOCAL:
                return _Site(node.lineno, what, how != _UNKNOWN,
                             identities(obj) if how == _VALUE else ())
        if fn is next and node.args and resolver.resolve(node.args[0])[0] == _VALUE:
            return _Site(node.lineno, what + " (advances an iterator)", True)
        if fn is builtins.print and any(k.arg == "file" and not _is_none(k.value)
                                        for k in node.keywords):
            return _Site(node.lineno, what + " (prints to a file)", True)
        if _is_one_of(fn, _OUTPUT_FUNCTIONS):
            return _Site(node.lineno, what + " (output)", True)
        if isinstance(getattr(fn, "__self__", None), RNGS):
            return _Site(node.lineno, what + " (draws random numbers)", True,
                         identities(fn.__self__))
    if not isinstance(node.func, ast.Attribute):
        return None
    method = node.func.attr
    how, receiver = resolver.resolve(node.func.value)
    if how == _LOCAL or how == _VALUE and isinstance(receiver, (Tensor, types.ModuleType)):
        return None
    if how == _VALUE:
        if _changes(receiver, method):
            return _Site(node.lineno, what, True, identities(receiver))
        return None
    if method in MUTATORS:
        return _Site(node.lineno, what, how == _STATE)
    return None


def _changes(receiver, method):
    """Whether calling receiver.method changes state or writes output (Python methods are
    scanned themselves when they run)."""
    if isinstance(receiver, (logging.Logger, logging.LoggerAdapter)):
        return method in _LOG_METHODS
    if isinstance(receiver, io.IOBase):
        return method in ("write", "writelines")
    if isinstance(receiver, RNGS):
        return True
    for kind, mutators in _MUTATORS_OF.items():
        if isinstance(receiver, kind):
            return method in mutators
    try:
        attr = inspect.getattr_static(receiver, method)
    except AttributeError:
        return False
    python_code = isinstance(attr, (types.FunctionType, staticmethod, classmethod, property))
    return not python_code and method in MUTATORS


def _is_one_of(fn, functions):
    try:
        return fn in functions
    except TypeError:  # a method bound to an unhashable object
        return False


def _is_none(node):
    return isinstance(node, ast.Constant) and node.value is None


_function_nodes = {}  # filename -> {(first line, name): FunctionDef/Lambda node}
_scopes = {}


def _function_node(code):
    """The def (or lambda) in the source that compiled to `code`, or None (generated code)."""
    filename = code.co_filename
    index = _function_nodes.get(filename)
    if index is None:
        index = _function_nodes[filename] = {}
        try:
            tree = ast.parse("".join(linecache.getlines(filename)))
        except (SyntaxError, ValueError):
            tree = ast.Module([], [])
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for line in [node.lineno] + [d.lineno for d in node.decorator_list[:1]]:
                    index.setdefault((line, node.name), node)
            elif isinstance(node, ast.Lambda):
                index.setdefault((node.lineno, "<lambda>"), node)
    return index.get((code.co_firstlineno, code.co_name))


def _scope(node):
    scope = _scopes.get(node)
    if scope is None:
        scope = _scopes[node] = _Scope(node)
    return scope
