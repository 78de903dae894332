"""The context bundle: symbols and whole files picked for an LLM, in order.

A `Bundle` is a plain ordered list of `BundleItem`s (a symbol ID or a file path, plus
what it looked like when added). It persists as JSON beside the repo's index. Before
display or rendering, `resolve()` looks every item up in the index again: an item
whose symbol vanished, whose content changed, or whose file changed on disk since
indexing is flagged, never dropped.

Rendering produces one paste-ready block, Markdown or XML. Token figures are the
core's exact counts (`Symbol.tokens`, `FileRecord.tokens`), never estimates.
`render` pastes every item in full, exactly as the source has it.

Packing (`pack`, or `build_bundle` from IDs) makes what is actually copied, saved
or printed: each item at a detail level (`full`, `signature`, `name`), secrets
redacted (`symscope.core.secrets`), control characters made visible, and, with a
budget, the levels chosen by the exact packer (`symscope.core.packer`) so that the
text's cl100k count is at most the budget. `build_bundle` can also add an added
symbol's dependencies and, from `git diff`, changed symbols and their callers
(`symscope.core.gitdiff`).

Nothing here imports textual or rich.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from symscope.core import limits
from symscope.core.errors import StaleSymbolError, SymscopeError, UnknownSymbolError
from symscope.core.languages import language_by_name
from symscope.core.models import FileRecord, Savings, Symbol
from symscope.core.packer import (
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
from symscope.core.private import write_private
from symscope.core.sanitize import for_paste
from symscope.core.tokens import count_tokens

if TYPE_CHECKING:
    from symscope.core.index import Index
    from symscope.core.secrets import Finding


#: File name of the persisted bundle inside the repo's index folder.
BUNDLE_FILE = "bundle.json"
#: Version of the JSON layout.
BUNDLE_VERSION = 1

ItemType = Literal["symbol", "file"]
Format = Literal["markdown", "xml"]
Status = Literal["ok", "changed", "missing", "stale"]
FORMATS: tuple[Format, ...] = ("markdown", "xml")
#: Why an item is in a bundle. `added`: chosen by hand; `changed`: touched by a diff;
#: `dependency`: used by an added symbol; `caller`: calls a changed symbol.
Reason = Literal["added", "dependency", "changed", "caller"]
REASONS: tuple[Reason, ...] = ("added", "dependency", "changed", "caller")
#: Reasons symscope added rather than the user: they rank below the others under a budget.
SECONDARY_REASONS = frozenset({"dependency", "caller"})
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
        """Write atomically (a crash never leaves half a file), mode 600: it names the repo's code."""
        data = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
        try:
            write_private(path, data)
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


def _fence_for(code: str) -> str:
    """A backtick fence longer than any backtick run inside `code`."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _with_newline(code: str) -> str:
    return code if code.endswith("\n") else code + "\n"


@dataclass(frozen=True, slots=True)
class Entry:
    """A resolved item ready to render or pack: why it is in the bundle and the most detail it may get."""

    resolved: ResolvedItem
    reason: Reason = "added"
    detail: Detail = "full"
    """The cap: a budget may lower the item's level (or drop it), never raise it."""
    outline: str = ""
    """The `signature` level's code: the signature, plus a class's members' signatures, or a
    file's symbols' signatures indented by nesting; empty when there is none (no such level)."""
    doc: str = ""
    """The symbol's docstring or doc comment (its first paragraph), shown at `signature` level."""

    @property
    def id(self) -> str:
        """The symbol ID, or the file path."""
        return self.resolved.item.ref

    @property
    def key(self) -> str:
        return self.resolved.key


def signature_outline(index: Index, r: ResolvedItem) -> tuple[str, str]:
    """(signature-level code, doc) of an item: what its `signature` level shows.

    A symbol shows its signature, then, for a class (or any symbol with members:
    the symbols whose parent is it), each member's signature indented one level.
    A whole file shows every symbol's signature, indented by nesting.
    """
    if r.symbol is not None:
        sym = r.symbol
        members = [s for s in index.file_symbols(sym.path) if s.parent_id == sym.id]
        lines = [sym.signature or sym.qualname] + [
            "    " + (m.signature or m.qualname) for m in sorted(members, key=lambda m: m.start_line)
        ]
        return "\n".join(lines) + "\n", sym.docstring
    if r.item.type == "file":
        depth: dict[str, int] = {}
        lines = []
        for s in sorted(index.file_symbols(r.item.ref), key=lambda s: (s.start_line, -s.end_line)):
            d = depth.get(s.parent_id, -1) + 1 if s.parent_id is not None else 0
            depth[s.id] = d
            lines.append("    " * d + (s.signature or s.qualname))
        return ("\n".join(lines) + "\n" if lines else ""), ""
    return "", ""


