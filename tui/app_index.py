"""The app and the index on disk: updating it in the background, and reloading every pane when
it changes (after an update here, or when another process re-indexed the repo). A base class of
the app, so `app.py` stays compose, reactives and routing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

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


class IndexFlow(Navigation):
    """Starts index updates, hears how they end, and repopulates the panes from the index."""

    if TYPE_CHECKING:
        repo_name: str
        stats: Stats | None
        indexing: reactive[bool]
        update_on_start: bool
        update_delay: float

    def load_on_start(self) -> None:
        """Show the index as it is, then look for changes; a repo never indexed is indexed first."""
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

    def on_indexing_bar_finished(self, message: IndexingBar.Finished) -> None:
        self.indexing = False
        reloaded = self.check_index()
        if not reloaded:
            self._edit(Edit(changed=False))  # files may have changed on disk: re-check the bundle
        note = finished_note(message, reloaded)
        if note is not None:
            self.toast(note)

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
