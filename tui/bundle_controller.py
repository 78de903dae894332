"""The bundle's logic without Textual: edit, persist, resolve, render, copy and save.

The App owns one `BundleController`. Edits (`toggle_symbol`, `remove`, `move`...)
change the in-memory `Bundle` at once; they read no files, so they run on the UI
thread, and each returns an `Edit`: what to tell the user and where the bundle
pane's cursor goes. Everything that touches files (`persist`, `resolve`, `copy`,
`save`) takes a `Snapshot` made on the UI thread and is meant for a thread worker.
The result of `resolve` is a `BundleState`, the value the panes are bound to.

Copied and saved text is the items' source, exact except raw control characters,
which `sanitize.for_paste` makes visible (and the toast counts). Saved files are
created mode 600.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from symscope.core.bundle import (
    FORMAT_SUFFIX,
    Bundle,
    BundleError,
    BundleItem,
    Format,
    ResolvedItem,
    bundle_path,
    file_key,
    render,
    resolve_item,
    symbol_key,
)
from symscope.core.bundle import savings as bundle_savings
from symscope.core.index import Index
from symscope.core.models import Savings, Symbol
from symscope.core.sanitize import for_paste
from symscope.tui import formatting as fmt
from symscope.tui.actions import KeyHints
from symscope.tui.clipboard import Clipboard

DEFAULT_BUNDLE_NAME = "symscope-bundle"
#: Seconds a toast about adding or removing an item stays up.
EDIT_TOAST_SECONDS = 2.5

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Note:
    """Something to tell the user (a toast)."""

    text: str
    severity: Severity = "information"
    title: str = ""
    timeout: float | None = None
    totals: bool = False
    """Append the bundle's totals once the new state is resolved."""


@dataclass(frozen=True, slots=True)
class Edit:
    """The outcome of one edit."""

    notes: tuple[Note, ...] = ()
    cursor_key: str | None = None
    """The bundle pane's cursor goes here (None: stays on its row)."""
    changed: bool = True
    """The bundle changed (else only its state is looked up again, or nothing happens)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The bundle's items and format at one moment, safe to hand to a thread."""

    items: tuple[BundleItem, ...]
    format: Format
    seq: int
    """Increases with every snapshot; a slower, older one never overwrites a newer save."""


@dataclass(frozen=True, slots=True)
class BundleState:
    """The bundle as the panes show it: every item looked up in the index, and the totals."""

    items: tuple[ResolvedItem, ...] = ()
    savings: Savings = field(default_factory=lambda: Savings(0, 0, 0))
    format: Format = "markdown"
    cursor_key: str | None = None
    seq: int = 0

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def flagged(self) -> int:
        return sum(1 for r in self.items if r.flagged)

    @property
    def symbol_ids(self) -> frozenset[str]:
        return frozenset(r.item.ref for r in self.items if r.item.type == "symbol")

    @property
    def paths(self) -> frozenset[str]:
        return frozenset(r.path for r in self.items)

    def find(self, key: str) -> ResolvedItem | None:
        return next((r for r in self.items if r.key == key), None)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _label(format_name: Format) -> str:
    return "XML" if format_name == "xml" else "Markdown"


