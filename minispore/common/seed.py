"""MindSpore's `common.seed` namespace (the random state lives in core.seed)."""
from ..core.seed import get_seed, set_seed  # noqa: F401
