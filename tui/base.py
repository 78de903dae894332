"""App plumbing that knows nothing of symscope's panes: keys that follow the keymap, safe toasts.

`KeyedApp` keeps `hints` (how each action of the table is shown, keymap included)
and builds the help rows, so a key remapped with `set_keymap` reads right in every
hint, the help screen and the palette. `toast` is the one way the app shows a
message: plain text (never markup) through `sanitize.for_terminal`.
"""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding, Keymap
from textual.reactive import reactive

from symscope.core.api import for_terminal
from symscope.tui.actions import KeyHints
from symscope.tui.bundle_controller import Note, Severity
from symscope.tui.keys import HelpRow, help_rows


class KeyedApp(App[int]):
    """An App whose key hints and help rows follow its keymap, and whose toasts are safe."""

    hints: reactive[KeyHints] = reactive(KeyHints, init=False)
    """How each action's keys are shown (follows the keymap); bound into the panes."""

    def __init__(self) -> None:
        super().__init__()
        self.keymap: Keymap = {}
        """The overrides given to `set_keymap` / `update_keymap` (binding id -> keys)."""
        self.set_reactive(KeyedApp.hints, self._make_hints())

    def set_keymap(self, keymap: Keymap) -> None:
        super().set_keymap(keymap)
        self.keymap = dict(keymap)
        self.hints = self._make_hints()

    def update_keymap(self, keymap: Keymap) -> None:
        super().update_keymap(keymap)
        self.keymap = {**self.keymap, **keymap}
        self.hints = self._make_hints()

    def _key_display(self, key: str) -> str:
        return self.get_key_display(Binding(key, ""))

    def _make_hints(self) -> KeyHints:
        return KeyHints(self.keymap, self._key_display)

    def help_rows(self) -> list[HelpRow]:
        """Every described binding, grouped by where it works, with the keys it has now."""
        return help_rows(self.keymap, self._key_display, self.COMMAND_PALETTE_BINDING)

    def toast(self, note: Note) -> None:
        """Show a note as plain text: repo names never reach the terminal raw or as markup."""
        self.notify(for_terminal(note.text), title=for_terminal(note.title), severity=note.severity,
                    timeout=note.timeout, markup=False)

    def say(self, text: str, severity: Severity = "information") -> None:
        self.toast(Note(text, severity))
