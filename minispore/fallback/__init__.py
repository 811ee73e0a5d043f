"""JIT fallback: what Graph mode does when host code needs a traced tensor's value, or the
traced Python has side effects or tensor-conditioned control flow (`ms.explain(fn)` reports
what happened to a function: graph_mode.jit_function)."""
from . import report  # noqa: F401
from .report import GraphBreakError  # noqa: F401
