"""Issue 28, point 8: the small things a user hit in the app, each reproduced with Pilot."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Input
from tui_support import RecordingApp, settle, until

from symscope.core.index import Index
from symscope.tui.widgets import SearchPane
from symscope.tui.widgets.bundle_view import BundleView

ENCODE = "shortener/codes.py::encode#function"
DECODE = "shortener/codes.py::decode#function"


def _type_at_once(app: RecordingApp, *keys: tuple[str, str]) -> None:
    """Queue key events with no pause between them (a fast typist, or a paste)."""
    driver = app._driver
    assert driver is not None
    for key, char in keys:
        event = events.Key(key, char)
        event.set_sender(app)
        driver.send_message(event)


async def _bundle_of(pilot: Any, app: RecordingApp, index: Index, *ids: str) -> None:
    for symbol_id in ids:
        app.current_symbol = index.symbol(symbol_id)
        await pilot.pause()
        await pilot.press("a")
    await settle(pilot)


async def test_keys_typed_right_after_slash_reach_the_search_box(app: RecordingApp, index: Index) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _bundle_of(pilot, app, index, ENCODE, DECODE)
        await pilot.press("5")
        await pilot.pause()
        assert app.focused is app.query_one(BundleView).table
        _type_at_once(app, ("slash", "/"), ("d", "d"), ("e", "e"))
        await settle(pilot)
        assert await until(pilot, lambda: app.query_one(SearchPane).value == "de")
        assert [r.item.ref for r in app.resolved] == [ENCODE, DECODE]  # `d` removed nothing


async def test_slash_still_types_in_other_boxes(app: RecordingApp, index: Index) -> None:
    """`/` is checked before the focused widget, so a prompt or the palette must still get it."""
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _bundle_of(pilot, app, index, ENCODE)
        await pilot.press("s")
        await pilot.pause()
        box = app.screen.query_one(Input)
        box.value = ""
        await pilot.press("a", "slash", "b")
        assert box.value == "a/b"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press("slash")
        await pilot.pause()
        assert app.screen.query_one(Input).value == "/"
