"""JIT fallback: what Graph mode does when host code needs a traced tensor's value."""
from . import report  # noqa: F401
from .report import GraphBreakError, explain  # noqa: F401
