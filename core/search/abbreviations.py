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

import numpy as np
from numpy.typing import NDArray

from symscope.core.models import SearchHit
from symscope.core.search.abbrev import NameIndex
from symscope.core.search.rankdata import RankData
from symscope.core.store import Store

#: A one-word query with fewer ranked hits than this gets abbreviation matches appended.
FEW_HITS = 5


class Abbreviations:
    """Every symbol's names as of one `RankData`, prepared once; safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: RankData | None = None
        self._names = NameIndex([])

    def names(self, data: RankData) -> NameIndex:
        """The names of `data`'s symbols (prepared again when the ranking data changed)."""
        with self._lock:
            if self._data is not data:
                self._names = NameIndex(list(zip(data.names, data.qualnames, strict=True)))
                self._data = data
            return self._names

    def extend(
        self,
        store: Store,
        data: RankData,
        hits: list[SearchHit],
        words: str,
        allowed: NDArray[np.bool_],
        limit: int,
    ) -> list[SearchHit]:
        """`hits` plus the symbols the one word of `words` abbreviates, up to `limit` hits in all.

        Args:
            words: The query's words (filters already taken out).
            allowed: The symbols the query's filters allow (`filters.filter_mask`).

        Nothing is added to a query of several words, or one the ranker answered with
        `FEW_HITS` hits or more. An added hit has score 0 and `abbreviated` set.
        """
        typed = words.split()
        if len(typed) != 1 or len(hits) >= FEW_HITS or len(hits) >= limit:
            return hits
        seen = {h.symbol.id for h in hits} | {d for h in hits for d in h.duplicates}
        ranked = [m for m in self.names(data).rank(typed[0]) if allowed[m.index]]
        ranked.sort(key=lambda m: (m.tier, bool(data.auxiliary[m.index]), -m.score, m.index))
        wanted: list[str] = []
        for match in ranked:
            sym_id = data.ids[match.index]
            if sym_id not in seen:
                seen.add(sym_id)
                wanted.append(sym_id)
        out = list(hits)
        at = 0
        while len(out) < limit and at < len(wanted):
            chunk = wanted[at : at + limit - len(out)]
            at += len(chunk)
            symbols = store.symbols_by_ids(chunk)  # one gone since the data was built is skipped
            out += [SearchHit(symbols[i], 0.0, abbreviated=True) for i in chunk if i in symbols]
        return out
