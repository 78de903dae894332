"""The one typed engine API: a `Workspace` answers every question a face asks, in typed values.

The CLI, the MCP server and the benchmarks import only this module (with
`core/models.py` and `core/errors.py`): it re-exports the value types, the JSON
projection (`core/json_shapes.py`), the sanitiser, token counting and the limits, so
no face reaches into an engine module and the same question gets the same answer
everywhere. The methods are thin: each delegates to one engine function.

    with Workspace.open("path/to/repo") as ws:
        hits = ws.search("kind:class router")
        print(emit(search_json("kind:class router", hits)))

Heavy libraries load on first use only (tree-sitter, tiktoken, detect-secrets, numpy):
`symscope search` must start fast, so every such import below is inside a function.
"""

from __future__ import annotations

import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from symscope.core import limits
from symscope.core.errors import BadQueryError, SymscopeError
from symscope.core.json_shapes import (
    ALSO_SHOWN,
    Json,
    bundle_json,
    dependency_json,
    emit,
    hit_json,
    importers_json,
    languages_json,
    outline_json,
    outline_node_json,
    report_json,
    search_json,
    show_json,
    stats_json,
    status_json,
    symbol_json,
    used_by_json,
    uses_json,
    vectors_json,
)
from symscope.core.limits import IntRange
from symscope.core.models import (
    FileRecord,
    IndexProgress,
    IndexReport,
    SearchHit,
    SkippedFile,
    Stats,
    Symbol,
)
from symscope.core.pathnames import escape_name, fs_path
from symscope.core.results import (
    Dependency,
    FileOutlineResult,
    FolderOutline,
    Importers,
    ImportingFile,
    LanguageInfo,
    Location,
    Outline,
    Related,
    Status,
    SymbolSource,
    UsedBy,
    Uses,
    VectorsReport,
)
from symscope.core.sanitize import for_paste, for_terminal
from symscope.core.search.query import parse_query

if TYPE_CHECKING:
    import tiktoken

    from symscope.core.bundle import BundleResult as BundleResult
    from symscope.core.index import Index as Index
    from symscope.core.secrets import Finding

__all__ = [
    "ALSO_SHOWN",
    "MAX_DEPTH",
    "MAX_PATH_CHARS",
    "MAX_QUERY_CHARS",
    "Dependency",
    "FileOutlineResult",
    "FolderOutline",
    "Importers",
    "ImportingFile",
    "IntRange",
    "Json",
    "LanguageInfo",
    "Location",
    "Outline",
    "Related",
    "Status",
    "SymbolSource",
    "UsedBy",
    "Uses",
    "VectorsReport",
    "Workspace",
    "bundle_json",
    "check_length",
    "count_tokens",
    "dependency_json",
    "describe_secrets",
    "emit",
    "encoding",
    "escape_name",
    "fence_tag",
    "for_paste",
    "for_terminal",
    "fs_path",
    "hit_json",
    "importers_json",
    "languages",
    "languages_json",
    "limits",
    "outline_json",
    "outline_node_json",
    "redact_secrets",
    "report_json",
    "search_json",
    "secret_marker",
    "semantic_available",
    "show_json",
    "stats_json",
    "status_json",
    "symbol_json",
    "used_by_json",
    "uses_json",
    "vectors_json",
    "write_private",
]

#: Longest path, glob or file argument any front end takes (PATH_MAX on Linux): a longer one
#: names no file, and resolving it costs time quadratic in its parts.
MAX_PATH_CHARS = 4096
#: Longest search query, filters included: far past any real query, and it keeps the cost
#: of ranking one (which grows faster than its length) to milliseconds.
MAX_QUERY_CHARS = 2000
#: How deep `Workspace.uses` may follow uses (each level multiplies the work).
MAX_DEPTH = limits.DEPTH.hi

#: A cancellation signal: an event a caller sets, or a function polled between files.
Cancel = threading.Event | Callable[[], bool]


def check_length(value: str, what: str, limit: int) -> None:
    """Refuse an argument longer than `limit` characters before any work is spent on it."""
    if len(value) > limit:
        raise BadQueryError(f"{what} too long: {len(value)} characters (at most {limit})")


