"""Intent, config and exact-name retrieval quality (issue 14): `python -m benchmarks.intent CORPORA_DIR`.

The queries live in `intent_queries.json`: a `main` set (intent and config queries over
nine repositories in seven languages) and a `large` set (two repositories of 1,600+
files, with exact class and struct names). Each corpus is `CORPORA_DIR/<repo>`, that
repository extracted at the commit the file pins.

A result is a hit when it, or a copy folded into it (`also`), holds a target's whole
line range; a target may list alternatives (any one of them counts). The guard
section re-runs `queries.json` (keyword P@1 must not move) and prints the study's
five queries' top-3 on express/fastapi/gin so a change there is seen at once.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import SEARCH_LIMIT, STUDY_QUERIES
from benchmarks.metrics import MRR_CUTOFF, LineSpan, QueryScore, score_query, summarize_quality
from benchmarks.payload import symbol_workflow
from symscope.core import levers
from symscope.core.errors import SymscopeError
from symscope.core.index import Index
from symscope.core.models import SearchHit, Symbol
from symscope.core.settings import INDEX_LEVERS, current

INTENT_FILE = Path(__file__).with_name("intent_queries.json")
STYLES = ("intent", "config", "exact")
SETS = ("main", "large")
GUARD_REPOS = ("express", "fastapi", "gin")


@dataclass(frozen=True, slots=True)
class IntentQuery:
    set: str
    repo: str
    style: str
    query: str
    targets: tuple[tuple[str, ...], ...]
    """Each target: its alternatives as `path::qualname`."""
    why: str


class IntentFileError(ValueError):
    """intent_queries.json is malformed or names a target the index does not have."""


def load_intent_queries(path: Path = INTENT_FILE) -> tuple[dict[str, dict[str, str]], list[IntentQuery]]:
    """The pinned repositories and the queries, with their shape checked."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    repos: dict[str, dict[str, str]] = raw["repos"]
    out: list[IntentQuery] = []
    seen: set[tuple[str, str]] = set()
    for n, e in enumerate(raw["queries"], start=1):
        targets = tuple((t,) if isinstance(t, str) else tuple(t) for t in e["targets"])
        q = IntentQuery(e["set"], e["repo"], e["style"], e["query"], targets, e.get("why", ""))
        if q.set not in SETS or q.style not in STYLES or q.repo not in repos:
            raise IntentFileError(f"query #{n} ({q.query!r}): bad set, style or repo")
        if not targets or any(not alts or any("::" not in a for a in alts) for alts in targets):
            raise IntentFileError(f"query #{n} ({q.query!r}): targets must be path::qualname")
        if (q.repo, q.query) in seen:
            raise IntentFileError(f"query {q.query!r} appears twice for {q.repo}")
        seen.add((q.repo, q.query))
        out.append(q)
    return repos, out


def resolve(index: Index, query: IntentQuery) -> list[list[LineSpan]]:
    """Per target, the line spans of every symbol any of its alternatives names."""
    out: list[list[LineSpan]] = []
    for alts in query.targets:
        spans: list[LineSpan] = []
        for alt in alts:
            path, _, qualname = alt.partition("::")
            spans += [LineSpan(s.path, s.start_line, s.end_line)
                      for s in index.file_symbols(path) if s.qualname == qualname]
        if not spans:
            raise IntentFileError(f"{query.repo}: no symbol for {alts} ({query.query!r})")
        out.append(spans)
    return out


def _span(sym: Symbol) -> LineSpan:
    return LineSpan(sym.path, sym.start_line, sym.end_line)


def hit_sets(index: Index, hits: Sequence[SearchHit], targets: list[list[LineSpan]]) -> list[frozenset[int]]:
    """For each hit, the targets it (or a copy folded into it) holds whole."""
    out: list[frozenset[int]] = []
    for hit in hits:
        spans = [_span(hit.symbol)]
        for other in hit.duplicates:
            try:
                spans.append(_span(index.symbol(other)))
            except Exception:
                continue
        out.append(frozenset(i for i, alts in enumerate(targets)
                             if any(s.contains(t) for s in spans for t in alts)))
    return out


def _summary(scores: Sequence[QueryScore], tokens: Sequence[int]) -> dict[str, Any]:
    s = summarize_quality(scores)
    if s is None:
        return {}
    return {"queries": s.queries, "p_at_1": round(s.precision_at_1, 3), "r_at_5": round(s.recall_at_k, 3),
            "mrr": round(s.mrr, 3), "tokens_per_query": round(statistics.fmean(tokens)) if tokens else None}


#: Levers that change what is indexed (`settings.INDEX_LEVERS`): turning one off needs an
#: index of its own, or every switch would re-parse the repo.


