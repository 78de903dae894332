"""Modal screens: the key-binding help and a one-line prompt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Static

from symscope.core.api import for_terminal
from symscope.tui import formatting as fmt
from symscope.tui.keys import HelpRow, bindings

HELP_INTRO = (
    "Pick symbols, not files. Search with words or identifiers; filters go in the box: "
    "[b]kind:[/]class [b]lang:[/]go [b]path:[/]lib/*. Add symbols to the bundle and copy it as "
    "one paste-ready block. Counters show exact tokens and what you save against whole files."
)


class HelpScreen(ModalScreen[None]):
    """Every key binding, by the pane it works in (rows from `keys.help_rows`, already sanitised)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("help")

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

    def __init__(self, rows: list[HelpRow], intro: str = HELP_INTRO) -> None:
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

    BINDINGS: ClassVar[list[BindingType]] = bindings("prompt")

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
        & Label { width: 1fr; color: $text-muted; margin: 0 0 1 0; }
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
            box.border_title = Content(for_terminal(self.title_text))
            box.border_subtitle = "enter accepts · esc cancels"
            yield Label(Content(for_terminal(self.prompt)))
            yield Input(self.value, id="prompt-input", select_on_focus=False)
            yield Static("", id="prompt-error")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        problem = self.validate(event.value) if self.validate else None
        if problem:
            self.query_one("#prompt-error", Static).update(Content(for_terminal(problem)))
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @classmethod
    def save_path(cls, default: Path) -> PromptScreen:
        return cls("Save bundle", "Write the bundle to this file (.xml saves XML):", str(default), _valid_path)

    @classmethod
    def price(cls, current: float) -> PromptScreen:
        prompt = (f"Dollars per million input tokens (default from {fmt.PRICE_ENV}, "
                  f"else ${fmt.DEFAULT_PRICE_PER_MTOK:.2f}):")
        return cls("Price", prompt, f"{current:g}", _valid_price)

    @classmethod
    def budget(cls, current: int | None) -> PromptScreen:
        prompt = ("Most tokens the copied bundle may have (2000, 2k); items are reduced to signatures or "
                  "names, dependencies first, to fit. Empty: no budget.")
        return cls("Token budget", prompt, str(current) if current else "", _valid_budget)

    @classmethod
    def path_filter(cls) -> PromptScreen:
        return cls("Filter by path", "Only paths matching this glob or folder (lib/*, *.go, src/api); "
                   "empty clears:", "")


def _valid_path(value: str) -> str | None:
    if not value.strip():
        return "Enter a file path"
    target = Path(value).expanduser()
    if target.is_dir():
        return f"{target} is a folder; add a file name"
    return None


def _valid_budget(value: str) -> str | None:
    if not value.strip() or fmt.parse_budget(value) is not None:
        return None
    return "Enter a whole number of tokens like 2000 or 2k, or leave it empty"


def _valid_price(value: str) -> str | None:
    return None if fmt.parse_price(value) is not None else "Enter a number like 3 or 0.25"
