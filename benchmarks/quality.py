"""Retrieval-quality queries: loading `queries.json` and resolving targets in an index."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.metrics import LineSpan
from symscope.core.api import Workspace
from symscope.core.models import Symbol

QUERIES_FILE = Path(__file__).with_name("queries.json")
QUERY_STYLES = ("keyword", "intent")


@dataclass(frozen=True, slots=True)
class Target:
    path: str
    qualname: str


@dataclass(frozen=True, slots=True)
class QualityQuery:
    repo: str
    query: str
    style: str
    """`keyword` (identifiers or terse words) or `intent` (plain English)."""
    targets: tuple[Target, ...]
    why: str


class QueryFileError(ValueError):
    """queries.json is malformed or names a target the index does not have."""


def load_queries(path: Path = QUERIES_FILE) -> list[QualityQuery]:
    """Parse the query file, checking its shape (not yet whether targets exist)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise QueryFileError(f"cannot read {path}: {exc}") from None
    entries = raw.get("queries") if isinstance(raw, dict) else None
    if not isinstance(entries, list):
        raise QueryFileError(f"{path}: expected an object with a 'queries' list")
    out: list[QualityQuery] = []
    seen: set[tuple[str, str]] = set()
    for n, e in enumerate(entries, start=1):
        try:
            targets = tuple(Target(str(t["path"]), str(t["qualname"])) for t in e["targets"])
            q = QualityQuery(str(e["repo"]), str(e["query"]), str(e["style"]), targets,
                             str(e.get("why", "")))
        except (KeyError, TypeError) as exc:
            raise QueryFileError(f"{path}: query #{n} is missing {exc}") from None
        if not q.targets:
            raise QueryFileError(f"{path}: query #{n} ({q.query!r}) has no targets")
        if q.style not in QUERY_STYLES:
            raise QueryFileError(f"{path}: query #{n} has style {q.style!r}, not one of {QUERY_STYLES}")
        if (q.repo, q.query) in seen:
            raise QueryFileError(f"{path}: query {q.query!r} appears twice for {q.repo}")
        seen.add((q.repo, q.query))
        out.append(q)
    return out


def resolve_targets(index: Workspace, query: QualityQuery) -> list[Symbol]:
    """Each target's symbol in the index (the first, if a file defines the name twice).

    Raises:
        QueryFileError: a target names no indexed symbol.
    """
    out: list[Symbol] = []
    for t in query.targets:
        found = [s for s in index.file_symbols(t.path) if s.qualname == t.qualname]
        if not found:
            raise QueryFileError(
                f"{query.repo}: target {t.path}::{t.qualname} of {query.query!r} is not in the index"
            )
        out.append(found[0])
    return out


def spans_of(symbols: Sequence[Symbol]) -> list[LineSpan]:
    return [LineSpan(s.path, s.start_line, s.end_line) for s in symbols]


def queries_for(queries: Sequence[QualityQuery], repo: str) -> list[QualityQuery]:
    return [q for q in queries if q.repo == repo]
