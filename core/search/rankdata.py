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
_COLUMNS = ("rowid, id, path, ord, kind, language, name, norm_hash, qualname, signature, parent_id, "
            "end_line - start_line + 1")


@dataclass(slots=True)
class RankData:
    """The candidates of one search (and the symbols around them), in index order (path, ord)."""

    rows: list[int]
    """Each document's row in the store's `symbols` table (the term index's `row`)."""
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
    """How many symbols each file in `unique_paths` holds (all of them, not only candidates)."""
    qualnames: list[str]
    family: NDArray[np.int32]
    """Symbols of one family (overloads, accessors, cfg variants, a prototype and its
    definition) share a number: one hit shows them."""
    prior: NDArray[np.float32]
    """Query-independent factor: widely referenced and re-exported (public API) definitions up,
    private and bundled third-party ones down (see `_priors`): the hand-set factors' product."""
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
    """Store rows already read, and files' symbol counts, for one index generation: a warm
    process re-ranks the candidates it saw before without reading them again. Bounded."""

    LIMIT = 200_000

    def __init__(self) -> None:
        self.generation = -1
        self.rows: dict[int, tuple[Any, ...]] = {}
        self.sizes: dict[str, int] = {}

    def at(self, generation: int) -> RowCache:
        """This cache, emptied if the index changed since (or it grew past `LIMIT`)."""
        if generation != self.generation or len(self.rows) > self.LIMIT or len(self.sizes) > self.LIMIT:
            self.rows, self.sizes, self.generation = {}, {}, generation
        return self


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
        cache.rows[got[0]] = got
    if extra_ids:
        _read(store, "id", list(extra_ids), found)
    by_id = {r[1]: r for r in found.values()}
    wanted = {r[10] for r in found.values() if r[10] and r[10] not in by_id}
    for _ in range(MAX_DEPTH):  # the symbols enclosing them, up to the file's top
        if not wanted:
            break
        parents = _read(store, "id", sorted(wanted), found)
        by_id.update((r[1], r) for r in parents)
        wanted = {r[10] for r in parents if r[10] and r[10] not in by_id}
    public = levers.on("public") and exported
    names = {r[6] for r in found.values() if r[10] and r[6] in exported} if public else set()
    declared = {r[6] for r in found.values() if _declared(r[2], r[9], r[11])}
    if names or declared:  # re-exported definitions, and the definitions of declared names
        _read(store, "name", sorted(names | declared), found)
    ordered = sorted(found.values(), key=lambda r: (r[2], r[3]))
    return _build(store, terms, ordered, exported if public else set(), cache)


def _read(store: Store, column: str, keys: list[Any], into: dict[int, tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for start in range(0, len(keys), READ_BATCH):
        chunk = keys[start : start + READ_BATCH]
        marks = ",".join("?" * len(chunk))
        for row in store.query(f"SELECT {_COLUMNS} FROM symbols WHERE {column} IN ({marks})", chunk):
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


def _declared(path: str, signature: str, lines: int) -> bool:
    return _static(path, signature, lines)[0]


def _build(store: Store, terms: TermIndex, ordered: list[tuple[Any, ...]], exported: set[str],
           cache: RowCache) -> RankData:
    rows = [r[0] for r in ordered]
    ids = [r[1] for r in ordered]
    paths = [r[2] for r in ordered]
    kinds = [r[4] for r in ordered]
    names = [r[6] for r in ordered]
    qualnames = [r[8] for r in ordered]
    signatures = [r[9] for r in ordered]
    parent_ids = [r[10] for r in ordered]
    lines = [r[11] for r in ordered]
    unique_paths = sorted(set(paths))
    path_index = {p: i for i, p in enumerate(unique_paths)}
    path_ids = np.array([path_index[p] for p in paths], dtype=np.int32)
    sizes = cache.sizes
    sizes.update(_file_sizes(store, [p for p in unique_paths if p not in sizes]))
    position = {sym_id: doc for doc, sym_id in enumerate(ids)}
    top_level = [p is None and k in PUBLIC_KINDS for p, k in zip(parent_ids, kinds, strict=True)]
    facts = [_path_facts(p) for p in unique_paths]
    auxiliary = np.array([f[0] for f in facts], dtype=bool)[path_ids] if paths else np.zeros(0, dtype=bool)
    auxiliary |= np.array([in_test_module(q, k) for q, k in zip(qualnames, kinds, strict=True)], dtype=bool)
    static = [_static(p, sig, n) for p, sig, n in zip(paths, signatures, lines, strict=True)]
    prior, prior_parts = _priors(terms, names, [facts[i] for i in path_ids.tolist()], top_level, exported)
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
        auxiliary=auxiliary,
        file_sizes=np.array([sizes.get(p, 1) for p in unique_paths], dtype=np.int64),
        qualnames=qualnames,
        family=_families(qualnames, kinds, paths, [d for d, _ in static], auxiliary.tolist()),
        prior=prior,
        prior_parts=prior_parts,
        parent=np.array([position.get(p, -1) if p else -1 for p in parent_ids], dtype=np.int32),
        public_api=_public_api(names, top_level, auxiliary.tolist(), exported),
        heft=np.array([h for _, h in static], dtype=np.float32),
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


def _priors(
    terms: TermIndex, names: list[str], facts: list[tuple[bool, bool, bool, bool, bool]], public: list[bool],
    exported: set[str],
) -> tuple[NDArray[np.float32], NDArray[np.float64]]:
    """Widely referenced definitions a little up, private ones (`_x`, `#x`) a little down,
    bundled third-party code (`deps/`) further down, and a top-level definition under a name
    a package entry file re-exports (its public API: `sympy.gcd`, not `Monomial.gcd`) up.
    `facts` are each symbol's file's (`_path_facts`). Returns the prior (the hand-set
    factors' product) and its parts, the model's `PRIOR` features (`model.py`)."""
    parts = np.zeros((len(names), len(PRIOR)), dtype=np.float64)
    n = max(terms.size, 2)
    scale = REFERENCE_PRIOR / math.log1p(n)
    refs = [0.0] * len(names)
    private = [0.0] * len(names)
    for doc, name in enumerate(names):  # (plain floats: numpy scalars cost a microsecond each)
        key = _reference_term(name)
        if key is None:
            continue
        refs[doc] = math.log1p(scale * math.log1p(terms.df(key)))
        if name.startswith(("_", "#")) and not name.startswith("__"):
            private[doc] = 1.0
    parts[:, 0] = refs
    parts[:, 1] = private
    if exported:
        parts[[d for d, (name, ok) in enumerate(zip(names, public, strict=True))
               if ok and name in exported], 2] = 1.0
    if levers.on("privatepaths"):
        parts[[d for d, f in enumerate(facts) if f[3]], 3] = 1.0
    if levers.on("vendored"):
        parts[[d for d, f in enumerate(facts) if f[4]], 4] = 1.0
    hand = np.array([HAND_WEIGHTS[INDEX[f]] for f in PRIOR])
    return np.exp(parts @ hand).astype(np.float32), parts


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
