"""`BundleView`: the context bundle as a list; reorder, remove, open items, set levels.

The pane only displays the App's `bundled` state (bound with `data_bind`) and posts
requests up; the App's `BundleController` owns the `Bundle`, persists it and resolves
it again, and the new state flows back down.

Each row shows the level the item is pasted at (`full`, `sig`, `name`; `↓` when a
budget lowered it, `drop` when it left it out) and marks items added as
dependencies (`↳`, with the item they were added for in the last column). Under the
list, the savings panel draws the bundle against its files and the repo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable, Static

from symscope.core.api import Detail, ResolvedItem, for_terminal
from symscope.tui import formatting as fmt
from symscope.tui.actions import KeyHints
from symscope.tui.bundle_controller import BundleState
from symscope.tui.keys import bindings
from symscope.tui.widgets.savings import SavingsPanel

_FLAG_TEXT = {"ok": "", "changed": "⚠ changed", "missing": "✗ missing", "stale": "⚠ stale"}
#: Component class (theme-coloured in DEFAULT_CSS) of each flag.
_FLAG_CLASS = {"changed": "bundle--warning", "missing": "bundle--error", "stale": "bundle--warning"}
#: How each detail level is shown in the level column.
LEVEL_LABEL: dict[Detail, str] = {"full": "full", "signature": "sig", "name": "name"}


def level_text(state: BundleState, key: str) -> str:
    """The level column of one item: what is pasted (`↓` if the budget lowered it), or `drop`."""
    cap = state.level(key)
    packing = state.packing
    if packing is None or key not in packing.levels:
        return LEVEL_LABEL[cap]
    level = packing.levels[key]
    if level is None:
        return "drop"
    return LEVEL_LABEL[level] + ("↓" if level != cap else "")


class BundleTable(DataTable[Text]):
    """The bundle's rows (a distinct type so CSS and tests can find it)."""


