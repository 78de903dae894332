"""`RankData`: the search structures of one index, built from the store and persisted beside it.

Built once per index generation and settings fingerprint (`Searcher.data`): BM25 over
every symbol's terms, exact-name lookup, families (one file's variants of a name), the
query-independent priors and each definition's heft.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from symscope.core import levers
from symscope.core.code_roles import in_test_module, is_auxiliary
from symscope.core.models import CALLABLE_KINDS
from symscope.core.rank import BM25Builder, SparseBM25
from symscope.core.search.paths import (
    DECLARATION_FILE,
    HEADER_FILE,
    PRIVATE_PATH,
    docs_in,
    is_vendored,
)
from symscope.core.settings import DEFAULTS
from symscope.core.store import Store
from symscope.core.terms import compact, split_identifier, stem

VENDORED_PRIOR = DEFAULTS.vendored_prior
#: A top-level definition whose name a package entry file re-exports (the public API)...
EXPORTED_PRIOR = DEFAULTS.exported_prior
#: ... when it is one of these kinds: what does the work (a re-exported type or constant
#: describes data, and rarely answers "what does X").
PUBLIC_KINDS = CALLABLE_KINDS | {"class", "struct"}
#: For queries of more than `SHORT_QUERY` terms, functions' and methods' length normalisation
#: is softened to this power (see `BM25Builder.build`): the function that does what a
#: sentence describes is often long. (A class is kept short by leaving its members' bodies
#: out of its terms instead.)
LENGTH_POWER = DEFAULTS.length_power
#: How much a definition's reference count (symbols mentioning its name) lifts it, at most.
REFERENCE_PRIOR = DEFAULTS.reference_prior
#: Names starting with `_` or `#` (private by convention) keep this share of their score.
PRIVATE_PRIOR = DEFAULTS.private_prior
#: A signature that restricts its own visibility (Rust `pub(crate)`, `private`, Kotlin and C#
#: `internal`, Swift `fileprivate`, Scala `private[x]`): not the public definition.
_RESTRICTED = re.compile(r"^\s*(?:pub\s*\((?:crate|super|self|in\b)[^)]*\)|private\b|internal\b|fileprivate\b)")
#: An exact name's definition in a declaration file counts this share of its substance.
DECLARATION_PRIOR = DEFAULTS.declaration_prior
#: Symbols whose terms are read back from the store at a time, when building.
TERMS_BATCH = 500


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


def build_rank_data(store: Store, counted: BM25Builder | None = None) -> RankData:
    """The ranking data of the symbols in `store` now.

    Args:
        counted: Documents already counted by the indexer while parser processes
            worked; only the others are read back from the store.
    """
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
    rows = store.query(
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
        for sym_id, terms in store.query(
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
    exported = store.exported_names() if levers.on("public") else set()
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
    return data

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
    return [bool(DECLARATION_FILE.search(path))
            or (bool(HEADER_FILE.search(path)) and size <= sig.count("\n") + 1)
            for path, sig, size in zip(paths, signatures, lines, strict=True)]


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
        out[docs_in(paths, lambda p: bool(PRIVATE_PATH.search(p)))] *= PRIVATE_PRIOR
    if levers.on("vendored"):
        out[docs_in(paths, is_vendored)] *= VENDORED_PRIOR
    return out


def _heft(signatures: list[str], lines: list[int], paths: list[str]) -> NDArray[np.float32]:
    """`RankData.heft`: 1 + log(1 + lines), x`PRIVATE_PRIOR` for a restricted visibility,
    x`DECLARATION_PRIOR` in a declaration file (a `.d.ts` beside the JavaScript that
    implements it, often longer for its docs; a `.pyi` stub)."""
    restricted = np.array([bool(_RESTRICTED.match(sig)) for sig in signatures], dtype=bool)
    declared = np.zeros(len(paths), dtype=bool)
    declared[docs_in(paths, lambda p: bool(DECLARATION_FILE.search(p)))] = True
    size = 1.0 + np.log1p(np.asarray(lines, dtype=np.float32))
    return (np.where(restricted, PRIVATE_PRIOR, 1.0) * np.where(declared, DECLARATION_PRIOR, 1.0)
            * size).astype(np.float32)


def _public_api(
    names: list[str], top_level: list[bool], auxiliary: list[bool], exported: set[str]
) -> dict[str, list[int]]:
    """Each re-exported name's top-level library definitions (`sympy.gcd` for `gcd`)."""
    out: dict[str, list[int]] = {}
    for doc, (name, ok, aux) in enumerate(zip(names, top_level, auxiliary, strict=True)):
        if ok and not aux and name in exported:
            out.setdefault(name, []).append(doc)
    return out
