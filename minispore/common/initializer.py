"""MindSpore's `common.initializer` namespace (the implementation lives in core.initializer)."""
from ..core.initializer import *  # noqa: F401,F403
from ..core.initializer import __all__  # noqa: F401
