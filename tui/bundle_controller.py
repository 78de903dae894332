"""The bundle's logic without Textual: edit, persist, resolve, render, copy and save.

The App owns one `BundleController`. Edits (`toggle_symbol`, `remove`, `move`...)
change the in-memory `Bundle` at once; they read no files, so they run on the UI
thread, and each returns an `Edit`: what to tell the user and where the bundle
pane's cursor goes. Everything that touches files (`persist`, `resolve`, `copy`,
`save`) takes a `Snapshot` made on the UI thread and is meant for a thread worker.
The result of `resolve` is a `BundleState`, the value the panes are bound to.

Copied and saved text is the engine's rendering of the bundle
(`symscope.core.bundle.render_bundle`, the call `symscope bundle` and MCP
`build_bundle` make too): each item at its detail level (set by hand, or chosen
under a token budget), secrets redacted unless kept on purpose, raw control
characters made visible (the toast counts both), and which items were added as
dependencies of which. Every resolution renders the bundle too, so every figure of
the bundle's size is the exact count of the text a copy would give now. Saved files
are created mode 600.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from symscope.core.api import (
    DEPENDENCY_DETAIL,
    FORMAT_SUFFIX,
    BudgetError,
    Bundle,
    BundleError,
    BundleItem,
    BundleResult,
    DependencyOf,
    DepsPlan,
    Detail,
    Format,
    Redaction,
    ResolvedItem,
    Workspace,
    file_key,
    next_detail,
    symbol_key,
    write_private,
)
from symscope.core.models import Savings, Symbol
from symscope.tui import formatting as fmt
from symscope.tui.actions import KeyHints
from symscope.tui.clipboard import Clipboard

if TYPE_CHECKING:
    from symscope.core.api import Index

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
    before: int | None = None
    """The text's count before the edit: the totals then say what it grew (or shrank) by."""


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
    """The bundle (a copy of the model, secret decisions included) at one moment, safe to hand
    to a thread."""

    model: Bundle
    seq: int
    """Increases with every snapshot; a slower, older one never overwrites a newer save."""

    @property
    def items(self) -> list[BundleItem]:
        return self.model.items

    @property
    def format(self) -> Format:
        return self.model.format

    def bundle(self) -> Bundle:
        """The bundle as it was (what is persisted)."""
        return self.model


@dataclass(frozen=True, slots=True)
class Packing:
    """What copying the bundle now gives: the counters, the rows and the savings panel show it."""

    tokens: int
    """The exact cl100k count of the text (headers, fences and dependency lines included)."""
    budget: int | None
    items: int
    """Items in the text."""
    levels: Mapping[str, Detail | None]
    """Per bundle key, the level the item is pasted at; None when the budget dropped it."""
    reduced: int
    """Items pasted below the level asked for (by the budget)."""
    dropped: int
    redactions: tuple[Redaction, ...] = ()
    """Secrets replaced by markers, in text order."""
    controls: int = 0
    """Raw control characters made visible."""
    error: str | None = None
    """Why the budget cannot be met (the figures are then those without a budget)."""
    item_tokens: Mapping[str, int] = field(default_factory=dict)
    """Per bundle key, the tokens of the item's own lines in the text (0: dropped); with the
    header's they add up to `tokens`."""

    @property
    def redacted(self) -> int:
        return len(self.redactions)

    @classmethod
    def of(cls, result: BundleResult, error: str | None = None, budget: int | None = None) -> Packing:
        levels: dict[str, Detail | None] = {item.key: item.detail for item in result.items}
        levels.update({item.key: None for item in result.dropped})
        sizes = {item.key: item.tokens for item in (*result.items, *result.dropped)}
        return cls(result.tokens, budget if error else result.budget, len(result.items), levels, result.reduced,
                   len(result.dropped), result.redactions, result.controls, error, sizes)


@dataclass(frozen=True, slots=True)
class BundleState:
    """The bundle as the panes show it: every item looked up in the index, and the totals."""

    items: tuple[ResolvedItem, ...] = ()
    savings: Savings = field(default_factory=lambda: Savings(0, 0, 0))
    """Code only: the items' own tokens against their whole files and the repo."""
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

    @property
    def tokens(self) -> int:
        """The exact count of the text a copy would give now (0 for an empty bundle; a state
        made without packing, as a widget test makes one, has only its code sum)."""
        return self.packing.tokens if self.packing is not None else self.savings.tokens

    @property
    def text_savings(self) -> Savings:
        """The text's exact count against the items' whole files and the repo."""
        return Savings(self.tokens, self.savings.file_tokens, self.savings.repo_tokens)

    def item_tokens(self, key: str) -> int | None:
        """Tokens of the item's own lines in the text now (None: not in it)."""
        if self.packing is None or key not in self.packing.item_tokens:
            return None
        return self.packing.item_tokens[key]

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


_LEVEL_NAME: dict[Detail, str] = {"full": "full", "signature": "signature", "name": "name"}


def _label(format_name: Format) -> str:
    return "XML" if format_name == "xml" else "Markdown"


