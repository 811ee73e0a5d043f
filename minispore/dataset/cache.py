"""DatasetCache: MindSpore's client of its cache server, here a documented no-op stand-in.

MindSpore's cache keeps the rows a source or map step produced in a separate server's
memory so that later epochs (and other pipelines of the same session) read them back
instead of recomputing them. It changes speed, not rows: MindSpore rejects a cache above a
random transform, so cached and uncached pipelines give the same data. minispore has no
cache server; `cache=DatasetCache(...)` is accepted wherever MindSpore takes it and every
epoch reads its rows again, which yields the same rows. get_stat reports nothing cached.
"""
from typing import Any, NamedTuple, Optional

from .engine import check_int
from .serialization import record_init

__all__ = ["DatasetCache"]


class CacheStats(NamedTuple):
    """What `DatasetCache.get_stat` reports (all zero: nothing is cached)."""
    num_mem_cached: int
    num_disk_cached: int
    avg_cache_sz: int
    num_numa_hit: int
    min_row_id: int
    max_row_id: int
    cache_service_state: int


class DatasetCache:
    """A cache session's handle (accepted, caches nothing; see the module docstring).

    Args:
        session_id: the cache server's session (an int >= 0).
        size: the memory budget in MB (0: no limit); spilling, hostname, port,
            num_connections, prefetch_size: the server's settings. All are kept for repr.

    Example:
        >>> import minispore.dataset as ds
        >>> cache = ds.DatasetCache(session_id=1, size=0)
        >>> cache.get_stat().num_mem_cached
        0
    """

    def __init__(self, session_id: int, size: int = 0, spilling: bool = False,
                 hostname: Optional[str] = None, port: Optional[int] = None,
                 num_connections: Optional[int] = None,
                 prefetch_size: Optional[int] = None) -> None:
        check_int(session_id, 0, "DatasetCache", "session_id")
        check_int(size, 0, "DatasetCache", "size")
        self.session_id, self.size, self.spilling = session_id, size, bool(spilling)
        self.hostname, self.port = hostname, port
        self.num_connections, self.prefetch_size = num_connections, prefetch_size

    def get_stat(self) -> CacheStats:
        """The cache's statistics: nothing is ever cached here."""
        return CacheStats(0, 0, 0, 0, -1, -1, 0)

    def __repr__(self) -> str:
        return (f"DatasetCache(session_id={self.session_id}, size={self.size}, "
                f"spilling={self.spilling})")

    def __deepcopy__(self, memo: Any) -> "DatasetCache":
        return self  # one session, shared by the pipelines that name it


record_init(DatasetCache)  # serialize writes a cache by its arguments
