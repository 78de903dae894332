"""Issue 28, point 8: the small things a user hit in the app, each reproduced with Pilot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widgets import Input, Label
from tui_support import RecordingApp, search, settle, until

from symscope.core.index import Index
from symscope.core.models import Savings
from symscope.tui import places
from symscope.tui.actions import ACTIONS
from symscope.tui.bundle_controller import BundleState
from symscope.tui.bundle_screens import SecretsScreen
from symscope.tui.screens import PromptScreen
from symscope.tui.widgets import Counters, Outline, SearchPane
from symscope.tui.widgets.bundle_view import BundleView
from symscope.tui.widgets.related import RelatedPane
from symscope.tui.widgets.repo_tree import RepoTree
from symscope.tui.widgets.savings import EIGHTHS, FULL_BLOCK, TRACK, SavingsPanel
from symscope.tui.widgets.source_view import SourceView

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


async def _j_then_k(pilot: Any, widget: Any, cursor: Callable[[], int]) -> None:
    """`j` moves the cursor down one row, as `down` does; `k` moves it back, as `up` does."""
    start = cursor()
    await pilot.press("down")
    await pilot.pause()
    by_arrow = cursor()
    await pilot.press("up")
    await pilot.pause()
    assert cursor() == start, (type(widget).__name__, start, by_arrow)
    await pilot.press("j")
    await pilot.pause()
    assert cursor() == by_arrow == start + 1, type(widget).__name__
    await pilot.press("k")
    await pilot.pause()
    assert cursor() == start, type(widget).__name__


async def test_j_and_k_move_in_every_list(gin_app: RecordingApp, gin_index: Index) -> None:
    async with gin_app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        tree = gin_app.query_one(RepoTree)
        await pilot.press("1")
        await pilot.pause()
        assert gin_app.focused is tree
        await _j_then_k(pilot, tree, lambda: tree.cursor_line)

        gin_app.current_symbol = gin_index.symbol("context.go::Context.BindJSON#method")
        await settle(pilot)
        outline = gin_app.query_one(Outline)
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("home")
        await _j_then_k(pilot, outline, lambda: outline.cursor_line)

        related = gin_app.query_one(RelatedPane)
        await pilot.press("6")
        assert await until(pilot, lambda: related.shown is not None)
        await settle(pilot)
        assert gin_app.focused is related
        await _j_then_k(pilot, related, lambda: related.cursor_line)

        pane = gin_app.query_one(SearchPane)
        await search(pilot, "bind")
        assert len(pane.hits) > 2
        pane.results.focus()
        await pilot.pause()
        await _j_then_k(pilot, pane.results, lambda: pane.results.cursor)
        assert pane.value == "bind"  # not typed into the box

        await pilot.press("escape")
        for symbol_id in ("context.go::Context.BindJSON#method", "gin.go::Engine.ServeHTTP#method"):
            gin_app.current_symbol = gin_index.symbol(symbol_id)
            await pilot.pause()
            await pilot.press("a")
        await settle(pilot)
        await pilot.press("5")
        await pilot.pause()
        view = gin_app.query_one(BundleView)
        order = [r.key for r in gin_app.resolved]
        view.table.move_cursor(row=0, animate=False)
        await pilot.pause()
        await _j_then_k(pilot, view, lambda: view.table.cursor_row)
        await settle(pilot)
        assert [r.key for r in gin_app.resolved] == order  # moved the cursor, not the items


def test_j_and_k_bindings_carry_ids_and_descriptions() -> None:
    from symscope.tui.actions import spec

    for scope in ("tree", "outline", "related", "bundle"):
        down = next(a for a in ACTIONS if a.scope == scope and a.keys == "j")
        up = next(a for a in ACTIONS if a.scope == scope and a.keys == "k")
        assert down.id.startswith(f"{scope}.") and down.description and up.description
    assert "j" in spec("results.down").keys.split(",") and "k" in spec("results.up").keys.split(",")


async def test_the_side_column_is_clamped_to_the_terminal(app: RecordingApp) -> None:
    """Widened with `>`, then the terminal shrinks to 60x20: search and source keep their room."""
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        sidebar = app.query_one("#sidebar")
        for _ in range(12):
            await pilot.press("greater_than_sign")
        await pilot.pause()
        wide = sidebar.region.width
        assert wide > 60
        await pilot.resize_terminal(60, 20)
        await settle(pilot)
        for pane in (app.query_one(SearchPane), app.query_one(SourceView)):
            assert pane.region.width >= 60 // 2, (type(pane).__name__, pane.region.width)
        assert sidebar.region.width <= 60 // 2
        await pilot.press("greater_than_sign")  # wider still: never past the clamp
        await pilot.pause()
        assert app.query_one(SourceView).region.width >= 60 // 2
        await pilot.resize_terminal(120, 40)  # room again: the width asked for comes back
        await settle(pilot)
        assert sidebar.region.width == wide


SECRET_PY = '''\
AWS_ACCESS_KEY_ID = "AKIAZ7Q4EXAMPLE2KEYX"


def region():
    """The default region."""
    return "eu-west-1"
'''


async def test_the_counter_shows_secrets_kept_on_purpose(write_repo: Any, tmp_path: Path) -> None:
    root = write_repo({"settings.py": SECRET_PY})
    index = Index.open(root, index_dir=tmp_path / "idx")
    index.update(processes=1)
    app = RecordingApp(index, save_dir=tmp_path / "out")
    try:
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            app.current_path = "settings.py"
            await settle(pilot)
            await pilot.press("f")
            await settle(pilot)
            counters = app.query_one(Counters)
            assert "1 secret redacted" in str(counters.render())
            await pilot.press("S")
            assert await until(pilot, lambda: isinstance(app.screen, SecretsScreen))
            await pilot.press("space", "escape")
            await settle(pilot)
            assert app.bundled.packing is not None and app.bundled.packing.redacted == 0
            line = str(counters.render()).splitlines()[1]
            assert "1 secret kept" in line and "redacted" not in line
            await pilot.resize_terminal(80, 24)  # the short form says it too
            await settle(pilot)
            assert "1 kept" in str(counters.render()).splitlines()[1]
    finally:
        index.close()


def _shown_text(widget: Any) -> str:
    """The words a widget shows on screen, lines joined by spaces."""
    lines = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return " ".join(" ".join(strip.text.split()) for strip in lines).strip()


async def test_prompts_wrap_their_explanation(app: RecordingApp) -> None:
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        for key, title in (("dollar_sign", "Price"), ("B", "Token budget")):
            await pilot.press(key)
            assert await until(pilot, lambda: isinstance(app.screen, PromptScreen))
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PromptScreen) and screen.title_text == title
            label = screen.query_one(Label)
            box = label.parent
            assert box is not None and label.region.right <= box.content_region.right
            assert _shown_text(label) == " ".join(screen.prompt.split())
            await pilot.press("escape")
            await pilot.pause()


async def _palette_screenshot(pilot: Any, app: RecordingApp) -> str:
    """Run the palette's Screenshot and return the toast it shows."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*"Screenshot")
    await pilot.pause(0.3)
    await pilot.press("enter")
    assert await until(pilot, lambda: any("Screenshot" in t for t in app.toasts))
    return next(t for t in app.toasts if "Screenshot" in t)


