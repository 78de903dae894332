"""The bundle's logic without Textual: edit, persist, resolve, render, copy and save.

The App owns one `BundleController`. Edits (`toggle_symbol`, `remove`, `move`...)
change the in-memory `Bundle` at once; they read no files, so they run on the UI
thread, and each returns an `Edit`: what to tell the user and where the bundle
pane's cursor goes. Everything that touches files (`persist`, `resolve`, `copy`,
`save`) takes a `Snapshot` made on the UI thread and is meant for a thread worker.
The result of `resolve` is a `BundleState`, the value the panes are bound to.

Copied and saved text is what the core's packer makes of the items
(`tui/bundle_pack.py`): each at its detail level (set by hand, or chosen under a
token budget), secrets redacted unless kept on purpose, raw control characters
made visible (the toast counts both), plus which items were added as dependencies
of which. Every resolution packs the bundle too, so the counters show the budget,
the packed total, what was reduced or dropped and what was redacted before any
copy. Saved files are created mode 600.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from symscope.core.bundle import (
    FORMAT_SUFFIX,
    BundleError,
    BundleItem,
    Format,
    Redaction,
    ResolvedItem,
    bundle_path,
    file_key,
    resolve_item,
    symbol_key,
)
from symscope.core.bundle import savings as bundle_savings
from symscope.core.index import Index
from symscope.core.models import Savings, Symbol
from symscope.core.packer import BudgetError, Detail
from symscope.core.private import write_private
from symscope.core.related import DepsPlan
from symscope.tui import formatting as fmt
from symscope.tui.actions import KeyHints
from symscope.tui.bundle_meta import DependencyOf, TrackedBundle, next_detail
from symscope.tui.bundle_pack import Packed, Packing, pack_bundle
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
    """The bundle's items, format and settings at one moment, safe to hand to a thread."""

    items: tuple[BundleItem, ...]
    format: Format
    seq: int
    """Increases with every snapshot; a slower, older one never overwrites a newer save."""
    dependency_of: Mapping[str, DependencyOf] = field(default_factory=dict)
    details: Mapping[str, Detail] = field(default_factory=dict)
    budget: int | None = None
    keep: frozenset[str] = frozenset()
    """Fingerprints of secrets left in on purpose."""

    def bundle(self) -> TrackedBundle:
        """The bundle as it was (what is persisted)."""
        return TrackedBundle.copy_of(self.items, self.format, self.dependency_of, self.details, self.budget)


@dataclass(frozen=True, slots=True)
class BundleState:
    """The bundle as the panes show it: every item looked up in the index, and the totals."""

    items: tuple[ResolvedItem, ...] = ()
    savings: Savings = field(default_factory=lambda: Savings(0, 0, 0))
    format: Format = "markdown"
    cursor_key: str | None = None
    seq: int = 0
    dependency_of: Mapping[str, DependencyOf] = field(default_factory=dict)
    """Items added as dependencies, and of which item."""
    details: Mapping[str, Detail] = field(default_factory=dict)
    """Levels set by hand (absent: full)."""
    budget: int | None = None
    packing: Packing | None = None
    """What copying now would give (None for an empty bundle)."""
    kept: Mapping[str, Redaction] = field(default_factory=dict)
    """Secrets left in on purpose, by fingerprint."""

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

    @property
    def dependencies(self) -> int:
        return sum(1 for r in self.items if r.key in self.dependency_of)

    def find(self, key: str) -> ResolvedItem | None:
        return next((r for r in self.items if r.key == key), None)

    def level(self, key: str) -> Detail:
        """The level set by hand for an item (full unless changed)."""
        return self.details.get(key, "full")


def _plural(n: int, noun: str, plural: str = "") -> str:
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


