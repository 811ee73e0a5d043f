"""Run every workload and adapter in fresh single-threaded processes; print markdown tables.

    python -m benchmarks.run [--quick] [--only NAME[,NAME]] [--adapters A[,A]] [--repeat R]
                             [--malloc tuned|default] [--output results.md] [--json raw.json]

Each (workload script, adapter) runs R times (default 3; --quick: 1 and shorter sampling) in
a new process with one intra-op thread everywhere; repeats go round-robin over the adapters,
so that a change in machine load hits every adapter alike. A figure is the median over the
processes. Ratios are against numpy (and Graph against PyNative) measured in the same run;
the peer column quotes shared/BENCHMARKS.md. Adapters needing torch or jax are skipped when
those are not installed; every adapter runs with the same allocator settings (--malloc).
torch.compile adapters (minutes of compilation) are left out of --quick runs unless named
with --adapters, and its cold compile runs once per run. An adapter that errors, times out,
or whose fused kernels did not compile in time is not repeated.
"""
import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, version

from . import SINGLE_THREAD_ENV
from .harness import RESULT_MARKER
from .targets import PEERS, PRIMARY, TABLE_ORDER, evaluate_targets

SCRIPTS = ("op_overhead", "ew_fwd", "mlp_train_step", "compile_latency", "conv_small", "fallback_if",
           "lstm_lm", "transformer_block", "resnet_cnn")
WORKLOADS_OF = {"op_overhead": ("op_overhead",), "ew_fwd": ("ew_fwd", "ew_fwd_bwd"),
                "mlp_train_step": ("mlp_train_step",),
                "compile_latency": ("compile_ew_fwd", "compile_mlp_step"),
                "conv_small": ("conv_small",), "fallback_if": ("fallback_if",),
                "lstm_lm": ("lstm_lm",),
                "transformer_block": ("transformer_block",), "resnet_cnn": ("resnet_cnn",)}
TIMEOUT_S = {"compile_latency": 900}
DEFAULT_TIMEOUT_S = 300
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ***** running children *****

# minispore tunes glibc's allocator at import (core/memory.py: freed memory is reused
# instead of page-faulting fresh mmaps). Every adapter gets the same allocator, so that a
# ratio measures the framework and not malloc: by default all use minispore's setting.
TUNED_MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(1 << 30), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}
DEFAULT_MALLOC_ENV = {"MINISPORE_MALLOC_TUNING": "0"}


def child_env(scratch, malloc):
    """One thread everywhere; the same allocator settings for every adapter; kernel caches
    in this run's scratch directory (repeats reuse compiled kernels: compile cost is
    workload 5's business, not the steady-state figures')."""
    env = dict(os.environ)
    env.update(SINGLE_THREAD_ENV)
    env.update(TUNED_MALLOC_ENV if malloc == "tuned" else DEFAULT_MALLOC_ENV)
    env.update(MINISPORE_CACHE_DIR=os.path.join(scratch, "minispore"),
               NUMBA_CACHE_DIR=os.path.join(scratch, "numba"),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(scratch, "inductor"),
               JAX_PLATFORMS="cpu", PYTHONUNBUFFERED="1")
    return env


def run_child(script, adapter, quick, env):
    """The child's parsed record (with `error` set if it failed to produce one)."""
    argv = [sys.executable, "-m", f"benchmarks.{script}", "--adapter", adapter]
    argv += ["--quick"] if quick else []
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, check=False, cwd=ROOT, env=env, text=True, capture_output=True,
                              timeout=TIMEOUT_S.get(script, DEFAULT_TIMEOUT_S))
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {TIMEOUT_S.get(script, DEFAULT_TIMEOUT_S)} s",
                "results": {}, "checks": {}, "wall_s": time.perf_counter() - start}
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith(RESULT_MARKER)]
    if not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        record = {"error": f"exit {done.returncode}: {tail[:200]}", "results": {}, "checks": {}}
    else:
        record = json.loads(lines[-1][len(RESULT_MARKER):])
    record["wall_s"] = time.perf_counter() - start
    record["stderr"] = done.stderr
    return record


def should_repeat(record):
    return ("error" not in record and "skipped" not in record
            and all(ok for name, ok in record["checks"].items() if "kernels_compiled" in name))


