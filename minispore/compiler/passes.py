"""Graph passes, each Graph -> Graph: constant folding, simplification, CSE, DCE.

Values in the IR are immutable, so a node can be replaced by any node computing the same
value; only nodes with an `effect` (state writes, random draws) are never merged or removed.
"""
import numpy as np

from ..core.dtype import HALF_TYPES, is_float_np
from ..core.ir import Graph, Node, Var
from ..ops.elementwise import power_recipe
from ..ops.linalg import transpose_attrs
from ..ops.families import ASSIGNMENTS, IDENTITIES, JOINT, PRODUCTS, REDUCTIONS, P



def optimize(graph, half_products_in_float32=False):
    """The standard pipeline, in the order that lets each pass feed the next.

    half_products_in_float32: a backend whose kernels convert half types wants half-precision
    products as float32 ones between casts (`half_products_as_float32`)."""
    graph = fold_constants(graph)
    graph = simplify(graph)
    graph = absorb_broadcasts(graph)
    graph = transpose_matmul_outputs(graph)
    graph = collapse_views(graph)
    graph = simplify(graph)
    graph = fold_transposes_into_products(graph)
    graph = fuse_matmul_epilogues(graph)
    if half_products_in_float32:
        graph = half_products_as_float32(graph)
    graph = cse(graph)
    graph = fuse_joint_rows(graph)
    return dce(graph)


def _rebuild(graph, nodes, alias):
    """A copy of `graph` with `nodes`, every input renamed through `alias` (var id -> Var)."""
    def resolve(v):
        while v.id in alias:
            v = alias[v.id]
        return v

    out = Graph(graph.name)
    out.inputs = list(graph.inputs)
    for node in nodes:
        node.inputs = [resolve(v) for v in node.inputs]
    out.nodes = nodes
    out.outputs = [resolve(v) for v in graph.outputs]
    return out


def fold_constants(graph):
    """Evaluate nodes whose inputs are all constants (the tracer folds most already)."""
    alias, nodes = {}, []
    for node in graph.nodes:
        inputs = [alias.get(v.id, v) for v in node.inputs]
        if node.prim.effect or not all(v.const is not None for v in inputs):
            nodes.append(node)
            continue
        result = node.prim.impl(np, *[v.const for v in inputs], **node.attrs)
        results = result if node.prim.multiple_results else (result,)
        for o, r in zip(node.outputs, results):
            r = np.asarray(r)
            alias[o.id] = Var(r.shape, r.dtype, const=r)
    return _rebuild(graph, nodes, alias)


def _is_const_value(v, value):
    return v.const is not None and v.const.size == 1 and np.all(v.const == value)


def _passthrough(node):
    """The input that `node` returns unchanged, or None."""
    prim, ins, out = node.prim, node.inputs, node.outputs[0] if node.outputs else None
    if prim in IDENTITIES:
        return ins[0]
    if prim is P.cast and ins[0].dtype == out.dtype:
        return ins[0]
    if prim in (P.reshape, P.broadcast_to) and ins[0].shape == out.shape:
        return ins[0]
    if prim is P.transpose and node.attrs["perm"] == tuple(range(len(out.shape))):
        return ins[0]
    same = ins and ins[0].shape == out.shape and ins[0].dtype == out.dtype
    if prim in (P.add, P.sub) and same and _is_const_value(ins[1], 0):
        return ins[0]
    if prim is P.mul and same and _is_const_value(ins[1], 1):
        return ins[0]
    if (prim in (P.add, P.mul) and len(ins) == 2 and ins[1].shape == out.shape
            and ins[1].dtype == out.dtype and _is_const_value(ins[0], 0 if prim is P.add else 1)):
        return ins[1]
    if prim is P.div and same and _is_const_value(ins[1], 1):
        return ins[0]
    return None


def _assigned_value(node):
    """An assign whose value already has the variable's shape and dtype is that value: the
    write itself happens when the graph's state outputs are written back."""
    if node.prim in ASSIGNMENTS:
        value, out = node.inputs[1], node.outputs[0]
        if value.shape == out.shape and value.dtype == out.dtype:
            return value
    return None


def _power_as_products(node, nodes):
    """pow(x, c) for a constant c of ops.elementwise.POWER_RECIPES (x ** 2, x ** 3, x ** 0.5,
    x ** -1...) as products, a reciprocal and sqrt, appended to `nodes`: fused kernels then
    vectorise it, where powf is a scalar call. Returns the Var holding the power, or None."""
    if node.prim is not P.pow:
        return None
    x, c = node.inputs
    out = node.outputs[0]
    recipe = power_recipe(x.dtype, c.const) if c.const is not None else None
    if recipe is None or x.shape != out.shape or x.dtype != out.dtype:
        return None

    def emit(prim, *inputs):
        result = Var(out.shape, out.dtype)
        nodes.append(Node(prim, inputs, {}, [result], node.loc))
        return result

    one = Var((), out.dtype, const=np.asarray(1, out.dtype))
    return recipe(x, lambda a, b: emit(P.mul, a, b), lambda a: emit(P.div, one, a),
                  lambda a: emit(P.sqrt, a))


