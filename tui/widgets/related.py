"""`RelatedPane`: what the current symbol uses and what uses it, following the selection.

Two branches: *Uses* (the repo symbols its code calls, instantiates, inherits, or
reads, in order of first use; ambiguous names list every candidate, marked `?`)
and *Used by* (the symbols whose code uses it, with the line of the use). Each row
shows kind, name, tokens and where. Enter opens a row (which makes it the current
symbol, so the pane then shows its own uses and callers); `space` or `a` adds or
removes it.

The App's current symbol is bound in (`symbol`), as is whether the pane is shown
(`active`): a hidden pane computes nothing. The engine's answers come from a thread
worker (`core/related.py`); a newer symbol cancels the older worker, and a
result for a symbol no longer current is dropped. Names and paths are untrusted:
labels go through `sanitize.for_terminal`, as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.binding import BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Tree
from textual.widgets.tree import TreeNode
from textual.worker import get_current_worker

from symscope.core.api import RelatedRow, RelatedRows, Workspace, for_terminal
from symscope.core.models import Symbol
from symscope.tui import formatting as fmt
from symscope.tui.bundle_controller import BundleState
from symscope.tui.keys import bindings

#: Seconds the selection must rest on a symbol before its relations are computed.
SETTLE = 0.05


class RelatedPane(Tree[RelatedRow | None]):
    """Uses and callers of the App's current symbol, as a two-branch tree."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "related--heading",
        "related--kind",
        "related--meta",
        "related--bundled",
        "related--ambiguous",
    }

    DEFAULT_CSS = """
    RelatedPane {
        & > .related--heading { color: $text-primary; text-style: bold; }
        & > .related--kind { color: $text-secondary; }
        & > .related--meta { color: $text-muted; }
        & > .related--bundled { color: $text-accent; text-style: bold; }
        & > .related--ambiguous { color: $text-warning; text-style: bold; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("related")
    BORDER_TITLE = "Related"

    symbol: reactive[Symbol | None] = reactive(None, init=False)
    """The App's current symbol (bound with `data_bind`)."""
    active: reactive[bool] = reactive(False, init=False)
    """The pane is shown (bound): only then is anything computed."""
    bundled: reactive[BundleState] = reactive(BundleState, init=False)
    """The App's bundle (bound): symbols in it get a mark."""

    @dataclass
    class SymbolChosen(Message):
        """Open this symbol (Enter on a row)."""

        pane: RelatedPane
        symbol: Symbol

        @property
        def control(self) -> RelatedPane:
            return self.pane

    @dataclass
    class ToggleRequested(Message):
        """Add or remove this symbol."""

        pane: RelatedPane
        symbol: Symbol

        @property
        def control(self) -> RelatedPane:
            return self.pane

    @dataclass
    class _Loaded(Message):
        related: RelatedRows

    def __init__(self, ws: Workspace, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("related", id=id, classes=classes)
        self.ws = ws
        self.show_root = False
        self.guide_depth = 2
        self.auto_expand = False
        self.shown: RelatedRows | None = None
        """The relations on screen (None: none yet, or being computed)."""
        self._bundled: frozenset[str] = frozenset()
        self._timer: Timer | None = None
        self._rows: list[RelatedRow] = []
        self._row_nodes: dict[str, list[TreeNode[RelatedRow | None]]] = {}
        """Symbol ID -> its rows (a symbol can be both a use and a caller)."""

    def on_mount(self) -> None:
        self._placeholder("Pick a symbol to see what it uses and what uses it.")

    # -- following the selection -------------------------------------------------------

    def watch_symbol(self) -> None:
        self._schedule()

    def watch_active(self, active: bool) -> None:
        if active:
            self._schedule(immediately=True)
        else:
            self._stop()

    def reload(self) -> None:
        """Compute again (the index changed: new callers may exist)."""
        self.shown = None
        self._schedule(immediately=True)

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.workers.cancel_group(self, "related")

    def _schedule(self, immediately: bool = False) -> None:
        self._stop()
        sym = self.symbol
        if not self.active:
            return
        if sym is None:
            self.shown = None
            self._placeholder("Pick a symbol to see what it uses and what uses it.")
            return
        if self.shown is not None and self.shown.symbol == sym:
            return
        self.border_subtitle = "…"
        if immediately:
            self._compute(sym)
        else:
            self._timer = self.set_timer(SETTLE, lambda: self._compute(sym))

    @work(thread=True, exclusive=True, group="related", exit_on_error=False)
    def _compute(self, sym: Symbol) -> None:
        result = self.ws.related_rows(sym)
        if not get_current_worker().is_cancelled:
            self.post_message(self._Loaded(result))

    @on(_Loaded)
    def _loaded(self, message: RelatedPane._Loaded) -> None:
        message.stop()
        if message.related.symbol != self.symbol or not self.active:
            return  # the selection moved on
        self.show(message.related)

    # -- drawing -------------------------------------------------------------------------

    def _reset(self) -> None:
        self.clear()
        self._rows = []
        self._row_nodes = {}

    def _add_row(self, parent: TreeNode[RelatedRow | None], row: RelatedRow) -> None:
        node = parent.add_leaf(Text(for_terminal(row.symbol.qualname)), row)
        self._rows.append(row)
        self._row_nodes.setdefault(row.symbol.id, []).append(node)

    def _placeholder(self, text: str) -> None:
        self._reset()
        self.root.add_leaf(Text(text, style="italic"), None)
        self.border_title = "Related"
        self.border_subtitle = ""

    def show(self, rel: RelatedRows) -> None:
        """Put `rel`'s uses and callers on screen (the cursor goes to the first row)."""
        self.shown = rel
        self._reset()
        self.border_title = Text(f"Related · {for_terminal(rel.symbol.qualname)}")
        if rel.error is not None:
            self.root.add_leaf(Text(for_terminal(rel.error), style="italic"), None)
            self.border_subtitle = ""
            return
        uses = self.root.add(self._heading("Uses", len(rel.uses), rel.uses_tokens), None, expand=True)
        for row in rel.uses:
            self._add_row(uses, row)
        if not rel.uses:
            uses.add_leaf(Text("nothing in this repo", style="italic"), None)
        more = "+" if rel.more_callers else ""
        callers = self.root.add(self._heading("Used by", len(rel.callers), None, more), None, expand=True)
        for row in rel.callers:
            self._add_row(callers, row)
        if not rel.callers:
            callers.add_leaf(Text("no callers found", style="italic"), None)
        self.border_subtitle = f"uses {len(rel.uses)} · used by {len(rel.callers)}{more}"
        self.cursor_line = 1 if rel.uses else -1

    def _heading(self, title: str, count: int, tokens: int | None, more: str = "") -> Text:
        label = Text(f"{title} · {count}{more}", style="bold")
        if tokens:
            label.append(f" · {fmt.tokens(tokens)} tok")
        return label

    @property
    def rows(self) -> list[RelatedRow]:
        """Every row on screen, uses first."""
        return list(self._rows)

    def watch_bundled(self, state: BundleState) -> None:
        """Mark symbols in the bundle (only the rows that change are redrawn)."""
        ids = state.symbol_ids
        changed = self._bundled ^ ids
        self._bundled = ids
        for symbol_id in changed:
            for node in self._row_nodes.get(symbol_id, ()):
                node.refresh()

    def render_label(self, node: TreeNode[RelatedRow | None], base_style: Style, style: Style) -> Text:
        row = node.data
        part = self.get_component_rich_style
        if row is None:
            label = super().render_label(node, base_style, style)
            if node.allow_expand and node.parent is not None:  # a heading (not the hidden root)
                label.stylize(part("related--heading", partial=True))
            return label
        sym = row.symbol
        label = Text()
        if sym.id in self._bundled:
            label.append("● ", style + part("related--bundled", partial=True))
        if row.ambiguous:
            label.append("? ", style + part("related--ambiguous", partial=True))
        label.append(f"{fmt.kind_label(sym.kind)} ", style + part("related--kind", partial=True))
        label.append(for_terminal(sym.qualname), style)
        label.append(f"  {fmt.tokens(sym.tokens)}  {for_terminal(row.where)}",
                     style + part("related--meta", partial=True))
        return label

    # -- keys ----------------------------------------------------------------------------

    @property
    def highlighted(self) -> Symbol | None:
        node = self.cursor_node
        return node.data.symbol if node is not None and node.data is not None else None

    def action_toggle_bundle(self) -> None:
        sym = self.highlighted
        if sym is not None:
            self.post_message(self.ToggleRequested(self, sym))

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[RelatedRow | None]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.SymbolChosen(self, event.node.data.symbol))

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[RelatedRow | None]) -> None:
        event.stop()  # moving through the rows previews nothing: the pane would follow itself
