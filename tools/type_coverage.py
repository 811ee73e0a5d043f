"""How much of minispore's public API carries complete type hints.

    python tools/type_coverage.py [GROUP] [--fail-under PERCENT]

Counts the public callables of `minispore`, `ops`, `nn` and `train` (functions, and the
`__init__`/`construct` of classes) and the methods of `Tensor`, defined in minispore, whose
every parameter (but self/cls) and return is annotated (`__init__` needs no return). Each
function is counted once, under the first name it is reached by, keyed by its module and
qualified name: the functions a factory makes count as one unless it renames them, and all
lambdas of a module as one (a lambda cannot carry hints). Prints the count per group
(ms.functions, ms.classes, ops.functions, ops.classes, nn..., train..., Tensor.methods) and the
total; with GROUP, also the names of that group still missing hints. `--fail-under` exits 1
when the total percentage is below PERCENT (for CI).
"""
import argparse
import inspect
import sys
from dataclasses import dataclass, field
from typing import Callable, Optional

CLASS_METHODS = ("__init__", "construct")


@dataclass
class Coverage:
    """Per group: the names of the complete and of the incomplete callables."""
    complete: dict[str, list[str]] = field(default_factory=dict)
    missing: dict[str, list[str]] = field(default_factory=dict)

    def add(self, group: str, name: str, done: bool) -> None:
        self.complete.setdefault(group, [])
        self.missing.setdefault(group, [])
        (self.complete if done else self.missing)[group].append(name)

    def counts(self, group: str) -> tuple[int, int]:
        """(complete, total) of a group."""
        done = len(self.complete.get(group, []))
        return done, done + len(self.missing.get(group, []))

    @property
    def groups(self) -> list[str]:
        return sorted(set(self.complete) | set(self.missing))

    @property
    def total(self) -> tuple[int, int]:
        done = sum(len(v) for v in self.complete.values())
        return done, done + sum(len(v) for v in self.missing.values())

    @property
    def percent(self) -> float:
        done, total = self.total
        return 100.0 * done / max(total, 1)


def is_complete(fn: Callable[..., object]) -> Optional[bool]:
    """Whether every parameter and the return of `fn` are annotated; None if `fn` has no
    signature to read."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    for name, p in sig.parameters.items():
        if name not in ("self", "cls") and p.annotation is inspect.Parameter.empty:
            return False
    return (sig.return_annotation is not inspect.Signature.empty
            or getattr(fn, "__name__", "") == "__init__")


def survey() -> Coverage:
    """The coverage of the public API as it is imported now."""
    import minispore as ms
    from minispore import nn, ops, train

    result = Coverage()
    seen: set[tuple[str, str]] = set()

    def tally(group: str, name: str, fn: Callable[..., object]) -> None:
        key = (fn.__module__, fn.__qualname__)
        if key in seen:
            return
        seen.add(key)
        done = is_complete(fn)
        if done is not None:
            result.add(group, name, done)

    for prefix, namespace in (("ms", ms), ("ops", ops), ("nn", nn), ("train", train)):
        for name in sorted(dir(namespace)):
            if name.startswith("_"):
                continue
            obj = getattr(namespace, name)
            if not (getattr(obj, "__module__", "") or "").startswith("minispore"):
                continue
            if inspect.isclass(obj):
                for meth in CLASS_METHODS:
                    f = obj.__dict__.get(meth)
                    if inspect.isfunction(f):
                        tally(f"{prefix}.classes", f"{name}.{meth}", f)
            elif inspect.isfunction(obj):
                tally(f"{prefix}.functions", name, obj)
    for cls in ms.Tensor.__mro__:
        if not cls.__module__.startswith("minispore"):
            continue
        for name, f in vars(cls).items():
            if not name.startswith("_") and inspect.isfunction(f):
                tally("Tensor.methods", name, f)
    return result


def report(result: Coverage, group: Optional[str] = None) -> str:
    """The table of counts; with `group`, followed by its missing names."""
    lines = []
    for g in result.groups:
        done, total = result.counts(g)
        lines.append(f"{g:22s} {done:5d}/{total:5d} {100 * done / max(total, 1):5.1f}%")
    done, total = result.total
    lines.append(f"{'TOTAL':22s} {done:5d}/{total:5d} {result.percent:5.1f}%")
    if group is not None:
        lines += [f"  {n}" for n in result.missing.get(group, [])]
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("group", nargs="?", help="list this group's callables missing hints")
    parser.add_argument("--fail-under", type=float, metavar="PERCENT",
                        help="exit 1 when the total coverage is below PERCENT")
    args = parser.parse_args(argv)
    result = survey()
    if args.group is not None and args.group not in result.groups:
        parser.error(f"unknown group {args.group!r}; groups: {', '.join(result.groups)}")
    print(report(result, args.group))
    if args.fail_under is not None and result.percent < args.fail_under:
        print(f"type coverage {result.percent:.1f}% is below {args.fail_under}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
