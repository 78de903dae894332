"""Engine speed and memory on one corpus, printed next to the reference system's figures.

    python -m benchmarks.perf /path/to/fastapi [--json out.json]

Each figure is measured in a fresh subprocess so imports, caches and RSS are
honest. Timings are wall-clock on this machine: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: The reference system's figures on fastapi (2 cores), from issue #2.
REFERENCE = {
    "cold_index_s": 9.2,
    "noop_reindex_s": 1.5,
    "first_search_ms": 800.0,
    "warm_search_p50_ms": 2.4,
    "peak_rss_mb": 129.0,
    "cold_index_rss_mb": 129.0,
    "cli_search_wall_s": 0.6,
}
TARGETS = {
    "cold_index_s": 3.0,
    "noop_reindex_s": 0.3,
    "first_search_ms": 100.0,
    "warm_search_p50_ms": 2.0,
    "peak_rss_mb": 150.0,
    "cold_index_rss_mb": 100.0,
    "cli_search_wall_s": 0.5,
}
QUERIES = ["router route handler", "middleware", "error exception", "request response", "context bind"]

_INDEX_SCRIPT = """
import json, resource, sys, time
from symscope.core.api import Workspace
ix = Workspace.open(sys.argv[1], sys.argv[2], ensure=False)
t = time.perf_counter(); r = ix.refresh(rebuild=sys.argv[3] == "cold"); dt = time.perf_counter() - t
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"seconds": dt, "files": r.files, "symbols": r.symbols, "parsed": r.parsed,
                  "rss_mb": own, "child_rss_mb": kids}))
"""

_SEARCH_SCRIPT = """
import json, resource, sys, time
t0 = time.perf_counter()
from symscope.core.api import Workspace
ix = Workspace.open(sys.argv[1], sys.argv[2], ensure=False)
t1 = time.perf_counter(); hits = ix.search(sys.argv[3], limit=5); t2 = time.perf_counter()
warm = []
queries = json.loads(sys.argv[4])
for _ in range(40):
    for q in queries:
        s = time.perf_counter(); ix.search(q, limit=5); warm.append(time.perf_counter() - s)
print(json.dumps({"import_open_s": t1 - t0, "first_ms": (t2 - t1) * 1000, "warm": warm,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "hits": len(hits)}))
"""


def _py(script: str, *args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def measure(corpus: Path, runs: int = 3) -> dict[str, Any]:
    """Run every measurement; `runs` repeats for the noisy ones (the median is kept)."""
    with tempfile.TemporaryDirectory(prefix="symscope-perf-") as tmp:
        cold = [_py(_INDEX_SCRIPT, str(corpus), f"{tmp}/idx{i}", "cold") for i in range(runs)]
        idx = f"{tmp}/idx0"
        noop = [_py(_INDEX_SCRIPT, str(corpus), idx, "noop") for _ in range(runs)]
        searches = [_py(_SEARCH_SCRIPT, str(corpus), idx, q, json.dumps(QUERIES)) for q in QUERIES]
        cli: list[float] = []
        exe = Path(sys.executable).with_name("symscope")
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "symscope.cli"]
        for q in QUERIES:
            t = time.perf_counter()
            subprocess.run([*cmd, "search", q, "--repo", str(corpus), "--index-dir", idx, "--json"],
                           check=True, capture_output=True)
            cli.append(time.perf_counter() - t)
        index_bytes = sum(p.stat().st_size for p in Path(idx).iterdir() if p.is_file())
    warm = [w for s in searches for w in s["warm"]]
    return {
        "corpus": str(corpus),
        "files": cold[0]["files"],
        "symbols": cold[0]["symbols"],
        "cores": os.cpu_count(),
        "cold_index_s": statistics.median(r["seconds"] for r in cold),
        "noop_reindex_s": statistics.median(r["seconds"] for r in noop),
        "first_search_ms": statistics.median(s["first_ms"] for s in searches),
        "import_and_open_ms": statistics.median(s["import_open_s"] for s in searches) * 1000,
        "warm_search_p50_ms": statistics.median(warm) * 1000,
        "warm_search_p95_ms": sorted(warm)[int(len(warm) * 0.95)] * 1000,
        "peak_rss_mb": max(max(r["rss_mb"], r["child_rss_mb"]) for r in cold + noop),
        "cold_index_rss_mb": max(r["rss_mb"] for r in cold),
        "parser_rss_mb": max(r["child_rss_mb"] for r in cold),
        "search_rss_mb": max(s["rss_mb"] for s in searches),
        "cli_search_wall_s": statistics.median(cli),
        "index_mb": index_bytes / 1e6,
    }


def render(m: dict[str, Any]) -> str:
    rows = [
        ("cold index", "cold_index_s", "s"),
        ("no-change re-index", "noop_reindex_s", "s"),
        ("first search after open", "first_search_ms", "ms"),
        ("warm search p50", "warm_search_p50_ms", "ms"),
        ("peak RSS (per process)", "peak_rss_mb", "MB"),
        ("peak RSS, indexing process (cold)", "cold_index_rss_mb", "MB"),
        ("`symscope search` wall time", "cli_search_wall_s", "s"),
    ]
    lines = [
        f"corpus {m['corpus']}: {m['files']} files, {m['symbols']} symbols, {m['cores']} cores",
        "",
        "| measure | symscope | target | reference system | verdict |",
        "|---|---:|---:|---:|---|",
    ]
    for label, key, unit in rows:
        ok = m[key] <= TARGETS[key]
        lines.append(f"| {label} | {m[key]:.3g} {unit} | ≤ {TARGETS[key]:g} {unit} | "
                     f"{REFERENCE[key]:g} {unit} | {'met' if ok else 'MISSED'} |")
    lines.append("")
    lines.append(f"also: warm search p95 {m['warm_search_p95_ms']:.2f} ms, import+open "
                 f"{m['import_and_open_ms']:.0f} ms, search-process RSS {m['search_rss_mb']:.0f} MB, "
                 f"index on disk {m['index_mb']:.1f} MB, parser process peak RSS "
                 f"{m['parser_rss_mb']:.0f} MB")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="folder holding the fastapi checkout")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--rss-target", type=float, default=TARGETS["cold_index_rss_mb"], metavar="MB",
                        help="the indexing process's RSS target (100 MB for fastapi; 200 MB for a "
                        "repo of about 40,000 symbols)")
    args = parser.parse_args(argv)
    TARGETS["cold_index_rss_mb"] = args.rss_target
    if not args.corpus.is_dir():
        print(f"perf: error: not a directory: {args.corpus}", file=sys.stderr)
        return 2
    figures = measure(args.corpus, args.runs)
    print(render(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
