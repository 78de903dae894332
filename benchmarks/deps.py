"""Dependency resolution: precision and recall on hand-labelled symbols, and its speed.

    python -m benchmarks.deps CORPORA_DIR [--only NAME] [--json OUT]

`benchmarks/deps_labels.json` lists symbols of the study corpora (and a few more
repositories, each at a pinned commit, in CORPORA_DIR/<name>) with their true
uses at depth 1, written by reading the code. Each label names the used symbols
by qualified name (and path where a name is defined twice). A predicted use
counts as correct when it matches a label; ambiguous predictions count like any
other (an ambiguous pair with one right candidate costs one false positive).

Speed (fastapi): `uses` of every library function and method with the index
open and warm (each file parsed once, as the TUI and MCP server do), and a
depth-2 closure for each. The index itself stores nothing new for this, so its
size and the cold index time are unchanged (`python -m benchmarks.perf`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from symscope.core.deps import Dependencies
from symscope.core.index import Index

LABELS = Path(__file__).with_name("deps_labels.json")


def _matches(label: str, sym_path: str, qualname: str) -> bool:
    if "::" in label:
        path, _, qual = label.partition("::")
        return path == sym_path and qual == qualname
    return label == qualname


def score(index: Index, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Precision and recall of depth-1 uses against the labels, with the misses listed."""
    deps = Dependencies(index)
    tp = fp = fn = 0
    misses: list[str] = []
    extras: list[str] = []
    for case in cases:
        sym = index.symbol(case["id"])
        got = [(d.path, d.qualname) for d, _, _ in deps.uses(sym)]
        want: list[str] = case["uses"]
        hit = [w for w in want if any(_matches(w, p, q) for p, q in got)]
        tp += len(hit)
        fn += len(want) - len(hit)
        misses += [f"{case['id']}: missing {w}" for w in want if w not in hit]
        for p, q in got:
            if not any(_matches(w, p, q) for w in want):
                fp += 1
                extras.append(f"{case['id']}: extra {p}::{q}")
    return {
        "symbols": len(cases),
        "labelled_uses": tp + fn,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "misses": misses,
        "extras": extras,
    }


def speed(index: Index) -> dict[str, float]:
    """Median and p95 milliseconds of `uses` and of a depth-2 closure over library code."""
    deps = Dependencies(index)
    started = time.perf_counter()
    deps.table()
    table_ms = (time.perf_counter() - started) * 1000
    symbols = [s for s in index.all_symbols()
               if s.kind in ("function", "method") and s.path.startswith(("fastapi/", "lib/", "src/"))]
    uses: list[float] = []
    for sym in symbols:
        t = time.perf_counter()
        deps.uses(sym)
        uses.append((time.perf_counter() - t) * 1000)
    closures: list[float] = []
    for sym in symbols:
        fresh = Dependencies(index)  # nothing memoised but the parsed files and the name table
        fresh._table, fresh._trees = deps._table, deps._trees
        t = time.perf_counter()
        fresh.closure(sym, 2)
        closures.append((time.perf_counter() - t) * 1000)

    def pct(xs: list[float], q: float) -> float:
        return sorted(xs)[min(len(xs) - 1, int(len(xs) * q))] if xs else 0.0

    return {
        "symbols": len(symbols),
        "table_ms": table_ms,
        "uses_p50_ms": statistics.median(uses) if uses else 0.0,
        "uses_p95_ms": pct(uses, 0.95),
        "closure2_p50_ms": statistics.median(closures) if closures else 0.0,
        "closure2_p95_ms": pct(closures, 0.95),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", type=Path, help="folder holding one folder per corpus")
    parser.add_argument("--only", help="one corpus")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    labels = json.loads(LABELS.read_text())
    out: dict[str, Any] = {"corpora": {}}
    total_tp = total_pred = total_labels = 0
    with tempfile.TemporaryDirectory(prefix="symscope-deps-") as tmp:
        for name, spec in labels["corpora"].items():
            if args.only and name != args.only:
                continue
            folder = args.corpora / name
            if not folder.is_dir():
                print(f"{name}: skipped, {folder} missing (extract {spec['repo']} at {spec['commit']})")
                continue
            with Index.open(folder, Path(tmp) / name) as index:
                index.update()
                result = score(index, spec["cases"])
                if name == "fastapi":
                    result["speed"] = speed(index)
            out["corpora"][name] = result
            tp = round(result["recall"] * result["labelled_uses"])
            total_tp += tp
            total_labels += result["labelled_uses"]
            total_pred += tp + len(result["extras"])
    print("| corpus | language | symbols | labelled uses | precision | recall |")
    print("|---|---|---:|---:|---:|---:|")
    for name, r in out["corpora"].items():
        lang = labels["corpora"][name]["language"]
        print(f"| {name} | {lang} | {r['symbols']} | {r['labelled_uses']} | {r['precision']:.2f} | "
              f"{r['recall']:.2f} |")
    if total_labels:
        precision = total_tp / total_pred if total_pred else 1.0
        print(f"| all | | {sum(r['symbols'] for r in out['corpora'].values())} | {total_labels} | "
              f"{precision:.2f} | {total_tp / total_labels:.2f} |")
        out["precision"], out["recall"] = precision, total_tp / total_labels
    for name, r in out["corpora"].items():
        for line in r["misses"] + r["extras"]:
            print(f"  {name}: {line}")
        if "speed" in r:
            s = r["speed"]
            print(f"\nspeed on {name} ({s['symbols']} library functions and methods, warm): name table "
                  f"{s['table_ms']:.0f} ms; uses p50 {s['uses_p50_ms']:.1f} ms, p95 {s['uses_p95_ms']:.1f} ms "
                  f"(target 20); depth-2 closure p50 {s['closure2_p50_ms']:.1f} ms, p95 "
                  f"{s['closure2_p95_ms']:.1f} ms (target 100)")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
