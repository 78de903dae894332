"""`RepoWatcher`: file-system events for one repository, as batches of changed repo-relative paths.

The TUI and the MCP server keep their index fresh with it instead of walking the repo: a batch
goes to `Workspace.refresh(paths=...)`, whose cost grows with the change, not the repository.

* Events come from `watchfiles` (inotify, FSEvents, ReadDirectoryChangesW) in a daemon thread.
  Paths no index run looks at are dropped there: the version-control, vendored and cache
  folders the walk skips, whatever the .gitignore files ignore (the walk's own rules,
  `walk.excluded`), and the index folder. A batch is handed on `STEP_MS` after its last event
  (at most `DEBOUNCE_MS` after its first).
* `sync` answers "has every change made before now been handed on?": it creates a marker file in
  the index folder, watched by the same watcher, and waits (at most its timeout) for that
  marker's event. One watcher reads its events in order, so the batch that carries the marker
  has every earlier change, or an earlier batch had it. It costs one or two `STEP_MS` steps.
* Where events are unavailable (the watch cannot start: an inotify limit, an unsupported file
  system) or `SYMSCOPE_WATCH=poll` asks for it (network mounts, whose remote changes raise no
  local events), `watchfiles` polls instead: a stat of the tree every `POLL_MS` in its own Rust
  thread, never on a caller's path. Polled changes arrive within about `POLL_MS`, with no
  ordering to `sync` on (`sync` says False at once). `SYMSCOPE_WATCH=off` starts nothing
  (`mode` "off"): callers then check the whole repo themselves, as before there was a watcher.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from symscope.core.pathnames import escape_name, fs_path
from symscope.core.walk import IgnoreCache, excluded

log = logging.getLogger(__name__)

#: Environment variable choosing how changes are noticed: `events` (default), `poll` or `off`.
WATCH_ENV = "SYMSCOPE_WATCH"
MODES = ("events", "poll", "off")
#: Milliseconds without a new event before a batch is handed on (also `sync`'s step).
STEP_MS = 5
#: Milliseconds at most that one batch collects events (a busy tree still gets batches).
DEBOUNCE_MS = 300
#: Milliseconds between two polls of the tree where events are unavailable.
POLL_MS = 1000
#: Seconds `sync` waits at most for its marker (a watcher that lags this much is not trusted).
SYNC_TIMEOUT = 1.0
#: Seconds `start(wait=True)` waits for the watch to be in place (a big tree takes a while).
START_TIMEOUT = 30.0
#: The folder of sync markers, inside the index folder.
MARKER_DIR = "watch"


def watch_mode(value: str | None = None) -> str:
    """The mode `SYMSCOPE_WATCH` (or `value`) asks for; an unknown one is logged and is `events`."""
    raw = (os.environ.get(WATCH_ENV, "") if value is None else value).strip().lower()
    if raw in MODES:
        return raw
    if raw:
        log.warning("%s=%s is not one of %s; watching for events", WATCH_ENV, escape_name(raw[:40]),
                    ", ".join(MODES))
    return "events"


class RepoWatcher:
    """Hands `on_change` each batch of changed repo-relative paths (escaped, as the index names
    them) until `stop`. `on_change` runs in the watcher's thread: keep it short (queue the paths).
    """

    def __init__(
        self,
        root: Path,
        on_change: Callable[[list[str]], None],
        index_dir: Path,
        *,
        mode: str | None = None,
        poll_ms: int = POLL_MS,
    ) -> None:
        """
        Args:
            root: The repository folder.
            on_change: Called with each batch (sorted, never empty).
            index_dir: The repo's index folder: never reported, and where sync markers live.
            mode: `events`, `poll` or `off` (default: `SYMSCOPE_WATCH`, else `events`).
            poll_ms: Milliseconds between polls in `poll` mode.
        """
        self.root = Path(os.path.realpath(root))
        self.on_change = on_change
        self.index_dir = Path(os.path.realpath(index_dir))
        self.markers = self.index_dir / MARKER_DIR
        self.poll_ms = poll_ms
        self.mode = watch_mode(mode)
        """`events`, `poll`, or `off` (asked for, or the watch failed in both ways)."""
        self.error: str | None = None
        """Why watching stopped, when it failed."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._waiting: set[str] = set()
        self._seen: set[str] = set()
        self._seen_changed = threading.Condition()
        self._tokens = itertools.count(1)
        self._ready = False
        self._ignores: IgnoreCache = {}

    # -- lifecycle -----------------------------------------------------------------------

    def start(self, wait: bool = False, timeout: float = START_TIMEOUT) -> bool:
        """Start watching in a daemon thread; with `wait`, return once the watch is in place
        (events made after that are seen). Returns whether it is known to be in place."""
        if self.mode == "off":
            return False
        if self._thread is not None:  # started already: wait for it, if asked to
            return self._until_ready(timeout) if wait else self._ready
        with contextlib.suppress(OSError):
            self.markers.mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(target=self._run, name="symscope-watch", daemon=True)
        self._thread.start()
        if wait:
            return self._until_ready(timeout)
        threading.Thread(target=self._until_ready, args=(timeout,), name="symscope-watch-start",
                         daemon=True).start()
        return False

    def stop(self, timeout: float = 2.0) -> None:
        """Stop watching (the thread ends within a `STEP_MS` step, or a poll)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        with self._seen_changed:
            self._seen_changed.notify_all()

    @property
    def ready(self) -> bool:
        """True once the watch is known to be in place (a marker came back) and still running."""
        return self._ready and self.running

    @property
    def running(self) -> bool:
        """True while the watcher thread is watching (in either mode)."""
        return self._thread is not None and self._thread.is_alive() and self.mode != "off"

    def __enter__(self) -> RepoWatcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- sync ---------------------------------------------------------------------------------

    def sync(self, timeout: float = SYNC_TIMEOUT) -> bool:
        """Wait until every change made before this call has been handed to `on_change`.

        True once confirmed (a marker's event came back: events are read in order); False
        when it cannot be (polling, not watching, or no answer within `timeout`): the caller
        then checks what it must itself.
        """
        if self.mode != "events" or not self.ready:
            return False  # not in place yet (a big tree takes a while): no wait for nothing
        return self._roundtrip(timeout)

    def _until_ready(self, timeout: float) -> bool:
        """Send markers until one comes back: the watch is then in place (it may take a while
        to set up over a big tree, and a marker made before that is never seen)."""
        deadline = time.monotonic() + timeout
        while not self._ready and self._thread is not None and self._thread.is_alive():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            step = 3 * self.poll_ms / 1000 if self.mode == "poll" else 0.25
            if self._roundtrip(min(left, step)):
                self._ready = True
        return self._ready

    def _roundtrip(self, timeout: float) -> bool:
        name = f"sync-{os.getpid()}-{id(self):x}-{next(self._tokens)}"
        marker = self.markers / name
        with self._seen_changed:
            self._waiting.add(name)
        try:
            marker.touch()
        except OSError as exc:
            log.debug("cannot write a sync marker (%s)", exc)
            return False
        try:
            with self._seen_changed:
                found = self._seen_changed.wait_for(
                    lambda: name in self._seen or self._stop.is_set(), timeout)
                self._seen.discard(name)
                self._waiting.discard(name)
                return found and not self._stop.is_set()
        finally:
            with contextlib.suppress(OSError):
                marker.unlink()

    # -- the thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        import watchfiles

        targets = [str(self.root)]
        if not self.markers.is_relative_to(self.root):
            targets.append(str(self.markers))
        polling = self.mode == "poll"
        while not self._stop.is_set():
            try:
                for changes in watchfiles.watch(
                    *targets, watch_filter=None, debounce=DEBOUNCE_MS, step=STEP_MS,
                    stop_event=self._stop, raise_interrupt=False, force_polling=polling,
                    poll_delay_ms=self.poll_ms, ignore_permission_denied=True, rust_timeout=0,
                ):
                    self._deliver(changes)
                return
            except Exception as exc:  # the watch could not start or broke: poll, else give up
                if polling:
                    self.error = f"{type(exc).__name__}: {exc}"
                    log.warning("cannot watch %s (%s)", escape_name(str(self.root)), escape_name(self.error))
                    self.mode = "off"
                    with self._seen_changed:
                        self._seen_changed.notify_all()
                    return
                log.info("file events unavailable (%s: %s); polling every %d ms",
                         type(exc).__name__, escape_name(str(exc)), self.poll_ms)
                polling, self.mode = True, "poll"

    def _deliver(self, changes: Iterable[tuple[object, str]]) -> None:
        """Hand on the batch's repo paths, then release the `sync` calls whose marker it holds."""
        markers: list[str] = []
        paths: set[str] = set()
        for _, raw in changes:
            path = Path(raw)
            if path.parent == self.markers:
                markers.append(path.name)
                continue
            if path == self.index_dir or path.is_relative_to(self.index_dir):
                continue
            try:
                parts = path.relative_to(self.root).parts
            except ValueError:
                continue
            if parts:
                paths.add("/".join(escape_name(p) for p in parts))
        if any(p == ".gitignore" or p.endswith("/.gitignore") for p in paths):
            self._ignores.clear()  # the rules changed: read them again
        root = str(self.root)
        kept = sorted(p for p in paths if not excluded(root, p, os.path.isdir(fs_path(root, p)), self._ignores))
        if kept:
            try:
                self.on_change(kept)
            except Exception:  # a caller's bug must not end the watch
                log.exception("handling changed files failed")
        if markers:
            with self._seen_changed:
                self._seen.update(m for m in markers if m in self._waiting)
                self._seen_changed.notify_all()
