"""The context bundle: symbols and whole files picked for an LLM, in order.

A `Bundle` is a plain ordered list of `BundleItem`s (a symbol ID or a file path, plus
what it looked like when added). It persists as JSON beside the repo's index. Before
display or rendering, `resolve()` looks every item up in the index again: an item
whose symbol vanished, whose content changed, or whose file changed on disk since
indexing is flagged, never dropped.

Rendering produces one paste-ready block, Markdown or XML. Token figures are the
core's exact counts (`Symbol.tokens`, `FileRecord.tokens`), never estimates.

Nothing here imports textual or rich.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from symscope.core.errors import StaleSymbolError, SymscopeError, UnknownSymbolError
from symscope.core.languages import language_by_name
from symscope.core.models import FileRecord, Savings, Symbol

if TYPE_CHECKING:
    from symscope.core.index import Index

#: File name of the persisted bundle inside the repo's index folder.
BUNDLE_FILE = "bundle.json"
#: Version of the JSON layout.
BUNDLE_VERSION = 1

ItemType = Literal["symbol", "file"]
Format = Literal["markdown", "xml"]
Status = Literal["ok", "changed", "missing", "stale"]
FORMATS: tuple[Format, ...] = ("markdown", "xml")
#: File extension for each format, used for the default save path.
FORMAT_SUFFIX: dict[Format, str] = {"markdown": ".md", "xml": ".xml"}


class BundleError(SymscopeError):
    """The saved bundle cannot be read or written."""


@dataclass(frozen=True, slots=True)
class BundleItem:
    """One bundle entry as it was when added: a symbol ID or a whole file path."""

    type: ItemType
    ref: str
    """The symbol ID, or the repo-relative file path."""
    path: str
    name: str
    """Qualified name of a symbol, or the file path."""
    kind: str
    """Symbol kind (`function`, ...) or `file`."""
    content_hash: str
    """Symbol content hash, or whole-file hash, when added."""
    tokens: int
    start_line: int
    end_line: int

    @property
    def key(self) -> str:
        """Unique key inside a bundle."""
        return f"{self.type}:{self.ref}"

    @classmethod
    def for_symbol(cls, sym: Symbol) -> BundleItem:
        return cls("symbol", sym.id, sym.path, sym.qualname, sym.kind, sym.content_hash,
                   sym.tokens, sym.start_line, sym.end_line)

    @classmethod
    def for_file(cls, rec: FileRecord) -> BundleItem:
        return cls("file", rec.path, rec.path, rec.path, "file", rec.hash, rec.tokens,
                   1, max(1, rec.lines))

    @classmethod
    def from_json(cls, raw: Any) -> BundleItem:
        if not isinstance(raw, dict):
            raise ValueError("item is not an object")
        kind = raw["type"]
        if kind not in ("symbol", "file"):
            raise ValueError(f"unknown item type {kind!r}")
        return cls(
            type=kind,
            ref=str(raw["ref"]),
            path=str(raw["path"]),
            name=str(raw["name"]),
            kind=str(raw["kind"]),
            content_hash=str(raw["content_hash"]),
            tokens=int(raw["tokens"]),
            start_line=int(raw["start_line"]),
            end_line=int(raw["end_line"]),
        )


def symbol_key(symbol_id: str) -> str:
    """Bundle key of a symbol item."""
    return f"symbol:{symbol_id}"


def file_key(path: str) -> str:
    """Bundle key of a whole-file item."""
    return f"file:{path}"


@dataclass(slots=True)
class Bundle:
    """An ordered, duplicate-free list of items plus the preferred output format."""

    items: list[BundleItem] = field(default_factory=list)
    format: Format = "markdown"

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[BundleItem]:
        return iter(self.items)

    def __contains__(self, key: object) -> bool:
        return any(item.key == key for item in self.items)

    @property
    def keys(self) -> list[str]:
        return [item.key for item in self.items]

    def index_of(self, key: str) -> int:
        """Position of the item with `key`, or -1."""
        for i, item in enumerate(self.items):
            if item.key == key:
                return i
        return -1

    def add(self, item: BundleItem) -> bool:
        """Append `item`; False if an item with its key is already there."""
        if item.key in self:
            return False
        self.items.append(item)
        return True

    def remove(self, key: str) -> bool:
        """Remove the item with `key`; False if absent."""
        i = self.index_of(key)
        if i < 0:
            return False
        del self.items[i]
        return True

    def toggle(self, item: BundleItem) -> bool:
        """Add `item`, or remove it if present. True when it was added."""
        if self.remove(item.key):
            return False
        self.items.append(item)
        return True

    def move(self, key: str, delta: int) -> int:
        """Move an item `delta` places (clamped); returns its new position, -1 if absent."""
        i = self.index_of(key)
        if i < 0:
            return -1
        j = max(0, min(len(self.items) - 1, i + delta))
        if j != i:
            self.items.insert(j, self.items.pop(i))
        return j

    def clear(self) -> None:
        self.items.clear()

    def replace(self, old_key: str, item: BundleItem) -> None:
        """Put `item` where the item with `old_key` is (used to accept changes)."""
        i = self.index_of(old_key)
        if i >= 0:
            self.items[i] = item

    # -- persistence -------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "version": BUNDLE_VERSION,
            "format": self.format,
            "items": [asdict(item) for item in self.items],
        }

    @classmethod
    def from_json(cls, raw: Any) -> Bundle:
        """Parse the persisted shape; raises BundleError on anything unexpected."""
        try:
            if not isinstance(raw, dict) or raw.get("version") != BUNDLE_VERSION:
                raise ValueError("unknown bundle layout")
            fmt = raw.get("format", "markdown")
            bundle = cls(format=fmt if fmt in FORMATS else "markdown")
            for entry in raw.get("items", []):
                bundle.add(BundleItem.from_json(entry))
            return bundle
        except (KeyError, TypeError, ValueError) as exc:
            raise BundleError(f"saved bundle is unreadable ({exc})") from None

    def save(self, path: Path) -> None:
        """Write atomically (a crash never leaves half a file)."""
        data = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".bundle-", suffix=".json", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise BundleError(f"cannot save bundle to {path}: {exc.strerror or exc}") from None

    @classmethod
    def load(cls, path: Path) -> Bundle:
        """Read a saved bundle; a missing file is an empty bundle.

        Raises:
            BundleError: the file exists but is not a bundle.
        """
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls()
        except OSError as exc:
            raise BundleError(f"cannot read bundle {path}: {exc.strerror or exc}") from None
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BundleError(f"saved bundle {path} is not valid JSON ({exc.msg})") from None
        return cls.from_json(raw)


def bundle_path(index: Index) -> Path:
    """Where the bundle of this index's repo is persisted."""
    return index.index_dir / BUNDLE_FILE


