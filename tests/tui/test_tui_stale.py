"""The app follows an index another process updated (`symscope index` run from a shell)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from tui_support import RecordingApp, search, settle

from symscope.core.index import Index
from symscope.tui import app as app_module
from symscope.tui.widgets import Counters, Outline, RepoTree, SearchPane
from symscope.tui.widgets.counters import FileCost

NEW_FUNCTION = '''

def checksum_of_code(code: str) -> int:
    """A tiny checksum so a mistyped short code is caught."""
    return sum(ALPHABET.find(c) for c in code) % BASE
'''


def _reindex_elsewhere(index: Index) -> None:
    """Add a function, then index the repo with a second `Index` on the same folders."""
    path = index.root / "shortener" / "codes.py"
    path.write_text(path.read_text(encoding="utf-8") + NEW_FUNCTION, encoding="utf-8")
    with Index.open(index.root, index_dir=index.index_dir) as other:
        report = other.update(processes=1)
    assert report.parsed == 1


async def _reload_by(pilot: Pilot[Any], how: str) -> None:
    if how == "r":
        await pilot.press("r")
    elif how == "focus":
        pilot.app.post_message(events.AppFocus())
    await settle(pilot)
    if how == "timer":
        await pilot.pause(0.3)
        await settle(pilot)


@pytest.mark.parametrize("how", ["r", "focus", "timer"])
async def test_app_reloads_when_another_process_reindexed(
    index: Index, tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Only the trigger under test may reload: the timer is slow unless it is the one tested.
    monkeypatch.setattr(app_module, "INDEX_CHECK_INTERVAL", 0.1 if how == "timer" else 3600)
    app = RecordingApp(index, save_dir=tmp_path / "out")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.current_path = "shortener/codes.py"
        await settle(pilot)
        tree = app.query_one(RepoTree)
        assert tree.root.data is not None
        before = tree.root.data.tokens
        outline_before = app.query_one(Outline).symbol_count

        _reindex_elsewhere(index)
        await _reload_by(pilot, how)

        files = index.files()
        codes = index.file("shortener/codes.py")
        assert codes is not None
        # The files tree shows the new totals, the outline and counters the new function.
        assert tree.root.data.tokens == sum(f.tokens for f in files) > before
        assert tree.root.data.files == len(files)
        assert app.query_one(Outline).symbol_count == outline_before + 1
        assert app.query_one(Counters).current == FileCost(codes.path, codes.tokens, index.repo_tokens())
        assert app.stats is not None and app.stats.symbols == len(index.all_symbols())
        assert f"{app.stats.symbols:,} symbols" in str(app.sub_title)
        # And search finds it.
        app.query_one(SearchPane).focus_input()
        await search(pilot, "checksum code")
        hits = app.query_one(SearchPane).hits
        assert hits and hits[0].symbol.id == "shortener/codes.py::checksum_of_code#function"
