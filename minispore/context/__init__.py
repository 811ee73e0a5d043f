"""Execution context: mode, device, dumps (`config`), and the interpreter stack (`interpreter`).

MindSpore 1.x spelling `from minispore import context; context.set_context(...)` works too.
"""
from .config import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT, get_context,
                     get_current_device, set_context, set_device)

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "STRICT", "COMPATIBLE", "LAX", "set_context", "get_context",
           "set_device", "get_current_device"]
