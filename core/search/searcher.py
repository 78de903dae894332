"""`Searcher`: every search of one index, over its term index and its store.

A search runs in two stages. The candidate stage asks the term index (`termindex.py`, on
tantivy) for the best few hundred symbols by BM25 for the query's terms and expansions
(`expansion.py`) under its filters, and for the symbols the query names exactly. The
ranker then reads what it needs of those candidates from the store (`rankdata.py`) and
re-ranks them: score adjustments (`scoring.py`), the optional embedding fusion
(`fusion.py`), folding (`folding.py`), then abbreviations for a one-word query that
found little (`abbreviations.py`). Nothing is built or loaded for the whole repository,
so a search costs what its candidates cost, and an index changed by another process (a
shell's `symscope index` under an open TUI) is seen at the next search.
"""

from __future__ import annotations

import contextlib
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from symscope.core import levers
from symscope.core.errors import BadQueryError, IndexAccessError, StaleSettingsError
from symscope.core.models import SearchHit
from symscope.core.pathnames import escape_controls
from symscope.core.search.abbreviations import Abbreviations
from symscope.core.search.expansion import Expander
from symscope.core.search.filters import allows, filter_mask
from symscope.core.search.folding import pick
from symscope.core.search.fusion import DENSE_DEPTH, fuse
from symscope.core.search.model import HAND_WEIGHTS, log_bm25, vector
from symscope.core.search.rankdata import RankData, RowCache, candidate_data
from symscope.core.search.scoring import (
    RERANK_DEPTH,
    SHORT_QUERY,
    file_context,
    is_miscased,
    kind_features,
    name_features,
    public_first,
    query_asks_aux,
    union,
)
from symscope.core.search.termindex import Hit, TermIndex, glob_regex, path_key
from symscope.core.settings import DEFAULTS, terms_match
from symscope.core.store import Store
from symscope.core.terms import compact, query_terms

if TYPE_CHECKING:
    from collections.abc import Callable

    from symscope.core.semantic import DenseIndex

    #: (query, data, the candidates re-ranked, their features as `model.FEATURES`)
    Observer = Callable[[str, RankData, NDArray[np.intp], NDArray[np.float64]], None]

#: BM25 candidates asked of the term index, as a multiple of the ranker's re-rank depth. For a
#: query of a few words the re-rank's own depth is enough: measured against twice as many,
#: the top 10 of 1,100 short queries on 18 repositories (a 10k-file monorepo among them) did
#: not change, and a warm search reads half the candidates.
CANDIDATE_FACTOR = 1
#: ... for a sentence, whose file context reorders the most.
SENTENCE_FACTOR = 3
#: Symbols the query names exactly, looked at most.
EXACT_LIMIT = 2000
#: Test and example code re-ranked per hit asked for (plus `AUX_BASE`), beside the library's
#: `want`: it keeps a share of its score, so only its best few can rise. Measured on 368
#: labelled and study queries over 17 repositories and the 50k-file monorepo, every
#: auxiliary symbol in a top 10 was among the first 5 of its own BM25 list; asking for 200
#: made them 40% of a warm search's candidates (benchmarks/results.md, section 9).
AUX_PER_HIT = 4
AUX_BASE = 20


