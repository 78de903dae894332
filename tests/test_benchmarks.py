"""Fast checks of the benchmark code on a tiny synthetic corpus (no RAG extra needed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `pytest` run without `python -m` does not put the repo on the path
    sys.path.insert(0, str(ROOT))

from benchmarks import STUDY_QUERIES, infra, rag, run  # noqa: E402
from benchmarks.metrics import (  # noqa: E402
    LineSpan,
    TokenRow,
    Unit,
    classify_span,
    hit_sets,
    score_query,
    score_results,
    summarize_quality,
    summarize_ratios,
)
from benchmarks.payload import (  # noqa: E402
    search_text,
    symbol_workflow,
    symscope_search,
    verify_against_cli,
)
from benchmarks.quality import (  # noqa: E402
    QUERIES_FILE,
    QualityQuery,
    QueryFileError,
    Target,
    load_queries,
    resolve_targets,
)
from symscope.core.index import Index  # noqa: E402

ROUTER_PY = '''"""A tiny router."""


class Router:
    """Maps paths to handlers."""

    def add_route(self, path, handler):
        """Register a handler for a path."""
        self.routes[path] = handler

    def handle(self, request):
        """Dispatch a request to its route handler."""
        return self.routes[request.path](request)


def error_middleware(handler):
    """Wrap a handler and turn exceptions into error responses."""
    def wrapped(request):
        try:
            return handler(request)
        except Exception as exc:
            return {"status": 500, "error": str(exc)}
    return wrapped
'''

CONTEXT_JS = """// Request context helpers.

function bindContext(req, res) {
  return { request: req, response: res };
}

function sendFile(res, path) {
  res.write(path);
  res.end();
}

module.exports = { bindContext, sendFile };
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("corpora")
    repo = base / "tiny"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib" / "router.py").write_text(ROUTER_PY)
    (repo / "lib" / "context.js").write_text(CONTEXT_JS)
    return repo


