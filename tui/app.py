"""The symscope terminal app: browse, search, and bundle whole code symbols.

State flows one way. Panes post messages up (`RepoTree.FileChosen`,
`Outline.SymbolChosen`, `RelatedPane.SymbolChosen`, `SearchPane.ResultChosen`,
`BundleView.*Requested`); the App keeps the state (`current_path`,
`current_symbol`, `bundled`, `price`, `hints`, `pending_deps`) and pushes it down,
with `data_bind` into the `Workspace` (the panes) and the `Counters`, and through
its watchers. Blocking work runs in thread workers: indexing (`tui/indexing.py`),
reading a file (`tui/file_view.py`), a symbol's uses and callers (the Related
pane), and planning, saving, resolving, packing, copying and writing the bundle
(`tui/bundle_controller.py`, run by `tui/bundle_runner.py`). Keys, palette and
help come from `tui/actions.py`. The app composes and routes; what it does lives in
its base classes: index updates and reloads (`tui/app_index.py`), the current file
and pane focus (`tui/app_navigation.py`), price and secrets prompts
(`tui/app_prompts.py`), bundle, index and filter keys (`tui/app_actions.py`).

Another process may re-index the repo while the app is open (`symscope index`).
The app compares the index's generation on disk with the one it shows when it
gets the focus, every few seconds, and after `r`, and reloads when they differ.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.reactive import reactive
from textual.widgets import Footer, Header

from symscope.core import api
from symscope.core.api import Bundle, DepsPlan, Format, ResolvedItem, for_terminal
from symscope.core.models import Stats, Symbol
from symscope.tui import formatting as fmt
from symscope.tui import places
from symscope.tui.actions import KeyHints, keys_of, spec
from symscope.tui.app_actions import AppActions
from symscope.tui.app_index import IndexFlow
from symscope.tui.app_prompts import Prompts
from symscope.tui.bundle_controller import BundleController, BundleState, Edit, Note
from symscope.tui.bundle_runner import BundleRunner
from symscope.tui.bundle_screens import ConfirmDepsScreen
from symscope.tui.clipboard import Clipboard, make_clipboard
from symscope.tui.commands import SymscopeCommands
from symscope.tui.indexing import (
    IndexingBar,
    start_resource_tracker,
)
from symscope.tui.keys import bindings
from symscope.tui.messages import BundleExported, BundleResolved, DepsPlanned
from symscope.tui.widgets.bundle_view import BundleView
from symscope.tui.widgets.counters import Counters, FileCost, SymbolCost
from symscope.tui.widgets.outline import Outline
from symscope.tui.widgets.related import RelatedPane
from symscope.tui.widgets.repo_tree import RepoTree
from symscope.tui.widgets.search import SearchPane
from symscope.tui.widgets.source_view import SourceView
from symscope.tui.widgets.workspace import Workspace

#: Seconds after launch before the background index refresh starts (first paint comes first).
STARTUP_UPDATE_DELAY = 0.4
#: Seconds between checks that no other process re-indexed the repo.
INDEX_CHECK_INTERVAL = 3.0


class SymscopeApp(AppActions, IndexFlow, Prompts):
    """Files, outline, search and source on one screen; a bundle pane on demand."""

    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "symscope"
    COMMANDS = App.COMMANDS | {SymscopeCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (150, "-wide")]
    NOTIFICATION_TIMEOUT = 4
    BINDINGS: ClassVar[list[BindingType]] = bindings("app")

    current_path: reactive[str | None] = reactive(None, init=False)
    """Repo-relative path of the file in the source view."""
    current_symbol: reactive[Symbol | None] = reactive(None, init=False, always_update=True)
    """The symbol the counters and `a` act on."""
    indexing: reactive[bool] = reactive(False, init=False)
    show_bundle: reactive[bool] = reactive(False, init=False)
    show_sidebar: reactive[bool] = reactive(True, init=False)
    show_related: reactive[bool] = reactive(False, init=False)
    """The Related pane (uses and used by) is shown."""
    pending_deps: reactive[DepsPlan | None] = reactive(None, init=False)
    """Add-with-dependencies waiting for a yes (the counters show its delta)."""
    price: reactive[float] = reactive(fmt.DEFAULT_PRICE_PER_MTOK, init=False)
    """Dollars per million tokens, for the money figures."""
    bundled: reactive[BundleState] = reactive(BundleState, init=False)
    """The bundle as last resolved; bound into every pane that shows it."""

    def __init__(
        self,
        ws: api.Workspace | api.Index,
        *,
        clipboard: Clipboard | None = None,
        processes: int | None = None,
        save_dir: Path | None = None,
        start_dir: Path | None = None,
        update_on_start: bool = True,
        update_delay: float = 0.0,
        watch: bool = False,
    ) -> None:
        """
        Args:
            ws: The repo's workspace (built or not); an open index is wrapped in one.
            clipboard: Copies text, returns the method used; default tries system tools, then OSC 52.
                It is called from a thread worker.
            processes: Parser processes for index updates (None: the core's default).
            save_dir: Folder for `symscope-bundle.md` (default: `start_dir`).
            start_dir: The folder the user started from (default: `places.start_dir()`, read now,
                so later changes of the working directory do not move the default).
            update_on_start: Bring the index up to date in the background on launch.
            update_delay: Seconds to wait before that update (lets the first screen paint first).
            watch: Re-index files as they change while the app runs (`run_app` turns it on).
        """
        super().__init__()
        self.ws = api.Workspace.of(ws)
        self.start_dir = start_dir or places.start_dir()
        self.clipboard_fn: Clipboard = clipboard or make_clipboard(self._osc52)
        self.processes = processes
        self.update_on_start = update_on_start
        self.update_delay = update_delay
        self.watch_changes = watch
        self.bundles = BundleController(self.ws, save_dir=save_dir or self.start_dir, hints=self.hints)
        self.runner = BundleRunner(self, self.bundles, self.clipboard_fn)
        load_note = self.bundles.load()  # before the app runs: no file reads on the UI thread later
        self._startup_notes = [load_note] if load_note else []
        self.repo_name = self.ws.root.name or str(self.ws.root)
        self.stats: Stats | None = None
        """The index's stats, refreshed when the index changes (the palette reads them)."""
        price, warning = fmt.price_from_env()
        self._startup_notes += [Note(warning, "warning")] if warning else []
        self.set_reactive(SymscopeApp.price, price)

    @property
    def bundle(self) -> Bundle:
        """The `Bundle` being edited (the controller owns it)."""
        return self.bundles.bundle

    @property
    def resolved(self) -> list[ResolvedItem]:
        """The bundle's items as last resolved, in order."""
        return list(self.bundled.items)

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        yield IndexingBar(self.ws, self.processes, id="progress").data_bind(running=SymscopeApp.indexing)
        yield Workspace(self.ws, id="main").data_bind(
            SymscopeApp.bundled, SymscopeApp.hints, SymscopeApp.show_bundle, SymscopeApp.show_sidebar,
            SymscopeApp.show_related, symbol=SymscopeApp.current_symbol,
        )
        yield Counters(id="counters").data_bind(SymscopeApp.bundled, SymscopeApp.price, SymscopeApp.hints,
                                                pending=SymscopeApp.pending_deps)
        yield Footer()

    def on_mount(self) -> None:
        self.title = f"symscope · {for_terminal(self.repo_name)}"
        tree = self.query_one(RepoTree)
        tree.root.set_label(Text(for_terminal(self.repo_name)))
        for note in self._startup_notes:
            self.toast(note)
        self.load_on_start()
        self.set_interval(INDEX_CHECK_INTERVAL, self.check_index)
        tree.focus()

    # -- watchers: state flowing down ------------------------------------------------------------------

    def watch_hints(self, hints: KeyHints) -> None:
        self.bundles.hints = hints

    def watch_indexing(self, indexing: bool) -> None:
        self.sub_title = fmt.stats_line(self.stats, indexing)

    @property
    def workspace(self) -> Workspace:
        return self.query_one(Workspace)

    def watch_current_path(self, path: str | None) -> None:
        if path is None:
            self.workers.cancel_group(self, "file")
            self.workspace.show_file(None)
        else:
            self._load_file(path)
        self._update_counters()

    def watch_current_symbol(self, sym: Symbol | None) -> None:
        if sym is not None and sym.path != self.current_path:
            self.current_path = sym.path  # its file loads in a worker; the workspace marks it then
        self._update_counters()

    def _update_counters(self) -> None:
        counters = self.query_one(Counters)
        sym, path = self.current_symbol, self.current_path
        if sym is not None:
            counters.current = SymbolCost(sym.qualname, sym.kind, self.ws.savings([sym]))
        elif path is not None and (rec := self.ws.file(path)) is not None:
            counters.current = FileCost(path, rec.tokens, self.ws.repo_tokens())
        else:
            counters.current = None

    # -- the bundle ---------------------------------------------------------------------------

    def _edit(self, edit: Edit) -> None:
        for note in self.runner.edit(edit):
            self.toast(note)

    def on_bundle_resolved(self, message: BundleResolved) -> None:
        notes = self.runner.resolved(message)
        if notes is not None:  # else an older resolution, overtaken by a newer one
            self.bundled = message.state
            for note in notes:
                self.toast(note)

    def on_bundle_exported(self, message: BundleExported) -> None:
        for note in message.notes:
            self.toast(note)

    def toggle_symbol(self, sym: Symbol) -> None:
        self._edit(self.bundles.toggle_symbol(sym))

    def accept_changes(self, only: str | None = None) -> None:
        """Record the current state of changed items, clearing their flags."""
        self._edit(self.bundles.accept(only))

    def remove_missing(self) -> None:
        self._edit(self.bundles.remove_missing())

    def copy_bundle(self, format_name: Format | None = None) -> None:
        """Render the bundle and put it on the clipboard (in a worker)."""
        for note in self.runner.copy(format_name):
            self.toast(note)

    def _osc52(self, text: str) -> None:
        """The terminal clipboard, from the copy worker's thread."""
        self.call_from_thread(self.copy_to_clipboard, text)

    # -- messages from the panes ----------------------------------------------------------

    @on(BundleView.ItemChosen)
    def _bundle_item_chosen(self, message: BundleView.ItemChosen) -> None:
        self.open_item(message.key)

    @on(BundleView.RemoveRequested)
    def _bundle_remove(self, message: BundleView.RemoveRequested) -> None:
        self._edit(self.bundles.remove(message.key))

    @on(BundleView.MoveRequested)
    def _bundle_move(self, message: BundleView.MoveRequested) -> None:
        self._edit(self.bundles.move(message.key, message.delta))

    @on(BundleView.AcceptRequested)
    def _bundle_accept(self, message: BundleView.AcceptRequested) -> None:
        self._edit(self.bundles.accept(message.key))

    @on(BundleView.RemoveGroupRequested)
    def _bundle_remove_group(self, message: BundleView.RemoveGroupRequested) -> None:
        self._edit(self.bundles.remove_group(message.key))

    @on(BundleView.LevelRequested)
    def _bundle_level(self, message: BundleView.LevelRequested) -> None:
        self._edit(self.bundles.cycle_detail(message.key))

    @on(RelatedPane.SymbolChosen)
    def _related_symbol(self, message: RelatedPane.SymbolChosen) -> None:
        self.current_symbol = message.symbol

    @on(RepoTree.FileChosen)
    def _file_chosen(self, message: RepoTree.FileChosen) -> None:
        self.current_symbol = None
        self.current_path = message.path

    @on(Outline.SymbolChosen)
    def _outline_symbol(self, message: Outline.SymbolChosen) -> None:
        self.current_symbol = message.symbol

    @on(SearchPane.ResultChosen)
    def _result_chosen(self, message: SearchPane.ResultChosen) -> None:
        self.current_symbol = message.symbol
        self.query_one(SourceView).focus()

    @on(Outline.ToggleRequested)
    @on(SearchPane.ToggleRequested)
    @on(RelatedPane.ToggleRequested)
    def _toggle_requested(
        self, message: Outline.ToggleRequested | SearchPane.ToggleRequested | RelatedPane.ToggleRequested
    ) -> None:
        self.toggle_symbol(message.symbol)

    @on(SearchPane.Left)
    def _search_left(self) -> None:
        self.query_one(SourceView).focus()

    @on(SourceView.LineClicked)
    def _line_clicked(self, message: SourceView.LineClicked) -> None:
        self.open_line(message.path, message.line)

    # -- actions ------------------------------------------------------------------------

    def action_add_with_deps(self) -> None:
        if self.current_symbol is None:
            h = self.hints
            self.say(f"No symbol picked: choose one in the outline ({h['app.focus_outline']}) or search "
                     f"({h['app.search']}).", "warning")
        else:
            self.runner.plan(self.current_symbol)

    def on_deps_planned(self, message: DepsPlanned) -> None:
        plan = message.plan
        if plan.error is not None:
            self.say(plan.error, "error")
            return
        if plan.empty:
            self.say(f"{plan.root.qualname} and its dependencies are already in the bundle")
            return
        self.pending_deps = plan

        def done(confirmed: bool | None) -> None:
            self.pending_deps = None
            if confirmed:
                self._edit(self.bundles.add_with_deps(plan))

        again = keys_of(spec("app.add_with_deps"), self.keymap)
        self.push_screen(ConfirmDepsScreen(plan, again), done)

    action_accept_changes = accept_changes
    action_remove_missing = remove_missing



def run_app(ws: api.Workspace) -> int:
    """Run the TUI on `ws` until the user quits (then close it); returns the exit code."""
    start_resource_tracker()
    app = SymscopeApp(ws, update_delay=STARTUP_UPDATE_DELAY, watch=True)
    try:
        result = app.run()
    finally:
        ws.close()
    return int(result or 0) if app.return_code in (None, 0) else int(app.return_code)
