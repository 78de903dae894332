"""The JSON shapes: one projection of the engine API's typed answers.

`symscope <command> --json` prints these, the MCP server reads the same values and
the benchmarks count these texts' tokens, so no face builds a shape of its own and
none can drift. `emit` is the one JSON encoding (one line, newline-terminated).

    with Workspace.open("path/to/repo") as ws:
        print(emit(search_json("router", ws.search("router"))))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from symscope.core.models import IndexReport, OutlineNode, SearchHit, Stats, Symbol
from symscope.core.results import (
    Dependency,
    FileOutlineResult,
    Importers,
    LanguageInfo,
    Location,
    Outline,
    Status,
    SymbolSource,
    UsedBy,
    Uses,
    VectorsReport,
)
from symscope.core.sanitize import dumps

if TYPE_CHECKING:
    from symscope.core.bundle import BundleResult

Json = dict[str, Any]

#: Folded copies a search result lists by ID (`also`); `also_count` says how many there are in all.
ALSO_SHOWN = 3


def emit(obj: Any) -> str:
    """The exact text a front end prints for one JSON object (one line, newline-terminated)."""
    return dumps(obj) + "\n"


def symbol_json(sym: Symbol) -> Json:
    """A symbol's compact metadata: the shape of search results (without score)."""
    return {
        "id": sym.id,
        "name": sym.name,
        "qualname": sym.qualname,
        "kind": sym.kind,
        "language": sym.language,
        "path": sym.path,
        "start_line": sym.start_line,
        "end_line": sym.end_line,
        "signature": sym.signature,
        "tokens": sym.tokens,
    }


def hit_json(hit: SearchHit) -> Json:
    """One search result. With copies folded under it: `folded` (how alike: `identical`,
    `variants`, `similar`), `also` (the first `ALSO_SHOWN` IDs) and, when there are more,
    `also_count` (all of them): one hit must not carry forty IDs."""
    out: Json = {**symbol_json(hit.symbol), "score": round(hit.score, 4)}
    if hit.duplicates:
        out["also"] = list(hit.duplicates[:ALSO_SHOWN])
        if len(hit.duplicates) > ALSO_SHOWN:
            out["also_count"] = len(hit.duplicates)
        out["folded"] = hit.fold or "similar"
    return out


def search_json(query: str, hits: Sequence[SearchHit]) -> Json:
    """`symscope search --json`: the query as given and its results."""
    return {"query": query, "results": [hit_json(h) for h in hits]}


def show_json(shown: SymbolSource) -> Json:
    """`symscope show --json`: metadata, docstring and the exact source."""
    return {**symbol_json(shown.symbol), "docstring": shown.symbol.docstring, "source": shown.source}


def outline_node_json(node: OutlineNode) -> Json:
    return {**symbol_json(node.symbol), "children": [outline_node_json(c) for c in node.children]}


def outline_json(outline: Outline) -> Json:
    """`symscope outline --json`: a file's nested symbols, or a folder's files with their top-level ones."""
    if isinstance(outline, FileOutlineResult):
        return {"path": outline.path, "language": outline.language, "tokens": outline.tokens,
                "symbols": [outline_node_json(n) for n in outline.nodes]}
    return {"path": outline.path, "tokens": outline.tokens, "files": [
        {"path": f.file.path, "language": f.file.language, "tokens": f.file.tokens,
         "symbols": [symbol_json(s) for s in f.symbols]} for f in outline.files
    ]}


def vectors_json(report: VectorsReport) -> Json:
    return {"symbols": report.symbols, "embedded": report.embedded, "seconds": round(report.seconds, 2)}


def report_json(where: Location, report: IndexReport, vectors: VectorsReport | None = None) -> Json:
    """`symscope index --json`: counts, seconds and every skipped file with its reason
    (and, when symbols were embedded for hybrid search, `semantic`)."""
    out: Json = {
        "root": where.root,
        "index": where.index,
        "files": report.files,
        "symbols": report.symbols,
        "parsed": report.parsed,
        "unchanged": report.unchanged,
        "removed": report.removed,
        "skipped": len(report.skipped),
        "seconds": round(report.seconds, 3),
        "skipped_files": [{"path": s.path, "reason": s.reason} for s in report.skipped],
    }
    if vectors is not None:
        out["semantic"] = vectors_json(vectors)
    return out


def used_by_json(used_by: UsedBy) -> Json:
    """`symscope refs --json`: the symbols that use one, each with the line of its first use."""
    return {"id": used_by.target.id, "references": [
        {**symbol_json(r.symbol), "line": r.line} for r in used_by.references
    ]}


def dependency_json(dep: Dependency) -> Json:
    s = dep.symbol
    return {"id": s.id, "name": s.name, "qualname": s.qualname, "kind": s.kind, "language": s.language,
            "path": s.path, "start_line": s.start_line, "end_line": s.end_line, "tokens": s.tokens,
            "distance": dep.distance, "ambiguous": dep.ambiguous}


def uses_json(uses: Uses) -> Json:
    """`symscope deps --json`: what a symbol uses, nearest first, and their tokens."""
    return {"id": uses.target.id, "depth": uses.depth, "deps": [dependency_json(d) for d in uses.deps],
            "tokens": uses.tokens}


def importers_json(importers: Importers) -> Json:
    """`symscope importers --json`."""
    return {"target": importers.target, "importers": [
        {"path": i.path, "module": i.module, "line": i.line, "symbols": list(i.symbol_ids)}
        for i in importers.files
    ]}


def stats_json(st: Stats) -> Json:
    """`symscope stats --json`: files, symbols, tokens, languages and kinds, and where the index lives."""
    return {
        "root": st.root, "index": st.index_path, "index_bytes": st.index_bytes,
        "files": st.files, "symbols": st.symbols, "tokens": st.tokens,
        "skipped": st.skipped,
        "languages": {k: {"files": n, "tokens": t} for k, (n, t) in st.languages.items()},
        "kinds": st.kinds,
    }


def status_json(status: Status) -> Json:
    """`stats_json` plus freshness (what MCP `index_status` reports)."""
    return {**stats_json(status.stats), "last_indexed": status.last_indexed,
            "changed_since": status.changed_since, "skipped_by_reason": dict(status.skipped_by_reason)}


def bundle_json(result: BundleResult) -> Json:
    """`symscope bundle --json`: the text, its exact tokens, the budget, the items and what was left out."""
    return {
        "text": result.text,
        "tokens": result.tokens,
        "budget": result.budget,
        "items": [{"id": i.id, "detail": i.detail, "tokens": i.tokens, "reason": i.reason}
                  for i in result.items],
        "dropped": [i.id for i in result.dropped],
        "redacted": result.redacted,
    }


def languages_json(languages: Sequence[LanguageInfo]) -> Json:
    """`symscope languages --json`."""
    return {"languages": [{"name": lang.name, "extensions": list(lang.extensions), "kinds": list(lang.kinds)}
                          for lang in languages]}