class BundleController:
    """Owns the `Bundle` of one index's repo; see the module docstring for the threading rules."""

    def __init__(self, ws: Workspace | Index, *, save_dir: Path | None = None,
                 hints: KeyHints | None = None) -> None:
        """
        Args:
            ws: The repo's workspace, or an open index (items are looked up in it).
            save_dir: Folder of the default save path (default: the current directory).
            hints: Key names for messages ("a adds the current symbol").
        """
        self.ws = Workspace.of(ws)
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
        self.kept: dict[str, Redaction] = {}
        """Secrets left in on purpose this session, by fingerprint (never saved: each launch
        redacts everything again)."""

    @property
    def path(self) -> Path:
        """Where the bundle is persisted (beside the index)."""
        return self.ws.bundle_path()

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
        model = self.bundle.copy()
        model.keep = frozenset(self.kept)
        return Snapshot(model, self._seq)

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
        text = note.text
        if note.before is not None:
            delta = state.tokens - note.before
            text += (f": {'+' if delta >= 0 else '-'}{fmt.tokens(abs(delta))} tokens "
                     f"({fmt.tokens(note.before)} → {fmt.tokens(state.tokens)})")
        text += f"\nBundle: {_plural(state.count, 'item')}, {fmt.tokens(state.tokens)} tok"
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
        rec = self.ws.file(path)
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

    def add_with_deps(self, plan: DepsPlan, level: Detail = DEPENDENCY_DETAIL) -> Edit:
        """Add `plan`'s symbol (if new, in full) and exactly its listed dependencies, marked as
        such, at `level` (signature by default, as `symscope bundle --deps` adds them).

        The dependencies go right after the symbol (and any it already had), each
        recording that it was added for it. The note, once resolved, says what the text
        grew by: `Added 4 dependencies of X at signature level: +312 tokens (919 → 1,231)`.
        """
        root = plan.root
        root_key = symbol_key(root.id)
        before = self.state.tokens
        if plan.add_root:
            self.bundle.add(BundleItem.for_symbol(root))
        added = self.bundle.add_after_group(root_key, [BundleItem.for_symbol(d.symbol) for d in plan.deps],
                                            DependencyOf(root_key, root.qualname), level)
        if not added and not plan.add_root:
            return Edit((Note(f"{root.qualname} and its dependencies are already in the bundle"),),
                        root_key, changed=False)
        deps = _plural(len(added), "dependency", "dependencies")
        what = f"{root.qualname} with {deps}" if plan.add_root else f"{deps} of {root.qualname}"
        at = "" if not added else f" at {_LEVEL_NAME[level]} level"
        return Edit((Note(f"Added {what}{at}", timeout=EDIT_TOAST_SECONDS, totals=True, before=before),),
                    root_key)

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
        level = next_detail(self.bundle.level(key))
        self.bundle.set_level(key, level)
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
        totals = self.ws.bundle_savings(resolved)
        packing = self._packing(snap, resolved) if resolved else None
        kept = {fp: f for fp, f in self.kept.items() if fp in snap.model.keep}
        m = snap.model
        return BundleState(tuple(resolved), totals, m.format, cursor_key, snap.seq, dict(m.dependency_of),
                           dict(m.details), m.budget, packing, kept)

    def _pack(self, snap: Snapshot, resolved: list[ResolvedItem], format_name: Format | None = None
              ) -> BundleResult:
        """The text to copy: the engine's one rendering (raises BudgetError when the budget cannot be met)."""
        return self.ws.render_bundle(snap.model, fmt=format_name, resolved=resolved)

    def _packing(self, snap: Snapshot, resolved: list[ResolvedItem]) -> Packing:
        """The figures of the packed bundle; with an impossible budget, those without it and why."""
        try:
            return Packing.of(self._pack(snap, resolved))
        except BudgetError as exc:
            unlimited = snap.model.copy()
            unlimited.budget = None
            return Packing.of(self.ws.render_bundle(unlimited, resolved=resolved), str(exc), snap.model.budget)

    def _resolve(self, snap: Snapshot, cancelled: Callable[[], bool] | None) -> list[ResolvedItem] | None:
        out: list[ResolvedItem] = []
        for item in snap.items:
            if cancelled is not None and cancelled():
                return None
            out.append(self.ws.resolve_item(item))
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
        p = Packing.of(packed)
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
        p = Packing.of(packed)
        notes = [Note(f"Saved {_plural(p.items, 'item')} · {fmt.tokens(p.tokens)} tokens to "
                      f"{target}" + self._details_note(p), title="Saved")]
        return notes + _left_out(list(packed.left_out))

    def _export_text(self, snap: Snapshot, resolved: list[ResolvedItem], chosen: Format
                     ) -> tuple[BundleResult | None, Note | None]:
        """The packed text, or why there is nothing to export."""
        try:
            packed = self._pack(snap, resolved, chosen)
        except BudgetError as exc:
            return None, Note(f"Nothing copied: {exc}. Raise the budget ({self.hints['app.budget']}).", "error")
        if not packed.items:
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
