"""Resolving a bundle against the index: every item looked up again before it is shown or rendered.

An item whose symbol vanished, whose content changed, or whose file changed on disk
since indexing is flagged, never dropped. `savings` sums the usable items' code
tokens against their whole files and the repo (the "code only" figures).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from symscope.core.bundle.model import BUNDLE_FILE, Bundle, BundleItem
from symscope.core.errors import StaleSymbolError, UnknownSymbolError
from symscope.core.languages import language_by_name
from symscope.core.models import FileRecord, Savings, Symbol

if TYPE_CHECKING:
    from symscope.core.index import Index

Status = Literal["ok", "changed", "missing", "stale"]


def bundle_path(index: Index) -> Path:
    """Where the bundle of this index's repo is persisted."""
    return index.index_dir / BUNDLE_FILE


_STATUS_NOTES: dict[Status, str] = {
    "ok": "",
    "changed": "changed since added",
    "missing": "no longer in the index",
    "stale": "file changed on disk since indexing; refresh the index",
}


@dataclass(frozen=True, slots=True)
class ResolvedItem:
    """A bundle item looked up in the index now, with its current code and a status flag."""

    item: BundleItem
    status: Status
    symbol: Symbol | None = None
    file: FileRecord | None = None
    code: str | None = None
    """Exact text to paste: whole lines of the symbol, or the whole file; None when unusable."""

    @property
    def key(self) -> str:
        return self.item.key

    @property
    def flagged(self) -> bool:
        return self.status != "ok"

    @property
    def usable(self) -> bool:
        """True if the item can be rendered (changed items render their current code)."""
        return self.code is not None

    @property
    def note(self) -> str:
        return _STATUS_NOTES[self.status]

    @property
    def tokens(self) -> int:
        """The core's current token count, or the count when added if it vanished."""
        if self.symbol is not None:
            return self.symbol.tokens
        if self.file is not None and self.item.type == "file":
            return self.file.tokens
        return self.item.tokens

    @property
    def path(self) -> str:
        return self.symbol.path if self.symbol is not None else self.item.path

    @property
    def name(self) -> str:
        return self.symbol.qualname if self.symbol is not None else self.item.name

    @property
    def kind(self) -> str:
        return self.symbol.kind if self.symbol is not None else self.item.kind

    @property
    def start_line(self) -> int:
        return self.symbol.start_line if self.symbol is not None else self.item.start_line

    @property
    def end_line(self) -> int:
        if self.symbol is not None:
            return self.symbol.end_line
        if self.file is not None and self.item.type == "file":
            return max(1, self.file.lines)
        return self.item.end_line

    @property
    def language(self) -> str:
        if self.symbol is not None:
            return self.symbol.language
        return self.file.language if self.file is not None else ""

    @property
    def fence(self) -> str:
        """Markdown code-fence tag of the item's language."""
        spec = language_by_name(self.language) if self.language else None
        return spec.fence if spec is not None else ""

    def current_item(self) -> BundleItem | None:
        """The item as it is now (to accept a change), or None if it cannot be resolved."""
        if self.symbol is not None:
            return BundleItem.for_symbol(self.symbol)
        if self.file is not None and self.item.type == "file":
            return BundleItem.for_file(self.file)
        return None


def symbol_code(index: Index, sym: Symbol) -> str:
    """The symbol's source as the file's own lines `start_line..end_line` (indentation kept).

    Raises:
        StaleSymbolError: the file changed since indexing.
    """
    return index.source(sym, whole_lines=True)


def _file_code(index: Index, rec: FileRecord) -> str | None:
    """The whole file as text, or None if it changed on disk since indexing."""
    try:
        return index.indexed_bytes(rec.path).decode("utf-8", "replace")
    except StaleSymbolError:
        return None


def resolve_item(index: Index, item: BundleItem) -> ResolvedItem:
    """Look one item up in the index and read its current code."""
    if item.type == "symbol":
        try:
            sym = index.symbol(item.ref)
        except UnknownSymbolError:
            return ResolvedItem(item, "missing")
        rec = index.file(sym.path)
        try:
            code = symbol_code(index, sym)
        except StaleSymbolError:
            return ResolvedItem(item, "stale", sym, rec)
        status: Status = "changed" if sym.content_hash != item.content_hash else "ok"
        return ResolvedItem(item, status, sym, rec, code)
    rec = index.file(item.ref)
    if rec is None:
        return ResolvedItem(item, "missing")
    text = _file_code(index, rec)
    if text is None:
        return ResolvedItem(item, "stale", None, rec)
    status = "changed" if rec.hash != item.content_hash else "ok"
    return ResolvedItem(item, status, None, rec, text)


def resolve(bundle: Bundle, index: Index) -> list[ResolvedItem]:
    """Every item of `bundle`, in order, looked up in `index` now."""
    return [resolve_item(index, item) for item in bundle.items]


def savings(resolved: list[ResolvedItem], index: Index) -> Savings:
    """Token totals of the usable items against their whole files and the whole repo.

    For a bundle of symbols only this is exactly `index.savings(symbols)`; a whole
    file adds its tokens to both sides (once per file).
    """
    usable = [r for r in resolved if r.usable]
    symbols = [r.symbol for r in usable if r.item.type == "symbol" and r.symbol is not None]
    base = index.savings(symbols)
    tokens, file_tokens = base.tokens, base.file_tokens
    counted = {s.path for s in symbols}
    for r in usable:
        if r.item.type == "file" and r.file is not None:
            tokens += r.file.tokens
            if r.file.path not in counted:
                counted.add(r.file.path)
                file_tokens += r.file.tokens
    return Savings(tokens, file_tokens, base.repo_tokens)

