"""Reports of what the compiler could not capture: graph breaks and recompiles.

Each break is reported once per (function, source line, reason) through the
"minispore.fallback" logger (warning level), and kept on the jitted function, where
`ms.explain(fn)` lists them, like `torch._dynamo.explain`.
"""
import logging
from dataclasses import dataclass

log = logging.getLogger("minispore.fallback")

HINTS = {
    "bool": "a Python `if`/`while` on a tensor value; compare shapes or Python values instead, "
            "or use ops.where / ops.select to keep the branch in the graph",
    "value": "a tensor value read on the host (float(), int(), item(), asnumpy(), np.asarray, "
             "tolist()); return the tensor instead, or compute with ops on it",
    "print": "print() of a tensor; use ops.Print()(...) to print inside the graph",
    "index": "a tensor used as a Python index or slice bound; use ops.gather / tensor indexing",
    "shape": "an op whose output shape depends on tensor values (nonzero, boolean masks)",
    "control flow": "a tensor-conditioned if/while/for compiles to graph control flow when its "
                    "block only assigns variables: move a `return` after the loop (set a "
                    "variable and `break`), keep Python side effects (appends, attribute "
                    "writes) and host reads (float(), asnumpy()) out of it",
    "side effect": "Python state changed by the function (attribute writes, list appends, "
                   "globals): its Python runs at every call so the effect is never skipped; "
                   "keep state in Parameters (ops.assign) to compile it whole",
}


@dataclass(frozen=True)
class BreakReport:
    """Where and why a graph broke."""
    function: str
    location: str   # "file.py:12: source line"
    reason: str     # what asked for the value, e.g. "bool(tensor) (e.g. `if tensor:`)"
    category: str   # a HINTS key

    @property
    def hint(self):
        return HINTS.get(self.category, "")

    def __str__(self):
        return (f"graph break in {self.function} at {self.location}\n  reason: {self.reason}"
                f"\n  hint: {self.hint}")


class GraphBreakError(RuntimeError):
    """Raised instead of breaking under ms.jit(fullgraph=True) or jit_syntax_level=ms.STRICT."""

    def __init__(self, report):
        super().__init__(f"{report}\n  (fullgraph=True / jit_syntax_level=STRICT: graph breaks are errors)")
        self.report = report


_reported = set()


def report_once(report):
    key = (report.function, report.location, report.reason)
    if key not in _reported:
        _reported.add(key)
        log.warning("%s", report)


def report_side_effect(function, location, what):
    """Report a Python side effect that keeps a function from replaying without Python."""
    report = BreakReport(function, location, what, "side effect")
    report_once(report)
    return report


def category_of(reason):
    if reason.startswith("control flow"):
        return "control flow"
    if reason.startswith("bool"):
        return "bool"
    if "print" in reason or "str(" in reason:
        return "print"
    if "index" in reason:
        return "index"
    if "shape" in reason:
        return "shape"
    return "value"


@dataclass
class Explanation:
    """What happened to a jitted function: compiled variants, recompiles and graph breaks."""
    graphs: int
    breaks: list
    recompiles: list

    @property
    def compiled_whole(self):
        return not self.breaks

    def __str__(self):
        lines = [f"{self.graphs} compiled variant(s), {len(self.breaks)} graph break(s), "
                 f"{len(self.recompiles)} recompile(s)"]
        lines += [str(b) for b in self.breaks]
        lines += [f"recompile: {r}" for r in self.recompiles]
        return "\n".join(lines)
