"""`Searcher`: the ranking data of one index, and everything that reads it.

The ranking data is persisted beside the SQLite file (`rank.pickle`) and tagged
with the index's generation, a counter every index run bumps in any process. A
searcher re-checks that generation before each search, so an index updated by
another process (a shell's `symscope index` under an open TUI) is picked up.
"""

from __future__ import annotations

import contextlib
import fnmatch
import re
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from symscope.core.errors import BadQueryError
from symscope.core.models import SearchHit
from symscope.core.rank import BM25Builder, SparseBM25, load_ranker, save_ranker
from symscope.core.store import Store
from symscope.core.terms import compact, name_parts, query_terms

#: Path segments and file names that mark tests, examples and docs.
_AUX_SEGMENT = re.compile(
    r"(^|/)(tests?|__tests__|spec|specs|testing|testdata|fixtures?|examples?|samples?|demos?|"
    r"docs?|docs_src|documentation|benchmarks?|tutorials?|scripts)(/|$)"
)
_AUX_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test\.\w+|[^/]*\.(test|spec)\.\w+|conftest\.py)$")
_AUX_QUERY_WORDS = frozenset(
    ["test", "tests", "testing", "spec", "specs", "example", "examples", "sample", "samples", "demo", "demos", "doc", "docs", "docs_src", "tutorial", "tutorials", "fixture", "fixtures", "bench", "benchmark", "benchmarks", "script", "scripts"]
)
AUX_PENALTY = 0.3
#: Top BM25 candidates re-scored by how much of their name the query covers.
RERANK_DEPTH = 200
NAME_COVERAGE_WEIGHT = 0.5
EXACT_NAME_BOOST = 1.5
#: Symbols whose terms are read back from the store at a time, when building.
TERMS_BATCH = 500


def is_auxiliary(path: str) -> bool:
    """True for test, example, docs and benchmark files, which rank below library code."""
    return bool(_AUX_SEGMENT.search(path) or _AUX_FILE.search(path))


def glob_match(path: str, glob: str) -> bool:
    """`path` matches `glob`, or lies in the folder `glob` names (`lib`, `lib/`)."""
    glob = glob.strip()
    if fnmatch.fnmatchcase(path, glob):
        return True
    folder = glob.rstrip("/")
    return path.startswith(folder + "/") or fnmatch.fnmatchcase(path, folder + "/*")


@dataclass(slots=True)
class RankData:
    """The search structures, persisted beside the SQLite file."""

    ids: list[str]
    paths: list[str]
    names: list[str]
    norm_hashes: list[str]
    kinds: NDArray[np.object_]
    languages: NDArray[np.object_]
    path_ids: NDArray[np.int32]
    unique_paths: list[str]
    auxiliary: NDArray[np.bool_]
    bm25: SparseBM25
    exact: dict[str, list[int]]
    """A name or qualified name with case, `_` and `.` removed -> the symbols that have it."""


