"""The text the app copies or saves: the core's packed bundle, plus which items are dependencies.

`pack_bundle` hands the resolved items to the core's packer (`symscope.core.bundle.pack`):
each item at its level (chosen by hand, or by the exact packer under a budget),
secrets redacted unless kept on purpose, control characters made visible. Then it
adds what only the app knows: which items were added as dependencies of which
(`TrackedBundle.dependency_of`), as lines after the header's item list (Markdown)
or `<dependency>` elements after the opening tag (XML).

Those lines count against the budget too: the packer gets the budget less what the
lines would cost with every item kept, and the final text is counted again, whole;
if it were ever over, the packer runs again with less. So the guarantee stays the
core's: the text's exact cl100k count is at most the budget. No Textual here.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from symscope.core.bundle import (
    BundleResult,
    Format,
    Reason,
    Redaction,
    ResolvedItem,
    make_entry,
    pack,
)
from symscope.core.index import Index
from symscope.core.packer import BudgetError, Detail
from symscope.core.sanitize import for_paste
from symscope.core.tokens import count_tokens
from symscope.tui.bundle_meta import DependencyOf

#: Times the packer is asked again when the dependency lines cost more than reserved.
_RETRIES = 4


@dataclass(frozen=True, slots=True)
class Packing:
    """What copying the bundle now gives: the counters and the bundle pane show it."""

    tokens: int
    """The exact cl100k count of the text (headers, fences and dependency lines included)."""
    budget: int | None
    items: int
    """Items in the text."""
    levels: Mapping[str, Detail | None]
    """Per bundle key, the level the item is pasted at; None when the budget dropped it."""
    reduced: int
    """Items pasted below the level asked for (by the budget)."""
    dropped: int
    redactions: tuple[Redaction, ...] = ()
    """Secrets replaced by markers, in text order."""
    controls: int = 0
    """Raw control characters made visible."""
    error: str | None = None
    """Why the budget cannot be met (the figures are then those without a budget)."""

    @property
    def redacted(self) -> int:
        return len(self.redactions)


@dataclass(frozen=True, slots=True)
class Packed:
    """The text to copy or save, and its figures."""

    text: str
    packing: Packing
    left_out: tuple[ResolvedItem, ...] = ()
    """Flagged items that could not be pasted (missing, or changed on disk)."""


def pack_bundle(
    index: Index,
    resolved: Sequence[ResolvedItem],
    fmt: Format,
    *,
    dependency_of: Mapping[str, DependencyOf],
    details: Mapping[str, Detail],
    budget: int | None = None,
    keep: Collection[str] = (),
) -> Packed:
    """Pack `resolved` as the core does, with the dependency lines added.

    Args:
        index: The repo's `Index` (the signature level reads symbol outlines from it).
        resolved: The bundle's items, looked up now, in order.
        fmt: `markdown` or `xml`.
        dependency_of: Items added as dependencies, and of which item.
        details: Levels chosen by hand (the packer never goes above them).
        budget: The most tokens the text may have; None: no limit.
        keep: Fingerprints of secrets to leave in on purpose.

    Raises:
        BudgetError: the budget cannot hold even one item's name line.
    """
    names = {r.key: r.name for r in resolved}
    dependency: Reason = "dependency"
    added: Reason = "added"
    entries = [make_entry(index, r, dependency if r.key in dependency_of else added, details.get(r.key, "full"))
               for r in resolved]
    usable = [r.key for r in resolved if r.usable]

    def finish(result: BundleResult) -> tuple[str, int]:
        kept = [item.key for item in result.items]
        text = with_dependency_lines(result.text, fmt, kept, names, dependency_of)
        return text, (result.tokens if text == result.text else count_tokens(text))

    if budget is None:
        result = pack(entries, fmt, None, keep=keep)
        text, tokens = finish(result)
        return _packed(result, text, tokens, None)
    reserve = count_tokens(dependency_lines(fmt, usable, names, dependency_of))
    inner = budget - reserve
    for _ in range(_RETRIES):
        if inner < 1:
            break
        result = pack(entries, fmt, inner, keep=keep)
        text, tokens = finish(result)
        if tokens <= budget:
            return _packed(result, text, tokens, budget)
        inner -= tokens - budget
    raise BudgetError(f"a budget of {budget} tokens cannot hold even one item's name line "
                      "and the list of dependencies")


def _packed(result: BundleResult, text: str, tokens: int, budget: int | None) -> Packed:
    levels: dict[str, Detail | None] = {item.key: item.detail for item in result.items}
    levels.update({item.key: None for item in result.dropped})
    packing = Packing(tokens, budget, len(result.items), levels, result.reduced, len(result.dropped),
                      result.redactions, result.controls)
    return Packed(text, packing, result.left_out)


def dependency_lines(fmt: Format, kept: Sequence[str], names: Mapping[str, str],
                     dependency_of: Mapping[str, DependencyOf]) -> str:
    """The lines saying which of the `kept` items (keys, in text order) are dependencies of which.

    Markdown numbers items as the header's list does: `Dependencies of item 1
    (Context.BindJSON): items 2, 3`; XML names them:
    `<dependency name="Context.MustBindWith" of="Context.BindJSON"/>`. Empty when none is.
    """
    deps = [k for k in kept if k in dependency_of]
    if not deps:
        return ""
    if fmt == "xml":
        return "".join(f'<dependency name="{_attr(names.get(k, k))}" of="{_attr(dependency_of[k].name)}"/>\n'
                       for k in deps)
    number = {k: n for n, k in enumerate(kept, start=1)}
    owners: dict[str, list[int]] = {}
    for k in deps:
        owners.setdefault(dependency_of[k].key, []).append(number[k])
    lines = []
    for owner, numbers in owners.items():
        of = next(d.name for k, d in dependency_of.items() if d.key == owner and k in number)
        listed = ", ".join(map(str, numbers))
        items = f"item {listed}" if len(numbers) == 1 else f"items {listed}"
        if owner in number:
            lines.append(f"Dependencies of item {number[owner]} ({_plain(of)}): {items}\n")
        else:
            lines.append(f"Dependencies of {_plain(of)} (not in this bundle): {items}\n")
    return "".join(lines)


def with_dependency_lines(text: str, fmt: Format, kept: Sequence[str], names: Mapping[str, str],
                          dependency_of: Mapping[str, DependencyOf]) -> str:
    """`text` (a packed bundle whose items are `kept`) with the dependency lines put in the header."""
    lines = dependency_lines(fmt, kept, names, dependency_of)
    if not lines:
        return text
    if fmt == "xml":
        at = text.index("\n") + 1  # after the opening <code_context ...> line
        return text[:at] + lines + text[at:]
    at = text.index("\n\n") + 2  # after the title line and its blank line, then the item list
    for _ in kept:
        at = text.index("\n", at) + 1
    return text[:at] + "\n" + lines + text[at:]


def _plain(name: str) -> str:
    return for_paste(name)[0]


def _attr(value: str) -> str:
    value = _plain(value)
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
