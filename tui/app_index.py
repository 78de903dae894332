"""The app and the index on disk: updating it in the background, and reloading every pane when
it changes (after an update here, or when another process re-indexed the repo). A base class of
the app, so `app.py` stays compose, reactives and routing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import events
from textual.message import Message

from symscope.core.api import RepoWatcher
from symscope.core.errors import SymscopeError
from symscope.tui import formatting as fmt
from symscope.tui.app_navigation import Navigation
from symscope.tui.bundle_controller import Edit, Note
from symscope.tui.indexing import IndexingBar, empty_repo_notice, finished_note
from symscope.tui.widgets.related import RelatedPane
from symscope.tui.widgets.repo_tree import RepoTree
from symscope.tui.widgets.search import SearchPane

if TYPE_CHECKING:
    from textual.reactive import reactive

    from symscope.core.models import Stats


@dataclass
class FilesChanged(Message):
    """The file watcher saw these repo-relative paths change (posted from its thread)."""

    paths: list[str]


class IndexFlow(Navigation):
    """Starts index updates, hears how they end, and repopulates the panes from the index.

    While the app runs, a `RepoWatcher` (its own daemon thread) reports changed files; they are
    re-indexed in the background, only they (`Workspace.refresh(paths=...)`), through the same
    `IndexingBar` worker as `r`, and a toast names them. Paths reported while a run is going
    wait for it to end. `r` stays the manual refresh of the whole repo.
    """

    if TYPE_CHECKING:
        repo_name: str
        stats: Stats | None
        indexing: reactive[bool]
        update_on_start: bool
        update_delay: float
        watch_changes: bool
    _watcher: RepoWatcher | None = None
    _changed: set[str] | None = None

    def start_watching(self) -> None:
        """Watch the repo until the app ends (`SYMSCOPE_WATCH` may turn it off or to polling)."""
        if not self.watch_changes or self._watcher is not None:
            return
        def changed(paths: list[str]) -> None:  # in the watcher's thread: post_message is thread-safe
            self.post_message(FilesChanged(paths))

        watcher = RepoWatcher(self.ws.root, changed, self.ws.index_dir)
        if watcher.mode != "off":
            self._watcher = watcher
            watcher.start()

    @property
    def watcher(self) -> RepoWatcher | None:
        """The watcher of the repo while the app runs (None: not watching)."""
        return self._watcher

    def on_unmount(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()

    def on_files_changed(self, message: FilesChanged) -> None:
        self._changed = (self._changed or set()) | set(message.paths)
        self._index_changed()

    def _index_changed(self) -> None:
        """Re-index the files the watcher reported, unless a run is going (it ends, then this)."""
        if self.indexing or not self._changed or not self.ws.is_built:
            return
        paths, self._changed = tuple(sorted(self._changed)), None
        self.indexing = True
        self.query_one(IndexingBar).start(manual=False, paths=paths)

    def load_on_start(self) -> None:
        """Show the index as it is, then look for changes; a repo never indexed is indexed first."""
        self.start_watching()
        if self.ws.is_built:
            self._populate()
        else:
            self._edit(Edit(changed=False))  # show the restored bundle
            self.workspace.show_placeholder("Indexing this repository for the first time…\n"
                                            "Files appear in the tree as they are done: open any of them.")
            self.sub_title = "indexing…"
            self.start_index(manual=False)
        if self.ws.is_built and self.update_on_start:
            # Paint the first screen from the index as it is, then look for changes.
            if self.update_delay > 0:
                self.set_timer(self.update_delay, lambda: self.start_index(manual=False))
            else:
                self.call_after_refresh(self.start_index, False)

    def start_index(self, manual: bool, rebuild: bool = False) -> None:
        """Update the index in a thread worker (one at a time)."""
        if self.indexing:
            self.say("Already indexing; wait for it to finish.", "warning")
            return
        self.indexing = True
        self.query_one(IndexingBar).start(manual=manual, rebuild=rebuild,
                                          show=manual or not self.ws.is_built)

    def on_indexing_bar_files_committed(self, message: IndexingBar.FilesCommitted) -> None:
        """Files the running update has committed go into the tree now: a first index fills it in."""
        self.query_one(RepoTree).add_files(message.records, self.repo_name)

    def on_indexing_bar_failed(self, message: IndexingBar.Failed) -> None:
        self.indexing = False
        if message.error:
            self.toast(Note(message.error, "error", "Index", timeout=8))
        self._index_changed()

    def on_indexing_bar_finished(self, message: IndexingBar.Finished) -> None:
        self.indexing = False
        reloaded = self.check_index()
        if not reloaded:
            self._edit(Edit(changed=False))  # files may have changed on disk: re-check the bundle
        note = finished_note(message, reloaded)
        if note is not None:
            self.toast(note)
        self._index_changed()

    def check_index(self) -> bool:
        """Reload everything if the index on disk is not the one shown (another process re-indexed)."""
        bar = next(iter(self.query(IndexingBar)), None)  # none while the app shuts down (a late timer)
        if bar is None or not bar.stale():
            return False
        self._populate()
        return True

    def on_app_focus(self, event: events.AppFocus) -> None:
        self.check_index()

    def _populate(self) -> None:
        """Load the tree, notice, stats, current file and bundle from the index as it is now."""
        self.query_one(IndexingBar).mark_loaded()  # first: a run finishing after this reloads again
        files = self.ws.files()
        self.stats = self.ws.stats()
        self.query_one(RepoTree).load(files, self.repo_name)
        self.workspace.show_notice(None if files else empty_repo_notice(self.ws, self.hints))
        path, sym = self.current_path, self.current_symbol
        if path is not None and self.ws.file(path) is None:
            path = sym = None
        if sym is not None:
            try:
                sym = self.ws.symbol(sym.id)
            except SymscopeError:
                sym = None
        if path is not None and path == self.current_path:
            self._load_file(path)  # the same file: it may have changed, read it again
        self.current_path = path
        self.current_symbol = sym
        if path is None and files:
            h = self.hints
            self.workspace.show_placeholder(f"Pick a file ({h['app.focus_tree']}) or a symbol "
                                            f"({h['app.focus_outline']}),\nor search ({h['app.search']}).")
        self.query_one(SearchPane).rerun()
        self.query_one(RelatedPane).reload()
        self._edit(Edit(changed=False))
        self.sub_title = fmt.stats_line(self.stats, self.indexing)
