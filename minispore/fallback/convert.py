"""Source conversion of tensor-conditioned control flow into graph primitives (as AutoGraph).

A function traced in Graph mode is rewritten once (its AST; nested functions keep theirs):

* an `if` whose branches only assign variables becomes
      def __ms_true_3(a, b): <body>;   return a, b
      def __ms_false_3(a, b): <orelse>; return a, b
      a, b = __minispore_if__(test, __ms_true_3, __ms_false_3, (a, b), line)
  A symbolic tensor condition traces both branches and selects each variable (ops.select);
* a `while` loop whose body only assigns variables becomes
      def __ms_cond_4(x, k): return <test>
      def __ms_body_4(x, k): <body>; return x, k
      x, k = __minispore_while__(__ms_cond_4, __ms_body_4, (x, k), line, ("x", "k"))
  and `for i in range(...)` becomes `__minispore_for_range__(range, (args), body, ...)`, a
  while loop with a counter when an argument is a tensor. Once the condition is a symbolic
  tensor, the rest of the loop is one `while_loop` node (compiler.graph_loop): its body is
  traced and compiled once, whatever the number of iterations, and differentiable;
* `break` and `continue` in a loop become flags (AutoGraph's rewrite): `break` sets a flag
  that the loop condition tests, `continue` one that skips the rest of the iteration; the
  statements after a jump are guarded by `if not flag:`, which converts like any `if`. A
  break on a tensor condition thus compiles too (a Python `for` over another iterable runs
  its remaining iterations guarded);
* `and`/`or`/`not` in conditions become functions that are Python's operators on Python
  values and logical ops on symbolic tensors.

The run-time helpers the rewritten code calls live in fallback.control_flow_runtime.
At run time, Python values (and concrete tensors) take the Python path, unchanged: loops
over Python conditions unroll while tracing, as before. Branches that disagree in shape or
dtype, and loop bodies that change a carried value's shape or dtype, raise an error naming
the line and the variable. A Python number the loop changes is carried as a 0-d tensor; a
variable assigned in only one branch has no value after the `if` (using it raises), and one
first assigned inside a graph loop holds zeros after a loop that ran no iteration. What
cannot be converted keeps Python semantics through a graph break (always correct), reported
with the reason: blocks with `return`/`yield`/`try`,
Python side effects (appends, attribute writes), effects on state (ops.assign, print) in a
loop body, or a host read of a tensor value inside the block.
"""
import ast
import copy
import inspect
import textwrap
import types

from .control_flow_runtime import HELPERS
from .effect_scan import MUTATORS

_converted = {}


def converted(fn):
    """fn with its tensor-conditioned control flow converted (fn itself if nothing to convert)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return fn
    if code not in _converted:
        _converted[code] = _convert(fn)
    new_code = _converted[code]
    if new_code is None:
        return fn
    return _rebind(fn, new_code)


def _convert(fn):
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    fdef = tree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)) or fdef.name != fn.__name__:
        return None
    converter = _Converter(fn.__code__.co_firstlineno - 1, fn.__globals__,
                           set(fn.__code__.co_cellvars))
    body = []
    for stmt in fdef.body:
        new = converter.visit(stmt)
        body.extend(new if isinstance(new, list) else [new])
    fdef.body = body
    if not converter.count:
        return None
    fdef.decorator_list = []
    freevars = fn.__code__.co_freevars
    factory = _function_def("__minispore_factory__", freevars,
                            [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.copy_location(factory, fdef)
    ast.fix_missing_locations(module)
    for node in ast.walk(module):  # generated nodes borrow a statement's line; keep ranges valid
        if hasattr(node, "end_lineno") and (node.end_lineno or 0) < node.lineno:
            node.end_lineno = node.lineno
    ast.increment_lineno(module, fn.__code__.co_firstlineno - 1)
    return compile(module, fn.__code__.co_filename, "exec")


def _rebind(fn, module_code):
    """The rewritten function over fn's own closure cells: a `nonlocal` write it makes must
    reach fn's scope (the factory only gave the rewrite its free variables to compile)."""
    g = fn.__globals__
    for name, helper in HELPERS.items():
        g.setdefault(name, helper)
    factory = _code_const(module_code, "__minispore_factory__")
    new_code = _code_const(factory, fn.__name__)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    new_fn = types.FunctionType(new_code, g, fn.__name__, fn.__defaults__,
                                tuple(cells[n] for n in new_code.co_freevars))
    new_fn.__kwdefaults__ = fn.__kwdefaults__
    new_fn.__qualname__ = fn.__qualname__
    return new_fn


