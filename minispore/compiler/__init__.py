"""Graph mode's compiler: trace -> passes -> fusion -> codegen -> executable (see `pipeline`).

Importing this package adds the graph loop (`ops.while_loop`, `ops.WhileLoop`) to
`minispore.ops`, whose namespace holds it in MindSpore (ops sits below the compiler).
"""
from .. import ops
from ..ops.classes import simple_class
from .graph_loop import while_loop

ops.while_loop = while_loop
ops.WhileLoop = simple_class("WhileLoop", while_loop)
