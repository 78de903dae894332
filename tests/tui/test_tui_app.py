"""Drive the real app with Pilot on a real, indexed copy of the sample repo."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.widgets import ProgressBar
from tui_support import RecordingApp, search, settle

from symscope.core.index import Index
from symscope.core.models import IndexProgress, IndexReport, Symbol
from symscope.core.tokens import count_tokens
from symscope.tui.screens import HelpScreen, PromptScreen
from symscope.tui.widgets import BundleView, Counters, Outline, RepoTree, SearchPane, SourceView
from symscope.tui.widgets.counters import BundleCost, FileCost, SymbolCost


def _file_lines(index: Index, sym: Symbol) -> str:
    """The symbol's whole lines, read straight from the file (independent of the core)."""
    lines = (index.root / sym.path).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[sym.start_line - 1 : sym.end_line]) + "\n"


async def test_search_then_enter_marks_the_symbol_lines(app: RecordingApp, index: Index) -> None:
    expected = index.symbol("shortener/store.py::LinkStore.purge_expired#method")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await search(pilot, "purge expired")
        pane = app.query_one(SearchPane)
        assert pane.hits and pane.hits[0].symbol.id == expected.id
        await pilot.press("enter")
        await settle(pilot)
        source = app.query_one(SourceView)
        assert app.current_symbol == expected
        assert source.path == expected.path
        assert source.marked == (expected.start_line, expected.end_line)
        # The symbol is scrolled into view, and the source pane has the focus.
        top = int(source.scroll_y)
        assert top < expected.start_line <= top + source.scrollable_content_region.height
        assert app.focused is source
        # The tree follows, and the outline's cursor sits on the symbol.
        outline = app.query_one(Outline)
        assert outline.path == expected.path
        assert outline.cursor_node is not None and outline.cursor_node.data == expected


async def test_arrow_keys_move_through_results_from_the_box(app: RecordingApp, index: Index) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await search(pilot, "cache")
        pane = app.query_one(SearchPane)
        assert len(pane.hits) >= 2
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.current_symbol == pane.hits[1].symbol
        assert app.query_one(SourceView).marked == (pane.hits[1].symbol.start_line,
                                                    pane.hits[1].symbol.end_line)


