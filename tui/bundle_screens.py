"""Modal screens about the bundle: confirm an add-with-dependencies or replacing a file, and the
secrets found.

Both show only sanitised plain text: symbol names and paths from the repo pass
through `sanitize.for_terminal`; a secret itself is never shown (the core reports a
type, a line and a fingerprint, never the text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from symscope.core.api import DepsPlan, Redaction, for_terminal
from symscope.tui import formatting as fmt
from symscope.tui.keys import bindings

_MODAL_CSS = """
{name} {{
    align: center middle;
    & > Vertical {{
        width: 96;
        max-width: 100%;
        height: auto;
        max-height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }}
    & .modal-intro {{ margin: 0 0 1 0; color: $text-muted; }}
    & DataTable {{ height: auto; max-height: 1fr; }}
}}
"""


class ConfirmDepsScreen(ModalScreen[bool]):
    """What add-with-dependencies would add, with its delta; Enter (or the same key again) adds."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("confirm")
    DEFAULT_CSS = _MODAL_CSS.format(name="ConfirmDepsScreen")

    def __init__(self, plan: DepsPlan, again: Sequence[str] = ()) -> None:
        """
        Args:
            plan: What would be added.
            again: The keys of the add-with-dependencies action: pressing one again confirms.
        """
        super().__init__()
        self.plan = plan
        self.again = tuple(again)

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical() as box:
            box.border_title = Content(f"Add {for_terminal(plan.root.qualname)} with its dependencies")
            box.border_subtitle = f"{plan.delta} code only · enter adds · esc cancels"
            present = f"; {plan.present} already in the bundle" if plan.present else ""
            ambiguous = sum(1 for d in plan.deps if d.ambiguous)
            unsure = f"; ? marks {ambiguous} name(s) with several candidates, all listed" if ambiguous else ""
            yield Static(Content(f"{plan.delta} (code only, in full){present}{unsure}. Dependencies are added "
                                 "at signature level; the toast then gives the copied text's exact change."),
                         classes="modal-intro")
            yield DataTable(id="confirm-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.add_columns("", "kind", "symbol", "tokens", "where")
        plan = self.plan
        if plan.add_root:
            s = plan.root
            table.add_row(Text("+"), Text(fmt.kind_label(s.kind), style="italic"),
                          Text(for_terminal(s.qualname), style="bold"), Text(fmt.tokens(s.tokens), justify="right"),
                          Text(for_terminal(f"{s.path}:{s.start_line}"), style="dim"))
        for d in plan.deps:
            s = d.symbol
            table.add_row(Text("? " if d.ambiguous else "↳ ", style="bold"),
                          Text(fmt.kind_label(s.kind), style="italic"), Text(for_terminal(s.qualname)),
                          Text(fmt.tokens(s.tokens), justify="right"),
                          Text(for_terminal(f"{s.path}:{s.start_line}"), style="dim"))
        table.focus()

    def on_key(self, event: events.Key) -> None:
        if event.key in self.again:
            event.stop()
            self.dismiss(True)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # enter in the list means yes, as anywhere else here
        self.dismiss(True)

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class ConfirmReplaceScreen(ModalScreen[bool]):
    """Ask before a save replaces an existing file: Enter or y replaces it, Escape or n keeps it."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("replace")
    DEFAULT_CSS = _MODAL_CSS.format(name="ConfirmReplaceScreen")

    def __init__(self, target: Path) -> None:
        super().__init__()
        self.target = target

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Replace the file?"
            box.border_subtitle = "enter replaces · esc cancels"
            yield Static(Content(f"{for_terminal(str(self.target))} already exists. Replace it with the bundle "
                                 "(mode 600)?"), classes="modal-intro", id="replace-intro")

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class SecretsScreen(ModalScreen[None]):
    """The secrets a copy would redact, and those kept on purpose; space keeps or redacts one."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("secrets")
    DEFAULT_CSS = _MODAL_CSS.format(name="SecretsScreen")

    def __init__(self, redacted: Sequence[Redaction], kept: Sequence[Redaction],
                 toggle: Callable[[Redaction, bool], None]) -> None:
        """
        Args:
            redacted: Findings a copy replaces by markers now.
            kept: Findings left in on purpose.
            toggle: Called with a finding and True to keep it, False to redact it again.
        """
        super().__init__()
        self.findings: list[tuple[Redaction, bool]] = [(f, False) for f in redacted] + [(f, True) for f in kept]
        self.toggle = toggle

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Secrets in the bundle"
            box.border_subtitle = "space keeps or redacts · esc closes"
            if self.findings:
                intro = ("A copy or save replaces each secret with «redacted: TYPE». Keep one only if the "
                         "chat may see it.")
            else:
                intro = ("No secrets found in the bundle (detect-secrets plugins: private keys, AWS, GitHub, "
                         "GitLab and Slack tokens, JWTs, passwords in assignments...).")
            yield Static(intro, classes="modal-intro")
            yield DataTable(id="secrets-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.add_column("state", key="state")
        table.add_column("type", key="type")
        table.add_column("item", key="item")
        table.add_column("line", key="line")
        for n, (f, kept) in enumerate(self.findings):
            table.add_row(self._state(kept), Text(for_terminal(f.label)), Text(for_terminal(f.id)),
                          Text(str(f.line), justify="right"), key=str(n))
        table.display = bool(self.findings)
        table.focus()

    @staticmethod
    def _state(kept: bool) -> Text:
        return Text("kept", style="bold red") if kept else Text("redacted", style="green")

    def action_toggle_keep(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        row = table.cursor_row
        if not self.findings or not 0 <= row < len(self.findings):
            return
        finding, kept = self.findings[row]
        self.findings[row] = (finding, not kept)
        table.update_cell(str(row), "state", self._state(not kept))
        self.toggle(finding, not kept)
