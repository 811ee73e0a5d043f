"""Families of primitives, as sets of rows: what graph passes, fusion and codegen ask about a
node ("is it a view?") instead of comparing names. A new row joins a family here.

`P` holds every row under its name, for identity tests: `node.prim is P.transpose`.
"""
from types import MappingProxyType, SimpleNamespace

from . import array, elementwise, linalg, reduce, sparse_cross_entropy, state
from .primitive import REGISTRY

P = SimpleNamespace(**REGISTRY)

# every row with a scalar template: what fused kernels compute
ELEMENTWISE = frozenset(p for p in REGISTRY.values() if p.expr is not None)

# rows whose output is their first input's values seen in another shape or order
VIEWS = frozenset({array.reshape, array.transpose, array.broadcast_to})

# rows that return their first input unchanged (their value is the input's)
IDENTITIES = frozenset({elementwise.identity, elementwise.stop_gradient})

REDUCTIONS = frozenset({reduce.reduce_sum, reduce.reduce_max, reduce.reduce_min,
                        reduce.reduce_prod, reduce.reduce_all, reduce.reduce_any})

# matrix products BLAS runs, and which inputs are the multiplied operands
PRODUCTS = MappingProxyType({linalg.matmul: (0, 1), linalg.addmm: (1, 2)})

# writes of a variable: the value assigned is the node's value
ASSIGNMENTS = frozenset({state.assign_p})

# (row, other row) -> the row computing both at once: when a graph computes both on the same
# leading inputs and attributes (the other row's extra inputs available first), one node of
# the joint row replaces them, and its kernel reads the shared inputs once (a training step's
# loss and its gradient on the same logits)
JOINT = MappingProxyType({
    (sparse_cross_entropy.sparse_softmax_cross_entropy,
     sparse_cross_entropy.sparse_softmax_cross_entropy_grad):
        sparse_cross_entropy.sparse_softmax_cross_entropy_and_grad,
})
