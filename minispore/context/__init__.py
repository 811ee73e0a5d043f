"""Execution context: mode, device, dumps (`config`), and the interpreter stack (`interpreter`).

MindSpore 1.x spelling `from minispore import context; context.set_context(...)` works too.
"""
from .config import COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT, get_context, set_context

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "STRICT", "COMPATIBLE", "LAX", "set_context", "get_context"]