_LEVEL_TEXT: dict[Detail, str] = {
    "full": "full source",
    "signature": "signature and doc only",
    "name": "name line only",
}


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
        self.bundle = TrackedBundle()
        self.state = BundleState()
        """The last resolved state (what accept and remove-missing act on)."""
        self.save_dir = save_dir
        self.hints = hints or KeyHints()
        self._seq = 0
        self._saved_seq = 0
        self._saved: dict[str, Any] = TrackedBundle().to_json()
        """What the file on disk holds (as far as this controller knows)."""
        self._save_lock = threading.Lock()
        self.kept: dict[str, Redaction] = {}
        """Secrets left in on purpose this session, by fingerprint (never saved: each launch
        redacts everything again)."""

    @property
    def path(self) -> Path:
        """Where the bundle is persisted (beside the index)."""
        return bundle_path(self.index)

    def load(self) -> Note | None:
        """Read the persisted bundle; an unreadable one is moved aside and a warning returned."""
        try:
            self.bundle = TrackedBundle.load(self.path)
            self._saved = self.bundle.to_json()
            return None
        except BundleError as exc:
            backup = self.path.with_suffix(".json.bad")
            try:
                self.path.replace(backup)
                moved = f"; moved it to {backup}"
            except OSError:
                moved = ""
            self.bundle = TrackedBundle()
            return Note(f"{exc}{moved}. Starting with an empty bundle.", "warning", timeout=8)

    def snapshot(self) -> Snapshot:
        self._seq += 1
        b = self.bundle
        return Snapshot(tuple(b.items), b.format, self._seq, dict(b.dependency_of), dict(b.details), b.budget,
                        frozenset(self.kept))

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
        text = f"{note.text}\nBundle: {_plural(state.count, 'item')}, {fmt.tokens(state.savings.tokens)} tok"
        packing = state.packing
        if packing is not None and packing.budget is not None and packing.error is None:
            text += f"; packed {fmt.tokens(packing.tokens)} of {fmt.tokens(packing.budget)}"
        return text

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

    def add_with_deps(self, plan: DepsPlan) -> Edit:
        """Add `plan`'s symbol (if new) and exactly its listed dependencies, marked as such.

        The dependencies go right after the symbol (and any it already had), each
        recording that it was added for it.
        """
        root = plan.root
        root_key = symbol_key(root.id)
        if plan.add_root:
            self.bundle.add(BundleItem.for_symbol(root))
        added = self.bundle.add_after_group(root_key, [BundleItem.for_symbol(d.symbol) for d in plan.deps],
                                            DependencyOf(root_key, root.qualname))
        if not added and not plan.add_root:
            return Edit((Note(f"{root.qualname} and its dependencies are already in the bundle"),),
                        root_key, changed=False)
        what = f"{root.qualname} with {_plural(len(added), 'dependency', 'dependencies')}" if plan.add_root else \
            f"{_plural(len(added), 'dependency', 'dependencies')} of {root.qualname}"
        return Edit((Note(f"Added {what} ({plan.delta})", timeout=EDIT_TOAST_SECONDS, totals=True),), root_key)

    def remove_group(self, key: str) -> Edit:
        """Remove an item with the items added as its dependencies (or a dependency with its group)."""
        group = self.bundle.group(key)
        if not group:
            return Edit(changed=False)
        first = self.bundle.index_of(group[0])
        names = {i.key: i.name for i in self.bundle}
        owner = [k for k in group if k not in self.bundle.dependency_of]
        for k in group:
            self.bundle.remove(k)
        keys = self.bundle.keys
        next_key = keys[min(first, len(keys) - 1)] if keys else None
        deps = len(group) - len(owner)
        if owner:
            text = f"Removed {names[owner[0]]}" + (f" and {_plural(deps, 'dependency', 'dependencies')}" if deps else "")
        else:
            text = f"Removed {_plural(deps, 'dependency', 'dependencies')}"
        return Edit((Note(text, timeout=EDIT_TOAST_SECONDS, totals=True),), next_key)

    def cycle_detail(self, key: str) -> Edit:
        """The item's next detail level by hand: full -> signature -> name -> full."""
        i = self.bundle.index_of(key)
        if i < 0:
            return Edit(changed=False)
        level = next_detail(self.bundle.details.get(key, "full"))
        if level == "full":
            self.bundle.details.pop(key, None)
        else:
            self.bundle.details[key] = level
        text = f"{self.bundle.items[i].name}: {_LEVEL_TEXT[level]}"
        return Edit((Note(text, timeout=EDIT_TOAST_SECONDS),), key)

    def set_budget(self, budget: int | None) -> Edit:
        """Pack the bundle into `budget` tokens from now on (None: no limit)."""
        if budget is not None and budget < 1:
            return Edit((Note("The budget must be at least 1 token", "warning"),), changed=False)
        self.bundle.budget = budget
        if budget is None:
            return Edit((Note("No token budget: every item is copied at its level"),))
        return Edit((Note(f"Token budget: {fmt.tokens(budget)}; items are reduced or dropped to fit, "
                          "dependencies first"),))

    def keep_secret(self, finding: Redaction, keep: bool = True) -> Edit:
        """Leave one secret in the copied text on purpose (or redact it again)."""
        if keep:
            self.kept[finding.fingerprint] = finding
            text = f"Keeping one {finding.label} in the bundle on purpose"
        else:
            self.kept.pop(finding.fingerprint, None)
            text = f"The {finding.label} is redacted again"
        return Edit((Note(text, "warning" if keep else "information"),))

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
            bundle = snap.bundle()
            data = bundle.to_json()
            if snap.seq <= self._saved_seq or data == self._saved:
                return None
            try:
                bundle.save(self.path)
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
        packing = self._packing(snap, resolved) if resolved else None
        kept = {fp: f for fp, f in self.kept.items() if fp in snap.keep}
        return BundleState(tuple(resolved), totals, snap.format, cursor_key, snap.seq, snap.dependency_of,
                           snap.details, snap.budget, packing, kept)

    def _pack(self, snap: Snapshot, resolved: list[ResolvedItem], format_name: Format | None = None) -> Packed:
        """The text to copy (raises BudgetError when the budget cannot be met)."""
        return pack_bundle(self.index, resolved, format_name or snap.format, dependency_of=snap.dependency_of,
                           details=snap.details, budget=snap.budget, keep=snap.keep)

    def _packing(self, snap: Snapshot, resolved: list[ResolvedItem]) -> Packing:
        """The figures of the packed bundle; with an impossible budget, those without it and why."""
        try:
            return self._pack(snap, resolved).packing
        except BudgetError as exc:
            unlimited = pack_bundle(self.index, resolved, snap.format, dependency_of=snap.dependency_of,
                                    details=snap.details, keep=snap.keep).packing
            return replace(unlimited, budget=snap.budget, error=str(exc))

    def _resolve(self, snap: Snapshot, cancelled: Callable[[], bool] | None) -> list[ResolvedItem] | None:
        out: list[ResolvedItem] = []
        for item in snap.items:
            if cancelled is not None and cancelled():
                return None
            out.append(resolve_item(self.index, item))
        return out

    def copy(self, snap: Snapshot, clipboard: Clipboard, format_name: Format | None = None,
             cancelled: Callable[[], bool] | None = None) -> list[Note]:
        """Pack `snap` and hand the text to `clipboard`; the notes say what happened."""
        chosen = format_name or snap.format
        resolved = self._resolve(snap, cancelled)
        if resolved is None:
            return []
        packed, problem = self._export_text(snap, resolved, chosen)
        if packed is None:
            return [problem] if problem is not None else []
        if cancelled is not None and cancelled():
            return []
        try:
            method = clipboard(packed.text)
        except Exception as exc:
            return [Note(f"Copy failed: {exc}. Use {self.hints['app.save']} to save the bundle to a file "
                         "instead.", "error")]
        p = packed.packing
        notes = [Note(f"Copied {fmt.tokens(p.tokens)} tokens ({_plural(p.items, 'item')}) as "
                      f"{_label(chosen)} via {method}" + self._details_note(p), title="Copied")]
        return notes + _left_out(list(packed.left_out))

    def save(self, snap: Snapshot, target: Path, cancelled: Callable[[], bool] | None = None,
             *, replace: bool = False) -> list[Note]:
        """Write `snap` packed to `target` (XML for a `.xml` name), mode 600.

        An existing file is replaced only with `replace` (the app asks first); a
        symlink at `target` never is.
        """
        chosen: Format = "xml" if target.suffix.lower() == ".xml" else snap.format
        resolved = self._resolve(snap, cancelled)
        if resolved is None:
            return []
        packed, problem = self._export_text(snap, resolved, chosen)
        if packed is None:
            return [problem] if problem is not None else []
        try:
            write_private(target, packed.text, replace=replace)
        except FileExistsError:
            return [Note(f"{target} already exists; save again to replace it", "warning")]
        except OSError as exc:
            reason = "it is a symlink" if exc.errno == getattr(errno, "ELOOP", -1) else exc.strerror or exc
            return [Note(f"Cannot write {target}: {reason}", "error")]
        p = packed.packing
        notes = [Note(f"Saved {_plural(p.items, 'item')} · {fmt.tokens(p.tokens)} tokens to "
                      f"{target}" + self._details_note(p), title="Saved")]
        return notes + _left_out(list(packed.left_out))

    def _export_text(self, snap: Snapshot, resolved: list[ResolvedItem], chosen: Format
                     ) -> tuple[Packed | None, Note | None]:
        """The packed text, or why there is nothing to export."""
        try:
            packed = self._pack(snap, resolved, chosen)
        except BudgetError as exc:
            return None, Note(f"Nothing copied: {exc}. Raise the budget ({self.hints['app.budget']}).", "error")
        if packed.packing.items == 0:
            flagged = len(packed.left_out)
            extra = f" ({flagged} flagged item(s) cannot be copied)" if flagged else ""
            return None, Note(f"The bundle is empty; {self.hints['app.toggle_symbol']} adds the current symbol."
                              + extra, "warning")
        return packed, None

    def _details_note(self, p: Packing) -> str:
        """The lines of a copy/save toast about the budget, secrets and control characters."""
        text = ""
        if p.budget is not None:
            text += f"\nBudget {fmt.tokens(p.budget)}: {p.reduced} reduced, {p.dropped} dropped"
        if p.redacted:
            text += (f"\n{_plural(p.redacted, 'secret')} redacted ({self.hints['app.secrets']} shows "
                     "them)")
        if self.kept:
            text += f"\n{_plural(len(self.kept), 'secret')} kept on purpose"
        return text + _controls_note(p.controls)


def _controls_note(controls: int) -> str:
    if not controls:
        return ""
    return f"\n{_plural(controls, 'raw control character')} in the source shown as \\xNN escapes"


def _left_out(left_out: list[ResolvedItem]) -> list[Note]:
    if not left_out:
        return []
    names = ", ".join(r.name for r in left_out[:3])
    return [Note(f"Left out {len(left_out)} flagged item(s): {names}", "warning")]
