"""rank-bm25's Okapi statistics for a corpus, counted at C speed.

Only building a ranker imports this (and rank-bm25): `rank.SparseBM25` turns
these statistics into postings, and a loaded ranker needs neither.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import chain

from rank_bm25 import BM25Okapi


class OkapiStats(BM25Okapi):  # type: ignore[misc]
    """BM25Okapi's document frequencies, lengths and IDF (with its floor for common terms)."""

    vocab: dict[str, int]
    doc_freqs: list[Counter[str]]
    doc_len: list[int]
    idf: dict[str, float]
    avgdl: float

    def _initialize(self, corpus: Sequence[Sequence[str] | Counter[str]]) -> dict[str, int]:
        """rank-bm25's hook: the same fields and document frequencies, without a Python loop per term."""
        docs = [d if isinstance(d, Counter) else Counter(d) for d in corpus]
        self.doc_freqs = docs
        self.doc_len = list(map(Counter.total, docs))
        self.corpus_size = len(docs)
        self.avgdl = sum(self.doc_len) / self.corpus_size
        nd = Counter(chain.from_iterable(docs))  # a document's keys: each term once
        self.vocab = {term: i for i, term in enumerate(nd)}
        return dict(nd)
