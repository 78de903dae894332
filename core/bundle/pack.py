"""Packing: what is actually copied, saved or printed, counted exactly.

Each item is pasted at a detail level (`full`, `signature`, `name`), secrets
redacted (`symscope.core.secrets`), control characters made visible, and, with a
budget, the levels chosen by the exact packer (`symscope.core.bundle.packer`) so
that the text's cl100k count is at most the budget.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from symscope.core.bundle.model import SECONDARY_REASONS, DependencyOf, Format, Reason
from symscope.core.bundle.packer import (
    DETAIL_OF,
    DROP,
    FULL,
    LEVEL,
    NAME,
    SIGNATURE,
    BudgetError,
    Detail,
    check_budget,
    choose_levels,
    priority_order,
)
from symscope.core.bundle.render import Cleaner, Entry, Links, Redaction, View, make_view, pieces
from symscope.core.bundle.resolve import ResolvedItem
from symscope.core.sanitize import for_paste
from symscope.core.tokens import count_tokens

if TYPE_CHECKING:
    from symscope.core.secrets import Finding


@dataclass(frozen=True, slots=True)
class PackedItem:
    """An item of a packed bundle: the level it got (None: dropped) and what it costs."""

    id: str
    key: str
    reason: Reason
    cap: Detail
    """The most detail it could have had."""
    detail: Detail | None
    """The level it is pasted at; None when the budget dropped it."""
    tokens: int
    """Tokens of its own lines of the text (list line and block): with the header's, they
    add up to the text's count. 0 when dropped."""

    @property
    def reduced(self) -> bool:
        """Pasted at less detail than its cap (or dropped)."""
        return self.detail is None or LEVEL[self.detail] < LEVEL[self.cap]


@dataclass(frozen=True, slots=True)
class BundleResult:
    """A packed bundle: the exact text to paste and how it was made."""

    text: str
    """What to copy, save or print: redacted, control characters visible."""
    tokens: int
    """`count_tokens(text)`: cl100k_base, exact; at most `budget`."""
    budget: int | None
    format: Format
    items: tuple[PackedItem, ...]
    """The items in the text, in bundle order."""
    dropped: tuple[PackedItem, ...]
    """Items the budget left out, in bundle order."""
    redactions: tuple[Redaction, ...]
    """Secrets replaced by markers, in text order."""
    controls: int
    """Raw control characters in the source, made visible (`\\x1b`)."""
    header_tokens: int
    """Tokens of the lines no item owns: the header, the dependency lines, the XML closing tag."""
    left_out: tuple[ResolvedItem, ...] = ()
    """Flagged items that could not be rendered at all (missing, or stale on disk)."""

    @property
    def redacted(self) -> int:
        """How many secrets were replaced."""
        return len(self.redactions)

    @property
    def reduced(self) -> int:
        """How many kept items are below their cap."""
        return sum(1 for item in self.items if item.reduced)



def _cleaner(redact: bool, keep: Collection[str]) -> Cleaner:
    """Redaction (unless `redact` is False), then control characters made visible."""
    from symscope.core.secrets import redact as redact_secrets  # imports detect-secrets

    def clean(text: str, filename: str) -> tuple[str, list[Finding], int]:
        findings: list[Finding] = []
        if redact:
            text, findings = redact_secrets(text, filename, keep)
        text, controls = for_paste(text)
        return text, findings, controls

    return clean


