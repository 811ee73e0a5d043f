"""The graph IR: SSA values (`Var`) produced by primitive applications (`Node`) in a `Graph`.

A Var is what a symbolic Tensor holds while tracing: its shape and dtype are known, its value
is not. Every node records the user's source line, so errors and reports point at user code.

    graph(%0: Float32[3], %1: Float32[3]) {
      %2 = mul(%0, %1)          # net.py:12: return self.mul(x, y)
      return (%2)
    }
"""
import hashlib
import itertools
from typing import NamedTuple

import numpy as np

from .dtype import from_np

_ids = itertools.count()


class Aval(NamedTuple):
    """Abstract value: what the tracer knows about a tensor (no values)."""
    shape: tuple
    dtype: np.dtype

    def __str__(self):
        return f"{from_np(self.dtype)}{list(self.shape)}"


class Var:
    """A symbolic value: shape, dtype, and (for constants) the concrete array."""

    __slots__ = ("shape", "dtype", "id", "const")
    is_symbolic = True

    def __init__(self, shape, dtype, const=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.id = next(_ids)
        self.const = const  # numpy array for a constant, else None

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def aval_str(self):
        return f"{from_np(self.dtype)}{list(self.shape)}"

    def __repr__(self):
        return f"%{self.id}"


class Node:
    """One primitive application: outputs = prim(*inputs, **attrs), at user line `loc`."""

    __slots__ = ("prim", "inputs", "attrs", "outputs", "loc")

    def __init__(self, prim, inputs, attrs, outputs, loc=""):
        self.prim = prim
        self.inputs = list(inputs)
        self.attrs = dict(attrs)
        self.outputs = list(outputs)
        self.loc = loc

    def __repr__(self):
        return f"<{self.prim.name} {self.inputs} -> {self.outputs}>"


class Graph:
    """inputs -> nodes (in execution order) -> outputs. Constants are Vars with `.const` set."""

    def __init__(self, name="graph"):
        self.name = name
        self.inputs = []
        self.nodes = []
        self.outputs = []

    def constants(self):
        seen, out = set(), []
        for node in self.nodes:
            for v in node.inputs:
                if v.const is not None and v.id not in seen:
                    seen.add(v.id)
                    out.append(v)
        return out

    def to_text(self):
        """Readable listing: one line per node with its source location."""
        args = ", ".join(f"{v}: {v.aval_str()}" for v in self.inputs)
        lines = [f"{self.name}({args}) {{"]
        for c in self.constants():
            lines.append(f"  {c} = const {c.aval_str()} {_const_preview(c.const)}")
        for node in self.nodes:
            outs = ", ".join(repr(o) for o in node.outputs)
            ins = ", ".join(repr(i) for i in node.inputs)
            attrs = "".join(f", {k}={_attr_text(v)}" for k, v in node.attrs.items())
            types = ", ".join(o.aval_str() for o in node.outputs)
            loc = f"  # {node.loc}" if node.loc else ""
            lines.append(f"  {outs} = {node.prim.name}({ins}{attrs}) : {types}{loc}")
        lines.append(f"  return ({', '.join(repr(o) for o in self.outputs)})")
        lines.append("}")
        return "\n".join(lines)

    def to_dot(self):
        """Graphviz DOT text of the dataflow (render with `dot -Tsvg`)."""
        lines = [f'digraph "{self.name}" {{', "  rankdir=TB;", '  node [fontname="monospace"];']
        producer = {}
        for v in self.inputs:
            lines.append(f'  v{v.id} [label="input {v} {v.aval_str()}", shape=box, style=rounded];')
            producer[v.id] = f"v{v.id}"
        for c in self.constants():
            lines.append(f'  v{c.id} [label="const {c.aval_str()}", shape=box, style=dashed];')
            producer[c.id] = f"v{c.id}"
        for i, node in enumerate(self.nodes):
            label = f"{node.prim.name}\\n{', '.join(o.aval_str() for o in node.outputs)}"
            lines.append(f'  n{i} [label="{label}", tooltip="{_escape(node.loc)}"];')
            for v in node.inputs:
                if v.id in producer:
                    lines.append(f"  {producer[v.id]} -> n{i};")
            for o in node.outputs:
                producer[o.id] = f"n{i}"
        for k, v in enumerate(self.outputs):
            lines.append(f'  out{k} [label="output {k}", shape=box, style=rounded];')
            if v.id in producer:
                lines.append(f"  {producer[v.id]} -> out{k};")
        lines.append("}")
        return "\n".join(lines)


def structural_key(graph):
    """A hashable key equal for graphs that compute the same thing from inputs of the same
    shapes/dtypes (variable numbering and source lines ignored; constants by content)."""
    number = {}

    def ref(v):
        if v.const is not None:
            return ("c", v.const.dtype.str, v.const.shape, hashlib.sha1(np.ascontiguousarray(v.const).tobytes()).hexdigest())
        if v.id not in number:
            number[v.id] = len(number)
        return number[v.id]

    parts = [tuple((ref(v), v.shape, v.dtype.str) for v in graph.inputs)]
    for node in graph.nodes:
        parts.append((node.prim.name, tuple(ref(v) for v in node.inputs), repr(sorted(node.attrs.items())),
                      tuple((ref(o), o.shape, o.dtype.str) for o in node.outputs)))
    parts.append(tuple(ref(v) for v in graph.outputs))
    return tuple(parts)


def _escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _attr_text(v):
    if isinstance(v, np.dtype):
        return str(from_np(v))
    return repr(v)


def _const_preview(a):
    if a.size <= 4:
        return np.array2string(np.asarray(a), separator=",").replace("\n", "")
    return "..."