# ***** aggregation *****

def aggregate(records):
    """{(workload, adapter): {"metrics": {name: median}, "checks": {name: all ok}, ...}}."""
    table = {}
    for (script, adapter), runs in records.items():
        for workload in WORKLOADS_OF[script]:
            entry = {"runs": len(runs), "metrics": {}, "checks": {}, "notes": []}
            values = {}
            for run in runs:
                for name, value in run["results"].get(workload, {}).items():
                    values.setdefault(name, []).append(value)
                for name, ok in run["checks"].items():
                    entry["checks"][name] = entry["checks"].get(name, True) and ok
                for key in ("error", "skipped"):
                    if key in run:
                        entry["notes"].append(f"{key}: {run[key]}")
            if not values and not entry["notes"]:
                continue  # this adapter does not do this workload (numba: no MLP)
            entry["metrics"] = {name: statistics.median(v) for name, v in values.items()}
            entry["spread"] = {name: (min(v), max(v)) for name, v in values.items()}
            table[workload, adapter] = entry
    return table


def _fmt(value):
    if value is None:
        return "—"
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _ratio(a, b):
    return None if a is None or not b else a / b


def workload_table(workload, table, adapters):
    """Markdown for one workload: absolute figures, ratios, peer figures, checks."""
    primary, unit = PRIMARY[workload]
    rows = [a for a in adapters if (workload, a) in table]
    metric_names = [primary]
    for a in rows:
        for name in table[workload, a]["metrics"]:
            if name not in metric_names:
                metric_names.append(name)
    numpy_value = table.get((workload, "numpy"), {}).get("metrics", {}).get(primary)
    pynative_value = table.get((workload, "minispore_pynative"), {}).get("metrics", {}).get(primary)
    peers = PEERS.get(workload, {})
    header = (["adapter"] + [f"{m} ({unit})" if m == primary else m for m in metric_names]
              + ["× numpy", "Graph × PyNative", "peer (BENCHMARKS.md)", "runs", "checks"])
    body = []
    for a in rows:
        entry = table[workload, a]
        m = entry["metrics"]
        value = m.get(primary)
        vs_numpy = _ratio(value, numpy_value) if a != "numpy" else None
        vs_pynative = (_ratio(value, pynative_value)
                       if a.startswith("minispore_graph") else None)
        peer = peers.get(a)
        peer_text = "—"
        if peer is not None:
            peer_text = _fmt(peer)
            if "numpy" in peers and a != "numpy":
                peer_text += f" ({_fmt(peer / peers['numpy'])}× numpy)"
        failed = [n for n, ok in entry["checks"].items() if not ok]
        checks = ("FAIL: " + ", ".join(failed) if failed
                  else "OK" if entry["checks"] else "—")
        if entry["notes"]:
            checks += "; " + "; ".join(sorted(set(entry["notes"])))
        cells = ([a] + [_fmt(m.get(name)) for name in metric_names]
                 + [_fmt(vs_numpy) + ("×" if vs_numpy is not None else ""),
                    _fmt(vs_pynative) + ("×" if vs_pynative is not None else ""),
                    peer_text, str(entry["runs"]), checks])
        body.append(cells)
    shown = [i for i in range(len(header)) if any(row[i] != "—" for row in body)]
    out = [f"### {workload}", "", "| " + " | ".join(header[i] for i in shown) + " |",
           "|" + "---|" * len(shown)]
    out += ["| " + " | ".join(row[i] for i in shown) + " |" for row in body]
    return "\n".join(out)


# ***** the report *****

def _versions():
    names = ["numpy", "numba", "scipy", "torch", "jax", "minispore"]
    found = []
    for name in names:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return ", ".join(found)


def _cpu():
    try:
        with open("/proc/cpuinfo") as f:
            model = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or "unknown CPU"
    return f"{model}, {os.cpu_count()} cores"


