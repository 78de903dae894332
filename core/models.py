"""The value types every layer shares: symbols, files, skips, hits, outlines, reports.

Plain frozen dataclasses with no behaviour beyond derived figures, so a widget or
the bundle can use one without importing the index."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

#: Kinds whose functions are methods. Modules and namespaces are not among them:
#: a function in a Rust `mod` or a TS `namespace` is still a function.
CONTAINER_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "impl", "object"})
#: Kinds whose bodies are local scope: definitions inside them are not indexed.
CALLABLE_KINDS = frozenset({"function", "method"})
#: Every kind a symbol may have.
SYMBOL_KINDS = (
    "function",
    "method",
    "class",
    "struct",
    "interface",
    "trait",
    "enum",
    "type",
    "constant",
    "module",
)


class PicklesAsTuple:
    """Pickle as (class, field values): parser processes send thousands of these per
    second, and the dataclass default (a dict of fields per object) is several times slower."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        return type(self), tuple(map(self.__getattribute__, self.__slots__))


@dataclass(frozen=True, slots=True)
class Symbol(PicklesAsTuple):
    """One whole definition in one file, addressable by a stable ID."""

    id: str
    """`path::qualname#kind`, plus `~N` for the Nth duplicate in the same file."""
    name: str
    qualname: str
    """Dotted name through enclosing classes, impls and receivers: `Engine.Run`."""
    kind: str
    language: str
    path: str
    """Repo-relative, always with `/` separators."""
    start_line: int
    """1-based, inclusive; includes attached decorators and doc comments."""
    end_line: int
    start_byte: int
    end_byte: int
    signature: str
    docstring: str
    parent_id: str | None
    tokens: int
    content_hash: str

    @property
    def line_count(self) -> int:
        return self.end_line - self.start_line + 1


@dataclass(frozen=True, slots=True)
class Import(PicklesAsTuple):
    """A module a file imports, as written in the source."""

    path: str
    module: str
    line: int


@dataclass(frozen=True, slots=True)
class FileRecord(PicklesAsTuple):
    """An indexed file and what it costs to read whole."""

    path: str
    language: str
    size: int
    hash: str
    tokens: int
    lines: int
    symbols: int = 0


@dataclass(frozen=True, slots=True)
class SkippedFile(PicklesAsTuple):
    """A file the walker or parser left out, and why (never dropped silently)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class FileResult(PicklesAsTuple):
    """What indexing one file produced, or why it was skipped."""

    path: str
    mtime_ns: int
    record: FileRecord | None
    symbols: list[Symbol]
    extras: list[tuple[str, str]]
    """Per symbol: (normalized-source hash, space-joined search terms)."""
    imports: list[Import]
    has_errors: bool
    skip_reason: str | None = None
    exports: list[str] = field(default_factory=list)
    """Names the file re-exports as its package's public API (entry files only)."""


FoldKind = Literal["identical", "variants", "similar"]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A ranked search result; copies of it folded into `duplicates` (see `fold`)."""

    symbol: Symbol
    score: float
    duplicates: tuple[str, ...] = field(default=())
    """IDs of every copy folded under this hit, best ranked first (the JSON lists a few)."""
    fold: FoldKind | None = None
    """How alike the copies are: `identical` (the same text, whitespace aside), `variants`
    (overloads, accessors, cfg variants, prototypes in the hit's own file) or `similar`
    (anything else: near copies, a header's prototype). None when nothing is folded."""
    abbreviated: bool = False
    """Found because the one-word query abbreviates its name (`bjson`: `Context.BindJSON`), not
    by the ranker: listed after the ranked hits, score 0 (`core/search/abbreviations.py`)."""


#: The phases of an index run, in order: listing the repo's files, parsing the changed ones,
#: building the search data.
IndexPhase = Literal["walk", "parse", "rank"]


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Posted while indexing, so a face can say what a long first index is doing.

    - `walk`: `done` indexable files found so far (`total` 0: not known yet), `path` the latest;
    - `parse`: `done` of `total` files parsed, `path` the latest;
    - `rank`: building the search data, `done` 0 of `total` 1 before it, 1 of 1 after.
    """

    done: int
    total: int
    path: str
    phase: IndexPhase = "parse"
    committed: tuple[FileRecord, ...] = ()
    """Files written to the index since the previous post (parse only, one batch at a time):
    searchable and openable now, before the run ends."""


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What one `update()` did."""

    files: int
    symbols: int
    parsed: int
    unchanged: int
    removed: int
    skipped: list[SkippedFile]
    seconds: float
    cancelled: bool = False


@dataclass(frozen=True, slots=True)
class Savings:
    """Tokens of some selection against the whole files it comes from and the whole repo."""

    tokens: int
    file_tokens: int
    repo_tokens: int

    @property
    def vs_file_ratio(self) -> float:
        return self.file_tokens / self.tokens if self.tokens else 0.0

    @property
    def vs_file_saved_pct(self) -> float:
        return 100.0 * (1 - self.tokens / self.file_tokens) if self.file_tokens else 0.0

    @property
    def vs_repo_ratio(self) -> float:
        return self.repo_tokens / self.tokens if self.tokens else 0.0

    @property
    def vs_repo_saved_pct(self) -> float:
        return 100.0 * (1 - self.tokens / self.repo_tokens) if self.repo_tokens else 0.0


@dataclass(frozen=True, slots=True)
class OutlineNode:
    """A symbol and the symbols nested in it."""

    symbol: Symbol
    children: list[OutlineNode] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Reference:
    """A symbol that mentions another one, and the first line where it does."""

    symbol: Symbol
    line: int


@dataclass(frozen=True, slots=True)
class FileOutline:
    """A file with its top-level symbols, for the repo outline."""

    file: FileRecord
    symbols: list[Symbol]


@dataclass(frozen=True, slots=True)
class Stats:
    root: str
    index_path: str
    index_bytes: int
    files: int
    symbols: int
    tokens: int
    skipped: int
    languages: dict[str, tuple[int, int]]
    kinds: dict[str, int]
