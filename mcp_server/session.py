"""The session: one index, kept fresh by a file watcher, and the running call's cancel flag."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from symscope.core import api
from symscope.core.api import RepoWatcher, Workspace, escape_name, fs_path
from symscope.core.errors import (
    BadQueryError,
    IndexAccessError,
    NotARepoError,
    StaleSymbolError,
    SymscopeError,
    UnknownSymbolError,
)
from symscope.core.models import IndexProgress, IndexReport, Symbol
from symscope.mcp_server.formatting import _echo, _echo_words

log = logging.getLogger("symscope.mcp")

_CANCEL: ContextVar[threading.Event | None] = ContextVar("symscope_cancel", default=None)
"""The running tool call's cancel flag, set by `SymscopeServer.call_tool` (the SDK runs each
tool in a worker thread with a copy of the caller's context, so the thread sees it)."""


def cancelled() -> bool:
    """True once the current tool call was cancelled or its client went away."""
    flag = _CANCEL.get()
    return flag is not None and flag.is_set()


# -- the session: one index, kept fresh between answers ------------------------------------------


class Session:
    """The index as the tools see it: one call at a time, fresh for each answer.

    Freshness without walking: `watch` starts a `RepoWatcher` with the server, and the
    paths it reports are queued and re-indexed in the background (`Workspace.refresh(paths=...)`,
    in a thread that takes `lock`, so there is one writer); a call re-indexes only what is
    still queued when it starts (`catch_up`). Without a watcher (`SYMSCOPE_WATCH=off`, or
    before `watch`), or while it cannot vouch for the queue, a call checks the whole repo as
    before (a walk that stats every file).

    The race: an agent writes a file, then calls at once, and the event may not have been
    handed on yet. So a call first asks the watcher to `sync`: it creates a marker file in the
    index folder and waits for that marker's event; events are read in order, so by then every
    change made before the call is queued. The wait is bounded (`watch.SYNC_TIMEOUT`, 1 s) and
    measured (`sync_ms`: two `watch.STEP_MS` steps, about 10 ms); past the bound, the call walks.
    When polling (events unavailable), changes arrive within a poll (`watch.POLL_MS`) and a call
    does not wait for them.
    """

    def __init__(self, workspace: Workspace, update_options: dict[str, Any] | None = None) -> None:
        self.ws = workspace
        self.update_options = update_options or {}
        """Passed to every `Workspace.refresh` (`max_files`, `allow_any_root`)."""
        self.lock = threading.Lock()
        self.shown: dict[str, tuple[int, int]] = {}
        """Every id handed to the agent, with the lines it was shown at."""
        self.note: str | None = None
        """Why the last refresh failed, if it did (then answers come from the index as it was)."""
        self.progress: Callable[[IndexProgress], None] | None = None
        """Hears of each file a refresh parses, for the running call (see `reporting`)."""
        self.watcher: RepoWatcher | None = None
        """Reports changed paths while the server runs (None: each call walks the repo)."""
        self.sync_ms: float | None = None
        """How long the last call waited for the watcher to vouch for the queue."""
        self.walks = 0
        """Whole-repo checks made for calls (a watched session makes none once built)."""
        self._pending: set[str] = set()
        self._pending_lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._applier: threading.Thread | None = None

    # -- watching -----------------------------------------------------------------------------

    def watch(self, mode: str | None = None, wait: bool = False) -> RepoWatcher | None:
        """Start the watcher and the background re-indexer (None when `mode` or `SYMSCOPE_WATCH`
        is `off`); `wait` returns once the watch is in place (for tests and benchmarks)."""
        watcher = RepoWatcher(self.ws.root, self._queue, self.ws.index_dir, mode=mode)
        if watcher.mode == "off":
            return None
        self.watcher = watcher
        self._applier = threading.Thread(target=self._apply_queued, name="symscope-reindex", daemon=True)
        self._applier.start()
        watcher.start(wait=wait)
        log.info("watching %s for changes (%s)", escape_name(str(self.ws.root)), watcher.mode)
        return watcher

    def close(self) -> None:
        """Stop watching (the server is ending)."""
        self._closed.set()
        self._wake.set()
        if self.watcher is not None:
            self.watcher.stop()
        if self._applier is not None:
            self._applier.join(5)

    def _queue(self, paths: list[str]) -> None:
        """The watcher's callback (its thread): queue the paths and wake the re-indexer."""
        with self._pending_lock:
            self._pending.update(paths)
        self._wake.set()

    def _apply_queued(self) -> None:
        """The re-indexer thread: apply queued paths as they arrive, one writer (`lock`)."""
        while not self._closed.is_set():
            self._wake.wait()
            self._wake.clear()
            if self._closed.is_set():
                return
            with self.lock:
                try:
                    self._apply(None, self._closed.is_set)
                except Exception as exc:  # logged, never fatal: the next call checks again
                    log.warning("re-indexing changed files failed (%s)", _echo(str(exc), 100))

    def _apply(self, progress: Callable[[IndexProgress], None] | None,
               cancel: Callable[[], bool]) -> IndexReport | None:
        """Re-index the queued paths (hold `lock`); None when none are queued or the index was
        never built (the first call builds it whole)."""
        if not self.ws.is_built:
            return None
        with self._pending_lock:
            paths, self._pending = sorted(self._pending), set()
        if not paths:
            return None
        report = None
        try:
            report = self._refreshed(lambda: self.ws.refresh(progress, cancel=cancel, paths=paths,
                                                             **self.update_options))
        finally:
            if report is None or report.cancelled:  # not applied (or not all): the next try has them
                self._queue_again(paths)
        return report

    def _queue_again(self, paths: list[str]) -> None:
        with self._pending_lock:
            self._pending.update(paths)

    def watching(self) -> str:
        """How changes are noticed, in a few words (for `index_status`)."""
        watcher = self.watcher
        if watcher is None or watcher.mode == "off":
            return "off (each call checks the whole repo)"
        if not watcher.ready:
            return f"{watcher.mode}, starting (calls check the whole repo until it is in place)"
        if watcher.mode == "poll":
            return f"polling every {watcher.poll_ms} ms (file events unavailable)"
        return "file events"

    # -- freshness per call ---------------------------------------------------------------

    def catch_up(self) -> IndexReport | None:
        """Make the index hold every change made before this call (hold `lock`): the queued
        paths when the watcher vouches for the queue (see the class), else the whole-repo check."""
        watcher = self.watcher
        if watcher is None or not watcher.ready or not self.ws.is_built:
            return self.refresh()  # not watching, or not yet in place: check everything
        if watcher.mode == "events":
            started = time.perf_counter()
            synced = watcher.sync()
            self.sync_ms = (time.perf_counter() - started) * 1000
            if not synced:
                log.info("the watcher did not answer in time; checking the whole repo")
                return self.refresh()
        return self._apply(self.progress, cancelled)

    def refresh(self) -> IndexReport | None:
        """Re-index files changed since the last index, checking the whole repo (a stat of each file).

        `progress` hears of each parsed file: the first call on a repo never indexed builds
        the whole index here, and its caller is told how far it got (`tools.Progress`).
        """
        with self._pending_lock:
            self._pending.clear()  # the walk sees them all
        self.walks += 1
        return self._refreshed(lambda: self.ws.refresh(self.progress, cancel=cancelled, **self.update_options))

    def _refreshed(self, run: Callable[[], IndexReport]) -> IndexReport | None:
        """`run`'s report; a read-only or busy index answers from what it holds (with a note)."""
        try:
            report = run()
        except IndexAccessError as exc:  # read-only or busy: answer from what is indexed
            if not self.ws.is_built:
                raise
            self.note = f"index not refreshed ({exc}); results may be stale"
            log.warning("%s", self.note)
            return None
        self.note = None
        if report.parsed or report.removed:
            log.info("re-indexed %d changed and %d removed files in %.2f s",
                     report.parsed, report.removed, report.seconds)
        return report

    @contextlib.contextmanager
    def fresh(self, progress: Callable[[IndexProgress], None] | None = None) -> Iterator[Workspace]:
        """The up-to-date workspace, held for one answer; engine errors become one-line tool errors.

        `progress` hears of the refresh's parsed files (it becomes `self.progress` for the call).
        """
        with self.lock, self.reporting(progress):
            try:
                self.catch_up()
                yield self.ws
            except SymscopeError as exc:
                raise ToolError(self.explain(exc)) from None

    @contextlib.contextmanager
    def reporting(self, progress: Callable[[IndexProgress], None] | None) -> Iterator[None]:
        """`progress` hears of the refreshes of one call (hold `lock`)."""
        self.progress = progress
        try:
            yield
        finally:
            self.progress = None

    def remember(self, symbols: Iterable[Symbol]) -> None:
        """Note ids handed to the agent and the lines they were shown at."""
        for sym in symbols:
            self.shown[sym.id] = (sym.start_line, sym.end_line)

    def symbol(self, symbol_id: str) -> Symbol:
        """The symbol with this id now, or a tool error saying what to call instead."""
        try:
            return self.ws.symbol(symbol_id)
        except UnknownSymbolError as exc:
            raise ToolError(self.unknown(symbol_id, exc)) from None

    def unknown(self, symbol_id: str, exc: UnknownSymbolError | None = None) -> str:
        """Why an id (or a name given for one) finds nothing, and what to call instead.

        `exc` is the engine's answer: the ids a name of several symbols names, or the ids
        nearest an unknown one (the same ids every face offers).
        """
        shown = _echo(symbol_id)
        if symbol_id in self.shown:
            return (f"{shown} no longer exists: its file changed since you got this id "
                    "(renamed, moved or deleted); call search_symbols again")
        if exc is not None and exc.candidates:
            return f"{_echo_words(str(exc), 900)}; call again with one of them"
        nearest = exc.nearest if exc is not None else ()
        offer = f"; nearest: {_echo_words(', '.join(nearest), 600)}" if nearest else ""
        path = symbol_id.split("::", 1)[0]
        if "::" in symbol_id and self.ws.file(path) is not None:
            return f"unknown symbol id {shown}{offer}; call get_outline on {_echo(path)} for its ids"
        return (f"unknown symbol id {shown}{offer}; ids look like path::qualname#kind, "
                "call search_symbols to find one")

    def explain(self, exc: SymscopeError) -> str:
        """One line: what went wrong and what to call instead."""
        text = _echo_words(str(exc))
        if isinstance(exc, BadQueryError):
            return f"{text}; call search_symbols with other words or filters"
        if isinstance(exc, StaleSymbolError):
            return f"{text}; call search_symbols again for current ids"
        if isinstance(exc, NotARepoError):
            return f"{text}; paths are relative to the repo root (get_outline '.' lists it)"
        return text

    def path(self, given: str) -> str:
        """A user-given path as repo-relative, or a tool error if outside the repo or missing.

        What cannot name a file (a NUL byte, longer than PATH_MAX) is refused before the file
        system sees it, and containment is one linear `is_relative_to`, not a scan of every
        parent (quadratic in the number of parts).
        """
        root = self.ws.root
        hint = "give a path relative to the repo root (get_outline '.' lists it)"
        if "\x00" in given:
            raise ToolError(f"path {_echo(given)} contains a NUL byte; {hint}")
        if len(given) > api.MAX_PATH_CHARS:
            raise ToolError(f"path too long: {len(given)} characters (at most {api.MAX_PATH_CHARS}); {hint}")
        try:
            raw = Path(given.strip() or ".").expanduser()
        except RuntimeError:  # `~name` of no user: a literal name
            raw = Path(given.strip())
        target = raw if raw.is_absolute() else root / raw
        shown = fs_path(root, given.strip()) if not raw.is_absolute() and given.strip() else ""
        if shown and os.path.exists(shown):  # as the index shows it: names escaped (core/pathnames.py)
            target = Path(shown)
        try:
            resolved = target.resolve()
        except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, say
            raise ToolError(f"cannot resolve {_echo(given)} ({_echo(str(exc), 60)}); {hint}") from None
        if not resolved.is_relative_to(root):
            raise ToolError(f"{_echo(given)} is outside the repository; {hint}")
        try:
            exists = resolved.exists()
        except (OSError, ValueError):  # a name too long for the file system
            exists = False
        if not exists:
            raise ToolError(f"no file or folder {_echo(given)} in the repository; "
                            "call get_outline '.' or search_symbols")
        rel = resolved.relative_to(root).as_posix()
        return "" if rel == "." else escape_name(rel)
