"""Modal screens: the key-binding help and a one-line prompt."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static


@dataclass(frozen=True, slots=True)
class HelpRow:
    """One row of the help table."""

    where: str
    keys: str
    description: str


def binding_rows(where: str, bindings: Iterable[BindingType], key_display: Callable[[Binding], str]
                 ) -> list[HelpRow]:
    """Help rows for the described bindings of one scope (same action's keys are merged)."""
    rows: dict[str, HelpRow] = {}
    for item in bindings:
        split = list(Binding.make_bindings([item]))
        binding = split[0]
        if not binding.description or binding.system:
            continue
        keys = ", ".join(key_display(b) for b in split)
        text = binding.tooltip or binding.description
        prev = rows.get(binding.action)
        if prev is not None:
            rows[binding.action] = HelpRow(where, f"{prev.keys}, {keys}", prev.description)
        else:
            rows[binding.action] = HelpRow(where, keys, text)
    return list(rows.values())


class HelpScreen(ModalScreen[None]):
    """Every key binding, by the pane it works in."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close help", id="help.close"),
    ]

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        & > Vertical {
            width: 90;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        & #help-intro { margin: 0 0 1 0; color: $text-muted; }
        & DataTable { height: auto; max-height: 1fr; }
    }
    """

    def __init__(self, rows: list[HelpRow], intro: str) -> None:
        super().__init__()
        self.rows = rows
        self.intro = intro

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "symscope · keys"
            box.border_subtitle = "esc closes"
            yield Static(self.intro, id="help-intro")
            table: DataTable[Text] = DataTable(id="help-table", cursor_type="row", zebra_stripes=True)
            yield table

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("where", "keys", "does")
        last = ""
        for row in self.rows:
            table.add_row(
                Text(row.where if row.where != last else "", style="bold"),
                Text(row.keys, style="bold"),
                Text(row.description),
            )
            last = row.where
        table.focus()


class PromptScreen(ModalScreen[str | None]):
    """Ask for one line of text; Enter returns it, Escape cancels (None)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="prompt.cancel"),
    ]

    DEFAULT_CSS = """
    PromptScreen {
        align: center middle;
        & > Vertical {
            width: 70;
            max-width: 100%;
            height: auto;
            border: thick $primary;
            background: $surface;
            padding: 0 1;
        }
        & Label { color: $text-muted; margin: 0 0 1 0; }
        & #prompt-error { color: $text-error; height: auto; }
    }
    """

    def __init__(self, title: str, prompt: str, value: str = "",
                 validate: Callable[[str], str | None] | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.prompt = prompt
        self.value = value
        self.validate = validate

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            box.border_subtitle = "enter accepts · esc cancels"
            yield Label(self.prompt)
            yield Input(self.value, id="prompt-input", select_on_focus=False)
            yield Static("", id="prompt-error")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        problem = self.validate(event.value) if self.validate else None
        if problem:
            self.query_one("#prompt-error", Static).update(problem)
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
