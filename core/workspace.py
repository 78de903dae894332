"""`Workspace`: one repository's index, and every question a face asks of it, in typed values.

Faces reach it through `symscope.core.api` (which re-exports it with the value types);
each method is thin and delegates to one engine function, so the same question gets
the same answer in the CLI, the MCP server, the TUI and the benchmarks. Heavy
modules (the index, the bundle, the dependency graph) load inside the methods, so
importing the API stays fast for `symscope search`.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from symscope.core import limits
from symscope.core.errors import BadQueryError, SymscopeError
from symscope.core.models import (
    FileRecord,
    IndexProgress,
    IndexReport,
    OutlineNode,
    Savings,
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
    Location,
    Outline,
    Related,
    Status,
    SymbolSource,
    UsedBy,
    Uses,
    VectorsReport,
)
from symscope.core.search.query import ParsedQuery, parse_query

if TYPE_CHECKING:
    from symscope.core.bundle import Bundle, BundleItem, BundleResult, Format, ResolvedItem
    from symscope.core.index import Index
    from symscope.core.related import DepsPlan, RelatedRows

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
        paths: Iterable[str] | None = None,
    ) -> IndexReport:
        """Bring the index up to date, parsing only files whose content changed (all with `rebuild`).

        `progress` hears each phase (`IndexProgress.phase`: walk, parse, rank) and each committed
        batch; `cancel` (an event, or a function) is checked between files and stops the run after
        committing what is done (the report says `cancelled`). `max_files`/`max_file_bytes`
        default to the engine's limits.

        `paths` (repo-relative, as the index names them; a folder means its files) re-checks
        only those, without walking the repo: what a file watcher saw change (`core.watch`).
        A new file obeys the same .gitignore rules and limits as in the walk, a missing one is
        removed, skipped ones are reported. An index never completed (or `rebuild`) gets the
        whole run instead.
        """
        cancelled = cancel.is_set if isinstance(cancel, threading.Event) else cancel
        if paths is not None and not rebuild:
            from symscope.core.indexer import MAX_FILE_BYTES, MAX_FILES, Indexer

            index = self.index
            limits.MAX_FILE_BYTES.check("max_file_bytes", max_file_bytes or MAX_FILE_BYTES)
            if processes is not None:
                limits.PROCESSES.check("processes", processes)
            return Indexer(index.root, index.store, index.searcher).update_paths(
                paths, progress, cancelled, processes, max_file_bytes or MAX_FILE_BYTES,
                max_files if max_files is not None else MAX_FILES, allow_any_root)
        options: dict[str, Any] = {"rebuild": rebuild, "allow_any_root": allow_any_root}
        if max_files is not None:
            options["max_files"] = max_files
        if max_file_bytes is not None:
            options["max_file_bytes"] = max_file_bytes
        if processes is not None:
            options["processes"] = processes
        return self.index.update(progress=progress, cancelled=cancelled, **options)

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

    def search_parsed(self, parsed: ParsedQuery, limit: int = 10) -> list[SearchHit]:
        """Rank symbols for a query a face parsed already (the search box, which shows filter
        errors itself as the user types): its words under its valid filters, errors not raised."""
        limits.SEARCH_LIMIT.check("limit", limit)
        return self.index.search(parsed.words, limit=limit, kind=parsed.kind, language=parsed.language,
                                 path_glob=parsed.path)

    def prepare_search(self) -> None:
        """Open and sync the term index, so the first query need not (call it off a UI thread);
        nothing while the index was never built."""
        if self.index.is_built:
            self.index.searcher.prepare()

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

    def file_outline(self, path: str) -> list[OutlineNode]:
        """An indexed file's symbols as a tree (class -> methods), by its repo-relative path."""
        return self.index.outline(path)

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

    def related_rows(self, symbol: Symbol | str, caller_limit: int | None = None) -> RelatedRows:
        """The Related pane's rows: a symbol's uses (in order of first use) and callers (by path),
        a graph that cannot be read reported in `RelatedRows.error`."""
        from symscope.core.related import CALLER_LIMIT, related

        return related(self.index, symbol, CALLER_LIMIT if caller_limit is None else caller_limit)

    def plan_deps(self, symbol: Symbol, in_bundle: Collection[str], depth: int | None = None) -> DepsPlan:
        """What adding `symbol` with its dependencies (to `depth`) would add to a bundle holding
        the item keys `in_bundle`: shown and confirmed before anything is added."""
        from symscope.core.related import DEPS_DEPTH, plan_with_deps

        return plan_with_deps(self.index, symbol, in_bundle, DEPS_DEPTH if depth is None else depth)

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

    def bundle_path(self) -> Path:
        """Where the bundle of this repository is persisted (beside the index)."""
        from symscope.core.bundle import bundle_path

        return bundle_path(self.index)

    def resolve_item(self, item: BundleItem) -> ResolvedItem:
        """Look one bundle item up in the index and read its current code."""
        from symscope.core.bundle import resolve_item

        return resolve_item(self.index, item)

    def render_bundle(self, bundle: Bundle, *, fmt: Format | None = None,
                      resolved: Sequence[ResolvedItem] | None = None,
                      cancelled: Callable[[], bool] | None = None) -> BundleResult:
        """A bundle model's text, exactly as every face copies, saves or prints it, and its exact
        count (the one render call; `resolved` reuses items looked up already)."""
        from symscope.core.bundle import render_bundle

        return render_bundle(self.index, bundle, fmt=fmt, resolved=resolved, cancelled=cancelled)

    def bundle_savings(self, resolved: Sequence[ResolvedItem]) -> Savings:
        """Token totals of a bundle's usable items against their whole files and the repo."""
        from symscope.core.bundle import savings

        return savings(list(resolved), self.index)

    # -- figures -----------------------------------------------------------------------------

    def stats(self) -> Stats:
        """Files, symbols, tokens, languages and kinds of the index, and where it lives."""
        return self.index.stats()

    def savings(self, symbols: Sequence[Symbol]) -> Savings:
        """Tokens of these symbols against their whole files and against the repo."""
        return self.index.savings(list(symbols))

    def repo_tokens(self) -> int:
        """Tokens of every indexed file."""
        return self.index.repo_tokens()

    def status(self, last_indexed: int | None = None, report: IndexReport | None = None) -> Status:
        """`stats` plus freshness: when last indexed, how many files the latest refresh found
        changed (`report`), and skipped files grouped by reason."""
        reasons = Counter(s.reason.split(" (")[0] for s in self.index.skipped())
        changed = (report.parsed + report.removed) if report is not None else None
        return Status(self.index.stats(), last_indexed, changed, dict(reasons.most_common()))


