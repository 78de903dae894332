"""Helpers shared by the TUI tests: a recording app and Pilot conveniences."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from symscope.core.index import Index
from symscope.tui.app import SymscopeApp

SAMPLE_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "sample_repo"
#: A small Go router with gin's names (Context.BindJSON, Engine.ServeHTTP, RouterGroup.Use).
GIN_MINI = Path(__file__).resolve().parent / "fixtures" / "gin_mini"


class RecordingApp(SymscopeApp):
    """The real app, recording what it copies and every toast it shows."""

    def __init__(self, index: Index, save_dir: Path | None, **kwargs: Any) -> None:
        self.copied: list[str] = []
        self.toasts: list[str] = []
        super().__init__(index, clipboard=self._copy, processes=1, save_dir=save_dir, **kwargs)

    def _copy(self, text: str) -> str:
        self.copied.append(text)
        return "test clipboard"

    def notify(self, message: str, **kwargs: Any) -> None:  # type: ignore[override]
        self.toasts.append(message)
        super().notify(message, **kwargs)


async def settle(pilot: Pilot[Any]) -> None:
    """Wait for every worker (index, search, highlight) and the screen to catch up."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def add_symbols(pilot: Pilot[Any], app: RecordingApp, *ids: str) -> None:
    """Pick each symbol in turn and press `a` (add to the bundle), then let the workers finish."""
    for symbol_id in ids:
        app.current_symbol = app.ws.symbol(symbol_id)
        await pilot.pause()
        await pilot.press("a")
    await settle(pilot)


async def search(pilot: Pilot[Any], query: str) -> None:
    """Type `query` into the search box and wait for its results."""
    from symscope.tui.widgets.search import SearchInput

    if not isinstance(pilot.app.focused, SearchInput):
        await pilot.press("slash")
    await pilot.press(*query)
    await pilot.pause(0.1)
    await settle(pilot)


async def until(pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll `condition` while the app runs (debounce timers and workers finish in their time)."""
    for _ in range(int(timeout / 0.02)):
        if condition():
            return True
        await pilot.pause(0.02)
    return condition()
