"""Fit the ranking model's weights on the auto-labelled training split (issue 30 point 2).

    python -m benchmarks.autolabel CORPORA_DIR --work-dir WORK_DIR   # indexes the blanked copies
    python -m benchmarks.fit_rank WORK_DIR [--features F.npz]

Each training pair's query runs once through the default search with a hook on the searcher
(`Searcher.observe`) that records the features (`core/search/model.py`) of the few hundred
candidates the model re-ranks. The weights are then fitted on those records alone, by
coordinate ascent on the mean reciprocal rank (cut at 10) of two strata, the queries sharing a
word with their target's name and those sharing none (see `fit`), from the hand weights
(`--from-hand`) or the settings' (deterministic: a fixed grid of steps, features in a fixed
order, no sampling), with the `--keep` features' weights held (BM25's by default), and checked
on the validation split's records. A candidate's rank counts its fold groups (one
file's variants of a name, identical copies) once, as the search lists them; near copies and
nesting are not simulated, so the last word is the real search (`benchmarks.rankeval`).

Prints the fitted weights as the tuple `RankSettings.sentence_weights` holds.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from benchmarks.autolabel import SPLITS
from benchmarks.metrics import MRR_CUTOFF
from benchmarks.rankeval import Sets
from symscope.core.search.model import FEATURES, HAND_WEIGHTS
from symscope.core.search.rankdata import RankData
from symscope.core.settings import DEFAULTS
from symscope.core.terms import name_parts, query_terms

#: Steps tried per weight per round, in units of `SCALE`.
STEPS = (-1.0, -0.5, -0.25, -0.1, 0.1, 0.25, 0.5, 1.0)
#: A step is taken only when the training MRR rises by more than this.
MIN_GAIN = 5e-4
ROUNDS = 8


@dataclass
class Records:
    """Every query's candidates, stacked: features, the query each row belongs to, its fold
    group (numbered across queries), and whether it holds the target."""

    x: NDArray[np.float64]
    query: NDArray[np.int64]
    group: NDArray[np.int64]
    target: NDArray[np.bool_]
    queries: int
    unnamed: NDArray[np.bool_]
    """Per query: it shares no word with its target's name (an intent query, as the blind set's)."""

    def ranks(self, w: NDArray[np.float64]) -> NDArray[np.int64]:
        """Each query's rank of its target under weights `w` (0: not among the candidates)."""
        s = self.x @ w
        gmax = np.full(int(self.group.max()) + 1, -np.inf)
        np.maximum.at(gmax, self.group, s)
        gquery = np.zeros(gmax.size, dtype=np.int64)
        gquery[self.group] = self.query
        best = np.full(self.queries, -np.inf)
        np.maximum.at(best, self.query[self.target], s[self.target])
        ahead = gmax > best[gquery]
        # a target's own group is never ahead of itself (its max is the target's best or more:
        # then the group holding it is where the search lists it)
        own = np.zeros(gmax.size, dtype=bool)
        own[self.group[self.target]] = True
        ahead &= ~own
        rank = np.bincount(gquery[ahead], minlength=self.queries) + 1
        return np.where(np.isfinite(best), rank, 0)


def metrics(ranks: NDArray[np.int64]) -> dict[str, float]:
    """P@1, R@5 and MRR (cut at `MRR_CUTOFF`) of target ranks (0 for none)."""
    found = ranks > 0
    rr = np.where(found & (ranks <= MRR_CUTOFF), 1.0 / np.maximum(ranks, 1), 0.0)
    return {"p_at_1": float(np.mean(found & (ranks == 1))), "r_at_5": float(np.mean(found & (ranks <= 5))),
            "mrr": float(rr.mean())}


def strata(records: Records, w: NDArray[np.float64]) -> tuple[float, float]:
    """The MRR over queries sharing a word with their target's name, and over those sharing none."""
    ranks = records.ranks(w)
    return (metrics(ranks[~records.unnamed])["mrr"] if (~records.unnamed).any() else 0.0,
            metrics(ranks[records.unnamed])["mrr"] if records.unnamed.any() else 0.0)


def _unnamed(query: str, name: str) -> bool:
    """The query shares no word (stem) with the name."""
    return not set(query_terms(query)) & set(name_parts(name))


def _groups(data: RankData, top: NDArray[np.intp]) -> list[int]:
    """Fold groups of the candidates: one family, or one name with the same text."""
    out: list[int] = []
    seen: dict[Any, int] = {}
    for doc in top.tolist():
        fam = ("f", int(data.family[doc]))
        same = ("s", data.names[doc], data.norm_hashes[doc])
        g = seen.get(fam, seen.get(same))
        if g is None:
            g = len(seen)
        seen.setdefault(fam, g)
        seen.setdefault(same, g)
        out.append(g)
    return out