def simplify(graph):
    """Algebraic identities: x*1, x+0, x/1, casts/reshapes/transposes that change nothing,
    constant powers as products."""
    alias, nodes = {}, []
    for node in graph.nodes:
        node.inputs = [alias.get(v.id, v) for v in node.inputs]
        source = _assigned_value(node) if node.prim.effect else _passthrough(node)
        if source is None:
            source = _power_as_products(node, nodes)
        if source is not None:
            alias[node.outputs[0].id] = source
        else:
            nodes.append(node)
    return _rebuild(graph, nodes, alias)


def absorb_broadcasts(graph):
    """Elementwise ops broadcast their inputs themselves: `broadcast_to(x)` read only by
    elementwise ops of the broadcast shape is replaced by x, so fused kernels read the small
    x instead of a materialised copy (e.g. the ones a sum's gradient spreads)."""
    consumers = {}
    for node in graph.nodes:
        for v in node.inputs:
            consumers.setdefault(v.id, []).append(node)
    outputs = {v.id for v in graph.outputs}
    for node in graph.nodes:
        if node.prim not in (P.broadcast_to, P.reshape):
            continue
        src, out = node.inputs[0], node.outputs[0]
        if node.prim is P.reshape and not _only_adds_leading_ones(src.shape, out.shape):
            continue
        users = consumers.get(out.id, [])
        # each user must still produce the full shape: another of its inputs has it
        if out.id in outputs or not users or not all(
                u.prim.expr is not None and u.outputs[0].shape == out.shape
                and any(v is not out and v.shape == out.shape for v in u.inputs) for u in users):
            continue
        for u in users:
            u.inputs = [src if v is out else v for v in u.inputs]
    return dce(graph)


def transpose_matmul_outputs(graph):
    """transpose(op_a(a) @ op_b(b)) -> op_b(b)^T @ op_a(a)^T, one product with its transpose
    flags flipped: the result comes out contiguous, so the kernels reading it need no copy.
    (The gradient of a (out, in) weight, as nn.Dense keeps it, has exactly this form.)"""
    producer, uses = _producers_and_uses(graph)
    for node in graph.nodes:
        if node.prim is not P.transpose:
            continue
        src = node.inputs[0]
        mm = producer.get(src.id)
        rank = len(src.shape)
        if (mm is None or mm.prim is not P.matmul or node.attrs["perm"] != _last_axes_swap(rank)
                or uses.get(src.id) != 1  # uses count graph outputs too
                or any(len(v.shape) != rank for v in mm.inputs)):
            continue
        a, b = mm.inputs
        node.prim, node.inputs = mm.prim, [b, a]
        node.attrs = transpose_attrs(not mm.attrs.get("transpose_b", False),
                                     not mm.attrs.get("transpose_a", False))
    return dce(graph)


def fold_transposes_into_products(graph):
    """matmul/addmm of transpose(x) (its last two axes swapped) reads x with the operand's
    transpose flag toggled: BLAS takes either layout, and the transpose step disappears (the
    weight of nn.Dense and every weight gradient's operand are such transposes)."""
    producer, _ = _producers_and_uses(graph)
    for node in graph.nodes:
        operands = PRODUCTS.get(node.prim)
        if operands is None:
            continue
        flags = [node.attrs.get("transpose_a", False), node.attrs.get("transpose_b", False)]
        for k, i in enumerate(operands):
            view = producer.get(node.inputs[i].id)
            if (view is not None and view.prim is P.transpose
                    and view.attrs["perm"] == _last_axes_swap(len(view.inputs[0].shape))):
                node.inputs[i] = view.inputs[0]
                flags[k] = not flags[k]
        node.attrs = transpose_attrs(*flags)
    return dce(graph)


def _last_axes_swap(rank):
    return tuple(range(rank - 2)) + (rank - 1, rank - 2) if rank >= 2 else None


