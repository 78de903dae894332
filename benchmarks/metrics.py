"""Pure scoring functions: token ratios, ranking metrics and chunk integrity.

Nothing here touches an index, a model or the disk, so it is tested directly.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from symscope.core.models import CALLABLE_KINDS, Symbol

#: Ranks past this one earn no reciprocal rank (MRR@10).
MRR_CUTOFF = 10
RECALL_K = 5


# -- token efficiency ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TokenRow:
    """One query's cost against the whole-repo baseline; `ok` is False for a zero-hit query."""

    baseline: int
    tokens: int
    ok: bool = True

    @property
    def ratio(self) -> float | None:
        """Baseline / tokens, or None for a failed query (never a huge ratio)."""
        return self.baseline / self.tokens if self.ok and self.tokens > 0 else None

    @property
    def reduction_pct(self) -> float | None:
        if not self.ok or self.baseline <= 0:
            return None
        return 100.0 * (1.0 - self.tokens / self.baseline)


@dataclass(frozen=True, slots=True)
class RatioSummary:
    queries: int
    failures: int
    mean_tokens: float | None
    """Mean tokens per successful query."""
    mean_ratio: float | None
    """The study's figure: the mean of per-query ratios."""
    aggregate_ratio: float | None
    """Sum of baselines / sum of tokens over successful queries."""
    mean_reduction_pct: float | None


def summarize_ratios(rows: Sequence[TokenRow]) -> RatioSummary:
    """Both ratio figures over the successful queries; failures are counted, not averaged."""
    good = [r for r in rows if r.ratio is not None]
    if not good:
        return RatioSummary(len(rows), len(rows), None, None, None, None)
    ratios = [r.ratio for r in good if r.ratio is not None]
    reductions = [r.reduction_pct for r in good if r.reduction_pct is not None]
    return RatioSummary(
        queries=len(rows),
        failures=len(rows) - len(good),
        mean_tokens=statistics.fmean(r.tokens for r in good),
        mean_ratio=statistics.fmean(ratios),
        aggregate_ratio=sum(r.baseline for r in good) / sum(r.tokens for r in good),
        mean_reduction_pct=statistics.fmean(reductions) if reductions else None,
    )


# -- ranking quality -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LineSpan:
    """A file region by 1-based inclusive lines."""

    path: str
    start_line: int
    end_line: int

    def contains(self, other: LineSpan) -> bool:
        return (
            self.path == other.path
            and self.start_line <= other.start_line
            and other.end_line <= self.end_line
        )

    def overlaps(self, other: LineSpan) -> bool:
        return (
            self.path == other.path
            and self.start_line <= other.end_line
            and other.start_line <= self.end_line
        )


def hit_sets(results: Sequence[LineSpan], targets: Sequence[LineSpan]) -> list[frozenset[int]]:
    """For each result, the indexes of the targets it wholly contains."""
    return [
        frozenset(i for i, t in enumerate(targets) if r.contains(t)) for r in results
    ]


@dataclass(frozen=True, slots=True)
class QueryScore:
    precision_at_1: float
    recall_at_k: float
    reciprocal_rank: float
    first_hit_rank: int | None
    """1-based rank of the first result that holds a target, within MRR_CUTOFF."""
    overlap_at_1: float = 0.0
    """The top result touches a target at all (found the place, maybe cut it)."""


def top_overlaps(results: Sequence[LineSpan], targets: Sequence[LineSpan]) -> bool:
    return bool(results) and any(results[0].overlaps(t) for t in targets)


def score_query(
    hits: Sequence[frozenset[int]], n_targets: int, k: int = RECALL_K, top_touches: bool | None = None
) -> QueryScore:
    """Precision@1, recall@k (share of targets found in the top k) and reciprocal rank.

    `hits[i]` holds the targets that result i contains; an empty `hits` (zero results)
    scores 0 everywhere. `top_touches` says whether the top result overlaps a target
    (default: whether it holds one).
    """
    if n_targets < 1:
        raise ValueError("a query needs at least one target")
    p1 = 1.0 if hits and hits[0] else 0.0
    found: set[int] = set()
    for h in hits[:k]:
        found |= h
    first = next((i + 1 for i, h in enumerate(hits[:MRR_CUTOFF]) if h), None)
    touch = p1 if top_touches is None else float(top_touches or p1)
    return QueryScore(p1, len(found) / n_targets, 1.0 / first if first else 0.0, first, touch)


def score_results(results: Sequence[LineSpan], targets: Sequence[LineSpan]) -> QueryScore:
    """`score_query` for ranked result spans against target spans."""
    return score_query(hit_sets(results, targets), len(targets),
                       top_touches=top_overlaps(results, targets))


@dataclass(frozen=True, slots=True)
class QualitySummary:
    queries: int
    precision_at_1: float
    recall_at_k: float
    mrr: float
    overlap_at_1: float


def summarize_quality(scores: Sequence[QueryScore]) -> QualitySummary | None:
    if not scores:
        return None
    return QualitySummary(
        queries=len(scores),
        precision_at_1=statistics.fmean(s.precision_at_1 for s in scores),
        recall_at_k=statistics.fmean(s.recall_at_k for s in scores),
        mrr=statistics.fmean(s.reciprocal_rank for s in scores),
        overlap_at_1=statistics.fmean(s.overlap_at_1 for s in scores),
    )


# -- chunk integrity --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unit:
    """A definition a chunk must not cut, as a half-open byte range."""

    start: int
    end: int
    callable: bool
    """A function or method: cutting its body is the worst kind of split."""
    has_children: bool
    """A container whose methods are units themselves (a Python class with methods)."""


def definition_units(symbols: Iterable[Symbol]) -> list[Unit]:
    """The top-level symbols and methods of one file, as the units chunks are judged by."""
    syms = list(symbols)
    parents = {s.parent_id for s in syms if s.parent_id is not None}
    return [
        Unit(s.start_byte, s.end_byte, s.kind in CALLABLE_KINDS, s.id in parents)
        for s in syms
        if s.parent_id is None or s.kind == "method"
    ]


@dataclass(frozen=True, slots=True)
class Integrity:
    split: bool
    """Cuts some unit: holds part of it, not all of it."""
    split_callable: bool
    """Cuts a function or method."""
    whole_units: int
    """Units wholly inside the span."""


def classify_span(start: int, end: int, units: Sequence[Unit]) -> Integrity:
    """Judge the byte range [start, end) against the file's definition units.

    A span cuts a unit when it overlaps it without containing it. The one exception:
    a span lying inside a container whose methods are units (a class body holding
    whole methods) does not count as cutting the container; the methods are judged
    on their own.
    """
    split = split_callable = False
    whole = 0
    for u in units:
        overlap = min(end, u.end) - max(start, u.start)
        if overlap <= 0:
            continue
        if start <= u.start and u.end <= end:
            whole += 1
            continue
        if u.has_children and not u.callable and u.start <= start and end <= u.end:
            continue
        split = True
        split_callable = split_callable or u.callable
    return Integrity(split, split_callable, whole)


def median(values: Iterable[float]) -> float | None:
    vals = list(values)
    return statistics.median(vals) if vals else None
