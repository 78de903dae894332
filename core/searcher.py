"""`Searcher`: the ranking data of one index, and everything that reads it.

The ranking data is persisted beside the SQLite file (`rank.pickle`) and tagged
with the index's generation, a counter every index run bumps in any process, and the
fingerprint of the `RankSettings` it was built with. A searcher re-checks both before
each search, so an index updated by another process (a shell's `symscope index` under
an open TUI) is picked up, and data built with a lever off never answers a default search.
"""

from __future__ import annotations

import bisect
import contextlib
import fnmatch
import itertools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from symscope.core import levers
from symscope.core.code_roles import in_test_module, is_auxiliary
from symscope.core.errors import BadQueryError, StaleSettingsError
from symscope.core.models import CALLABLE_KINDS, FoldKind, SearchHit
from symscope.core.pathnames import escape_controls
from symscope.core.rank import BM25Builder, SparseBM25, load_ranker, save_ranker
from symscope.core.settings import DEFAULTS, current, terms_match
from symscope.core.store import Store
from symscope.core.terms import (
    ABBREVIATIONS,
    compact,
    name_parts,
    query_terms,
    split_identifier,
    stem,
)
from symscope.core.thesaurus import related_terms

if TYPE_CHECKING:
    from symscope.core.semantic import DenseIndex

#: Folders of bundled third-party code (kept in the index, ranked below the repo's own).
_VENDORED_SEGMENT = re.compile(r"(^|/)(deps|3rdparty|thirdparty|third-party|_vendor|vendored)(/|$)")
VENDORED_PRIOR = DEFAULTS.vendored_prior
#: Folders and modules private by convention: Go's `internal/` (the compiler enforces it),
#: Java's and JS's `internal` packages, Python's `_compat/`, `_internal/`, `_utils.py`.
_PRIVATE_PATH = re.compile(r"(^|/)(internal(/|$)|_(?!_)[^/]+)")
#: A top-level definition whose name a package entry file re-exports (the public API)...
EXPORTED_PRIOR = DEFAULTS.exported_prior
#: ... when it is one of these kinds: what does the work (a re-exported type or constant
#: describes data, and rarely answers "what does X").
PUBLIC_KINDS = CALLABLE_KINDS | {"class", "struct"}
#: Query words that ask for auxiliary code (not `dist`: it is also a name, `dist()` for distance).
_AUX_QUERY_WORDS = frozenset(
    ["test", "tests", "testing", "spec", "specs", "example", "examples", "sample", "samples", "demo", "demos", "doc", "docs", "docs_src", "tutorial", "tutorials", "fixture", "fixtures", "bench", "benches", "benchmark", "benchmarks", "script", "scripts", "fuzz", "mock", "mocks", "e2e", "playground"]
)
#: In a query of four words or more these are verbs or adjectives ("test a connection",
#: "sample random keys"), not a request for test or sample files.
_AUX_VERBS = frozenset(["test", "sample", "example", "demo", "doc", "script", "bench", "fixture", "spec", "fuzz", "mock"])
AUX_PENALTY = 0.3
#: For queries of more than `SHORT_QUERY` terms, functions' and methods' length normalisation
#: is softened to this power (see `BM25Builder.build`): the function that does what a
#: sentence describes is often long. (A class is kept short by leaving its members' bodies
#: out of its terms instead.)
LENGTH_POWER = DEFAULTS.length_power
#: Top BM25 candidates re-scored by how much of their name the query covers.
RERANK_DEPTH = 200
NAME_COVERAGE_WEIGHT = 0.5
EXACT_NAME_BOOST = 1.5
#: How much a definition's reference count (symbols mentioning its name) lifts it, at most.
REFERENCE_PRIOR = DEFAULTS.reference_prior
#: Names starting with `_` or `#` (private by convention) keep this share of their score.
PRIVATE_PRIOR = DEFAULTS.private_prior
#: A signature that restricts its own visibility (Rust `pub(crate)`, `private`, Kotlin and C#
#: `internal`, Swift `fileprivate`, Scala `private[x]`): not the public definition.
_RESTRICTED = re.compile(r"^\s*(?:pub\s*\((?:crate|super|self|in\b)[^)]*\)|private\b|internal\b|fileprivate\b)")
#: Files that only declare what other files implement: TypeScript declarations, Python stubs.
_DECLARATION_FILE = re.compile(r"\.d\.[cm]?ts$|\.pyi$")
#: C and C++ headers: a symbol no longer than its signature there is a prototype.
_HEADER_FILE = re.compile(r"\.(h|hh|hpp|hxx|h\+\+)$")
#: Superseded code, and examples under a name `code_roles.is_auxiliary` does not read (chi's `_examples/`):
#: a copy there is not the one a folded hit shows.
_SECONDARY_SEGMENT = re.compile(r"(^|/)(legacy|deprecated|obsolete|_examples?|_samples?)(/|$)")
#: An exact name's definition in a declaration file counts this share of its substance.
DECLARATION_PRIOR = DEFAULTS.declaration_prior
#: Constants and regexes keep this share: "where is X validated" means the function that applies them.
HELPER_PRIOR = 0.7
#: Kinds that declare a shape and do nothing themselves: a type alias, an interface, an enum,
#: and a struct (its bag holds its fields and members' names; each method is a hit of its own).
SHAPE_KINDS = ("type", "interface", "enum", "struct")
#: What such a declaration keeps of its score when a sentence describes behaviour.
SHAPE_PRIOR = 0.7
#: Weight of a code word the thesaurus supplies for a query word (`ajax` -> `xhr`).
THESAURUS_WEIGHT = 0.4
#: Weight of a repo word standing in for a query word the repo never uses.
NEIGHBOUR_WEIGHT = 0.6
#: Hybrid search (the `semantic` extra): weight of the embedding similarity against BM25 ...
DENSE_WEIGHT = 0.7
#: ... over this many nearest symbols by embedding, added to the BM25 candidates.
DENSE_DEPTH = 50
#: BM25's best is confident when the runner-up scores at most this share of it (then the
#: fusion keeps it first).
CONFIDENT_MARGIN = 0.9
#: BM25's best this many stay within the fused top `LEXICAL_KEEP_WITHIN`: the embeddings add
#: what keywords miss, but do not push out what keywords found first.
LEXICAL_KEEP = 2
LEXICAL_KEEP_WITHIN = 5
#: Up to this many query terms, a query is keyword-like: any name it spells keeps its BM25 lead.
SHORT_QUERY = 3
#: Weight of a code name typed in a query (`mul_symbol`, `sendFile`): the name's whole term.
TYPED_NAME_WEIGHT = 2.0
#: snake_case and camelCase words: names, not English (`LaTeX`, `GitHub` are not matched).
_TYPED_NAME = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*")
#: Weight of two adjacent query words joined (`read lines` -> `readlines`).
COMPOUND_WEIGHT = 0.5
#: How much a file whose other symbols match a sentence lifts its symbols (at most).
FILE_CONTEXT = 0.2
#: The weight of a stop-word verb that may start a name (`find`, `get`, `use`).
NAME_VERB_WEIGHT = 0.4
#: (stop words only: `finds` or `shows` is no stop word, so it is a query term already)
_NAME_VERBS = frozenset(["find", "show", "get", "gets", "use", "uses"])
#: How much a sentence's fused scores lean to longer definitions (`RankData.heft` to this power).
FUSED_HEFT_POWER = 0.15
#: Hits whose names are checked for a re-exported definition of the same name.
PUBLIC_FIRST_DEPTH = 10
#: How far above the method a lifted public definition lands (a share of the method's score).
LIFT_MARGIN = 1e-3
#: Places a class moves down when one of its members is already listed above it.
NEST_DELAY = 2
#: Near copies: two definitions of one kind in different files whose terms overlap this much
#: (Jaccard) are one hit (`keyHashSlot` and the CLI's copy of it) ...
COPY_JACCARD = 0.85
#: ... when each has this many distinct terms (short ones look alike by chance) ...
COPY_MIN_TERMS = 20
#: ... among the first `limit` x this many candidates.
COPY_REACH = 3
#: Symbols whose terms are read back from the store at a time, when building.
TERMS_BATCH = 500


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
    file_sizes: NDArray[np.int64]
    """How many symbols each file in `unique_paths` holds."""
    bm25: SparseBM25
    exact: dict[str, list[int]]
    """A name or qualified name with case, `_` and `.` removed -> the symbols that have it."""
    qualnames: list[str]
    family: NDArray[np.int32]
    """Symbols of one family (overloads, accessors, cfg variants, a prototype and its
    definition, implementations of one interface method) share a number: one hit shows them."""
    prior: NDArray[np.float32]
    """Query-independent factor: widely referenced and re-exported (public API) definitions up,
    private and bundled third-party ones down (see `_priors`)."""
    parent: NDArray[np.int32]
    """The enclosing symbol's document (a method's class), or -1."""
    public_api: dict[str, list[int]]
    """A name a package entry file re-exports -> the library's top-level definitions of it."""
    heft: NDArray[np.float32]
    """How much of a definition there is: 1 + log(1 + its lines), lower for a restricted
    visibility or in a declaration file (a shim, mock or forward declaration is short).
    Times the prior, its substance: how much it looks like the main definition of its name,
    which orders several definitions of the name a query spells exactly."""


