"""Fusion: partition a graph's elementwise nodes into groups that become one kernel each.

A group is a connected set of elementwise nodes (primitives with an `expr`) that all produce
the group's domain shape and one float dtype (plus bool/int intermediates). External inputs
may broadcast to the domain. A node joins a producer's group only if no other input of the
node depends on that group (otherwise the group could not run as one unit: a cycle).

With `fuse_reductions`, a float sum/max/min whose input a group produces joins that group too:
the kernel accumulates while it computes the elements, so the reduced tensor is never stored.
A group's reductions share one set of reduced axes, and no node of its loops may read a
reduced value (it is complete only after the whole loop). Elementwise nodes of the reduced
shape that read reduced values join as the group's *epilogue*: the kernel runs them after
its loops, over the reduced shape (an SGD bias update `b - lr * sum(g, 0)` is one kernel
with the gradient's sum; so is a mean over an axis, the sum divided by its length).
Matmul, conv and other reductions are boundaries: they run on BLAS / numpy.

With `half_precision` (a backend whose kernels convert float16 and bfloat16), nodes computing
in a half type group as float32 ones: the kernel reads and writes the half type and computes
in float32, rounding each half node's result as numpy does (casts to and from float32 fuse
into the kernels around them). Reductions of half values stay numpy's.
"""
from dataclasses import dataclass, field

import numpy as np

from ..core.dtype import HALF_TYPES, is_float_np
from ..ops.families import PARTIAL_ON_INTEGERS, P

MIN_GROUP_SIZE = 2  # a single op gains little from a kernel over numpy's own loop...
# ...except select: np.where on a random mask runs ~8x slower than the kernel's branch-free
# select (measured on ReLU's backward in the conv and MLP benchmarks); and a float sum (with
# fuse_reductions): numpy's float32 sum with float32 dtype= costs ~4 us even on a (128, 10)
# bias gradient, the kernel ~1.5 us, and a full or last-axis sum of 2^20 runs 2x faster
WORTH_A_KERNEL_ALONE = frozenset({P.select, P.reduce_sum})
# numba's front end is superlinear in kernel size (measured: 121 ops 5.5 s, 241 ops 16 s,
# 1000 ops > 4 min and > 10 GB); past this many ops a chain is split into several kernels
MAX_GROUP_SIZE = 48
# reductions a kernel can accumulate (codegen has the identity and combine step of each)
FUSIBLE_REDUCTIONS = frozenset({P.reduce_sum, P.reduce_max, P.reduce_min})


@dataclass
class FusedGroup:
    nodes: list = field(default_factory=list)
    inputs: list = field(default_factory=list)    # Vars read from outside, in first-use order
    outputs: list = field(default_factory=list)   # Vars used outside the group
    shape: tuple = ()                             # the domain: every looped node's shape
    float_dtype: object = None
    reduced_axes: tuple = None                    # domain axes the reductions reduce, if any
    epilogue: list = field(default_factory=list)  # the nodes (also in `nodes`) run after the
                                                  # loops, over the reductions' output shape

    def run_nodes(self, xp, inputs):
        """The group's outputs computed node by node with each primitive's impl (the tier
        that serves calls while, or instead of when it fails, a kernel compiles)."""
        env = {v.id: a for v, a in zip(self.inputs, inputs)}
        for node in self.nodes:
            args = [env[v.id] for v in node.inputs]
            try:
                env[node.outputs[0].id] = node.prim.impl(xp, *args, **node.attrs)
            except Exception as e:  # the error PyNative raises (compiler.executor)
                raise node.prim.explain_failure(args, node.attrs, e, node.loc) from None
        return tuple(env[o.id] for o in self.outputs)




def _float_dtype(node, half_precision=False):
    """The float dtype a node computes in ("mixed" for several, None for none): half types
    count as float32 with half_precision."""
    kinds = [np.dtype(np.float32) if half_precision and v.dtype in HALF_TYPES else v.dtype
             for v in list(node.inputs) + list(node.outputs) if is_float_np(v.dtype)]
    if len({d for d in kinds}) > 1:
        return "mixed"
    return kinds[0] if kinds else None


_KERNEL_FLOATS = ("float32", "float64")  # the dtypes codegen.fastmath has math for


def _converts_half(node):
    """A cast to or from a half type: worth a kernel alone (numpy converts float16 one
    element at a time, 10x slower)."""
    return node.prim is P.cast and (node.inputs[0].dtype in HALF_TYPES
                                    or node.outputs[0].dtype in HALF_TYPES)