def open_index(corpora: Path, cache_dir: Path, repo: str) -> tuple[Index, dict[str, Any]]:
    """The repo's cached index (one per set of indexing levers turned off), brought up to date."""
    off = sorted(levers.OFF & INDEX_LEVERS)
    index = Index.open(corpora / repo, cache_dir / "-".join([repo, *off]))
    t0 = time.perf_counter()
    report = index.update()
    return index, {"update_seconds": round(time.perf_counter() - t0, 2), "parsed": report.parsed,
                   "files": report.files, "symbols": report.symbols}


def run_queries(index: Index, queries: Sequence[IntentQuery], verbose: bool) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for q in queries:
        targets = resolve(index, q)
        hits = index.search(q.query, limit=MRR_CUTOFF)
        score = score_query(hit_sets(index, hits, targets), len(targets))
        cost = symbol_workflow(index, q.query, hits[:SEARCH_LIMIT])
        top = [f"{h.symbol.path}::{h.symbol.qualname}" for h in hits[:5]]
        records.append({"set": q.set, "repo": q.repo, "style": q.style, "query": q.query,
                        "rank": score.first_hit_rank, "p_at_1": score.precision_at_1,
                        "r_at_5": round(score.recall_at_k, 3), "rr": round(score.reciprocal_rank, 3),
                        "tokens": cost.total, "top5": top, "score": score})
        if verbose:
            mark = "ok " if score.precision_at_1 else ("r5 " if score.recall_at_k else "-- ")
            print(f"  {mark}{q.repo:10} {q.style:6} rank={score.first_hit_rank} {q.query!r}\n"
                  f"        top: {top[:3]}", file=sys.stderr)
    return records


def latency(index: Index, queries: Sequence[str], repeats: int = 20) -> dict[str, float]:
    """p50 of warm searches over these queries, and the first search on a freshly opened index."""
    samples: list[float] = []
    for query in queries:
        index.search(query, limit=SEARCH_LIMIT)
        for _ in range(repeats):
            t0 = time.perf_counter()
            index.search(query, limit=SEARCH_LIMIT)
            samples.append(time.perf_counter() - t0)
    fresh = Index.open(index.root, index.index_dir)
    try:
        t0 = time.perf_counter()
        fresh.search(queries[0], limit=SEARCH_LIMIT)
        first = time.perf_counter() - t0
    finally:
        fresh.close()
    return {"search_p50_ms": round(statistics.median(samples) * 1000, 3),
            "first_search_ms": round(first * 1000, 1)}


def guard(corpora: Path, cache_dir: Path) -> dict[str, Any]:
    """queries.json P@1 by style, and the study queries' top-3, on express/fastapi/gin."""
    from benchmarks.metrics import score_results
    from benchmarks.quality import load_queries, queries_for, resolve_targets, spans_of

    out: dict[str, Any] = {"styles": {}, "study_top3": {}, "tokens": {}}
    by_style: dict[str, list[QueryScore]] = defaultdict(list)
    queries = load_queries()
    for repo in GUARD_REPOS:
        index, _ = open_index(corpora, cache_dir, repo)
        with index:
            for q in queries_for(queries, repo):
                targets = spans_of(resolve_targets(index, q))
                hits = index.search(q.query, limit=MRR_CUTOFF)
                score = score_results([_span(h.symbol) for h in hits], targets)
                by_style[q.style].append(score)
                out.setdefault("ranks", {})[f"{repo}: {q.query}"] = score.first_hit_rank
            tokens = []
            for sq in STUDY_QUERIES:
                hits = index.search(sq, limit=SEARCH_LIMIT)
                out["study_top3"][f"{repo}: {sq}"] = [h.symbol.id for h in hits[:3]]
                tokens.append(symbol_workflow(index, sq, hits).total)
            out["tokens"][repo] = round(statistics.fmean(tokens))
            out.setdefault("latency", {})[repo] = latency(index, list(STUDY_QUERIES))
    for style, scores in by_style.items():
        s = summarize_quality(scores)
        assert s is not None
        out["styles"][style] = {"queries": s.queries, "p_at_1": round(s.precision_at_1, 3),
                                "r_at_5": round(s.recall_at_k, 3), "mrr": round(s.mrr, 3)}
    return out


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[f"{r['set']}/{r['style']}"].append(r)
        groups[f"{r['set']}/all"].append(r)
        if r["set"] == "main":
            groups[f"main/{r['repo']}"].append(r)
    return {k: _summary([r["score"] for r in v], [r["tokens"] for r in v]) for k, v in sorted(groups.items())}