class Searcher:
    """Ranks an index's symbols; safe to share between the UI thread and a worker."""

    def __init__(self, store: Store, ranker_path: Path) -> None:
        self.store = store
        self.ranker_path = ranker_path
        self._data: RankData | None = None
        self._generation = -1
        self._fingerprint = ""
        self._lock = threading.Lock()
        self._sorted_vocab: list[str] = []
        self._vocab_data: RankData | None = None
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
        builder = counted if counted is not None else BM25Builder()
        ids: list[str] = []
        paths: list[str] = []
        names: list[str] = []
        norm_hashes: list[str] = []
        qualnames: list[str] = []
        kinds: list[str] = []
        languages: list[str] = []
        signatures: list[str] = []
        parent_ids: list[str | None] = []
        lines: list[int] = []
        rows = self.store.query(
            "SELECT id, path, kind, language, name, norm_hash, qualname, signature, parent_id, "
            "end_line - start_line + 1 FROM symbols ORDER BY path, ord"
        )
        for sym_id, path, kind, language, name, norm_hash, qualname, signature, parent_id, size in rows:
            parent_ids.append(parent_id)
            lines.append(size)
            qualnames.append(qualname)
            signatures.append(signature)
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
        soft = levers.on("softlen")
        bm25 = builder.build(ids, length_power=LENGTH_POWER if soft else None,
                             soft_docs=np.array([k in CALLABLE_KINDS for k in kinds], dtype=bool) if soft else None)
        position = {sym_id: doc for doc, sym_id in enumerate(ids)}
        top_level = [p is None and k in PUBLIC_KINDS for p, k in zip(parent_ids, kinds, strict=True)]
        exported = self.store.exported_names() if levers.on("public") else set()
        path_ids = np.array([path_index[p] for p in paths], dtype=np.int32)
        # judged once per file, then per symbol for inline test modules
        auxiliary = np.array([is_auxiliary(p) for p in unique_paths], dtype=bool)[path_ids]
        auxiliary |= np.array([in_test_module(q, k) for q, k in zip(qualnames, kinds, strict=True)], dtype=bool)
        data = RankData(
            ids=ids,
            paths=paths,
            names=names,
            norm_hashes=norm_hashes,
            kinds=np.array(kinds, dtype=object),
            languages=np.array(languages, dtype=object),
            path_ids=path_ids,
            unique_paths=unique_paths,
            auxiliary=auxiliary,
            file_sizes=np.bincount(path_ids, minlength=len(unique_paths)).astype(np.int64),
            bm25=bm25,
            exact=_exact_names(names, qualnames, paths),
            qualnames=qualnames,
            family=_families(qualnames, kinds, paths, _declarations(paths, signatures, lines), auxiliary.tolist()),
            prior=_priors(bm25, names, paths, top_level, exported),
            parent=np.array([position.get(p, -1) if p else -1 for p in parent_ids], dtype=np.int32),
            public_api=_public_api(names, top_level, auxiliary.tolist(), exported),
            heft=_heft(signatures, lines, paths),
        )
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
        """Rank symbols for a keyword or plain-English query (see `Index.search`)."""
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
        sentence = len(set(typed)) > SHORT_QUERY
        terms, boosts = self._expand(data, typed, query)
        # A sentence describes what a definition does, and the one that does it is often long;
        # a keyword query names something, and keeps BM25's usual preference for the concise.
        scores = data.bm25.get_scores(terms, boosts, soft=sentence)
        dense = self._dense_index(data) if len(re.findall(r"[A-Za-z]{2,}", query)) >= 2 else None
        if sentence and dense is None and levers.on("filecontext"):
            # (the hybrid's embeddings already read the query as a whole: measured, this lift
            # only distorted the BM25 share of the fused score there)
            scores = _with_file_context(data, scores)
        # A term in exactly half the symbols weighs zero in Okapi BM25 (tiny repos): a symbol
        # holding a query word is still a result, ranked after those with weight.
        filters = _filter_mask(data, kind, language, path_glob)
        mask = ((scores > 0) | data.bm25.matches(terms)) & filters
        asks_aux = _asks_aux(query)
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
                miscased[[d for d in named if _miscased(as_typed, data.names[d], data.qualnames[d])]] = True
                # ... and `declarative_base` the function before the class `DeclarativeBase`
                respelled[[d for d in named if as_typed not in (data.names[d], data.qualnames[d])]] = True
            if levers.on("toplevel"):
                # `Engine` means the struct Engine before methods named Engine, and `Gson` the
                # class before its constructor `Gson.Gson` (a qualified name typed is exact)
                member[[d for d in named if data.qualnames[d] != data.names[d]
                        and compact(data.qualnames[d]) != whole]] = True
            top = np.union1d(top, np.array(named, dtype=top.dtype))
        scores = scores.copy()
        scores[top] *= _name_boosts(data, top, terms, query)
        if levers.on("priors"):
            scores[top] *= data.prior[top]
        scores[top] *= _kind_prior(data.kinds[top], sentence)
        if levers.on("apifirst") and not named:
            top = _public_first(data, top, scores, filters)
        if dense is not None and not named:  # the `semantic` extra: BM25 fused with embeddings
            top, scores = _fuse(data, dense.similarities(query), scores, top, filters,
                                None if path_glob or asks_aux else data.auxiliary, typed, query)
        # exact names (the typed case before other cases of the same letters, the typed
        # spelling before other separators, a top-level definition before members of the same
        # name, then the main definition of the name before shims and mocks), score, index order
        main_first = np.where(exact[top] & ~miscased[top] & ~member[top], data.prior[top] * data.heft[top], 0.0) \
            if levers.on("substance") else np.zeros(top.size)
        top = top[np.lexsort((top, -scores[top], -main_first, member[top], respelled[top], miscased[top],
                              ~exact[top]))]
        picked: list[int] = []
        groups: dict[tuple[str, str], int] = {}
        families: dict[int, int] = {}
        dupes: dict[int, list[int]] = {}
        fold = levers.on("fold")
        nesting = levers.on("nesting")
        around: set[int] = set()  # the documents enclosing a listed one
        waiting: list[tuple[int, int]] = []  # (listed once this many hits are, document)
        copies = _Copies(self.store, data, top[: limit * COPY_REACH]) if fold and levers.on("copies") else None
        for doc in top.tolist():
            key = (data.names[doc], data.norm_hashes[doc])
            first = groups.get(key)
            if first is None and fold:
                first = families.get(int(data.family[doc]))
            if first is None and copies is not None and len(picked) < limit:
                first = copies.of(doc, picked + [d for _, d in waiting])
            if first is not None:
                dupes.setdefault(first, []).append(doc)
                continue
            groups[key] = doc
            families[int(data.family[doc])] = doc
            if nesting and doc in around:
                # The class around a member already listed repeats that member's text: it
                # moves down `NEST_DELAY` places, out of the few an agent reads in full.
                waiting.append((len(picked) + NEST_DELAY, doc))
                continue
            around.update(_enclosing(data.parent, doc))
            if len(picked) < limit:
                picked.append(doc)
            while waiting and waiting[0][0] <= len(picked) < limit:
                picked.append(waiting.pop(0)[1])
        picked += [doc for _, doc in waiting][: limit - len(picked)]
        shown = [(doc, *_primary_first(data, doc, dupes.get(doc, []), penalised, exact)) for doc in picked]
        symbols = self.store.symbols_by_ids([data.ids[head] for _, head, _ in shown])
        hits: list[SearchHit] = []
        for doc, head, folded in shown:
            sym = symbols.get(data.ids[head])
            if sym is None:
                continue
            others = tuple(data.ids[d] for d in folded)
            hits.append(SearchHit(sym, float(scores[doc]), others, _fold_kind(data, head, folded)))
        return hits

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

    def _expand(self, data: RankData, terms: list[str], query: str) -> tuple[list[str], list[float]]:
        """The query's terms plus the repo's own spellings of them, with a weight each.

        A word the repo never uses tries its nearest spellings there (`randomize` ->
        `random`, `ids` -> `id`); adjacent words also match their joined form
        (`file name` -> `filename`, `read lines` -> `readlines`).
        """
        vocab = data.bm25.vocab
        words = re.findall(r"[a-z0-9]+", query.lower())
        out = list(dict.fromkeys(terms))
        boosts = [1.0] * len(out)
        if levers.on("typednames"):
            # `mul_symbol` in a sentence was typed on purpose: the name is the surest clue
            for name in _TYPED_NAME.findall(query):
                whole = name.lower().replace("_", "")
                if whole in out:
                    boosts[out.index(whole)] = TYPED_NAME_WEIGHT
        if levers.on("neighbours"):
            for term in list(out):
                if term in vocab:
                    # The stemmer keeps plurals of two-letter words whole (`ids`, `ops`): the
                    # singular is the same word.
                    one = term[:-1]
                    if len(term) == 3 and term.endswith("s") and term.isalpha() and one in vocab \
                            and one not in out:
                        out.append(one)
                        boosts.append(1.0)
                    continue
                for near in self._neighbours(data, term):
                    if near not in out:
                        out.append(near)
                        boosts.append(NEIGHBOUR_WEIGHT)
        if levers.on("thesaurus"):
            # A keyword query's words mean what they say; a sentence's may be the reader's own
            # words for the code's. A word the repo never uses is always worth translating.
            chosen = None if len(terms) > SHORT_QUERY else [
                w for w in words if not any(t in vocab for t in query_terms(w))]
            for near in related_terms(query, chosen):
                if near in vocab and near not in out:
                    out.append(near)
                    boosts.append(THESAURUS_WEIGHT)
        if levers.on("nameverbs"):
            # "find the subcommand ...", `app.use mount`: the verbs the stop words drop are
            # also the first word of many names (`Command.Find`, `app.use`, `get_app_dir`)
            for verb in (stem(w) for w in words if w in _NAME_VERBS):
                if verb in vocab and verb not in out:
                    out.append(verb)
                    boosts.append(NAME_VERB_WEIGHT)
        if levers.on("compounds"):
            for a, b in itertools.pairwise(words):
                # only the stemmed form: the unstemmed one is also every `a_b` name's whole term
                joined = stem(a + b)
                if joined != a + b and joined in vocab and joined not in out:
                    out.append(joined)
                    boosts.append(COMPOUND_WEIGHT)
        return out, boosts

    def _neighbours(self, data: RankData, term: str) -> list[str]:
        """The repo's commonest term sharing a long prefix with `term` (none if nothing is close)."""
        if not term.isalpha():
            return []
        if term.endswith("s") and term[:-1] in data.bm25.vocab:
            return [term[:-1]]  # `ids` -> `id`: the stemmer keeps very short words whole
        if len(term) < 5:
            return []
        with self._lock:
            if self._vocab_data is not data:
                self._sorted_vocab = sorted(t for t in data.bm25.vocab if t.isalpha() and len(t) >= 3)
                self._vocab_data = data
            words = self._sorted_vocab
        best: tuple[int, str] | None = None
        # the repo's word is a prefix of the query's (`random` for `randomiz`) ...
        for cut in range(len(term) - 1, max(4, (len(term) * 3 + 4) // 5) - 1, -1):
            head = term[:cut]
            i = bisect.bisect_left(words, head)
            if i < len(words) and words[i] == head:
                best = max(best or (0, ""), (data.bm25.df(head), head))
                break
        # ... or the query's word is a prefix of the repo's (`concat` for `concatenat`)
        if best is None and len(term) >= 5:
            i = bisect.bisect_left(words, term)
            for cand in words[i : i + 8]:
                if not cand.startswith(term) or len(cand) > len(term) * 5 // 3 + 1:
                    continue
                best = max(best or (0, ""), (data.bm25.df(cand), cand))
        return [best[1]] if best else []

    def mentioning(self, name: str) -> list[str]:
        """IDs of the symbols whose search terms include `name`'s term: reference candidates."""
        parts = query_terms(name)
        data = self.data()
        if not parts or not data.ids:
            return []
        term = parts[-1] if len(parts) == 1 else name.lower().replace("_", "")
        return [data.ids[d] for d in data.bm25.documents_with(term).tolist()]


class _Copies:
    """Near copies among a search's first candidates, judged by the overlap of their terms.

    Only across files: a definition copied into another module or program (redis's
    `keyHashSlot` and the CLI's `clusterManagerKeyHashSlot`, a bundled build) is one hit,
    while look-alike variants side by side in one file (`debounce_trailing` and
    `throttle_trailing`, `sine_transform` and `cosine_transform`) do different things.
    """

    def __init__(self, store: Store, data: RankData, docs: NDArray[np.intp]) -> None:
        self.data = data
        position = {data.ids[d]: d for d in docs.tolist()}
        marks = ",".join("?" * len(position))
        self.terms: dict[int, set[str]] = {}
        if position:
            for sym_id, terms in store.query(f"SELECT id, terms FROM symbols WHERE id IN ({marks})", list(position)):
                words = set(terms.split())
                if len(words) >= COPY_MIN_TERMS:
                    self.terms[position[sym_id]] = words

    def of(self, doc: int, listed: list[int]) -> int | None:
        """The listed document `doc` nearly copies (same kind, `COPY_JACCARD` of terms shared)."""
        mine = self.terms.get(doc)
        if mine is None:
            return None
        for other in listed:
            theirs = self.terms.get(other)
            if theirs is not None and self.data.kinds[other] == self.data.kinds[doc] \
                    and self.data.path_ids[other] != self.data.path_ids[doc] \
                    and len(mine & theirs) >= COPY_JACCARD * len(mine | theirs):
                return other
        return None


def _with_file_context(data: RankData, scores: NDArray[np.float32]) -> NDArray[np.float32]:
    """Scores lifted by up to `FILE_CONTEXT` when the rest of the symbol's file matches too.

    A sentence names a module's subject as well as the function's job ("a key whose time to
    live has passed" is about expiry, redis's expire.c): the mean score of the file's other
    symbols, relative to the best file's, scales each symbol by 1 + `FILE_CONTEXT` x that.
    The symbol itself is left out of its file's mean, so a file of one symbol lifts nothing.
    Only the symbols that score are touched (a zero stays zero): a sentence costs a fraction
    of a millisecond on 40,000 symbols.
    """
    hit = np.flatnonzero(scores > 0)  # (a boolean mask first: 8x faster than on floats)
    if hit.size == 0:
        return scores
    files = data.path_ids[hit]
    total = np.bincount(files, weights=scores[hit], minlength=len(data.unique_paths))
    others = np.maximum(data.file_sizes - 1, 1)
    # the best mean any symbol could see: a file's total over its other symbols (none in a
    # file of one symbol)
    best = float(np.where(data.file_sizes > 1, total / others, 0.0).max())
    if best <= 0:
        return scores
    out = scores.copy()
    out[hit] *= (1.0 + (FILE_CONTEXT / best) * (total[files] - scores[hit]) / others[files]).astype(np.float32)
    return out


def _enclosing(parent: NDArray[np.int32], doc: int) -> list[int]:
    """The documents enclosing `doc`, innermost first (a method's class, its module...)."""
    out: list[int] = []
    up = int(parent[doc])
    while up >= 0 and len(out) < 32:
        out.append(up)
        up = int(parent[up])
    return out


def _filter_mask(data: RankData, kind: str | None, language: str | None, path_glob: str | None
                 ) -> NDArray[np.bool_]:
    """The symbols the kind, language and path filters allow (whatever their words)."""
    allowed = np.ones(len(data.ids), dtype=bool)
    if kind:
        allowed &= data.kinds == kind
    if language:
        allowed &= data.languages == language.lower()
    if path_glob:
        glob = escape_controls(path_glob)  # paths are kept escaped (core/pathnames.py): a raw name matches too
        paths = np.array([glob_match(p, glob) for p in data.unique_paths], dtype=bool)
        allowed &= paths[data.path_ids]
    return allowed


def _fuse(
    data: RankData,
    sims: NDArray[np.float32],
    scores: NDArray[np.float32],
    top: NDArray[np.intp],
    allowed: NDArray[np.bool_],
    auxiliary: NDArray[np.bool_] | None,
    typed: list[str],
    query: str,
) -> tuple[NDArray[np.intp], NDArray[np.float32]]:
    """BM25 fused with embedding similarity over the BM25 candidates and the nearest symbols.

    Both sides are scaled to [0, 1] over the candidates. A symbol whose name the query
    spells out (every part of its name is a word typed in it, `typed`) keeps its BM25
    lead: fusion must not lose what keywords already find. Words the thesaurus or the
    repo's spellings added do not count: they are guesses the embeddings may refute.
    For the same reason BM25's first two stay within the fused top five.
    """
    sims = np.where(allowed, sims, -1.0).astype(np.float32)
    if auxiliary is not None:
        sims = np.where(auxiliary, sims * AUX_PENALTY, sims).astype(np.float32)
    depth = min(DENSE_DEPTH, int(allowed.sum()))
    if depth == 0:
        return top, scores
    near = np.argpartition(-sims, depth - 1)[:depth]
    cand = np.union1d(top, near[sims[near] > 0])
    best = float(scores[top].max()) if top.size else 0.0
    lex = scores[cand] / best if best > 0 else np.zeros(cand.size, dtype=np.float32)
    dense = sims[cand]
    lo, hi = float(np.percentile(dense, 10)), float(dense.max())
    dense = np.clip((dense - lo) / max(hi - lo, 1e-9), 0.0, 1.0)
    fused = (1 - DENSE_WEIGHT) * lex + DENSE_WEIGHT * dense
    wanted = set(typed)
    sentence = len(wanted) > SHORT_QUERY
    # A short query that spells a name, or a long one spelling a name of two words or more
    # (`send file` -> sendFile): the name is what was asked for.
    least = 2 if sentence else 1
    words = _typed_words(query)
    spelled = np.array([len(p) >= least and p <= wanted and _spells(data.names[d], words)
                        for d, p in ((d, name_parts(data.names[d])) for d in cand.tolist())])
    fused = np.where(spelled, fused + 1.0, fused)
    if top.size >= 2:  # a clear BM25 winner keeps first place
        first, second = np.sort(scores[top])[-2:][::-1]
        if second <= CONFIDENT_MARGIN * first:
            fused[np.searchsorted(cand, top[np.argmax(scores[top])])] += 1.0
    # The query-independent priors (public API up, private and vendored code down) weigh on
    # the fused score too, not only on its BM25 share (square root: that share has them already).
    fused = fused * np.sqrt(data.prior[cand])
    if levers.on("heft") and sentence:
        # A sentence says what a definition does. The model averages a text's word pieces, so
        # a short helper's vector is all about one thing while a long definition's is spread
        # over everything it does: unchecked, the helpers around the doer outrank it.
        fused = fused * data.heft[cand] ** FUSED_HEFT_POWER
    fused = fused * _kind_prior(data.kinds[cand], sentence)  # as in BM25
    if top.size and fused.size > LEXICAL_KEEP_WITHIN - LEXICAL_KEEP:
        # BM25's first two keep a place in the top five, in their BM25 order, just above the
        # fused fourth if they had fallen below it
        floor = float(np.sort(fused)[::-1][LEXICAL_KEEP_WITHIN - LEXICAL_KEEP])
        step = LIFT_MARGIN * max(abs(floor), 1.0)
        lexical = top[np.argsort(-scores[top], kind="stable")[:LEXICAL_KEEP]]
        for rank, at in enumerate(np.searchsorted(cand, lexical).tolist()):
            fused[at] = max(float(fused[at]), floor + (LEXICAL_KEEP - rank) * step)
    out = scores.copy()
    out[cand] = fused.astype(np.float32)
    return cand, out


def _kind_prior(kinds: NDArray[np.object_], sentence: bool) -> NDArray[np.float32]:
    """What each candidate keeps of its score (BM25's, then the fused one) for its kind.

    Constants and regexes keep `HELPER_PRIOR` (lever helpers): "where is X validated" means
    the function that applies them. In a sentence, type aliases, interfaces, enums and
    structs keep `SHAPE_PRIOR` (lever shapes): a sentence says what code does, and
    `RetryOptions` only declares what it is given. Classes keep their score: measured, a
    class is often the answer itself (`binomial`, `CaseInsensitiveDict`).
    """
    out = np.ones(len(kinds), dtype=np.float32)
    if levers.on("helpers"):
        out[kinds == "constant"] = HELPER_PRIOR
    if sentence and levers.on("shapes"):
        out[np.isin(kinds, SHAPE_KINDS)] = SHAPE_PRIOR
    return out


def _typed_words(query: str) -> frozenset[str]:
    """The words of a query as typed, lower-cased, and the parts of those that are identifiers."""
    words = re.findall(r"[A-Za-z0-9]+", query)
    return frozenset(w.lower() for w in words) | frozenset(p for w in words for p in split_identifier(w))


def _spells(name: str, words: frozenset[str]) -> bool:
    """Whether every part of `name` is a word typed (see `_typed_part`)."""
    return all(_typed_part(part, words) for part in split_identifier(name))


@lru_cache(maxsize=65_536)
def _stemmed_parts(name: str) -> tuple[tuple[str, str], ...]:
    """A name's parts, each with its stem."""
    return tuple((part, stem(part)) for part in split_identifier(name))


def _typed_part(part: str, words: frozenset[str]) -> bool:
    """Whether a name's part begins a word typed, all but its last letter (`parse` in
    `parsing`, `product` in `products`). A shared stem is not enough: the light stemmer
    makes `outer` `out`, and "multiply out products" does not name `OuterProduct`. A part
    that abbreviates a word (`cfg`) is typed as that word."""
    return any(w.startswith(p[:-1]) and stem(w) == stem(p)
               for p in {part, ABBREVIATIONS.get(part, part)} for w in words)


def _is_constructor(name: str, qualname: str) -> bool:
    """`Gson.Gson`, `Foo::Foo` defined out of line: a member named like its class (Java, C++, C#)."""
    return qualname == f"{name}.{name}" or qualname.endswith(f".{name}.{name}")


def _miscased(typed: str, name: str, qualname: str) -> bool:
    """`poly` for a query `Poly`: the same letters in another case. (`send_file` for
    `sendFile` is not: separators are spelling, not case.)"""
    same = [n for n in (name, qualname) if n.lower() == typed.lower()]
    return bool(same) and typed not in same


def _asks_aux(query: str) -> bool:
    """The query asks for tests, examples or docs (`--path` aside)."""
    words = re.findall(r"[a-z_]+", query.lower())
    long = len(words) >= 4 and levers.on("auxverbs")
    return any(w in _AUX_QUERY_WORDS and not (long and w in _AUX_VERBS) for w in words)


def _exact_names(names: list[str], qualnames: list[str], paths: list[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    exports = levers.on("exports")
    for doc, (name, qual) in enumerate(zip(names, qualnames, strict=True)):
        keys = [compact(name), compact(qual)]
        if exports and qual.startswith(("module.exports.", "exports.")):
            # `module.exports.load` in settings.js is `settings.load` to its readers
            stem_name = paths[doc].rsplit("/", 1)[-1].split(".", 1)[0]
            keys.append(compact(f"{stem_name}.{name}"))
        for key in dict.fromkeys(keys):
            if key:
                out.setdefault(key, []).append(doc)
    return out


def _families(
    qualnames: list[str], kinds: list[str], paths: list[str], declared: list[bool], aux: list[bool]
) -> NDArray[np.int32]:
    """A family number per symbol: symbols of one kind and qualified name in one file
    (overloads, accessors, cfg variants, a prototype and its definition), plus declarations
    elsewhere (a header's prototype, a `.d.ts` class) of a name defined in one file only.

    Same-named definitions in different files are different code (ripgrep's two `parse`,
    chi's example `main`s, `FastAPI.add_api_route` and `APIRouter.add_api_route`): they
    fold only as copies, judged by content at search time. A test never joins a library
    symbol's family: it is not another copy of it."""
    parent = list(range(len(qualnames)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[tuple[str, ...], int] = {}
    across: dict[tuple[str, ...], list[int]] = {}
    for doc, (qual, kind, path) in enumerate(zip(qualnames, kinds, paths, strict=True)):
        side = "aux" if aux[doc] else "lib"
        other = owner.setdefault((side, path, kind, qual), doc)
        if other != doc:
            parent[find(doc)] = find(other)
        across.setdefault((side, kind, qual), []).append(doc)
    for docs in across.values():
        defined = {paths[d] for d in docs if not declared[d]}
        if len(defined) == 1 and len(docs) > 1:  # one definition: its declarations elsewhere join it
            home = next(d for d in docs if not declared[d])
            for doc in docs:
                if declared[doc]:
                    parent[find(doc)] = find(home)
    return np.array([find(i) for i in range(len(qualnames))], dtype=np.int32)


def _declarations(paths: list[str], signatures: list[str], lines: list[int]) -> list[bool]:
    """Symbols that only declare what another file defines: everything in a declaration
    file (`.d.ts`, `.pyi`), and a C/C++ header's prototypes (no more lines than the signature)."""
    return [bool(_DECLARATION_FILE.search(path))
            or (bool(_HEADER_FILE.search(path)) and size <= sig.count("\n") + 1)
            for path, sig, size in zip(paths, signatures, lines, strict=True)]


def is_secondary(path: str, *, aux: bool = True) -> bool:
    """A copy not to show first: tests, examples and docs (`is_auxiliary`, unless `aux` is
    False: the query asked for them), bundled third-party code (`is_vendored`), and
    superseded or example code kept under other names (`legacy/`, chi's `_examples/`)."""
    return (aux and is_auxiliary(path)) or is_vendored(path) or bool(_SECONDARY_SEGMENT.search(path))


def _primary_first(
    data: RankData, doc: int, folded: list[int], penalised: bool, exact: NDArray[np.bool_]
) -> tuple[int, list[int]]:
    """The copy to show for a hit, and the others (ranked order kept).

    The best-ranked copy heads unless it is a secondary one (`is_secondary`; tests count only
    when the query did not ask for tests) and a primary copy is folded under it. A copy the
    query names exactly keeps its place over one it does not (`cli_x` typed means `cli_x`)."""
    def secondary(d: int) -> bool:
        return (penalised and bool(data.auxiliary[d])) or is_secondary(data.paths[d], aux=False)

    if not folded or not secondary(doc):
        return doc, folded
    for cand in folded:
        if not secondary(cand) and (exact[cand] or not exact[doc]):
            return cand, [doc, *(d for d in folded if d != cand)]
    return doc, folded


def _fold_kind(data: RankData, head: int, folded: list[int]) -> FoldKind | None:
    """`identical` when every copy has the head's name and whitespace-free text, `variants`
    when every copy is in the head's file (overloads, accessors, cfg variants, prototypes),
    else `similar`."""
    if not folded:
        return None
    if all(data.names[d] == data.names[head] and data.norm_hashes[d] == data.norm_hashes[head] for d in folded):
        return "identical"
    if all(data.path_ids[d] == data.path_ids[head] for d in folded):
        return "variants"
    return "similar"


def _priors(
    bm25: SparseBM25, names: list[str], paths: list[str], public: list[bool], exported: set[str]
) -> NDArray[np.float32]:
    """Widely referenced definitions a little up, private ones (`_x`, `#x`) a little down,
    bundled third-party code (`deps/`) further down, and a top-level definition under a name
    a package entry file re-exports (its public API: `sympy.gcd`, not `Monomial.gcd`) up."""
    out = np.ones(len(names), dtype=np.float32)
    n = max(len(names), 2)
    scale = REFERENCE_PRIOR / float(np.log1p(n))
    for doc, name in enumerate(names):
        parts = split_identifier(name)
        if not parts:
            continue
        key = name.lower().replace("_", "") if len(parts) > 1 else stem(parts[0])
        out[doc] += scale * float(np.log1p(bm25.df(key)))
        if name.startswith(("_", "#")) and not name.startswith("__"):
            out[doc] *= PRIVATE_PRIOR
    if exported:
        out[[d for d, (name, ok) in enumerate(zip(names, public, strict=True))
             if ok and name in exported]] *= EXPORTED_PRIOR
    if levers.on("privatepaths"):
        out[_docs_in(paths, lambda p: bool(_PRIVATE_PATH.search(p)))] *= PRIVATE_PRIOR
    if levers.on("vendored"):
        out[_docs_in(paths, is_vendored)] *= VENDORED_PRIOR
    return out


def _heft(signatures: list[str], lines: list[int], paths: list[str]) -> NDArray[np.float32]:
    """`RankData.heft`: 1 + log(1 + lines), x`PRIVATE_PRIOR` for a restricted visibility,
    x`DECLARATION_PRIOR` in a declaration file (a `.d.ts` beside the JavaScript that
    implements it, often longer for its docs; a `.pyi` stub)."""
    restricted = np.array([bool(_RESTRICTED.match(sig)) for sig in signatures], dtype=bool)
    declared = np.zeros(len(paths), dtype=bool)
    declared[_docs_in(paths, lambda p: bool(_DECLARATION_FILE.search(p)))] = True
    size = 1.0 + np.log1p(np.asarray(lines, dtype=np.float32))
    return (np.where(restricted, PRIVATE_PRIOR, 1.0) * np.where(declared, DECLARATION_PRIOR, 1.0)
            * size).astype(np.float32)


def _docs_in(paths: list[str], test: Callable[[str], bool]) -> list[int]:
    """The documents whose file passes `test` (each file judged once)."""
    chosen = {p for p in set(paths) if test(p)}
    return [d for d, p in enumerate(paths) if p in chosen]


def _public_api(
    names: list[str], top_level: list[bool], auxiliary: list[bool], exported: set[str]
) -> dict[str, list[int]]:
    """Each re-exported name's top-level library definitions (`sympy.gcd` for `gcd`)."""
    out: dict[str, list[int]] = {}
    for doc, (name, ok, aux) in enumerate(zip(names, top_level, auxiliary, strict=True)):
        if ok and not aux and name in exported:
            out.setdefault(name, []).append(doc)
    return out


def _public_first(
    data: RankData, top: NDArray[np.intp], scores: NDArray[np.float32], allowed: NDArray[np.bool_]
) -> NDArray[np.intp]:
    """Put a package's public definition just above a leading method that shares its name.

    A sentence about greatest common divisors finds thirty `gcd` methods (`Monomial.gcd`,
    `PolyElement.gcd`) whose docstrings say so; the reader wants `sympy.gcd`, the function
    the package exports, which dispatches to them. Among the first `PUBLIC_FIRST_DEPTH`
    hits, a method named like a re-exported top-level definition lifts that definition
    just above itself (keeping the definitions' own order). Returns the candidates,
    with the lifted ones added; `scores` is changed in place.
    """
    if not data.public_api or top.size == 0:
        return top
    lifted: list[int] = []
    seen: set[str] = set()
    for doc in top[np.argsort(-scores[top], kind="stable")][:PUBLIC_FIRST_DEPTH].tolist():
        name = data.names[doc]
        if name in seen:
            continue
        seen.add(name)
        if data.parent[doc] < 0:  # a top-level hit is itself a definition, public or not
            continue
        for rep in data.public_api.get(name, ()):
            if rep != doc and allowed[rep] and scores[rep] < scores[doc]:
                scores[rep] = scores[doc] * (1 + LIFT_MARGIN) + scores[rep] * LIFT_MARGIN
                lifted.append(rep)
    return np.union1d(top, np.array(lifted, dtype=top.dtype)) if lifted else top


def is_vendored(path: str) -> bool:
    """True for bundled third-party code (`deps/`, `_vendor/`): real code, but not the repo's own."""
    return bool(_VENDORED_SEGMENT.search(path))


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
    typed = _typed_words(query)
    typed_stems = {stem(w) for w in typed}
    typed_ok: dict[str, bool] = {}  # a name part -> whether a word typed spells it
    out = np.ones(len(docs), dtype=np.float32)
    constructors = levers.on("toplevel")
    for i, doc in enumerate(docs.tolist()):
        name = data.names[doc]
        if constructors and _is_constructor(name, data.qualnames[doc]):
            continue  # its name is its class's: the class answers to it
        parts = name_parts(name)
        if parts:
            covered = parts & wanted
            if covered & typed_stems:  # a stem collision names nothing: "out" is not `outer`
                for part, part_stem in _stemmed_parts(name):
                    if part_stem in covered and part_stem in typed_stems:
                        ok = typed_ok.get(part)
                        if ok is None:
                            ok = typed_ok[part] = _typed_part(part, typed)
                        if not ok:
                            covered = covered - {part_stem}
            matched = len(covered)
            # A one-word name (`Query`, `Body`) is "covered" by any query saying that word;
            # full credit needs two of the query's words in the name.
            out[i] += NAME_COVERAGE_WEIGHT * matched / len(parts) * min(matched, 2) / 2
        key = compact(name)
        if key and (key == whole or (len(words) <= 2 and key in words)):
            out[i] *= EXACT_NAME_BOOST
    return out


__all__ = ["AUX_PENALTY", "RankData", "Searcher", "glob_match", "in_test_module", "is_auxiliary"]
