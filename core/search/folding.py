"""Folding: copies and one file's variants of a name become one hit, headed by the primary copy.

`pick` walks the ranked candidates and keeps the first of each group (same name and
text, same family, or a near copy by terms), delaying a class whose member is listed.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from symscope.core import levers
from symscope.core.models import FoldKind, SearchHit
from symscope.core.search.paths import is_secondary
from symscope.core.search.rankdata import RankData
from symscope.core.store import Store

#: Places a class moves down when one of its members is already listed above it.
NEST_DELAY = 2
#: Near copies: two definitions of one kind in different files whose terms overlap this much
#: (Jaccard) are one hit (`keyHashSlot` and the CLI's copy of it) ...
COPY_JACCARD = 0.85
#: ... when each has this many distinct terms (short ones look alike by chance) ...
COPY_MIN_TERMS = 20
#: ... among the first `limit` x this many candidates.
COPY_REACH = 3


class _Copies:
    """Near copies among a search's first candidates, judged by the overlap of their terms.

    Only across files: a definition copied into another module or program (redis's
    `keyHashSlot` and the CLI's `clusterManagerKeyHashSlot`, a bundled build) is one hit,
    while look-alike variants side by side in one file (`debounce_trailing` and
    `throttle_trailing`, `sine_transform` and `cosine_transform`) do different things.
    """

    def __init__(self, store: Store, data: RankData, docs: NDArray[np.intp],
                 known: dict[int, frozenset[str] | None]) -> None:
        """`known`: each store row's distinct terms (None: too few to judge), kept by the caller
        for one index generation, so a warm search unpacks no bag it judged before."""
        self.data = data
        position = {data.rows[d]: d for d in docs.tolist()}
        missing = [row for row in position if row not in known]
        if missing:
            for row, terms in store.bags(missing).items():
                distinct = frozenset(terms.split())
                known[row] = distinct if len(distinct) >= COPY_MIN_TERMS else None
        self.terms: dict[int, frozenset[str]] = {}
        for row, doc in position.items():
            if (judged := known.get(row)) is not None:
                self.terms[doc] = judged

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


def _enclosing(parent: NDArray[np.int32], doc: int) -> list[int]:
    """The documents enclosing `doc`, innermost first (a method's class, its module...)."""
    out: list[int] = []
    up = int(parent[doc])
    while up >= 0 and len(out) < 32:
        out.append(up)
        up = int(parent[up])
    return out


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


def pick(
    store: Store,
    data: RankData,
    top: NDArray[np.intp],
    scores: NDArray[np.float32],
    limit: int,
    penalised: bool,
    exact: NDArray[np.bool_],
    known_terms: dict[int, frozenset[str] | None],
) -> list[SearchHit]:
    """The first `limit` hits of the ranked candidates `top`, copies folded under their head.

    Args:
        penalised: Auxiliary code (tests, examples) counts as secondary (the query did not ask for it).
        exact: The candidates the query names exactly (a copy named keeps its place).
        known_terms: The candidates' distinct terms judged by earlier searches of this index
            generation (`RowCache.words`); filled in here.
    """
    picked: list[int] = []
    groups: dict[tuple[str, bytes], int] = {}
    families: dict[int, int] = {}
    dupes: dict[int, list[int]] = {}
    fold = levers.on("fold")
    nesting = levers.on("nesting")
    around: set[int] = set()  # the documents enclosing a listed one
    waiting: list[tuple[int, int]] = []  # (listed once this many hits are, document)
    copies = _Copies(store, data, top[: limit * COPY_REACH], known_terms) if fold and levers.on("copies") else None
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
    symbols = store.symbols_by_ids([data.ids[head] for _, head, _ in shown])
    hits: list[SearchHit] = []
    for doc, head, folded in shown:
        sym = symbols.get(data.ids[head])
        if sym is None:
            continue
        others = tuple(data.ids[d] for d in folded)
        hits.append(SearchHit(sym, float(scores[doc]), others, _fold_kind(data, head, folded)))
    return hits
