"""The Related pane and add-with-dependencies, driven with Pilot on a real, indexed Go router."""

from __future__ import annotations

import json
import threading
from typing import Any

from tui_support import RecordingApp, settle, until

from symscope.core.bundle import symbol_key
from symscope.core.index import Index
from symscope.tui.bundle_screens import ConfirmDepsScreen
from symscope.tui.widgets import BundleView, Counters, Outline
from symscope.tui.widgets.related import RelatedPane

BIND_JSON = "context.go::Context.BindJSON#method"
MUST_BIND = "context.go::Context.MustBindWith#method"
SHOULD_BIND_JSON = "context.go::Context.ShouldBindJSON#method"


def _names(rows: Any) -> list[str]:
    return [r.symbol.qualname for r in rows]


async def _shown(pilot: Any, pane: RelatedPane, symbol_id: str) -> None:
    assert await until(pilot, lambda: pane.shown is not None and pane.shown.symbol.id == symbol_id), (
        pane.shown.symbol.id if pane.shown else None)


async def test_related_pane_follows_the_selection_and_enter_opens(gin_app: RecordingApp, gin_index: Index) -> None:
    must = gin_index.symbol(MUST_BIND)
    async with gin_app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        pane = gin_app.query_one(RelatedPane)
        assert not pane.display  # hidden until asked for: nothing is computed
        gin_app.current_symbol = must
        await settle(pilot)
        assert pane.shown is None
        await pilot.press("R")
        await _shown(pilot, pane, MUST_BIND)
        assert pane.display and pane.region.height > 0
        shown = pane.shown
        assert shown is not None
        expected_uses = [s.qualname for s, _, _ in gin_index.deps.uses(must)]
        assert _names(shown.uses) == expected_uses
        assert {"Context.ShouldBindWith", "Context.AbortWithError"} <= set(expected_uses)
        assert _names(shown.callers) == ["Context.BindJSON"]
        # Rows show kind, name, tokens and where (a use: where it is defined; a caller: the call).
        should = next(r for r in shown.uses if r.symbol.qualname == "Context.ShouldBindWith")
        bind_json = gin_index.symbol(BIND_JSON)
        labels = [str(pane.render_label(n, pane.rich_style, pane.rich_style)) for n in _leaves(pane)]
        assert f"meth Context.ShouldBindWith  {should.symbol.tokens}  context.go:{should.symbol.start_line}" in labels
        caller_line = shown.callers[0].line
        assert bind_json.start_line < caller_line <= bind_json.end_line
        assert f"meth Context.BindJSON  {bind_json.tokens}  context.go:{caller_line}" in labels
        # Moving through the outline moves the pane with it.
        await pilot.press("2", "up")
        await settle(pilot)
        assert gin_app.current_symbol is not None and gin_app.current_symbol.id == SHOULD_BIND_JSON
        await _shown(pilot, pane, SHOULD_BIND_JSON)
        assert "Context.ShouldBindWith" in _names(pane.shown.uses)  # type: ignore[union-attr]
        # Enter on a row opens it; the pane then shows that symbol's own relations.
        await pilot.press("6")
        await pilot.pause()
        assert gin_app.focused is pane
        first = pane.highlighted
        assert first is not None and first.qualname == pane.shown.uses[0].symbol.qualname  # type: ignore[union-attr]
        await pilot.press("enter")
        await settle(pilot)
        assert gin_app.current_symbol == first
        await _shown(pilot, pane, first.id)
        assert gin_app.query_one(Outline).path == first.path
        # R hides it again, and the focus leaves it.
        await pilot.press("R")
        await pilot.pause()
        assert not pane.display and gin_app.focused is not pane


def _leaves(pane: RelatedPane) -> list[Any]:
    return [leaf for branch in pane.root.children for leaf in branch.children if leaf.data is not None]


async def test_the_add_key_adds_the_highlighted_row_not_the_current_symbol(
    gin_app: RecordingApp, gin_index: Index
) -> None:
    async with gin_app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        gin_app.current_symbol = gin_index.symbol(MUST_BIND)
        await pilot.press("6")
        pane = gin_app.query_one(RelatedPane)
        await _shown(pilot, pane, MUST_BIND)
        await pilot.press("down")
        row = pane.highlighted
        assert row is not None
        await pilot.press("a")
        await settle(pilot)
        assert [i.ref for i in gin_app.bundle] == [row.id]
        assert any(label.startswith("● ") for label in
                   (str(pane.render_label(n, pane.rich_style, pane.rich_style)) for n in _leaves(pane)))
        await pilot.press("space")  # space too, and again removes
        await settle(pilot)
        assert len(gin_app.bundle) == 0