def _code_const(code, name):
    return next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


# ***** the AST rewrite *****

class _Converter(ast.NodeTransformer):
    def __init__(self, line_offset, fn_globals, cellvars):
        self.count = 0
        self.loops = 0  # numbers the loops' break/continue flags
        self.line_offset = line_offset  # generated code passes file lines to the run time
        self.fn_globals = fn_globals
        # variables of the function that its nested functions read: a block rewritten as a
        # function of them would update copies, which those closures never see
        self.cellvars = cellvars

    def _blocker(self, stmts, in_loop):
        shared = sorted(_bound_names(stmts) & self.cellvars)
        if shared:
            return f"an assignment to {shared[0]!r}, which a nested function reads"
        return _blocker(stmts, self.fn_globals, in_loop)

    def visit_FunctionDef(self, node):
        return node  # nested functions and lambdas keep their own semantics

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def _next(self, node):
        self.count += 1
        return self.count, node.lineno + self.line_offset

    def visit_If(self, node):
        blocker = self._blocker(node.body + node.orelse, in_loop=False)
        self.generic_visit(node)
        node.test = _condition(node.test)
        names = sorted(_bound_names(node.body) | _bound_names(node.orelse))
        if blocker or not names:
            if blocker:
                self._next(node)
                node.test = _host_test(node.test, _kept_reason("an `if` on a tensor", blocker))
            return node
        k, line = self._next(node)
        true_fn = _function_def(f"__ms_true_{k}", names, node.body + [_return(names)])
        false_fn = _function_def(f"__ms_false_{k}", names, (node.orelse or []) + [_return(names)])
        call = _call("__minispore_if__", node.test, _name(true_fn.name), _name(false_fn.name),
                     _current_values(names), ast.Constant(line), _constant_tuple(names))
        return _located([true_fn, false_fn, _assign(names, call)], node)

    def visit_While(self, node):
        lowered, prelude, flags, blocker = self._prepare_loop(node)
        if blocker:
            self.generic_visit(node)
            self._next(node)
            node.test = _host_test(_condition(node.test),
                                   _kept_reason("a `while` loop on a tensor", blocker))
            return node
        node.body = lowered
        self.generic_visit(node)
        test = _condition(node.test)
        if flags.brk:
            test = _call("__minispore_and__", _call("__minispore_no_jump__", _name(flags.brk)),
                         _lambda(test))
        names = sorted(_bound_names(node.body) | _bound_names(prelude))
        k, line = self._next(node)
        cond_fn = _function_def(f"__ms_cond_{k}", names, [ast.Return(test)])
        body_fn = _function_def(f"__ms_body_{k}", names, node.body + [_return(names)])
        call = _call("__minispore_while__", _name(cond_fn.name), _name(body_fn.name),
                     _current_values(names), ast.Constant(line), _constant_tuple(names))
        return _located(prelude + [cond_fn, body_fn, _assign(names, call)], node)

    def visit_For(self, node):
        lowered, prelude, flags, blocker = self._prepare_loop(node)
        range_args = _range_args(node)
        if blocker:
            self.generic_visit(node)
            self._next(node)
            if range_args is not None:  # say why range() reads a tensor on the host
                reason = _kept_reason("a `for` loop over range(tensor)", blocker)
                node.iter.args = [_call("__minispore_host_index__", a, ast.Constant(reason))
                                  for a in node.iter.args]
            return node
        if range_args is None or not isinstance(node.target, ast.Name):
            return self._python_for(node, lowered, prelude, flags)
        node.body = lowered
        self.generic_visit(node)
        target = node.target.id
        names = sorted(_bound_names(node.body) | _bound_names(prelude) | {target})
        k, line = self._next(node)
        body_fn = _function_def(f"__ms_body_{k}", names, node.body + [_return(names)])
        call = _call("__minispore_for_range__", _name("range"),
                     ast.Tuple(range_args, ast.Load()),
                     _name(body_fn.name), _current_values(names), ast.Constant(line),
                     _constant_tuple(names), ast.Constant(names.index(target)),
                     ast.Constant(names.index(flags.brk) if flags.brk else None))
        return _located(prelude + [body_fn, _assign(names, call)], node)

    def _prepare_loop(self, node):
        """(lowered body, statements before the loop, flags, why it stays Python or None)."""
        self.loops += 1
        flags = _Flags(self.loops, node.body)
        if node.orelse:
            return None, [], flags, "its `else` clause"
        # lowered on a copy: the loop may still stay Python, as written
        lowered = _lower_jumps(copy.deepcopy(node.body), flags) if flags.names() else node.body
        if lowered is None:
            return None, [], flags, "`break`/`continue` inside a `with`/`try`/`match` block"
        blocker = self._blocker(lowered, in_loop=True)
        if isinstance(node, ast.While) and any(isinstance(n, ast.NamedExpr)
                                               for n in ast.walk(node.test)):
            blocker = "an assignment expression (:=) in its condition"  # (the test moves)
        if blocker:
            return None, [], flags, blocker
        if flags.cont:
            lowered = [_set_flag(flags.cont, node)] + lowered
        prelude = [_set_flag(flags.brk, node)] if flags.brk else []
        return lowered, prelude, flags, None

    def _python_for(self, node, lowered, prelude, flags):
        """A `for` over any iterable stays a Python loop; with a break flag, an iteration
        after a (symbolic) break is guarded off, and a concrete break stops the loop."""
        if flags.brk:
            item = f"__ms_item_{flags.k}"
            bind_target = ast.Assign([node.target], _name(item))
            guarded = ast.If(_call("__minispore_no_jump__", _name(flags.brk)),
                             [bind_target] + lowered, [])
            stop = ast.If(_call("__minispore_stop__", _name(flags.brk)), [ast.Break()], [])
            node.target = ast.Name(item, ast.Store())
            node.body = _located([guarded, stop], node)
        else:
            node.body = lowered
        self.generic_visit(node)
        if flags.brk or flags.cont:
            self._next(node)
        return _located(prelude + [node], node)


