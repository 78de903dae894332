"""Hostile file names and source never reach the terminal raw, nor as markup.

How the screen is read: every visible widget of the active screen (toasts, the
palette and modal screens included) is asked for its lines through the public
`Widget.render_lines(Region)` with its whole region, the same call Textual's
compositor makes to build a frame. Each line is a `Strip` of Rich `Segment`s, and
a segment's text is exactly what the driver writes to the terminal between style
codes, so a raw ESC there is a raw ESC on the terminal. (`export_screenshot`
reads the compositor's private state and returns SVG.)
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from tui_support import RecordingApp, search, settle

from symscope.core.index import Index
from symscope.core.models import IndexProgress
from symscope.core.pathnames import escape_name
from symscope.tui.bundle_screens import ConfirmDepsScreen
from symscope.tui.indexing import IndexingBar
from symscope.tui.widgets import BundleView, RepoTree, SearchPane, SourceView

#: Names that did damage before: OSC 52 wrote the clipboard when the tree drew the
#: name, OSC 0 set the window title, a CSI cleared the screen; bidi and zero-width
#: characters disguise names; `[bold]` would be read as markup.
HOSTILE_FILES: dict[str, str] = {
    "\x1b]52;c;aGVsbG8=\x07 x.py": 'def clip():\n    """\x1b]0;pwned\x07 doc \x1b[2J"""\n    return 1\n',
    "\x1b]0;title\x07t.py": "def titled():\n    return '\u202eevil\u200d \x07 \x9b2J'\n",
    "[bold]x.py": "def bold_name():\n    return '[red]x[/red]'\n",
    "rtl\u202egnp.py": "def rtl():\n    pass\n",
    "zw\u200dj.py": "def zwj():\n    pass\n",
    "c1\u009b2J.py": "def c1():\n    pass\n",
    "lib/main.js": "function caf\u200d\u00e9() { return '\x1b[2J'; }\n",
    "\x1b]0;d\x07deps[i].py": "def outer_call():\n    return inner_helper()\n\n\ndef inner_helper():\n    return 1\n",
}


def _unsafe(char: str) -> bool:
    """C0/C1 controls (tab and newline too: a segment never holds them), format, bidi, separators."""
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")


def unsafe_on_screen(app: Any) -> list[tuple[str, str]]:
    """(widget, segment text) for every drawn segment holding an unsafe character."""
    found: list[tuple[str, str]] = []
    for widget in app.screen.walk_children(with_self=True):
        if not widget.display or not widget.visible:
            continue
        region = widget.region
        if not region.area:
            continue
        for strip in widget.render_lines(Region(0, 0, region.width, region.height)):
            for segment in strip:
                if any(_unsafe(c) for c in segment.text):
                    found.append((type(widget).__name__, segment.text))
    return found


def screen_text(app: Any) -> str:
    lines: list[str] = []
    for widget in app.screen.walk_children(with_self=True):
        region = widget.region
        if widget.display and region.area:
            lines += [strip.text for strip in widget.render_lines(Region(0, 0, region.width, region.height))]
    return "\n".join(lines)


@pytest.fixture
def hostile_index(tmp_path: Path) -> Any:
    root = tmp_path / "repo\x1b]0;owned\x07[b]x"
    for name, text in HOSTILE_FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    index = Index.open(root, index_dir=tmp_path / "idx")
    index.update(processes=1)
    yield index
    index.close()


async def _check(pilot: Pilot[Any], step: str) -> None:
    await pilot.pause()
    assert unsafe_on_screen(pilot.app) == [], step


async def test_hostile_names_and_source_are_drawn_escaped(hostile_index: Index, tmp_path: Path) -> None:
    index = hostile_index
    app = RecordingApp(index, save_dir=tmp_path / "out")
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        app.query_one(RepoTree).root.expand_all()
        await _check(pilot, "files tree and header")
        text = screen_text(app)
        assert "[bold]x.py" in text  # the name as it is, not read as markup
        # names are kept escaped by the engine (core/pathnames.py): `\u202e`, as a path can be typed back
        assert "\\x1b]0;title\\x07t.py" in text and "rtl\\u202egnp.py" in text
        for rec in index.files():
            app.current_symbol = None
            app.current_path = rec.path
            await settle(pilot)
            await _check(pilot, f"source, outline, counters of {rec.path!r}")
        await search(pilot, "clip titled bold caf")
        assert app.query_one(SearchPane).hits
        await _check(pilot, "search results")
        await pilot.press("escape")  # back to the source: keys are commands again
        await pilot.press("R")  # the Related pane draws names and paths too
        outer = next(s for s in index.all_symbols() if s.name == "outer_call")
        app.current_symbol = outer
        await settle(pilot)
        await pilot.pause(0.2)
        await settle(pilot)
        assert "inner_helper" in screen_text(app)
        await _check(pilot, "related pane")
        await pilot.press("D")  # the add-with-dependencies modal lists them
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDepsScreen)
        await _check(pilot, "add-with-dependencies modal")
        await pilot.press("escape")
        for sym in index.all_symbols():
            app.current_symbol = sym
            await settle(pilot)
            await _check(pilot, f"symbol {sym.id!r}")
            await pilot.press("a")  # the toast names the symbol
            await settle(pilot)
            await _check(pilot, f"toast after adding {sym.id!r}")
        await pilot.press("b")
        await settle(pilot)
        assert len(app.query_one(BundleView).items) == len(index.all_symbols())
        await _check(pilot, "bundle pane")
        await pilot.press("S")  # the secrets list (empty here) names nothing raw either
        await settle(pilot)
        await _check(pilot, "secrets screen")
        await pilot.press("escape")
        await pilot.press("question_mark")
        await _check(pilot, "help screen")
        await pilot.press("escape")
        app.query_one(IndexingBar).show_progress(IndexProgress(1, 7, next(iter(HOSTILE_FILES))))
        await _check(pilot, "indexing progress")
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"only")
        await pilot.pause(0.3)
        await _check(pilot, "command palette")


async def test_source_pane_spells_controls_like_the_sanitiser(hostile_index: Index, tmp_path: Path) -> None:
    app = RecordingApp(hostile_index, save_dir=tmp_path / "out")
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        app.current_path = escape_name("\x1b]52;c;aGVsbG8=\x07 x.py")  # as the index names it
        await settle(pilot)
        source = app.query_one(SourceView)
        lines = [source.render_line(y).text for y in range(source.line_count)]
        assert any('"""\\x1b]0;pwned\\x07 doc \\x1b[2J"""' in line for line in lines), lines


async def test_empty_repo_notice_names_a_hostile_folder_safely(tmp_path: Path) -> None:
    root = tmp_path / "empty\x1b]52;c;aGk=\x07[b]dir"
    root.mkdir()
    (root / "notes\u202etxt.md").write_text("nothing to parse\n", encoding="utf-8")
    index = Index.open(root, index_dir=tmp_path / "idx")
    app = RecordingApp(index, save_dir=tmp_path / "out")
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            assert app.query_one("#notice").display
            await _check(pilot, "empty-repo notice")
            assert "empty\\x1b]52;c;aGk=\\x07[b]dir" in screen_text(app)
    finally:
        index.close()


async def test_undecodable_and_multiline_names_draw_on_one_line(tmp_path: Path) -> None:
    """Names with a byte that is not UTF-8 or a newline (issue 27): indexed, drawn escaped, opened."""
    root = tmp_path / "repo"
    base = os.fsencode(root)
    files = {b"d\xff/inner.py": b"def inner_func():\n    return 1\n",
             b"evil\n   9.99  function  forged  x.py:1/m.py": b"def forged_thing():\n    pass\n"}
    try:
        for name, data in files.items():
            os.makedirs(os.path.dirname(os.path.join(base, name)), exist_ok=True)
            with open(os.path.join(base, name), "wb") as fh:
                fh.write(data)
    except OSError as exc:
        pytest.skip(f"this filesystem refuses such names: {exc}")
    index = Index.open(root, index_dir=tmp_path / "idx")
    index.update(processes=1)
    app = RecordingApp(index, save_dir=tmp_path / "out")
    try:
        async with app.run_test(size=(140, 45)) as pilot:
            await settle(pilot)
            app.query_one(RepoTree).root.expand_all()
            await _check(pilot, "files tree")
            text = screen_text(app)
            assert "d\\xff/" in text and "evil\\x0a   9.99  functio" in text  # (the pane clips it)
            app.current_path = "d\\xff/inner.py"
            await settle(pilot)
            source = app.query_one(SourceView)
            assert any("def inner_func" in source.render_line(y).text for y in range(source.line_count))
            await _check(pilot, "source of d\\xff/inner.py")
    finally:
        index.close()
