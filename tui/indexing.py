"""Index updates in a thread worker, and the one-line progress bar that shows them.

Progress is not a message: the worker stores its latest `IndexProgress` and the bar
polls it, so a burst of small files cannot flood the queue and a slow one never
leaves the bar stale. It names the phase: walking the repo, parsing, building the
search data. Files the run has committed go up to the App as `IndexingBar.FilesCommitted`,
gathered into at most a few messages a second, so the tree fills in during a first index.
The bar posts `IndexingBar.Finished` or `IndexingBar.Failed` up to the App when the run ends.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Label, ProgressBar
from textual.worker import Worker, WorkerState, get_current_worker

from symscope.core.api import Workspace, for_terminal, language_names
from symscope.core.errors import SymscopeError
from symscope.core.models import FileRecord, IndexProgress, IndexReport
from symscope.tui.actions import KeyHints
from symscope.tui.bundle_controller import Note

#: Seconds between progress bar refreshes while indexing.
PROGRESS_INTERVAL = 0.1
#: Seconds at least between two `FilesCommitted` messages (the tree's updates while indexing).
COMMIT_INTERVAL = 0.3
#: A background update's walk is shown only once it has lasted this long: checking an
#: up-to-date index (every start, every `r`) must not flash the bar.
QUIET_WALK = 0.5
#: Changed files a toast names (then "…").
CHANGED_SHOWN = 4


class IndexingBar(Horizontal):
    """Files done of total and the file being parsed; shown only while indexing."""

    @dataclass
    class Finished(Message):
        """An index update completed (possibly cancelled part-way)."""

        report: IndexReport
        manual: bool
        changed: tuple[str, ...] | None = None
        """For a run over watched paths: the files it found changed (added, edited, removed)."""

    @dataclass
    class FilesCommitted(Message):
        """Files the running update has written to the index: searchable and openable now."""

        records: list[FileRecord]

    @dataclass
    class Failed(Message):
        """An index update raised; `error` is one line for the user ("" when it was cancelled)."""

        error: str

    running: reactive[bool] = reactive(False, init=False)
    """Bound to the App's `indexing`: polls while True, hides when it turns False."""

    def __init__(self, ws: Workspace, processes: int | None = None, *, id: str | None = None) -> None:
        """
        Args:
            ws: The workspace whose index to update.
            processes: Parser processes (None: the core's default; 1 parses in the worker thread).
        """
        super().__init__(id=id)
        self.ws = ws
        self.processes = processes
        self._latest: IndexProgress | None = None
        self._shown: IndexProgress | None = None
        self._timer: Timer | None = None
        self._loaded: int | None = None
        self._started = 0.0

    def mark_loaded(self) -> None:
        """Note that the app now shows the index as it is on disk (its generation now)."""
        self._loaded = self.ws.generation()

    def stale(self) -> bool:
        """True when the index on disk is not the one the app shows: another process re-indexed.

        Never while this app is indexing (its own run reports when it is done).
        """
        if self.running or (self._loaded is not None and self.ws.generation() == self._loaded):
            return False  # the usual answer, from one read of the index's meta table
        return self.ws.is_built

    def compose(self) -> ComposeResult:
        yield Label("Indexing", id="progress-label")
        yield ProgressBar(id="progress-bar", show_eta=False)
        yield Label("", id="progress-file")

    def start(self, *, manual: bool, rebuild: bool = False, show: bool = False,
              paths: tuple[str, ...] | None = None) -> Worker[None]:
        """Update the index in a thread worker; `show` puts the bar up before the first file.

        `paths` (what the file watcher reported) re-checks only those, quietly: no progress
        bar, and `Finished.changed` names the files that changed.
        """
        self._latest = self._shown = None
        self._started = time.monotonic()
        if show:
            self.show_progress(IndexProgress(0, 0, "", "walk"))
        return self._run(manual, rebuild, paths)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False, description="index update")
    def _run(self, manual: bool, rebuild: bool, paths: tuple[str, ...] | None = None) -> None:
        worker = get_current_worker()
        committed: list[FileRecord] = []
        posted = time.monotonic()

        def progress(p: IndexProgress) -> None:
            nonlocal posted
            self._latest = p  # read by `_poll` on the UI thread
            if p.committed:
                committed.extend(p.committed)
            if committed and time.monotonic() - posted >= COMMIT_INTERVAL:
                self.post_message(self.FilesCommitted(committed.copy()))
                committed.clear()
                posted = time.monotonic()

        def hashes() -> dict[str, str]:
            return {p: rec.hash for p in paths or () if (rec := self.ws.file(p)) is not None}

        def run(processes: int | None) -> IndexReport:
            return self.ws.refresh(None if paths else progress, lambda: worker.is_cancelled,
                                   processes=processes, rebuild=rebuild, paths=paths)

        try:
            before = hashes()
            try:
                report = run(self.processes)
            except (OSError, ValueError, RuntimeError):
                if self.processes == 1:
                    raise
                report = run(1)  # parser processes could not start here: parse in this thread
        except SymscopeError as exc:
            self.post_message(self.Failed(str(exc)))
            return
        except Exception as exc:  # an engine bug must not take the UI down
            self.post_message(self.Failed(f"indexing failed: {type(exc).__name__}: {exc}"))
            return
        changed = None
        if paths is not None:
            after = hashes()
            changed = tuple(sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p)))
        if committed:
            self.post_message(self.FilesCommitted(committed))  # before `Finished`: the order holds
        self.post_message(self.Finished(report, manual, changed))

    def show_progress(self, p: IndexProgress) -> None:
        """Show one phase: "walking… 12,345 files", "parsing 1,234 / 50,000", "building search data…"."""
        self.display = True
        bar = self.query_one(ProgressBar)
        if p.phase == "parse" and p.total:
            bar.update(total=p.total, progress=p.done)
            label = f"parsing {p.done:,} / {p.total:,}"
        else:
            bar.update(total=None)  # not known while walking; one step while ranking: it pulses
            label = f"walking… {p.done:,} files" if p.phase == "walk" else "building search data…"
        self.query_one("#progress-label", Label).update(label)
        path = p.path if p.phase != "rank" else ""
        self.query_one("#progress-file", Label).update(Content(for_terminal(path)))

    def _poll(self) -> None:
        """Show the worker's latest progress (polled, so a slow file never leaves it stale)."""
        p = self._latest
        if not self.running or p is None or p is self._shown:
            return
        if p.phase == "walk" and not self.display and time.monotonic() - self._started < QUIET_WALK:
            return  # a quick check of an up-to-date index: nothing to show
        self._shown = p
        self.show_progress(p)

    def watch_running(self, running: bool) -> None:
        if running:
            if self._timer is None:
                self._timer = self.set_interval(PROGRESS_INTERVAL, self._poll)
            return
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.display = False

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        event.stop()
        if event.worker.group != "index":
            return
        if event.state == WorkerState.ERROR:
            self.post_message(self.Failed(f"indexing stopped: {event.worker.error}"))
        elif event.state == WorkerState.CANCELLED:
            self.post_message(self.Failed(""))  # the app is closing: nothing to say