class BundleController:
    """Owns the `Bundle` of one index's repo; see the module docstring for the threading rules."""

    def __init__(self, index: Index, *, save_dir: Path | None = None, hints: KeyHints | None = None) -> None:
        """
        Args:
            index: The repo's index (items are looked up in it).
            save_dir: Folder of the default save path (default: the current directory).
            hints: Key names for messages ("a adds the current symbol").
        """
        self.index = index
        self.bundle = Bundle()
        self.state = BundleState()
        """The last resolved state (what accept and remove-missing act on)."""
        self.save_dir = save_dir
        self.hints = hints or KeyHints()
        self._seq = 0
        self._saved_seq = 0
        self._saved: dict[str, Any] = Bundle().to_json()
        """What the file on disk holds (as far as this controller knows)."""
        self._save_lock = threading.Lock()

    @property
    def path(self) -> Path:
        """Where the bundle is persisted (beside the index)."""
        return bundle_path(self.index)

    def load(self) -> Note | None:
        """Read the persisted bundle; an unreadable one is moved aside and a warning returned."""
        try:
            self.bundle = Bundle.load(self.path)
            self._saved = self.bundle.to_json()
            return None
        except BundleError as exc:
            backup = self.path.with_suffix(".json.bad")
            try:
                self.path.replace(backup)
                moved = f"; moved it to {backup}"
            except OSError:
                moved = ""
            self.bundle = Bundle()
            return Note(f"{exc}{moved}. Starting with an empty bundle.", "warning", timeout=8)

    def snapshot(self) -> Snapshot:
        self._seq += 1
        return Snapshot(tuple(self.bundle.items), self.bundle.format, self._seq)

    def apply(self, state: BundleState) -> bool:
        """Record a resolved state; False if a newer one was applied already."""
        if state.seq < self.state.seq:
            return False
        self.state = state
        return True

    def with_totals(self, note: Note, state: BundleState) -> str:
        """The note's text, plus the bundle's items and tokens when it asks for them."""
        if not note.totals:
            return note.text
        return f"{note.text}\nBundle: {_plural(state.count, 'item')}, {fmt.tokens(state.savings.tokens)} tok"

    # -- edits (in memory; UI thread) ---------------------------------------------------

    def toggle_symbol(self, sym: Symbol) -> Edit:
        added = self.bundle.toggle(BundleItem.for_symbol(sym))
        text = ("Added " if added else "Removed ") + f"{sym.qualname} ({fmt.tokens(sym.tokens)} tok)"
        return Edit((Note(text, timeout=EDIT_TOAST_SECONDS, totals=True),), symbol_key(sym.id))

    def toggle_file(self, path: str) -> Edit:
        rec = self.index.file(path)
        if rec is None:
            return Edit((Note(f"{path} is not indexed", "warning"),), changed=False)
        added = self.bundle.toggle(BundleItem.for_file(rec))
        text = ("Added " if added else "Removed ") + f"whole file {path} ({fmt.tokens(rec.tokens)} tok)"
        if added and any(i.type == "symbol" and i.path == path for i in self.bundle):
            text += "; the bundle also has symbols from this file"
        return Edit((Note(text, timeout=EDIT_TOAST_SECONDS, totals=True),), file_key(path))

    def remove(self, key: str) -> Edit:
        i = self.bundle.index_of(key)
        if not self.bundle.remove(key):
            return Edit(changed=False)
        keys = self.bundle.keys
        next_key = keys[min(i, len(keys) - 1)] if keys else None
        return Edit((Note("Removed 1 item", timeout=EDIT_TOAST_SECONDS, totals=True),), next_key)

    def move(self, key: str, delta: int) -> Edit:
        before = self.bundle.keys
        self.bundle.move(key, delta)
        return Edit(cursor_key=key, changed=self.bundle.keys != before)

    def accept(self, only: str | None = None) -> Edit:
        """Take the current state of changed items as theirs, clearing their flags."""
        accepted = 0
        for r in self.state.items:
            if (only is None or r.key == only) and r.status == "changed":
                item = r.current_item()
                if item is not None:
                    self.bundle.replace(r.key, item)
                    accepted += 1
        return Edit((Note(f"Accepted {_plural(accepted, 'changed item')}"),), only)

    def remove_missing(self) -> Edit:
        gone = [r.key for r in self.state.items if r.status == "missing"]
        for key in gone:
            self.bundle.remove(key)
        return Edit((Note(f"Removed {_plural(len(gone), 'missing item')}"),))

    def clear(self) -> Edit:
        n = len(self.bundle)
        self.bundle.clear()
        return Edit((Note(f"Cleared the bundle ({_plural(n, 'item')})"),))

    def toggle_format(self) -> Edit:
        self.bundle.format = "xml" if self.bundle.format == "markdown" else "markdown"
        copy, save = self.hints["app.copy"], self.hints["app.save"]
        return Edit((Note(f"Bundle format: {_label(self.bundle.format)} ({copy} copies, {save} saves)"),))

    def default_save_path(self) -> Path:
        folder = self.save_dir if self.save_dir is not None else Path.cwd()
        return folder / (DEFAULT_BUNDLE_NAME + FORMAT_SUFFIX[self.bundle.format])

    # -- blocking work (thread workers) ---------------------------------------------------

    def persist(self, snap: Snapshot) -> Note | None:
        """Save `snap` beside the index if it differs from the file, unless a newer one was saved.

        Called after every edit, so an edit whose own worker was cancelled (overtaken by
        a newer one) is still saved by the next.
        """
        with self._save_lock:
            data = Bundle(list(snap.items), snap.format).to_json()
            if snap.seq <= self._saved_seq or data == self._saved:
                return None
            try:
                Bundle(list(snap.items), snap.format).save(self.path)
            except BundleError as exc:
                return Note(str(exc), "error")
            self._saved_seq, self._saved = snap.seq, data
        return None

    def resolve(self, snap: Snapshot, cursor_key: str | None = None,
                cancelled: Callable[[], bool] | None = None) -> BundleState | None:
        """Look every item up in the index and read its code now; None if cancelled."""
        resolved = self._resolve(snap, cancelled)
        if resolved is None:
            return None
        totals = bundle_savings(resolved, self.index)
        return BundleState(tuple(resolved), totals, snap.format, cursor_key, snap.seq)

    def _resolve(self, snap: Snapshot, cancelled: Callable[[], bool] | None) -> list[ResolvedItem] | None:
        out: list[ResolvedItem] = []
        for item in snap.items:
            if cancelled is not None and cancelled():
                return None
            out.append(resolve_item(self.index, item))
        return out

    def copy(self, snap: Snapshot, clipboard: Clipboard, format_name: Format | None = None,
             cancelled: Callable[[], bool] | None = None) -> list[Note]:
        """Render `snap` and hand it to `clipboard`; the notes say what happened."""
        chosen = format_name or snap.format
        resolved = self._resolve(snap, cancelled)
        if resolved is None:
            return []
        rendered = render(resolved, chosen)
        if rendered.items == 0:
            extra = f" ({len(rendered.left_out)} flagged item(s) cannot be copied)" if rendered.left_out else ""
            return [Note(f"The bundle is empty; {self.hints['app.toggle_symbol']} adds the current symbol."
                         + extra, "warning")]
        text, controls = for_paste(rendered.text)
        if cancelled is not None and cancelled():
            return []
        try:
            method = clipboard(text)
        except Exception as exc:
            return [Note(f"Copy failed: {exc}. Use {self.hints['app.save']} to save the bundle to a file "
                         "instead.", "error")]
        notes = [Note(f"Copied {fmt.tokens(rendered.tokens)} tokens ({_plural(rendered.items, 'item')}) as "
                      f"{_label(chosen)} via {method}" + _controls_note(controls), title="Copied")]
        return notes + _left_out(rendered.left_out)

    def save(self, snap: Snapshot, target: Path, cancelled: Callable[[], bool] | None = None) -> list[Note]:
        """Write `snap` to `target` (XML for a `.xml` name), creating it mode 600."""
        chosen: Format = "xml" if target.suffix.lower() == ".xml" else snap.format
        resolved = self._resolve(snap, cancelled)
        if resolved is None:
            return []
        rendered = render(resolved, chosen)
        text, controls = for_paste(rendered.text)
        try:
            write_private(target, text)
        except OSError as exc:
            reason = "it is a symlink" if exc.errno == getattr(errno, "ELOOP", -1) else exc.strerror or exc
            return [Note(f"Cannot write {target}: {reason}", "error")]
        notes = [Note(f"Saved {_plural(rendered.items, 'item')} · {fmt.tokens(rendered.tokens)} tokens to "
                      f"{target}" + _controls_note(controls), title="Saved")]
        return notes + _left_out(rendered.left_out)


def _controls_note(controls: int) -> str:
    if not controls:
        return ""
    return f"\n{_plural(controls, 'raw control character')} in the source shown as \\xNN escapes"


def _left_out(left_out: list[ResolvedItem]) -> list[Note]:
    if not left_out:
        return []
    names = ", ".join(r.name for r in left_out[:3])
    return [Note(f"Left out {len(left_out)} flagged item(s): {names}", "warning")]


def write_private(target: Path, text: str) -> None:
    """Write `text` to `target`, created mode 600 (the bundle holds source code).

    The mode is given to `os.open`, so the file is never readable by others, not even
    briefly; `O_NOFOLLOW` refuses a symlink planted at the target (say, a
    `symscope-bundle.md` in a cloned repo pointing at a dotfile).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(target, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
