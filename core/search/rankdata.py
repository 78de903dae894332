"""`RankData`: what the ranker knows of one search's candidates, read from the store per query.

The candidates come from the term index (`termindex.py`: the BM25 hits and the exact
names); this adds what their ranking and folding read: the symbols enclosing them (a
method's class), the public definitions their names re-export, the declarations that
share their names, and per symbol its family (one file's variants of a name), its
query-independent prior and its heft. Nothing here is read for the whole repository, so a
search costs what its candidates cost.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from symscope.core import levers
from symscope.core.code_roles import in_test_module, is_auxiliary
from symscope.core.models import CALLABLE_KINDS
from symscope.core.search.model import HAND_WEIGHTS, INDEX, PRIOR
from symscope.core.search.paths import (
    DECLARATION_FILE,
    HEADER_FILE,
    PRIVATE_PATH,
    is_vendored,
)
from symscope.core.search.termindex import TermIndex
from symscope.core.settings import DEFAULTS
from symscope.core.store import Store
from symscope.core.terms import split_identifier, stem

VENDORED_PRIOR = DEFAULTS.vendored_prior
#: A top-level definition whose name a package entry file re-exports (the public API)...
EXPORTED_PRIOR = DEFAULTS.exported_prior
#: ... when it is one of these kinds: what does the work (a re-exported type or constant
#: describes data, and rarely answers "what does X").
PUBLIC_KINDS = CALLABLE_KINDS | {"class", "struct"}
#: How much a definition's reference count (symbols mentioning its name) lifts it, at most.
REFERENCE_PRIOR = DEFAULTS.reference_prior
#: Names starting with `_` or `#` (private by convention) keep this share of their score.
PRIVATE_PRIOR = DEFAULTS.private_prior
#: A signature that restricts its own visibility (Rust `pub(crate)`, `private`, Kotlin and C#
#: `internal`, Swift `fileprivate`, Scala `private[x]`): not the public definition.
_RESTRICTED = re.compile(r"^\s*(?:pub\s*\((?:crate|super|self|in\b)[^)]*\)|private\b|internal\b|fileprivate\b)")
#: An exact name's definition in a declaration file counts this share of its substance.
DECLARATION_PRIOR = DEFAULTS.declaration_prior
#: Rows read from the store per query (SQLite's default limit of bound parameters is 999).
READ_BATCH = 900
#: Enclosing symbols followed up at most this far.
MAX_DEPTH = 32
_COLUMNS = ("sid, id, path, ord, kind, language, name, norm_hash, qualname, signature, parent_id, "
            "end_line - start_line + 1")


@dataclass(slots=True)
class RankData:
    """The candidates of one search (and the symbols around them), in index order (path, ord)."""

    rows: list[int]
    """Each document's row in the store's `symbols` table (the term index's `row`)."""
    ids: list[str]
    paths: list[str]
    names: list[str]
    norm_hashes: list[bytes]
    """Each symbol's digest of its text without whitespace (same digest: same code)."""
    kinds: NDArray[np.object_]
    languages: NDArray[np.object_]
    path_ids: NDArray[np.int32]
    unique_paths: list[str]
    auxiliary: NDArray[np.bool_]
    file_sizes: NDArray[np.int64]
    """How many symbols each file in `unique_paths` holds (all of them, not only candidates)."""
    qualnames: list[str]
    family: NDArray[np.int32]
    """Symbols of one family (overloads, accessors, cfg variants, a prototype and its
    definition) share a number: one hit shows them."""
    prior: NDArray[np.float32]
    """Query-independent factor: widely referenced and re-exported (public API) definitions up,
    private and bundled third-party ones down (see `_prior_parts`): the hand-set factors' product."""
    prior_parts: NDArray[np.float64]
    """The prior's parts, one column per `model.PRIOR` feature (the model weighs them)."""
    parent: NDArray[np.int32]
    """The enclosing symbol's document (a method's class), or -1."""
    public_api: dict[str, list[int]]
    """A name a package entry file re-exports -> the library's top-level definitions of it."""
    heft: NDArray[np.float32]
    """How much of a definition there is: 1 + log(1 + its lines), lower for a restricted
    visibility or in a declaration file (a shim, mock or forward declaration is short).
    Times the prior, its substance: how much it looks like the main definition of its name,
    which orders several definitions of the name a query spells exactly."""

    def position(self) -> dict[int, int]:
        """Store row -> document."""
        return {row: doc for doc, row in enumerate(self.rows)}


class RowCache:
    """Store rows already read, and what each row's ranking derives from them alone, for one
    index generation: a warm process re-ranks the candidates it saw before without reading
    or judging them again. Bounded."""

    LIMIT = 200_000

    def __init__(self) -> None:
        self._clear((-1, -1))

    def _clear(self, generation: tuple[int, int]) -> None:
        self.generation = generation
        self.off = levers.OFF
        self.rows: dict[int, tuple[Any, ...]] = {}
        self.by_id: dict[str, tuple[Any, ...]] = {}
        self.by_name: dict[str, list[tuple[Any, ...]]] = {}
        self.sizes: dict[str, int] = {}
        self.facts: dict[int, RowFacts] = {}
        self.words: dict[int, frozenset[str] | None] = {}
        """Each row's distinct terms, for the near-copy check (`folding.py`)."""

    def at(self, generation: tuple[int, int]) -> RowCache:
        """This cache, emptied if the index changed since (the store's generation and the term
        index's `epoch`: document frequencies feed the priors), the levers switched off changed
        (a benchmark flips them in process: the priors read two), or it grew past `LIMIT`."""
        stale = generation != self.generation or self.off != levers.OFF
        if stale or max(len(self.rows), len(self.sizes), len(self.by_name), len(self.words)) > self.LIMIT:
            self._clear(generation)
        return self


@dataclass(frozen=True, slots=True)
class RowFacts:
    """What one symbol's ranking reads that depends on nothing but the symbol and the index
    generation: judged once per generation, however many searches see it."""

    auxiliary: bool
    declared: bool
    heft: float
    prior: float
    """The hand-set weights' prior: exp(hand weights . `prior_parts`)."""
    prior_parts: tuple[float, ...]
    """The prior's parts, the model's `PRIOR` features (see `_prior_parts`)."""
    top_level: bool


def candidate_data(store: Store, terms: TermIndex, rows: list[int], exported: set[str],
                   extra_ids: Sequence[str] = (), cache: RowCache | None = None) -> RankData:
    """The ranking data of the candidates `rows` (store rows) and `extra_ids` (the embeddings'
    nearest symbols, by id), with what their ranking reads."""
    cache = cache if cache is not None else RowCache()
    found: dict[int, tuple[Any, ...]] = {}
    missing = []
    for row in rows:
        got = cache.rows.get(row)
        if got is None:
            missing.append(row)
        else:
            found[row] = got
    for got in _read(store, "rowid", missing, found):
        _remember(cache, got)
    if extra_ids:
        _by_ids(store, list(extra_ids), found, cache)
    by_id = {r[1]: r for r in found.values()}
    wanted = {r[10] for r in found.values() if r[10] and r[10] not in by_id}
    for _ in range(MAX_DEPTH):  # the symbols enclosing them, up to the file's top
        if not wanted:
            break
        parents = _by_ids(store, sorted(wanted), found, cache)
        by_id.update((r[1], r) for r in parents)
        wanted = {r[10] for r in parents if r[10] and r[10] not in by_id}
    public = exported if levers.on("public") else set()
    names = {r[6] for r in found.values() if r[10] and r[6] in public}
    declared = {r[6] for r in found.values() if _facts(cache, terms, r, public).declared}
    if names or declared:  # re-exported definitions, and the definitions of declared names
        _by_names(store, sorted(names | declared), found, cache)
    ordered = sorted(found.values(), key=lambda r: (r[2], r[3]))
    return _build(store, terms, ordered, public, cache)


def _remember(cache: RowCache, row: tuple[Any, ...]) -> None:
    cache.rows[row[0]] = row
    cache.by_id[row[1]] = row


def _by_ids(store: Store, ids: list[str], found: dict[int, tuple[Any, ...]], cache: RowCache) -> list[tuple[Any, ...]]:
    """The rows of these ids not in `found` yet (added to it), from the cache or the store."""
    out: list[tuple[Any, ...]] = []
    missing = []
    for sym_id in ids:
        got = cache.by_id.get(sym_id)
        if got is None:
            missing.append(sym_id)
        elif got[0] not in found:
            found[got[0]] = got
            out.append(got)
    for got in _read(store, "id", missing, found):
        _remember(cache, got)
        out.append(got)
    return out


def _by_names(store: Store, names: list[str], found: dict[int, tuple[Any, ...]], cache: RowCache) -> None:
    """Every row named one of `names`, into `found`, from the cache or the store."""
    missing = [n for n in names if n not in cache.by_name]
    if missing:
        for n in missing:
            cache.by_name[n] = []
        every: dict[int, tuple[Any, ...]] = {}
        for got in _read(store, "name", missing, every):
            cache.by_name[got[6]].append(got)
            _remember(cache, got)
    for n in names:
        for got in cache.by_name[n]:
            found.setdefault(got[0], got)


def _read(store: Store, column: str, keys: list[Any], into: dict[int, tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    if column == "id":  # ids are derived, not stored: the store finds them by their digests
        got = store.rows_by_ids(_COLUMNS, keys)
    else:
        got = []
        for start in range(0, len(keys), READ_BATCH):
            chunk = keys[start : start + READ_BATCH]
            marks = ",".join("?" * len(chunk))
            got += store.query(f"SELECT {_COLUMNS} FROM symbols WHERE {column} IN ({marks})", chunk)
    out: list[tuple[Any, ...]] = []
    for row in got:
        if row[0] not in into:
            into[row[0]] = row
            out.append(row)
    return out


@functools.lru_cache(maxsize=65536)
def _path_facts(path: str) -> tuple[bool, bool, bool, bool, bool]:
    """(auxiliary, declaration file, header, private path, vendored): judged once per path."""
    return (is_auxiliary(path), bool(DECLARATION_FILE.search(path)), bool(HEADER_FILE.search(path)),
            bool(PRIVATE_PATH.search(path)), is_vendored(path))


@functools.lru_cache(maxsize=131072)
def _static(path: str, signature: str, lines: int) -> tuple[bool, float]:
    """Whether a symbol only declares (`_declarations`), and its heft (`RankData.heft`)."""
    _, declaration, header, _, _ = _path_facts(path)
    declared = declaration or (header and lines <= signature.count("\n") + 1)
    heft = (PRIVATE_PRIOR if _RESTRICTED.match(signature) else 1.0) \
        * (DECLARATION_PRIOR if declaration else 1.0) * (1.0 + float(np.log1p(np.float32(lines))))
    return declared, float(np.float32(heft))


def _build(store: Store, terms: TermIndex, ordered: list[tuple[Any, ...]], exported: set[str],
           cache: RowCache) -> RankData:
    rows = [r[0] for r in ordered]
    ids = [r[1] for r in ordered]
    paths = [r[2] for r in ordered]
    kinds = [r[4] for r in ordered]
    names = [r[6] for r in ordered]
    qualnames = [r[8] for r in ordered]
    parent_ids = [r[10] for r in ordered]
    unique_paths = sorted(set(paths))
    path_index = {p: i for i, p in enumerate(unique_paths)}
    path_ids = np.array([path_index[p] for p in paths], dtype=np.int32)
    sizes = cache.sizes
    sizes.update(_file_sizes(store, [p for p in unique_paths if p not in sizes]))
    position = {sym_id: doc for doc, sym_id in enumerate(ids)}
    facts = [_facts(cache, terms, r, exported) for r in ordered]
    auxiliary = [f.auxiliary for f in facts]
    top_level = [f.top_level for f in facts]
    return RankData(
        rows=rows,
        ids=ids,
        paths=paths,
        names=names,
        norm_hashes=[r[7] for r in ordered],
        kinds=np.array(kinds, dtype=object),
        languages=np.array([r[5] for r in ordered], dtype=object),
        path_ids=path_ids,
        unique_paths=unique_paths,
        auxiliary=np.array(auxiliary, dtype=bool),
        file_sizes=np.array([sizes.get(p, 1) for p in unique_paths], dtype=np.int64),
        qualnames=qualnames,
        family=_families(qualnames, kinds, paths, [f.declared for f in facts], auxiliary),
        prior=np.array([f.prior for f in facts], dtype=np.float32),
        prior_parts=np.array([f.prior_parts for f in facts], dtype=np.float64).reshape(len(facts), len(PRIOR)),
        parent=np.array([position.get(p, -1) if p else -1 for p in parent_ids], dtype=np.int32),
        public_api=_public_api(names, top_level, auxiliary, exported),
        heft=np.array([f.heft for f in facts], dtype=np.float32),
    )


def _facts(cache: RowCache, terms: TermIndex, row: tuple[Any, ...], exported: set[str]) -> RowFacts:
    """One row's `RowFacts` (`row` in `_COLUMNS` order), judged once per generation."""
    got = cache.facts.get(row[0])
    if got is None:
        got = cache.facts[row[0]] = _row_facts(terms, row, exported)
    return got


def _row_facts(terms: TermIndex, row: tuple[Any, ...], exported: set[str]) -> RowFacts:
    path, kind, name, qualname, signature, parent_id, lines = row[2], row[4], row[6], row[8], row[9], row[10], row[11]
    path_facts = _path_facts(path)
    declared, heft = _static(path, signature, lines)
    top_level = parent_id is None and kind in PUBLIC_KINDS
    parts = _prior_parts(terms, name, path_facts, top_level, exported)
    return RowFacts(
        auxiliary=path_facts[0] or in_test_module(qualname, kind),
        declared=declared,
        heft=heft,
        prior=math.exp(sum(w * x for w, x in zip(_PRIOR_HAND, parts, strict=True))),
        prior_parts=parts,
        top_level=top_level,
    )


def _file_sizes(store: Store, paths: list[str]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for start in range(0, len(paths), READ_BATCH):
        chunk = paths[start : start + READ_BATCH]
        marks = ",".join("?" * len(chunk))
        out += store.query(f"SELECT path, count(*) FROM symbols WHERE path IN ({marks}) GROUP BY path", chunk)
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
    family = list(range(len(qualnames)))
    groups: dict[tuple[bool, str, str], list[int]] = {}
    for doc, key in enumerate(zip(aux, kinds, qualnames, strict=True)):
        groups.setdefault(key, []).append(doc)
    for docs in groups.values():
        if len(docs) == 1:
            continue
        homes: dict[str, int] = {}  # a file's first symbol of this kind and name holds its family
        for doc in docs:
            family[doc] = homes.setdefault(paths[doc], doc)
        defined = {paths[d] for d in docs if not declared[d]}
        if len(defined) == 1:  # one definition: its declarations elsewhere join it
            home = homes[defined.pop()]
            for doc in docs:
                family[doc] = home
    return np.array(family, dtype=np.int32)


def _prior_parts(
    terms: TermIndex, name: str, facts: tuple[bool, bool, bool, bool, bool], public: bool, exported: set[str],
) -> tuple[float, ...]:
    """The prior's parts, the model's `PRIOR` features (`model.py`), in that order: widely
    referenced definitions a little up, private ones (`_x`, `#x`) a little down, a top-level
    definition under a name a package entry file re-exports (its public API: `sympy.gcd`, not
    `Monomial.gcd`) up, private paths and bundled third-party code (`deps/`) down. `facts`
    are the symbol's file's (`_path_facts`). (Plain floats: numpy scalars cost a microsecond each.)"""
    refs = private = 0.0
    key = _reference_term(name)
    if key is not None:
        refs = math.log1p(REFERENCE_PRIOR / math.log1p(max(terms.size, 2)) * math.log1p(terms.df(key)))
        if name.startswith(("_", "#")) and not name.startswith("__"):
            private = 1.0
    return (
        refs,
        private,
        1.0 if exported and public and name in exported else 0.0,
        1.0 if levers.on("privatepaths") and facts[3] else 0.0,
        1.0 if levers.on("vendored") and facts[4] else 0.0,
    )


#: The hand-set weights of the `PRIOR` features, in that order.
_PRIOR_HAND = tuple(HAND_WEIGHTS[INDEX[f]] for f in PRIOR)


@functools.lru_cache(maxsize=65536)
def _reference_term(name: str) -> str | None:
    """The term a reference to `name` leaves in other symbols' bags (its whole name, or its stem)."""
    parts = split_identifier(name)
    if not parts:
        return None
    return name.lower().replace("_", "") if len(parts) > 1 else stem(parts[0])


def _public_api(
    names: list[str], top_level: list[bool], auxiliary: list[bool], exported: set[str]
) -> dict[str, list[int]]:
    """Each re-exported name's top-level library definitions (`sympy.gcd` for `gcd`)."""
    out: dict[str, list[int]] = {}
    for doc, (name, ok, aux) in enumerate(zip(names, top_level, auxiliary, strict=True)):
        if ok and not aux and name in exported:
            out.setdefault(name, []).append(doc)
    return out