# -- resolving against the index -------------------------------------------------

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


# -- rendering ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rendered:
    """A rendered bundle and what went into it."""

    text: str
    items: int
    tokens: int
    """Sum of the core's token counts of the rendered items (the code, not the wrapper)."""
    left_out: list[ResolvedItem]
    """Flagged items that could not be rendered (missing, or stale on disk)."""


def _location(r: ResolvedItem) -> str:
    return f"{r.path}:{r.start_line}-{r.end_line}"


def _describe(r: ResolvedItem) -> str:
    return "file" if r.item.type == "file" else f"{r.kind} {r.name}"


def _fence_for(code: str) -> str:
    """A backtick fence longer than any backtick run inside `code`."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _with_newline(code: str) -> str:
    return code if code.endswith("\n") else code + "\n"


def render_markdown(resolved: list[ResolvedItem]) -> Rendered:
    """Markdown: a header listing items and the token total, then one fenced block per item.

    Shape (each item, in bundle order)::

        # Code context: 2 items, 140 tokens

        1. lib/router.py:6-15 (class Router, 98 tokens)
        2. web/app.js:1-10 (file, 42 tokens)

        ## lib/router.py:6-15 (class Router)

        ```python
        <code>
        ```
    """
    usable = [r for r in resolved if r.usable]
    total = sum(r.tokens for r in usable)
    noun = "item" if len(usable) == 1 else "items"
    parts = [f"# Code context: {len(usable)} {noun}, {total} tokens\n\n"]
    for n, r in enumerate(usable, start=1):
        parts.append(f"{n}. {_location(r)} ({_describe(r)}, {r.tokens} tokens)\n")
    for r in usable:
        assert r.code is not None
        fence = _fence_for(r.code)
        parts.append(
            f"\n## {_location(r)} ({_describe(r)})\n\n{fence}{r.fence}\n{_with_newline(r.code)}{fence}\n"
        )
    return Rendered("".join(parts), len(usable), total, [r for r in resolved if not r.usable])


def _xml_attr(value: str) -> str:
    return (
        value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def render_xml(resolved: list[ResolvedItem]) -> Rendered:
    """XML: one `<code_context>` element holding one `<item>` per usable item.

    Shape::

        <code_context items="2" tokens="140">
        <item path="lib/router.py" lines="6-15" kind="class" name="Router" language="python" tokens="98">
        <![CDATA[<code>
        ]]>
        </item>
        </code_context>
    """
    usable = [r for r in resolved if r.usable]
    total = sum(r.tokens for r in usable)
    parts = [f'<code_context items="{len(usable)}" tokens="{total}">\n']
    for r in usable:
        assert r.code is not None
        attrs = (
            f'path="{_xml_attr(r.path)}" lines="{r.start_line}-{r.end_line}" '
            f'kind="{_xml_attr(r.kind)}" name="{_xml_attr(r.name)}" '
            f'language="{_xml_attr(r.language)}" tokens="{r.tokens}"'
        )
        parts.append(f"<item {attrs}>\n{_cdata(_with_newline(r.code))}\n</item>\n")
    parts.append("</code_context>\n")
    return Rendered("".join(parts), len(usable), total, [r for r in resolved if not r.usable])


def render(resolved: list[ResolvedItem], fmt: Format) -> Rendered:
    """Render in `fmt` (`markdown` or `xml`)."""
    return render_xml(resolved) if fmt == "xml" else render_markdown(resolved)