class Workspace:
    """One repository's index, and every question a face asks of it.

    Open one with `Workspace.open` (or wrap an already open `Index`); close it when done
    (it is a context manager). Every method raises a `SymscopeError` subclass with one
    clear line for bad input, never anything else on purpose.
    """

    def __init__(self, index: Index) -> None:
        self.index = index
        """The engine behind this workspace: for the engine and for benchmarks that measure it."""

    @classmethod
    def open(
        cls,
        repo: str | os.PathLike[str],
        index_dir: str | os.PathLike[str] | None = None,
        *,
        ensure: bool = True,
        max_files: int | None = None,
        allow_any_root: bool = False,
        discard_corrupt: bool = False,
    ) -> Workspace:
        """Open a repo's index; with `ensure`, build it first if it was never built.

        `max_files` and `allow_any_root` apply to that first build (see `refresh`);
        `discard_corrupt` sets an unreadable index aside instead of raising.
        """
        # on first use: parser processes never load numpy for it
        from symscope.core.index import Index

        index = Index.open(repo, index_dir, discard_corrupt=discard_corrupt)
        if ensure and not index.is_built and not index.store.read_only:
            try:
                if max_files is None:
                    index.update(allow_any_root=allow_any_root)
                else:
                    index.update(max_files=max_files, allow_any_root=allow_any_root)
            except BaseException:
                index.close()
                raise
        return cls(index)

    @classmethod
    def of(cls, source: Workspace | Index) -> Workspace:
        """`source` if it is a workspace, else a workspace over that open index."""
        return source if isinstance(source, Workspace) else cls(source)

    def close(self) -> None:
        self.index.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- where and how fresh -----------------------------------------------------------------

    @property
    def root(self) -> Path:
        """The repository folder (resolved)."""
        return self.index.root

    @property
    def index_dir(self) -> Path:
        """The folder of this repository's index."""
        return self.index.index_dir

    @property
    def location(self) -> Location:
        """The repository and index folders as shown (names escaped)."""
        return Location(escape_name(str(self.index.root)), escape_name(str(self.index.store.path)))

    @property
    def is_built(self) -> bool:
        """True once an index run completed under this version's extractor and search settings."""
        return self.index.is_built

    def generation(self) -> int:
        """The index's change counter: every run that changes it (in any process) bumps it."""
        return self.index.generation()

    def last_indexed(self) -> int | None:
        """Unix time of the last completed index run, None if never."""
        value = self.index.store.get_meta("indexed_at")
        return int(value) if value and value.isdigit() else None

    # -- building ----------------------------------------------------------------------------

    def refresh(
        self,
        progress: Callable[[IndexProgress], None] | None = None,
        cancel: Cancel | None = None,
        *,
        rebuild: bool = False,
        max_files: int | None = None,
        max_file_bytes: int | None = None,
        allow_any_root: bool = False,
        processes: int | None = None,
    ) -> IndexReport:
        """Bring the index up to date, parsing only files whose content changed (all with `rebuild`).

        `progress` is called after each parsed file; `cancel` (an event, or a function) is
        checked between files and stops the run after committing what is done (the
        report says `cancelled`). `max_files`/`max_file_bytes` default to the engine's limits.
        """
        options: dict[str, Any] = {"rebuild": rebuild, "allow_any_root": allow_any_root}
        if max_files is not None:
            options["max_files"] = max_files
        if max_file_bytes is not None:
            options["max_file_bytes"] = max_file_bytes
        if processes is not None:
            options["processes"] = processes
        cancelled = cancel.is_set if isinstance(cancel, threading.Event) else cancel
        return self.index.update(progress, cancelled, **options)

    def recheck(self, folders: Sequence[str]) -> int:
        """Make the next refresh re-read every indexed file under these repo-relative folders
        (edits that kept size and mtime); returns how many files were marked."""
        return self.index.recheck(list(folders))

    def embed(self, force: bool = False) -> VectorsReport | None:
        """Embed the symbols whose text changed (the `semantic` extra's hybrid search), when asked
        to or when the index already has vectors; None when there is nothing to do or the extra
        is not installed."""
        from symscope.core import semantic

        index = self.index
        if not (force or (index.index_dir / semantic.VECTORS_FILE).exists()) or not semantic.available():
            return None
        report = semantic.update(index)
        return VectorsReport(report.symbols, report.embedded, report.seconds)

    # -- search and symbols ------------------------------------------------------------------

    def search(
        self,
        query: str,
        limit: int = 10,
        kind: str | None = None,
        lang: str | None = None,
        path: str | None = None,
    ) -> list[SearchHit]:
        """Rank symbols for `query`, which may carry filters (`kind:struct lang:go path:lib/* words`).

        Explicit `kind`/`lang`/`path` arguments win over the same filters in the text.

        Raises:
            BadQueryError: an empty query, a bad limit or an unknown kind or language.
        """
        limits.SEARCH_LIMIT.check("limit", limit)
        check_length(query, "query", MAX_QUERY_CHARS)
        if path is not None:
            check_length(path, "path glob", MAX_PATH_CHARS)
        parsed = parse_query(query)
        if parsed.errors:
            raise BadQueryError(parsed.errors[0])
        parsed = parsed.merged(kind, lang, path)
        if not parsed.words.strip():
            raise BadQueryError("empty query: give one or more words to search for")
        return self.index.search(parsed.words, limit=limit, kind=parsed.kind, language=parsed.language,
                                 path_glob=parsed.path)

    def symbol(self, symbol_id: str) -> Symbol:
        """The symbol with this id, or with this name (or qualified name) when only one has it.

        Raises:
            UnknownSymbolError: none has it (`nearest` ids offered), or a name names several (`candidates`).
        """
        return self.index.symbol(symbol_id)

    def source(self, symbol: Symbol | str, whole_lines: bool = False) -> str:
        """A symbol's exact source, read now (StaleSymbolError if its bytes changed since indexing)."""
        return self.index.source(symbol, whole_lines)

    def show(self, symbol_id: str) -> SymbolSource:
        """A symbol (by id or unique name) and its exact source, read now."""
        sym = self.index.symbol(symbol_id)
        return SymbolSource(sym, self.index.source(sym))

    def all_symbols(self) -> list[Symbol]:
        return self.index.all_symbols()

    def file_symbols(self, path: str) -> list[Symbol]:
        """An indexed file's symbols, in file order."""
        return self.index.file_symbols(path)

    # -- files -------------------------------------------------------------------------------

    def file(self, path: str) -> FileRecord | None:
        """An indexed file's record, None when the path is not indexed."""
        return self.index.file(path)

    def files(self) -> list[FileRecord]:
        return self.index.files()

    def skipped(self) -> list[SkippedFile]:
        """Every file the walker or parser left out, with its reason."""
        return self.index.skipped()

    def file_text(self, path: str) -> str:
        """A whole indexed file as it is on disk now (it may differ from what was indexed)."""
        return self.index.file_text(path)

    def indexed_text(self, path: str) -> str:
        """An indexed file's text as it was indexed (StaleSymbolError if it changed since)."""
        return self.index.indexed_bytes(path).decode("utf-8", "replace")

    def resolve_target(self, target: str, cwd: Path | None = None) -> str:
        """A user-given file or folder (absolute, relative to `cwd`, or to the repo) as repo-relative."""
        check_length(target, "path", MAX_PATH_CHARS)
        if "\x00" in target:
            raise BadQueryError("path contains a NUL byte")
        return self.index.relpath(target, cwd)

    def outline(self, target: str = ".", cwd: Path | None = None) -> Outline:
        """A file's nested symbols, or a folder's files with their top-level symbols.

        Raises:
            SymscopeError: the path is outside the repo, missing, or a file that was not indexed.
        """
        rel = self.resolve_target(target, cwd)
        record = self.index.file(rel) if rel else None
        if record is not None:
            return FileOutlineResult(rel, record.language, record.tokens, tuple(self.index.outline(rel)))
        if os.path.isfile(fs_path(self.index.root, rel)):
            raise SymscopeError(f"{rel} is not indexed (run `symscope index` to see why it was skipped)")
        return FolderOutline(rel or ".", tuple(self.index.repo_outline(rel)))

    # -- relations ---------------------------------------------------------------------------

    def used_by(self, symbol_id: str, limit: int = 200) -> UsedBy:
        """The symbols that use a symbol, each with the line of its first use.

        Name-based candidates, minus those whose every mention resolves (by receiver or
        import) to another symbol (the engine's dependency graph).
        """
        limits.REF_LIMIT.check("limit", limit)
        target = self.index.symbol(symbol_id)
        return UsedBy(target, tuple(self.index.deps.callers(target, limit)))

    def uses(self, symbol_id: str, depth: int = 1) -> Uses:
        """What a symbol uses, to `depth`, nearest first; the symbol itself is never listed."""
        limits.DEPTH.check("depth", depth)
        target = self.index.symbol(symbol_id)
        found = self.index.deps.closure(target, depth)
        return Uses(target, depth, tuple(Dependency(d.symbol, d.distance, d.ambiguous) for d in found))

    def related(self, symbol_id: str, limit: int = 200) -> Related:
        """A symbol's uses (one level) and the symbols that use it (at most `limit`)."""
        target = self.index.symbol(symbol_id)
        return Related(target, self.uses(target.id), self.used_by(target.id, limit))

    def importers(self, target: str, cwd: Path | None = None) -> Importers:
        """The files that import a file, folder or module, with their symbols that use it."""
        check_length(target, "target", MAX_PATH_CHARS)
        try:
            rel = self.resolve_target(target, cwd)
        except SymscopeError:
            rel = target  # a module name as written in imports (`fastapi.routing`, `./view`)
        return Importers(rel or ".", tuple(
            ImportingFile(i.path, i.module, i.line, tuple(s.id for s in i.symbols))
            for i in self.index.deps.importers(rel)
        ))

    # -- the bundle --------------------------------------------------------------------------

    def bundle(
        self,
        ids: Sequence[str] = (),
        *,
        deps: int = 0,
        budget: int | None = None,
        fmt: str = "markdown",
        diff_ref: str | None = None,
        redact: bool = True,
        deps_level: str = "signature",
    ) -> BundleResult:
        """A paste-ready bundle of symbols or files (and what they use, to `deps`), plus with
        `diff_ref` the symbols changed against that git revision and their callers' signatures.

        `tokens` is the exact cl100k_base count of its text, never over `budget`.

        Raises:
            BadQueryError: nothing to bundle, or a number out of range.
            GitError: with `diff_ref`, git is missing, no work tree, or an unknown revision.
        """
        from symscope.core.bundle import build_bundle  # tiktoken and detect-secrets load only here

        limits.BUNDLE_DEPS.check("deps", deps)
        if budget is not None:
            limits.BUDGET.check("budget", budget)
        if not ids and diff_ref is None:
            raise BadQueryError("give one or more symbol IDs or files, or --diff")
        return build_bundle(self.index, list(ids), deps=deps, budget=budget, fmt=fmt,  # type: ignore[arg-type]
                            diff_ref=diff_ref, redact=redact, deps_level=deps_level)  # type: ignore[arg-type]

    # -- figures -----------------------------------------------------------------------------

    def stats(self) -> Stats:
        """Files, symbols, tokens, languages and kinds of the index, and where it lives."""
        return self.index.stats()

    def status(self, last_indexed: int | None = None, report: IndexReport | None = None) -> Status:
        """`stats` plus freshness: when last indexed, how many files the latest refresh found
        changed (`report`), and skipped files grouped by reason."""
        reasons = Counter(s.reason.split(" (")[0] for s in self.index.skipped())
        changed = (report.parsed + report.removed) if report is not None else None
        return Status(self.index.stats(), last_indexed, changed, dict(reasons.most_common()))