@pytest.fixture(scope="module")
def index(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Index:
    idx = Index.open(corpus, tmp_path_factory.mktemp("index"))
    idx.update()
    return idx


# -- metrics ---------------------------------------------------------------------------------


def test_ratio_summary_counts_failures_and_reports_both_ratios() -> None:
    rows = [TokenRow(1000, 100), TokenRow(1000, 400), TokenRow(1000, 12, ok=False)]
    assert rows[2].ratio is None and rows[2].reduction_pct is None
    s = summarize_ratios(rows)
    assert (s.queries, s.failures) == (3, 1)
    assert s.mean_ratio == pytest.approx((10 + 2.5) / 2)
    assert s.aggregate_ratio == pytest.approx(2000 / 500)
    assert s.mean_tokens == pytest.approx(250)
    assert s.mean_reduction_pct == pytest.approx((90 + 60) / 2)


def test_ratio_summary_all_failed() -> None:
    s = summarize_ratios([TokenRow(1000, 10, ok=False)])
    assert s.failures == 1 and s.mean_ratio is None and s.aggregate_ratio is None


def test_ranking_metrics() -> None:
    targets = [LineSpan("a.py", 10, 20), LineSpan("b.py", 1, 5)]
    results = [
        LineSpan("a.py", 12, 30),  # overlaps but cuts the target: no hit
        LineSpan("b.py", 1, 40),   # holds target 1
        LineSpan("a.py", 1, 25),   # holds target 0
    ]
    hits = hit_sets(results, targets)
    assert hits == [frozenset(), frozenset({1}), frozenset({0})]
    s = score_query(hits, len(targets))
    assert (s.precision_at_1, s.recall_at_k, s.reciprocal_rank, s.first_hit_rank) == (0.0, 1.0, 0.5, 2)
    assert s.overlap_at_1 == 0.0
    loose = score_results(results, targets)
    assert loose.precision_at_1 == 0.0 and loose.overlap_at_1 == 1.0  # top result cuts target 0
    assert score_results([LineSpan("c.py", 1, 99)], targets).overlap_at_1 == 0.0
    zero = score_query([], 1)
    assert (zero.precision_at_1, zero.recall_at_k, zero.reciprocal_rank, zero.first_hit_rank) == (0, 0, 0, None)
    summary = summarize_quality([s, zero])
    assert summary is not None and summary.mrr == pytest.approx(0.25)
    with pytest.raises(ValueError):
        score_query([], 0)


def test_chunk_integrity_rules() -> None:
    func = Unit(0, 100, callable=True, has_children=False)
    cls = Unit(200, 600, callable=False, has_children=True)
    meth1 = Unit(250, 400, callable=True, has_children=False)
    meth2 = Unit(420, 590, callable=True, has_children=False)
    units = [func, cls, meth1, meth2]
    assert not classify_span(0, 150, units).split                  # whole function
    cut = classify_span(50, 150, units)
    assert cut.split and cut.split_callable                          # mid-function
    inside = classify_span(240, 595, units)
    assert not inside.split and inside.whole_units == 2              # class body, whole methods
    assert classify_span(300, 500, units).split_callable             # cuts both methods
    header = classify_span(150, 410, units)                          # class header + method 1, class cut
    assert header.split and not header.split_callable
    assert not classify_span(0, 700, units).split                    # everything
    assert not classify_span(120, 190, units).split                  # between definitions


# -- the symscope workflow ----------------------------------------------------------------------


def test_workflow_texts_match_the_real_cli(index: Index) -> None:
    query = "router route handler"
    results = symscope_search(index, query)
    assert results, "the tiny corpus should answer the study's first query"
    proc = subprocess.run(
        [sys.executable, "-m", "symscope.cli", "search", query, "--limit", "5", "--json",
         "--repo", str(index.root), "--index-dir", str(index.index_dir)],
        capture_output=True, text=True, check=True, timeout=60,
    )
    assert proc.stdout == search_text(query, results)
    assert verify_against_cli(index, query) == 1 + min(3, len(results))


def test_folded_copies_are_counted_as_the_cli_prints_them(tmp_path: Path) -> None:
    """A result with identical copies carries `also`; the benchmark counts the same text."""
    repo = tmp_path / "twins"
    for name in ("a", "b"):
        (repo / name).mkdir(parents=True)
        (repo / name / "util.py").write_text("def normalize_slug(text):\n    return text.strip().lower()\n")
    (repo / "other.py").write_text("def parse_header(raw):\n    return raw.split(':')\n\n"
                                   "def render_page(body):\n    return body\n")
    with Index.open(repo, tmp_path / "idx") as twins:
        twins.update(processes=1)
        results = symscope_search(twins, "normalize slug")
        assert results[0].duplicates, "the two identical functions should fold into one result"
        assert '"also": [' in search_text("normalize slug", results)
        assert verify_against_cli(twins, "normalize slug") == 2


def test_workflow_costs_and_zero_hit_query(index: Index) -> None:
    cost = symbol_workflow(index, "error exception", symscope_search(index, "error exception"))
    assert cost.ok and cost.search_tokens > 0 and cost.fetch_tokens > 0
    assert len(cost.fetched) <= 3 and cost.total == cost.search_tokens + cost.fetch_tokens
    none = symbol_workflow(index, "zzyzx", symscope_search(index, "zzyzx"))
    assert not none.ok and none.fetch_tokens == 0 and none.search_tokens > 0
    row = TokenRow(index.repo_tokens(), none.total, none.ok)
    assert row.ratio is None
    assert summarize_ratios([row]).failures == 1


# -- queries ---------------------------------------------------------------------------------------


def test_shipped_queries_file_is_well_formed() -> None:
    queries = load_queries(QUERIES_FILE)
    assert len(queries) >= 40
    assert {q.repo for q in queries} == {"express", "fastapi", "gin"}
    assert {q.style for q in queries} == {"keyword", "intent"}
    assert all(q.targets and q.why for q in queries)


def test_bad_queries_file_is_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "q.json"
    bad.write_text(json.dumps({"queries": [{"repo": "x", "query": "q", "style": "intent", "targets": []}]}))
    with pytest.raises(QueryFileError):
        load_queries(bad)
    bad.write_text("[]")
    with pytest.raises(QueryFileError):
        load_queries(bad)


def test_targets_resolve_against_the_index(index: Index) -> None:
    good = QualityQuery("tiny", "dispatch", "intent", (Target("lib/router.py", "Router.handle"),), "")
    (sym,) = resolve_targets(index, good)
    assert sym.path == "lib/router.py" and sym.start_line < sym.end_line and sym.tokens > 0
    missing = QualityQuery("tiny", "nope", "intent", (Target("lib/router.py", "Router.nope"),), "")
    with pytest.raises(QueryFileError):
        resolve_targets(index, missing)


# -- RAG pieces that need no extra -------------------------------------------------------------------


def test_locate_chunks_finds_lines_and_bytes() -> None:
    text = "alpha\nbeta gamma\n\nδelta\nomega\n"
    spans = rag.locate_chunks("f", text, ["alpha\nbeta", "beta gamma", "δelta\nomega"])
    assert spans[0] == (1, 2, 0, 10)
    assert spans[1][:2] == (2, 2)
    start_line, end_line, sb, eb = spans[2]
    assert (start_line, end_line) == (4, 5)
    assert text.encode()[sb:eb].decode() == "δelta\nomega"
    with pytest.raises(ValueError):
        rag.locate_chunks("f", text, ["missing"])


def test_embedding_cache_round_trip(tmp_path: Path) -> None:
    cache = rag.EmbeddingCache(tmp_path / "e.npz")
    cache.vectors["k"] = np.ones(4, dtype=np.float32)
    cache.seconds["k"] = 0.5
    cache.dirty = True
    cache.save()
    again = rag.EmbeddingCache(tmp_path / "e.npz")
    assert again.seconds == {"k": 0.5}
    assert np.array_equal(again.vectors["k"], np.ones(4, dtype=np.float32))


def test_chunk_bm25_uses_symscope_terms() -> None:
    pytest.importorskip("rank_bm25")
    bm25 = rag.ChunkBM25(["def sendFile(res): pass", "class Router: pass", "x = 1"])
    top = bm25.search("send file", 5)
    assert top and top[0][0] == 0
    assert bm25.search("zzyzx", 5) == []


def test_chunks_cover_the_indexed_files(index: Index) -> None:
    pytest.importorskip("langchain_text_splitters")
    chunks = rag.make_chunks(index, 512)
    assert {c.path for c in chunks} == {f.path for f in index.files()}
    for c in chunks:
        data = (index.root / c.path).read_bytes()
        assert data[c.start_byte : c.end_byte].decode() == c.text


# -- the whole run, without RAG ------------------------------------------------------------------------


def _tiny_queries(tmp_path: Path) -> Path:
    path = tmp_path / "queries.json"
    path.write_text(json.dumps({"queries": [
        {"repo": "tiny", "query": "send a file", "style": "intent",
         "targets": [{"path": "lib/context.js", "qualname": "sendFile"}], "why": "t"},
        {"repo": "tiny", "query": "register a route", "style": "intent",
         "targets": [{"path": "lib/router.py", "qualname": "Router.add_route"}], "why": "t"},
        {"repo": "tiny", "query": "gone", "style": "keyword",
         "targets": [{"path": "lib/router.py", "qualname": "Router.gone"}], "why": "t"},
    ]}))
    return path


def test_main_without_rag_writes_both_reports(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = [str(corpus.parent), "--repos", "tiny", "--out", str(out), "--skip-rag", "--quiet",
            "--cache-dir", str(tmp_path / "cache"), "--queries", str(_tiny_queries(tmp_path)),
            "--repeats", "2"]
    assert run.main(argv) == 0
    results = json.loads((out / "results.json").read_text())
    tiny = results["repos"]["tiny"]
    assert [q["query"] for q in tiny["efficiency"]["queries"]] == list(STUDY_QUERIES)
    assert tiny["corpus"]["baseline_tokens"] > 0
    assert tiny["integrity"]["symscope"]["problems"] == []
    assert tiny["quality"]["summary"]["symscope"]["queries"] == 2
    assert len(tiny["quality"]["invalid"]) == 1  # the missing target is reported, not fatal
    assert results["meta"]["rag"] == {"ran": False, "reason": "skipped: --skip-rag was given"}
    md = (out / "results.md").read_text()
    assert "Not run: skipped: --skip-rag was given" in md
    assert "## 6. Retrieval quality" in md and "Router.gone" in md
    # a second run reuses the cached index
    assert run.main(argv) == 0
    again = json.loads((out / "results.json").read_text())
    assert again["repos"]["tiny"]["efficiency"] == tiny["efficiency"]


def test_missing_extra_skips_rag_with_a_clear_message(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rag, "missing_rag_modules", lambda: ["torch", "faiss-cpu"])
    out = tmp_path / "out"
    argv = [str(corpus.parent), "--repos", "tiny", "--out", str(out), "--quiet",
            "--cache-dir", str(tmp_path / "cache"), "--queries", str(_tiny_queries(tmp_path)),
            "--repeats", "1"]
    assert run.main(argv) == 0
    meta = json.loads((out / "results.json").read_text())["meta"]
    assert not meta["rag"]["ran"]
    assert "torch, faiss-cpu" in meta["rag"]["reason"] and "bench-rag" in meta["rag"]["reason"]


def test_main_rejects_a_missing_corpus(tmp_path: Path) -> None:
    assert run.main([str(tmp_path), "--repos", "nope", "--quiet", "--skip-rag"]) == 2


def test_dependency_closure_and_sizes() -> None:
    names = infra.dependency_closure(["symscope"])
    assert "tree-sitter" in names and "numpy" in names
    size = infra.install_size(infra.symscope_roots())
    assert size.bytes > 0 and len(size.largest) <= 5


def test_charts_draw_the_runs_figures(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import json as _json

    from benchmarks import charts

    results = _json.loads((Path(__file__).parents[1] / "benchmarks" / "results.json").read_text())
    corpora, tokens = charts.token_series(results)
    assert corpora == ["express", "fastapi", "gin"]
    assert tokens["symscope (CLI)"] == [results["repos"][c]["efficiency"]["summary"]["mean_tokens"] for c in corpora]
    assert tokens["study's AST system"] == [924, 1834, 1124]
    written = charts.draw(results, tmp_path)
    assert [p.name for p in written] == [charts.TOKENS_PNG, charts.PRECISION_PNG]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written)


def test_intent_query_set_is_well_formed(tmp_path: Path) -> None:
    """Issue 14's labelled set: 60+ intent and config queries over 5+ repositories in 4+
    languages, 20+ queries on large repositories, every repository pinned to a commit."""
    from benchmarks.intent import IntentFileError, load_intent_queries

    repos, queries = load_intent_queries()
    main = [q for q in queries if q.set == "main" and q.style in ("intent", "config")]
    assert len(main) >= 60
    assert len({q.repo for q in main}) >= 5 and len({repos[q.repo]["language"] for q in main}) >= 4
    large = [q for q in queries if q.set == "large"]
    assert len(large) >= 20 and len({q.repo for q in large}) >= 2
    assert all(len(r["commit"]) == 40 for r in repos.values())
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"repos": repos, "queries": [
        {"set": "main", "repo": "express", "style": "intent", "query": "q", "targets": ["no-separator"]}]}))
    with pytest.raises(IntentFileError, match="path::qualname"):
        load_intent_queries(bad)