def report(table, adapters, args, elapsed_s, loads):
    setup = (f"`python -m benchmarks.run{' --quick' if args.quick else ''}` — {args.repeat} "
             f"process(es) per adapter, median; one core, one intra-op thread; {args.malloc} glibc "
             f"allocator for every adapter; {_cpu()}; Python "
             f"{platform.python_version()}; {_versions()}. Load average before/after: "
             f"{loads[0]:.1f} / {loads[1]:.1f}; wall time {elapsed_s / 60:.1f} min.")
    legend = ("Times are per call (lower is better); `× numpy` is this run's time over numpy's "
              "and `Graph × PyNative` minispore Graph's over minispore PyNative's. The peer "
              "column is BENCHMARKS.md's figure for the same adapter (MindSpore 2.10 for the "
              "minispore rows) and its ratio to numpy there: compare ratios, not absolute "
              "times. `runs` counts processes; checks list any that failed.")
    lines = ["## Benchmark results", "", setup, legend, ""]
    for workload in TABLE_ORDER:
        if any(w == workload for w, _ in table):
            lines += [workload_table(workload, table, adapters), ""]
    lines += ["### Targets", "", "| target | measured | met |", "|---|---|---|"]
    for target, measured, met in evaluate_targets(table):
        verdict = "—" if met is None else ("yes" if met else "**no**")
        lines.append(f"| {target} | {measured} | {verdict} |")
    return "\n".join(lines) + "\n"


# ***** command line *****

def _selected_scripts(only):
    if not only:
        return list(SCRIPTS)
    names = set(only.split(","))
    unknown = names - set(SCRIPTS) - {w for ws in WORKLOADS_OF.values() for w in ws}
    if unknown:
        raise SystemExit(f"--only: unknown workload(s) {sorted(unknown)}; choose from "
                         f"{list(SCRIPTS)} or {[w for ws in WORKLOADS_OF.values() for w in ws]}")
    return [s for s in SCRIPTS if s in names or names & set(WORKLOADS_OF[s])]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 process each, short sampling")
    parser.add_argument("--only", help="workload script(s) or workload(s), comma-separated")
    parser.add_argument("--adapters", help="adapter names to run, comma-separated")
    parser.add_argument("--repeat", type=int, help="processes per adapter (default 3; quick 1)")
    parser.add_argument("--output", help="also write the markdown report to this file")
    parser.add_argument("--json", help="write every child's raw record to this file")
    parser.add_argument("--malloc", choices=("tuned", "default"), default="tuned",
                        help="allocator for every adapter: minispore's tuning (mmap and trim "
                             "thresholds 1 GiB) or glibc's defaults (default: tuned)")
    args = parser.parse_args(argv)
    args.repeat = args.repeat or (1 if args.quick else 3)
    wanted = set(args.adapters.split(",")) if args.adapters else None

    plan = []  # (script, adapter, registry)
    for script in _selected_scripts(args.only):
        adapters = importlib.import_module(f"benchmarks.{script}").ADAPTERS
        plan += [(script, a, adapters) for a, spec in adapters.items()
                 if (a in wanted if wanted else not (args.quick and spec.slow))]
    all_adapters = list(dict.fromkeys(a for _, a, _ in plan))

    records, stopped = {}, set()
    loads = [os.getloadavg()[0]]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="minispore_bench_") as scratch:
        env = child_env(scratch, args.malloc)
        total = len(plan) * args.repeat
        done = 0
        for r in range(args.repeat):
            for script, adapter, registry in plan:
                done += 1
                key = (script, adapter)
                if key in stopped or r >= (registry[adapter].max_repeats or args.repeat):
                    continue
                if not registry.available(adapter):
                    records[key] = [{"skipped": f"needs {registry[adapter].needs}",
                                     "results": {}, "checks": {}}]
                    stopped.add(key)
                    continue
                record = run_child(script, adapter, args.quick, env)
                records.setdefault(key, []).append(record)
                status = record.get("error") or ", ".join(
                    n for n, ok in record["checks"].items() if not ok) or "ok"
                print(f"[{done:3d}/{total}] {script:16s} {adapter:30s} run {r + 1}: "
                      f"{record['wall_s']:6.1f} s  {status}", file=sys.stderr, flush=True)
                if not should_repeat(record):
                    stopped.add(key)
    elapsed = time.perf_counter() - start
    loads.append(os.getloadavg()[0])

    table = aggregate(records)
    text = report(table, all_adapters, args, elapsed, loads)
    print(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({f"{s}/{a}": runs for (s, a), runs in records.items()}, f, indent=1)


if __name__ == "__main__":
    main()