# -- what needs no workspace -----------------------------------------------------------------


def languages() -> tuple[LanguageInfo, ...]:
    """Every supported language with its extensions and the kinds its query can produce."""
    from symscope.core.languages import all_languages
    from symscope.core.models import CONTAINER_KINDS, SYMBOL_KINDS

    specs = all_languages()

    def kinds_of(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        spec = specs[name]
        source = spec.query_source()
        captured = set(_DEFINITION.findall(source))
        if spec.file_symbol:
            captured.add(spec.file_symbol)
        for embedded in set(_EMBED.findall(source)) - seen - {"lang"}:  # script blocks of a Vue file
            if embedded in specs:
                captured |= kinds_of(embedded, seen | {name})
        if "@embed.lang" in source:  # `lang="ts"` picks TypeScript
            captured |= kinds_of("typescript", seen | {name}) if "typescript" not in seen else set()
        if "function" in captured and captured & CONTAINER_KINDS:
            captured.add("method")  # the extractor names a function inside a type a method
        return captured

    out = []
    for spec in sorted(specs.values(), key=lambda s: s.name):
        captured = kinds_of(spec.name)
        out.append(LanguageInfo(spec.name, tuple(spec.extensions),
                                tuple(k for k in SYMBOL_KINDS if k in captured)))
    return tuple(out)


_DEFINITION = re.compile(r"@definition\.(\w+)")
_EMBED = re.compile(r"@embed\.(\w+)")


def fence_tag(language: str) -> str:
    """The Markdown code-fence tag for a language name (`python`, `go`), empty when unknown."""
    from symscope.core.languages import language_by_name

    spec = language_by_name(language)
    return spec.fence if spec else ""


def semantic_available() -> bool:
    """True when the `semantic` extra (hybrid search) is installed."""
    from symscope.core import semantic

    return semantic.available()


def count_tokens(text: str) -> int:
    """The exact cl100k_base token count of `text` (tiktoken loads on first use)."""
    from symscope.core.tokens import count_tokens as count

    return count(text)


def encoding() -> tiktoken.Encoding:
    """The cl100k_base encoding itself, for cutting a text between tokens."""
    from symscope.core.tokens import encoding as cl100k

    return cl100k()


def redact_secrets(text: str, filename: str = "") -> tuple[str, list[Finding]]:
    """`text` with every secret replaced by its marker, and the findings (the bundles' detector)."""
    from symscope.core.secrets import redact  # detect-secrets loads on first use

    return redact(text, filename)


def secret_marker(label: str) -> str:
    """The visible text that replaces a secret of this label."""
    from symscope.core.secrets import marker

    return marker(label)


def describe_secrets(text: str, filename: str = "") -> str | None:
    """`2 likely secrets (AWS access key, ...)` when `text` holds any, else None."""
    from symscope.core.secrets import describe, find_secrets

    found = find_secrets(text, filename)
    return describe(found) if found else None


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` readable by its owner only (mode 600), replacing it atomically."""
    from symscope.core.private import write_private as write

    write(path, text)

