"""Layout snapshots on the checked-in sample repo (update with `--snapshot-update`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from tui_support import SAMPLE_REPO, settle

from symscope.core.index import Index
from symscope.tui.app import SymscopeApp
from symscope.tui.widgets.search import SearchInput, SearchPane

SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def _steady_search_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search pane shows how long a search took; pictures must not depend on the machine."""
    show = SearchPane._show

    def at_zero_ms(self: SearchPane, text: str, parsed: Any, hits: Any, error: Any, seconds: float,
                   abbreviated: int = 0) -> None:
        show(self, text, parsed, hits, error, 0.0, abbreviated)

    monkeypatch.setattr(SearchPane, "_show", at_zero_ms)


def _app(tmp_path: Path) -> SymscopeApp:
    index = Index.open(SAMPLE_REPO, index_dir=tmp_path / "idx")
    index.update(processes=1)  # warm, so launching parses nothing and shows no toast
    return SymscopeApp(index, clipboard=lambda text: "test", processes=1, save_dir=tmp_path)


async def _search(pilot: Pilot[Any], query: str) -> None:
    await settle(pilot)
    pilot.app.query_one(SearchInput).cursor_blink = False
    await pilot.press("slash", *query)
    await pilot.pause(0.1)
    await settle(pilot)


def test_search_results_80x24(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        # Filters narrow this to one hit, so the picture does not depend on ranking.
        await _search(pilot, "kind:method path:shortener/* purge")
        await pilot.press("enter")  # open it ...
        await settle(pilot)
        await pilot.press("slash")  # ... and come back to the box
        await pilot.pause()

    assert snap_compare(_app(tmp_path), terminal_size=(80, 24), run_before=run_before)


def test_symbol_bundle_and_counters_120x40(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, SymscopeApp)
        await settle(pilot)
        for symbol_id in ("cmd/redirector/cache.go::Cache.Get#method",
                          "cmd/redirector/main.go::Resolver#interface"):
            app.current_symbol = app.ws.symbol(symbol_id)
            await pilot.pause()
            await pilot.press("a")
        await _search(pilot, "kind:interface resolver")
        await pilot.press("enter", "b")
        await settle(pilot)
        app.clear_notifications()  # toasts time out; keep the snapshot stable
        await pilot.pause()

    assert snap_compare(_app(tmp_path), terminal_size=(120, 40), run_before=run_before)


def test_help_80x24(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(_app(tmp_path), terminal_size=(80, 24), run_before=run_before)


def test_related_pane_and_savings_panel_160x44(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """The Related pane beside the outline; a bundle added with its dependencies, under a budget."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, SymscopeApp)
        await settle(pilot)
        app.current_symbol = app.ws.symbol("cmd/redirector/main.go::Server.ServeHTTP#method")
        await pilot.press("R")
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("B", *"250", "enter")
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(_app(tmp_path), terminal_size=(160, 44), run_before=run_before)