def markdown(result: dict[str, Any], records: Sequence[dict[str, Any]], hybrid: bool) -> str:
    """The run's tables: quality by set and style, per repo, then every query's rank."""
    system = "hybrid (BM25 + all-MiniLM-L6-v2)" if hybrid else "BM25 (default install)"
    off = ", ".join(sorted(levers.OFF)) or "none"
    lines = [f"### {system}; levers off: {off}", "",
             "| set / style | queries | P@1 | R@5 | MRR | tokens/query |", "|---|---:|---:|---:|---:|---:|"]
    for key, s in result["summary"].items():
        lines.append(f"| {key} | {s['queries']} | {s['p_at_1']:.2f} | {s['r_at_5']:.2f} | {s['mrr']:.2f} | "
                     f"{s['tokens_per_query']} |")
    lines += ["", "| repo | files | symbols | update s | index MB |", "|---|---:|---:|---:|---:|"]
    for repo, c in result["indexing"].items():
        lines.append(f"| {repo} | {c['files']} | {c['symbols']} | {c['update_seconds']} | "
                     f"{c['index_bytes'] / 1e6:.1f} |")
    if "guard" in result:
        g = result["guard"]
        lines += ["", "| queries.json style | queries | P@1 | R@5 | MRR |", "|---|---:|---:|---:|---:|"]
        lines += [f"| {k} | {v['queries']} | {v['p_at_1']:.2f} | {v['r_at_5']:.2f} | {v['mrr']:.2f} |"
                  for k, v in g["styles"].items()]
        lines += ["", "| corpus | study tokens/query | search p50 ms | first search ms |", "|---|---:|---:|---:|"]
        lines += [f"| {k} | {g['tokens'][k]} | {g['latency'][k]['search_p50_ms']} | "
                  f"{g['latency'][k]['first_search_ms']} |" for k in g["tokens"]]
    lines += ["", "| set | repo | style | rank | query |", "|---|---|---|---:|---|"]
    lines += [f"| {r['set']} | {r['repo']} | {r['style']} | {r['rank'] or '-'} | {r['query']} |" for r in records]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.intent", description=__doc__.split("\n")[0])
    p.add_argument("corpora", type=Path)
    p.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "symscope-intent")
    p.add_argument("--repos", default="", help="comma-separated subset of repos")
    p.add_argument("--set", choices=SETS, default=None)
    p.add_argument("--guard", action="store_true", help="also run queries.json and the study queries")
    p.add_argument("--json", type=Path, default=None, help="write the results here")
    p.add_argument("--markdown", type=Path, default=None, help="write the tables here")
    p.add_argument("--hybrid", action="store_true",
                   help="embed library symbols first (needs the `semantic` extra): BM25 + embeddings")
    p.add_argument("-v", "--verbose", action="store_true")
    try:
        current()  # SYMSCOPE_SEARCH_OFF names real levers (a typo would measure the defaults)
    except SymscopeError as exc:
        p.error(str(exc))
    args = p.parse_args(argv)

    _, queries = load_intent_queries()
    wanted = {r for r in args.repos.split(",") if r}
    queries = [q for q in queries if (not wanted or q.repo in wanted) and (args.set is None or q.set == args.set)]
    records: list[dict[str, Any]] = []
    indexing: dict[str, Any] = {}
    for repo in dict.fromkeys(q.repo for q in queries):
        index, cost = open_index(args.corpora, args.cache_dir, repo)
        with index:
            if args.hybrid:
                from symscope.core import semantic

                rep = semantic.update(index, lambda d, n, r=repo: print(f"  {r}: embedded {d}/{n}", file=sys.stderr))
                cost["embed_seconds"], cost["embedded"] = round(rep.seconds, 1), rep.embedded
            cost["index_bytes"] = index.stats().index_bytes
            indexing[repo] = cost
            records += run_queries(index, [q for q in queries if q.repo == repo], args.verbose)
    result: dict[str, Any] = {"summary": summarize(records), "indexing": indexing}
    if args.guard:
        result["guard"] = guard(args.corpora, args.cache_dir)
    for key, s in result["summary"].items():
        print(f"{key:22} n={s['queries']:3} P@1 {s['p_at_1']:.2f}  R@5 {s['r_at_5']:.2f}  "
              f"MRR {s['mrr']:.2f}  tok/q {s['tokens_per_query']}")
    if args.guard:
        g = result["guard"]
        for style, s in g["styles"].items():
            print(f"queries.json/{style:10} n={s['queries']:3} P@1 {s['p_at_1']:.2f}  R@5 {s['r_at_5']:.2f}  "
                  f"MRR {s['mrr']:.2f}")
        print("study tokens/query:", g["tokens"], "latency:", g["latency"])
    if args.markdown:
        args.markdown.write_text(markdown(result, records, hybrid=args.hybrid), encoding="utf-8")
    if args.json:
        for r in records:
            r.pop("score")
        args.json.write_text(json.dumps({**result, "queries": records}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
