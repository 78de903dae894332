"""In-process scoring of the auto-labelled pairs on indexes `benchmarks.autolabel` already built.

`python -m benchmarks.autolabel CORPORA_DIR --work-dir W` leaves each repository's blanked copy
indexed under `W/index-blanked/<repo>` and the pairs in `W/pairs.json`. This module opens those
indexes once and scores the pairs under any search callable, or with some query-time levers
off (flipped in this process: no index is rebuilt), which is what a lever ablation and the
ranking fit (`benchmarks.fit_rank`) need: thousands of queries per setting in seconds.

    python -m benchmarks.rankeval WORK_DIR [--off a,b] [--ablate]

A lever that changes the stored terms (`settings.INDEX_LEVERS`) cannot be flipped here: its
ablation needs `SYMSCOPE_SEARCH_OFF=lever python -m benchmarks.autolabel ... --work-dir W2`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.autolabel import SPLITS, load_repos, score_pairs, stratum, verify
from benchmarks.heldout import summary
from benchmarks.metrics import MRR_CUTOFF, QueryScore
from symscope.core import levers
from symscope.core.api import Workspace
from symscope.core.models import SearchHit
from symscope.core.search import searcher as searcher_module
from symscope.core.settings import DEFAULTS, INDEX_LEVERS

Search = Callable[[str], Sequence[SearchHit]]
#: Levers that only change how a query is answered (flippable in this process).
QUERY_LEVERS = tuple(sorted(levers.LEVERS - INDEX_LEVERS))


class Sets:
    """Every repository's blanked index (opened once) with its verified pairs."""

    def __init__(self, work: Path, names: Sequence[str] | None = None, split: str | None = None) -> None:
        repos = load_repos()
        cache = json.loads((work / "pairs.json").read_text(encoding="utf-8"))
        self.items: list[tuple[str, str, Workspace, list[dict[str, Any]]]] = []
        self.strata: dict[str, str] = {}
        """Each repository's size stratum (`autolabel.stratum`: `large` or `small`)."""
        for name in names or [n for n, r in repos.items() if split is None or r["split"] == split]:
            index_dir = work / "index-blanked" / name
            if name not in cache or not index_dir.is_dir():
                raise SystemExit(f"rankeval: {name} has no pairs or index in {work}: run benchmarks.autolabel")
            ws = Workspace.open(work / "blanked" / name, index_dir, ensure=False)
            pairs = verify(ws, cache[name]["pairs"], Counter())
            self.items.append((name, repos[name]["split"], ws, pairs))
            self.strata[name] = stratum(ws)

    def close(self) -> None:
        for _, _, ws, _ in self.items:
            ws.close()

    def splits(self) -> tuple[str, ...]:
        return tuple(s for s in SPLITS if any(split == s for _, split, _, _ in self.items))

    def columns(self) -> tuple[str, ...]:
        """The splits, each followed by its size strata present ("train:small", "train:large")."""
        present = {f"{split}:{self.strata[name]}" for name, split, _, _ in self.items}
        return tuple(k for s in self.splits() for k in (s, f"{s}:small", f"{s}:large") if k == s or k in present)

    def score(self, factory: Callable[[Workspace], Search] | None = None) -> dict[str, list[QueryScore]]:
        """Every pair's score per split ("train", "validation") and per split and size stratum
        ("validation:large") under `factory(ws)`'s search."""
        out: dict[str, list[QueryScore]] = {s: [] for s in self.columns()}
        for name, split, ws, pairs in self.items:
            search = factory(ws) if factory else (lambda q, ws=ws: ws.search(q, limit=MRR_CUTOFF))
            scores = score_pairs(ws, pairs, search)
            out[split].extend(scores)
            out[f"{split}:{self.strata[name]}"].extend(scores)
        return out


@contextmanager
def levers_off(off: frozenset[str]) -> Iterator[None]:
    """Query-time levers off in this process for the duration (index levers are refused)."""
    bad = off & INDEX_LEVERS
    if bad:
        raise ValueError(f"index levers need a rebuilt index: {', '.join(sorted(bad))}")
    saved = levers.OFF
    levers.OFF = frozenset(off)
    try:
        yield
    finally:
        levers.OFF = saved


def summaries(scores: dict[str, list[QueryScore]]) -> dict[str, dict[str, float]]:
    return {split: summary(s) for split, s in scores.items()}


def noise(scores: Sequence[QueryScore], base: Sequence[QueryScore]) -> float:
    """Two standard errors of the paired difference in MRR (the same pairs under two settings):
    a change smaller than this is within noise."""
    diff = [a.reciprocal_rank - b.reciprocal_rank for a, b in zip(scores, base, strict=True)]
    n = len(diff)
    if n < 2:
        return 0.0
    mean = sum(diff) / n
    return 2 * (sum((d - mean) ** 2 for d in diff) / (n - 1) / n) ** 0.5


def _line(label: str, s: dict[str, dict[str, float]], base: dict[str, dict[str, float]] | None = None,
          raw: dict[str, list[QueryScore]] | None = None, raw_base: dict[str, list[QueryScore]] | None = None) -> str:
    cells = []
    for split in s:
        m = s[split]
        if base is None:
            cells.append(f"{m['p_at_1']:.3f} / {m['r_at_5']:.3f} / {m['mrr']:.3f}")
        else:
            b = base[split]
            band = f" (±{noise(raw[split], raw_base[split]):.3f})" if raw and raw_base else ""
            cells.append(f"{m['p_at_1'] - b['p_at_1']:+.3f} / {m['r_at_5'] - b['r_at_5']:+.3f} / "
                         f"{m['mrr'] - b['mrr']:+.3f}{band}")
    return f"| {label} | " + " | ".join(cells) + " |"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rankeval", description=__doc__.split("\n")[0])
    p.add_argument("work", metavar="WORK_DIR", type=Path)
    p.add_argument("--off", default="", help="comma-separated query-time levers to turn off")
    p.add_argument("--ablate", action="store_true", help="each query-time lever off alone, as deltas")
    p.add_argument("--split", choices=SPLITS, default=None, help="only this split's repositories")
    p.add_argument("--levers", default="", help="with --ablate: only these (comma-separated)")
    p.add_argument("--weights", default="", help="comma-separated sentence weights to rank by instead of the settings'")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    if args.weights:
        weights = tuple(float(v) for v in args.weights.split(","))
        searcher_module.DEFAULTS = dataclasses.replace(DEFAULTS, sentence_weights=weights)
    sets = Sets(args.work, split=args.split)
    try:
        t0 = time.perf_counter()
        off = frozenset(w for w in args.off.split(",") if w)
        with levers_off(off):
            raw_base = sets.score()
        base = summaries(raw_base)
        print(f"default{' off=' + args.off if off else ''}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        print("| setting | " + " | ".join(f"{s} P@1 / R@5 / MRR" for s in sets.columns()) + " |")
        print("|---|" + "---|" * len(sets.columns()))
        print(_line("all levers on" if not off else f"off: {args.off}", base), flush=True)
        result: dict[str, Any] = {"base": base, "off": {}}
        if args.ablate:
            for lever in [w for w in args.levers.split(",") if w] or QUERY_LEVERS:
                with levers_off(off | {lever}):
                    raw = sets.score()
                s = summaries(raw)
                result["off"][lever] = s | {"noise": {k: noise(raw[k], raw_base[k]) for k in raw}}
                print(_line(f"{lever} off", s, base, raw, raw_base), flush=True)
        if args.json:
            args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    finally:
        sets.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