def make_entry(index: Index, r: ResolvedItem, reason: Reason = "added", detail: Detail = "full") -> Entry:
    """An `Entry` for a resolved item, with its signature-level outline read from the index."""
    if detail not in LEVEL:
        raise BundleError(f"unknown detail level {detail!r}: use full, signature or name")
    outline, doc = signature_outline(index, r) if r.usable else ("", "")
    return Entry(r, reason, detail, outline, doc)


@dataclass(frozen=True, slots=True)
class _View:
    """One item at one detail level, as it is rendered (cleaned when the bundle is packed)."""

    detail: Detail
    path: str
    kind: str
    name: str
    language: str
    location: str
    describe: str
    fence_tag: str
    content: str
    """Code (full), signatures (signature) or nothing (name); ends with a newline unless empty."""
    doc: str
    tokens: int
    """Full: the core's count of the item; signature: the count of its outline and doc line."""
    findings: tuple[Redaction, ...] = ()
    controls: int = 0


#: Cleans one string: (text, file name) -> (text, findings, control characters made visible).
_Cleaner = Callable[[str, str], tuple[str, list["Finding"], int]]


def _view(entry: Entry, detail: Detail, clean: _Cleaner | None) -> _View:
    r = entry.resolved
    found: list[Redaction] = []
    controls = 0

    def c(text: str, filename: str, line: int | None = None) -> str:
        nonlocal controls
        if clean is None or not text:
            return text
        out, findings, n = clean(text, filename)
        controls += n
        found.extend(Redaction(entry.id, f.label, f.type, r.start_line if line is None else line + f.line - 1,
                               f.fingerprint) for f in findings)
        return out

    path, kind, name = c(r.path, ""), c(r.kind, ""), c(r.name, "")
    describe = "file" if r.item.type == "file" else f"{kind} {name}"
    content, doc, tokens = "", "", 0
    if detail == "full":
        assert r.code is not None
        content, tokens = c(_with_newline(r.code), r.path, r.start_line), r.tokens
    elif detail == "signature":
        content, doc = c(entry.outline, r.path), c(entry.doc, r.path)
        tokens = count_tokens(content) + count_tokens(doc)
    return _View(detail, path, kind, name, r.language, f"{path}:{r.start_line}-{r.end_line}", describe,
                 r.fence, content, doc, tokens, tuple(found), controls)


def _plain_view(r: ResolvedItem) -> _View:
    """The full level, exactly as the source has it (what `render` pastes)."""
    return _view(Entry(r), "full", None)


#: A piece of rendered text and the position of the item it belongs to (None: the header).
#: Every piece starts at a line whose first character is visible ASCII, so the text's
#: token count is the sum of its pieces' (see `symscope.core.packer`).
_Piece = tuple[int | None, str]


def _markdown_pieces(views: Sequence[tuple[int, _View]]) -> list[_Piece]:
    total = sum(v.tokens for _, v in views)
    noun = "item" if len(views) == 1 else "items"
    pieces: list[list[Any]] = [[None, f"# Code context: {len(views)} {noun}, {total} tokens\n\n"]]
    for n, (i, v) in enumerate(views, start=1):
        if v.detail == "full":
            line = f"{n}. {v.location} ({v.describe}, {v.tokens} tokens)\n"
        elif v.detail == "signature":
            line = f"{n}. {v.location} ({v.describe}, signature, {v.tokens} tokens)\n"
        else:
            line = f"{n}. {v.location} ({v.describe}, name only)\n"
        pieces.append([i, line])
    for i, v in views:
        if v.detail == "name":
            continue  # its list line says it all
        fence = _fence_for(v.content)
        label = "" if v.detail == "full" else ", signature"
        doc = f"{v.doc}\n\n" if v.doc else ""
        pieces[-1][1] += "\n"  # the blank line before a block ends the piece before it
        pieces.append([i, f"## {v.location} ({v.describe}{label})\n\n{doc}{fence}{v.fence_tag}\n{v.content}{fence}\n"])
    return [(owner, text) for owner, text in pieces]


