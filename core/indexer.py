"""`Indexer`: bring an index up to date with its repo, parsing only what changed.

Files are compared by size and mtime first, then by content hash; parsing runs
in parser processes when there is enough of it (`workers.py`), and rows are
written in batches, one transaction each, as results arrive. An interrupted run
(cancelled, killed, an exception) leaves every committed file searchable and the
index consistent: a rebuild replaces files one at a time instead of emptying first.

An interrupted run resumes: the next one parses only the files not yet committed.
A run under new settings (a new extractor, tokenizer or term lever), the first one
included, records its fingerprint as partial (`PARTIAL` + it) and marks every older
file `REPARSE_MTIME` before it starts, so the run after an interruption re-parses
exactly those; the fingerprint is whole once a run completes.

`Indexer.update_paths` is the same run over named paths only (what a file watcher saw
change): it stats, hashes and parses just those, so its cost grows with the change.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Generator, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from symscope.core.languages import extractor_fingerprint
from symscope.core.models import FileRecord, FileResult, IndexProgress, IndexReport, SkippedFile
from symscope.core.pathnames import escape_name
from symscope.core.settings import index_fingerprint
from symscope.core.store import Store

if TYPE_CHECKING:
    from symscope.core.walk import SourceFile
    from symscope.core.workers import ParserPool

#: Default limits (mirror walk.MAX_FILE_BYTES and walk.MAX_FILES: walk is imported only to index).
MAX_FILE_BYTES = 1_000_000
MAX_FILES = 200_000
#: Files to parse before a process pool pays for itself.
POOL_THRESHOLD = 48
#: Indexed files from which an update starts one parser process at the first changed file the
#: walk finds, to load the parser and tokenizer (~0.3 s) while the walk goes on (~0.4 s at
#: 50,000 files); on a smaller repo the walk is too short for the process to pay for itself.
HEAD_START_FILES = 20_000
#: Parsed files per write transaction.
WRITE_BATCH = 200
#: Seconds at most between write transactions (big files: a batch is also cut by time).
WRITE_SECONDS = 2.0
#: Before the fingerprint of an index being built under it (see the module's docstring).
PARTIAL = "partial:"
#: The mtime a file is marked with when a run under new settings starts: it must be re-parsed,
#: even if its content is unchanged (`recheck`'s -1 only asks to re-read and re-hash it).
REPARSE_MTIME = -2


class TermSync(Protocol):
    """What an index run keeps in step at its end: `Searcher` or its `TermIndex`."""

    def sync(self, progress: Callable[[int, int], None] | None = None,
             cancelled: Callable[[], bool] | None = None) -> int: ...

    def reset(self) -> None: ...


def own_term_index(index_dir: Path, store: Store) -> TermSync:
    """A term index for a run whose process has no searcher in use (a searcher in use is
    synced itself, so it reloads): a one-file refresh never imports the ranker."""
    from symscope.core.search.termindex import TermIndex

    return TermIndex(index_dir, store)


class BatchWriter:
    """Collects parsed files and mtime-only touches; writes them in one transaction per batch."""

    def __init__(self, store: Store, size: int = WRITE_BATCH, keep_committed: bool = False) -> None:
        self.store = store
        self.size = size
        self.keep_committed = keep_committed
        self.committed: list[FileRecord] = []
        """With `keep_committed`: the files written since the caller last took them (`take_committed`)."""
        self.results: list[FileResult] = []
        self.touches: list[tuple[str, int]] = []
        self.flushed = time.monotonic()
        self.changed = False
        """True once any file's rows were replaced or removed."""

    def add(self, result: FileResult) -> None:
        self.results.append(result)
        if len(self.results) >= self.size or time.monotonic() - self.flushed >= WRITE_SECONDS:
            self.flush()

    def touch(self, path: str, mtime_ns: int) -> None:
        """Record a new mtime for a file whose content did not change."""
        self.touches.append((path, mtime_ns))

    def flush(self) -> None:
        if not self.results and not self.touches:
            return
        with self.store.transaction() as conn:
            for res in self.results:
                if res.record is None:
                    Store.remove_file(conn, res.path)
                else:
                    Store.replace_file(conn, res.record, res.mtime_ns, res.has_errors,
                                       res.symbols, res.extras, res.imports, res.exports)
            for path, mtime in self.touches:
                Store.touch_file(conn, path, mtime)
            if self.results:
                self.changed = True
                Store.set_meta(conn, "generation", str(self.store.generation() + 1))
        if self.keep_committed:
            self.committed.extend(res.record for res in self.results if res.record is not None)
        self.results.clear()
        self.touches.clear()
        self.flushed = time.monotonic()

    def take_committed(self) -> tuple[FileRecord, ...]:
        """The files written since the last call (a face shows them before the run ends)."""
        taken = tuple(self.committed)
        self.committed.clear()
        return taken


