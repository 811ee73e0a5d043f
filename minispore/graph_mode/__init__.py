"""Graph mode's front end: `@ms.jit` and GRAPH_MODE Cells (the cache, its guards, the fallback
around the compiler's pipeline)."""
from .jit_function import (JitFunction, explain, jit, jit_class, ms_function,  # noqa: F401
                           mutable, run_cell_graph)
