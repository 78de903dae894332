"""The ranking model: a candidate's score is exp(sum of weight x feature), over a few features.

Every adjustment the ranker makes to BM25 (the name the query spells, the priors, the kind,
the file's other symbols, auxiliary code) used to be a hand-set factor multiplied in turn.
Written as logs they are one log-linear model: `HAND_WEIGHTS` reproduces those factors
exactly. Sentences are ranked by `settings.RankSettings.sentence_weights`, which
`benchmarks/fit_rank.py` fits on the auto-labelled training split (the only queries that
split holds are sentences); they are the hand weights but for two the validation split kept
(the file context and the reference count).
Short (keyword-like) queries and the hybrid always use the hand weights.

Features are computed in two stages, as the ranker needs them: `FIRST` over every
candidate (cheap arrays) to pick the few hundred it re-ranks, the rest over those only.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from symscope.core.settings import DEFAULTS

#: The features, in the order of every weight vector.
FEATURES = (
    "bm25",  # log of the BM25 score (the term index's)
    "file",  # log(1 + FILE_CONTEXT x how well the file's other symbols match), sentences only
    "aux",  # 1 for test, example, docs code the query did not ask for
    "cover",  # log(1 + NAME_COVERAGE_WEIGHT x the share of the name the query spells)
    "exact",  # 1 when the query is the name (or a word of a two-word query is)
    "refs",  # log(1 + REFERENCE_PRIOR x log(1 + symbols naming it) / log(1 + symbols))
    "private",  # 1 for a `_x` name
    "exported",  # 1 for a top-level definition a package entry file re-exports
    "privpath",  # 1 under `internal/`, in a `_private` module
    "vendored",  # 1 in bundled third-party code
    "constant",  # 1 for a constant or regex (the code applying it is the answer)
    "shape",  # 1 for a type alias, interface, enum or struct (they declare, not do)
    "heft",  # log of the definition's heft (1 + log(1 + lines), lower for declarations)
)
INDEX = {name: i for i, name in enumerate(FEATURES)}
#: The features of the candidate stage (the rest are read for its best few hundred only).
FIRST = ("bm25", "file", "aux")
#: The prior's features, `RankData.prior_parts`' columns.
PRIOR = ("refs", "private", "exported", "privpath", "vendored")

#: Test and example code keeps this share of its score unless the query asks for it.
AUX_PENALTY = 0.3
#: A symbol the query names exactly (or a word of a two-word query does).
EXACT_NAME_BOOST = 1.5
#: Constants and regexes keep this share: "where is X validated" means the function that applies them.
HELPER_PRIOR = 0.7
#: What a declaration of a shape keeps of its score when a sentence describes behaviour.
SHAPE_PRIOR = 0.7

#: The factors the ranker multiplied by before the model, as log weights: with these the
#: model ranks exactly as the hand-set chain did (`shape` applied to sentences only).
HAND_WEIGHTS = (1.0, 1.0, math.log(AUX_PENALTY), 1.0, math.log(EXACT_NAME_BOOST), 1.0,
                math.log(DEFAULTS.private_prior), math.log(DEFAULTS.exported_prior),
                math.log(DEFAULTS.private_prior), math.log(DEFAULTS.vendored_prior),
                math.log(HELPER_PRIOR), math.log(SHAPE_PRIOR), 0.0)
#: Scores below this are floored before the log (a matched symbol whose terms weigh zero).
FLOOR = 1e-6


def vector(weights: tuple[float, ...], sentence: bool) -> NDArray[np.float64]:
    """`weights` as an array (a keyword query applies no `shape` weight: it names, not describes)."""
    if len(weights) != len(FEATURES):
        raise ValueError(f"{len(weights)} weights for {len(FEATURES)} features")
    w = np.array(weights, dtype=np.float64)
    if not sentence:
        w[INDEX["shape"]] = 0.0
    return w


def log_bm25(scores: NDArray[np.float32]) -> NDArray[np.float64]:
    """The `bm25` feature."""
    return np.log(np.maximum(scores.astype(np.float64), FLOOR))


def combine(features: NDArray[np.float64], weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """The log score of each row of `features` (columns as `FEATURES`)."""
    return features @ weights


__all__ = ["AUX_PENALTY", "EXACT_NAME_BOOST", "FEATURES", "FIRST", "FLOOR", "HAND_WEIGHTS", "HELPER_PRIOR", "INDEX", "PRIOR", "SHAPE_PRIOR", "combine", "log_bm25", "vector"]
