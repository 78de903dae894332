"""Command palette provider: every symscope action, reachable by name (ctrl+p).

Themes come from Textual's own system commands ("Theme"), which stay enabled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from symscope.core.bundle import FORMAT_SUFFIX
from symscope.core.models import SYMBOL_KINDS
from symscope.tui import formatting as fmt

if TYPE_CHECKING:
    from symscope.tui.app import SymscopeApp


@dataclass(frozen=True, slots=True)
class PaletteCommand:
    """One palette entry."""

    title: str
    help: str
    run: Callable[[], Any]


def palette_commands(app: SymscopeApp) -> list[PaletteCommand]:
    """The app's commands, in the order the palette lists them before typing."""

    def action(name: str) -> Callable[[], Any]:
        return partial(app.run_action, name)

    fmt_label = "XML" if app.bundle.format == "xml" else "Markdown"
    other = "Markdown" if fmt_label == "XML" else "XML"
    cmds = [
        PaletteCommand("Search symbols", "Focus the search box (/)", action("focus_search")),
        PaletteCommand("Bundle: add or remove the current symbol", "a", action("toggle_symbol")),
        PaletteCommand("Bundle: add or remove the whole current file", "A or f", action("toggle_file")),
        PaletteCommand("Bundle: show or hide the bundle pane", "b", action("toggle_bundle_view")),
        PaletteCommand("Bundle: copy to clipboard", f"As {fmt_label}, the current format (c)",
                       action("copy_bundle")),
        PaletteCommand("Bundle: copy as Markdown", "Header, then one fenced block per item",
                       action("copy_bundle('markdown')")),
        PaletteCommand("Bundle: copy as XML", "<code_context> with one <item> per entry",
                       action("copy_bundle('xml')")),
        PaletteCommand(f"Bundle: switch format to {other}", f"Now {fmt_label} (F)", action("toggle_format")),
        PaletteCommand("Bundle: save to a file…",
                       f"Default ./symscope-bundle{FORMAT_SUFFIX[app.bundle.format]} (s)",
                       action("save_bundle")),
        PaletteCommand("Bundle: accept changed items", "Clear the 'changed' flag of every item",
                       app.accept_changes),
        PaletteCommand("Bundle: remove missing items", "Drop items whose symbol vanished",
                       app.remove_missing),
        PaletteCommand("Bundle: clear", "Remove every item", app.clear_bundle),
        PaletteCommand("Index: refresh", "Re-parse changed files (r)", action("refresh_index")),
        PaletteCommand("Index: rebuild from scratch", "Re-parse every file", action("rebuild_index")),
        PaletteCommand("Search: clear filters", "Remove kind:, lang: and path:", action("clear_filters")),
        PaletteCommand("Search: filter by path…", "Only paths matching a glob or folder",
                       action("prompt_path_filter")),
        PaletteCommand("Search: any kind", "Remove the kind: filter", action("search_filter('kind')")),
        PaletteCommand("Search: any language", "Remove the lang: filter", action("search_filter('language')")),
    ]
    for kind in SYMBOL_KINDS:
        cmds.append(PaletteCommand(f"Search: only {kind} symbols", f"Adds kind:{kind} to the query",
                                   action(f"search_filter('kind', '{kind}')")))
    try:
        languages = sorted(app.index.stats().languages)
    except Exception:
        languages = []
    for lang in languages:
        cmds.append(PaletteCommand(f"Search: only {lang} code", f"Adds lang:{lang} to the query",
                                   action(f"search_filter('language', '{lang}')")))
    cmds += [
        PaletteCommand("View: show or hide the file tree", "t", action("toggle_sidebar")),
        PaletteCommand("View: wider file tree", ">", action("resize_sidebar(4)")),
        PaletteCommand("View: narrower file tree", "<", action("resize_sidebar(-4)")),
        PaletteCommand("View: focus files", "1", action("focus_pane('tree')")),
        PaletteCommand("View: focus outline", "2", action("focus_pane('outline')")),
        PaletteCommand("View: focus search", "3", action("focus_pane('search')")),
        PaletteCommand("View: focus source", "4", action("focus_pane('source')")),
        PaletteCommand("View: focus bundle", "5", action("focus_pane('bundle')")),
        PaletteCommand("Cost: set price per million tokens…",
                       f"Now {fmt.money(app.price)}/Mtok; default from {fmt.PRICE_ENV} ($)",
                       action("set_price")),
        PaletteCommand("Help: keys", "Every key binding (?)", action("help")),
    ]
    return cmds


class SymscopeCommands(Provider):
    """symscope's actions for the command palette."""

    def _commands(self) -> list[PaletteCommand]:
        return palette_commands(cast("SymscopeApp", self.app))

    async def discover(self) -> Hits:
        for cmd in self._commands():
            yield DiscoveryHit(cmd.title, cmd.run, help=cmd.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for cmd in self._commands():
            score = matcher.match(cmd.title)
            if score > 0:
                yield Hit(score, matcher.highlight(cmd.title), cmd.run, help=cmd.help)
