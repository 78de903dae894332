"""A folded search row opens to show its copies (issue 28, point 6): every copy is reachable."""

from __future__ import annotations

from pathlib import Path

from tui_support import RecordingApp, search, settle

from symscope.core.index import Index
from symscope.tui.widgets import SearchPane, SourceView
from symscope.tui.widgets.search import ResultsList

CLAMP = "def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n"


def _app(tmp_path: Path, files: dict[str, str]) -> RecordingApp:
    root = tmp_path / "repo"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    ix = Index.open(root, index_dir=tmp_path / "idx")
    ix.update(processes=1)
    return RecordingApp(ix, save_dir=tmp_path / "out")


def _row_text(results: ResultsList, row: int) -> str:
    return "".join(seg.text for seg in results.render_line(row - int(results.scroll_y)))


async def test_right_shows_a_folded_rows_copies_and_enter_opens_one(tmp_path: Path) -> None:
    app = _app(tmp_path, {"src/clamp.py": CLAMP, "pkg/a/clamp.py": CLAMP, "pkg/b/clamp.py": CLAMP,
                          "src/other.py": "def unrelated():\n    return 1\n"})
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await search(pilot, "clamp")
        pane = app.query_one(SearchPane)
        results = pane.results
        assert len(pane.hits) == 1 and len(pane.hits[0].duplicates) == 2
        assert "+2" in _row_text(results, 0)
        await pilot.press("right")  # at the end of the box: opens the row
        await settle(pilot)
        assert [h.symbol.path for h in results.hits] == ["src/clamp.py", "pkg/a/clamp.py", "pkg/b/clamp.py"]
        assert "-2" in _row_text(results, 0) and "\u21b3 clamp" in _row_text(results, 1)
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert app.current_symbol is not None and app.current_symbol.path == "pkg/b/clamp.py"
        assert app.query_one(SourceView).path == "pkg/b/clamp.py"
        # in the list itself: `left` hides the copies, `+` toggles them
        results.focus()
        await pilot.pause()
        await pilot.press("left")
        await settle(pilot)
        assert len(results.hits) == 1 and results.cursor == 0
        await pilot.press("plus")
        await settle(pilot)
        assert len(results.hits) == 3
        await pilot.press("plus")
        await settle(pilot)
        assert len(results.hits) == 1


async def test_right_in_the_box_still_moves_the_cursor_when_nothing_folds(tmp_path: Path) -> None:
    app = _app(tmp_path, {"src/clamp.py": CLAMP, "src/other.py": "def unrelated():\n    return 1\n"})
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await search(pilot, "clamp")
        box = app.query_one(SearchPane).input
        assert box.cursor_position == len("clamp")
        await pilot.press("left", "left", "right")
        assert box.cursor_position == len("clamp") - 1
        await pilot.press("right", "right")  # at the end, on a row with no copies: nothing happens
        assert box.cursor_position == len("clamp") and box.value == "clamp"
        assert len(app.query_one(SearchPane).results.hits) == 1
