"""Abbreviations in the search box: `bjson` finds `Context.BindJSON` when the engine finds little.

The engine ranks words (BM25 over split identifiers), so a typed abbreviation
usually matches nothing. When a one-word query gets fewer than `FEW_HITS`
results, the search pane appends the symbols whose names that word abbreviates
(`symscope.core.abbrev.rank_names`: exact names, then prefixes, then
abbreviations), after the engine's own hits and under the same `kind:`, `lang:`
and `path:` filters. Test, example and docs files rank after the rest, as in the
engine.

The names come from `Index.all_symbols()`, read once per index generation and
kept as small tuples, on the search worker's thread. No Textual here.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

from symscope.core.abbrev import NameIndex
from symscope.core.code_roles import in_test_module, is_auxiliary
from symscope.core.errors import SymscopeError
from symscope.core.index import Index
from symscope.core.models import SearchHit
from symscope.core.query import ParsedQuery
from symscope.core.searcher import glob_match

#: A one-word query with fewer engine hits than this gets abbreviation matches appended.
FEW_HITS = 5


@dataclass(frozen=True, slots=True)
class _Row:
    id: str
    name: str
    qualname: str
    kind: str
    language: str
    path: str
    auxiliary: bool


class NameTable:
    """Every symbol's names, as of one index generation; safe to share between threads."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self._generation: int | None = None
        self._rows: list[_Row] = []
        self._names = NameIndex([])
        self._lock = threading.Lock()

    def load(self) -> tuple[list[_Row], NameIndex]:
        """The names, read again when the index changed (another process may have re-indexed).

        The search pane also calls this ahead of time, when the box gets the focus, so the
        first query rarely waits for it.
        """
        generation = self.index.generation()
        with self._lock:
            if generation != self._generation:
                auxiliary: dict[str, bool] = {}
                rows = []
                for s in self.index.all_symbols():
                    aux = auxiliary.get(s.path)
                    if aux is None:
                        aux = auxiliary[sys.intern(s.path)] = is_auxiliary(s.path)
                    rows.append(_Row(s.id, s.name, s.qualname, sys.intern(s.kind), sys.intern(s.language),
                                     sys.intern(s.path), aux or in_test_module(s.qualname, s.kind)))
                self._rows = rows
                self._names = NameIndex([(r.name, r.qualname) for r in rows])
                self._generation = generation
            return self._rows, self._names

    def extend(self, hits: list[SearchHit], parsed: ParsedQuery, limit: int) -> tuple[list[SearchHit], int]:
        """`hits` plus the symbols a one-word query abbreviates; returns (hits, how many were added).

        Nothing is added to a query of several words, or one the engine answered with
        `FEW_HITS` results or more.
        """
        words = parsed.words.split()
        if len(words) != 1 or len(hits) >= FEW_HITS or len(hits) >= limit:
            return hits, 0
        rows, names = self.load()
        seen = {h.symbol.id for h in hits} | {d for h in hits for d in h.duplicates}
        ranked = [m for m in names.rank(words[0]) if _allowed(rows[m.index], parsed)]
        ranked.sort(key=lambda m: (m.tier, rows[m.index].auxiliary, -m.score, m.index))
        out = list(hits)
        for match in ranked:
            if len(out) >= limit:
                break
            row = rows[match.index]
            if row.id in seen:
                continue
            try:
                sym = self.index.symbol(row.id)
            except SymscopeError:
                continue  # gone since the names were read
            seen.add(row.id)
            out.append(SearchHit(sym, 0.0))
        return out, len(out) - len(hits)


def _allowed(row: _Row, parsed: ParsedQuery) -> bool:
    if parsed.kind and row.kind != parsed.kind:
        return False
    if parsed.language and row.language != parsed.language.lower():
        return False
    return not parsed.path or glob_match(row.path, parsed.path)