def _fusible(node, half_precision=False):
    dtype = _float_dtype(node, half_precision)
    return (node.prim.expr is not None and not node.prim.effect and not node.prim.multiple_results
            and (dtype is None or (dtype != "mixed" and dtype.name in _KERNEL_FLOATS))
            and not (dtype is None and node.prim in PARTIAL_ON_INTEGERS)
            and len(node.outputs[0].shape) > 0)


def _reduced_axes(node):
    """The axes a reduction node reduces (a sorted tuple of its input's axes)."""
    ndim = len(node.inputs[0].shape)
    axis = node.attrs["axis"]
    return tuple(range(ndim)) if axis is None else tuple(sorted({a % ndim for a in axis}))


def _fusible_reduction(node, half_precision=False):
    if node.prim not in FUSIBLE_REDUCTIONS:  # (some nodes have no input: random draws)
        return False
    x = node.inputs[0]
    # an empty max/min must raise as numpy does; over no axes a "reduction" is a copy
    return ((x.dtype.name in _KERNEL_FLOATS or half_precision and x.dtype in HALF_TYPES)
            and x.ndim > 0 and x.size > 0
            and len(_reduced_axes(node)) > 0)


def _epilogue_host(node, i, producer, groups, find, depends_on, direct_deps, half_precision):
    """The group whose epilogue elementwise node i can join, or None: it reads values of that
    group computed after its loops only (reductions or earlier epilogue nodes), all of its
    own output shape, and that shape is the loop domain with the reduced axes set to 1 and
    leading 1s dropped, so that every other input broadcasts to it as to the domain."""
    hosts = {find(producer[v.id]) for v in node.inputs if v.id in producer}
    for g in hosts:
        a = groups[g]
        after = [v for v in node.inputs if v.id in a["after_loops"]]
        shape = node.outputs[0].shape
        if (not after or a["axes"] is None or not a["fusible"]
                or len(a["members"]) >= MAX_GROUP_SIZE
                or any(v.shape != shape for v in after)
                # the loops' values cannot be read after them (they are never stored)
                or any(v.id in producer and find(producer[v.id]) == g
                       and v.id not in a["after_loops"] for v in node.inputs)
                or not _reduced_shape(a["shape"], a["axes"], shape)
                or (a["dtype"] is not None
                    and _float_dtype(node, half_precision) not in (None, a["dtype"]))):
            continue
        # node i reads g directly; another input must not reach g through a third group
        if any(depends_on(d, g) for d in direct_deps(i) if d != g):
            continue
        return g
    return None


def _reduced_shape(domain, axes, shape):
    """Whether `shape`, aligned right, is `domain` with the `axes` set to 1."""
    if len(shape) > len(domain):
        return False
    padded = (1,) * (len(domain) - len(shape)) + tuple(shape)
    return all(p == (1 if d in axes else n) for d, (p, n) in enumerate(zip(padded, domain)))


