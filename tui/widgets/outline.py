"""`Outline`: the symbols of the current file, nested (class -> methods)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from symscope.core.api import for_terminal
from symscope.core.models import OutlineNode, Symbol
from symscope.tui import formatting as fmt
from symscope.tui.bundle_controller import BundleState
from symscope.tui.keys import bindings


class Outline(Tree[Symbol]):
    """Each row: kind, name, first line and exact tokens. Moving the cursor previews.

    Symbol names are untrusted: labels go through `sanitize.for_terminal`, as plain text.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "outline--kind",
        "outline--container",
        "outline--meta",
        "outline--bundled",
    }

    DEFAULT_CSS = """
    Outline {
        & > .outline--kind { color: $text-secondary; }
        & > .outline--container { color: $text-warning; text-style: bold; }
        & > .outline--meta { color: $text-muted; }
        & > .outline--bundled { color: $text-accent; text-style: bold; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("outline")
    BORDER_TITLE = "Outline"

    @dataclass
    class SymbolChosen(Message):
        """The user picked (or moved the cursor onto) a symbol."""

        outline: Outline
        symbol: Symbol

        @property
        def control(self) -> Outline:
            return self.outline

    @dataclass
    class ToggleRequested(Message):
        """The user asked to add or remove the symbol under the cursor."""

        outline: Outline
        symbol: Symbol

        @property
        def control(self) -> Outline:
            return self.outline

    bundled: reactive[BundleState] = reactive(BundleState, init=False)
    """The App's bundle (bound with `data_bind`): symbols in it get a mark."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("outline", id=id, classes=classes)
        self.show_root = False
        self.guide_depth = 2
        self.auto_expand = False
        self.path: str | None = None
        self._index_nodes: dict[str, TreeNode[Symbol]] = {}
        self._bundled: frozenset[str] = frozenset()

    @property
    def symbol_count(self) -> int:
        return len(self._index_nodes)

    def load(self, path: str | None, nodes: list[OutlineNode]) -> None:
        """Show the outline of `path` (everything expanded)."""
        self.path = path
        self.clear()
        self._index_nodes = {}
        self._add(self.root, nodes)
        self.root.expand_all()
        self.cursor_line = -1
        self.border_title = f"Outline · {self.symbol_count}" if path is not None else "Outline"

    def _add(self, parent: TreeNode[Symbol], nodes: list[OutlineNode]) -> None:
        for n in nodes:
            if n.children:
                node = parent.add(Text(for_terminal(n.symbol.name)), n.symbol, expand=True)
                self._add(node, n.children)
            else:
                node = parent.add_leaf(Text(for_terminal(n.symbol.name)), n.symbol)
            self._index_nodes[n.symbol.id] = node

    def select_symbol(self, symbol_id: str | None) -> None:
        """Put the cursor on a symbol (no message is posted for it)."""
        node = self._index_nodes.get(symbol_id) if symbol_id else None
        if node is None:
            self.cursor_line = -1
            return
        self.call_after_refresh(self._move_to, node)

    def _move_to(self, node: TreeNode[Symbol]) -> None:
        if node.tree is self and node.line >= 0 and self.cursor_node is not node:
            with self.prevent(Tree.NodeHighlighted):
                self.move_cursor(node)

    def watch_bundled(self, state: BundleState) -> None:
        """Mark symbols that are in the bundle (only the rows that change are redrawn)."""
        ids = state.symbol_ids
        changed = self._bundled ^ ids
        self._bundled = ids
        for symbol_id in changed:
            node = self._index_nodes.get(symbol_id)
            if node is not None:
                node.refresh()

    def render_label(self, node: TreeNode[Symbol], base_style: Style, style: Style) -> Text:
        sym = node.data
        if sym is None:
            return super().render_label(node, base_style, style)
        kind_style = "outline--container" if node.children else "outline--kind"
        label = Text()
        if sym.id in self._bundled:
            label.append("● ", style + self.get_component_rich_style("outline--bundled", partial=True))
        label.append(f"{fmt.kind_label(sym.kind)} ", style + self.get_component_rich_style(kind_style, partial=True))
        label.append(for_terminal(sym.name), style)
        label.append(
            f"  L{sym.start_line}  {fmt.tokens(sym.tokens)}",
            style + self.get_component_rich_style("outline--meta", partial=True),
        )
        return label

    def action_toggle_bundle(self) -> None:
        node = self.cursor_node
        if node is not None and node.data is not None:
            self.post_message(self.ToggleRequested(self, node.data))

    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[Symbol]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.SymbolChosen(self, event.node.data))

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[Symbol]) -> None:
        event.stop()
        if self.has_focus and event.node.data is not None:
            self.post_message(self.SymbolChosen(self, event.node.data))
