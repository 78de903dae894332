"""What each screenshot shows: keys typed into the real app with Pilot.

`GIN_SCENES` work on the pinned gin corpus (`screenshots.corpus`): a search, the
chosen symbol's source, a bundle of real symbols with a dependency added with `D`,
the Related pane and the help screen. `SAMPLE_SCENES` do the same on the small
fixture repo (`--sample`), for a quick run. Each scene leaves the app as pictured.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual.pilot import Pilot

from symscope.tui.app import SymscopeApp
from symscope.tui.widgets.search import SearchInput

Scene = Callable[[Pilot[Any]], Awaitable[None]]
#: (name of the picture, terminal size, scene).
Shot = tuple[str, tuple[int, int], Scene]


async def settle(pilot: Pilot[Any]) -> None:
    """Let workers finish and the screen repaint."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)


async def type_search(pilot: Pilot[Any], query: str) -> None:
    """Focus the search box, clear it and type `query`."""
    pilot.app.query_one(SearchInput).cursor_blink = False
    await pilot.press("slash", "ctrl+u", *query)
    await pilot.pause(0.1)
    await settle(pilot)


async def pick(pilot: Pilot[Any], query: str, downs: int = 0) -> None:
    """Search `query` and open its hit number `downs` (0: the first)."""
    await type_search(pilot, query)
    await pilot.press(*(["down"] * downs), "enter")
    await settle(pilot)


async def add_with_deps(pilot: Pilot[Any]) -> None:
    """`D` on the current symbol, then Enter on the delta it shows."""
    await pilot.press("D")
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


async def help_scene(pilot: Pilot[Any]) -> None:
    await pilot.press("question_mark")
    await pilot.pause(0.2)


# gin at the pinned commit.

async def gin_main(pilot: Pilot[Any]) -> None:
    await pick(pilot, "bind json")  # Context.BindJSON, against its 12k-token file
    await pilot.press("slash")  # back in the box: the results stay open
    await pilot.pause()


async def gin_bundle(pilot: Pilot[Any]) -> None:
    await pick(pilot, "bind json")
    await pilot.press("a")
    await pick(pilot, "should bind with")
    await add_with_deps(pilot)  # Context.ShouldBindWith and the Binding interface it calls
    await pilot.press("t", "b")  # the file tree hidden: room for the bundle's columns
    await settle(pilot)


async def gin_related(pilot: Pilot[Any]) -> None:
    await pick(pilot, "engine servehttp")
    await pilot.press("R")  # the Related pane follows the selection
    await settle(pilot)
    await add_with_deps(pilot)
    await pilot.press("b", "6")
    await settle(pilot)


GIN_SCENES: list[Shot] = [
    ("main", (150, 42), gin_main),
    ("bundle", (160, 42), gin_bundle),
    ("related", (190, 44), gin_related),
    ("help", (100, 44), help_scene),
]


# The fixture repo (tests/fixtures/sample_repo), for `--sample`.

async def sample_main(pilot: Pilot[Any]) -> None:
    await pick(pilot, "link store resolve", 1)
    await pilot.press("slash")
    await pilot.pause()


async def sample_bundle(pilot: Pilot[Any]) -> None:
    for query, downs in (("cache get", 2), ("link store resolve", 1), ("time ago", 0)):
        await pick(pilot, query, downs)
        await pilot.press("a")
    await pilot.press("1")
    app = pilot.app
    assert isinstance(app, SymscopeApp)
    app.current_symbol = None
    app.current_path = "shortener/codes.py"
    await pilot.pause()
    await pilot.press("A", "b")
    await settle(pilot)


async def sample_related(pilot: Pilot[Any]) -> None:
    await pick(pilot, "server servehttp")
    await pilot.press("R")
    await settle(pilot)
    await add_with_deps(pilot)
    await pilot.press("B", *"250", "enter")  # a token budget: dependencies are reduced first
    await settle(pilot)
    await pilot.press("b", "6")
    await settle(pilot)


SAMPLE_SCENES: list[Shot] = [
    ("main", (150, 42), sample_main),
    ("bundle", (160, 42), sample_bundle),
    ("related", (160, 42), sample_related),
    ("help", (100, 44), help_scene),
]
