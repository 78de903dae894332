"""BM25 ranking over symbols: rank-bm25's Okapi scoring, precomputed into sparse postings.

rank-bm25 scores a query by scanning every document's term dict in Python; that
is too slow for a warm search budget of ~2 ms. `SparseBM25` keeps its IDF (and
its handling of very common terms) but stores each term's per-document BM25
weight up front, so a query is a handful of numpy scatter-adds.
"""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Sequence
from itertools import chain
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

#: Bump when the pickled layout changes; old caches are then rebuilt.
RANKER_VERSION = 4


class SparseBM25:
    """Okapi BM25 whose scores come from precomputed term postings.

    Building uses rank-bm25 (`okapi.OkapiStats`); a loaded ranker does not
    import it, so a search process starts faster.
    """

    def __init__(
        self, corpus: Sequence[Sequence[str] | Counter[str]], k1: float = 1.2, b: float = 0.75
    ) -> None:
        """Args:
            corpus: One document per symbol: its terms, or a `Counter` of them
                already made (the indexer counts while parser processes work).
            k1: BM25 term-frequency saturation.
            b: BM25 length normalisation.
        """
        self.k1 = k1
        self.b = b
        self.corpus_size = len(corpus)
        self.avgdl = 0.0
        self.vocab: dict[str, int] = {}
        self.indptr = np.zeros(1, dtype=np.int64)
        self.postings = np.zeros(0, dtype=np.int32)
        self.weights = np.zeros(0, dtype=np.float32)
        if not corpus:
            return  # rank-bm25 divides by the corpus size; an empty repo is legitimate
        from symscope.core.okapi import OkapiStats

        stats = OkapiStats(corpus, k1=k1, b=b)
        self.avgdl = stats.avgdl
        self.vocab = stats.vocab
        self._build_postings(stats.doc_freqs, stats.doc_len, stats.idf)

    def _build_postings(
        self, docs: list[Counter[str]], doc_lengths: list[int], idf: dict[str, float]
    ) -> None:
        vocab = self.vocab
        terms = np.fromiter(map(vocab.__getitem__, chain.from_iterable(docs)), dtype=np.int64)
        tf = np.fromiter(chain.from_iterable(map(Counter.values, docs)), dtype=np.float64, count=len(terms))
        lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
        doc_ids = np.repeat(np.arange(len(docs), dtype=np.int32), lengths)
        doc_len = np.asarray(doc_lengths, dtype=np.float64)[doc_ids]
        idf_by_term = np.fromiter(map(idf.__getitem__, vocab), dtype=np.float64, count=len(vocab))
        avgdl = self.avgdl or 1.0
        norm = self.k1 * (1 - self.b + self.b * doc_len / avgdl)
        weights = idf_by_term[terms] * tf * (self.k1 + 1) / (tf + norm)
        order = np.argsort(terms, kind="stable")
        counts = np.bincount(terms, minlength=len(vocab))
        self.indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        self.postings = doc_ids[order]
        self.weights = weights[order].astype(np.float32)

    def get_scores(self, query: Sequence[str]) -> NDArray[np.float32]:
        """BM25 score of every document for the query terms (repeats count again)."""
        scores = np.zeros(self.corpus_size, dtype=np.float32)
        for term in query:
            idx = self.vocab.get(term)
            if idx is None:
                continue
            lo, hi = self.indptr[idx], self.indptr[idx + 1]
            scores[self.postings[lo:hi]] += self.weights[lo:hi]
        return scores


def save_ranker(path: Path, generation: int, payload: object) -> None:
    """Persist search structures atomically next to the index (write, then rename)."""
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as fh:
        pickle.dump((RANKER_VERSION, generation, payload), fh, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(path)


def load_ranker(path: Path, generation: int) -> object | None:
    """The persisted structures, or None when missing, stale or unreadable (then rebuild)."""
    try:
        with path.open("rb") as fh:
            version, gen, payload = pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
        return None
    if version != RANKER_VERSION or gen != generation:
        return None
    result: object = payload
    return result