def _xml_attr(value: str) -> str:
    return (
        value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _xml_pieces(views: Sequence[tuple[int, _View]]) -> list[_Piece]:
    total = sum(v.tokens for _, v in views)
    pieces: list[_Piece] = [(None, f'<code_context items="{len(views)}" tokens="{total}">\n')]
    for i, v in views:
        attrs = (
            f'path="{_xml_attr(v.path)}" lines="{v.location.rsplit(":", 1)[1]}" '
            f'kind="{_xml_attr(v.kind)}" name="{_xml_attr(v.name)}" language="{_xml_attr(v.language)}"'
        )
        if v.detail == "name":
            pieces.append((i, f'<item {attrs} detail="name"/>\n'))
            continue
        attrs += f' tokens="{v.tokens}"'
        if v.detail == "signature":
            attrs += ' detail="signature"' + (f' doc="{_xml_attr(v.doc)}"' if v.doc else "")
        pieces.append((i, f"<item {attrs}>\n{_cdata(v.content)}\n</item>\n"))
    pieces.append((None, "</code_context>\n"))
    return pieces


def _pieces(views: Sequence[tuple[int, _View]], fmt: Format) -> list[_Piece]:
    return _xml_pieces(views) if fmt == "xml" else _markdown_pieces(views)


def _rendered(resolved: list[ResolvedItem], fmt: Format) -> Rendered:
    usable = [r for r in resolved if r.usable]
    views = [(i, _plain_view(r)) for i, r in enumerate(usable)]
    text = "".join(piece for _, piece in _pieces(views, fmt))
    return Rendered(text, len(usable), sum(v.tokens for _, v in views), [r for r in resolved if not r.usable])


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

    At lower detail levels (see `pack`) a list line reads `(class Router, signature,
    31 tokens)` and its block holds the doc line and the signatures, or
    `(class Router, name only)` with no block.
    """
    return _rendered(resolved, "markdown")


def render_xml(resolved: list[ResolvedItem]) -> Rendered:
    """XML: one `<code_context>` element holding one `<item>` per usable item.

    Shape::

        <code_context items="2" tokens="140">
        <item path="lib/router.py" lines="6-15" kind="class" name="Router" language="python" tokens="98">
        <![CDATA[<code>
        ]]>
        </item>
        </code_context>

    At lower detail levels (see `pack`) an item carries `detail="signature"` (and
    `doc="..."`) around its signatures, or is an empty `<item ... detail="name"/>`.
    """
    return _rendered(resolved, "xml")


def render(resolved: list[ResolvedItem], fmt: Format) -> Rendered:
    """Render in `fmt` (`markdown` or `xml`), every item in full, exactly as the source has it."""
    return _rendered(resolved, fmt)


# -- packing: detail levels, a budget, secrets ---------------------------------------


@dataclass(frozen=True, slots=True)
class Redaction:
    """A secret replaced in a packed bundle (never the secret itself)."""

    id: str
    """The item's symbol ID or file path."""
    label: str
    """What the marker says: `AWS access key`, `password or secret`..."""
    type: str
    """detect-secrets' name for it: `AWS Access Key`, `Secret Keyword`..."""
    line: int
    """The line in the item's file (its first line when the secret is in a signature or doc)."""
    fingerprint: str
    """Pass it in `keep` to leave this secret in on purpose."""


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
    """Tokens of the header lines (and the XML closing tag)."""
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

    def to_json(self) -> dict[str, Any]:
        """The `symscope bundle --json` object."""
        return {
            "text": self.text,
            "tokens": self.tokens,
            "budget": self.budget,
            "items": [{"id": i.id, "detail": i.detail, "tokens": i.tokens, "reason": i.reason}
                      for i in self.items],
            "dropped": [i.id for i in self.dropped],
            "redacted": self.redacted,
        }


def _cleaner(redact: bool, keep: Collection[str]) -> _Cleaner:
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
        keep: Collection[str] = (),
    ) -> None:
        self.entries = list(entries)
        self.usable = [e for e in self.entries if e.resolved.usable]
        """The entries that can be rendered; levels are positions in this list."""
        self.fmt: Format = fmt
        self.choices = [_levels(e) for e in self.usable]
        """Each usable entry's allowed levels, most detailed first."""
        self.order = priority_order([e.reason in SECONDARY_REASONS for e in self.usable])
        """Positions, highest priority first: added and changed items, then the rest."""
        self._clean = _cleaner(redact, keep)
        self._views: dict[tuple[int, int], _View] = {}
        self._counts: dict[str, int] = {}

    def _view(self, i: int, level: int) -> _View:
        got = self._views.get((i, level))
        if got is None:
            got = self._views[(i, level)] = _view(self.usable[i], DETAIL_OF[level], self._clean)
        return got

    def _kept(self, levels: Sequence[int]) -> list[tuple[int, _View]]:
        return [(i, self._view(i, level)) for i, level in enumerate(levels) if level != DROP]

    def _piece_tokens(self, text: str) -> int:
        n = self._counts.get(text)
        if n is None:
            n = self._counts[text] = count_tokens(text)
        return n

    def text(self, levels: Sequence[int]) -> str:
        """The bundle text with these levels."""
        return "".join(piece for _, piece in _pieces(self._kept(levels), self.fmt))

    def cost(self, levels: Sequence[int]) -> int:
        """`count_tokens(self.text(levels))`, summed over pieces each counted once."""
        return sum(self._piece_tokens(piece) for _, piece in _pieces(self._kept(levels), self.fmt))

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
        for owner, piece in _pieces(self._kept(levels), self.fmt):
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

    Raises:
        BudgetError: the budget is below 1, or too small for even one item's name line.
    """
    return Packer(entries, fmt, redact=redact, keep=keep).pack(budget)


def _levels(entry: Entry) -> list[int]:
    """The levels an entry may take, most detailed first: its cap and below (no empty signature)."""
    top = LEVEL[entry.detail]
    return [lv for lv in (FULL, SIGNATURE, NAME) if lv <= top and (lv != SIGNATURE or entry.outline)]


# -- one call for front ends -------------------------------------------------------------


def lookup_item(index: Index, ref: str) -> BundleItem:
    """A bundle item for a symbol ID, a repo-relative path of an indexed file, or a name of
    one symbol (`Context.BindJSON`, `BindJSON`: `Index.symbol`).

    Raises:
        UnknownSymbolError: none of these (the message names the candidates or nearest ids).
    """
    if "::" not in ref:
        rec = index.file(ref)
        if rec is not None:
            return BundleItem.for_file(rec)
    return BundleItem.for_symbol(index.symbol(ref))


def build_bundle(
    index: Index,
    items: Sequence[str | tuple[str, Reason]] = (),
    *,
    deps: int = 0,
    budget: int | None = None,
    fmt: Format = "markdown",
    diff_ref: str | None = None,
    redact: bool = True,
    details: Mapping[str, Detail] | None = None,
    keep: Collection[str] = (),
) -> BundleResult:
    """Look items up, add dependencies and what changed, and pack one paste-ready bundle.

    Order in the bundle: `items` as given, then their dependencies, then (with
    `diff_ref`) the changed symbols and their callers; an item already present
    keeps its first place and reason.

    Args:
        index: The repo's index.
        items: Symbol IDs or indexed file paths (reason `added`), or (ref, reason) pairs.
        deps: Also add what each added symbol uses, to this depth (reason `dependency`).
        budget: The most tokens the text may have (see `pack`); None: no limit.
        fmt: `markdown` or `xml`.
        diff_ref: Add the symbols changed in the working tree against this git
            revision (`HEAD` for uncommitted work), in full (reason `changed`), and
            their callers at signature level (reason `caller`).
        redact: Replace secrets with markers (the default; False keeps them).
        details: Per ID, the most detail wanted (a level chosen by hand).
        keep: Fingerprints of secrets to leave in (see `Redaction`).

    Raises:
        UnknownSymbolError: an ID is neither a symbol nor an indexed file.
        StaleSymbolError: an item's file changed since indexing.
        BudgetError: see `pack`.
        GitError: with `diff_ref`, git is missing, the repo is not a git work tree,
            or the revision is unknown.
        BundleError: an unknown format or detail level.
        BadArgumentError: `deps` or `budget` out of range (`core.limits`).
    """
    limits.BUNDLE_DEPS.check("deps", deps)
    if budget is not None:
        limits.BUDGET.check("budget", budget)
    if fmt not in FORMATS:
        raise BundleError(f"unknown bundle format {fmt!r}: use markdown or xml")
    wanted: dict[str, tuple[BundleItem, Reason, Detail]] = {}

    def add(item: BundleItem, reason: Reason, cap: Detail = "full") -> None:
        wanted.setdefault(item.key, (item, reason, cap))

    for raw in items:
        ref, reason = (raw, "added") if isinstance(raw, str) else raw
        if reason not in REASONS:
            raise BundleError(f"unknown reason {reason!r}")
        add(lookup_item(index, ref), reason)
    if deps:
        roots = [index.symbol(item.ref) for item, reason, _ in list(wanted.values())
                 if item.type == "symbol" and reason == "added"]
        for root in roots:
            for dep in index.deps.closure(root, deps):
                add(BundleItem.for_symbol(dep.symbol), "dependency")
    if diff_ref is not None:
        from symscope.core.gitdiff import diff_items  # only diff bundles need git

        for sym, why in diff_items(index, diff_ref):
            add(BundleItem.for_symbol(sym), why, "signature" if why == "caller" else "full")
    entries: list[Entry] = []
    for item, reason, cap in wanted.values():
        if details is not None and item.ref in details:
            cap = details[item.ref]
        resolved = resolve_item(index, item)
        if not resolved.usable:
            raise StaleSymbolError(f"{item.path} changed since indexing (or vanished); "
                                   "run `symscope index` again")
        entries.append(make_entry(index, resolved, reason, cap))
    return pack(entries, fmt, budget, redact=redact, keep=keep)