class Searcher:
    """Ranks an index's symbols; safe to share between the UI thread and a worker."""

    def __init__(self, store: Store, ranker_path: Path) -> None:
        self.store = store
        self.ranker_path = ranker_path
        self._data: RankData | None = None
        self._generation = -1
        self._lock = threading.Lock()

    def invalidate(self) -> None:
        """Forget the loaded data (the next search reloads or rebuilds it)."""
        with self._lock:
            self._data = None

    def data(self) -> RankData:
        """The ranking data for the index's current generation: cached, loaded or built."""
        generation = self.store.generation()
        with self._lock:
            if self._data is not None and self._generation == generation:
                return self._data
            loaded = load_ranker(self.ranker_path, generation)
            data = loaded if isinstance(loaded, RankData) else None
            if data is None:
                data = self._build(None, generation)
            self._data, self._generation = data, generation
            return data

    def rebuild(self, counted: BM25Builder | None = None) -> None:
        """Build and persist the data now (after an index run), so the next search starts fast.

        Args:
            counted: Documents already counted by the indexer while parser processes
                worked; only the others are read back from the store.
        """
        generation = self.store.generation()
        with self._lock:
            self._data = self._build(counted, generation)
            self._generation = generation

    def _build(self, counted: BM25Builder | None, generation: int) -> RankData:
        builder = counted if counted is not None else BM25Builder()
        ids: list[str] = []
        paths: list[str] = []
        names: list[str] = []
        norm_hashes: list[str] = []
        qualnames: list[str] = []
        kinds: list[str] = []
        languages: list[str] = []
        rows = self.store.query(
            "SELECT id, path, kind, language, name, norm_hash, qualname FROM symbols ORDER BY path, ord"
        )
        for sym_id, path, kind, language, name, norm_hash, qualname in rows:
            qualnames.append(qualname)
            ids.append(sym_id)
            paths.append(path)
            kinds.append(kind)
            languages.append(language)
            names.append(name)
            norm_hashes.append(norm_hash)
        missing = [i for i in ids if i not in builder]
        for start in range(0, len(missing), TERMS_BATCH):  # bounded memory on big repos
            chunk = missing[start : start + TERMS_BATCH]
            marks = ",".join("?" * len(chunk))
            for sym_id, terms in self.store.query(
                f"SELECT id, terms FROM symbols WHERE id IN ({marks})", chunk
            ):
                builder.add(sym_id, terms.split())
        unique_paths = sorted(set(paths))
        path_index = {p: i for i, p in enumerate(unique_paths)}
        data = RankData(
            ids=ids,
            paths=paths,
            names=names,
            norm_hashes=norm_hashes,
            kinds=np.array(kinds, dtype=object),
            languages=np.array(languages, dtype=object),
            path_ids=np.array([path_index[p] for p in paths], dtype=np.int32),
            unique_paths=unique_paths,
            auxiliary=np.array([is_auxiliary(p) for p in unique_paths], dtype=bool)[
                np.array([path_index[p] for p in paths], dtype=np.int32)
            ] if paths else np.zeros(0, dtype=bool),
            bm25=builder.build(ids),
            exact=_exact_names(names, qualnames),
        )
        with contextlib.suppress(OSError):  # a read-only cache dir only costs speed
            save_ranker(self.ranker_path, generation, data)
        return data

    def search(
        self,
        query: str,
        limit: int = 10,
        kind: str | None = None,
        language: str | None = None,
        path_glob: str | None = None,
    ) -> list[SearchHit]:
        """Rank symbols for a keyword or plain-English query (see `Index.search`)."""
        if not query or not query.strip():
            raise BadQueryError("empty query: give one or more words to search for")
        if limit < 1:
            raise BadQueryError("--limit must be at least 1")
        terms = query_terms(query)
        if not terms:
            raise BadQueryError(f"query {query!r} has no searchable words")
        data = self.data()
        if not data.ids:
            return []
        scores = data.bm25.get_scores(terms)
        # A term in exactly half the symbols weighs zero in Okapi BM25 (tiny repos): a symbol
        # holding a query word is still a result, ranked after those with weight.
        mask = (scores > 0) | data.bm25.matches(terms)
        if kind:
            mask &= data.kinds == kind
        if language:
            mask &= data.languages == language.lower()
        if path_glob:
            allowed = np.array([glob_match(p, path_glob) for p in data.unique_paths], dtype=bool)
            mask &= allowed[data.path_ids]
        asks_aux = any(w in _AUX_QUERY_WORDS for w in re.findall(r"[a-z_]+", query.lower()))
        if not path_glob and not asks_aux:
            scores = np.where(data.auxiliary, scores * AUX_PENALTY, scores)
        candidates = np.flatnonzero(mask)
        if candidates.size == 0:
            return []
        want = min(candidates.size, max(limit * 8 + 20, RERANK_DEPTH))
        top = candidates[np.argpartition(-scores[candidates], want - 1)[:want]]
        # A query that is exactly a symbol's name (or qualified name) means that symbol, however
        # long its body: it is a candidate even below the BM25 cut, and it ranks first.
        exact = np.zeros(len(data.ids), dtype=bool)
        penalised = not path_glob and not asks_aux
        named = [d for d in data.exact.get(compact(query), ())
                 if mask[d] and not (penalised and data.auxiliary[d])]
        if named:
            exact[named] = True
            top = np.union1d(top, np.array(named, dtype=top.dtype))
        scores = scores.copy()
        scores[top] *= _name_boosts(data, top, terms, query)
        top = top[np.lexsort((top, -scores[top], ~exact[top]))]  # exact names, score, index order
        picked: list[int] = []
        groups: dict[tuple[str, str], int] = {}
        dupes: dict[int, list[int]] = {}
        for doc in top.tolist():
            key = (data.names[doc], data.norm_hashes[doc])
            first = groups.get(key)
            if first is not None:
                dupes.setdefault(first, []).append(doc)
                continue
            if len(picked) >= limit:
                continue
            groups[key] = doc
            picked.append(doc)
        symbols = self.store.symbols_by_ids([data.ids[d] for d in picked])
        hits: list[SearchHit] = []
        for doc in picked:
            sym = symbols.get(data.ids[doc])
            if sym is None:
                continue
            others = tuple(data.ids[d] for d in dupes.get(doc, []))
            hits.append(SearchHit(sym, float(scores[doc]), others))
        return hits

    def mentioning(self, name: str) -> list[str]:
        """IDs of the symbols whose search terms include `name`'s term: reference candidates."""
        parts = query_terms(name)
        data = self.data()
        if not parts or not data.ids:
            return []
        term = parts[-1] if len(parts) == 1 else name.lower().replace("_", "")
        return [data.ids[d] for d in data.bm25.documents_with(term).tolist()]


def _exact_names(names: list[str], qualnames: list[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for doc, (name, qual) in enumerate(zip(names, qualnames, strict=True)):
        for key in dict.fromkeys((compact(name), compact(qual))):
            if key:
                out.setdefault(key, []).append(doc)
    return out


def _name_boosts(
    data: RankData, docs: NDArray[np.intp], terms: list[str], query: str
) -> NDArray[np.float32]:
    """Favour symbols whose own name the query spells out.

    BM25 treats a name term like any other; people mean the symbol named
    `ClientIP` when they ask for "the client IP", not one that mentions it.
    """
    wanted = set(terms)
    whole = compact(query)
    words = {compact(w) for w in query.split()}
    out = np.ones(len(docs), dtype=np.float32)
    for i, doc in enumerate(docs.tolist()):
        name = data.names[doc]
        parts = name_parts(name)
        if parts:
            matched = len(parts & wanted)
            # A one-word name (`Query`, `Body`) is "covered" by any query saying that word;
            # full credit needs two of the query's words in the name.
            out[i] += NAME_COVERAGE_WEIGHT * matched / len(parts) * min(matched, 2) / 2
        key = compact(name)
        if key and (key == whole or (len(words) <= 2 and key in words)):
            out[i] *= EXACT_NAME_BOOST
    return out


__all__ = ["AUX_PENALTY", "RankData", "Searcher", "glob_match", "is_auxiliary"]