class _Flags:
    """The break/continue flag variables of loop number k (None where the loop has none)."""

    def __init__(self, k, body):
        self.k = k
        jumps = {type(n) for n in _own_jumps(body)}
        self.brk = f"__ms_break_{k}" if ast.Break in jumps else None
        self.cont = f"__ms_continue_{k}" if ast.Continue in jumps else None

    def names(self):
        return [n for n in (self.brk, self.cont) if n]


def _own_jumps(stmts):
    """The break/continue statements of this loop (not of loops nested in it)."""
    found = []
    for stmt in stmts:
        for node in _walk_scope(stmt, into_loops=False):
            if isinstance(node, (ast.Break, ast.Continue)):
                found.append(node)
    return found


def _walk_scope(node, into_loops=True):
    """ast.walk that yields, but does not enter, functions, lambdas, classes, comprehensions
    (and, unless into_loops, loops other than the root's children)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _SCOPES) or (not into_loops and isinstance(n, _LOOPS)):
            continue
        stack.extend(ast.iter_child_nodes(n))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _lower_jumps(stmts, flags):
    """stmts with this loop's break/continue turned into flag assignments and the statements
    after each jump guarded by `if no_jump(flags):`; None if a jump sits in a block other
    than an `if`."""
    out = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, (ast.Break, ast.Continue)):
            flag = flags.brk if isinstance(stmt, ast.Break) else flags.cont
            out.append(_set_flag(flag, stmt, True))
            return out  # the rest of the block is unreachable
        if not _own_jumps([stmt]):
            out.append(stmt)
            continue
        if not isinstance(stmt, ast.If):
            return None
        body, orelse = _lower_jumps(stmt.body, flags), _lower_jumps(stmt.orelse, flags)
        rest = _lower_jumps(stmts[i + 1:], flags)
        if body is None or orelse is None or rest is None:
            return None
        stmt.body, stmt.orelse = body or [ast.Pass()], orelse
        out.append(stmt)
        if rest:
            guard = ast.If(_call("__minispore_no_jump__", *[_name(f) for f in flags.names()]),
                           rest, [])
            out.append(ast.copy_location(guard, stmts[i + 1]))
        return out
    return out


_ESCAPES = {ast.Return: "`return`", ast.Yield: "`yield`", ast.YieldFrom: "`yield`",
            ast.Await: "`await`", ast.Try: "`try`", ast.Global: "`global`",
            ast.Nonlocal: "`nonlocal`", ast.Delete: "`del`", ast.Break: "`break`",
            ast.Continue: "`continue`"}


def _blocker(stmts, fn_globals, in_loop):
    """Why these statements cannot run as traced functions of their variables, or None:
    control transfer, scope statements, Python side effects (which would run once, or on
    both branches, instead of as Python says), `super()` (it reads its function's first
    argument) and, in loops, nested functions (closures over loop variables)."""
    for stmt in stmts:
        for node in _walk_scope(stmt, into_loops=True):
            if type(node) in _ESCAPES and not (isinstance(node, (ast.Break, ast.Continue))
                                               and _inside_loop(stmt, node)):
                return _ESCAPES[type(node)] + " inside"
            if in_loop and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                             ast.ClassDef)):
                return "a nested function"
            effect = _side_effect(node, fn_globals)
            if effect:
                return effect
    return None


def _inside_loop(root, target):
    """True if `target` (a break/continue) belongs to a loop nested in `root`."""
    return target not in _own_jumps([root])


def _side_effect(node, fn_globals):
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            for part in ast.walk(t):
                if isinstance(part, (ast.Attribute, ast.Subscript)) and isinstance(part.ctx, ast.Store):
                    return f"an assignment to `{ast.unparse(part)}`"
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func  # a call made for its effect: `log.append(x)`, not `y = x.sort()`
        if isinstance(func, ast.Attribute) and func.attr in MUTATORS \
                and not inspect.ismodule(fn_globals.get(_root_name(func.value))):
            return f"a call to `{ast.unparse(func)}()`"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
        return "`super()`"
    return None


def _root_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _bound_names(stmts):
    """Variables the statements bind in their own scope (generated functions excluded)."""
    names = set()
    for stmt in stmts:
        for node in _walk_scope(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return {n for n in names if not n.startswith(("__ms_true_", "__ms_false_", "__ms_cond_",
                                                  "__ms_body_"))}


def _range_args(node):
    """The arguments of `for ... in range(args)`, or None for any other iterable."""
    it = node.iter
    if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and 1 <= len(it.args) <= 3 and not it.keywords
            and not any(isinstance(a, ast.Starred) for a in it.args)):
        return it.args
    return None


def _condition(test):
    """`and`/`or`/`not` in a condition as __minispore_and__/or__/not__ calls (operands after
    the first are lambdas: Python's short-circuit stays for Python values)."""
    if isinstance(test, ast.BoolOp):
        helper = "__minispore_and__" if isinstance(test.op, ast.And) else "__minispore_or__"
        values = [_condition(v) for v in test.values]
        out = values[-1]
        for v in reversed(values[:-1]):
            out = _call(helper, v, _lambda(out))
        return ast.copy_location(out, test)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.copy_location(_call("__minispore_not__", _condition(test.operand)), test)
    return test


def _kept_reason(construct, blocker):
    return (f"control flow: {construct} stays in Python because of {blocker}, so the tensor "
            f"is read on the host")


def _host_test(test, reason):
    return ast.copy_location(_call("__minispore_host_test__", test, ast.Constant(reason)), test)


# ----- small AST builders -----

def _function_def(name, params, body):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], kwonlyargs=[],
                         kw_defaults=[], defaults=[])
    fields = {"name": name, "args": args, "body": body, "decorator_list": [], "returns": None}
    if "type_params" in ast.FunctionDef._fields:
        fields["type_params"] = []
    return ast.FunctionDef(**fields)


def _name(name):
    return ast.Name(name, ast.Load())


def _call(func, *args):
    return ast.Call(_name(func), list(args), [])


def _lambda(body):
    return ast.Lambda(ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
                                    defaults=[]), body)


def _return(names):
    return ast.Return(ast.Tuple([_name(n) for n in names], ast.Load()))


def _assign(names, value):
    return ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())], value)


def _set_flag(flag, where, value=False):
    return ast.copy_location(ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(value)), where)


def _constant_tuple(names):
    return ast.Tuple([ast.Constant(n) for n in names], ast.Load())


def _current_values(names):
    """`(locals().get(name, undefined(name)), ...)`: each variable's value before the construct."""
    return ast.Tuple([ast.Call(ast.Attribute(_call("locals"), "get", ast.Load()),
                               [ast.Constant(n), _call("__minispore_undefined__", ast.Constant(n))],
                               [])
                      for n in names], ast.Load())


def _located(stmts, node):
    for s in stmts:
        ast.copy_location(s, node)
    return stmts
