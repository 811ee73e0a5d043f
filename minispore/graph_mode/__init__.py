"""Graph mode's front end: `@ms.jit` and GRAPH_MODE Cells (the cache, its guards, the fallback
around the compiler's pipeline)."""
from .jit_function import JitFunction, explain, jit, ms_function, mutable, run_cell_graph  # noqa: F401