async def test_query_filters_restrict_results(app: RecordingApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await search(pilot, "kind:class lang:python link")
        hits = app.query_one(SearchPane).hits
        assert hits and all(h.symbol.kind == "class" and h.symbol.language == "python" for h in hits)
        await pilot.press("ctrl+u")
        await search(pilot, "path:cmd/* get")
        hits = app.query_one(SearchPane).hits
        assert hits and all(h.symbol.path.startswith("cmd/") for h in hits)
        await pilot.press("ctrl+u")
        await search(pilot, "kind:klass link")
        pane = app.query_one(SearchPane)
        assert pane.has_class("-error") and "unknown kind" in str(pane.border_subtitle)


async def test_adding_to_the_bundle_updates_counters_with_core_numbers(
    app: RecordingApp, index: Index
) -> None:
    first = index.symbol("shortener/codes.py::encode#function")
    second = index.symbol("cmd/redirector/cache.go::Cache.Get#method")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        counters = app.query_one(Counters)
        await search(pilot, "encode")
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_symbol == first, (app.current_symbol.id if app.current_symbol else None, first.id)
        assert counters.current == SymbolCost(first.qualname, first.kind, index.savings([first]))
        await pilot.press("a")
        await pilot.pause()
        assert counters.bundle == BundleCost(1, 0, index.savings([first]))
        assert counters.bundle.savings.tokens == first.tokens

        await search(pilot, "cache get")
        app.current_symbol = second  # pick it however it ranks
        await pilot.pause()
        app.query_one(SourceView).focus()
        await pilot.press("a")
        await pilot.pause()
        both = index.savings([first, second])
        assert counters.bundle == BundleCost(2, 0, both)
        assert both.tokens == first.tokens + second.tokens
        assert both.file_tokens == index.file(first.path).tokens + index.file(second.path).tokens  # type: ignore[union-attr]
        assert both.repo_tokens == index.repo_tokens()
        # The exact figures are on screen: the count of the text a copy gives now (issue 28.3;
        # the code alone is less: headers and fences cost tokens too).
        text = str(counters.render())
        shown = app.bundled.tokens
        assert shown > both.tokens and f"{shown:,} tok" in text and f"{both.file_tokens:,}" in text
        # `a` again removes it.
        await pilot.press("a")
        await pilot.pause()
        assert counters.bundle == BundleCost(1, 0, index.savings([first]))


async def test_copy_puts_exact_markdown_on_the_clipboard(app: RecordingApp, index: Index) -> None:
    method = index.symbol("shortener/store.py::LinkStore.resolve#method")
    func = index.symbol("web/static/format.js::timeAgo#function")
    whole = index.file("cmd/redirector/resolver.go")
    assert whole is not None
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for sym in (method, func):
            app.current_symbol = sym
            await pilot.pause()
            await pilot.press("a")
        app.current_symbol = None
        app.current_path = whole.path
        await pilot.pause()
        await pilot.press("A")
        await pilot.press("c")
        await pilot.pause()
        assert len(app.copied) == 1

    total = method.tokens + func.tokens + whole.tokens
    file_text = (index.root / whole.path).read_text(encoding="utf-8")
    # The header states the text's own exact count (issue 28.3).
    expected = (
        f"# Code context: 3 items, {count_tokens(app.copied[0])} tokens\n"
        "\n"
        f"1. shortener/store.py:{method.start_line}-{method.end_line} (method LinkStore.resolve, {method.tokens} tokens)\n"
        f"2. web/static/format.js:{func.start_line}-{func.end_line} (function timeAgo, {func.tokens} tokens)\n"
        f"3. cmd/redirector/resolver.go:1-{whole.lines} (file, {whole.tokens} tokens)\n"
        "\n"
        f"## shortener/store.py:{method.start_line}-{method.end_line} (method LinkStore.resolve)\n"
        "\n"
        f"```python\n{_file_lines(index, method)}```\n"
        "\n"
        f"## web/static/format.js:{func.start_line}-{func.end_line} (function timeAgo)\n"
        "\n"
        f"```javascript\n{_file_lines(index, func)}```\n"
        "\n"
        f"## cmd/redirector/resolver.go:1-{whole.lines} (file)\n"
        "\n"
        f"```go\n{file_text}```\n"
    )
    assert app.copied[0] == expected
    assert _file_lines(index, method).startswith("    def resolve(")  # indentation kept
    # The toast counts the text pasted, headers and fences included (as `symscope bundle` does).
    pasted = count_tokens(expected)
    assert pasted > total
    assert any(f"Copied {pasted:,} tokens (3 items) as Markdown via test clipboard" in t for t in app.toasts)


async def test_copy_as_xml_from_the_palette_action(app: RecordingApp, index: Index) -> None:
    sym = index.symbol("shortener/codes.py::decode#function")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.current_symbol = sym
        await pilot.pause()
        await pilot.press("a")
        await app.run_action("copy_bundle('xml')")
        await pilot.pause()
    assert app.copied == [
        f'<code_context items="1" tokens="{count_tokens(app.copied[0])}">\n'
        f'<item path="shortener/codes.py" lines="{sym.start_line}-{sym.end_line}" kind="function" '
        f'name="decode" language="python" tokens="{sym.tokens}">\n'
        f"<![CDATA[{_file_lines(index, sym)}]]>\n"
        "</item>\n"
        "</code_context>\n"
    ]


async def test_bundle_is_restored_after_a_restart(index: Index, tmp_path: Path) -> None:
    syms = [index.symbol("shortener/api.py::create_link#function"),
            index.symbol("cmd/redirector/main.go::NewServer#function")]
    first = RecordingApp(index, save_dir=tmp_path)
    async with first.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for sym in syms:
            first.current_symbol = sym
            await pilot.pause()
            await pilot.press("a")
        await pilot.press("F")  # XML is remembered too
        await pilot.pause()
    assert (index.index_dir / "bundle.json").exists()

    reopened = Index.open(index.root, index_dir=index.index_dir)
    second = RecordingApp(reopened, save_dir=tmp_path)
    try:
        async with second.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert [r.item.ref for r in second.resolved] == [s.id for s in syms]
            assert second.bundle.format == "xml"
            assert second.query_one(Counters).bundle == BundleCost(2, 0, reopened.savings(syms))
            view = second.query_one(BundleView)
            assert [r.key for r in view.items] == [f"symbol:{s.id}" for s in syms]
    finally:
        reopened.close()


async def test_changed_and_vanished_symbols_are_flagged_not_dropped(
    app: RecordingApp, index: Index
) -> None:
    keep = index.symbol("shortener/codes.py::encode#function")
    gone = index.symbol("shortener/codes.py::decode#function")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for sym in (keep, gone):
            app.current_symbol = sym
            await pilot.pause()
            await pilot.press("a")
        path = index.root / "shortener/codes.py"
        text = path.read_text(encoding="utf-8")
        text = text[: text.index("def decode")].rstrip() + "\n"
        path.write_text(text.replace("return ALPHABET[0]", "return ALPHABET[0]  # zero"), encoding="utf-8")
        await pilot.press("r")
        await settle(pilot)
        statuses = {r.item.ref: r.status for r in app.resolved}
        assert statuses == {keep.id: "changed", gone.id: "missing"}
        assert len(app.bundle) == 2
        counters = app.query_one(Counters)
        assert counters.bundle is not None and counters.bundle.flagged == 2
        # Copy leaves the vanished one out, says so, and keeps it in the bundle.
        await pilot.press("c")
        await pilot.pause()
        assert "# Code context: 1 item," in app.copied[-1]
        assert any("Left out 1 flagged item" in t for t in app.toasts)
        # Accepting changes clears the flag of the changed item only.
        app.accept_changes()
        await pilot.pause()
        assert {r.item.ref: r.status for r in app.resolved} == {keep.id: "ok", gone.id: "missing"}
        app.remove_missing()
        await pilot.pause()
        assert [r.item.ref for r in app.resolved] == [keep.id]


async def test_bundle_pane_reorders_and_removes(app: RecordingApp, index: Index) -> None:
    syms = [index.symbol(i) for i in (
        "shortener/codes.py::encode#function",
        "shortener/codes.py::decode#function",
        "web/static/app.js::renderTable#function",
    )]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for sym in syms:
            app.current_symbol = sym
            await pilot.pause()
            await pilot.press("a")
        await pilot.press("b")
        await pilot.pause()
        view = app.query_one(BundleView)
        assert view.display and app.focused is view.table
        await pilot.press("end")  # cursor to the last row
        await pilot.press("K")
        await pilot.pause()
        assert [s.id for s in syms] != [r.item.ref for r in app.resolved]
        assert [r.item.ref for r in app.resolved] == [syms[0].id, syms[2].id, syms[1].id]
        assert view.cursor_key == f"symbol:{syms[2].id}"
        await pilot.press("ctrl+up")
        await pilot.pause()
        assert [r.item.ref for r in app.resolved] == [syms[2].id, syms[0].id, syms[1].id]
        await pilot.press("J")
        await pilot.pause()
        assert [r.item.ref for r in app.resolved] == [syms[0].id, syms[2].id, syms[1].id]
        await pilot.press("delete")
        await pilot.pause()
        assert [r.item.ref for r in app.resolved] == [syms[0].id, syms[1].id]
        assert app.query_one(Counters).bundle == BundleCost(2, 0, index.savings([syms[0], syms[1]]))
        await pilot.press("enter")
        await pilot.pause()
        assert app.current_symbol == syms[1]


async def test_save_writes_the_bundle_to_a_file(app: RecordingApp, index: Index, tmp_path: Path) -> None:
    sym = index.symbol("web/static/app.js::fetchLinks#function")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.current_symbol = sym
        await pilot.pause()
        await pilot.press("a", "s")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
    saved = tmp_path / "out" / "symscope-bundle.md"
    assert saved.read_text(encoding="utf-8") == app.copied[-1]
    assert f"```javascript\n{_file_lines(index, sym)}```\n" in app.copied[-1]


async def test_tree_outline_and_click_drive_the_current_symbol(app: RecordingApp, index: Index) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = app.query_one(RepoTree)
        assert tree.file_count == len(index.files())
        tree.post_message(RepoTree.FileChosen(tree, "shortener/store.py"))
        await pilot.pause()
        assert app.current_path == "shortener/store.py" and app.current_symbol is None
        counters = app.query_one(Counters)
        rec = index.file("shortener/store.py")
        assert rec is not None
        assert counters.current == FileCost(rec.path, rec.tokens, index.repo_tokens())
        # Moving through the focused outline previews each symbol.
        await pilot.press("2")
        await pilot.pause()
        outline = app.query_one(Outline)
        seen = []
        for _ in range(3):
            await pilot.press("down")
            await pilot.pause()
            node = outline.cursor_node
            assert node is not None and node.data is not None
            assert app.current_symbol == node.data
            assert app.query_one(SourceView).marked == (node.data.start_line, node.data.end_line)
            seen.append(node.data.id)
        assert len(set(seen)) == 3 and all(i.startswith("shortener/store.py::") for i in seen)
        # Clicking a source line picks the innermost symbol there.
        shorten = index.symbol("shortener/store.py::LinkStore.shorten#method")
        source = app.query_one(SourceView)
        source.scroll_to(0, shorten.start_line - 5, animate=False, immediate=True)
        await pilot.pause()
        # Content row r shows line scroll_y + r + 1; row 0 of the widget is its border.
        row = shorten.start_line + 1 - int(source.scroll_y) - 1
        await pilot.click(SourceView, offset=(12, row + 1))
        await pilot.pause()
        assert app.current_symbol == shorten, (app.current_symbol, source.scroll_offset, source.region)
        assert source.marked == (shorten.start_line, shorten.end_line)


async def test_help_lists_every_binding(app: RecordingApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        described = {row.description for row in app.help_rows()}
        for binding in app.BINDINGS:
            assert (binding.tooltip or binding.description) in described  # type: ignore[union-attr]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_palette_offers_every_action_and_themes(app: RecordingApp) -> None:
    from symscope.tui.commands import palette_commands

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        titles = [c.title for c in palette_commands(app)]
        for needle in ("Bundle: copy as Markdown", "Bundle: copy as XML", "Bundle: save to a file…",
                       "Index: refresh", "Search: only class symbols", "Search: only go code",
                       "Cost: set price per million tokens…", "View: show or hide the file tree"):
            assert needle in titles
        assert "Theme" in [c.title for c in app.get_system_commands(app.screen)]
        # A palette filter command edits the search box.
        await app.run_action("search_filter('kind', 'struct')")
        await pilot.press(*"cache")
        await pilot.pause(0.1)
        await settle(pilot)
        pane = app.query_one(SearchPane)
        assert pane.value.startswith("kind:struct ")
        assert pane.hits and all(h.symbol.kind == "struct" for h in pane.hits)
        # Switching theme works and re-renders the source.
        app.theme = "textual-light"
        await pilot.pause()
        assert app.current_theme.name == "textual-light"


async def test_price_comes_from_env_and_prompt(index: Index, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("SYMSCOPE_PRICE_PER_MTOK", "15")
    app = RecordingApp(index, save_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.query_one(Counters).price == 15.0
        await pilot.press("dollar_sign")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("ctrl+a", "ctrl+k", *"0.25", "enter")
        await pilot.pause()
        assert app.query_one(Counters).price == 0.25


async def test_sidebar_toggles_and_layout_fits_80x24(app: RecordingApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        sidebar = app.query_one("#sidebar")
        assert sidebar.display and sidebar.region.width > 0
        await pilot.press("t")
        await pilot.pause()
        assert sidebar.region.width == 0
        await pilot.press("t", "b")
        await pilot.pause()
        # Narrow: the bundle pane takes the sidebar's place.
        assert app.query_one(BundleView).region.width > 0 and sidebar.region.width == 0
        assert app.query_one(Counters).region.height == 2


async def test_sidebar_resizes_with_keys_within_bounds(app: RecordingApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.query_one("#sidebar")
        start = sidebar.region.width
        await pilot.press("greater_than_sign", "greater_than_sign")
        await pilot.pause()
        assert sidebar.region.width == start + 8
        for _ in range(40):
            await pilot.press("less_than_sign")
        await pilot.pause()
        assert sidebar.region.width == 20  # never narrower than the minimum
        for _ in range(40):
            await pilot.press("greater_than_sign")
        await pilot.pause()
        assert sidebar.region.width == 120 - 40  # the source keeps its minimum width


async def test_empty_repo_shows_a_clear_message(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.md").write_text("# nothing to parse\n")
    (empty / "data.csv").write_text("a,b\n1,2\n")
    index = Index.open(empty, index_dir=tmp_path / "idx")
    app = RecordingApp(index, save_dir=tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            notice = app.query_one("#notice")
            assert notice.display
            text = str(notice.render())
            assert "No supported source files" in text and "Skipped 2 files" in text
            assert app.query_one(RepoTree).file_count == 0
            await pilot.press("a")  # nothing picked: a warning, not a crash
            await pilot.press("c")
            await pilot.pause()
            assert any("No symbol picked" in t for t in app.toasts)
            assert any("bundle is empty" in t for t in app.toasts)
    finally:
        index.close()


async def test_first_index_shows_progress_and_stays_responsive(
    repo: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    index = Index.open(repo, index_dir=tmp_path / "idx")
    release = threading.Event()
    reached = threading.Event()
    real_update = index.update

    def slow_update(progress: Callable[[IndexProgress], None] | None = None, **kwargs: Any) -> IndexReport:
        def gated(p: IndexProgress) -> None:
            if progress is not None:
                progress(p)
            if p.phase == "parse" and p.done == 3:
                reached.set()
                release.wait(10)

        return real_update(progress=gated, **kwargs)

    monkeypatch.setattr(index, "update", slow_update)
    app = RecordingApp(index, save_dir=tmp_path)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(100):
                if reached.is_set():
                    break
                await pilot.pause(0.05)
            assert reached.is_set()
            bar = app.query_one(ProgressBar)
            for _ in range(100):  # the progress message crosses from the worker: wait, not a fixed pause
                if bar.progress == 3 and bar.total is not None:
                    break
                await pilot.pause(0.05)
            assert app.indexing and app.query_one("#progress").display
            assert bar.total == len(index.files()) or bar.total == 10
            assert bar.progress == 3
            assert "parsing 3 / 10" in str(app.query_one("#progress-label").render())
            # The UI answers while the worker is blocked.
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.press("slash", *"x")
            await pilot.pause()
            assert app.query_one(SearchPane).value == "x"
            release.set()
            await settle(pilot)
            assert not app.indexing and not app.query_one("#progress").display
            assert app.query_one(RepoTree).file_count == 10
    finally:
        release.set()
        index.close()


async def test_large_file_is_highlighted_in_a_worker(app: RecordingApp, index: Index) -> None:
    big = index.root / "shortener" / "big.py"
    big.write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(4000)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sym = index.symbol("shortener/big.py::f3999#function")
        app.current_symbol = sym
        await settle(pilot)
        source = app.query_one(SourceView)
        assert source.line_count == 16000 - 1 or source.line_count == 16000
        assert source.highlighted
        assert source.marked == (sym.start_line, sym.end_line)
        assert int(source.scroll_y) > 15000


async def _until(pilot: Any, condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll `condition` while the app runs (debounce timers and workers finish in their time)."""
    for _ in range(int(timeout / 0.02)):
        if condition():
            return True
        await pilot.pause(0.02)
    return condition()


async def test_results_overflowing_the_pane_refine_without_losing_rows(tmp_path: Path) -> None:
    """Typing narrows a long result list in place: the rows, scrollbar and scrolling stay right."""
    repo = tmp_path / "many"
    (repo / "pkg").mkdir(parents=True)
    body = "".join(f"def alpha_{i}(request):\n    return request.{'a' * (i % 5)}\n\n\n" for i in range(40))
    body += "".join(f"def beta_{i}(value):\n    return value\n\n\n" for i in range(20))
    (repo / "pkg" / "handlers.py").write_text(body)
    index = Index.open(repo, index_dir=tmp_path / "idx")
    index.update(processes=1)
    app = RecordingApp(index, save_dir=tmp_path / "out")
    try:
        async with app.run_test(size=(100, 36)) as pilot:
            await settle(pilot)
            pane = app.query_one(SearchPane)
            results = pane.results
            await search(pilot, "alpha")
            assert await _until(pilot, lambda: pane.shown_query == "alpha" and len(pane.hits) == 40)
            rows = results.size.height
            assert 0 < rows < len(pane.hits)  # more hits than rows: the list scrolls
            # No blank rows below the list: the pane holds the box and the visible rows.
            assert await _until(pilot, lambda: pane.size.height == pane.input.size.height + rows)
            pane.value = "beta"  # fewer hits, still more than the rows
            assert await _until(pilot, lambda: pane.shown_query == "beta")
            await settle(pilot)
            assert rows < len(pane.hits) == 20
            assert all(h.symbol.name.startswith("beta_") for h in pane.hits)
            assert results.size.height == rows
            assert results.virtual_size.height == len(pane.hits)
            assert results.vertical_scrollbar.window_virtual_size == len(pane.hits)
            shown = [results.render_line(y).text for y in range(rows)]
            assert [pane.hits[y].symbol.qualname in line for y, line in enumerate(shown)] == [True] * rows
            await pilot.press(*["down"] * 25)  # the last hit can still be reached and is drawn
            await pilot.pause()
            last = pane.hits[-1].symbol.qualname
            assert results.cursor == len(pane.hits) - 1
            assert last in results.render_line(rows - 1).text
            long_query = " value" * 16  # wider than the box: the input scrolls to its cursor
            pane.value = pane.value + long_query
            assert await _until(pilot, lambda: pane.shown_query == pane.value and pane.input.scroll_x > 0)
    finally:
        index.close()


async def test_saved_bundle_file_is_created_private(app: RecordingApp, index: Index, tmp_path: Path) -> None:
    sym = index.symbol("shortener/codes.py::encode#function")
    old_umask = os.umask(0o022)  # a usual umask: files would be world-readable
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.current_symbol = sym
            await pilot.pause()
            await pilot.press("a", "s")
            await pilot.pause()
            await pilot.press("enter")
            await settle(pilot)
    finally:
        os.umask(old_umask)
    saved = tmp_path / "out" / "symscope-bundle.md"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert f"```python\n{_file_lines(index, sym)}```\n" in saved.read_text(encoding="utf-8")
    assert any(t.startswith("Saved 1 item") for t in app.toasts)


async def test_copy_makes_raw_controls_visible_and_counts_them(write_repo: Any, tmp_path: Path) -> None:
    root = write_repo({"bell.py": 'def ring():\n    """Rings \x07, then \x1b[2J."""\n    return 1\n'})
    index = Index.open(root, index_dir=tmp_path / "idx")
    index.update(processes=1)
    app = RecordingApp(index, save_dir=tmp_path / "out")
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.current_symbol = index.symbol("bell.py::ring#function")
            await pilot.pause()
            await pilot.press("a", "c")
            await settle(pilot)
    finally:
        index.close()
    assert len(app.copied) == 1
    assert '"""Rings \\x07, then \\x1b[2J."""' in app.copied[0]
    assert "\x07" not in app.copied[0] and "\x1b" not in app.copied[0]
    toast = next(t for t in app.toasts if t.startswith("Copied"))
    assert "2 raw control characters in the source shown as \\xNN escapes" in toast


async def test_clicking_a_result_opens_it(app: RecordingApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await search(pilot, "cache")
        pane = app.query_one(SearchPane)
        assert len(pane.hits) >= 2
        await pilot.click(pane.results, offset=(5, 1))
        await settle(pilot)
        assert app.current_symbol == pane.hits[1].symbol
