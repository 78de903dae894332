"""`BundleView`: the context bundle as a list; reorder, remove, open items.

The pane only displays what the App gives it (`show`) and posts requests up;
the App owns the `Bundle`, persists it and pushes the new state back down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from symscope.core.bundle import Format, ResolvedItem
from symscope.core.models import Savings
from symscope.tui import formatting as fmt

_FLAG_TEXT = {"ok": "", "changed": "⚠ changed", "missing": "✗ missing", "stale": "⚠ stale"}
_FLAG_STYLE = {"changed": "bold yellow", "missing": "bold red", "stale": "bold yellow"}


class BundleTable(DataTable[Text]):
    """The bundle's rows (a distinct type so CSS and tests can find it)."""


class BundleView(Vertical):
    """Lists bundle items in order with their tokens and staleness flags."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("delete,backspace,d,x", "remove", "Remove", id="bundle.remove"),
        Binding("K,ctrl+up,shift+up", "move(-1)", "Move up", id="bundle.up"),
        Binding("J,ctrl+down,shift+down", "move(1)", "Move down", id="bundle.down"),
        Binding("u", "accept", "Accept changes", show=False, id="bundle.accept"),
    ]

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

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.items: list[ResolvedItem] = []

    def compose(self) -> ComposeResult:
        yield BundleTable(id="bundle-table", cursor_type="row", zebra_stripes=True)
        yield Static(
            "The bundle is empty.\n\n[b]a[/] adds the current symbol, [b]A[/] the whole file;"
            " [b]c[/] copies it all as one paste-ready block.",
            id="bundle-empty",
        )

    def on_mount(self) -> None:
        table = self.table
        table.add_column("#", key="n")
        table.add_column("tokens", key="tokens")
        table.add_column("kind", key="kind")
        table.add_column("item", key="item")
        table.add_column("where", key="where")
        self.border_title = "Bundle"
        self._sync_empty()

    @property
    def table(self) -> BundleTable:
        return self.query_one(BundleTable)

    @property
    def cursor_key(self) -> str | None:
        row = self.table.cursor_row
        if not self.items or row < 0 or row >= len(self.items):
            return None
        return self.items[row].key

    def show(self, items: list[ResolvedItem], savings: Savings, fmt_name: Format,
             cursor_key: str | None = None) -> None:
        """Display `items` (in order); keep the cursor on `cursor_key` or the current row."""
        keep = cursor_key or self.cursor_key
        self.items = list(items)
        table = self.table
        old_row = table.cursor_row
        table.clear()
        for n, r in enumerate(items, start=1):
            name = Text()
            if r.flagged:
                name.append(_FLAG_TEXT[r.status] + " ", style=_FLAG_STYLE.get(r.status, ""))
            name.append(r.name if r.item.type == "symbol" else r.path.rsplit("/", 1)[-1], style="bold")
            table.add_row(
                Text(str(n), style="dim", justify="right"),
                Text(fmt.tokens(r.tokens), justify="right"),
                Text(fmt.kind_label(r.kind), style="italic"),
                name,
                Text(f"{r.path}:{r.start_line}-{r.end_line}", style="dim"),
                key=r.key,
            )
        label = "Markdown" if fmt_name == "markdown" else "XML"
        self.border_title = f"Bundle · {label}"
        flagged = sum(1 for r in items if r.flagged)
        noun = "item" if len(items) == 1 else "items"
        self.border_subtitle = f"{len(items)} {noun} · {fmt.tokens(savings.tokens)} tok" + (
            f" · {flagged} flagged" if flagged else ""
        )
        if items:
            keys = [r.key for r in items]
            row = keys.index(keep) if keep in keys else min(max(old_row, 0), len(items) - 1)
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

    def action_accept(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.AcceptRequested(self, key))

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.ItemChosen(self, str(event.row_key.value)))
