"""`Workspace`: the panes side by side, and the one place the App pushes view state into.

Files, outline and (on demand) related | search and source (or a notice) | the
bundle, on demand. The App's reactives are bound in with `data_bind` (`bundled`,
`hints`, `show_bundle`, `show_sidebar`, `show_related`, and `symbol`, its current
symbol) and passed on to the panes; the
App hands over each file it has read (`show_file`). The workspace shows or hides the
sidebar and the bundle pane, marks the current symbol once its file is on screen,
moves the focus to a pane by name and resizes the sidebar.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from symscope.core import api
from symscope.core.models import Symbol
from symscope.tui.actions import KeyHints
from symscope.tui.bundle_controller import BundleState
from symscope.tui.file_view import FileView
from symscope.tui.widgets.bundle_view import BundleView
from symscope.tui.widgets.outline import Outline
from symscope.tui.widgets.related import RelatedPane
from symscope.tui.widgets.repo_tree import RepoTree
from symscope.tui.widgets.search import SearchPane
from symscope.tui.widgets.source_view import SourceView

#: Bounds for resizing the sidebar with `<` and `>`.
SIDEBAR_MIN_WIDTH = 20
CONTENT_MIN_WIDTH = 40


class Workspace(Horizontal):
    """The files, outline, search, source and bundle panes."""

    bundled: reactive[BundleState] = reactive(BundleState, init=False)
    hints: reactive[KeyHints] = reactive(KeyHints, init=False)
    show_bundle: reactive[bool] = reactive(False, init=False)
    show_sidebar: reactive[bool] = reactive(True, init=False)
    show_related: reactive[bool] = reactive(False, init=False)
    symbol: reactive[Symbol | None] = reactive(None, init=False)
    """The App's current symbol: marked in the source and outline once its file is shown."""

    def __init__(self, ws: api.Workspace, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ws = ws
        self._sidebar_wish: int | None = None
        """The side column's width asked for with `<` and `>` (None: the stylesheet's)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="sidebar"):
            yield RepoTree(id="tree").data_bind(Workspace.bundled)
            yield Outline(id="outline").data_bind(Workspace.bundled)
            yield RelatedPane(self.ws, id="related").data_bind(
                Workspace.bundled, Workspace.symbol, active=Workspace.show_related)
        with Vertical(id="content"):
            yield SearchPane(self.ws, id="search").data_bind(Workspace.bundled)
            yield SourceView(id="source")
            notice = Static("", id="notice")
            notice.display = False
            yield notice
        yield BundleView(id="bundle").data_bind(Workspace.bundled, Workspace.hints)

    def show_file(self, view: FileView | None) -> None:
        """Show a file read off the UI thread (None: no file) and mark the symbol if it is there."""
        outline, source = self.query_one(Outline), self.query_one(SourceView)
        outline.load(view.path if view is not None and view.error is None else None,
                     view.outline if view is not None else [])
        source.show_view(view, self.hints["app.refresh"])
        if view is not None:
            self.query_one(RepoTree).reveal(view.path)
        self.watch_symbol(self.symbol)

    def show_notice(self, notice: Content | None) -> None:
        """Show `notice` instead of the source (an empty repo), or the source again (None)."""
        static = self.query_one("#notice", Static)
        static.display = notice is not None
        self.query_one(SourceView).display = notice is None
        if notice is not None:
            static.update(notice)

    def show_placeholder(self, text: str) -> None:
        self.query_one(SourceView).show_placeholder(text)

    def watch_symbol(self, sym: Symbol | None) -> None:
        source, outline = self.query_one(SourceView), self.query_one(Outline)
        if sym is None:
            source.marked = None
            outline.select_symbol(None)
        elif source.path == sym.path:
            source.mark(sym.start_line, sym.end_line)
            outline.select_symbol(sym.id)

    def watch_show_bundle(self, old: bool, show: bool) -> None:
        if old == show:
            return  # the first value from the binding: nothing moves
        self.set_class(show, "-bundle")
        self.call_after_refresh(self._apply_sidebar_width)  # the bundle pane takes room too
        bundle = self.query_one(BundleView)
        focused = self.screen.focused
        if show:
            bundle.table.focus()
        elif focused is None or bundle in focused.ancestors_with_self:
            self.query_one(SourceView).focus()

    def watch_show_related(self, old: bool, show: bool) -> None:
        if old == show:
            return
        self.set_class(show, "-related")
        related = self.query_one(RelatedPane)
        if not show and self.screen.focused is related:
            self.query_one(Outline).focus()

    def watch_show_sidebar(self, old: bool, show: bool) -> None:
        if old == show:
            return
        self.set_class(not show, "-no-sidebar")
        focused = self.screen.focused
        if not show and focused is not None and self.query_one("#sidebar") in focused.ancestors:
            self.query_one(SourceView).focus()

    def focus_pane(self, name: str) -> None:
        """Focus `tree`, `outline`, `related`, `search`, `bundle` or (anything else) the source."""
        targets: dict[str, Widget] = {
            "tree": self.query_one(RepoTree), "outline": self.query_one(Outline),
            "related": self.query_one(RelatedPane),
            "search": self.query_one(SearchPane).input, "bundle": self.query_one(BundleView).table,
        }
        # Now, not after a refresh: the keys typed right after `3` or `5` go to that pane.
        self.screen.set_focus(targets.get(name, self.query_one(SourceView)))

    def resize_sidebar(self, delta: int) -> None:
        """Grow or shrink the files/outline column, within what leaves room for the source."""
        sidebar = self.query_one("#sidebar")
        shown = sidebar.outer_size.width or SIDEBAR_MIN_WIDTH
        wanted = self._clamp_sidebar(shown + delta)
        if delta > 0 and wanted <= shown:
            return  # at the limit of this terminal: keep the width asked for, for a wider one
        self._sidebar_wish = wanted
        self._apply_sidebar_width()

    def _clamp_sidebar(self, width: int) -> int:
        """`width` within what this terminal leaves once the source (and bundle pane) have their room."""
        bundle = self.query_one(BundleView)
        beside = bundle.outer_size.width if self.show_bundle and bundle.display else 0
        limit = max(SIDEBAR_MIN_WIDTH, self.app.size.width - CONTENT_MIN_WIDTH - beside)
        return max(SIDEBAR_MIN_WIDTH, min(limit, width))

    def _apply_sidebar_width(self) -> None:
        if self._sidebar_wish is None:
            return  # the stylesheet's width, which follows the terminal by itself
        sidebar = self.query_one("#sidebar")
        sidebar.styles.width = self._clamp_sidebar(self._sidebar_wish)
        sidebar.styles.max_width = None

    def on_resize(self) -> None:
        """The terminal changed size: clamp the width asked for with `>` to the new one."""
        self._apply_sidebar_width()
