"""The one table of symscope's actions: ids, default keys, descriptions and palette entries.

Every key binding (the App's and each pane's), the command palette, the help screen and
the key hints written in the panes are built from `ACTIONS`, so a key remapped with
`App.set_keymap({"app.toggle_symbol": "plus"})` shows correctly everywhere.

No Textual imports here: the bundle controller words its messages with the same hints.
`tui/keys.py` turns the table into Textual `Binding`s and help rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from symscope.core.api import for_terminal

Scope = Literal["app", "search", "results", "tree", "outline", "related", "source", "bundle", "help", "prompt",
                "confirm", "replace", "secrets"]


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """One action: where its keys work, what it does, and how the palette lists it."""

    id: str
    """Binding id, the key of `App.set_keymap` (`app.toggle_symbol`)."""
    action: str
    """Textual action string run by the keys and the palette (`copy_bundle('xml')`)."""
    keys: str = ""
    """Default keys, comma-separated Textual key names; empty for palette-only actions."""
    description: str = ""
    """Short label (footer)."""
    help: str = ""
    """One line for the help screen, tooltips and the palette (default: `description`)."""
    scope: Scope = "app"
    show: bool = False
    """Shown in the footer."""
    palette: str = ""
    """Title in the command palette; empty: not listed. May use `{other}` (the other format)."""
    palette_help: str = ""
    """Palette help (default: `help`); may use `{format}`, `{suffix}`, `{price}`, `{price_env}`,
    `{budget}`."""
    priority: bool = False
    """Checked before the focused widget sees the key (a key an input box would otherwise type)."""

    @property
    def text(self) -> str:
        return self.help or self.description


@dataclass(frozen=True, slots=True)
class HelpNote:
    """A help-screen row for keys that are not bindings of ours (Enter in a tree, a click)."""

    scope: str
    keys: str
    """Textual key names (displayed like bindings), or literal text when `literal`."""
    text: str
    literal: bool = False


def _app(id: str, action: str, keys: str, description: str, help: str = "", *, show: bool = False,
         palette: str = "", palette_help: str = "", priority: bool = False) -> ActionSpec:
    return ActionSpec(f"app.{id}", action, keys, description, help, "app", show, palette, palette_help,
                      priority)


def _pane(scope: Scope, id: str, action: str, keys: str, description: str, help: str = "", *,
          show: bool = False, priority: bool = False) -> ActionSpec:
    return ActionSpec(f"{scope}.{id}", action, keys, description, help, scope=scope, show=show,
                      priority=priority)


ACTIONS: tuple[ActionSpec, ...] = (
    # Priority: the focus moves before the next key is handed to the pane that had it, so
    # `/d` typed fast searches for `d` (in the bundle pane, `d` alone removes an item).
    _app("search", "focus_search", "slash", "Search", "Search (kind: lang: path: filters)", show=True,
         palette="Search symbols", palette_help="Focus the search box", priority=True),
    _app("toggle_symbol", "toggle_symbol", "a", "Add/remove symbol", "Add/remove the current symbol",
         show=True, palette="Bundle: add or remove the current symbol"),
    _app("toggle_file", "toggle_file", "A,f", "Add/remove file", "Add/remove the whole current file",
         show=True, palette="Bundle: add or remove the whole current file"),
    _app("add_with_deps", "add_with_deps", "D", "Add with deps", "Add the symbol with its dependencies (asks)",
         palette="Bundle: add the current symbol with its dependencies…",
         palette_help="Shows the symbols and tokens it adds, then asks"),
    _app("bundle", "toggle('show_bundle')", "b", "Bundle", "Show/hide the bundle pane", show=True,
         palette="Bundle: show or hide the bundle pane"),
    _app("copy", "copy_bundle", "c,y", "Copy", "Copy the bundle as one block", show=True,
         palette="Bundle: copy to clipboard", palette_help="As {format}, the current format"),
    _app("copy_markdown", "copy_bundle('markdown')", "", "Copy as Markdown",
         palette="Bundle: copy as Markdown", palette_help="Header, then one fenced block per item"),
    _app("copy_xml", "copy_bundle('xml')", "", "Copy as XML",
         palette="Bundle: copy as XML", palette_help="<code_context> with one <item> per entry"),
    _app("save", "save_bundle", "s", "Save", "Save the bundle to a file", show=True,
         palette="Bundle: save to a file…", palette_help="Default ./symscope-bundle{suffix}"),
    _app("format", "toggle_format", "F", "Markdown/XML", "Bundle format: Markdown / XML",
         palette="Bundle: switch format to {other}", palette_help="Now {format}"),
    _app("accept_changes", "accept_changes", "", "Accept changed items",
         palette="Bundle: accept changed items", palette_help="Clear the 'changed' flag of every item"),
    _app("remove_missing", "remove_missing", "", "Remove missing items",
         palette="Bundle: remove missing items", palette_help="Drop items whose symbol vanished"),
    _app("clear_bundle", "clear_bundle", "", "Clear the bundle",
         palette="Bundle: clear", palette_help="Remove every item"),
    _app("budget", "set_budget", "B", "Budget", "Set a token budget for the copied bundle",
         palette="Bundle: set a token budget…", palette_help="Now {budget}; dependencies are reduced first"),
    _app("no_budget", "clear_budget", "", "No budget",
         palette="Bundle: remove the token budget", palette_help="Copy every item at its level"),
    _app("secrets", "show_secrets", "S", "Secrets", "Secrets in the bundle: see them, keep one",
         palette="Bundle: secrets found…", palette_help="Redacted when copied or saved, unless kept"),
    _app("refresh", "refresh_index", "r,ctrl+r", "Refresh index", "Re-index changed files",
         palette="Index: refresh", palette_help="Re-parse changed files"),
    _app("rebuild", "rebuild_index", "", "Rebuild the index",
         palette="Index: rebuild from scratch", palette_help="Re-parse every file"),
    _app("sidebar", "toggle('show_sidebar')", "t", "Toggle file tree", "Show/hide files and outline",
         palette="View: show or hide the file tree"),
    _app("sidebar_wider", "resize_sidebar(4)", "greater_than_sign", "Wider file tree",
         "Make the files and outline panes wider", palette="View: wider file tree"),
    _app("sidebar_narrower", "resize_sidebar(-4)", "less_than_sign", "Narrower file tree",
         "Make the files and outline panes narrower", palette="View: narrower file tree"),
    _app("focus_tree", "focus_pane('tree')", "1", "Files", "Focus the files pane",
         palette="View: focus files"),
    _app("focus_outline", "focus_pane('outline')", "2", "Outline", "Focus the outline pane",
         palette="View: focus outline"),
    _app("focus_search", "focus_pane('search')", "3", "Search box", "Focus the search box",
         palette="View: focus search"),
    _app("focus_source", "focus_pane('source')", "4", "Source", "Focus the source pane",
         palette="View: focus source"),
    _app("focus_bundle", "focus_pane('bundle')", "5", "Bundle pane", "Show and focus the bundle pane",
         palette="View: focus bundle"),
    _app("related", "toggle('show_related')", "R", "Related", "Show/hide the Related pane: uses and used by",
         palette="View: show or hide the Related pane"),
    _app("focus_related", "focus_pane('related')", "6", "Related pane", "Show and focus the Related pane",
         palette="View: focus Related"),
    _app("price", "set_price", "dollar_sign", "Set $/Mtok", "Set the price per million tokens",
         palette="Cost: set price per million tokens…",
         palette_help="Now {price}/Mtok; default from {price_env}"),
    _app("theme", "change_theme", "T", "Theme", "Pick a colour theme"),  # the palette has "Theme"
    _app("help", "help", "question_mark,f1", "Help", "Show every key", show=True,
         palette="Help: keys", palette_help="Every key binding"),
    _app("quit", "quit", "q", "Quit", "Quit symscope", show=True),
    _app("clear_filters", "clear_filters", "", "Clear search filters",
         palette="Search: clear filters", palette_help="Remove kind:, lang: and path:"),
    _app("path_filter", "prompt_path_filter", "", "Filter by path",
         palette="Search: filter by path…", palette_help="Only paths matching a glob or folder"),
    _app("any_kind", "search_filter('kind')", "", "Any kind",
         palette="Search: any kind", palette_help="Remove the kind: filter"),
    _app("any_language", "search_filter('language')", "", "Any language",
         palette="Search: any language", palette_help="Remove the lang: filter"),
    _pane("search", "down", "cursor(1)", "down", "Next result"),
    _pane("search", "up", "cursor(-1)", "up", "Previous result"),
    _pane("search", "leave", "leave", "escape", "Leave search"),
    _pane("search", "clear", "clear", "ctrl+u", "Clear search"),
    _pane("search", "toggle", "toggle_bundle", "space", "Add/remove the result"),
    _pane("search", "add", "toggle_bundle", "tab", "Add", "Add/remove the highlighted result, keep typing"),
    _pane("search", "fresh", "fresh_query", "slash", "New query", "New query (in path: it types a /)",
          priority=True),
    _pane("search", "copies", "copies_at_end", "right", "Copies",
          "At the end of the box: show/hide a folded result's copies", priority=True),
    _pane("results", "open", "select", "enter", "Open"),
    _pane("results", "show_copies", "copies(1)", "right", "Show copies", "Show the copies folded under a result"),
    _pane("results", "hide_copies", "copies(0)", "left", "Hide copies"),
    _pane("results", "toggle_copies", "toggle_copies", "plus", "Copies", "Show/hide a folded result's copies"),
    _pane("results", "down", "move(1)", "down,j", "Down"),
    _pane("results", "up", "move(-1)", "up,k", "Up"),
    _pane("results", "page_down", "move(10)", "pagedown", "Page down"),
    _pane("results", "page_up", "move(-10)", "pageup", "Page up"),
    _pane("results", "first", "move(-100000)", "home", "First"),
    _pane("results", "last", "move(100000)", "end", "Last"),
    _pane("tree", "down", "cursor_down", "j", "Down", "Next file or folder"),
    _pane("tree", "up", "cursor_up", "k", "Up", "Previous file or folder"),
    _pane("outline", "toggle", "toggle_bundle", "space", "Add/remove"),
    _pane("outline", "down", "cursor_down", "j", "Down", "Next symbol"),
    _pane("outline", "up", "cursor_up", "k", "Up", "Previous symbol"),
    _pane("related", "toggle", "toggle_bundle", "space,a", "Add/remove", "Add/remove the highlighted symbol"),
    _pane("related", "down", "cursor_down", "j", "Down", "Next row"),
    _pane("related", "up", "cursor_up", "k", "Up", "Previous row"),
    _pane("source", "jump", "jump_to_mark", "m", "Back to symbol"),
    _pane("bundle", "remove", "remove", "delete,backspace,d,x", "Remove", show=True),
    _pane("bundle", "up", "move(-1)", "K,ctrl+up,shift+up", "Move up", show=True),
    _pane("bundle", "down", "move(1)", "J,ctrl+down,shift+down", "Move down", show=True),
    _pane("bundle", "next", "cursor(1)", "j", "Down", "Next item"),
    _pane("bundle", "previous", "cursor(-1)", "k", "Up", "Previous item"),
    _pane("bundle", "accept", "accept", "u", "Accept changes"),
    _pane("bundle", "remove_group", "remove_group", "X", "Remove group", "Remove with its dependencies"),
    _pane("bundle", "level", "cycle_level", "l", "Level", "Detail level: full / signature / name", show=True),
    _pane("help", "close", "dismiss", "escape,q,question_mark,f1", "Close help", show=True),
    _pane("prompt", "cancel", "cancel", "escape", "Cancel", show=True),
    _pane("confirm", "yes", "confirm", "enter,y", "Add them", show=True),
    _pane("confirm", "no", "cancel", "escape,n", "Cancel", show=True),
    _pane("replace", "yes", "confirm", "enter,y", "Replace", show=True),
    _pane("replace", "no", "cancel", "escape,n", "Cancel", show=True),
    _pane("secrets", "keep", "toggle_keep", "space,k", "Keep / redact", show=True),
    _pane("secrets", "close", "dismiss", "escape,q", "Close", show=True),
)

#: Help-screen sections in order: (scope, heading).
HELP_SECTIONS: tuple[tuple[str, str], ...] = (
    ("app", "Anywhere"),
    ("search", "Search"),
    ("tree", "Files"),
    ("outline", "Outline"),
    ("related", "Related"),
    ("trees", "Trees"),
    ("source", "Source"),
    ("bundle", "Bundle"),
)

#: Marks the note whose keys are the App's `COMMAND_PALETTE_BINDING`.
PALETTE_KEYS = "@palette"

HELP_NOTES: tuple[HelpNote, ...] = (
    HelpNote("app", PALETTE_KEYS, "Command palette: every action, themes"),
    HelpNote("app", "ctrl+q", "Quit"),
    HelpNote("search", "enter", "Open the highlighted result", literal=True),
    HelpNote("trees", "enter, click", "Open the file or symbol", literal=True),
    HelpNote("trees", "arrows, space", "Move; open or close folders", literal=True),
    HelpNote("source", "click", "Pick the symbol on that line", literal=True),
    HelpNote("related", "enter", "Open the symbol (its own uses and callers follow)", literal=True),
    HelpNote("bundle", "enter", "Open the item", literal=True),
)

_BY_ID = {spec.id: spec for spec in ACTIONS}


def spec(action_id: str) -> ActionSpec:
    """The table entry for `action_id` (KeyError for an unknown id)."""
    return _BY_ID[action_id]


def in_scope(scope: Scope) -> Iterator[ActionSpec]:
    """The actions of one scope, in table order."""
    return (s for s in ACTIONS if s.scope == scope)


def keys_of(action: ActionSpec, keymap: Mapping[str, str]) -> list[str]:
    """The keys `action` answers to now: the keymap's override, else its defaults."""
    keys = keymap.get(action.id) or action.keys
    return [k.strip() for k in keys.split(",") if k.strip()]


class KeyHints:
    """How each action's keys are shown to people ("a adds the symbol"), keymap included."""

    def __init__(self, keymap: Mapping[str, str] | None = None,
                 display: Callable[[str], str] | None = None) -> None:
        """
        Args:
            keymap: Binding id -> keys overrides (as given to `App.set_keymap`).
            display: How a key name is shown (`slash` -> `/`); the App passes its own.
        """
        show = display or (lambda key: key)
        self._keys: dict[str, tuple[str, ...]] = {
            action.id: tuple(for_terminal(show(k)) for k in keys_of(action, keymap or {}))
            for action in ACTIONS
        }

    def __getitem__(self, action_id: str) -> str:
        """The first key of `action_id` as shown to people, or "" if it has none."""
        keys = self._keys.get(action_id, ())
        return keys[0] if keys else ""

    def all(self, action_id: str) -> tuple[str, ...]:
        """Every key of `action_id`, as shown to people."""
        return self._keys.get(action_id, ())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyHints) and other._keys == self._keys

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._keys.items())))
