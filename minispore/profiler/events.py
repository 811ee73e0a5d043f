"""The events a Profiler records, and what it writes: a Chrome / Perfetto trace and a table."""
import json
import os
import threading
from collections import defaultdict
from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    """One timed thing: an eager op ("op"), a compiled program run ("graph") or one of its
    steps ("kernel": a fused kernel, a BLAS call, a loop, a primitive). Times in ns."""
    name: str
    category: str
    start_ns: int
    duration_ns: int
    thread: int
    shapes: str = ""
    source: str = ""


class EventLog:
    """Events appended from any thread; small integer thread ids as trace viewers like them."""

    def __init__(self):
        self.events = []
        self._threads = {}
        self._lock = threading.Lock()

    def thread_id(self):
        ident = threading.get_ident()
        tid = self._threads.get(ident)
        if tid is None:
            with self._lock:
                tid = self._threads.setdefault(ident, len(self._threads) + 1)
        return tid

    def add(self, event):
        self.events.append(event)  # list.append is atomic under the GIL


def chrome_trace(events, origin_ns):
    """The Trace Event Format (loads in Perfetto and chrome://tracing): complete ("X") events
    with microsecond times from the profiler's start."""
    trace = [{"name": e.name, "cat": e.category, "ph": "X", "pid": os.getpid(), "tid": e.thread,
              "ts": (e.start_ns - origin_ns) / 1e3, "dur": e.duration_ns / 1e3,
              "args": {"shapes": e.shapes, "source": e.source}} for e in events]
    return {"traceEvents": trace, "displayTimeUnit": "ms",
            "otherData": {"producer": "minispore.Profiler"}}


def write_json(data, path):
    """Write `data` as JSON atomically (a reader never sees half a file)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def statistics(events):
    """{(category, name): [calls, total_ns]} over the events."""
    stats = defaultdict(lambda: [0, 0])
    for e in events:
        row = stats[(e.category, e.name)]
        row[0] += 1
        row[1] += e.duration_ns
    return stats


def top_table(events, top=20):
    """A text table of the `top` names by total time, ops and kernels apart from the graph runs
    that contain the kernels (whose time would otherwise count twice)."""
    stats = statistics(e for e in events if e.category != "graph")
    total = sum(ns for _, ns in stats.values()) or 1
    rows = sorted(stats.items(), key=lambda kv: -kv[1][1])[:top]
    lines = [f"{'name':<40} {'kind':<7} {'calls':>7} {'total ms':>10} {'mean us':>10} {'%':>6}"]
    for (category, name), (calls, ns) in rows:
        lines.append(f"{name[:40]:<40} {category:<7} {calls:>7} {ns / 1e6:>10.3f} "
                     f"{ns / calls / 1e3:>10.2f} {100 * ns / total:>6.1f}")
    return "\n".join(lines)
