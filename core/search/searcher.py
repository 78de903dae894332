"""`Searcher`: the ranking data of one index, and every search that reads it.

The ranking data is persisted beside the SQLite file (`rank.pickle`) and tagged
with the index's generation, a counter every index run bumps in any process, and the
fingerprint of the `RankSettings` it was built with. A searcher re-checks both before
each search, so an index updated by another process (a shell's `symscope index` under
an open TUI) is picked up, and data built with a lever off never answers a default search.

A search runs: filters (`filters.py`), BM25 with the query's expansions (`expansion.py`),
score adjustments (`scoring.py`), the optional embedding fusion (`fusion.py`), folding
(`folding.py`), then abbreviations for a one-word query that found little (`abbreviations.py`).
"""

from __future__ import annotations

import contextlib
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from symscope.core import levers
from symscope.core.errors import BadQueryError, StaleSettingsError
from symscope.core.models import SearchHit
from symscope.core.rank import BM25Builder, load_ranker, save_ranker
from symscope.core.search.abbreviations import Abbreviations
from symscope.core.search.expansion import Expander
from symscope.core.search.filters import filter_mask
from symscope.core.search.folding import pick
from symscope.core.search.fusion import fuse
from symscope.core.search.rankdata import RankData, build_rank_data
from symscope.core.search.scoring import (
    AUX_PENALTY,
    RERANK_DEPTH,
    SHORT_QUERY,
    is_miscased,
    kind_prior,
    name_boosts,
    public_first,
    query_asks_aux,
    with_file_context,
)
from symscope.core.settings import current, terms_match
from symscope.core.store import Store
from symscope.core.terms import compact, query_terms

if TYPE_CHECKING:
    from symscope.core.semantic import DenseIndex


