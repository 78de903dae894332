"""How a candidate's BM25 score is adjusted: names the query spells, kinds, files, the public API.

Pure functions of the ranking data and the query, applied by `Searcher.search` in order.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from symscope.core import levers
from symscope.core.search.model import HELPER_PRIOR, SHAPE_PRIOR
from symscope.core.search.rankdata import RankData
from symscope.core.terms import ABBREVIATIONS, compact, name_parts, split_identifier, stem

#: Query words that ask for auxiliary code (not `dist`: it is also a name, `dist()` for distance).
_AUX_QUERY_WORDS = frozenset(
    ["test", "tests", "testing", "spec", "specs", "example", "examples", "sample", "samples", "demo", "demos", "doc", "docs", "docs_src", "tutorial", "tutorials", "fixture", "fixtures", "bench", "benches", "benchmark", "benchmarks", "script", "scripts", "fuzz", "mock", "mocks", "e2e", "playground"]
)
#: In a query of four words or more these are verbs or adjectives ("test a connection",
#: "sample random keys"), not a request for test or sample files.
_AUX_VERBS = frozenset(["test", "sample", "example", "demo", "doc", "script", "bench", "fixture", "spec", "fuzz", "mock"])
#: Top BM25 candidates re-scored by how much of their name the query covers.
RERANK_DEPTH = 200
NAME_COVERAGE_WEIGHT = 0.5
#: Kinds that declare a shape and do nothing themselves: a type alias, an interface, an enum,
#: and a struct (its bag holds its fields and members' names; each method is a hit of its own).
SHAPE_KINDS = ("type", "interface", "enum", "struct")
#: Up to this many query terms, a query is keyword-like: any name it spells keeps its BM25 lead.
SHORT_QUERY = 3
#: How much a file whose other symbols match a sentence lifts its symbols (at most).
FILE_CONTEXT = 0.2
#: Hits whose names are checked for a re-exported definition of the same name.
PUBLIC_FIRST_DEPTH = 10
#: How far above the method a lifted public definition lands (a share of the method's score).
LIFT_MARGIN = 1e-3


def file_context(data: RankData, scores: NDArray[np.float32]) -> NDArray[np.float64]:
    """Each symbol's `file` feature: log(1 + `FILE_CONTEXT` x how well the rest of its file matches).

    A sentence names a module's subject as well as the function's job ("a key whose time to
    live has passed" is about expiry, redis's expire.c): the mean score of the file's other
    symbols, relative to the best file's, scales each symbol by 1 + `FILE_CONTEXT` x that.
    The symbol itself is left out of its file's mean, so a file of one symbol lifts nothing.
    Only the symbols that score are touched (a zero stays zero): a sentence costs a fraction
    of a millisecond on 40,000 symbols.
    """
    out = np.zeros(len(scores), dtype=np.float64)
    hit = np.flatnonzero(scores > 0)  # (a boolean mask first: 8x faster than on floats)
    if hit.size == 0:
        return out
    files = data.path_ids[hit]
    total = np.bincount(files, weights=scores[hit], minlength=len(data.unique_paths))
    others = np.maximum(data.file_sizes - 1, 1)
    # the best mean any symbol could see: a file's total over its other symbols (none in a
    # file of one symbol)
    best = float(np.where(data.file_sizes > 1, total / others, 0.0).max())
    if best <= 0:
        return out
    out[hit] = np.log1p((FILE_CONTEXT / best) * (total[files] - scores[hit]) / others[files])
    return out


def kind_prior(kinds: NDArray[np.object_], sentence: bool) -> NDArray[np.float32]:
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


def union(a: NDArray[np.intp], b: NDArray[np.intp]) -> NDArray[np.intp]:
    """The sorted distinct values of two index arrays, as `np.union1d` gives them, without
    `np.unique`: its masked-array check imports `numpy.ma`, 10 ms in every fresh search process."""
    both = np.concatenate((a, b.astype(a.dtype, copy=False)))
    both.sort()
    if both.size < 2:
        return both
    return both[np.concatenate(([True], both[1:] != both[:-1]))]


def kind_features(kinds: NDArray[np.object_]) -> NDArray[np.float64]:
    """The `constant` and `shape` features (two columns): a constant or regex, and a type
    alias, interface, enum or struct (see `kind_prior`)."""
    out = np.zeros((len(kinds), 2), dtype=np.float64)
    if levers.on("helpers"):
        out[:, 0] = kinds == "constant"
    if levers.on("shapes"):
        out[:, 1] = np.isin(kinds, SHAPE_KINDS)
    return out


def typed_words(query: str) -> frozenset[str]:
    """The words of a query as typed, lower-cased, and the parts of those that are identifiers."""
    words = re.findall(r"[A-Za-z0-9]+", query)
    return frozenset(w.lower() for w in words) | frozenset(p for w in words for p in split_identifier(w))


def spells(name: str, words: frozenset[str]) -> bool:
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


def is_miscased(typed: str, name: str, qualname: str) -> bool:
    """`poly` for a query `Poly`: the same letters in another case. (`send_file` for
    `sendFile` is not: separators are spelling, not case.)"""
    same = [n for n in (name, qualname) if n.lower() == typed.lower()]
    return bool(same) and typed not in same


def query_asks_aux(query: str) -> bool:
    """The query asks for tests, examples or docs (`--path` aside)."""
    words = re.findall(r"[a-z_]+", query.lower())
    long = len(words) >= 4 and levers.on("auxverbs")
    return any(w in _AUX_QUERY_WORDS and not (long and w in _AUX_VERBS) for w in words)


def public_first(
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
    return union(top, np.array(lifted, dtype=top.dtype)) if lifted else top


def name_features(
    data: RankData, docs: NDArray[np.intp], terms: list[str], query: str
) -> NDArray[np.float64]:
    """The `cover` and `exact` features (two columns): how much of its own name the query
    spells out, and whether the query is the name.

    BM25 treats a name term like any other; people mean the symbol named
    `ClientIP` when they ask for "the client IP", not one that mentions it.
    """
    wanted = set(terms)
    whole = compact(query)
    words = {compact(w) for w in query.split()}
    typed = typed_words(query)
    typed_stems = {stem(w) for w in typed}
    typed_ok: dict[str, bool] = {}  # a name part -> whether a word typed spells it
    cover = [0.0] * len(docs)
    exact = [0.0] * len(docs)
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
            cover[i] = math.log1p(NAME_COVERAGE_WEIGHT * matched / len(parts) * min(matched, 2) / 2)
        key = compact(name)
        if key and (key == whole or (len(words) <= 2 and key in words)):
            exact[i] = 1.0
    return np.array([cover, exact], dtype=np.float64).T.reshape(len(docs), 2)

