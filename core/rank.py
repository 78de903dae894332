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
import stat
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from symscope.core.private import write_private_with

#: Bump when the pickled layout changes; old caches are then rebuilt.
RANKER_VERSION = 21  # 21: families fold only one file's variants (issue 28)
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

    def build(
        self, order: Sequence[str], k1: float = K1, b: float = B, length_power: float | None = None,
        soft_docs: NDArray[np.bool_] | None = None,
    ) -> SparseBM25:
        """The ranker over the documents named in `order` (document i is `order[i]`).

        With `length_power` (below 1), a second set of weights softens length normalisation:
        a document's length counts as avgdl x (length / avgdl) ** power, so a long definition
        is not sunk below the small helpers around it (nor a short one lifted as far). A search
        picks the set per query (`get_scores(..., soft=True)`). `soft_docs`, if given, limits
        the softening to those documents (by position in `order`).

        A key in `order` that was never added is an empty document; one added but
        not in `order` is left out. Pairs stay where they were stored: each only
        learns its document number, so no copy of the whole corpus is made.
        """
        ranker = SparseBM25((), k1=k1, b=b)
        n = len(order)
        ranker.corpus_size = n
        if n == 0:
            return ranker
        position = {key: i for i, key in enumerate(order)}
        live = sorted(
            (start, end, position[key]) for key, (start, end, _) in self._spans.items() if key in position
        )
        starts = np.fromiter((s[0] for s in live), dtype=np.int64, count=len(live))
        ends = np.fromiter((s[1] for s in live), dtype=np.int64, count=len(live))
        docs = np.fromiter((s[2] for s in live), dtype=np.int32, count=len(live))
        counts = ends - starts
        term_ids = np.frombuffer(self._term_ids, dtype=np.int32) if self._term_ids else np.zeros(0, np.int32)
        freqs = np.frombuffer(self._freqs, dtype=np.int32) if self._freqs else np.zeros(0, np.int32)
        if int(counts.sum()) != len(term_ids):
            # Some stored documents were replaced or are not wanted: keep only the live pairs.
            keep = np.zeros(len(term_ids), dtype=bool)
            for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
                keep[start:end] = True
            term_ids, freqs = term_ids[keep], freqs[keep]
        doc_ids = np.repeat(docs, counts)
        doc_len = np.zeros(n, dtype=np.float64)
        doc_len[docs] = np.fromiter(
            (self._spans[order[d]][2] for d in docs.tolist()), dtype=np.float64, count=len(docs)
        )
        df = np.bincount(term_ids, minlength=len(self.vocab))
        ranker.vocab = dict(self.vocab)
        ranker.avgdl = float(doc_len.sum() / n)
        idf = okapi_idf(df.astype(np.float64), n)
        by_term = np.argsort(term_ids, kind="stable")
        ranker.indptr = np.concatenate(([0], np.cumsum(df))).astype(np.int64)
        ranker.weights = _okapi_weights(idf[term_ids], freqs, doc_len[doc_ids], ranker.avgdl, k1, b)[by_term]
        if length_power is not None and ranker.avgdl > 0:
            soft_len = ranker.avgdl * (doc_len / ranker.avgdl) ** length_power
            if soft_docs is not None:
                soft_len = np.where(soft_docs, soft_len, doc_len)
            ranker.soft_weights = _okapi_weights(
                idf[term_ids], freqs, soft_len[doc_ids], ranker.avgdl, k1, b
            )[by_term]
        ranker.postings = doc_ids[by_term]
        return ranker


def _okapi_weights(
    idf: NDArray[np.float64], freqs: NDArray[np.int32], lengths: NDArray[np.float64], avgdl: float,
    k1: float, b: float,
) -> NDArray[np.float32]:
    """Each (term, document) pair's BM25 weight, from the term's IDF, its frequency and the
    document's length, one entry per pair. `idf` and `lengths` are fresh per-pair arrays that
    this consumes: it works in float64 in place, then returns float32, so the scores match
    rank-bm25's to the bit of float32 without another copy of every pair."""
    tf = freqs.astype(np.float64)
    norm = lengths  # k1 * (1 - b + b * len / avgdl) + tf, in rank-bm25's order
    norm *= b
    norm /= avgdl or 1.0
    norm += 1 - b
    norm *= k1
    norm += tf
    weights = idf
    weights *= tf
    weights *= k1 + 1
    weights /= norm
    return weights.astype(np.float32)


