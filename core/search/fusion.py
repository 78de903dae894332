"""Hybrid search (the `semantic` extra): BM25 fused with embedding similarity.

Only used when embeddings exist beside the index; the default install never reaches it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from symscope.core import levers
from symscope.core.search.model import AUX_PENALTY
from symscope.core.search.rankdata import RankData
from symscope.core.search.scoring import (
    LIFT_MARGIN,
    SHORT_QUERY,
    kind_prior,
    spells,
    typed_words,
    union,
)
from symscope.core.terms import name_parts

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
#: How much a sentence's fused scores lean to longer definitions (`RankData.heft` to this power).
FUSED_HEFT_POWER = 0.15


def fuse(
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
    cand = union(top, near[sims[near] > 0])
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
    words = typed_words(query)
    spelled = np.array([len(p) >= least and p <= wanted and spells(data.names[d], words)
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
    fused = fused * kind_prior(data.kinds[cand], sentence)  # as in BM25
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
