"""Fewer keys to a prompt: `tab` adds from the box, `/` starts afresh, abbreviations find names."""

from __future__ import annotations

from typing import Any

from tui_support import RecordingApp, search, settle, until

from symscope.core.index import Index
from symscope.tui.widgets import SearchPane
from symscope.tui.widgets.search import SearchInput

TARGETS = ("context.go::Context.BindJSON#method", "gin.go::Engine.ServeHTTP#method",
           "routergroup.go::RouterGroup.Use#method")


async def _results_for_box(pilot: Any, pane: SearchPane) -> None:
    """What a person does between typing and `tab`: look at the results (no key pressed)."""
    assert await until(pilot, lambda: pane.shown_query == pane.value and pane._timer is None)
    await settle(pilot)


async def test_the_gin_prompt_takes_at_most_20_keys(gin_app: RecordingApp, gin_index: Index) -> None:
    """Issue 11: Context.BindJSON, Engine.ServeHTTP and RouterGroup.Use, then copy: 19 keys."""
    queries = [("bjson", "Context.BindJSON"), ("esh", "Engine.ServeHTTP"), ("rgu", "RouterGroup.Use")]
    keys: list[str] = []
    async with gin_app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        pane = gin_app.query_one(SearchPane)
        for query, expected in queries:
            typed = ["slash", *query]
            await pilot.press(*typed)
            await _results_for_box(pilot, pane)
            assert pane.value == query  # `/` started afresh: the old query is gone
            assert pane.hits and pane.hits[0].symbol.qualname == expected, [h.symbol.qualname for h in pane.hits]
            await pilot.press("tab")
            await settle(pilot)
            assert isinstance(gin_app.focused, SearchInput)  # still in the box
            keys += [*typed, "tab"]
        await pilot.press("escape", "c")
        await settle(pilot)
        keys += ["escape", "c"]
    assert len(keys) <= 20, keys
    assert [i.ref for i in gin_app.bundle] == list(TARGETS)
    assert len(gin_app.copied) == 1
    text = gin_app.copied[0]
    for symbol_id in TARGETS:
        sym = gin_index.symbol(symbol_id)
        lines = (gin_index.root / sym.path).read_text(encoding="utf-8").splitlines()
        assert "\n".join(lines[sym.start_line - 1 : sym.end_line]) + "\n" in text
    assert text.startswith("# Code context: 3 items,")


async def test_tab_before_the_results_adds_the_top_result_when_it_arrives(
    gin_app: RecordingApp, gin_index: Index
) -> None:
    async with gin_app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"servehttp", "tab")  # no pause: tab beats the debounce
        await settle(pilot)
        assert [i.ref for i in gin_app.bundle] == ["gin.go::Engine.ServeHTTP#method"]
        # Tab again removes it (the results are on screen now).
        await pilot.press("tab")
        await settle(pilot)
        assert len(gin_app.bundle) == 0


async def test_slash_selects_the_old_query_but_types_in_a_path_filter(gin_app: RecordingApp) -> None:
    async with gin_app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        pane = gin_app.query_one(SearchPane)
        await search(pilot, "use")
        await pilot.press("slash")
        assert pane.value == "use" and pane.input.selection == (0, 3)  # typing replaces it ...
        await pilot.press("right")  # ... unless you move: then it edits
        await pilot.press(*" path:binding", "slash")
        assert pane.value == "use path:binding/"
        await pilot.press(*"b", "ctrl+a", "slash")  # cursor at the start: not in a path
        assert pane.input.selection == (0, len(pane.value))
        # From the result list too, `/` goes back to the box with the query selected.
        await pilot.press(*"handle")
        await _results_for_box(pilot, pane)
        pane.results.focus()
        await pilot.press("slash")
        assert gin_app.focused is pane.input and pane.input.selection == (0, len("handle"))


async def test_abbreviations_come_after_engine_hits_and_honour_filters(gin_app: RecordingApp) -> None:
    async with gin_app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        pane = gin_app.query_one(SearchPane)
        await search(pilot, "bjson")
        assert [h.symbol.qualname for h in pane.hits][:2] == ["Context.BindJSON", "Context.ShouldBindJSON"]
        assert "by abbreviation" in str(pane.border_subtitle)
        await pilot.press("slash")
        await search(pilot, "kind:struct rg")
        assert [h.symbol.qualname for h in pane.hits] == ["RouterGroup"]
        await pilot.press("slash")
        await search(pilot, "path:binding* bj")
        assert pane.hits == [] and "no symbols match" in str(pane.border_subtitle)
        # Several words are words, not an abbreviation.
        await pilot.press("slash")
        await search(pilot, "rgu bjson")
        assert pane.hits == []