class Searcher:
    """Ranks an index's symbols; safe to share between the UI thread and a worker."""

    def __init__(self, store: Store, ranker_path: Path) -> None:
        self.store = store
        self.ranker_path = ranker_path
        self._data: RankData | None = None
        self._generation = -1
        self._fingerprint = ""
        self._lock = threading.Lock()
        self._expander = Expander()
        self._abbreviations = Abbreviations()
        self._dense: tuple[RankData, DenseIndex] | None = None

    def invalidate(self) -> None:
        """Forget the loaded data (the next search reloads or rebuilds it)."""
        with self._lock:
            self._data = None

    def data(self) -> RankData:
        """The ranking data for the index's current generation and settings: cached, loaded or built.

        Raises:
            UnknownLeverError: `SYMSCOPE_SEARCH_OFF` names no lever.
            StaleSettingsError: the index's stored terms were built under other settings.
        """
        generation = self.store.generation()
        fingerprint = current().fingerprint()
        with self._lock:
            if self._data is not None and (self._generation, self._fingerprint) == (generation, fingerprint):
                return self._data
            self._check_terms()
            loaded = load_ranker(self.ranker_path, generation, fingerprint)
            data = loaded if isinstance(loaded, RankData) else None
            if data is None:
                data = self._build(None, generation)
            self._data, self._generation, self._fingerprint = data, generation, fingerprint
            return data

    def _check_terms(self) -> None:
        """Refuse terms an index run stored under other settings (a lever off): rebuilding the
        ranker from them would answer as if that lever were still off."""
        stored = self.store.get_meta("fingerprint")
        if self.store.get_meta("indexed_at") is None or stored is None:
            return  # never completed: nothing to mistake for a default index
        if not terms_match(stored):
            raise StaleSettingsError(
                "the index was built with other search settings (SYMSCOPE_SEARCH_OFF); "
                "run `symscope index` to rebuild it")

    def rebuild(self, counted: BM25Builder | None = None) -> None:
        """Build and persist the data now (after an index run), so the next search starts fast.

        Args:
            counted: Documents already counted by the indexer while parser processes
                worked; only the others are read back from the store.
        """
        generation = self.store.generation()
        with self._lock:
            self._data = self._build(counted, generation)
            self._generation, self._fingerprint = generation, current().fingerprint()

    def _build(self, counted: BM25Builder | None, generation: int) -> RankData:
        data = build_rank_data(self.store, counted)
        with contextlib.suppress(OSError):  # a read-only cache dir only costs speed
            save_ranker(self.ranker_path, generation, data, current().fingerprint())
        return data

    def search(
        self,
        query: str,
        limit: int = 10,
        kind: str | None = None,
        language: str | None = None,
        path_glob: str | None = None,
    ) -> list[SearchHit]:
        """Rank symbols for a keyword or plain-English query (see `Index.search`).

        A one-word query the ranker finds little for also lists the symbols whose names
        it abbreviates (`abbreviations.py`), under the same filters.
        """
        if not query or not query.strip():
            raise BadQueryError("empty query: give one or more words to search for")
        if limit < 1:
            raise BadQueryError("--limit must be at least 1")
        typed = query_terms(query)
        if not typed:
            raise BadQueryError(f"query {query!r} has no searchable words")
        data = self.data()
        if not data.ids:
            return []
        filters = filter_mask(data, kind, language, path_glob)
        hits = self._ranked(data, query, typed, limit, filters, path_glob)
        return self._abbreviations.extend(self.store, data, hits, query, filters, limit)

    def abbreviation_names(self) -> int:
        """Prepare the names abbreviations match (a face calls this ahead of the first query,
        off its UI thread); returns how many symbols there are."""
        return len(self._abbreviations.names(self.data()))

    def _ranked(
        self,
        data: RankData,
        query: str,
        typed: list[str],
        limit: int,
        filters: NDArray[np.bool_],
        path_glob: str | None,
    ) -> list[SearchHit]:
        """The ranker's own hits, best first, copies folded."""
        sentence = len(set(typed)) > SHORT_QUERY
        terms, boosts = self._expander.expand(data, typed, query)
        # A sentence describes what a definition does, and the one that does it is often long;
        # a keyword query names something, and keeps BM25's usual preference for the concise.
        scores = data.bm25.get_scores(terms, boosts, soft=sentence)
        dense = self._dense_index(data) if len(re.findall(r"[A-Za-z]{2,}", query)) >= 2 else None
        if sentence and dense is None and levers.on("filecontext"):
            # (the hybrid's embeddings already read the query as a whole: measured, this lift
            # only distorted the BM25 share of the fused score there)
            scores = with_file_context(data, scores)
        # A term in exactly half the symbols weighs zero in Okapi BM25 (tiny repos): a symbol
        # holding a query word is still a result, ranked after those with weight.
        mask = ((scores > 0) | data.bm25.matches(terms)) & filters
        asks_aux = query_asks_aux(query)
        if not path_glob and not asks_aux:
            scores = np.where(data.auxiliary, scores * AUX_PENALTY, scores)
        candidates = np.flatnonzero(mask)
        if candidates.size == 0 and dense is None:
            return []
        want = min(candidates.size, max(limit * 8 + 20, RERANK_DEPTH))
        top = candidates[np.argpartition(-scores[candidates], want - 1)[:want]] if want else candidates
        # A query that is exactly a symbol's name (or qualified name) means that symbol, however
        # long its body: it is a candidate even below the BM25 cut, and it ranks first.
        exact = np.zeros(len(data.ids), dtype=bool)
        miscased = np.zeros(len(data.ids), dtype=bool)
        respelled = np.zeros(len(data.ids), dtype=bool)
        member = np.zeros(len(data.ids), dtype=bool)
        penalised = not path_glob and not asks_aux
        whole = compact(query)
        named = [d for d in data.exact.get(whole, ())
                 if mask[d] and not (penalised and data.auxiliary[d])]
        if named:
            exact[named] = True
            if levers.on("exactcase"):  # `Poly` means the class Poly before the function poly
                as_typed = query.strip()
                miscased[[d for d in named if is_miscased(as_typed, data.names[d], data.qualnames[d])]] = True
                # ... and `declarative_base` the function before the class `DeclarativeBase`
                respelled[[d for d in named if as_typed not in (data.names[d], data.qualnames[d])]] = True
            if levers.on("toplevel"):
                # `Engine` means the struct Engine before methods named Engine, and `Gson` the
                # class before its constructor `Gson.Gson` (a qualified name typed is exact)
                member[[d for d in named if data.qualnames[d] != data.names[d]
                        and compact(data.qualnames[d]) != whole]] = True
            top = np.union1d(top, np.array(named, dtype=top.dtype))
        scores = scores.copy()
        scores[top] *= name_boosts(data, top, terms, query)
        if levers.on("priors"):
            scores[top] *= data.prior[top]
        scores[top] *= kind_prior(data.kinds[top], sentence)
        if levers.on("apifirst") and not named:
            top = public_first(data, top, scores, filters)
        if dense is not None and not named:  # the `semantic` extra: BM25 fused with embeddings
            top, scores = fuse(data, dense.similarities(query), scores, top, filters,
                                None if path_glob or asks_aux else data.auxiliary, typed, query)
        # exact names (the typed case before other cases of the same letters, the typed
        # spelling before other separators, a top-level definition before members of the same
        # name, then the main definition of the name before shims and mocks), score, index order
        main_first = np.where(exact[top] & ~miscased[top] & ~member[top], data.prior[top] * data.heft[top], 0.0) \
            if levers.on("substance") else np.zeros(top.size)
        top = top[np.lexsort((top, -scores[top], -main_first, member[top], respelled[top], miscased[top],
                              ~exact[top]))]
        return pick(self.store, data, top, scores, limit, penalised, exact)

    def _dense_index(self, data: RankData) -> DenseIndex | None:
        """The stored embeddings aligned with `data`, when the `semantic` extra made some."""
        if not (self.ranker_path.parent / "semantic.npz").exists():
            return None  # the default install: semantic.py is never imported
        from symscope.core.semantic import dense_for

        with self._lock:
            cached = self._dense[1] if self._dense is not None and self._dense[0] is data else None
            dense = dense_for(self.ranker_path.parent, data.ids, cached)
            self._dense = (data, dense) if dense is not None else None
        return dense

    def mentioning(self, name: str) -> list[str]:
        """IDs of the symbols whose search terms include `name`'s term: reference candidates."""
        parts = query_terms(name)
        data = self.data()
        if not parts or not data.ids:
            return []
        term = parts[-1] if len(parts) == 1 else name.lower().replace("_", "")
        return [data.ids[d] for d in data.bm25.documents_with(term).tolist()]
