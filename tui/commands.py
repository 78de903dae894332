"""Command palette provider: every symscope action, reachable by name (ctrl+p).

Entries come from the one action table (`tui/actions.py`), with the keys each one
answers to now. Themes come from Textual's own system commands ("Theme"), which stay
enabled. The languages to filter by come from the App's cached index stats, refreshed
when the index changes, never queried per keystroke.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from symscope.core.api import FORMAT_SUFFIX, for_terminal
from symscope.core.models import SYMBOL_KINDS
from symscope.tui import formatting as fmt
from symscope.tui.actions import ACTIONS

if TYPE_CHECKING:
    from symscope.tui.app import SymscopeApp


@dataclass(frozen=True, slots=True)
class PaletteCommand:
    """One palette entry (plain text: it is escaped before Textual reads it as markup)."""

    title: str
    help: str
    run: Callable[[], Any]


def palette_commands(app: SymscopeApp) -> list[PaletteCommand]:
    """The app's commands, in the order the palette lists them before typing."""
    label = "XML" if app.bundle.format == "xml" else "Markdown"
    fields = {
        "format": label,
        "other": "Markdown" if label == "XML" else "XML",
        "suffix": FORMAT_SUFFIX[app.bundle.format],
        "price": fmt.money(app.price),
        "price_env": fmt.PRICE_ENV,
        "budget": f"{fmt.tokens(app.bundle.budget)} tokens" if app.bundle.budget else "no budget",
    }
    cmds: list[PaletteCommand] = []
    for action in ACTIONS:
        if action.scope != "app" or not action.palette:
            continue
        text = (action.palette_help or action.text).format(**fields)
        keys = app.hints.all(action.id)
        if keys:
            text += f" ({' or '.join(keys)})"
        cmds.append(PaletteCommand(action.palette.format(**fields), text, partial(app.run_action, action.action)))
    for kind in SYMBOL_KINDS:
        cmds.append(PaletteCommand(f"Search: only {kind} symbols", f"Adds kind:{kind} to the query",
                                   partial(app.action_search_filter, "kind", kind)))
    for lang in sorted(app.stats.languages) if app.stats is not None else []:
        cmds.append(PaletteCommand(f"Search: only {lang} code", f"Adds lang:{lang} to the query",
                                   partial(app.action_search_filter, "language", lang)))
    return cmds


class SymscopeCommands(Provider):
    """symscope's actions for the command palette."""

    def _commands(self) -> list[tuple[str, PaletteCommand]]:
        """Each command with its title as palette markup (escaped plain text)."""
        return [(escape(for_terminal(c.title)), c) for c in palette_commands(cast("SymscopeApp", self.app))]

    async def discover(self) -> Hits:
        for markup, cmd in self._commands():
            yield DiscoveryHit(Content.from_markup(markup), cmd.run, help=escape(for_terminal(cmd.help)))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for markup, cmd in self._commands():
            score = matcher.match(cmd.title)
            if score > 0:
                yield Hit(score, matcher.highlight(markup), cmd.run, help=escape(for_terminal(cmd.help)))
