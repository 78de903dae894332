"""Held-out plain-English queries (issue 14): `python -m benchmarks.heldout CORPORA_DIR [--hybrid]`.

`heldout_queries.json` holds 72 queries (54 intent, 18 config) over click, cobra,
requests, jsoup, serde_json and axios, written without running symscope. They check
changes tuned on `intent_queries.json`; a change that helps there and not here is a
change fitted to those queries. Each corpus is `CORPORA_DIR/<repo>`, extracted at the
commit the file pins.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.metrics import MRR_CUTOFF, QueryScore, score_query, summarize_quality
from symscope.core.api import Workspace
from symscope.core.models import SearchHit

HELDOUT_FILE = Path(__file__).with_name("heldout_queries.json")
#: The query styles a file may hold (the held-out set has the last two; the blind set all three).
STYLES = ("keyword", "intent", "config")


def load(path: Path = HELDOUT_FILE) -> tuple[dict[str, dict[str, str]], list[dict[str, Any]]]:
    """The pinned repositories and the queries, each with a style, path, name and line."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    queries: list[dict[str, Any]] = raw["queries"]
    for q in queries:
        if q["repo"] not in raw["repos"] or q["style"] not in STYLES \
                or not isinstance(q["line"], int) or not q["path"] or not q["name"]:
            raise ValueError(f"malformed held-out query: {q.get('query')!r}")
    return raw["repos"], queries


def score(index: Workspace, hits: Sequence[SearchHit], query: dict[str, Any]) -> QueryScore:
    """The hits scored against the query's one target: the named definition holding its line,
    as the hit itself or a copy folded into it."""
    def holds(hit: SearchHit) -> bool:
        return any(sym.path == query["path"] and sym.name == query["name"]
                   and sym.start_line <= query["line"] <= sym.end_line
                   for sym in [hit.symbol, *(index.symbol(d) for d in hit.duplicates)])

    return score_query([frozenset({0}) if holds(h) else frozenset() for h in hits], 1)


def rank(index: Workspace, hits: Sequence[SearchHit], query: dict[str, Any]) -> int | None:
    """The 1-based rank of the first hit that is, or folds in, the query's target."""
    return score(index, hits, query).first_hit_rank


def summary(scores: Sequence[QueryScore]) -> dict[str, float]:
    s = summarize_quality(scores)
    if s is None:
        return {"queries": 0}
    return {"queries": s.queries, "p_at_1": round(s.precision_at_1, 3), "r_at_5": round(s.recall_at_k, 3),
            "mrr": round(s.mrr, 3)}


def main(argv: Sequence[str] | None = None, queries_file: Path = HELDOUT_FILE,
         prog: str = "python -m benchmarks.heldout", about: str | None = None) -> int:
    """Score one query file's set (the held-out set by default; `benchmarks.blind` passes its own)."""
    p = argparse.ArgumentParser(prog=prog, description=about or __doc__.split("\n")[0])
    p.add_argument("corpora", type=Path)
    p.add_argument("--cache-dir", type=Path,
                   default=Path(tempfile.gettempdir()) / f"symscope-{queries_file.stem.split('_')[0]}")
    p.add_argument("--hybrid", action="store_true", help="embed library symbols first (the `semantic` extra)")
    p.add_argument("--json", type=Path, default=None, help="write every query's rank here")
    args = p.parse_args(argv)
    repos, queries = load(queries_file)
    missing = [repo for repo in repos if not (args.corpora / repo).is_dir()]
    if missing:
        print(f"no corpus folder for {', '.join(missing)} under {args.corpora}", file=sys.stderr)
        return 2
    records: list[dict[str, Any]] = []
    for repo in repos:
        with Workspace.open(args.corpora / repo, args.cache_dir / repo, ensure=False) as index:
            index.refresh()
            if args.hybrid and index.embed(force=True) is None:
                print("--hybrid needs the semantic extra: pip install 'symscope[semantic]'", file=sys.stderr)
                return 2
            for q in (q for q in queries if q["repo"] == repo):
                records.append({**q, "score": score(index, index.search(q["query"], limit=MRR_CUTOFF), q)})
    styles = [s for s in STYLES if any(r["style"] == s for r in records)]
    groups = {"all": records, **{s: [r for r in records if r["style"] == s] for s in styles},
              **{repo: [r for r in records if r["repo"] == repo] for repo in repos}}
    result = {k: summary([r["score"] for r in v]) for k, v in groups.items()}
    for key, s in result.items():
        print(f"{key:10} n={s['queries']:3} P@1 {s['p_at_1']:.2f}  R@5 {s['r_at_5']:.2f}  MRR {s['mrr']:.2f}")
    if args.json:
        ranked = [{**{k: v for k, v in r.items() if k != "score"}, "rank": r["score"].first_hit_rank} for r in records]
        args.json.write_text(json.dumps({"summary": result, "queries": ranked}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
