"""`BundleController` without Pilot: edits, persistence, resolution, copy and save on a real index."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from symscope.core.bundle import Bundle
from symscope.core.index import Index
from symscope.tui.actions import KeyHints
from symscope.tui.bundle_controller import BundleController, Snapshot

ENCODE = "shortener/codes.py::encode#function"
DECODE = "shortener/codes.py::decode#function"
GET = "cmd/redirector/cache.go::Cache.Get#method"


def _lines(index: Index, symbol_id: str) -> str:
    sym = index.symbol(symbol_id)
    lines = (index.root / sym.path).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[sym.start_line - 1 : sym.end_line]) + "\n"


def _controller(index: Index, tmp_path: Path, *ids: str) -> BundleController:
    ctl = BundleController(index, save_dir=tmp_path / "out")
    for symbol_id in ids:
        ctl.toggle_symbol(index.symbol(symbol_id))
    return ctl


def test_edits_say_what_happened_and_where_the_cursor_goes(index: Index, tmp_path: Path) -> None:
    ctl = _controller(index, tmp_path)
    encode, decode, get = (index.symbol(i) for i in (ENCODE, DECODE, GET))
    edit = ctl.toggle_symbol(encode)
    assert edit.changed and edit.cursor_key == f"symbol:{ENCODE}"
    assert edit.notes[0].text == f"Added encode ({encode.tokens:,} tok)" and edit.notes[0].totals
    ctl.toggle_symbol(decode)
    ctl.toggle_symbol(get)
    assert ctl.bundle.keys == [f"symbol:{i}" for i in (ENCODE, DECODE, GET)]
    # Moving up from the last row; a move past the top changes nothing.
    assert ctl.move(f"symbol:{GET}", -1).cursor_key == f"symbol:{GET}"
    assert ctl.bundle.keys == [f"symbol:{i}" for i in (ENCODE, GET, DECODE)]
    assert not ctl.move(f"symbol:{ENCODE}", -1).changed
    # Removing puts the cursor on the item that took its place.
    assert ctl.remove(f"symbol:{GET}").cursor_key == f"symbol:{DECODE}"
    assert not ctl.remove(f"symbol:{GET}").changed
    # Toggling again removes.
    assert ctl.toggle_symbol(encode).notes[0].text.startswith("Removed encode")
    assert ctl.bundle.keys == [f"symbol:{DECODE}"]
    # A file that is not indexed is refused without a change.
    edit = ctl.toggle_file("no/such.py")
    assert not edit.changed and edit.notes[0].severity == "warning"
    edit = ctl.toggle_file("shortener/codes.py")
    assert "the bundle also has symbols from this file" in edit.notes[0].text
    assert ctl.clear().notes[0].text == "Cleared the bundle (2 items)" and len(ctl.bundle) == 0


def test_resolve_gives_the_cores_figures(index: Index, tmp_path: Path) -> None:
    ctl = _controller(index, tmp_path, ENCODE, GET)
    ctl.toggle_file("cmd/redirector/resolver.go")
    state = ctl.resolve(ctl.snapshot(), cursor_key=f"symbol:{GET}")
    assert state is not None
    assert [r.key for r in state.items] == [f"symbol:{ENCODE}", f"symbol:{GET}", "file:cmd/redirector/resolver.go"]
    assert state.cursor_key == f"symbol:{GET}" and state.flagged == 0
    resolver = index.file("cmd/redirector/resolver.go")
    assert resolver is not None
    symbols = index.savings([index.symbol(ENCODE), index.symbol(GET)])
    assert state.savings.tokens == symbols.tokens + resolver.tokens
    assert state.savings.file_tokens == symbols.file_tokens + resolver.tokens
    assert state.symbol_ids == {ENCODE, GET}
    assert state.paths == {"shortener/codes.py", "cmd/redirector/cache.go", "cmd/redirector/resolver.go"}
    assert ctl.apply(state) and ctl.state is state
    note = ctl.toggle_symbol(index.symbol(DECODE)).notes[0]
    assert ctl.with_totals(note, state).endswith(f"\nBundle: 3 items, {state.savings.tokens:,} tok")
    # Cancelled part-way: nothing to show.
    assert ctl.resolve(ctl.snapshot(), cancelled=lambda: True) is None


def test_an_older_state_never_replaces_a_newer_one(index: Index, tmp_path: Path) -> None:
    ctl = _controller(index, tmp_path, ENCODE)
    old = ctl.snapshot()
    ctl.toggle_symbol(index.symbol(GET))
    new = ctl.snapshot()
    new_state, old_state = ctl.resolve(new), ctl.resolve(old)
    assert new_state is not None and old_state is not None
    assert ctl.apply(new_state)
    assert not ctl.apply(old_state) and ctl.state is new_state
    # Saving in the wrong order keeps the newer bundle on disk.
    assert ctl.persist(new) is None and ctl.persist(old) is None
    assert [i.ref for i in Bundle.load(ctl.path)] == [ENCODE, GET]


def test_an_edit_whose_worker_never_ran_is_saved_by_the_next(index: Index, tmp_path: Path) -> None:
    ctl = BundleController(index)
    ctl.load()
    assert ctl.persist(ctl.snapshot()) is None and not ctl.path.exists()  # nothing changed: no file
    ctl.toggle_symbol(index.symbol(ENCODE))
    ctl.snapshot()  # its worker is cancelled before it saves
    ctl.persist(ctl.snapshot())  # a later refresh (no edit of its own) saves it
    assert [i.ref for i in Bundle.load(ctl.path)] == [ENCODE]


def test_persisted_bundle_and_format_come_back(index: Index, tmp_path: Path) -> None:
    ctl = _controller(index, tmp_path, GET, ENCODE)
    assert "XML" in ctl.toggle_format().notes[0].text
    ctl.persist(ctl.snapshot())
    again = BundleController(index)
    assert again.load() is None
    assert [i.ref for i in again.bundle] == [GET, ENCODE] and again.bundle.format == "xml"
    assert again.default_save_path().name == "symscope-bundle.xml"


def test_an_unreadable_bundle_is_moved_aside(index: Index) -> None:
    ctl = BundleController(index)
    ctl.path.parent.mkdir(parents=True, exist_ok=True)
    ctl.path.write_text("{not json", encoding="utf-8")
    note = ctl.load()
    assert note is not None and note.severity == "warning" and "empty bundle" in note.text
    assert ctl.path.with_suffix(".json.bad").read_text(encoding="utf-8") == "{not json"
    assert len(ctl.bundle) == 0


def test_changed_and_missing_items_are_flagged_then_accepted_or_dropped(index: Index, tmp_path: Path) -> None:
    ctl = _controller(index, tmp_path, ENCODE, DECODE)
    path = index.root / "shortener/codes.py"
    text = path.read_text(encoding="utf-8")
    text = text[: text.index("def decode")].rstrip() + "\n"
    path.write_text(text.replace("return ALPHABET[0]", "return ALPHABET[0]  # zero"), encoding="utf-8")
    index.update(processes=1)
    state = ctl.resolve(ctl.snapshot())
    assert state is not None and ctl.apply(state)
    assert {r.item.ref: r.status for r in state.items} == {ENCODE: "changed", DECODE: "missing"}
    assert ctl.accept().notes[0].text == "Accepted 1 changed item"
    after = ctl.resolve(ctl.snapshot())
    assert after is not None and ctl.apply(after)
    assert {r.item.ref: r.status for r in after.items} == {ENCODE: "ok", DECODE: "missing"}
    assert ctl.remove_missing().notes[0].text == "Removed 1 missing item"
    assert [i.ref for i in ctl.bundle] == [ENCODE]


def test_copy_is_exact_except_raw_controls_which_are_counted(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    source = 'def ring():\n    """Rings: \x07 and \x1b]0;title\x07."""\n    return "\u202eabc"\n'
    root = write_repo({"bell.py": source})
    with Index.open(root, tmp_path / "idx") as index:
        index.update(processes=1)
        ctl = BundleController(index)
        ctl.toggle_symbol(index.symbol("bell.py::ring#function"))
        copied: list[str] = []
        notes = ctl.copy(ctl.snapshot(), lambda text: copied.append(text) or "fake")
    assert len(copied) == 1
    visible = 'def ring():\n    """Rings: \\x07 and \\x1b]0;title\\x07."""\n    return "\u202eabc"\n'
    assert f"```python\n{visible}```\n" in copied[0]
    assert not any(c in copied[0] for c in "\x07\x1b")
    assert notes[0].text.endswith("\n3 raw control characters in the source shown as \\xNN escapes")


def test_save_creates_the_file_mode_600_and_refuses_symlinks(index: Index, tmp_path: Path) -> None:
    ctl = _controller(index, tmp_path, ENCODE)
    old_umask = os.umask(0o022)
    try:
        target = tmp_path / "out" / "deep" / "bundle.md"
        notes = ctl.save(ctl.snapshot(), target)
    finally:
        os.umask(old_umask)
    assert notes[0].title == "Saved"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert f"```python\n{_lines(index, ENCODE)}```\n" in target.read_text(encoding="utf-8")
    xml = tmp_path / "out" / "bundle.xml"
    ctl.save(ctl.snapshot(), xml)
    assert xml.read_text(encoding="utf-8").startswith('<code_context items="1"')
    # A symlink planted where the bundle goes is not followed.
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    planted = tmp_path / "out" / "symscope-bundle.md"
    planted.symlink_to(victim)
    notes = ctl.save(ctl.snapshot(), planted)
    assert notes[0].severity == "error" and "symlink" in notes[0].text
    assert victim.read_text(encoding="utf-8") == "keep me"


def test_messages_use_the_keys_of_the_keymap(index: Index) -> None:
    ctl = BundleController(index, hints=KeyHints({"app.toggle_symbol": "plus", "app.copy": "k"}))
    notes = ctl.copy(Snapshot((), "markdown", 1), lambda text: "unused")
    assert notes[0].text == "The bundle is empty; plus adds the current symbol."
    assert ctl.toggle_format().notes[0].text == "Bundle format: XML (k copies, s saves)"


def test_the_controller_needs_no_textual() -> None:
    code = "import sys, symscope.tui.bundle_controller; print(sorted(m for m in sys.modules if 'textual' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
def test_copy_renders_the_chosen_format(index: Index, tmp_path: Path, fmt: str) -> None:
    ctl = _controller(index, tmp_path, DECODE)
    copied: list[str] = []
    notes = ctl.copy(ctl.snapshot(), lambda text: copied.append(text) or "fake", fmt)  # type: ignore[arg-type]
    label = "XML" if fmt == "xml" else "Markdown"
    assert notes[0].text == f"Copied {index.symbol(DECODE).tokens:,} tokens (1 item) as {label} via fake"
    assert copied[0].startswith("<code_context" if fmt == "xml" else "# Code context")
