"""Abbreviations in a search: `bjson` finds `Context.BindJSON` when the ranker finds little.

The ranker scores words (BM25 over split identifiers), so a typed abbreviation
usually matches nothing. When a one-word query gets fewer than `FEW_HITS` hits,
the search appends the symbols whose names that word abbreviates
(`abbrev.NameIndex`: exact names, then prefixes, then abbreviations), after the
ranked hits and under the same `kind:`, `lang:` and `path:` filters. Test, example
and docs code ranks after the rest, as in the ranker. It is part of the engine's
search, so every face (CLI, MCP, TUI, benchmarks) gets the same hits.

A query of several words, or one the ranker answered well, is left as it was: the
retrieval figures of ordinary queries do not move.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from symscope.core.code_roles import in_test_module, is_auxiliary
from symscope.core.models import SearchHit
from symscope.core.search.abbrev import NameIndex
from symscope.core.store import Store

#: A one-word query with fewer ranked hits than this gets abbreviation matches appended.
FEW_HITS = 5


class Abbreviations:
    """Every symbol's names, read from the store once per index generation, and only when a
    one-word query found little (no other search reads them); safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = -1
        self._names = NameIndex([])
        self._rows: list[tuple[str, str, str, str, str]] = []
        """(id, path, kind, language, qualname) per name, in index order."""

    def names(self, store: Store) -> NameIndex:
        """The names of the store's symbols now (read again when the index changed)."""
        generation = store.generation()
        with self._lock:
            if generation != self._generation:
                rows = store.query("SELECT id, path, kind, language, qualname, name FROM symbols ORDER BY path, ord")
                self._names = NameIndex([(r[5], r[4]) for r in rows])
                self._rows = [r[:5] for r in rows]
                self._generation = generation
            return self._names

    def extend(
        self,
        store: Store,
        hits: list[SearchHit],
        words: str,
        allowed: Callable[[str, str, str], bool],
        limit: int,
    ) -> list[SearchHit]:
        """`hits` plus the symbols the one word of `words` abbreviates, up to `limit` hits in all.

        Args:
            words: The query's words (filters already taken out).
            allowed: Whether the query's filters allow a symbol, by its path, kind and language
                (`filters.allows`).

        Nothing is added to a query of several words, or one the ranker answered with
        `FEW_HITS` hits or more. An added hit has score 0 and `abbreviated` set.
        """
        typed = words.split()
        if len(typed) != 1 or len(hits) >= FEW_HITS or len(hits) >= limit:
            return hits
        seen = {h.symbol.id for h in hits} | {d for h in hits for d in h.duplicates}
        index = self.names(store)
        rows = self._rows
        ranked = [m for m in index.rank(typed[0]) if allowed(rows[m.index][1], rows[m.index][2], rows[m.index][3])]
        aux = {m.index: is_auxiliary(rows[m.index][1]) or in_test_module(rows[m.index][4], rows[m.index][2])
               for m in ranked}
        ranked.sort(key=lambda m: (m.tier, aux[m.index], -m.score, m.index))
        wanted: list[str] = []
        for match in ranked:
            sym_id = rows[match.index][0]
            if sym_id not in seen:
                seen.add(sym_id)
                wanted.append(sym_id)
        out = list(hits)
        at = 0
        while len(out) < limit and at < len(wanted):
            chunk = wanted[at : at + limit - len(out)]
            at += len(chunk)
            symbols = store.symbols_by_ids(chunk)  # one gone since the names were read is skipped
            out += [SearchHit(symbols[i], 0.0, abbreviated=True) for i in chunk if i in symbols]
        return out
