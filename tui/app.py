"""The symscope terminal app: browse, search, and bundle whole code symbols.

State flows one way. Panes post messages up (`RepoTree.FileChosen`,
`Outline.SymbolChosen`, `SearchPane.ResultChosen`, `BundleView.*Requested`); the
App keeps the state (`current_path`, `current_symbol`, the `Bundle`) and its
watchers push it down into the panes and the counters.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer, Header, Label, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from symscope.core.bundle import (
    FORMAT_SUFFIX,
    Bundle,
    BundleError,
    BundleItem,
    Format,
    ResolvedItem,
    bundle_path,
    file_key,
    render,
    resolve,
    symbol_key,
)
from symscope.core.bundle import savings as bundle_savings
from symscope.core.errors import SymscopeError
from symscope.core.index import Index
from symscope.core.languages import all_languages
from symscope.core.models import IndexProgress, IndexReport, Symbol
from symscope.tui import formatting as fmt
from symscope.tui.clipboard import Clipboard, make_clipboard
from symscope.tui.commands import SymscopeCommands
from symscope.tui.messages import IndexFailed, IndexFinished
from symscope.tui.screens import HelpRow, HelpScreen, PromptScreen, binding_rows
from symscope.tui.widgets.bundle_view import BundleView
from symscope.tui.widgets.counters import BundleCost, Counters, FileCost, SymbolCost
from symscope.tui.widgets.outline import Outline
from symscope.tui.widgets.repo_tree import RepoTree
from symscope.tui.widgets.search import SearchPane
from symscope.tui.widgets.source_view import SourceView

#: Seconds between progress bar refreshes while indexing.
PROGRESS_INTERVAL = 0.1
DEFAULT_BUNDLE_NAME = "symscope-bundle"
#: Seconds after launch before the background index refresh starts (first paint comes first).
STARTUP_UPDATE_DELAY = 0.4


#: Bounds for resizing the sidebar with `<` and `>`.
SIDEBAR_MIN_WIDTH = 20
CONTENT_MIN_WIDTH = 40


class SymscopeApp(App[int]):
    """Files, outline, search and source on one screen; a bundle pane on demand."""

    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "symscope"
    COMMANDS = App.COMMANDS | {SymscopeCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (150, "-wide")]
    NOTIFICATION_TIMEOUT = 4

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_search", "Search", id="app.search",
                tooltip="Search (kind: lang: path: filters)"),
        Binding("a", "toggle_symbol", "Add/remove symbol", id="app.toggle_symbol",
                tooltip="Add/remove the current symbol"),
        Binding("A,f", "toggle_file", "Add/remove file", id="app.toggle_file",
                tooltip="Add/remove the whole current file"),
        Binding("b", "toggle_bundle_view", "Bundle", id="app.bundle",
                tooltip="Show/hide the bundle pane"),
        Binding("c,y", "copy_bundle", "Copy", id="app.copy",
                tooltip="Copy the bundle as one block"),
        Binding("s", "save_bundle", "Save", id="app.save",
                tooltip="Save the bundle to a file"),
        Binding("F", "toggle_format", "Markdown/XML", show=False, id="app.format",
                tooltip="Bundle format: Markdown / XML"),
        Binding("r,ctrl+r", "refresh_index", "Refresh index", show=False, id="app.refresh",
                tooltip="Re-index changed files"),
        Binding("t", "toggle_sidebar", "Toggle file tree", show=False, id="app.sidebar",
                tooltip="Show/hide files and outline"),
        Binding("greater_than_sign", "resize_sidebar(4)", "Wider file tree", show=False,
                id="app.sidebar_wider", tooltip="Make the files and outline panes wider"),
        Binding("less_than_sign", "resize_sidebar(-4)", "Narrower file tree", show=False,
                id="app.sidebar_narrower", tooltip="Make the files and outline panes narrower"),
        Binding("1", "focus_pane('tree')", "Files", show=False, id="app.focus_tree",
                tooltip="Focus the files pane"),
        Binding("2", "focus_pane('outline')", "Outline", show=False, id="app.focus_outline",
                tooltip="Focus the outline pane"),
        Binding("3", "focus_pane('search')", "Search box", show=False, id="app.focus_search",
                tooltip="Focus the search box"),
        Binding("4", "focus_pane('source')", "Source", show=False, id="app.focus_source",
                tooltip="Focus the source pane"),
        Binding("5", "focus_pane('bundle')", "Bundle pane", show=False, id="app.focus_bundle",
                tooltip="Show and focus the bundle pane"),
        Binding("dollar_sign", "set_price", "Set $/Mtok", show=False, id="app.price",
                tooltip="Set the price per million tokens"),
        Binding("T", "change_theme", "Theme", show=False, id="app.theme",
                tooltip="Pick a colour theme"),
        Binding("question_mark,f1", "help", "Help", id="app.help", tooltip="Show every key"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Quit symscope"),
    ]

    current_path: reactive[str | None] = reactive(None, init=False)
    """Repo-relative path of the file in the source view."""
    current_symbol: reactive[Symbol | None] = reactive(None, init=False, always_update=True)
    """The symbol the counters and `a` act on."""
    indexing: reactive[bool] = reactive(False, init=False)
    show_bundle: reactive[bool] = reactive(False, init=False)
    show_sidebar: reactive[bool] = reactive(True, init=False)
    price: reactive[float] = reactive(fmt.DEFAULT_PRICE_PER_MTOK, init=False)
    """Dollars per million tokens, for the money figures."""

    def __init__(
        self,
        index: Index,
        *,
        clipboard: Clipboard | None = None,
        processes: int | None = None,
        save_dir: Path | None = None,
        update_on_start: bool = True,
        update_delay: float = 0.0,
    ) -> None:
        """
        Args:
            index: The repo's index (built or not).
            clipboard: Copies text, returns the method used; default tries system tools, then OSC 52.
            processes: Parser processes for index updates (None: the core's default).
            save_dir: Folder for `symscope-bundle.md` (default: the current directory).
            update_on_start: Bring the index up to date in the background on launch.
            update_delay: Seconds to wait before that update (lets the first screen paint first).
        """
        super().__init__()
        self.index = index
        self.clipboard_fn: Clipboard = clipboard or make_clipboard(self.copy_to_clipboard)
        self.processes = processes
        self.save_dir = save_dir
        self.update_on_start = update_on_start
        self.update_delay = update_delay
        self.bundle = Bundle()
        self.resolved: list[ResolvedItem] = []
        self.repo_name = index.root.name or str(index.root)
        self._latest_progress: IndexProgress | None = None
        self._shown_progress: IndexProgress | None = None
        self._progress_timer: Timer | None = None
        self._populated = False
        price, warning = fmt.price_from_env()
        self._price_warning = warning
        self.set_reactive(SymscopeApp.price, price)

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with Horizontal(id="progress"):
            yield Label("Indexing", id="progress-label")
            yield ProgressBar(id="progress-bar", show_eta=False)
            yield Label("", id="progress-file")
        with Horizontal(id="main"):
            with Vertical(id="sidebar"):
                yield RepoTree(id="tree")
                yield Outline(id="outline")
            with Vertical(id="content"):
                yield SearchPane(self.index, id="search")
                yield SourceView(id="source")
                yield Static("", id="notice")
            yield BundleView(id="bundle")
        yield Counters(id="counters")
        yield Footer()

    def on_mount(self) -> None:
        self.title = f"symscope · {self.repo_name}"
        tree = self.query_one(RepoTree)
        tree.border_title = "Files"
        tree.root.set_label(self.repo_name)
        self.query_one(Outline).border_title = "Outline"
        source = self.query_one(SourceView)
        source.border_title = "Source"
        self.query_one("#notice").display = False
        self.query_one(Counters).price = self.price
        if self._price_warning:
            self.notify(self._price_warning, severity="warning")
        self._load_bundle()
        if self.index.is_built:
            self._populate()
        else:
            source.show_placeholder("Indexing this repository for the first time…")
            self.sub_title = "indexing…"
        if not self.index.is_built:
            self.start_index(manual=False)
        elif self.update_on_start:
            # Paint the first screen from the index as it is, then look for changes.
            if self.update_delay > 0:
                self.set_timer(self.update_delay, lambda: self.start_index(manual=False))
            else:
                self.call_after_refresh(self.start_index, False)
        tree.focus()

    # -- index updates -----------------------------------------------------------------

    def start_index(self, manual: bool, rebuild: bool = False) -> Worker[None] | None:
        """Update the index in a thread worker (one at a time)."""
        if self.indexing:
            self.notify("Already indexing; wait for it to finish.", severity="warning")
            return None
        self.indexing = True
        self._latest_progress = self._shown_progress = None
        if manual or not self.index.is_built:
            self._show_progress(0, None, "scanning files…")
        return self._index_worker(manual, rebuild)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False, description="index update")
    def _index_worker(self, manual: bool, rebuild: bool) -> None:
        worker = get_current_worker()

        def progress(p: IndexProgress) -> None:
            self._latest_progress = p  # read by `_poll_progress` on the UI thread

        def run(processes: int | None) -> IndexReport:
            return self.index.update(progress=progress, cancelled=lambda: worker.is_cancelled,
                                     processes=processes, rebuild=rebuild)

        try:
            try:
                report = run(self.processes)
            except (OSError, ValueError, RuntimeError):
                if self.processes == 1:
                    raise
                report = run(1)  # parser processes could not start here: parse in this thread
        except SymscopeError as exc:
            self.post_message(IndexFailed(str(exc)))
            return
        except Exception as exc:  # an engine bug must not take the UI down
            self.post_message(IndexFailed(f"indexing failed: {type(exc).__name__}: {exc}"))
            return
        self.post_message(IndexFinished(report, manual))

    def _show_progress(self, done: int, total: int | None, path: str) -> None:
        self.query_one("#progress").display = True
        self.query_one(ProgressBar).update(total=total, progress=done)
        label = f"Indexing {done:,}/{total:,}" if total else "Indexing"
        self.query_one("#progress-label", Label).update(label)
        self.query_one("#progress-file", Label).update(path)

    def _poll_progress(self) -> None:
        """Show the worker's latest progress (polled, so a slow file never leaves it stale)."""
        p = self._latest_progress
        if self.indexing and p is not None and p is not self._shown_progress:
            self._shown_progress = p
            self._show_progress(p.done, p.total, p.path)

    def on_index_failed(self, message: IndexFailed) -> None:
        self.indexing = False
        self.notify(message.error, title="Index", severity="error", timeout=8)

    def on_index_finished(self, message: IndexFinished) -> None:
        report = message.report
        self.indexing = False
        changed = report.parsed > 0 or report.removed > 0 or not self._populated
        if changed:
            self._populate()
        else:
            self._refresh_bundle(save=False)
        if report.cancelled:
            self.notify("Indexing was cancelled; the index holds what was done.", severity="warning")
        elif message.manual or report.parsed or report.removed:
            self.notify(
                f"{report.files:,} files · {report.parsed:,} parsed · {report.removed:,} removed "
                f"· {len(report.skipped):,} skipped · {report.seconds:.1f}s",
                title="Index up to date",
            )

    def watch_indexing(self, indexing: bool) -> None:
        if indexing:
            self._progress_timer = self.set_interval(PROGRESS_INTERVAL, self._poll_progress)
        else:
            if self._progress_timer is not None:
                self._progress_timer.stop()
                self._progress_timer = None
            self.query_one("#progress").display = False
        self._update_subtitle()

    def _update_subtitle(self) -> None:
        if self.indexing and not self._populated:
            self.sub_title = "indexing…"
            return
        st = self.index.stats()
        text = f"{st.files:,} files · {st.symbols:,} symbols · {st.tokens:,} tokens"
        self.sub_title = text + (" · updating…" if self.indexing else "")

    def _populate(self) -> None:
        """Load the tree, notice, current file and bundle from the index."""
        files = self.index.files()
        self._populated = True
        tree = self.query_one(RepoTree)
        tree.load(files, self.repo_name)
        notice = self.query_one("#notice", Static)
        source = self.query_one(SourceView)
        if not files:
            notice.update(self._empty_message())
            notice.display = True
            source.display = False
        else:
            notice.display = False
            source.display = True
        path, sym = self.current_path, self.current_symbol
        if path is not None and self.index.file(path) is None:
            path = sym = None
        if sym is not None:
            try:
                sym = self.index.symbol(sym.id)
            except SymscopeError:
                sym = None
        # Re-read the file even if the path is the same: it may have changed.
        self.set_reactive(SymscopeApp.current_path, None)
        self.current_path = path
        self.current_symbol = sym
        if path is None and files:
            source.show_placeholder("Pick a file (1) or a symbol (2),\nor search (/).")
        self.query_one(SearchPane).rerun()
        self._refresh_bundle(save=False)
        self._update_subtitle()

    def _empty_message(self) -> str:
        names = ", ".join(sorted(all_languages()))
        skipped = self.index.skipped()
        lines = [
            f"[b]No supported source files in {self.index.root}[/b]",
            "",
            f"symscope indexes: {names}.",
        ]
        if skipped:
            reasons: dict[str, int] = {}
            for s in skipped:
                reasons[s.reason] = reasons.get(s.reason, 0) + 1
            summary = "; ".join(f"{n:,} {reason}" for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
            lines += ["", f"Skipped {len(skipped):,} files: {summary}."]
        lines += ["", "Add source files and press [b]r[/b] to index again, or [b]q[/b] to quit."]
        return "\n".join(lines)

    # -- state flowing down --------------------------------------------------------------

    def watch_current_path(self, path: str | None) -> None:
        source = self.query_one(SourceView)
        outline = self.query_one(Outline)
        if path is None:
            outline.load(None, [])
            outline.border_title = "Outline"
            source.border_title = "Source"
            source.border_subtitle = ""
            self._update_counters()
            return
        rec = self.index.file(path)
        try:
            text = self.index.file_text(path)
        except SymscopeError as exc:
            self.notify(str(exc), severity="error")
            source.show_placeholder(str(exc))
            outline.load(None, [])
            return
        outline.load(path, self.index.outline(path))
        outline.border_title = f"Outline · {outline.symbol_count}"
        source.show_file(path, text, rec.language if rec else "")
        source.border_title = path
        if rec is not None:
            stale = not self.index.file_is_current(path)
            source.border_subtitle = (
                f"{rec.language} · {rec.lines:,} lines · {fmt.tokens(rec.tokens)} tok"
                + (" · changed since indexing: r refreshes" if stale else "")
            )
        self.query_one(RepoTree).reveal(path)
        self._update_counters()

    def watch_current_symbol(self, sym: Symbol | None) -> None:
        if sym is not None and sym.path != self.current_path:
            self.current_path = sym.path
        source = self.query_one(SourceView)
        outline = self.query_one(Outline)
        if sym is None:
            source.marked = None
            outline.select_symbol(None)
        else:
            source.mark(sym.start_line, sym.end_line)
            outline.select_symbol(sym.id)
        self._update_counters()

    def watch_price(self, price: float) -> None:
        self.query_one(Counters).price = price

    def watch_show_bundle(self, show: bool) -> None:
        self.query_one("#main").set_class(show, "-bundle")
        if show:
            self.query_one(BundleView).table.focus()
        elif self.focused is None or self.query_one(BundleView) in self.focused.ancestors_with_self:
            self.query_one(SourceView).focus()

    def watch_show_sidebar(self, show: bool) -> None:
        self.query_one("#main").set_class(not show, "-no-sidebar")
        if not show and self.focused is not None and self.query_one("#sidebar") in self.focused.ancestors:
            self.query_one(SourceView).focus()

    def _update_counters(self) -> None:
        counters = self.query_one(Counters)
        sym, path = self.current_symbol, self.current_path
        if sym is not None:
            counters.current = SymbolCost(sym.qualname, sym.kind, self.index.savings([sym]))
        elif path is not None and (rec := self.index.file(path)) is not None:
            counters.current = FileCost(path, rec.tokens, self.index.repo_tokens())
        else:
            counters.current = None

    # -- bundle ----------------------------------------------------------------------------

    def _load_bundle(self) -> None:
        path = bundle_path(self.index)
        try:
            self.bundle = Bundle.load(path)
        except BundleError as exc:
            backup = path.with_suffix(".json.bad")
            try:
                path.replace(backup)
                note = f"; moved it to {backup}"
            except OSError:
                note = ""
            self.notify(f"{exc}{note}. Starting with an empty bundle.", severity="warning", timeout=8)
            self.bundle = Bundle()

    def _refresh_bundle(self, save: bool = True, cursor_key: str | None = None) -> None:
        """Persist (optionally), re-resolve, and push the bundle's state to every pane."""
        if save:
            try:
                self.bundle.save(bundle_path(self.index))
            except BundleError as exc:
                self.notify(str(exc), severity="error")
        self.resolved = resolve(self.bundle, self.index)
        totals = bundle_savings(self.resolved, self.index)
        flagged = sum(1 for r in self.resolved if r.flagged)
        self.query_one(Counters).bundle = BundleCost(len(self.resolved), flagged, totals)
        self.query_one(BundleView).show(self.resolved, totals, self.bundle.format, cursor_key)
        ids = {r.item.ref for r in self.resolved if r.item.type == "symbol"}
        paths = {r.path for r in self.resolved}
        self.query_one(RepoTree).set_bundled(paths)
        self.query_one(Outline).set_bundled(ids)
        self.query_one(SearchPane).set_bundled(ids)

    def toggle_symbol(self, sym: Symbol) -> None:
        added = self.bundle.toggle(BundleItem.for_symbol(sym))
        self._refresh_bundle(cursor_key=symbol_key(sym.id))
        self._bundle_toast(("Added " if added else "Removed ") + f"{sym.qualname} ({fmt.tokens(sym.tokens)} tok)")

    def toggle_file(self, path: str) -> None:
        rec = self.index.file(path)
        if rec is None:
            self.notify(f"{path} is not indexed", severity="warning")
            return
        added = self.bundle.toggle(BundleItem.for_file(rec))
        self._refresh_bundle(cursor_key=file_key(path))
        message = ("Added " if added else "Removed ") + f"whole file {path} ({fmt.tokens(rec.tokens)} tok)"
        if added and any(i.type == "symbol" and i.path == path for i in self.bundle):
            message += "; the bundle also has symbols from this file"
        self._bundle_toast(message)

    def _bundle_toast(self, message: str) -> None:
        totals = self.query_one(Counters).bundle
        if totals is not None:
            noun = "item" if totals.items == 1 else "items"
            message += f"\nBundle: {totals.items} {noun}, {fmt.tokens(totals.savings.tokens)} tok"
        self.notify(message, timeout=2.5)

    def open_item(self, key: str) -> None:
        for r in self.resolved:
            if r.key != key:
                continue
            if r.symbol is not None:
                self.current_symbol = r.symbol
            elif r.file is not None:
                self.current_symbol = None
                self.current_path = r.file.path
            else:
                self.notify(f"{r.name}: {r.note}", severity="warning")
            return

    @on(BundleView.ItemChosen)
    def _bundle_item_chosen(self, message: BundleView.ItemChosen) -> None:
        self.open_item(message.key)

    @on(BundleView.RemoveRequested)
    def _bundle_remove(self, message: BundleView.RemoveRequested) -> None:
        i = self.bundle.index_of(message.key)
        if self.bundle.remove(message.key):
            keys = self.bundle.keys
            next_key = keys[min(i, len(keys) - 1)] if keys else None
            self._refresh_bundle(cursor_key=next_key)
            self._bundle_toast("Removed 1 item")

    @on(BundleView.MoveRequested)
    def _bundle_move(self, message: BundleView.MoveRequested) -> None:
        self.bundle.move(message.key, message.delta)
        self._refresh_bundle(cursor_key=message.key)

    @on(BundleView.AcceptRequested)
    def _bundle_accept(self, message: BundleView.AcceptRequested) -> None:
        self.accept_changes(only=message.key)

    def accept_changes(self, only: str | None = None) -> None:
        """Record the current state of changed items, clearing their flags."""
        accepted = 0
        for r in self.resolved:
            if (only is None or r.key == only) and r.status == "changed":
                item = r.current_item()
                if item is not None:
                    self.bundle.replace(r.key, item)
                    accepted += 1
        self._refresh_bundle(cursor_key=only)
        self.notify(f"Accepted {accepted} changed item{'s' if accepted != 1 else ''}")

    def remove_missing(self) -> None:
        gone = [r.key for r in self.resolved if r.status == "missing"]
        for key in gone:
            self.bundle.remove(key)
        self._refresh_bundle()
        self.notify(f"Removed {len(gone)} missing item{'s' if len(gone) != 1 else ''}")

    def clear_bundle(self) -> None:
        n = len(self.bundle)
        self.bundle.clear()
        self._refresh_bundle()
        self.notify(f"Cleared the bundle ({n} item{'s' if n != 1 else ''})")

    def copy_bundle(self, fmt_name: str | None = None) -> None:
        """Render the bundle and put it on the clipboard."""
        self.resolved = resolve(self.bundle, self.index)
        chosen: Format = "xml" if (fmt_name or self.bundle.format) == "xml" else "markdown"
        rendered = render(self.resolved, chosen)
        if rendered.items == 0:
            extra = f" ({len(rendered.left_out)} flagged item(s) cannot be copied)" if rendered.left_out else ""
            self.notify("The bundle is empty; a adds the current symbol." + extra, severity="warning")
            return
        try:
            method = self.clipboard_fn(rendered.text)
        except Exception as exc:
            self.notify(f"Copy failed: {exc}. Use s to save the bundle to a file instead.",
                        severity="error")
            return
        noun = "item" if rendered.items == 1 else "items"
        label = "XML" if chosen == "xml" else "Markdown"
        self.notify(
            f"Copied {fmt.tokens(rendered.tokens)} tokens ({rendered.items} {noun}) as {label} via {method}",
            title="Copied",
        )
        if rendered.left_out:
            names = ", ".join(r.name for r in rendered.left_out[:3])
            self.notify(f"Left out {len(rendered.left_out)} flagged item(s): {names}", severity="warning")

    def save_bundle_to(self, target: Path) -> None:
        self.resolved = resolve(self.bundle, self.index)
        chosen: Format = "xml" if target.suffix.lower() == ".xml" else self.bundle.format
        rendered = render(self.resolved, chosen)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(rendered.text, encoding="utf-8")
        except OSError as exc:
            self.notify(f"Cannot write {target}: {exc.strerror or exc}", severity="error")
            return
        noun = "item" if rendered.items == 1 else "items"
        self.notify(f"Saved {rendered.items} {noun} · {fmt.tokens(rendered.tokens)} tokens to {target}",
                    title="Saved")

    def default_save_path(self) -> Path:
        folder = self.save_dir if self.save_dir is not None else Path.cwd()
        return folder / (DEFAULT_BUNDLE_NAME + FORMAT_SUFFIX[self.bundle.format])

    # -- messages from the panes ----------------------------------------------------------

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
    def _toggle_requested(self, message: Outline.ToggleRequested | SearchPane.ToggleRequested) -> None:
        self.toggle_symbol(message.symbol)

    @on(SearchPane.Left)
    def _search_left(self) -> None:
        self.query_one(SourceView).focus()

    @on(SourceView.LineClicked)
    def _line_clicked(self, message: SourceView.LineClicked) -> None:
        inside = [s for s in self.index.file_symbols(message.path)
                  if s.start_line <= message.line <= s.end_line]
        if inside:
            self.current_symbol = min(inside, key=lambda s: (s.end_line - s.start_line, -s.start_line))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "index" and event.state in (WorkerState.ERROR, WorkerState.CANCELLED):
            self.indexing = False

    # -- actions ------------------------------------------------------------------------

    def action_focus_search(self) -> None:
        self.query_one(SearchPane).focus_input()

    def action_focus_pane(self, name: str) -> None:
        if name in ("tree", "outline") and not self.show_sidebar:
            self.show_sidebar = True
        target: Widget
        if name == "tree":
            target = self.query_one(RepoTree)
        elif name == "outline":
            target = self.query_one(Outline)
        elif name == "search":
            target = self.query_one(SearchPane).input
        elif name == "bundle":
            self.show_bundle = True
            target = self.query_one(BundleView).table
        else:
            target = self.query_one(SourceView)
        target.focus()

    def action_toggle_symbol(self) -> None:
        sym = self.current_symbol
        if sym is None:
            self.notify("No symbol picked: choose one in the outline (2) or search (/).",
                        severity="warning")
            return
        self.toggle_symbol(sym)

    def action_toggle_file(self) -> None:
        if self.current_path is None:
            self.notify("No file open: pick one in the files pane (1).", severity="warning")
            return
        self.toggle_file(self.current_path)

    def action_toggle_bundle_view(self) -> None:
        self.show_bundle = not self.show_bundle

    def action_toggle_sidebar(self) -> None:
        self.show_sidebar = not self.show_sidebar

    def action_resize_sidebar(self, delta: int) -> None:
        """Grow or shrink the files/outline column, within what leaves room for the source."""
        sidebar = self.query_one("#sidebar")
        if not self.show_sidebar:
            self.show_sidebar = True
        current = sidebar.outer_size.width or SIDEBAR_MIN_WIDTH
        limit = max(SIDEBAR_MIN_WIDTH, self.size.width - CONTENT_MIN_WIDTH)
        width = max(SIDEBAR_MIN_WIDTH, min(limit, current + delta))
        sidebar.styles.width = width
        sidebar.styles.max_width = None

    def action_copy_bundle(self, fmt_name: str = "") -> None:
        self.copy_bundle(fmt_name or None)

    def action_toggle_format(self) -> None:
        self.bundle.format = "xml" if self.bundle.format == "markdown" else "markdown"
        self._refresh_bundle()
        label = "XML" if self.bundle.format == "xml" else "Markdown"
        self.notify(f"Bundle format: {label} (c copies, s saves)")

    def action_save_bundle(self) -> None:
        def done(value: str | None) -> None:
            if value:
                self.save_bundle_to(Path(value).expanduser())

        self.push_screen(
            PromptScreen("Save bundle", "Write the bundle to this file (.xml saves XML):",
                         str(self.default_save_path()), _validate_path),
            done,
        )

    def action_refresh_index(self) -> None:
        self.start_index(manual=True)

    def action_rebuild_index(self) -> None:
        self.start_index(manual=True, rebuild=True)

    def action_set_price(self) -> None:
        def done(value: str | None) -> None:
            if value is not None:
                price = fmt.parse_price(value)
                if price is not None:
                    self.price = price
                    self.notify(f"Price: {fmt.money(price)} per million tokens")

        self.push_screen(
            PromptScreen("Price", f"Dollars per million input tokens (default from "
                         f"{fmt.PRICE_ENV}, else ${fmt.DEFAULT_PRICE_PER_MTOK:.2f}):",
                         f"{self.price:g}",
                         lambda v: None if fmt.parse_price(v) is not None else "Enter a number like 3 or 0.25"),
            done,
        )

    def action_search_filter(self, key: str, value: str = "") -> None:
        self.query_one(SearchPane).apply_filter(key, value or None)

    def action_prompt_path_filter(self) -> None:
        def done(value: str | None) -> None:
            if value is not None:
                self.action_search_filter("path", value.strip())

        self.push_screen(PromptScreen("Filter by path", "Only paths matching this glob or folder "
                                      "(lib/*, *.go, src/api); empty clears:", ""), done)

    def action_clear_filters(self) -> None:
        pane = self.query_one(SearchPane)
        for key in ("kind", "language", "path"):
            pane.apply_filter(key, None)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.help_rows(), _HELP_INTRO))

    def help_rows(self) -> list[HelpRow]:
        """Every described binding, grouped by where it works."""
        show = self.get_key_display
        rows = binding_rows("Anywhere", self.BINDINGS, show)
        rows.append(HelpRow("Anywhere", show(Binding(self.COMMAND_PALETTE_BINDING, "")),
                            "Command palette: every action, themes"))
        rows.append(HelpRow("Anywhere", "^q", "Quit"))
        rows += binding_rows("Search", SearchPane.BINDINGS, show)
        rows.append(HelpRow("Search", "enter", "Open the highlighted result"))
        rows += binding_rows("Outline", Outline.BINDINGS, show)
        rows.append(HelpRow("Trees", "enter, click", "Open the file or symbol"))
        rows.append(HelpRow("Trees", "arrows, space", "Move; open or close folders"))
        rows += binding_rows("Source", SourceView.BINDINGS, show)
        rows.append(HelpRow("Source", "click", "Pick the symbol on that line"))
        rows += binding_rows("Bundle", BundleView.BINDINGS, show)
        rows.append(HelpRow("Bundle", "enter", "Open the item"))
        return rows


_HELP_INTRO = (
    "Pick symbols, not files. Search with words or identifiers; filters go in the box: "
    "[b]kind:[/]class [b]lang:[/]go [b]path:[/]lib/*. Add symbols to the bundle and copy it as "
    "one paste-ready block. Counters show exact tokens and what you save against whole files."
)


def _validate_path(value: str) -> str | None:
    if not value.strip():
        return "Enter a file path"
    target = Path(value).expanduser()
    if target.is_dir():
        return f"{target} is a folder; add a file name"
    return None


def _start_resource_tracker() -> None:
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


def run_app(index: Index) -> int:
    """Run the TUI on `index` until the user quits; returns the exit code."""
    _start_resource_tracker()
    app = SymscopeApp(index, update_delay=STARTUP_UPDATE_DELAY)
    try:
        result = app.run()
    finally:
        index.close()
    return int(result or 0) if app.return_code in (None, 0) else int(app.return_code)
