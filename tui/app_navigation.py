"""Moving around the app: reading the open file off the UI thread, opening a bundle item or the
symbol under a clicked line, focusing and showing panes, and picking what `a` and `f` add.
A base class of the app, so `app.py` stays compose, reactives and routing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.actions import SkipAction
from textual.widgets import Input, TextArea
from textual.worker import get_current_worker

from symscope.tui.base import KeyedApp
from symscope.tui.file_view import load_file
from symscope.tui.messages import FileLoaded
from symscope.tui.widgets.search import SearchPane

if TYPE_CHECKING:
    from textual.reactive import reactive

    from symscope.core import api
    from symscope.core.models import Symbol
    from symscope.tui.bundle_controller import BundleController, BundleState, Edit
    from symscope.tui.widgets.workspace import Workspace


class Navigation(KeyedApp):
    """What is shown and focused: the current file and symbol, the panes."""

    if TYPE_CHECKING:
        ws: api.Workspace
        bundles: BundleController
        bundled: reactive[BundleState]
        current_path: reactive[str | None]
        current_symbol: reactive[Symbol | None]
        show_bundle: reactive[bool]
        show_sidebar: reactive[bool]
        show_related: reactive[bool]

        @property
        def workspace(self) -> Workspace: ...

        def _edit(self, edit: Edit) -> None: ...

        def toggle_symbol(self, sym: Symbol) -> None: ...

    @work(thread=True, exclusive=True, group="file", exit_on_error=False)
    def _load_file(self, path: str) -> None:
        view = load_file(self.ws, path)
        if not get_current_worker().is_cancelled:
            self.post_message(FileLoaded(view))

    def on_file_loaded(self, message: FileLoaded) -> None:
        if message.view.path == self.current_path:  # else the user moved on
            if message.view.error is not None:
                self.say(message.view.error, "error")
            self.workspace.show_file(message.view)

    def open_item(self, key: str) -> None:
        r = self.bundled.find(key)
        if r is None:
            return
        if r.symbol is not None:
            self.current_symbol = r.symbol
        elif r.file is not None:
            self.current_symbol = None
            self.current_path = r.file.path
        else:
            self.say(f"{r.name}: {r.note}", "warning")

    def open_line(self, path: str, line: int) -> None:
        """Make the innermost symbol around `line` of `path` the current one (a click in the source)."""
        inside = [s for s in self.ws.file_symbols(path) if s.start_line <= line <= s.end_line]
        if inside:
            self.current_symbol = min(inside, key=lambda s: (s.end_line - s.start_line, -s.start_line))

    def action_focus_search(self) -> None:
        """`/`, a priority key: checked before the focused pane sees it, so the focus moves before
        the next key is handed out. In a box or a modal screen it is left to them (in the search
        box, the pane's own `/` starts a fresh query)."""
        if len(self.screen_stack) > 1 or isinstance(self.focused, (Input, TextArea)):
            raise SkipAction()
        self.query_one(SearchPane).focus_input(fresh=True)

    def action_focus_pane(self, name: str) -> None:
        self.show_sidebar = self.show_sidebar or name in ("tree", "outline", "related")
        self.show_bundle = self.show_bundle or name == "bundle"
        self.show_related = self.show_related or name == "related"
        self.workspace.focus_pane(name)

    def action_resize_sidebar(self, delta: int) -> None:
        self.show_sidebar = True
        self.workspace.resize_sidebar(delta)

    def action_toggle_symbol(self) -> None:
        if self.current_symbol is None:
            h = self.hints
            self.say(f"No symbol picked: choose one in the outline ({h['app.focus_outline']}) or search "
                     f"({h['app.search']}).", "warning")
        else:
            self.toggle_symbol(self.current_symbol)

    def action_toggle_file(self) -> None:
        if self.current_path is None:
            self.say(f"No file open: pick one in the files pane ({self.hints['app.focus_tree']}).", "warning")
        else:
            self._edit(self.bundles.toggle_file(self.current_path))