def okapi_idf(df: NDArray[np.float64], corpus_size: int, epsilon: float = EPSILON) -> NDArray[np.float64]:
    """BM25Okapi's IDF per term from its document frequency, with the floor for common terms.

    Terms in no document (df 0) get 0 and do not count towards the average. Where
    rank-bm25's floor would itself be negative (a repo of one or two symbols, where
    every term is in half the documents), the floor is `epsilon`: every matching
    symbol still scores above zero, so a tiny repo can be searched.
    """
    used = df > 0
    if not used.any():
        return np.zeros_like(df)
    idf = np.log(corpus_size - df + 0.5) - np.log(df + 0.5)
    average = float(idf[used].mean())
    floor = epsilon * average if average > 0 else epsilon
    return np.where(used, np.where(idf < 0, floor, idf), 0.0)


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
        self.soft_weights: NDArray[np.float32] | None = None
        """The weights with softened length normalisation, when built with a `length_power`."""
        if corpus:
            builder = BM25Builder()
            for i, doc in enumerate(corpus):
                builder.add(str(i), doc)
            built = builder.build([str(i) for i in range(len(corpus))], k1, b)
            self.__dict__.update(built.__dict__)

    def get_scores(
        self, query: Sequence[str], boosts: Sequence[float] | None = None, soft: bool = False
    ) -> NDArray[np.float32]:
        """BM25 score of every document for the query terms (repeats count again).

        Args:
            query: The terms.
            boosts: A factor per term (an expansion counts for less than a word typed).
            soft: Use the softened length normalisation, if it was built.
        """
        scores = np.zeros(self.corpus_size, dtype=np.float32)
        table = self.soft_weights if soft and self.soft_weights is not None else self.weights
        for i, term in enumerate(query):
            idx = self.vocab.get(term)
            if idx is None:
                continue
            lo, hi = self.indptr[idx], self.indptr[idx + 1]
            if boosts is None or boosts[i] == 1.0:
                scores[self.postings[lo:hi]] += table[lo:hi]
            else:
                scores[self.postings[lo:hi]] += table[lo:hi] * np.float32(boosts[i])
        return scores

    def df(self, term: str) -> int:
        """How many documents hold `term`."""
        idx = self.vocab.get(term)
        return 0 if idx is None else int(self.indptr[idx + 1] - self.indptr[idx])

    def matches(self, query: Sequence[str]) -> NDArray[np.bool_]:
        """Which documents contain at least one query term (even one BM25 weighs at zero)."""
        hit = np.zeros(self.corpus_size, dtype=bool)
        for term in query:
            idx = self.vocab.get(term)
            if idx is not None:
                hit[self.postings[self.indptr[idx] : self.indptr[idx + 1]]] = True
        return hit

    def documents_with(self, term: str) -> NDArray[np.int32]:
        """The documents that contain `term`, in ascending order (empty if none)."""
        idx = self.vocab.get(term)
        if idx is None:
            return np.zeros(0, dtype=np.int32)
        lo, hi = self.indptr[idx], self.indptr[idx + 1]
        return np.sort(self.postings[lo:hi])


def save_ranker(path: Path, generation: int, payload: object) -> None:
    """Persist search structures atomically next to the index, mode 600 (the index holds the repo's code)."""
    write_private_with(
        path, lambda fh: pickle.dump((RANKER_VERSION, generation, payload), fh, protocol=pickle.HIGHEST_PROTOCOL)
    )


def load_ranker(path: Path, generation: int) -> object | None:
    """The persisted structures, or None when missing, stale, unreadable or unsafe (then rebuild).

    Unpickling runs code, so a pickle someone else owns or could have written
    (group- or world-writable) is never loaded: it is rebuilt instead.
    """
    try:
        with path.open("rb") as fh:
            if not _private(os.fstat(fh.fileno())):
                return None
            version, gen, payload = pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
        return None
    if version != RANKER_VERSION or gen != generation:
        return None
    result: object = payload
    return result


def _private(st: os.stat_result) -> bool:
    if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o022:
        return False
    return not hasattr(os, "geteuid") or st.st_uid == os.geteuid()


__all__ = ["BM25Builder", "SparseBM25", "load_ranker", "okapi_idf", "save_ranker"]