class Searcher:
    """Ranks an index's symbols; safe to share between the UI thread and a worker."""

    def __init__(self, store: Store, index_dir: Path) -> None:
        self.store = store
        self.index_dir = index_dir
        self.terms = TermIndex(index_dir, store)
        self._lock = threading.Lock()
        self._expander = Expander()
        self._abbreviations = Abbreviations()
        self._exported: tuple[int, set[str]] = (-1, set())
        self._dense: DenseIndex | None = None
        self._rows = RowCache()
        self.observe: Observer | None = None
        """A benchmark's hook (`benchmarks/fit_rank.py`): sees each search's features."""

    def invalidate(self) -> None:
        """Forget what is cached (the next search reads the index afresh)."""
        with self._lock:
            self._exported = (-1, set())
            self._dense = None
            self._rows = RowCache()
        self.terms.forget()

    def sync(self, progress: Callable[[int, int], None] | None = None,
             cancelled: Callable[[], bool] | None = None) -> int:
        """Bring the term index up to the store (after an index run, or one interrupted)."""
        return self.terms.sync(progress, cancelled)

    def reset(self) -> None:
        """Drop the term index (a rebuild writes it again)."""
        self.terms.reset()

    def ready(self) -> TermIndex:
        """The term index, synced first if files changed since (and it can be written).

        Raises:
            StaleSettingsError: the index's stored terms were built under other settings.
        """
        return self._prepare()[0]

    def _prepare(self) -> tuple[TermIndex, bool]:
        """`ready`, and whether the term index holds every change (else each hit's file is
        checked: a row may have been renumbered since). Per call, not per searcher: the UI
        thread and a worker search at once."""
        self._check_terms()
        clean = not self.terms.stale()
        if not clean:
            # A read-only copy, or another process syncing now: search what is written.
            with contextlib.suppress(OSError, ValueError, IndexAccessError):
                self.terms.sync()
                clean = True
        self.terms.refresh()
        return self.terms, clean

    def _check_terms(self) -> None:
        """Refuse terms an index run stored under other settings (a lever off): searching them
        would answer as if that lever were still off."""
        stored = self.store.get_meta("fingerprint")
        if self.store.get_meta("indexed_at") is None or stored is None:
            return  # never completed: nothing to mistake for a default index
        if not terms_match(stored):
            raise StaleSettingsError(
                "the index was built with other search settings (SYMSCOPE_SEARCH_OFF); "
                "run `symscope index` to rebuild it")

    def exported(self) -> set[str]:
        """Every name a package entry file re-exports, read once per generation."""
        generation = self.store.generation()
        with self._lock:
            if self._exported[0] != generation:
                self._exported = (generation, self.store.exported_names())
            return self._exported[1]

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
        terms, clean = self._prepare()
        if not terms.size:
            return []
        hits = self._ranked(terms, clean, query, typed, limit, kind, language, path_glob)
        return self._abbreviations.extend(self.store, hits, query, allows(kind, language, path_glob), limit)

    def prepare(self) -> int:
        """Open (and sync) the term index ahead of the first query (a face calls this off its
        UI thread); returns how many symbols there are."""
        return self.ready().size

    def _ranked(
        self,
        ti: TermIndex,
        clean: bool,
        query: str,
        typed: list[str],
        limit: int,
        kind: str | None,
        language: str | None,
        path_glob: str | None,
    ) -> list[SearchHit]:
        """The ranker's own hits, best first, copies folded."""
        sentence = len(set(typed)) > SHORT_QUERY
        terms, boosts = self._expander.expand(ti, typed, query)
        weights: dict[str, float] = {}
        for term, boost in zip(terms, boosts, strict=True):
            weights[term] = weights.get(term, 0.0) + boost * ti.idf(term)
        asks_aux = query_asks_aux(query)
        penalised = not path_glob and not asks_aux
        want = max(limit * 8 + 20, RERANK_DEPTH)
        depth = want * (SENTENCE_FACTOR if sentence else CANDIDATE_FACTOR)
        where: dict[str, Any] = {"kind": kind, "language": language,
                                 "path_regex": glob_regex(escape_controls(path_glob)) if path_glob else None}
        if penalised:  # test and example code keeps a share of its score: fewer of it can rise
            aux_want = min(want, limit * AUX_PER_HIT + AUX_BASE)
            found = ti.top(weights, depth, aux=False, **where) + ti.top(weights, aux_want, aux=True, **where)
        else:
            found = ti.top(weights, depth, **where)
        whole = compact(query)
        named_rows = ti.top(weights, EXACT_LIMIT, key=whole, exports=levers.on("exports"), **where) \
            if whole else []
        by_row: dict[int, Hit] = {h.row: h for h in found}
        by_row.update((h.row, h) for h in named_rows)
        dense = self._dense_index() if len(re.findall(r"[A-Za-z]{2,}", query)) >= 2 else None
        sims_all = dense.similarities(query) if dense is not None else None
        near_ids = dense.nearest(sims_all, DENSE_DEPTH * 4) if dense is not None and sims_all is not None else []
        with self._lock:
            cache = self._rows.at((self.store.generation(), ti.epoch))
        data = candidate_data(self.store, ti, list(by_row), self.exported(), extra_ids=near_ids, cache=cache)
        if not data.rows:
            return []
        bm25, matched = self._scores(data, by_row, clean)
        # the ranking model (`model.py`): log score = weights . features; a sentence without the
        # hybrid by the fitted weights, anything else by the hand-set ones
        w = vector(DEFAULTS.sentence_weights if sentence and dense is None else HAND_WEIGHTS, sentence)
        first = np.zeros((len(data.rows), 3), dtype=np.float64)
        first[:, 0] = log_bm25(bm25)
        if sentence and dense is None and levers.on("filecontext"):
            # (the hybrid's embeddings already read the query as a whole: measured, this lift
            # only distorted the BM25 share of the fused score there)
            first[:, 1] = file_context(data, bm25)
        filters = filter_mask(data, kind, language, path_glob)
        mask = matched & filters
        if penalised:  # test and example code keeps a share of its score
            first[:, 2] = data.auxiliary
        logs = first @ w[:3]
        logs[~matched] = -np.inf  # (a symbol holding no query term scores nothing)
        candidates = np.flatnonzero(mask)
        if candidates.size == 0 and dense is None:
            return []
        want = min(candidates.size, want)
        top = candidates[np.argpartition(-logs[candidates], want - 1)[:want]] if want else candidates
        # A query that is exactly a symbol's name (or qualified name) means that symbol, however
        # long its body: it is a candidate even below the BM25 cut, and it ranks first.
        n = len(data.ids)
        exact = np.zeros(n, dtype=bool)
        miscased = np.zeros(n, dtype=bool)
        respelled = np.zeros(n, dtype=bool)
        member = np.zeros(n, dtype=bool)
        exact_rows = {h.row for h in named_rows}
        named = [d for d, row in enumerate(data.rows)
                 if row in exact_rows and mask[d] and not (penalised and data.auxiliary[d])]
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
            top = union(top, np.array(named, dtype=top.dtype))
        rest = np.zeros((top.size, len(w) - 3), dtype=np.float64)
        rest[:, 0:2] = name_features(data, top, terms, query)
        if levers.on("priors"):
            rest[:, 2:7] = data.prior_parts[top]
        rest[:, 7:9] = kind_features(data.kinds[top])
        rest[:, 9] = np.log(data.heft[top])
        logs[top] += rest @ w[3:]
        if self.observe is not None:
            self.observe(query, data, top, np.hstack([first[top], rest]))
        scores = np.exp(logs).astype(np.float32)
        if levers.on("apifirst") and not named:
            top = public_first(data, top, scores, filters)
        if dense is not None and sims_all is not None and not named:  # the `semantic` extra
            top, scores = fuse(data, dense.aligned(sims_all, data.ids), scores, top, filters,
                               None if not penalised else data.auxiliary, typed, query)
        # exact names (the typed case before other cases of the same letters, the typed
        # spelling before other separators, a top-level definition before members of the same
        # name, then the main definition of the name before shims and mocks), score, index order
        main_first = np.where(exact[top] & ~miscased[top] & ~member[top], data.prior[top] * data.heft[top], 0.0) \
            if levers.on("substance") else np.zeros(top.size)
        top = top[np.lexsort((top, -scores[top], -main_first, member[top], respelled[top], miscased[top],
                              ~exact[top]))]
        return pick(self.store, data, top, scores, limit, penalised, exact, cache.words)

    @staticmethod
    def _scores(data: RankData, by_row: dict[int, Hit], clean: bool,
                ) -> tuple[NDArray[np.float32], NDArray[np.bool_]]:
        """Each document's BM25 score, and whether it holds a query term at all (a term in
        exactly half the symbols weighs zero: a symbol holding it is still a result).

        (A sentence's functions were once re-scored with a softened length normalisation, the
        `softlen` lever: on the auto-labelled pairs it cost MRR 0.021 on training and 0.013 on
        validation, and it is gone; benchmarks/results.md section 9.)"""
        n = len(data.rows)
        scores = np.zeros(n, dtype=np.float32)
        matched = np.zeros(n, dtype=bool)
        for doc, row in enumerate(data.rows):
            hit = by_row.get(row)
            if hit is not None and (clean or hit.pathkey == path_key(data.paths[doc])):
                scores[doc] = hit.score
                matched[doc] = True
        return scores, matched

    def _dense_index(self) -> DenseIndex | None:
        """The stored embeddings, when the `semantic` extra made some."""
        if not (self.index_dir / "semantic.npz").exists():
            return None  # the default install: semantic.py is never imported
        from symscope.core.semantic import dense_for

        with self._lock:
            self._dense = dense_for(self.index_dir, self._dense)
            return self._dense

    def mentioning(self, name: str) -> list[str]:
        """IDs of the symbols whose search terms include `name`'s term: reference candidates."""
        parts = query_terms(name)
        if not parts:
            return []
        ti = self.ready()
        term = parts[-1] if len(parts) == 1 else name.lower().replace("_", "")
        rows = ti.with_term(term)
        found: list[tuple[str, int, str]] = []
        for start in range(0, len(rows), 900):
            chunk = rows[start : start + 900]
            marks = ",".join("?" * len(chunk))
            found += self.store.query(f"SELECT path, ord, id FROM symbols WHERE rowid IN ({marks})", chunk)
        return [sym_id for _, _, sym_id in sorted(found)]
