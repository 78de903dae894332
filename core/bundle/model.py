"""The one bundle model: items in order, and everything that decides the text made of them.

A `Bundle` is an ordered list of `BundleItem`s (a symbol ID or a file path, plus what
it looked like when added) and the decisions every face makes about it: the level
each item is pasted at (`details`: a cap chosen by hand; absent means full), which
items were added as dependencies of which (`dependency_of`), why symscope added an
item (`reasons`: a diff's changed symbols and their callers), the token budget, the
format, and the secrets left in on purpose (`keep`; `redact` False keeps all).

The TUI edits one, `symscope bundle` and MCP `build_bundle` build one from ids, and
all of them render it with `symscope.core.bundle.build.render_bundle`. It persists
as JSON beside the repo's index (without `keep`: each launch redacts everything
again). Nothing here reads the index.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from symscope.core.bundle.packer import DETAILS, Detail
from symscope.core.errors import SymscopeError
from symscope.core.models import FileRecord, Symbol
from symscope.core.private import write_private

#: File name of the persisted bundle inside the repo's index folder.
BUNDLE_FILE = "bundle.json"
#: Version of the JSON layout.
BUNDLE_VERSION = 1
#: Keys of the decisions saved beside the items in bundle.json (an older reader ignores them).
DEPENDENCY_KEY = "dependency_of"
DETAILS_KEY = "details"
BUDGET_KEY = "budget"

ItemType = Literal["symbol", "file"]
Format = Literal["markdown", "xml"]
FORMATS: tuple[Format, ...] = ("markdown", "xml")
#: Why an item is in a bundle. `added`: chosen by hand; `changed`: touched by a diff;
#: `dependency`: used by an added symbol; `caller`: calls a changed symbol.
Reason = Literal["added", "dependency", "changed", "caller"]
REASONS: tuple[Reason, ...] = ("added", "dependency", "changed", "caller")
#: Reasons symscope added rather than the user: they rank below the others under a budget.
SECONDARY_REASONS = frozenset({"dependency", "caller"})
#: File extension for each format, used for the default save path.
FORMAT_SUFFIX: dict[Format, str] = {"markdown": ".md", "xml": ".xml"}
#: The level dependencies are added at unless asked otherwise: their signatures tell a
#: model how to call them at a fraction of their bodies' tokens.
DEPENDENCY_DETAIL: Detail = "signature"


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


@dataclass(frozen=True, slots=True)
class DependencyOf:
    """The item a dependency was added for."""

    key: str
    """Its bundle key (`symbol:<id>`); it may have been removed since."""
    name: str
    """Its qualified name, for the text and the app's bundle pane."""


def next_detail(current: Detail) -> Detail:
    """The level after `current` when cycling: full -> signature -> name -> full."""
    return DETAILS[(DETAILS.index(current) + 1) % len(DETAILS)]