def collect(sets: Sets) -> dict[str, Records]:
    """Run every pair once and record its candidates' features, per split."""
    rows: dict[str, list[tuple[NDArray[np.float64], list[int], list[bool]]]] = {s: [] for s in SPLITS}
    unnamed: dict[str, list[bool]] = {s: [] for s in SPLITS}
    for _, split, ws, pairs in sets.items:
        searcher = ws.index.searcher
        seen: list[tuple[RankData, NDArray[np.intp], NDArray[np.float64]]] = []
        searcher.observe = lambda _q, data, top, x, seen=seen: seen.append((data, top, x))
        try:
            for pair in pairs:
                unnamed[split].append(_unnamed(pair["query"], pair["name"]))
                seen.clear()
                ws.search(pair["query"], limit=MRR_CUTOFF)
                if not seen:
                    rows[split].append((np.zeros((0, len(FEATURES))), [], []))
                    continue
                data, top, x = seen[-1]
                rows[split].append((x, _groups(data, top), [data.ids[d] == pair["id"] for d in top.tolist()]))
        finally:
            searcher.observe = None
    out: dict[str, Records] = {}
    for split, qs in rows.items():
        offset = 0
        xs, qid, grp, tgt = [], [], [], []
        for i, (x, groups, target) in enumerate(qs):
            xs.append(x)
            qid += [i] * len(groups)
            grp += [g + offset for g in groups]
            offset += max(groups, default=-1) + 1
            tgt += target
        out[split] = Records(np.vstack(xs), np.array(qid, dtype=np.int64), np.array(grp, dtype=np.int64),
                             np.array(tgt, dtype=bool), len(qs), np.array(unnamed[split], dtype=bool))
    return out


def fit(train: Records, start: NDArray[np.float64], log: bool = True, keep: frozenset[str] = frozenset(),
        ) -> NDArray[np.float64]:
    """Coordinate ascent on the training MRR from `start`: each round tries every step of every
    weight, in order, and keeps the step that raises the mean of the two strata's MRR
    (`strata`) most, by more than `MIN_GAIN`, among those lowering neither.

    Why two strata: four in five training queries share a word with their target's name,
    while the blind set's intent queries share none by construction. Fitted on all queries
    alike, the name's weight grows threefold and the queries sharing no name word lose a
    third of their MRR on validation (0.106 -> 0.062): a gain on one kind of query must not
    be bought with the other."""
    w = start.copy()
    current = strata(train, w)
    for round_ in range(ROUNDS):
        moved = False
        for i in range(len(w)):
            if FEATURES[i] in keep:
                continue
            scale = max(abs(start[i]), 0.5)
            trial = w.copy()
            best: tuple[float, float, float, tuple[float, float]] | None = None
            for step in STEPS:
                trial[i] = w[i] + step * scale
                named, unnamed = strata(train, trial)
                if named < current[0] or unnamed < current[1]:
                    continue
                option = ((named + unnamed) / 2, -abs(step), trial[i], (named, unnamed))
                best = option if best is None or option > best else best
            if best is not None and best[0] > sum(current) / 2 + MIN_GAIN:
                w[i], current, moved = best[2], best[3], True
        if log:
            print(f"round {round_ + 1}: training MRR {current[0]:.4f} sharing a name word, "
                  f"{current[1]:.4f} sharing none", file=sys.stderr, flush=True)
        if not moved:
            break
    return w


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.fit_rank", description=__doc__.split("\n")[0])
    p.add_argument("work", metavar="WORK_DIR", type=Path)
    p.add_argument("--features", type=Path, default=None, help="cache the recorded features here (.npz)")
    p.add_argument("--from-hand", action="store_true", help="start from the hand-set weights (else the settings')")
    p.add_argument("--keep", default="bm25", help="features whose weight is not fitted (default: bm25, the scale)")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    records: dict[str, Records]
    if args.features and args.features.exists():
        z = np.load(args.features)
        records = {s: Records(z[f"{s}_x"], z[f"{s}_q"], z[f"{s}_g"], z[f"{s}_t"], int(z[f"{s}_n"]), z[f"{s}_u"])
                   for s in SPLITS}
    else:
        sets = Sets(args.work)
        try:
            records = collect(sets)
        finally:
            sets.close()
        if args.features:
            np.savez_compressed(args.features, **{f"{s}_{k}": v for s, r in records.items() for k, v in
                                                  (("x", r.x), ("q", r.query), ("g", r.group), ("t", r.target),
                                                   ("n", np.array(r.queries)), ("u", r.unnamed))})
    print(f"features of {sum(r.queries for r in records.values())} queries in {time.perf_counter() - t0:.1f} s",
          file=sys.stderr)
    start = np.array(HAND_WEIGHTS if args.from_hand else DEFAULTS.sentence_weights, dtype=np.float64)
    w = fit(records["train"], start, keep=frozenset(f for f in args.keep.split(",") if f))
    print("| weights | split | all P@1 / R@5 / MRR | sharing a name word | sharing none |")
    print("|---|---|---|---|---|")
    for label, weights in (("start (settings)", start), ("fitted", w)):
        for split in SPLITS:
            r = records[split]
            ranks = r.ranks(weights)
            cells = [metrics(ranks), metrics(ranks[~r.unnamed]), metrics(ranks[r.unnamed])]
            print(f"| {label} | {split} | " + " | ".join(
                f"{m['p_at_1']:.3f} / {m['r_at_5']:.3f} / {m['mrr']:.3f}" for m in cells) + " |")
    for name, a, b in zip(FEATURES, start, w, strict=True):
        print(f"{name:10} {a:+.3f} -> {b:+.3f}")
    print("sentence_weights = (" + ", ".join(f"{v:.3f}" for v in w) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