async def test_a_screenshot_goes_where_it_can_be_saved(index: Index, tmp_path: Path, monkeypatch: Any) -> None:
    missing = tmp_path / "home" / "Downloads"
    monkeypatch.setattr(places, "user_downloads_path", lambda: missing)
    start = tmp_path / "started-here"
    start.mkdir()
    app = RecordingApp(index, save_dir=tmp_path / "out", start_dir=start)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        toast = await _palette_screenshot(pilot, app)
    saved = list(start.glob("*.svg"))
    assert len(saved) == 1 and saved[0].read_text(encoding="utf-8").startswith("<svg")
    assert f"saved to {saved[0]}" in toast and f"{missing} does not exist" in toast


async def test_a_screenshot_that_cannot_be_saved_says_why(index: Index, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(places, "user_downloads_path", lambda: tmp_path / "no-downloads")
    monkeypatch.setattr(places.tempfile, "gettempdir", lambda: str(tmp_path / "no-tmp"))
    gone = tmp_path / "gone"
    app = RecordingApp(index, save_dir=tmp_path / "out", start_dir=gone)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        toast = await _palette_screenshot(pilot, app)
    assert toast.startswith("Screenshot not saved") and f"{gone} does not exist" in toast
    assert f"{tmp_path / 'no-tmp'} does not exist" in toast


async def test_save_defaults_to_the_folder_symscope_started_from(
    index: Index, tmp_path: Path, monkeypatch: Any
) -> None:
    start = tmp_path / "started-here"
    start.mkdir()
    monkeypatch.chdir(start)
    monkeypatch.delenv(places.START_DIR_ENV, raising=False)
    app = RecordingApp(index, save_dir=None)
    monkeypatch.chdir(index.root)  # something moves the working directory later: the default stays
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _bundle_of(pilot, app, index, ENCODE)
        await pilot.press("s")
        assert await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert app.screen.query_one(Input).value == str(start / "symscope-bundle.md")
        await pilot.press("escape")
    # `make -C checkout run` runs in the checkout; the Makefile passes where make was called from.
    elsewhere = tmp_path / "make-called-here"
    elsewhere.mkdir()
    monkeypatch.setenv(places.START_DIR_ENV, str(elsewhere))
    assert RecordingApp(index, save_dir=None).bundles.default_save_path().parent == elsewhere


async def test_narrow_result_rows_keep_the_end_of_the_name(gin_app: RecordingApp) -> None:
    """At 60 columns `Context.BindJSON`, `Context.ShouldBindJSON` ... must not all read `Context…`."""
    async with gin_app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        pane = gin_app.query_one(SearchPane)
        await search(pilot, "bind")
        results = pane.results
        names = [h.symbol.qualname for h in pane.hits]
        assert {"Context.BindJSON", "Context.ShouldBindJSON", "Context.ShouldBindWith"} <= set(names)
        rows = [results.render_line(y).text for y in range(min(len(names), results.size.height))]
        cells = [row.split()[1] for row in rows]
        assert len(cells) >= 3 and len(set(cells)) == len(cells), cells  # every row told apart
        for name, cell in zip(names, cells, strict=False):
            if cell != name:
                front, ellipsis, back = cell.partition("\u2026")
                last = name.rsplit(".", 1)[-1]
                assert ellipsis and back and name.endswith(back), (name, cell)
                assert name.startswith(front) or last.startswith(front), (name, cell)


def test_fit_name_keeps_the_last_part_whole() -> None:
    from symscope.tui.widgets.search import _fit_name

    assert _fit_name("Context.BindJSON", 20) == "Context.BindJSON    "
    assert _fit_name("Context.ShouldBindJSON", 16) == "C\u2026ShouldBindJSON"
    assert _fit_name("Context.BindJSON", 12) == "Con\u2026BindJSON"
    assert _fit_name("Context.BindJSON +2", 14) == "Co\u2026BindJSON +2"
    assert _fit_name("Context.ShouldBindJSON", 10) == "Sho\u2026ndJSON"  # the last part alone is too long
    assert _fit_name("Context.ShouldBindWith", 10) == "Sho\u2026ndWith"
    assert _fit_name("plainfunction", 8) == "pl\u2026ction"


class _PanelApp(App[None]):
    """Just the savings panel, as wide as the bundle pane of a 160-column terminal."""

    def compose(self) -> ComposeResult:
        yield SavingsPanel()


def _filled(row: str) -> float:
    """Cells of a bar's filled part (eighths count as fractions)."""
    return sum(1.0 if ch == FULL_BLOCK else (EIGHTHS.index(ch) / 8 if ch in EIGHTHS[1:] else 0.0) for ch in row)


async def test_savings_bars_tell_99_from_99_9_percent() -> None:
    app = _PanelApp()
    async with app.run_test(size=(72, 6)) as pilot:
        panel = app.query_one(SavingsPanel)
        panel.bundled = BundleState(savings=Savings(100, 10_000, 100_000))  # 99% and 99.9% saved
        panel.display = True  # (the app shows it only with items in the bundle)
        await pilot.pause()
        await pilot.pause()
        rows = [strip.text for strip in panel.render_lines(Region(0, 0, *panel.outer_size))]
        files, repo = next(r for r in rows if "vs files" in r), next(r for r in rows if "vs repo" in r)
        assert "100\u00d7 \u00b7" in files and "1,000\u00d7 \u00b7" in repo
        assert "\u00d7 smaller, log scale" in rows[0]  # the title says what the bars and factors are
        bar_cells = sum(1 for ch in files if ch in (TRACK, FULL_BLOCK) or ch in EIGHTHS[1:])
        assert _filled(files) >= bar_cells / 4  # 99% saved is plainly visible ...
        assert _filled(repo) - _filled(files) >= bar_cells / 8  # ... and 99.9% plainly more
        panel.bundled = BundleState(savings=Savings(100, 100, 100_000))  # nothing saved vs its files
        panel.display = True
        await pilot.pause()
        rows = [strip.text for strip in panel.render_lines(Region(0, 0, *panel.outer_size))]
        assert _filled(next(r for r in rows if "vs files" in r)) == 0


def test_fit_name_is_exact_and_cheap_on_hostile_names() -> None:
    from rich.cells import cell_len

    from symscope.tui.widgets.search import _fit_name

    for name in ("A." * 50_000 + "Method", "x" * 100_000, "\u6f22\u5b57." * 40 + "\u540d\u524d" * 30 + " +3"):
        for width in (0, 1, 2, 5, 9, 23):
            assert cell_len(_fit_name(name, width)) == width


async def test_a_remapped_search_key_still_types_in_the_search_box(app: RecordingApp) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.set_keymap({"app.search": "s"})
        await pilot.press("s")
        await pilot.pause()
        pane = app.query_one(SearchPane)
        assert app.focused is pane.input
        await pilot.press(*"sum")
        assert pane.value == "sum"