class BundleView(Vertical):
    """Lists bundle items in order with their tokens and staleness flags.

    Names and paths are untrusted: they are drawn only after `sanitize.for_terminal`.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"bundle--warning", "bundle--error", "bundle--dependency"}

    DEFAULT_CSS = """
    BundleView {
        & > .bundle--warning { color: $text-warning; text-style: bold; }
        & > .bundle--error { color: $text-error; text-style: bold; }
        & > .bundle--dependency { color: $text-secondary; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("bundle")

    bundled: reactive[BundleState] = reactive(BundleState, init=False)
    """The App's bundle (bound with `data_bind`)."""
    hints: reactive[KeyHints] = reactive(KeyHints, init=False)
    """The App's key names, for the hint shown while the bundle is empty."""

    @dataclass
    class ItemChosen(Message):
        """Open this item in the source view."""

        view: BundleView
        key: str

    @dataclass
    class RemoveRequested(Message):
        view: BundleView
        key: str

    @dataclass
    class MoveRequested(Message):
        view: BundleView
        key: str
        delta: int

    @dataclass
    class AcceptRequested(Message):
        """Accept the current state of a flagged (changed) item."""

        view: BundleView
        key: str

    @dataclass
    class RemoveGroupRequested(Message):
        """Remove an item with the items added as its dependencies."""

        view: BundleView
        key: str

    @dataclass
    class LevelRequested(Message):
        """Switch an item to its next detail level."""

        view: BundleView
        key: str

    @property
    def items(self) -> tuple[ResolvedItem, ...]:
        return self.bundled.items

    def compose(self) -> ComposeResult:
        yield BundleTable(id="bundle-table", cursor_type="row", zebra_stripes=True)
        yield Static(self._empty_hint(), id="bundle-empty")
        yield SavingsPanel(id="savings").data_bind(BundleView.bundled)

    def on_mount(self) -> None:
        table = self.table
        table.add_column("#", key="n")
        table.add_column("tokens", key="tokens")
        table.add_column("level", key="level")
        table.add_column("kind", key="kind")
        table.add_column("item", key="item")
        table.add_column("where", key="where")
        self.border_title = "Bundle"
        self.watch(self.app, "theme", lambda: self._show(self.bundled), init=False)
        self._sync_empty()

    @property
    def table(self) -> BundleTable:
        return self.query_one(BundleTable)

    @property
    def cursor_key(self) -> str | None:
        row = self.table.cursor_row
        items = self.items
        if not items or row < 0 or row >= len(items):
            return None
        return items[row].key

    def _empty_hint(self) -> Content:
        h = self.hints
        return Content.from_markup(
            "The bundle is empty.\n\n[b]$add[/] adds the current symbol, [b]$file[/] the whole file;"
            " [b]$copy[/] copies it all as one paste-ready block.",
            add=h["app.toggle_symbol"], file=h["app.toggle_file"], copy=h["app.copy"],
        )

    def watch_hints(self) -> None:
        self.query_one("#bundle-empty", Static).update(self._empty_hint())

    def watch_bundled(self, old: BundleState, new: BundleState) -> None:
        self._show(new, keep=new.cursor_key or self._key_at(old, self.table.cursor_row))

    @staticmethod
    def _key_at(state: BundleState, row: int) -> str | None:
        return state.items[row].key if 0 <= row < state.count else None

    def _show(self, state: BundleState, keep: str | None = None) -> None:
        """Display the state's items (in order); keep the cursor on `keep` or the current row."""
        keep = keep or self.cursor_key
        table = self.table
        old_row = table.cursor_row
        table.clear()
        dependency_style = self.get_component_rich_style("bundle--dependency")
        for n, r in enumerate(state.items, start=1):
            name = Text()
            of = state.dependency_of.get(r.key)
            if of is not None:
                name.append("↳ ", style=dependency_style)
            if r.flagged:
                flag_style = self.get_component_rich_style(_FLAG_CLASS.get(r.status, "bundle--warning"))
                name.append(_FLAG_TEXT[r.status] + " ", style=flag_style)
            shown = r.name if r.item.type == "symbol" else r.path.rsplit("/", 1)[-1]
            name.append(for_terminal(shown), style=dependency_style if of is not None else "bold")
            where = f"{r.path}:{r.start_line}-{r.end_line}" + (f" · dep of {of.name}" if of is not None else "")
            level = level_text(state, r.key)
            own = state.item_tokens(r.key)  # its lines in the text now; None: left out (flagged)
            table.add_row(
                Text(str(n), style="dim", justify="right"),
                Text("-" if own is None else fmt.tokens(own), justify="right"),
                Text(level, style="bold" if level != "full" else "dim"),
                Text(for_terminal(fmt.kind_label(r.kind)), style="italic"),
                name,
                Text(for_terminal(where), style="dim"),
                key=r.key,
            )
        label = "Markdown" if state.format == "markdown" else "XML"
        self.border_title = f"Bundle · {label}"
        noun = "item" if state.count == 1 else "items"
        flagged, deps = state.flagged, state.dependencies
        self.border_subtitle = (f"{state.count} {noun} · {fmt.tokens(state.tokens)} tok"
                                + (f" · {deps} dep{'s' if deps != 1 else ''}" if deps else "")
                                + (f" · {flagged} flagged" if flagged else ""))
        if state.items:
            keys = [r.key for r in state.items]
            row = keys.index(keep) if keep in keys else min(max(old_row, 0), len(keys) - 1)
            table.move_cursor(row=row, animate=False)
        self._sync_empty()

    def _sync_empty(self) -> None:
        empty = not self.items
        self.table.display = not empty
        self.query_one("#bundle-empty", Static).display = empty

    def action_remove(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.RemoveRequested(self, key))

    def action_move(self, delta: int) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.MoveRequested(self, key, delta))

    def action_cursor(self, delta: int) -> None:
        """`j`/`k`: move the cursor (`J`/`K` move the item)."""
        table = self.table
        if self.items:
            table.move_cursor(row=max(0, min(len(self.items) - 1, table.cursor_row + delta)), animate=False)

    def action_accept(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.AcceptRequested(self, key))

    def action_remove_group(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.RemoveGroupRequested(self, key))

    def action_cycle_level(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.LevelRequested(self, key))

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.ItemChosen(self, str(event.row_key.value)))
