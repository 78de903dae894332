"""Issue 27, point 10: `s` over an existing file asks first, and what it writes is always mode 600."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from tui_support import RecordingApp, settle

from symscope.core.index import Index
from symscope.tui.bundle_screens import ConfirmReplaceScreen
from symscope.tui.screens import PromptScreen

SYMBOL = "shortener/codes.py::encode#function"


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


async def _save_prompt(app: RecordingApp, index: Index, pilot: Pilot[Any], target: Path) -> None:
    """Add one symbol, press `s` and accept `target` in the prompt."""
    await settle(pilot)
    app.current_symbol = index.symbol(SYMBOL)
    await pilot.pause()
    await pilot.press("a", "s")
    await pilot.pause()
    assert isinstance(app.screen, PromptScreen)
    app.screen.query_one("#prompt-input").value = str(target)  # type: ignore[attr-defined]
    await pilot.press("enter")
    await settle(pilot)


async def test_saving_over_an_existing_file_asks_then_writes_it_private(
        app: RecordingApp, index: Index, tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_text("old notes\n")
    target.chmod(0o644)
    async with app.run_test(size=(120, 40)) as pilot:
        await _save_prompt(app, index, pilot, target)
        assert isinstance(app.screen, ConfirmReplaceScreen)
        assert target.read_text() == "old notes\n"  # nothing written before the answer
        await pilot.press("enter")
        await settle(pilot)
    assert "def encode" in target.read_text()
    assert _mode(target) == 0o600
    assert any(t.startswith("Saved 1 item") for t in app.toasts)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".symscope")) == []


async def test_cancelling_the_question_keeps_the_old_file(app: RecordingApp, index: Index, tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_text("old notes\n")
    target.chmod(0o644)
    async with app.run_test(size=(120, 40)) as pilot:
        await _save_prompt(app, index, pilot, target)
        assert isinstance(app.screen, ConfirmReplaceScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmReplaceScreen)
    assert target.read_text() == "old notes\n" and _mode(target) == 0o644
    assert not any(t.startswith("Saved") for t in app.toasts)


async def test_a_new_file_is_written_without_asking(app: RecordingApp, index: Index, tmp_path: Path) -> None:
    target = tmp_path / "new" / "bundle.md"
    async with app.run_test(size=(120, 40)) as pilot:
        await _save_prompt(app, index, pilot, target)
        assert not isinstance(app.screen, ConfirmReplaceScreen)
    assert "def encode" in target.read_text() and _mode(target) == 0o600


async def test_a_symlink_at_the_destination_is_not_followed(app: RecordingApp, index: Index, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    victim.chmod(0o644)
    target = tmp_path / "bundle.md"
    target.symlink_to(victim)
    async with app.run_test(size=(120, 40)) as pilot:
        await _save_prompt(app, index, pilot, target)
        assert not isinstance(app.screen, ConfirmReplaceScreen)
    assert victim.read_text() == "precious\n" and _mode(victim) == 0o644
    assert target.is_symlink()
    assert any("Cannot write" in t and "symlink" in t for t in app.toasts)