def partition(graph, fuse_reductions=False, half_precision=False):
    """Return a list whose items are graph nodes (run alone) or FusedGroups, in run order.

    fuse_reductions: reductions join the group producing their input; half_precision: nodes
    computing in float16 or bfloat16 fuse (see the module doc)."""
    producer = {o.id: i for i, node in enumerate(graph.nodes) for o in node.outputs}
    parent = {}   # union-find over group ids (a group id is the index of its first node)
    # root id -> {"members", "shape", "dtype", "inputs_from", "fusible", "reads" (Var ids read),
    #             and for reductions: "axes" (reduced), "reduced" (Var ids they produce),
    #             "after_loops" (those and the epilogue's), "epilogue" (member indices)}
    groups = {}

    def find(g):
        while parent[g] != g:
            parent[g] = parent[parent[g]]
            g = parent[g]
        return g

    def direct_deps(g):
        return {find(j) for j in groups[g]["inputs_from"]} - {g}

    def depends_on(a, b):
        """True if group a (transitively) needs a value of group b."""
        stack, seen = list(direct_deps(a)), set()
        while stack:
            d = stack.pop()
            if d == b:
                return True
            if d not in seen:
                seen.add(d)
                stack.extend(direct_deps(d))
        return False

    for i, node in enumerate(graph.nodes):
        parent[i] = i
        reduction = fuse_reductions and _fusible_reduction(node, half_precision)
        fusible = reduction or _fusible(node, half_precision)
        groups[i] = {"members": [i],
                     "dtype": _float_dtype(node, half_precision) if fusible else None,
                     "shape": node.inputs[0].shape if reduction else
                     node.outputs[0].shape if node.outputs else (),
                     "fusible": fusible, "axes": _reduced_axes(node) if reduction else None,
                     "reduced": {node.outputs[0].id} if reduction else set(),
                     # values complete only after the loops: reductions and epilogue outputs
                     "after_loops": {node.outputs[0].id} if reduction else set(),
                     "epilogue": set(),
                     "reads": {v.id for v in node.inputs},
                     "inputs_from": {producer[v.id] for v in node.inputs if v.id in producer}}
        if not fusible:
            continue
        if fuse_reductions and not reduction:
            g = _epilogue_host(node, i, producer, groups, find, depends_on, direct_deps,
                               half_precision)
            if g is not None:  # node i joins group g's epilogue
                a = groups[g]
                parent[i] = g
                a["members"] = sorted(a["members"] + [i])
                a["epilogue"].add(i)
                a["after_loops"].add(node.outputs[0].id)
                a["inputs_from"] |= groups[i]["inputs_from"]
                a["reads"] |= groups[i]["reads"]
                a["dtype"] = a["dtype"] or groups[i]["dtype"]
                del groups[i]
                continue
        for v in node.inputs:
            if v.id not in producer:
                continue
            me, g = find(i), find(producer[v.id])
            a, b = groups[g], groups[me]
            if g == me or not a["fusible"] or a["shape"] != b["shape"] \
                    or len(a["members"]) + len(b["members"]) > MAX_GROUP_SIZE:
                continue
            if a["dtype"] is not None and b["dtype"] is not None and a["dtype"] != b["dtype"]:
                continue
            if a["reads"] & b["after_loops"] or b["reads"] & a["after_loops"] \
                    or None not in (a["axes"], b["axes"]) and a["axes"] != b["axes"]:
                continue
            # me reads g directly; merging is safe unless me also reaches g via another group
            if any(depends_on(d, g) for d in direct_deps(me) if d != g):
                continue
            parent[me] = g
            a["members"] = sorted(a["members"] + b["members"])
            a["inputs_from"] |= b["inputs_from"]
            a["dtype"] = a["dtype"] or b["dtype"]
            a["axes"] = a["axes"] or b["axes"]
            a["reduced"] |= b["reduced"]
            a["after_loops"] |= b["after_loops"]
            a["epilogue"] |= b["epilogue"]
            a["reads"] |= b["reads"]
            del groups[me]

    group_of = {i: find(i) for i in range(len(graph.nodes))}
    for g, info in groups.items():
        info["deps"] = direct_deps(g)
    return _order(graph, groups, group_of)


def _order(graph, groups, group_of):
    """Items in an order where each group runs after everything it depends on."""
    used_outside = _uses_outside(graph, group_of)
    items, emitted = [], set()

    def emit(g):
        if g in emitted:
            return
        for d in sorted(groups[g]["deps"]):
            emit(d)
        emitted.add(g)
        members = [graph.nodes[i] for i in groups[g]["members"]]
        if not groups[g]["fusible"] or (len(members) < MIN_GROUP_SIZE
                                        and members[0].prim not in WORTH_A_KERNEL_ALONE
                                        and not _converts_half(members[0])):
            items.extend(members)
            return
        epilogue = [graph.nodes[i] for i in groups[g]["members"] if i in groups[g]["epilogue"]]
        items.append(_make_group(members, groups[g], used_outside, epilogue))

    for g in sorted(groups):
        emit(g)
    return items


def _uses_outside(graph, group_of):
    """Var ids read by a node of another group, or returned by the graph."""
    owner = {}
    for i, node in enumerate(graph.nodes):
        for o in node.outputs:
            owner[o.id] = group_of[i]
    outside = {v.id for v in graph.outputs}
    for i, node in enumerate(graph.nodes):
        for v in node.inputs:
            if v.id in owner and owner[v.id] != group_of[i]:
                outside.add(v.id)
    return outside


def _make_group(members, info, used_outside, epilogue=()):
    group = FusedGroup(nodes=members, shape=info["shape"], float_dtype=info["dtype"],
                       reduced_axes=info["axes"], epilogue=list(epilogue))
    produced = set()
    for node in members:
        for v in node.inputs:
            if v.id not in produced and all(v is not w for w in group.inputs):
                group.inputs.append(v)
        produced.update(o.id for o in node.outputs)
    group.outputs = [o for node in members for o in node.outputs if o.id in used_outside]
    return group