class Indexer:
    """Updates one repo's store and its search data; `Index.update` is the way in."""

    def __init__(self, root: Path, store: Store, searcher: TermSync | None = None) -> None:
        self.root = root
        self.store = store
        self.searcher = searcher
        """Synced at the end of a run (None: the caller does it)."""

    def update(
        self,
        progress: Callable[[IndexProgress], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        processes: int | None = None,
        max_file_bytes: int = MAX_FILE_BYTES,
        rebuild: bool = False,
        max_files: int | None = MAX_FILES,
        allow_any_root: bool = False,
    ) -> IndexReport:
        """Index what changed, then bring the term index up to it.

        The report's `seconds` are the whole job's: walking, parsing, writing and
        writing the changed files' documents into the term index.
        """
        from symscope.core.walk import check_root, walk  # only indexing needs pathspec

        started = time.perf_counter()
        check_root(self.root, allow=allow_any_root)
        self.store.check_writable()  # a read-only index fails here, before any work
        if rebuild:
            self.store.repair_schema()
            if self.searcher is not None:
                self.searcher.reset()  # written again from every file's new rows
        fingerprint = index_fingerprint(extractor_fingerprint())
        if self.store.get_meta("fingerprint") != fingerprint and not self._resuming(fingerprint):
            rebuild = True  # queries, tokenizer or term settings changed since this index was built
            self._start_building(fingerprint)
        known = self.store.file_stats()
        workers = processes if processes is not None else (os.cpu_count() or 1)
        early = None
        if workers > 1 and (rebuild or not known):  # every file will be parsed
            from symscope.core.workers import EarlyPool

            early = EarlyPool(workers, POOL_THRESHOLD)
        elif workers > 1 and len(known) >= HEAD_START_FILES:  # a long walk, a few files to parse
            from symscope.core.workers import EarlyPool

            early = EarlyPool(1, 1, known)
        try:
            if progress is not None:
                progress(IndexProgress(0, 0, "", "walk"))
            # unchanged files come back as paths only (a refresh of a big repo finds nearly all so)
            found = walk(self.root, max_file_bytes, on_file=early.on_file if early else None,
                         max_files=max_files, on_progress=_walked(progress),
                         known=None if rebuild else known)
            if progress is not None:
                last = found.files[-1].path if found.files else found.unchanged[-1] if found.unchanged else ""
                progress(IndexProgress(found.found, 0, last, "walk"))
            to_parse = found.files
            seen = {*found.unchanged, *(f.path for f in found.files)}
            run = _Run(self.store, known, rebuild, list(found.skipped), [p for p in known if p not in seen],
                       keep_committed=progress is not None)
            run.unchanged = len(found.unchanged)
            results = self._parse_all(to_parse, workers, early.pool if early else None, cancelled)
            run.consume(results, len(to_parse), progress, cancelled)
        finally:
            if early is not None:
                early.close()
        run.finish(fingerprint, escape_name(str(self.root)))  # SQLite refuses undecodable bytes
        if self.searcher is not None and not run.cancelled:
            # now, so the next search starts fast: the term index re-reads the files this run
            # changed (a cancelled run stops here: its caller asked it to stop, and the next
            # search writes what was committed)
            if progress is not None and run.changed:
                progress(IndexProgress(0, 1, "", "rank"))
            self.searcher.sync(cancelled=cancelled)
            if progress is not None and run.changed:
                progress(IndexProgress(1, 1, "", "rank"))
        files, symbols, _, _ = self.store.counts()
        report = IndexReport(
            files=files,
            symbols=symbols,
            parsed=run.parsed,
            unchanged=run.unchanged,
            removed=len(set(run.removed)),
            skipped=sorted(run.skipped, key=lambda s: s.path),
            seconds=time.perf_counter() - started,
            cancelled=run.cancelled,
        )
        return report

    def update_paths(
        self,
        paths: Iterable[str],
        progress: Callable[[IndexProgress], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        processes: int | None = None,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_files: int | None = MAX_FILES,
        allow_any_root: bool = False,
    ) -> IndexReport:
        """Bring just these repo-relative paths (escaped; a folder means its files) up to date.

        Each path is judged as the whole walk would (`walk(only=...)`): a new file obeys the
        .gitignore files above it and the size and content limits, a path now missing (or
        newly ignored) is removed, and the skipped files under the paths are replaced by
        what this run found. A changed `.gitignore` re-checks its whole folder. Only the
        rows of these paths are read: the cost grows with the paths, not with the repo.

        An index never completed under these settings, or the root among the paths, gets
        the whole run instead (`update`, where `max_files` and `allow_any_root` apply).
        """
        from symscope.core.walk import walk  # only indexing needs pathspec

        started = time.perf_counter()
        scopes = _scopes(paths)
        fingerprint = index_fingerprint(extractor_fingerprint())
        if "" in scopes or self.store.get_meta("fingerprint") != fingerprint \
                or self.store.get_meta("indexed_at") is None:
            return self.update(progress, cancelled, processes, max_file_bytes, False, max_files, allow_any_root)
        if not scopes:
            files, symbols, _, _ = self.store.counts()
            return IndexReport(files, symbols, 0, 0, 0, [], time.perf_counter() - started)
        self.store.check_writable()
        known = self._known_under(scopes)
        found = walk(self.root, max_file_bytes, max_files=None, only=scopes)
        to_parse = [f for f in found.files
                    if (old := known.get(f.path)) is None or old[0] != f.size or old[1] != f.mtime_ns]
        seen = {f.path for f in found.files}
        run = _Run(self.store, known, False, list(found.skipped), [p for p in known if p not in seen])
        run.unchanged = len(found.files) - len(to_parse)
        workers = processes if processes is not None else (os.cpu_count() or 1)
        run.consume(self._parse_all(to_parse, workers, None, cancelled), len(to_parse), progress, cancelled)
        run.finish_scoped(scopes)
        if self.searcher is not None and not run.cancelled:
            self.searcher.sync(cancelled=cancelled)  # the changed files' documents only
        files, symbols, _, _ = self.store.counts()
        return IndexReport(files=files, symbols=symbols, parsed=run.parsed, unchanged=run.unchanged,
                           removed=len(set(run.removed)), skipped=sorted(run.skipped, key=lambda s: s.path),
                           seconds=time.perf_counter() - started, cancelled=run.cancelled)

    def _known_under(self, scopes: list[str]) -> dict[str, tuple[int, int, str]]:
        """The stats of the indexed files at or under each scope (primary-key range reads)."""
        known: dict[str, tuple[int, int, str]] = {}
        for scope in scopes:
            for path, size, mtime, digest in self.store.query(
                    "SELECT path, size, mtime_ns, hash FROM files WHERE path=? OR (path>=? AND path<?)",
                    (scope, scope + "/", scope + "0")):  # "0" sorts right after "/"
                known[path] = (size, mtime, digest)
        return known

    def _resuming(self, fingerprint: str) -> bool:
        """True when an interrupted run under these settings is to be finished: every file
        it has not re-parsed yet is marked `REPARSE_MTIME`, the others are current."""
        return self.store.get_meta("fingerprint") == PARTIAL + fingerprint

    def _start_building(self, fingerprint: str) -> None:
        """Record that the index is being built under `fingerprint`, every file it holds to be
        re-parsed: an interrupted run is then resumed by the next (see `_resuming`).

        The partial fingerprint keeps the terms part last, so a search under other settings
        still refuses these terms (`Searcher._check_terms`), and `Index.is_built` stays False.
        """
        with self.store.transaction() as conn:
            for path in self.store.file_stats():
                Store.touch_file(conn, path, REPARSE_MTIME)
            Store.set_meta(conn, "fingerprint", PARTIAL + fingerprint)

    def _parse_all(
        self,
        files: list[SourceFile],
        workers: int,
        pool: ParserPool | None,
        cancelled: Callable[[], bool] | None,
    ) -> Generator[FileResult, None, None]:
        """Parse files in `pool` (or a new one, when there are enough), else in this process
        (which then never imports the pool's machinery: multiprocessing alone is ~0.1 s).
        Nothing to parse imports nothing: a refresh that found no change stays a walk."""
        if not files:
            return
        many = workers > 1 and len(files) >= POOL_THRESHOLD
        if many and pool is not None and pool.workers < workers:
            pool = None  # a one-process head start (`HEAD_START_FILES`) is too few for this many
        if many or pool is not None:
            own: ParserPool | None = None
            done: set[str] = set()
            try:
                if pool is None:
                    from symscope.core.workers import ParserPool

                    pool = own = ParserPool(workers)
                for result in pool.parse(files, cancelled):
                    done.add(result.path)
                    yield result
                return
            except (OSError, ValueError, RuntimeError) as exc:  # no processes here: parse inline
                import logging

                logging.getLogger(__name__).debug("parser pool unavailable (%s); parsing inline", exc)
                files = [f for f in files if f.path not in done]
            finally:
                if own is not None:
                    own.close()
        # Parsing pulls in tree-sitter and tiktoken: searches, and a parent whose
        # workers parse, never pay for that import.
        from symscope.core.ingest import ingest

        for f in files:
            if cancelled is not None and cancelled():
                return
            yield ingest(f.path, f.abspath, f.mtime_ns, f.language.name, root=str(self.root))


class _Run:
    """The bookkeeping of one index run: what was parsed, kept, removed and skipped."""

    def __init__(
        self,
        store: Store,
        known: dict[str, tuple[int, int, str]],
        rebuild: bool,
        skipped: list[SkippedFile],
        removed: list[str],
        keep_committed: bool = False,
    ) -> None:
        self.store = store
        self.known = known
        self.rebuild = rebuild
        self.skipped = skipped
        self.removed = removed
        self.parsed = 0
        self.unchanged = 0
        self.cancelled = False
        self.writer = BatchWriter(store, keep_committed=keep_committed)

    @property
    def changed(self) -> bool:
        return self.writer.changed or bool(self.removed)

    def consume(
        self,
        results: Generator[FileResult, None, None],
        total: int,
        progress: Callable[[IndexProgress], None] | None,
        cancelled: Callable[[], bool] | None,
    ) -> None:
        """Store each parsed file as it arrives (in batches), reporting progress and, with it,
        each batch's files once they are committed."""
        done = 0
        path = ""
        try:
            with contextlib.closing(results) as parsed_files:
                for done, res in enumerate(parsed_files, start=1):
                    self._take(res)
                    path = res.path
                    if progress is not None:
                        progress(IndexProgress(done, total, path, "parse", self.writer.take_committed()))
                    if cancelled is not None and cancelled():
                        self.cancelled = True
                        break
        except BaseException:
            with contextlib.suppress(Exception):  # keep what was parsed: the next run resumes after it
                self.writer.flush()
            raise
        if done < total:
            self.cancelled = True  # the parser stopped early because `cancelled` said so
        self.writer.flush()
        if progress is not None and self.writer.committed:  # the last batch
            progress(IndexProgress(done, total, path, "parse", self.writer.take_committed()))

    def _take(self, res: FileResult) -> None:
        old = self.known.get(res.path)
        if res.record is None:
            self.skipped.append(SkippedFile(res.path, res.skip_reason or "skipped"))
            if old is not None:
                self.writer.add(res)
                self.removed.append(res.path)
        elif not self.rebuild and old is not None and old[2] == res.record.hash and old[1] != REPARSE_MTIME:
            self.writer.touch(res.path, res.mtime_ns)
            self.unchanged += 1
        else:
            self.writer.add(res)
            self.parsed += 1

    def finish(self, fingerprint: str, root: str) -> None:
        """Drop removed files and record the run, unless it was cancelled midway.

        A run that changed nothing writes nothing: checking an up-to-date index
        (the MCP server does before every answer) stays a read, and `indexed_at`
        keeps saying when the index last changed.
        """
        if not self.changed and (self.cancelled or (
            self.store.get_meta("fingerprint") == fingerprint
            and self.store.get_meta("root") == root
            and self.store.get_meta("indexed_at") is not None
            and sorted(self.store.skipped(), key=lambda s: s.path) == sorted(self.skipped, key=lambda s: s.path)
        )):
            return
        with self.store.transaction() as conn:
            if not self.cancelled:
                for path in self.removed:
                    Store.remove_file(conn, path)
                Store.replace_skipped(conn, self.skipped)
                Store.set_meta(conn, "indexed_at", f"{time.time():.0f}")
                Store.set_meta(conn, "fingerprint", fingerprint)
                Store.set_meta(conn, "root", root)
            if self.changed:
                Store.set_meta(conn, "generation", str(self.store.generation() + 1))

    def finish_scoped(self, scopes: list[str]) -> None:
        """`finish` for a run over `scopes` only: drop its removed files and replace the skipped
        rows under the scopes (the others stand); nothing is written when nothing changed."""
        bounds = [(s, s + "/", s + "0") for s in scopes]
        where = "path=? OR (path>=? AND path<?)"  # the folder's own row is `scope/`
        old = {SkippedFile(p, r) for b in bounds
               for p, r in self.store.query(f"SELECT path, reason FROM skipped WHERE {where}", b)}
        if self.cancelled or (not self.changed and old == set(self.skipped)):
            return
        with self.store.transaction() as conn:
            for path in self.removed:
                Store.remove_file(conn, path)
            for b in bounds:
                conn.execute(f"DELETE FROM skipped WHERE {where}", b)
            conn.executemany("INSERT OR REPLACE INTO skipped(path, reason) VALUES (?, ?)",
                             [(s.path, s.reason) for s in self.skipped])
            if self.changed:
                Store.set_meta(conn, "indexed_at", f"{time.time():.0f}")
                Store.set_meta(conn, "generation", str(self.store.generation() + 1))


def _scopes(paths: Iterable[str]) -> list[str]:
    """The paths to re-check, each once: `/`s trimmed, a `.gitignore` as its folder (its rules
    decide the whole folder), none inside another one given ("" is the root: everything)."""
    wanted: set[str] = set()
    for path in paths:
        path = path.strip("/")
        folder, _, name = path.rpartition("/")
        wanted.add(folder if name == ".gitignore" else path)
    if "" in wanted:
        return [""]
    return sorted(p for p in wanted  # checked against each folder above it: linear in the paths
                  if not any(p[:i] in wanted for i in range(len(p)) if p[i] == "/"))



def _walked(progress: Callable[[IndexProgress], None] | None) -> Callable[[int, str], None] | None:
    """The walk's progress (files found so far) as `IndexProgress` posts."""
    if progress is None:
        return None

    def post(found: int, path: str) -> None:
        progress(IndexProgress(found, 0, path, "walk"))

    return post