def finished_note(message: IndexingBar.Finished, reloaded: bool) -> Note | None:
    """What to say about a finished run, if anything (and whether the app reloaded for another's)."""
    report = message.report
    if report.cancelled:
        return Note("Indexing was cancelled; the index holds what was done.", "warning")
    if message.changed is not None:  # what the watcher saw change: name the files
        count = report.parsed + report.removed
        if not count:
            return None
        names = list(message.changed[:CHANGED_SHOWN]) or ["files under the changed folders"]
        more = ", …" if len(message.changed) > CHANGED_SHOWN else ""
        return Note(f"re-indexed {count:,} file{'s' if count != 1 else ''}: "
                    + for_terminal(", ".join(names)) + more, title="Files changed")
    if not (message.manual or report.parsed or report.removed):
        return None
    text = (f"{report.files:,} files · {report.parsed:,} parsed · {report.removed:,} removed "
            f"· {len(report.skipped):,} skipped · {report.seconds:.1f}s")
    if reloaded and not report.parsed and not report.removed:
        text += " · reloaded: another symscope run had updated the index"
    return Note(text, title="Index up to date")


def empty_repo_notice(ws: Workspace, hints: KeyHints) -> Content:
    """What to show instead of the source when the repo has nothing symscope can parse."""
    skipped = ws.skipped()
    reasons: dict[str, int] = {}
    for s in skipped:
        reasons[s.reason] = reasons.get(s.reason, 0) + 1
    summary = "; ".join(f"{n:,} {reason}" for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
    return Content.from_markup(
        "[b]No supported source files in $root[/b]\n\nsymscope indexes: $names."
        + ("\n\nSkipped $count files: $summary." if skipped else "")
        + "\n\nAdd source files and press [b]$refresh[/b] to index again, or [b]$quit[/b] to quit.",
        root=for_terminal(str(ws.root)), names=", ".join(language_names()),
        count=f"{len(skipped):,}", summary=for_terminal(summary),
        refresh=hints["app.refresh"], quit=hints["app.quit"],
    )


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker while stderr is still the terminal.

    Textual swaps `sys.stderr` for an object whose `fileno()` is -1; a tracker started
    after that (by the process pool that parses files) fails with "bad value(s) in
    fds_to_keep".
    """
    try:
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    except Exception:
        pass  # the worker falls back to parsing in its own thread