def test_heldout_query_set_is_well_formed_and_scored_by_line(index: Index) -> None:
    """The held-out set covers other repositories than the tuning set, and a target is the
    named definition holding the given line."""
    from benchmarks.heldout import load, rank
    from benchmarks.intent import load_intent_queries

    repos, queries = load()
    assert len(queries) >= 60 and len({r["language"] for r in repos.values()}) >= 4
    assert len({(q["repo"], q["query"]) for q in queries}) == len(queries)
    assert not set(repos) & set(load_intent_queries()[0])
    hits = index.search("send a file", limit=5)
    names = [h.symbol.name for h in hits]
    line = next(h.symbol.start_line for h in hits if h.symbol.name == "sendFile")
    target = {"path": "lib/context.js", "name": "sendFile", "line": line + 1}
    assert rank(index, hits, target) == names.index("sendFile") + 1
    assert rank(index, hits, {**target, "line": line - 1}) is None


def test_the_report_names_the_cache_under_home_without_the_machines_path() -> None:
    import os

    from benchmarks.report import _home_relative

    home = os.path.expanduser("~")
    assert _home_relative(os.path.join(home, ".cache", "symscope-bench")) == "~/.cache/symscope-bench"
    assert _home_relative("/srv/cache/symscope-bench") == "/srv/cache/symscope-bench"
    assert _home_relative(home + "-other/x") == home + "-other/x"