async def test_uses_and_callers_are_computed_off_the_ui_thread(
    gin_app: RecordingApp, gin_index: Index, monkeypatch: Any
) -> None:
    calls: list[bool] = []
    deps = gin_index.deps
    real_uses, real_callers = deps.uses, deps.callers

    def uses(sym: Any) -> Any:
        calls.append(threading.current_thread() is threading.main_thread())
        return real_uses(sym)

    def callers(sym: Any, limit: int = 200) -> Any:
        calls.append(threading.current_thread() is threading.main_thread())
        return real_callers(sym, limit)

    monkeypatch.setattr(deps, "uses", uses)
    monkeypatch.setattr(deps, "callers", callers)
    async with gin_app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        for symbol_id in (BIND_JSON, MUST_BIND, SHOULD_BIND_JSON):
            gin_app.current_symbol = gin_index.symbol(symbol_id)
            await pilot.pause()
        pane = gin_app.query_one(RelatedPane)
        await _shown(pilot, pane, SHOULD_BIND_JSON)  # the last one wins
        await settle(pilot)
        assert pane.shown is not None and pane.shown.symbol.id == SHOULD_BIND_JSON
    assert calls and not any(calls)


async def test_add_with_deps_shows_the_delta_then_adds_exactly_those_marked(
    gin_app: RecordingApp, gin_index: Index
) -> None:
    must = gin_index.symbol(MUST_BIND)
    deps = [d.symbol for d in gin_index.deps.closure(must, 1)]
    assert {"Context.ShouldBindWith", "Context.AbortWithError"} <= {s.qualname for s in deps}
    delta = f"+{len(deps)} deps, +{must.tokens + sum(s.tokens for s in deps):,} tok"
    async with gin_app.run_test(size=(160, 44)) as pilot:
        await settle(pilot)
        gin_app.current_symbol = must
        await pilot.pause()
        # Escape: nothing is added.
        await pilot.press("D")
        assert await until(pilot, lambda: isinstance(gin_app.screen, ConfirmDepsScreen))
        await pilot.press("escape")
        await settle(pilot)
        assert len(gin_app.bundle) == 0 and gin_app.pending_deps is None
        # D: the delta first, in the modal and in the counters; nothing added yet.
        await pilot.press("D")
        assert await until(pilot, lambda: isinstance(gin_app.screen, ConfirmDepsScreen))
        counters = gin_app.query_one(Counters)
        assert gin_app.pending_deps is not None and counters.pending == gin_app.pending_deps
        assert delta in str(counters.render())
        assert gin_app.screen.query_one(".modal-intro").render().plain.startswith(delta)  # type: ignore[attr-defined]
        assert len(gin_app.bundle) == 0
        # The same key again confirms: exactly the listed items, the dependencies marked.
        await pilot.press("D")
        await settle(pilot)
        assert gin_app.pending_deps is None and delta not in str(counters.render())
        keys = [symbol_key(must.id)] + [symbol_key(s.id) for s in deps]
        assert gin_app.bundle.keys == keys
        marked = gin_app.bundled.dependency_of
        assert set(marked) == set(keys[1:]) and {d.key for d in marked.values()} == {keys[0]}
        await pilot.press("b")
        await pilot.pause()
        view = gin_app.query_one(BundleView)
        names = [str(view.table.get_row_at(i)[4]) for i in range(len(keys))]
        assert names[0] == "Context.MustBindWith" and all(n.startswith("↳ ") for n in names[1:])
        assert "dep of Context.MustBindWith" in str(view.table.get_row_at(1)[5])
        assert f"{len(deps)} deps" in str(view.border_subtitle)
        # The copied header says which items are dependencies of which.
        await pilot.press("c")
        await settle(pilot)
        listed = ", ".join(str(n) for n in range(2, len(keys) + 1))
        assert f"\n\nDependencies of item 1 (Context.MustBindWith): items {listed}\n\n## " in gin_app.copied[-1]
        # D again: nothing left to add.
        await pilot.press("D")
        await settle(pilot)
        assert "already in the bundle" in gin_app.toasts[-1]
        # X on a dependency removes the whole group.
        view.table.move_cursor(row=2)
        await pilot.press("X")
        await settle(pilot)
        assert len(gin_app.bundle) == 0
        assert any(t.startswith(f"Removed Context.MustBindWith and {len(deps)} dependencies") for t in gin_app.toasts)


async def test_dependencies_survive_a_restart_and_old_bundles_still_load(gin_index: Index, tmp_path: Any) -> None:
    must = gin_index.symbol(MUST_BIND)
    first = RecordingApp(gin_index, save_dir=tmp_path)
    async with first.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        first.current_symbol = must
        await pilot.press("D")
        assert await until(pilot, lambda: isinstance(first.screen, ConfirmDepsScreen))
        await pilot.press("enter")
        await settle(pilot)
    saved = json.loads((gin_index.index_dir / "bundle.json").read_text(encoding="utf-8"))
    assert saved["version"] == 1 and set(saved["dependency_of"]) == set(first.bundle.keys[1:])
    second = RecordingApp(gin_index, save_dir=tmp_path)
    async with second.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        assert second.bundle.keys == first.bundle.keys
        assert set(second.bundled.dependency_of) == set(first.bundle.keys[1:])
    # A bundle written before dependencies existed (no extra keys) loads as it was.
    del saved["dependency_of"]
    (gin_index.index_dir / "bundle.json").write_text(json.dumps(saved), encoding="utf-8")
    third = RecordingApp(gin_index, save_dir=tmp_path)
    async with third.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        assert third.bundle.keys == first.bundle.keys and not third.bundled.dependency_of
        assert not any("unreadable" in t for t in third.toasts)
