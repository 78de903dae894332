"""Abbreviations of symbol names: `bjson` finds `BindJSON`, `rgu` finds `RouterGroup.Use`.

People type the first letters of the words of a name they half remember. A name
is split into words (`RouterGroup.Use` -> router, group, use; `handleHTTPRequest`
-> handle, http, request; `get_value` -> get, value), and an abbreviation
*matches* when it can be cut into pieces, each a prefix of a word, taken in word
order: `rgu` = r(outer) g(roup) u(se); `bjson` = b(ind) json; `shttp` =
s(erve) http. Words may be skipped, at a cost.

`rank_names` puts the three ways a short query can name a symbol in tiers, so a
search can rank them in that order: the exact name (tier 0), a prefix of the name
(tier 1), then abbreviations (tier 2). In the first two tiers a symbol's own name
beats a qualified name that matches through its owner (`apir` ranks `APIRouter`
before `APIRouter.get`), then shorter beats longer; in the abbreviation tier a
match that skips no word and leaves none over beats one that does, and a shorter
name breaks ties. `NameIndex` prepares the candidates once for many queries.
Everything here is pure: no index, no I/O, no textual.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

#: Tiers, best first.
EXACT, PREFIX, ABBREVIATION = 0, 1, 2
#: Score of an abbreviation that covers every word from the first one (before length ties).
PERFECT = 100.0
#: What each kind of unmatched word costs.
SKIPPED_LEADING = 8.0
"""A word before the first matched one (`bjson` in `ShouldBindJSON`)."""
SKIPPED_INSIDE = 5.0
"""A word between matched ones (`ehttp` in `Engine.ServeHTTP`)."""
LEFT_OVER = 1.0
"""A word after the last matched one (`esh` in `Engine.SetHTMLTemplate`)."""
#: Longest abbreviation worth matching (longer queries are words, not abbreviations).
MAX_ABBREVIATION = 24

_SEGMENTS = re.compile(r"[A-Za-z0-9]+")
_WORDS = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_NON_ALNUM = re.compile(r"[^a-z0-9]")


@dataclass(frozen=True, slots=True)
class NameMatch:
    """One candidate that a query names, and how well."""

    index: int
    """Position of the candidate in the sequence given to `rank_names`."""
    tier: int
    """`EXACT`, `PREFIX` or `ABBREVIATION`."""
    score: float
    """Higher is better, comparable within a tier."""


@lru_cache(maxsize=65_536)
def words(name: str) -> tuple[str, ...]:
    """The lower-cased words of a name: `RouterGroup.Use` -> ('router', 'group', 'use')."""
    return tuple(w.lower() for seg in _SEGMENTS.findall(name) for w in _WORDS.findall(seg))


def compact(text: str) -> str:
    """`Router_Group.Use` -> `routergroupuse`: what exact and prefix matches compare."""
    return _NON_ALNUM.sub("", text.lower())


def abbreviation_score(abbrev: str, name: str) -> float | None:
    """How well `abbrev` abbreviates `name` (higher is better), or None if it does not.

    Args:
        abbrev: What was typed (case and punctuation are ignored).
        name: A symbol name or qualified name.
    """
    typed = compact(abbrev)
    if not typed or len(typed) > MAX_ABBREVIATION:
        return None
    ws = words(name)
    best = _best_cost(typed, ws)
    if best is None:
        return None
    return PERFECT - best - len(name) / 1000.0


def _best_cost(typed: str, ws: tuple[str, ...]) -> float | None:
    """The cheapest way to cut `typed` into prefixes of words of `ws`, in order (None: none)."""
    if not ws or typed[0] not in {w[0] for w in ws}:
        return None

    @cache
    def rest(pos: int, word: int) -> float | None:
        # `typed[pos:]` still to place, starting at word index `word` or later; the word just
        # before `word` was matched. Skipping a word inside costs SKIPPED_INSIDE.
        if pos == len(typed):
            return LEFT_OVER * (len(ws) - word)
        best: float | None = None
        for w in range(word, len(ws)):
            skipped = SKIPPED_INSIDE * (w - word)
            if best is not None and skipped >= best:
                break
            candidate = ws[w]
            for n in range(min(len(candidate), len(typed) - pos), 0, -1):
                if typed[pos : pos + n] != candidate[:n]:
                    continue
                after = rest(pos + n, w + 1)
                if after is not None and (best is None or skipped + after < best):
                    best = skipped + after
        return best

    best: float | None = None
    for first in range(len(ws)):
        lead = SKIPPED_LEADING * first
        if best is not None and lead >= best:
            break
        candidate = ws[first]
        for n in range(min(len(candidate), len(typed)), 0, -1):
            if typed[:n] != candidate[:n]:
                continue
            after = rest(n, first + 1)
            if after is not None and (best is None or lead + after < best):
                best = lead + after
    return best


def _pattern(typed: str) -> re.Pattern[str]:
    """Lines of space-separated words that `typed` abbreviates (exactly the matches, no scores).

    The first letter starts a word; each next letter either continues the same word's
    prefix or starts a later word: `(?:^| )r(?:g|.*? g)(?:u|.*? u)` for `rgu`.
    """
    parts = [f"(?:^| ){re.escape(typed[0])}"]
    parts += [f"(?:{re.escape(c)}|.*? {re.escape(c)})" for c in typed[1:]]
    return re.compile("".join(parts), re.MULTILINE)


class NameIndex:
    """Candidates prepared once, ranked for many queries (a search box asks on every key).

    One regular expression scans all the candidates' words at C speed; only the lines
    it matches are scored in Python.
    """

    def __init__(self, candidates: Sequence[tuple[str, str]]) -> None:
        """
        Args:
            candidates: (name, qualified name) per symbol, e.g. ("Use", "RouterGroup.Use").
        """
        self.candidates = list(candidates)
        self._short = [compact(n) for n, _ in self.candidates]
        self._full = [compact(q) for _, q in self.candidates]
        # Every compacted name and qualified name, sorted: exact and prefix matches by bisection.
        self._sorted = sorted({(key, i) for keys in (self._short, self._full) for i, key in enumerate(keys)})
        self._keys = [key for key, _ in self._sorted]
        lines: list[str] = []
        owners: list[int] = []
        for i, (name, qualname) in enumerate(self.candidates):
            for text in dict.fromkeys((qualname, name)):
                lines.append(" ".join(words(text)))
                owners.append(i)
        self._owners = owners
        self._starts: list[int] = []
        at = 0
        for line in lines:
            self._starts.append(at)
            at += len(line) + 1
        self._text = "\n".join(lines)

    def __len__(self) -> int:
        return len(self.candidates)

    def rank(self, query: str, limit: int | None = None) -> list[NameMatch]:
        """See `rank_names`."""
        typed = compact(query)
        if not typed:
            return []
        out: dict[int, NameMatch] = {}
        for at in range(bisect_left(self._keys, typed), len(self._keys)):
            key, i = self._sorted[at]
            if not key.startswith(typed):
                break
            # A name (`APIRouter`) beats a qualified name through its owner (`APIRouter.get`);
            # then the shorter the better.
            own_name = 1.0 if key == self._short[i] else 0.0
            match = NameMatch(i, EXACT if key == typed else PREFIX, own_name - len(key) / 1000.0)
            best = out.get(i)
            if best is None or (match.tier, -match.score) < (best.tier, -best.score):
                out[i] = match
        if len(typed) <= MAX_ABBREVIATION:
            matched: set[int] = set()
            for m in _pattern(typed).finditer(self._text):
                matched.add(self._owners[bisect_right(self._starts, m.start()) - 1])
            for i in matched - out.keys():
                name, qualname = self.candidates[i]
                scores = [s for s in (abbreviation_score(typed, name), abbreviation_score(typed, qualname))
                          if s is not None]
                if scores:
                    out[i] = NameMatch(i, ABBREVIATION, max(scores))
        ranked = sorted(out.values(), key=lambda m: (m.tier, -m.score, m.index))
        return ranked if limit is None else ranked[:limit]


def rank_names(query: str, candidates: Sequence[tuple[str, str]], limit: int | None = None) -> list[NameMatch]:
    """The candidates a one-word query names: exact names, then prefixes, then abbreviations.

    Args:
        query: One word as typed (`BindJSON`, `bind`, `bjson`).
        candidates: (name, qualified name) per symbol, e.g. ("Use", "RouterGroup.Use").
        limit: Most matches to return (None: all).

    Returns:
        Matches sorted by tier, then score (best first), then position. A candidate is
        in its best tier only. Exact and prefix compare the compacted name or
        qualified name (`routergroup.use` = `RouterGroup.Use`); abbreviations are
        scored on both and the better counts. To rank many queries over the same
        candidates, build a `NameIndex` once.
    """
    return NameIndex(candidates).rank(query, limit)
