"""The app watches the repo while it runs: a file written on disk is re-indexed in the background,
appears in the tree and in search, and a toast names it (issue 29, point 3)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tui_support import RecordingApp, search, settle, until

from symscope.core import walk as walk_module
from symscope.core.index import Index
from symscope.tui.widgets import RepoTree, SearchPane

NEW_FILE = '''"""Rate limits for short links."""


def throttle_visits(count: int, limit: int) -> bool:
    """True once a link was visited more than `limit` times."""
    return count > limit
'''
#: Seconds to wait at most for the watcher's batch and the background run (they take milliseconds).
TIMEOUT = 10.0


async def test_a_file_written_while_the_app_runs_appears_without_a_refresh(
        index: Index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = RecordingApp(index, save_dir=tmp_path / "out", watch=True)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        watcher = app.watcher
        assert watcher is not None
        assert await asyncio.to_thread(watcher.start, True, TIMEOUT)  # in place: a write is seen
        before = app.query_one(RepoTree).file_count
        real_walk = walk_module.walk

        def walk_named_only(*args: object, only: object = None, **kw: object) -> object:
            assert only is not None, "the whole repository was walked"
            return real_walk(*args, only=only, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(walk_module, "walk", walk_named_only)
        (index.root / "shortener" / "limits.py").write_text(NEW_FILE, encoding="utf-8")

        assert await until(pilot, lambda: app.query_one(RepoTree).file_count == before + 1, TIMEOUT)
        assert await until(pilot, lambda: any(t.startswith("re-indexed 1 file: shortener/limits.py")
                                              for t in app.toasts), TIMEOUT)
        await search(pilot, "throttle visits")
        hits = app.query_one(SearchPane).hits
        assert hits and hits[0].symbol.id == "shortener/limits.py::throttle_visits#function"

        (index.root / "shortener" / "limits.py").unlink()
        assert await until(pilot, lambda: app.query_one(RepoTree).file_count == before, TIMEOUT)
        assert index.file("shortener/limits.py") is None
    assert not watcher.running  # the watch ends with the app


async def test_the_app_does_not_watch_unless_asked(app: RecordingApp) -> None:
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        assert app.watcher is None


async def test_watching_off_by_environment(index: Index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYMSCOPE_WATCH", "off")
    app = RecordingApp(index, save_dir=tmp_path / "out", watch=True)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        assert app.watcher is None