class Packer:
    """Renders a bundle's items at any detail levels, cleaned and counted exactly; packs a budget.

    Each item at each level is cleaned once: secrets become `«redacted: TYPE»` markers
    (unless `redact` is False) and raw control characters visible escapes
    (`sanitize.for_paste`), so a count is always of exactly what would be output.
    Levels are numbers (`packer.DROP`, `NAME`, `SIGNATURE`, `FULL`), one per usable entry.
    """

    def __init__(
        self, entries: Sequence[Entry], fmt: Format = "markdown", *, redact: bool = True,
        keep: Collection[str] = (), dependency_of: Mapping[str, DependencyOf] | None = None,
    ) -> None:
        self.entries = list(entries)
        self.usable = [e for e in self.entries if e.resolved.usable]
        self.links = Links([e.key for e in self.usable], [e.resolved.name for e in self.usable],
                           dict(dependency_of or {}))
        """Which items are dependencies of which (the text's dependency lines)."""
        """The entries that can be rendered; levels are positions in this list."""
        self.fmt: Format = fmt
        self.choices = [_levels(e) for e in self.usable]
        """Each usable entry's allowed levels, most detailed first."""
        self.order = priority_order([e.reason in SECONDARY_REASONS for e in self.usable])
        """Positions, highest priority first: added and changed items, then the rest."""
        self._clean = _cleaner(redact, keep)
        self._views: dict[tuple[int, int], View] = {}
        self._counts: dict[str, int] = {}

    def make_view(self, i: int, level: int) -> View:
        got = self._views.get((i, level))
        if got is None:
            got = self._views[(i, level)] = make_view(self.usable[i], DETAIL_OF[level], self._clean)
        return got

    def _kept(self, levels: Sequence[int]) -> list[tuple[int, View]]:
        return [(i, self.make_view(i, level)) for i, level in enumerate(levels) if level != DROP]

    def _piece_tokens(self, text: str) -> int:
        n = self._counts.get(text)
        if n is None:
            n = self._counts[text] = count_tokens(text)
        return n

    def _pieces(self, levels: Sequence[int]) -> list[tuple[int | None, str]]:
        return pieces(self._kept(levels), self.fmt, self.links, self._piece_tokens)

    def text(self, levels: Sequence[int]) -> str:
        """The bundle text with these levels."""
        return "".join(piece for _, piece in self._pieces(levels))

    def cost(self, levels: Sequence[int]) -> int:
        """`count_tokens(self.text(levels))`, summed over pieces each counted once."""
        return sum(self._piece_tokens(piece) for _, piece in self._pieces(levels))

    def pack(self, budget: int | None = None) -> BundleResult:
        """Every item at its cap, or with a budget the levels `packer.choose_levels` picks.

        Raises:
            BudgetError: the budget is below 1, or too small for even one item's name line.
        """
        check_budget(budget)
        levels = [c[0] for c in self.choices]  # every entry can at least be named
        if budget is not None:
            levels = choose_levels(self.choices, self.order, self.cost, budget)
        text = self.text(levels)
        tokens = count_tokens(text)
        if budget is not None and tokens > budget:
            # Never expected (the pieces' counts add up to the text's), but the guarantee
            # must not rest on it: choose again, counting every candidate text whole.
            levels = choose_levels(self.choices, self.order, lambda lv: count_tokens(self.text(lv)), budget)
            text = self.text(levels)
            tokens = count_tokens(text)
        if budget is not None and (tokens > budget or (self.usable and all(lv == DROP for lv in levels))):
            alone = [self.cost([NAME if j == i else DROP for j in range(len(self.usable))])
                     for i in range(len(self.usable))]
            raise BudgetError(f"a budget of {budget} tokens cannot hold even one item's name line "
                              f"(the smallest bundle takes {min(alone, default=tokens)})")
        return self._result(levels, text, tokens, budget)

    def _result(self, levels: Sequence[int], text: str, tokens: int, budget: int | None) -> BundleResult:
        own: dict[int | None, int] = {}
        for owner, piece in self._pieces(levels):
            own[owner] = own.get(owner, 0) + self._piece_tokens(piece)
        packed = [
            PackedItem(e.id, e.key, e.reason, e.detail, DETAIL_OF[lv] if lv != DROP else None, own.get(i, 0))
            for i, (e, lv) in enumerate(zip(self.usable, levels, strict=True))
        ]
        chosen = self._kept(levels)
        return BundleResult(
            text=text,
            tokens=tokens,
            budget=budget,
            format=self.fmt,
            items=tuple(p for p in packed if p.detail is not None),
            dropped=tuple(p for p in packed if p.detail is None),
            redactions=tuple(f for _, v in chosen for f in v.findings),
            controls=sum(v.controls for _, v in chosen),
            header_tokens=own.get(None, 0),
            left_out=tuple(e.resolved for e in self.entries if not e.resolved.usable),
        )


def pack(
    entries: Sequence[Entry],
    fmt: Format = "markdown",
    budget: int | None = None,
    *,
    redact: bool = True,
    keep: Collection[str] = (),
    dependency_of: Mapping[str, DependencyOf] | None = None,
) -> BundleResult:
    """The paste-ready bundle: every item at its cap, or, with a budget, the best levels that fit.

    Secrets are redacted and control characters made visible before anything is
    counted, so `tokens` is the count of exactly what is output. With a budget,
    `symscope.core.packer` chooses each item's level or drops it (its docstring says
    what it optimises, and why the choice is optimal); `tokens <= budget` always.

    Args:
        entries: The bundle's items in order (`make_entry`); unusable ones are left out.
        fmt: `markdown` or `xml`.
        budget: The most tokens the text may have; None: no limit.
        redact: Replace secrets found by detect-secrets (the default).
        keep: Fingerprints of secrets to leave in on purpose (see `Redaction`).
        dependency_of: Items (by key) added as dependencies, and of which item: the text
            says so after the item list.

    Raises:
        BudgetError: the budget is below 1, or too small for even one item's name line.
    """
    return Packer(entries, fmt, redact=redact, keep=keep, dependency_of=dependency_of).pack(budget)


def _levels(entry: Entry) -> list[int]:
    """The levels an entry may take, most detailed first: its cap and below (no empty signature)."""
    top = LEVEL[entry.detail]
    return [lv for lv in (FULL, SIGNATURE, NAME) if lv <= top and (lv != SIGNATURE or entry.outline)]

