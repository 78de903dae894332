"""Runs the bundle controller's file work in the App's thread workers.

`BundleController` (no Textual) edits the bundle in memory and knows how to save,
resolve, copy and write it; this adapter runs those blocking steps with
`App.run_worker(thread=True)` and posts the results to the App as messages
(`BundleResolved`, `BundleExported`, `DepsPlanned`). Edit notes wait here until the
resolution they triggered arrives, so their toasts can quote the bundle's new totals.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App
from textual.worker import get_current_worker

from symscope.core.api import Format
from symscope.core.models import Symbol
from symscope.tui.bundle_controller import BundleController, Edit, Note, Snapshot
from symscope.tui.clipboard import Clipboard
from symscope.tui.messages import BundleExported, BundleResolved, DepsPlanned


def _cancelled() -> bool:
    return get_current_worker().is_cancelled


class BundleRunner:
    """The App's bundle workers: one resolution at a time (a newer edit cancels an older one)."""

    def __init__(self, app: App[Any], controller: BundleController, clipboard: Clipboard) -> None:
        self.app = app
        self.controller = controller
        self.clipboard = clipboard
        self._waiting: list[Note] = []

    def edit(self, edit: Edit) -> list[Note]:
        """Save (if changed) and resolve the bundle after `edit` in a worker; returns notes to show now."""
        if not edit.changed and edit.notes:  # nothing to save or re-read (a file not indexed...)
            return list(edit.notes)
        self._waiting += edit.notes
        snap = self.controller.snapshot()
        self.app.run_worker(partial(self._resolve, snap, edit.cursor_key), thread=True,
                            exclusive=True, group="bundle", exit_on_error=False, description="bundle")
        return []

    def _resolve(self, snap: Snapshot, cursor_key: str | None) -> None:
        error = self.controller.persist(snap)  # a no-op unless it changed
        state = self.controller.resolve(snap, cursor_key, cancelled=_cancelled)
        if state is not None and not _cancelled():
            self.app.post_message(BundleResolved(state, error))

    def resolved(self, message: BundleResolved) -> list[Note] | None:
        """Take a resolution in; the notes to show now, or None if a newer one came first."""
        if not self.controller.apply(message.state):
            return None
        waiting, self._waiting = self._waiting, []
        notes = [message.error] if message.error is not None else []
        return notes + [Note(self.controller.with_totals(n, message.state), n.severity, n.title, n.timeout)
                        for n in waiting]

    def copy(self, format_name: Format | None) -> list[Note]:
        """Copy the bundle in a worker; returns a note to show now if there is nothing to copy."""
        if not len(self.controller.bundle):
            hint = self.controller.hints["app.toggle_symbol"]
            return [Note(f"The bundle is empty; {hint} adds the current symbol.", "warning")]
        self._export(self.controller.snapshot(), format_name, None)
        return []

    def save(self, target: Path, replace: bool = False) -> None:
        """Write the bundle to `target` in a worker; an existing file only with `replace` (asked first)."""
        self._export(self.controller.snapshot(), None, target, replace)

    def _export(self, snap: Snapshot, format_name: Format | None, target: Path | None,
                replace: bool = False) -> None:
        def run() -> None:
            if target is None:
                notes = self.controller.copy(snap, self.clipboard, format_name, _cancelled)
            else:
                notes = self.controller.save(snap, target, _cancelled, replace=replace)
            self.app.post_message(BundleExported(notes))

        self.app.run_worker(run, thread=True, group="export", exit_on_error=False, description="bundle export")

    def plan(self, sym: Symbol) -> None:
        """Work out what adding `sym` with its dependencies would add, in a worker (posts `DepsPlanned`)."""
        keys = frozenset(self.controller.bundle.keys)

        def run() -> None:
            plan = self.controller.ws.plan_deps(sym, keys)
            if not _cancelled():
                self.app.post_message(DepsPlanned(plan))

        self.app.run_worker(run, thread=True, exclusive=True, group="deps-plan", exit_on_error=False,
                            description="dependencies")
