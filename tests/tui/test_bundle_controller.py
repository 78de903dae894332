"""`BundleController` without Pilot: edits, persistence, resolution, copy and save on a real index."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from symscope.core.bundle import Bundle, symbol_key
from symscope.core.index import Index
from symscope.core.related import DepsPlan, plan_with_deps
from symscope.core.tokens import count_tokens
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
    # The totals name the exact count of the text a copy gives (issue 28.3), not the code's sum.
    assert state.packing is not None and state.tokens == state.packing.tokens > state.savings.tokens
    assert ctl.with_totals(note, state).endswith(f"\nBundle: 3 items, {state.tokens:,} tok")
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
    notes = ctl.copy(Snapshot(Bundle(), 1), lambda text: "unused")
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
    # The toast counts the text pasted, headers and fences included (as `symscope bundle` does).
    assert notes[0].text == f"Copied {count_tokens(copied[0]):,} tokens (1 item) as {label} via fake"
    assert count_tokens(copied[0]) > index.symbol(DECODE).tokens
    assert copied[0].startswith("<code_context" if fmt == "xml" else "# Code context")


MUST_BIND = "context.go::Context.MustBindWith#method"
BIND_JSON = "context.go::Context.BindJSON#method"


def _plan(index: Index, ctl: BundleController, symbol_id: str) -> DepsPlan:
    return plan_with_deps(index, index.symbol(symbol_id), frozenset(ctl.bundle.keys))


def test_add_with_deps_adds_exactly_the_plan_after_its_symbol(gin_index: Index, tmp_path: Path) -> None:
    ctl = BundleController(gin_index, save_dir=tmp_path)
    must = gin_index.symbol(MUST_BIND)
    ctl.toggle_symbol(gin_index.symbol("gin.go::Engine.Run#method"))
    ctl.toggle_symbol(must)
    ctl.toggle_symbol(gin_index.symbol("gin.go::New#function"))
    plan = _plan(gin_index, ctl, MUST_BIND)
    closure = [d.symbol for d in gin_index.deps.closure(must, 1)]
    assert not plan.add_root and [d.symbol for d in plan.deps] == closure and plan.present == 0
    assert plan.delta == f"+{len(closure)} deps, +{sum(s.tokens for s in closure):,} tok"
    edit = ctl.add_with_deps(plan)
    # At signature level by default (issue 28.8); the totals add the text's exact delta.
    assert edit.notes[0].text == f"Added {len(closure)} dependencies of Context.MustBindWith at signature level"
    deps = [symbol_key(s.id) for s in closure]
    # Right after the symbol they were added for, not at the end.
    assert ctl.bundle.keys == ["symbol:gin.go::Engine.Run#method", symbol_key(MUST_BIND), *deps,
                               "symbol:gin.go::New#function"]
    assert {k: d.key for k, d in ctl.bundle.dependency_of.items()} == dict.fromkeys(deps, symbol_key(MUST_BIND))
    # A second plan for a symbol that uses one of them: only the new ones, counted as present.
    bind = _plan(gin_index, ctl, BIND_JSON)
    assert bind.add_root and bind.present == 1 and symbol_key(MUST_BIND) not in [symbol_key(d.symbol.id)
                                                                                   for d in bind.deps]
    ctl.add_with_deps(bind)
    assert ctl.bundle.keys[-len(bind.deps) - 1] == symbol_key(BIND_JSON)
    assert not ctl.add_with_deps(_plan(gin_index, ctl, BIND_JSON)).changed  # nothing left to add
    # The group goes together; the other items stay.
    edit = ctl.remove_group(deps[1])
    assert edit.notes[0].text == f"Removed Context.MustBindWith and {len(deps)} dependencies"
    assert symbol_key(MUST_BIND) not in ctl.bundle.keys and not set(deps) & set(ctl.bundle.keys)
    assert "symbol:gin.go::Engine.Run#method" in ctl.bundle.keys


def test_dependency_lines_in_the_copy_and_within_a_budget(gin_index: Index, tmp_path: Path) -> None:
    ctl = BundleController(gin_index, save_dir=tmp_path)
    ctl.toggle_symbol(gin_index.symbol("gin.go::Engine.Run#method"))
    ctl.add_with_deps(_plan(gin_index, ctl, MUST_BIND))
    n = len(ctl.bundle)
    copied: list[str] = []
    ctl.copy(ctl.snapshot(), lambda text: copied.append(text) or "fake")
    listed = ", ".join(str(i) for i in range(3, n + 1))
    assert f"\n\nDependencies of item 2 (Context.MustBindWith): items {listed}\n\n## " in copied[-1]
    ctl.copy(ctl.snapshot(), lambda text: copied.append(text) or "fake", "xml")
    assert '\n<dependency name="Context.ShouldBindWith" of="Context.MustBindWith"/>\n' in copied[-1]
    assert copied[-1].startswith('<code_context items="') and copied[-1].endswith("</code_context>\n")
    # The lines count against the budget: every budget gives a text within it.
    state = ctl.resolve(ctl.snapshot())
    assert state is not None and state.packing is not None
    full = state.packing.tokens
    for budget in (full, full - 1, full // 2, full // 4, 60):
        ctl.set_budget(budget)
        copied.clear()
        notes = ctl.copy(ctl.snapshot(), lambda text: copied.append(text) or "fake")
        if copied:
            assert count_tokens(copied[0]) <= budget, budget
            assert notes[0].text.startswith(f"Copied {count_tokens(copied[0]):,} tokens")
        else:
            assert "Nothing copied" in notes[0].text
    # With the MustBindWith item dropped or reduced, the header still never lies.
    ctl.set_budget(full // 3)
    copied.clear()
    ctl.copy(ctl.snapshot(), lambda text: copied.append(text) or "fake")
    assert count_tokens(copied[0]) <= full // 3


def test_levels_budget_and_dependencies_persist_and_old_files_load(gin_index: Index, tmp_path: Path) -> None:
    ctl = BundleController(gin_index, save_dir=tmp_path)
    ctl.add_with_deps(_plan(gin_index, ctl, MUST_BIND))
    ctl.cycle_detail(symbol_key(MUST_BIND))
    ctl.set_budget(500)
    ctl.persist(ctl.snapshot())
    again = BundleController(gin_index)
    assert again.load() is None
    assert again.bundle.keys == ctl.bundle.keys and again.bundle.budget == 500
    deps = [k for k in ctl.bundle.keys if k in ctl.bundle.dependency_of]
    assert again.bundle.details == {symbol_key(MUST_BIND): "signature", **dict.fromkeys(deps, "signature")}
    assert again.bundle.dependency_of == ctl.bundle.dependency_of
    # The core's own reader still reads it (the extra keys are ignored) ...
    assert [i.key for i in Bundle.load(ctl.path)] == ctl.bundle.keys
    # ... and a file without them, or with broken ones, loads without them.
    raw = json.loads(ctl.path.read_text(encoding="utf-8"))
    raw["details"] = {symbol_key(MUST_BIND): "everything", "symbol:nope": "name"}
    raw["budget"] = "lots"
    raw["dependency_of"] = {ctl.bundle.keys[1]: "not an object"}
    ctl.path.write_text(json.dumps(raw), encoding="utf-8")
    third = BundleController(gin_index)
    assert third.load() is None and third.bundle.keys == ctl.bundle.keys
    assert third.bundle.details == {} and third.bundle.budget is None and third.bundle.dependency_of == {}


def test_level_cycle_and_budget_edits_say_what_they_did(index: Index, tmp_path: Path) -> None:
    ctl = _controller(index, tmp_path, ENCODE)
    key = f"symbol:{ENCODE}"
    assert [ctl.cycle_detail(key).notes[0].text for _ in range(3)] == [
        "encode: signature and doc only", "encode: name line only", "encode: full source"]
    assert ctl.bundle.details == {}
    assert not ctl.cycle_detail("symbol:nope").changed
    assert not ctl.set_budget(0).changed
    assert "2,000" in ctl.set_budget(2000).notes[0].text and ctl.bundle.budget == 2000
    assert ctl.set_budget(None).notes[0].text.startswith("No token budget")