def collapse_views(graph):
    """A view of a view is one view: transpose(transpose(x)) composes the permutations (none
    left when they cancel, as the transposes around a weight's gradient do), reshape(reshape(x))
    reshapes x once, and reshape(reduce(x, keep_dims=True)) that drops exactly the kept axes is
    the reduction without them. Each is a step fewer at run time."""
    producer, uses = _producers_and_uses(graph)
    for node in graph.nodes:
        prim = node.prim
        if prim not in (P.transpose, P.reshape):
            continue
        inner = producer.get(node.inputs[0].id)
        if inner is None or inner.prim.effect:
            continue
        if prim is P.transpose and inner.prim is P.transpose:
            outer_perm, inner_perm = node.attrs["perm"], inner.attrs["perm"]
            node.attrs = {"perm": tuple(inner_perm[p] for p in outer_perm)}
            node.inputs = [inner.inputs[0]]
        elif prim is P.reshape and inner.prim is P.reshape:
            node.inputs = [inner.inputs[0]]
        elif (prim is P.reshape and inner.prim in REDUCTIONS and inner.attrs.get("keep_dims")
              and uses.get(node.inputs[0].id) == 1
              and _dropped_kept_axes(inner, node.outputs[0].shape)):
            inner.attrs = dict(inner.attrs, keep_dims=False)
            inner.outputs[0] = node.outputs[0]
            producer[node.outputs[0].id] = inner
            node.prim = None  # the reduction now produces the reshape's value
    graph.nodes = [n for n in graph.nodes if n.prim is not None]
    return dce(graph)


def _dropped_kept_axes(reduction, shape):
    """Whether `shape` is the reduction's output without its kept (size-1) axes."""
    in_shape = reduction.inputs[0].shape
    axis = reduction.attrs["axis"]
    axes = range(len(in_shape)) if axis is None else [a % len(in_shape) for a in
                                                     (axis if isinstance(axis, tuple) else (axis,))]
    return tuple(shape) == tuple(d for i, d in enumerate(in_shape) if i not in set(axes))


def fuse_matmul_epilogues(graph):
    """c + s * (a @ b) and c - s * (a @ b) (s a scalar or absent, c of the product's shape)
    become one addmm: BLAS
    accumulates the product into c, and the pass that would read the product back to scale
    and add it disappears. SGD's update of a weight whose gradient is a product has exactly
    this form. The product and its scaling must have no other readers."""
    producer, uses = _producers_and_uses(graph)
    nodes = []
    for node in graph.nodes:
        match = _epilogue(node, producer, uses) if node.prim in (P.add, P.sub) else None
        if match is not None:
            c, (a, b), attrs, scale = match
            dtype = node.outputs[0].dtype
            if node.prim is P.sub:
                if scale is None or scale.const is not None:
                    value = -1 if scale is None else -scale.const
                    scale = Var((), dtype, const=np.asarray(value, dtype))
                else:
                    negated = Var((), dtype)
                    nodes.append(Node(P.neg, [scale], {}, [negated], node.loc))
                    scale = negated
            elif scale is None:
                scale = Var((), dtype, const=np.asarray(1, dtype))
            node.prim, node.attrs, node.inputs = P.addmm, attrs, [c, a, b, scale]
        nodes.append(node)
    graph.nodes = nodes
    return dce(graph)


def half_products_as_float32(graph):
    """matmul of float16 / bfloat16 operands -> cast(matmul(cast(a), cast(b)), half): what
    the CPU's product computes (float32 GEMM, one rounding: core.blas.matmul), with the
    conversions as graph nodes that fuse into the kernels producing and reading the operands
    (numpy converts float16 one element at a time; a kernel, 8 or 16 per instruction). CSE
    then shares an operand's conversion between its products (a layer's forward and its
    weight gradient)."""
    nodes = []
    for node in graph.nodes:
        out = node.outputs[0] if node.outputs else None
        if node.prim is not P.matmul or out.dtype not in HALF_TYPES \
                or any(v.dtype != out.dtype for v in node.inputs):
            nodes.append(node)
            continue
        operands = []
        for v in node.inputs:
            wide = Var(v.shape, np.dtype(np.float32))
            nodes.append(Node(P.cast, [v], {"dtype": wide.dtype}, [wide], node.loc))
            operands.append(wide)
        product = Var(out.shape, np.dtype(np.float32))
        nodes.append(Node(P.matmul, operands, dict(node.attrs), [product], node.loc))
        node.prim, node.inputs, node.attrs = P.cast, [product], {"dtype": out.dtype}
        nodes.append(node)
    graph.nodes = nodes
    return graph


