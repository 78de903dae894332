"""One action table: a remapped key is the key everywhere, and the palette stays cheap."""

from __future__ import annotations

import threading
from typing import Any

from textual.widgets import Static
from tui_support import RecordingApp, settle

from symscope.core.index import Index
from symscope.tui.commands import palette_commands
from symscope.tui.widgets import BundleView, Counters, SourceView


async def test_a_remapped_key_works_and_shows_everywhere(app: RecordingApp, index: Index) -> None:
    sym = index.symbol("shortener/codes.py::encode#function")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.set_keymap({"app.toggle_symbol": "plus", "app.copy": "k"})
        await pilot.pause()
        # The hints in the panes.
        assert "empty · + adds the symbol" in str(app.query_one(Counters).render())
        assert ", k copies" in str(app.query_one(Counters).render())
        empty = app.query_one(BundleView).query_one("#bundle-empty", Static)
        assert "+ adds the current symbol" in str(empty.render())
        assert "k copies it all" in str(empty.render())
        # The help screen and the palette.
        rows = {row.description: row.keys for row in app.help_rows()}
        assert rows["Add/remove the current symbol"] == "+"
        assert rows["Copy the bundle as one block"] == "k"
        helps = {c.title: c.help for c in palette_commands(app)}
        assert helps["Bundle: add or remove the current symbol"].endswith("(+)")
        assert helps["Bundle: copy to clipboard"].endswith("(k)")
        # The key itself, and the old one no longer.
        app.current_symbol = sym
        app.query_one(SourceView).focus()
        await pilot.pause()
        await pilot.press("a")
        await settle(pilot)
        assert len(app.bundle) == 0
        await pilot.press("plus")
        await settle(pilot)
        assert [i.ref for i in app.bundle] == [sym.id]
        await pilot.press("k")
        await settle(pilot)
        assert len(app.copied) == 1


async def test_the_palette_reads_cached_stats(app: RecordingApp, index: Index, monkeypatch: Any) -> None:
    calls: list[int] = []
    real_stats = index.stats

    def counted() -> Any:
        calls.append(1)
        return real_stats()

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(index, "stats", counted)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"only go")
        await pilot.pause(0.3)
        assert "Search: only go code" in [c.title for c in palette_commands(app)]
        assert calls == []


async def test_files_and_the_bundle_are_read_off_the_ui_thread_once(
    app: RecordingApp, index: Index, monkeypatch: Any
) -> None:
    reads: list[tuple[str, str, bool]] = []
    main = threading.main_thread()

    def spy(name: str) -> None:
        real = getattr(index, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            first = args[0] if args else ""
            reads.append((name, getattr(first, "path", first), threading.current_thread() is main))
            return real(*args, **kwargs)

        monkeypatch.setattr(index, name, wrapper)

    for name in ("file_text", "file_is_current", "indexed_bytes", "source"):
        if hasattr(index, name):
            spy(name)
    sym = index.symbol("shortener/store.py::LinkStore.shorten#method")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        reads.clear()
        app.current_symbol = sym
        await settle(pilot)
        assert app.query_one(SourceView).path == sym.path
        assert [r for r in reads if r[2]] == []  # nothing read on the UI thread
        assert [r[1] for r in reads if r[0] != "source"] == [sym.path]  # read once (and hashed once)
        reads.clear()
        await pilot.press("a")
        await settle(pilot)
        assert [r for r in reads if r[2]] == [] and any(r[0] == "source" for r in reads)
        assert [r.item.ref for r in app.resolved] == [sym.id]


async def test_help_rows_come_from_the_table(app: RecordingApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = app.help_rows()
    assert rows[0].where == "Anywhere" and rows[0].keys == "/"
    assert [r.keys for r in rows if r.where == "Anywhere"][-2:] == ["^p", "^q"]
    assert ("Bundle", "del, ⌫, d, x", "Remove") in [(r.where, r.keys, r.description) for r in rows]


def test_every_action_in_the_table_has_a_handler() -> None:
    from textual.actions import parse

    from symscope.tui.actions import ACTIONS
    from symscope.tui.app import SymscopeApp
    from symscope.tui.bundle_screens import ConfirmDepsScreen, ConfirmReplaceScreen, SecretsScreen
    from symscope.tui.screens import HelpScreen, PromptScreen
    from symscope.tui.widgets import BundleView, Outline, SearchPane
    from symscope.tui.widgets.related import RelatedPane
    from symscope.tui.widgets.repo_tree import RepoTree
    from symscope.tui.widgets.search import ResultsList

    owners: dict[str, type] = {"app": SymscopeApp, "search": SearchPane, "results": ResultsList, "tree": RepoTree,
                               "outline": Outline, "related": RelatedPane, "source": SourceView,
                               "bundle": BundleView, "help": HelpScreen, "prompt": PromptScreen,
                               "confirm": ConfirmDepsScreen, "replace": ConfirmReplaceScreen,
                               "secrets": SecretsScreen}
    ids = [a.id for a in ACTIONS]
    assert len(ids) == len(set(ids))
    for action in ACTIONS:
        _, name, _ = parse(action.action)
        assert hasattr(owners[action.scope], f"action_{name}"), action


async def test_a_palette_entry_runs_its_action(app: RecordingApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Bundle: show or hide")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert app.show_bundle and app.query_one(BundleView).display
