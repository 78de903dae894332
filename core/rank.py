"""BM25 ranking over symbols: Okapi scoring precomputed into sparse postings.

Scoring a query by scanning every document's term dict in Python (rank-bm25's
way) is too slow for a warm search budget of ~2 ms. `SparseBM25` stores each
term's per-document BM25 weight up front, so a query is a handful of numpy
scatter-adds. The IDF is rank-bm25's `BM25Okapi` formula, owned here (a test
compares the scores with rank-bm25's): log((N - df + 0.5) / (df + 0.5)), with
terms in more than half the documents floored at epsilon x the average IDF.

`BM25Builder` collects documents as term-id arrays while an index is built, so
a 40,000-symbol repo never holds every document's terms as Python strings.
"""

from __future__ import annotations

import os
import pickle
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

#: Bump when the pickled layout changes; old caches are then rebuilt.
RANKER_VERSION = 5
K1 = 1.2
B = 0.75
EPSILON = 0.25


class BM25Builder:
    """Documents added one at a time (in any order), then built into a `SparseBM25`.

    Each document is kept as a run of (term id, frequency) pairs in two flat
    arrays: a few bytes per distinct term, instead of a dict of strings.
    """

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self._term_ids = array("i")
        self._freqs = array("i")
        self._spans: dict[str, tuple[int, int, int]] = {}
        """key -> (start, end) in the flat arrays, and the document's length in terms."""

    def __contains__(self, key: str) -> bool:
        return key in self._spans

    def add(self, key: str, terms: Iterable[str] | Mapping[str, int]) -> None:
        """Add (or replace) document `key`: its terms, or their counts."""
        counts = terms if isinstance(terms, Mapping) else Counter(terms)
        vocab = self.vocab
        start = len(self._term_ids)
        length = 0
        for term, freq in counts.items():
            idx = vocab.get(term)
            if idx is None:
                idx = vocab[term] = len(vocab)
            self._term_ids.append(idx)
            self._freqs.append(freq)
            length += freq
        self._spans[key] = (start, len(self._term_ids), length)

    def build(self, order: Sequence[str], k1: float = K1, b: float = B) -> SparseBM25:
        """The ranker over the documents named in `order` (document i is `order[i]`).

        A key in `order` that was never added is an empty document.
        """
        ranker = SparseBM25((), k1=k1, b=b)
        n = len(order)
        ranker.corpus_size = n
        if n == 0:
            return ranker
        term_ids = np.frombuffer(self._term_ids, dtype=np.int32) if self._term_ids else np.zeros(0, np.int32)
        freqs = np.frombuffer(self._freqs, dtype=np.int32) if self._freqs else np.zeros(0, np.int32)
        empty = (0, 0, 0)
        spans = [self._spans.get(key, empty) for key in order]
        starts = np.fromiter((s[0] for s in spans), dtype=np.int64, count=n)
        ends = np.fromiter((s[1] for s in spans), dtype=np.int64, count=n)
        doc_len = np.fromiter((s[2] for s in spans), dtype=np.float64, count=n)
        counts = ends - starts
        # Gather every chosen document's pairs, in `order`.
        offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
        picked = np.arange(int(counts.sum()), dtype=np.int64) + offsets
        terms = term_ids[picked]
        tf = freqs[picked].astype(np.float64)
        doc_ids = np.repeat(np.arange(n, dtype=np.int32), counts)
        # Renumber the terms these documents use, in first-seen order (stable vocab ids).
        used, first = np.unique(terms, return_index=True)
        used = used[np.argsort(first, kind="stable")]
        remap = np.full(len(self.vocab), -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        terms = remap[terms]
        names = list(self.vocab)
        ranker.vocab = {names[old]: new for new, old in enumerate(used.tolist())}
        df = np.bincount(terms, minlength=len(used)).astype(np.float64)
        ranker.avgdl = float(doc_len.sum() / n)
        idf = okapi_idf(df, n)
        norm = k1 * (1 - b + b * doc_len[doc_ids] / (ranker.avgdl or 1.0))
        weights = idf[terms] * tf * (k1 + 1) / (tf + norm)
        order_idx = np.argsort(terms, kind="stable")
        ranker.indptr = np.concatenate(([0], np.cumsum(df.astype(np.int64)))).astype(np.int64)
        ranker.postings = doc_ids[order_idx]
        ranker.weights = weights[order_idx].astype(np.float32)
        return ranker


def okapi_idf(df: NDArray[np.float64], corpus_size: int, epsilon: float = EPSILON) -> NDArray[np.float64]:
    """BM25Okapi's IDF per term from its document frequency, with the floor for common terms."""
    if df.size == 0:
        return df
    idf = np.log(corpus_size - df + 0.5) - np.log(df + 0.5)
    floor = epsilon * float(idf.mean())
    return np.where(idf < 0, floor, idf)


class SparseBM25:
    """Okapi BM25 whose scores come from precomputed term postings."""

    def __init__(
        self, corpus: Sequence[Sequence[str] | Counter[str]] = (), k1: float = K1, b: float = B
    ) -> None:
        """Args:
            corpus: One document per symbol: its terms, or a `Counter` of them.
            k1: BM25 term-frequency saturation.
            b: BM25 length normalisation.
        """
        self.k1 = k1
        self.b = b
        self.corpus_size = 0
        self.avgdl = 0.0
        self.vocab: dict[str, int] = {}
        self.indptr = np.zeros(1, dtype=np.int64)
        self.postings = np.zeros(0, dtype=np.int32)
        self.weights = np.zeros(0, dtype=np.float32)
        if corpus:
            builder = BM25Builder()
            for i, doc in enumerate(corpus):
                builder.add(str(i), doc)
            built = builder.build([str(i) for i in range(len(corpus))], k1, b)
            self.__dict__.update(built.__dict__)

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

    def documents_with(self, term: str) -> NDArray[np.int32]:
        """The documents that contain `term`, in ascending order (empty if none)."""
        idx = self.vocab.get(term)
        if idx is None:
            return np.zeros(0, dtype=np.int32)
        lo, hi = self.indptr[idx], self.indptr[idx + 1]
        return np.sort(self.postings[lo:hi])


def save_ranker(path: Path, generation: int, payload: object) -> None:
    """Persist search structures atomically next to the index (write, then rename), mode 600."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
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


__all__ = ["BM25Builder", "SparseBM25", "load_ranker", "okapi_idf", "save_ranker"]
