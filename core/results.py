"""The answers of the engine API (`symscope.core.api.Workspace`) that `core/models.py` has no type for.

Frozen values with no behaviour beyond derived figures: a face formats them, and
`symscope.core.json_shapes` projects them to the JSON every face prints, so no face
reads an engine module to answer a question.
"""

from __future__ import annotations

from dataclasses import dataclass

from symscope.core.models import FileOutline, OutlineNode, Reference, Stats, Symbol


@dataclass(frozen=True, slots=True)
class Location:
    """Where a workspace's repository and its index live, as shown (names escaped)."""

    root: str
    index: str


@dataclass(frozen=True, slots=True)
class SymbolSource:
    """A symbol and its exact source, read now."""

    symbol: Symbol
    source: str


@dataclass(frozen=True, slots=True)
class FileOutlineResult:
    """A file's symbols as a tree (class -> methods)."""

    path: str
    language: str
    tokens: int
    nodes: tuple[OutlineNode, ...]


@dataclass(frozen=True, slots=True)
class FolderOutline:
    """A folder's indexed files (below it, at any depth) with their top-level symbols."""

    path: str
    """Repo-relative, `.` for the root."""
    files: tuple[FileOutline, ...]

    @property
    def tokens(self) -> int:
        return sum(f.file.tokens for f in self.files)


Outline = FileOutlineResult | FolderOutline


@dataclass(frozen=True, slots=True)
class UsedBy:
    """The symbols that use one symbol, each with the line of the first use."""

    target: Symbol
    references: tuple[Reference, ...]


@dataclass(frozen=True, slots=True)
class Dependency:
    """A symbol another one uses, `distance` steps away; `ambiguous` when its name had several candidates."""

    symbol: Symbol
    distance: int
    ambiguous: bool


@dataclass(frozen=True, slots=True)
class Uses:
    """What a symbol uses, to `depth`, nearest first; the symbol itself is never listed."""

    target: Symbol
    depth: int
    deps: tuple[Dependency, ...]

    @property
    def tokens(self) -> int:
        return sum(d.symbol.tokens for d in self.deps)


@dataclass(frozen=True, slots=True)
class Related:
    """One symbol's uses (depth 1) and the symbols that use it."""

    symbol: Symbol
    uses: Uses
    used_by: UsedBy


@dataclass(frozen=True, slots=True)
class ImportingFile:
    """A file that imports a file or module, the line of the import and its symbols that use it."""

    path: str
    module: str
    line: int
    symbol_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Importers:
    """The files that import `target` (a repo-relative path, or a module name as written)."""

    target: str
    files: tuple[ImportingFile, ...]


@dataclass(frozen=True, slots=True)
class Status:
    """`Stats` plus freshness."""

    stats: Stats
    last_indexed: int | None
    """Unix time of the last completed index run, None if never."""
    changed_since: int | None
    """Files the latest refresh found changed or removed; None when unknown."""
    skipped_by_reason: dict[str, int]
    """Skipped files per reason (its text before any ` (detail)`), most first."""


@dataclass(frozen=True, slots=True)
class VectorsReport:
    """What embedding the symbols for hybrid search did."""

    symbols: int
    embedded: int
    """Newly embedded (the rest were reused)."""
    seconds: float


@dataclass(frozen=True, slots=True)
class LanguageInfo:
    """A supported language: its file extensions and the kinds its query can produce."""

    name: str
    extensions: tuple[str, ...]
    kinds: tuple[str, ...]
