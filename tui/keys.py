"""Textual `Binding`s and help-screen rows, built from the one action table (`tui/actions.py`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from textual.binding import Binding, BindingType

from symscope.core.api import for_terminal
from symscope.tui.actions import (
    ACTIONS,
    HELP_NOTES,
    HELP_SECTIONS,
    PALETTE_KEYS,
    Scope,
    in_scope,
    keys_of,
)


@dataclass(frozen=True, slots=True)
class HelpRow:
    """One row of the help table."""

    where: str
    keys: str
    description: str


def bindings(scope: Scope) -> list[BindingType]:
    """The `BINDINGS` of one scope (the App's, or a pane's), with ids so keymaps can remap them."""
    return [
        Binding(a.keys, a.action, a.description, show=a.show, tooltip=a.help, id=a.id, priority=a.priority)
        for a in in_scope(scope)
        if a.keys
    ]


def help_rows(keymap: Mapping[str, str], display: Callable[[str], str], palette_key: str) -> list[HelpRow]:
    """Every bound action and help note, by section, with the keys they answer to now.

    Args:
        keymap: The App's keymap overrides (binding id -> keys).
        display: How a key name is shown (the App's `get_key_display`).
        palette_key: The App's `COMMAND_PALETTE_BINDING`.
    """
    rows: list[HelpRow] = []
    for scope, heading in HELP_SECTIONS:
        for action in ACTIONS:
            keys = keys_of(action, keymap)
            if action.scope == scope and keys and action.description:
                rows.append(HelpRow(heading, ", ".join(display(k) for k in keys), action.text))
        for note in HELP_NOTES:
            if note.scope != scope:
                continue
            if note.literal:
                shown = note.keys
            else:
                names = palette_key if note.keys == PALETTE_KEYS else note.keys
                shown = ", ".join(display(k.strip()) for k in names.split(","))
            rows.append(HelpRow(heading, shown, note.text))
    return [HelpRow(r.where, for_terminal(r.keys), for_terminal(r.description)) for r in rows]
