"""Source conversion of tensor-conditioned `if` statements into graph selects (as AutoGraph).

Every `if` whose branches only assign variables (no return/break/continue/yield) becomes

    def __ms_true_3(a, b): <body>;   return a, b
    def __ms_false_3(a, b): <orelse>; return a, b
    a, b = __minispore_if__(test, __ms_true_3, __ms_false_3, (a, b), line)

At run time a Python condition (or a tensor whose value is known) takes the Python path,
unchanged. A symbolic tensor condition traces both branches and selects each variable with
ops.select, so the function still compiles whole. Branches that disagree in shape/dtype raise
an error naming the `if` line; branches with effects (state writes, prints) or non-tensor
results that differ fall back to a graph break, which is always correct.
"""
import ast
import inspect
import textwrap

from ..context.interpreter import STATE
from ..runtime.tensor import Tensor, is_symbolic

_UNDEFINED = type("Undefined", (), {"__repr__": lambda self: "<undefined>"})()
_converted = {}


class BranchMismatchError(TypeError):
    """The two branches of a tensor-conditioned `if` give a variable different types."""


def converted(fn):
    """fn with its tensor-conditioned ifs converted (fn itself if nothing to convert)."""
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
    converter = _IfConverter()
    body = []
    for stmt in fdef.body:
        new = converter.visit(stmt)
        body.extend(new if isinstance(new, list) else [new])
    fdef.body = body
    if not converter.count:
        return None
    fdef.decorator_list = []
    freevars = fn.__code__.co_freevars
    factory = ast.FunctionDef(
        name="__minispore_factory__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(a) for a in freevars], kwonlyargs=[],
                           kw_defaults=[], defaults=[]),
        body=[fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], decorator_list=[])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.copy_location(factory, fdef)
    ast.fix_missing_locations(module)
    for node in ast.walk(module):  # generated nodes borrow the `if` line; keep ranges valid
        if hasattr(node, "end_lineno") and (node.end_lineno or 0) < node.lineno:
            node.end_lineno = node.lineno
    ast.increment_lineno(module, fn.__code__.co_firstlineno - 1)
    return compile(module, fn.__code__.co_filename, "exec")


def _rebind(fn, module_code):
    g = fn.__globals__
    g.setdefault("__minispore_if__", if_stmt)
    g.setdefault("__minispore_undefined__", _UNDEFINED)
    namespace = {}
    exec(module_code, g, namespace)
    cells = [c.cell_contents for c in (fn.__closure__ or ())]
    new_fn = namespace["__minispore_factory__"](*cells)
    new_fn.__defaults__ = fn.__defaults__
    new_fn.__kwdefaults__ = fn.__kwdefaults__
    return new_fn


class _IfConverter(ast.NodeTransformer):
    def __init__(self):
        self.count = 0

    def visit_FunctionDef(self, node):
        return node  # nested functions and lambdas keep their own semantics

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_If(self, node):
        self.generic_visit(node)
        names = sorted(_assigned(node.body) | _assigned(node.orelse))
        if not names or _escapes(node):
            return node
        self.count += 1
        k, line = self.count, node.lineno
        params = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], kwonlyargs=[],
                               kw_defaults=[], defaults=[])
        ret = ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load()))
        true_fn = ast.FunctionDef(f"__ms_true_{k}", params, node.body + [ret], [])
        false_fn = ast.FunctionDef(f"__ms_false_{k}", params, (node.orelse or []) + [ret], [])
        current = ast.Tuple([_current_value(n) for n in names], ast.Load())
        call = ast.Call(ast.Name("__minispore_if__", ast.Load()),
                        [node.test, ast.Name(true_fn.name, ast.Load()), ast.Name(false_fn.name, ast.Load()),
                         current, ast.Constant(line)], [])
        assign = ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())], call)
        for new in (true_fn, false_fn, assign):
            ast.copy_location(new, node)
        return [true_fn, false_fn, assign]


def _current_value(name):
    """`locals().get(name, undefined)`: the variable's value before the if, if it has one."""
    return ast.Call(ast.Attribute(ast.Call(ast.Name("locals", ast.Load()), [], []), "get", ast.Load()),
                    [ast.Constant(name), ast.Name("__minispore_undefined__", ast.Load())], [])


def _assigned(stmts):
    """Variables the statements bind (the branch functions of inner converted ifs excluded)."""
    names = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
    return {n for n in names if not n.startswith("__ms_")}


_ESCAPES = (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Global,
            ast.Nonlocal, ast.Await, ast.Try)


def _escapes(node):
    """True if the if contains control transfer or scope statements we leave to Python
    (not looking inside nested functions, such as the branches of an inner converted if)."""
    if isinstance(node, _ESCAPES):
        return True
    return any(_escapes(child) for child in ast.iter_child_nodes(node)
               if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))


# ***** run time *****

def if_stmt(cond, true_fn, false_fn, values, line):
    """Run an `if`: in Python for Python/known conditions, as a select for symbolic ones."""
    tracer = STATE.trace_stack[-1] if STATE.trace_stack else None
    if not _symbolic_unknown(cond, tracer):
        return true_fn(*values) if cond else false_fn(*values)
    mark = tracer.checkpoint()
    t_out = true_fn(*values)
    f_out = false_fn(*values)
    if tracer.effects_since(mark):
        tracer.rollback(mark)  # effects cannot run on both paths: decide on the host
        return true_fn(*values) if cond else false_fn(*values)
    merged = []
    for a, b in zip(t_out, f_out):
        m = _merge(cond, a, b, line, true_fn)
        if m is _CANNOT:
            tracer.rollback(mark)
            return true_fn(*values) if cond else false_fn(*values)
        merged.append(m)
    return tuple(merged)


_CANNOT = object()


def _symbolic_unknown(cond, tracer):
    return (tracer is not None and isinstance(cond, Tensor) and is_symbolic(cond._data)
            and hasattr(tracer, "known") and cond._data.id not in tracer.known)


def _merge(cond, a, b, line, fn):
    from ..ops import functional as F
    if a is b:
        return a
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        if a is _UNDEFINED or b is _UNDEFINED:
            raise BranchMismatchError(_where(fn, line) + "a variable is assigned in only one branch "
                                      "of an if on a tensor; give it a value before the if")
        a_t = a if isinstance(a, Tensor) else Tensor(a, b.dtype)
        b_t = b if isinstance(b, Tensor) else Tensor(b, a_t.dtype)
        if a_t.shape != b_t.shape or a_t.dtype != b_t.dtype:
            raise BranchMismatchError(
                _where(fn, line) + f"the branches of an if on a tensor give a variable different "
                f"types: {a_t.dtype}{list(a_t.shape)} and {b_t.dtype}{list(b_t.shape)}")
        c = cond if cond.dtype.kind == "b" else F.not_equal(cond, 0)
        if c.size != 1:
            raise BranchMismatchError(_where(fn, line) + f"an if condition must have one element, "
                                      f"got shape {list(c.shape)}")
        return F.select(F.reshape(c, ()), a_t, b_t)
    try:
        same = a == b
        if isinstance(same, bool) and same:
            return a
    except Exception:
        pass
    return _CANNOT


def _where(fn, line):
    return f"{fn.__code__.co_filename}:{line}: "
