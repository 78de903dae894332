"""The engine's operations as every front end needs them, returning ready-to-serialise dicts.

The CLI prints these dicts (as JSON, or formatted as text), the MCP server
returns them and the benchmarks count their tokens, so no front end builds a
shape of its own and none can drift. `emit` is the one JSON encoding.

    with api.open_index("path/to/repo") as index:
        print(api.emit(api.search(index, "kind:class router")))
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from symscope.core import limits
from symscope.core.errors import BadQueryError, SymscopeError
from symscope.core.models import SearchHit, Symbol
from symscope.core.pathnames import escape_name, fs_path
from symscope.core.query import parse_query
from symscope.core.sanitize import dumps

if TYPE_CHECKING:
    from symscope.core.deps import Dependency
    from symscope.core.index import Index
    from symscope.core.models import IndexReport, OutlineNode

Json = dict[str, Any]

#: Longest path, glob or file argument any front end takes (PATH_MAX on Linux): a longer one
#: names no file, and resolving it costs time quadratic in its parts.
MAX_PATH_CHARS = 4096
#: Longest search query, filters included: far past any real query, and it keeps the cost
#: of ranking one (which grows faster than its length) to milliseconds.
MAX_QUERY_CHARS = 2000


def check_length(value: str, what: str, limit: int) -> None:
    """Refuse an argument longer than `limit` characters before any work is spent on it."""
    if len(value) > limit:
        raise BadQueryError(f"{what} too long: {len(value)} characters (at most {limit})")


def emit(obj: Any) -> str:
    """The exact text a front end prints for one JSON object (one line, newline-terminated)."""
    return dumps(obj) + "\n"


def open_index(
    repo: str | os.PathLike[str],
    index_dir: str | os.PathLike[str] | None = None,
    *,
    ensure: bool = True,
    max_files: int | None = None,
    allow_any_root: bool = False,
) -> Index:
    """Open a repo's index; with `ensure`, build it first if it was never built.

    `max_files` and `allow_any_root` apply to that first build (see `Index.update`).
    """
    from symscope.core.index import Index  # on first use: parser processes never load numpy for it

    index = Index.open(repo, index_dir)
    if ensure and not index.is_built and not index.store.read_only:
        try:
            if max_files is None:
                index.update(allow_any_root=allow_any_root)
            else:
                index.update(max_files=max_files, allow_any_root=allow_any_root)
        except BaseException:
            index.close()
            raise
    return index


# -- shapes ------------------------------------------------------------------------------


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


#: Folded copies a search result lists by ID (`also`); `also_count` says how many there are in all.
ALSO_SHOWN = 3


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


def show_json(sym: Symbol, source: str) -> Json:
    """`symscope show --json`: metadata, docstring and the exact source."""
    return {**symbol_json(sym), "docstring": sym.docstring, "source": source}


def outline_node_json(node: OutlineNode) -> Json:
    return {**symbol_json(node.symbol), "children": [outline_node_json(c) for c in node.children]}


def report_json(index: Index, report: IndexReport) -> Json:
    """`symscope index --json`: counts, seconds and every skipped file with its reason."""
    return {
        "root": escape_name(str(index.root)),
        "index": escape_name(str(index.store.path)),
        "files": report.files,
        "symbols": report.symbols,
        "parsed": report.parsed,
        "unchanged": report.unchanged,
        "removed": report.removed,
        "skipped": len(report.skipped),
        "seconds": round(report.seconds, 3),
        "skipped_files": [{"path": s.path, "reason": s.reason} for s in report.skipped],
    }


# -- operations --------------------------------------------------------------------------


def refresh_vectors(index: Index, force: bool = False) -> Json | None:
    """Embed the symbols whose text changed (the `semantic` extra's hybrid search), when asked
    to or when the index already has vectors; `None` when there is nothing to do or the extra
    is not installed."""
    from symscope.core import semantic

    if not (force or (index.index_dir / semantic.VECTORS_FILE).exists()) or not semantic.available():
        return None
    report = semantic.update(index)
    return {"symbols": report.symbols, "embedded": report.embedded, "seconds": round(report.seconds, 2)}


def search_hits(
    index: Index,
    query: str,
    limit: int = 10,
    kind: str | None = None,
    lang: str | None = None,
    path: str | None = None,
) -> list[SearchHit]:
    """Rank symbols for `query`, which may carry filters (`kind:struct lang:go path:lib/* words`).

    Explicit `kind`/`lang`/`path` arguments win over the same filters in the text.

    Raises:
        BadQueryError: an empty query, a bad limit or an unknown kind or language.
    """
    limits.SEARCH_LIMIT.check("limit", limit)
    check_length(query, "query", MAX_QUERY_CHARS)
    if path is not None:
        check_length(path, "path glob", MAX_PATH_CHARS)
    parsed = parse_query(query)
    if parsed.errors:
        raise BadQueryError(parsed.errors[0])
    parsed = parsed.merged(kind, lang, path)
    if not parsed.words.strip():
        raise BadQueryError("empty query: give one or more words to search for")
    return index.search(parsed.words, limit=limit, kind=parsed.kind, language=parsed.language,
                        path_glob=parsed.path)


def search(
    index: Index,
    query: str,
    limit: int = 10,
    kind: str | None = None,
    lang: str | None = None,
    path: str | None = None,
) -> Json:
    """`search_hits` in the `search --json` shape."""
    return search_json(query, search_hits(index, query, limit, kind, lang, path))


def show(index: Index, symbol_id: str) -> Json:
    """A symbol's metadata and exact source, read now (StaleSymbolError if its file changed)."""
    sym = index.symbol(symbol_id)
    return show_json(sym, index.source(sym))


def resolve_target(index: Index, target: str, cwd: Path | None = None) -> str:
    """A user-given file or folder (absolute, relative to `cwd`, or to the repo) as repo-relative."""
    check_length(target, "path", MAX_PATH_CHARS)
    if "\x00" in target:
        raise BadQueryError("path contains a NUL byte")
    return index.relpath(target, cwd)


def outline(index: Index, target: str = ".", cwd: Path | None = None) -> Json:
    """A file's nested symbols, or a folder's files with their top-level symbols.

    Raises:
        SymscopeError: the path is outside the repo, missing, or a file that was not indexed.
    """
    rel = resolve_target(index, target, cwd)
    record = index.file(rel) if rel else None
    if record is not None:
        return {"path": rel, "language": record.language, "tokens": record.tokens,
                "symbols": [outline_node_json(n) for n in index.outline(rel)]}
    if os.path.isfile(fs_path(index.root, rel)):
        raise SymscopeError(f"{rel} is not indexed (run `symscope index` to see why it was skipped)")
    files = index.repo_outline(rel)
    return {"path": rel or ".", "tokens": sum(f.file.tokens for f in files), "files": [
        {"path": f.file.path, "language": f.file.language, "tokens": f.file.tokens,
         "symbols": [symbol_json(s) for s in f.symbols]} for f in files
    ]}


def refs(index: Index, symbol_id: str, limit: int = 200) -> Json:
    """The symbols that use a symbol, each with the line of the first use.

    Name-based candidates, minus those whose every mention resolves (by receiver
    or import) to another symbol (`core/deps.py`).
    """
    limits.REF_LIMIT.check("limit", limit)
    target = index.symbol(symbol_id)
    return {"id": target.id, "references": [
        {**symbol_json(r.symbol), "line": r.line} for r in index.deps.callers(target, limit)
    ]}


#: How deep `deps` may follow uses (each level multiplies the work).
MAX_DEPTH = limits.DEPTH.hi


def dependency_json(dep: Dependency) -> Json:
    s = dep.symbol
    return {"id": s.id, "name": s.name, "qualname": s.qualname, "kind": s.kind, "language": s.language,
            "path": s.path, "start_line": s.start_line, "end_line": s.end_line, "tokens": s.tokens,
            "distance": dep.distance, "ambiguous": dep.ambiguous}


def deps(index: Index, symbol_id: str, depth: int = 1) -> Json:
    """What a symbol uses, to `depth`, nearest first, with tokens; the symbol itself is never listed."""
    limits.DEPTH.check("depth", depth)
    target = index.symbol(symbol_id)
    found = index.deps.closure(target, depth)
    return {"id": target.id, "depth": depth, "deps": [dependency_json(d) for d in found],
            "tokens": sum(d.symbol.tokens for d in found)}


def importers(index: Index, target: str, cwd: Path | None = None) -> Json:
    """The files that import a file, folder or module, with their symbols that use it."""
    check_length(target, "target", MAX_PATH_CHARS)
    try:
        rel = resolve_target(index, target, cwd)
    except SymscopeError:
        rel = target  # a module name as written in imports (`fastapi.routing`, `./view`)
    return {"target": rel or ".", "importers": [
        {"path": i.path, "module": i.module, "line": i.line, "symbols": [s.id for s in i.symbols]}
        for i in index.deps.importers(rel)
    ]}


def stats(index: Index) -> Json:
    """Files, symbols, tokens, languages and kinds of an index, and where it lives."""
    st = index.stats()
    return {
        "root": st.root, "index": st.index_path, "index_bytes": st.index_bytes,
        "files": st.files, "symbols": st.symbols, "tokens": st.tokens,
        "skipped": st.skipped,
        "languages": {k: {"files": n, "tokens": t} for k, (n, t) in st.languages.items()},
        "kinds": st.kinds,
    }


def bundle(
    index: Index,
    ids: Sequence[str] = (),
    *,
    deps: int = 0,
    budget: int | None = None,
    fmt: str = "markdown",
    diff_ref: str | None = None,
    redact: bool = True,
    deps_level: str = "signature",
) -> Json:
    """A paste-ready bundle: `{"text", "tokens", "budget", "items", "dropped", "redacted"}`.

    `tokens` is the exact cl100k_base count of `text`, never over `budget`.
    """
    from symscope.core.bundle import build_bundle  # tiktoken and detect-secrets load only here

    limits.BUNDLE_DEPS.check("deps", deps)
    if budget is not None:
        limits.BUDGET.check("budget", budget)
    if not ids and diff_ref is None:
        raise BadQueryError("give one or more symbol IDs or files, or --diff")
    result = build_bundle(index, list(ids), deps=deps, budget=budget, fmt=fmt,  # type: ignore[arg-type]
                          diff_ref=diff_ref, redact=redact, deps_level=deps_level)  # type: ignore[arg-type]
    return result.to_json()


def status(index: Index, last_indexed: str | None = None, report: IndexReport | None = None) -> Json:
    """`stats` plus freshness: when last indexed, how many files the latest refresh found
    changed (`report`), and skipped files grouped by reason."""
    from collections import Counter

    data = stats(index)
    reasons = Counter(s.reason.split(" (")[0] for s in index.skipped())
    data["last_indexed"] = int(last_indexed) if last_indexed and last_indexed.isdigit() else None
    data["changed_since"] = (report.parsed + report.removed) if report is not None else None
    data["skipped_by_reason"] = dict(reasons.most_common())
    return data


def languages() -> Json:
    """Every supported language with its extensions and the kinds its query can produce."""
    from symscope.core.languages import all_languages
    from symscope.core.models import CONTAINER_KINDS, SYMBOL_KINDS

    specs = all_languages()

    def kinds_of(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        spec = specs[name]
        source = spec.query_source()
        captured = set(_DEFINITION.findall(source))
        if spec.file_symbol:
            captured.add(spec.file_symbol)
        for embedded in set(_EMBED.findall(source)) - seen - {"lang"}:  # script blocks of a Vue file
            if embedded in specs:
                captured |= kinds_of(embedded, seen | {name})
        if "@embed.lang" in source:  # `lang="ts"` picks TypeScript
            captured |= kinds_of("typescript", seen | {name}) if "typescript" not in seen else set()
        if "function" in captured and captured & CONTAINER_KINDS:
            captured.add("method")  # the extractor names a function inside a type a method
        return captured

    out = []
    for spec in sorted(specs.values(), key=lambda s: s.name):
        captured = kinds_of(spec.name)
        out.append({"name": spec.name, "extensions": list(spec.extensions),
                    "kinds": [k for k in SYMBOL_KINDS if k in captured]})
    return {"languages": out}


_DEFINITION = re.compile(r"@definition\.(\w+)")
_EMBED = re.compile(r"@embed\.(\w+)")