@dataclass
class Bundle:
    """An ordered, duplicate-free list of items and the decisions that make its text."""

    items: list[BundleItem] = field(default_factory=list)
    format: Format = "markdown"
    dependency_of: dict[str, DependencyOf] = field(default_factory=dict)
    """Items added as dependencies, by key, and of which item."""
    details: dict[str, Detail] = field(default_factory=dict)
    """Per key, the most detail wanted (absent: full); a budget may lower it, never raise it."""
    budget: int | None = None
    """The most tokens the text may have (None: no limit)."""
    reasons: dict[str, Reason] = field(default_factory=dict)
    """Why symscope added an item (a diff's `changed` and `caller`); absent: `dependency`
    for items in `dependency_of`, else `added`. Not persisted."""
    keep: frozenset[str] = frozenset()
    """Fingerprints of secrets left in the text on purpose. Not persisted."""
    redact: bool = True
    """Replace secrets with markers (False keeps every one). Not persisted."""

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

    def reason(self, key: str) -> Reason:
        """Why the item with `key` is in the bundle."""
        if key in self.reasons:
            return self.reasons[key]
        return "dependency" if key in self.dependency_of else "added"

    def level(self, key: str) -> Detail:
        """The most detail wanted for an item (full unless lowered)."""
        return self.details.get(key, "full")

    def add(self, item: BundleItem, *, reason: Reason = "added", detail: Detail = "full") -> bool:
        """Append `item`; False if an item with its key is already there."""
        if item.key in self:
            return False
        self.items.append(item)
        if reason != "added":
            self.reasons[item.key] = reason
        if detail != "full":
            self.details[item.key] = detail
        return True

    def remove(self, key: str) -> bool:
        """Remove the item with `key` and its decisions; False if absent."""
        i = self.index_of(key)
        if i < 0:
            return False
        del self.items[i]
        self.dependency_of.pop(key, None)
        self.details.pop(key, None)
        self.reasons.pop(key, None)
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
        self.dependency_of.clear()
        self.details.clear()
        self.reasons.clear()

    def replace(self, old_key: str, item: BundleItem) -> None:
        """Put `item` where the item with `old_key` is (used to accept changes)."""
        i = self.index_of(old_key)
        if i >= 0:
            self.items[i] = item

    def set_level(self, key: str, level: Detail) -> None:
        """The most detail wanted for the item with `key` (full clears the cap)."""
        if level == "full":
            self.details.pop(key, None)
        else:
            self.details[key] = level

    def group(self, key: str) -> list[str]:
        """`key`'s group, in bundle order: the item the dependencies were added for, and them.

        For a dependency, its group is the item it was added for (if still present) and
        every item added for that one; for any other item, itself and its dependencies.
        """
        owner = self.dependency_of[key].key if key in self.dependency_of else key
        return [k for k in self.keys if k == owner or (k in self.dependency_of and
                                                       self.dependency_of[k].key == owner)]

    def add_after_group(self, owner: str, items: Iterable[BundleItem], of: DependencyOf,
                        detail: Detail = DEPENDENCY_DETAIL) -> list[str]:
        """Insert `items` (not already present) right after `owner`'s group, as its dependencies
        capped at `detail`.

        Returns:
            The keys added, in order.
        """
        group = self.group(owner)
        at = (self.index_of(group[-1]) + 1) if group else len(self.items)
        added: list[str] = []
        for item in items:
            if item.key in self:
                continue
            self.items.insert(at, item)
            self.dependency_of[item.key] = of
            if detail != "full":
                self.details[item.key] = detail
            added.append(item.key)
            at += 1
        return added

    def copy(self) -> Bundle:
        """An independent copy (a snapshot taken to a thread)."""
        return Bundle(list(self.items), self.format, dict(self.dependency_of), dict(self.details), self.budget,
                      dict(self.reasons), self.keep, self.redact)

    # -- persistence -------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The bundle.json object: the items, and the decisions that are not per session."""
        data: dict[str, Any] = {
            "version": BUNDLE_VERSION,
            "format": self.format,
            "items": [asdict(item) for item in self.items],
        }
        keys = set(self.keys)
        deps = {k: {"key": d.key, "name": d.name} for k, d in self.dependency_of.items() if k in keys}
        details = {k: d for k, d in self.details.items() if k in keys and d != "full"}
        if deps:
            data[DEPENDENCY_KEY] = deps
        if details:
            data[DETAILS_KEY] = details
        if self.budget is not None:
            data[BUDGET_KEY] = self.budget
        return data

    @classmethod
    def from_json(cls, raw: Any) -> Bundle:
        """Parse the persisted shape; raises BundleError on a broken layout (a bad
        dependency, level or budget entry is dropped, never a reason to refuse it)."""
        try:
            if not isinstance(raw, dict) or raw.get("version") != BUNDLE_VERSION:
                raise ValueError("unknown bundle layout")
            fmt = raw.get("format", "markdown")
            bundle = cls(format=fmt if fmt in FORMATS else "markdown")
            for entry in raw.get("items", []):
                bundle.add(BundleItem.from_json(entry))
        except (KeyError, TypeError, ValueError) as exc:
            raise BundleError(f"saved bundle is unreadable ({exc})") from None
        bundle.dependency_of, bundle.details, bundle.budget = read_extras(raw, set(bundle.keys))
        return bundle

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


def read_extras(raw: Any, keys: set[str]) -> tuple[dict[str, DependencyOf], dict[str, Detail], int | None]:
    """The dependencies, levels and budget saved in a bundle.json object (bad entries dropped)."""
    deps: dict[str, DependencyOf] = {}
    details: dict[str, Detail] = {}
    budget: int | None = None
    if not isinstance(raw, dict):
        return deps, details, budget
    saved_deps = raw.get(DEPENDENCY_KEY)
    for key, entry in saved_deps.items() if isinstance(saved_deps, dict) else ():
        if key in keys and isinstance(entry, dict) and isinstance(entry.get("key"), str):
            deps[key] = DependencyOf(entry["key"], str(entry.get("name") or entry["key"]))
    saved_details = raw.get(DETAILS_KEY)
    for key, level in saved_details.items() if isinstance(saved_details, dict) else ():
        if key in keys and level in DETAILS:
            details[key] = level
    value = raw.get(BUDGET_KEY)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        budget = value
    return deps, details, budget