def _epilogue(node, producer, uses):
    """(c, (a, b), the product's transpose flags, scale or None) if `node` adds/subtracts
    [scale *] (a @ b) to c, else None."""
    out = node.outputs[0]
    if not is_float_np(out.dtype):
        return None
    candidates = [(node.inputs[0], node.inputs[1])]
    if node.prim is P.add:
        candidates.append((node.inputs[1], node.inputs[0]))
    for c, term in candidates:
        # a broadcast c (a bias) stays in the elementwise kernel that follows: there it costs
        # nothing extra, while addmm would first spread it over the whole product
        if c.dtype != out.dtype or c.shape != out.shape or uses.get(term.id) != 1:
            continue
        scale, product = None, producer.get(term.id)
        if product is not None and product.prim is P.mul:
            left, right = product.inputs
            for s, p in ((right, left), (left, right)):
                if s.shape == () and s.dtype == out.dtype and uses.get(p.id) == 1:
                    scale, product = s, producer.get(p.id)
                    break
            else:
                continue
        if (product is None or product.prim is not P.matmul
                or product.outputs[0].shape != out.shape
                or any(len(v.shape) != 2 for v in product.inputs)):
            continue
        return c, tuple(product.inputs), dict(product.attrs), scale
    return None


def fuse_joint_rows(graph):
    """Two nodes whose rows have a joint row (families.JOINT: a loss and its gradient) and
    that read the same leading inputs with the same attributes become one node of the joint
    row, at the first's place: its kernel reads the shared inputs once. The second's other
    inputs must be available there (constants, inputs, or computed before the first)."""
    producer, _ = _producers_and_uses(graph)
    position = {id(node): i for i, node in enumerate(graph.nodes)}
    for (first_prim, second_prim), joint in JOINT.items():
        firsts = {_shared_key(n, len(n.inputs)): n for n in graph.nodes if n.prim is first_prim}
        if not firsts:
            continue
        n_shared = len(next(iter(firsts.values())).inputs)  # a row's arity is fixed
        for node in graph.nodes:
            first = firsts.get(_shared_key(node, n_shared)) if node.prim is second_prim else None
            if first is None or first.prim is not first_prim:  # (none, or already joined)
                continue
            late = [producer.get(v.id) for v in node.inputs[n_shared:]]
            if any(p is not None and position[id(p)] > position[id(first)] for p in late):
                continue
            first.prim = joint
            first.inputs = list(node.inputs)
            first.outputs = [first.outputs[0], node.outputs[0]]
            node.prim = None
    graph.nodes = [n for n in graph.nodes if n.prim is not None]
    return graph


def _shared_key(node, n_shared):
    """A node's first `n_shared` inputs and its attributes (what a joint row shares)."""
    return tuple(v.id for v in node.inputs[:n_shared]), tuple(sorted(node.attrs.items()))


def _producers_and_uses(graph):
    """({var id: the node computing it}, {var id: how many nodes and outputs read it})."""
    producer = {o.id: n for n in graph.nodes for o in n.outputs}
    uses = {}
    for v in [v for node in graph.nodes for v in node.inputs] + list(graph.outputs):
        uses[v.id] = uses.get(v.id, 0) + 1
    return producer, uses


def _only_adds_leading_ones(src, dst):
    """True if `dst` is `src` with leading 1s (numpy broadcasting would add them anyway)."""
    extra = len(dst) - len(src)
    return extra >= 0 and tuple(dst[extra:]) == tuple(src) and all(d == 1 for d in dst[:extra])


def _value_key(v):
    """Small constants compare by value (two `* 5` are one node), everything else by id."""
    if v.const is not None and v.const.size <= 16:
        return ("const", v.const.dtype.str, v.const.shape, v.const.tobytes())
    return v.id


def _cse_key(node):
    try:
        key = (node.prim, tuple(_value_key(v) for v in node.inputs),
               tuple(sorted(node.attrs.items())))
        hash(key)
        return key
    except TypeError:  # an unhashable attribute: leave the node alone
        return None


def cse(graph):
    """Common-subexpression elimination: one node per (op, inputs, attributes)."""
    alias, seen, nodes = {}, {}, []
    for node in graph.nodes:
        node.inputs = [alias.get(v.id, v) for v in node.inputs]
        key = None if node.prim.effect else _cse_key(node)
        if key is not None and key in seen:
            for mine, theirs in zip(node.outputs, seen[key].outputs):
                alias[mine.id] = theirs
            continue
        if key is not None:
            seen[key] = node
        nodes.append(node)
    return _rebuild(graph, nodes, alias)


def dce(graph):
    """Dead-code elimination: drop nodes whose outputs nobody uses (effects stay)."""
    live = {v.id for v in graph.outputs}
    kept = []
    for node in reversed(graph.nodes):
        if node.prim.effect or any(o.id in live for o in node.outputs):
            kept.append(node)
            live.update(v.id for v in node.inputs)
    kept.reverse()
    return _rebuild(graph, kept, {})
