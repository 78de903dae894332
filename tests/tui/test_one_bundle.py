"""One bundle (issue 28.3, 28.8 `D`): the app, `symscope bundle` and MCP render through one engine call.

With Pilot on real indexed code: the app's saved file is byte-identical to the CLI's
output for the same ids and budget; `D` gives the text `symscope bundle ID --deps 1`
gives; every figure of the bundle's size is the exact count of what `c` copies now,
after every kind of edit; `D` adds dependencies at signature level and says the delta.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_tui_budget import SECRET_IDS, SECRETS_PY
from tui_support import RecordingApp, add_symbols, settle, until

from symscope.cli import main as cli
from symscope.core.bundle import (
    Bundle,
    BundleItem,
    add_dependencies,
    build_bundle,
    render_bundle,
    symbol_key,
)
from symscope.core.index import Index
from symscope.core.tokens import count_tokens
from symscope.tui.bundle_screens import ConfirmDepsScreen, SecretsScreen
from symscope.tui.screens import PromptScreen
from symscope.tui.widgets import BundleView, Counters
from symscope.tui.widgets.savings import SavingsPanel

MUST_BIND = "context.go::Context.MustBindWith#method"
DEFAULT = "gin.go::Default#function"
#: A client class with real bodies, and a function that uses it: what `D` is for.
_METHOD = '''
    def {name}(self, path, **params):
        """{doc}"""
        url = self.base + "/" + path.lstrip("/")
        query = "&".join(f"{{k}}={{v}}" for k, v in sorted(params.items()))
        if query:
            url += "?" + query
        for attempt in range(self.retries):
            reply = self.transport.send("{verb}", url, timeout=self.timeout)
            if reply.status < 500:
                return reply
            self.log.append((attempt, reply.status, url))
        raise RuntimeError(f"{verb} {{url}} failed after {{self.retries}} tries")
'''
CLIENT_PY = ("class Client:\n    \"\"\"Talks to the service, with retries.\"\"\"\n\n"
             "    def __init__(self, base, transport, retries=3, timeout=10):\n"
             "        self.base, self.transport = base, transport\n"
             "        self.retries, self.timeout, self.log = retries, timeout, []\n"
             + "".join(_METHOD.format(name=v.lower(), verb=v, doc=f"Send a {v} request.")
                       for v in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"))
             + "\n\ndef fetch_user(client: Client, user_id):\n"
               "    \"\"\"One user, by id.\"\"\"\n"
               "    return Client.get(client, f\"/users/{user_id}\")\n")
FETCH_USER = "client.py::fetch_user#function"
BIND_JSON = "context.go::Context.BindJSON#method"
_HEADER = re.compile(r"\A(?:# Code context: \d+ items?, (\d+) tokens\n|<code_context items=\"\d+\" tokens=\"(\d+)\">\n)")


def _stated(text: str) -> int:
    """The number the text's own header states."""
    m = _HEADER.match(text)
    assert m is not None, text[:80]
    return int(m.group(1) or m.group(2))


def _cli(index: Index, *args: str, out: Path) -> bytes:
    """`symscope bundle ARGS --out OUT` run in-process on the app's index; the bytes written."""
    assert cli.main(["bundle", *args, "--repo", str(index.root), "--index-dir", str(index.index_dir),
                     "--out", str(out)]) == 0
    return out.read_bytes()


async def _copy(pilot: Any, app: RecordingApp) -> str:
    before = len(app.copied)
    await pilot.press("c")
    await settle(pilot)
    assert len(app.copied) == before + 1, app.toasts[-3:]
    return app.copied[-1]


async def _deps(pilot: Any, app: RecordingApp, symbol_id: str) -> None:
    """`D` on a symbol, then `D` again to confirm."""
    app.current_symbol = app.ws.symbol(symbol_id)
    await pilot.pause()
    await pilot.press("D")
    assert await until(pilot, lambda: isinstance(app.screen, ConfirmDepsScreen))
    await pilot.press("D")
    await settle(pilot)


# -- the engine ------------------------------------------------------------------------------


def test_the_header_states_the_texts_exact_count_whatever_the_bundle(gin_index: Index) -> None:
    for fmt in ("markdown", "xml"):
        for deps, budget in ((0, None), (1, None), (1, 400), (2, 150)):
            result = build_bundle(gin_index, [BIND_JSON, "gin.go"], deps=deps, budget=budget, fmt=fmt)  # type: ignore[arg-type]
            assert result.tokens == count_tokens(result.text) == _stated(result.text), (fmt, deps, budget)
            assert budget is None or result.tokens <= budget
            assert result.header_tokens + sum(i.tokens for i in result.items) == result.tokens


def test_render_bundle_is_what_build_bundle_gives_for_the_same_model(gin_index: Index) -> None:
    model = Bundle(budget=700)
    model.add(BundleItem.for_symbol(gin_index.symbol(MUST_BIND)))
    added = add_dependencies(gin_index, model, symbol_key(MUST_BIND))
    assert added and all(model.level(k) == "signature" for k in added) and model.level(model.keys[0]) == "full"
    assert render_bundle(gin_index, model).text == build_bundle(gin_index, [MUST_BIND], deps=1, budget=700).text


@pytest.mark.parametrize("symbol_id", [MUST_BIND, DEFAULT])
def test_deps_come_at_signature_level_unless_asked_in_full(gin_index: Index, symbol_id: str) -> None:
    root = gin_index.symbol(symbol_id)
    alone = build_bundle(gin_index, [symbol_id])
    signature = build_bundle(gin_index, [symbol_id], deps=1)
    full = build_bundle(gin_index, [symbol_id], deps=1, deps_level="full")
    assert (signature.items[0].id, signature.items[0].detail) == (root.id, "full")  # the picked symbol stays full
    assert {i.detail for i in signature.items[1:]} == {"signature"} and len(signature.items) > 2
    assert {i.detail for i in full.items[1:]} == {"full"}
    assert [i.id for i in signature.items] == [i.id for i in full.items]
    # gin's functions are a few lines each: the delta is smaller, not much smaller.
    assert signature.tokens - alone.tokens < full.tokens - alone.tokens
    assert f"Dependencies of item 1 ({root.qualname}): items 2, " in signature.text


def test_a_class_dependency_costs_a_fraction_at_signature_level(write_repo: Any, tmp_path: Path) -> None:
    index = Index.open(write_repo({"client.py": CLIENT_PY}), index_dir=tmp_path / "idx")
    index.update(processes=1)
    try:
        alone = build_bundle(index, [FETCH_USER]).tokens
        signature = build_bundle(index, [FETCH_USER], deps=1)
        full = build_bundle(index, [FETCH_USER], deps=1, deps_level="full")
        assert "client.py::Client#class" in [i.id for i in signature.items]
        assert "    def post(self, path, **params)" in signature.text and "self.retries" not in signature.text.split(
            "(class Client, signature)")[1]
        # Much smaller: a quarter of the same dependencies in full, or less.
        assert (signature.tokens - alone) * 4 < full.tokens - alone
    finally:
        index.close()


# -- the app and the CLI: the same bytes ---------------------------------------------------------


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
async def test_the_saved_file_is_byte_identical_to_symscope_bundle(
    gin_app: RecordingApp, gin_index: Index, tmp_path: Path, fmt: str
) -> None:
    ids = [BIND_JSON, "gin.go::Engine.Run#method"]
    budget = 260
    async with gin_app.run_test(size=(160, 44)) as pilot:
        await settle(pilot)
        await add_symbols(pilot, gin_app, *ids)
        gin_app.current_symbol = None
        gin_app.current_path = "routergroup.go"
        await pilot.pause()
        await pilot.press("A")  # a whole file too
        await settle(pilot)
        if fmt == "xml":
            await pilot.press("F")
            await settle(pilot)
        await pilot.press("B")
        assert await until(pilot, lambda: isinstance(gin_app.screen, PromptScreen))
        await pilot.press(*str(budget), "enter")
        await settle(pilot)
        packing = gin_app.bundled.packing
        assert packing is not None and packing.error is None and packing.reduced + packing.dropped > 0
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
    saved = tmp_path / "out" / ("symscope-bundle.xml" if fmt == "xml" else "symscope-bundle.md")
    printed = _cli(gin_index, *ids, "routergroup.go", "--budget", str(budget), "--format", fmt, out=tmp_path / "cli.txt")
    assert saved.read_bytes() == printed
    assert count_tokens(printed.decode()) == _stated(printed.decode()) <= budget


@pytest.mark.parametrize("fmt", ["markdown", "xml"])
async def test_D_gives_the_text_of_symscope_bundle_deps_1(
    gin_app: RecordingApp, gin_index: Index, tmp_path: Path, fmt: str
) -> None:
    async with gin_app.run_test(size=(160, 44)) as pilot:
        await settle(pilot)
        await _deps(pilot, gin_app, MUST_BIND)
        copied = gin_app.copied
        await pilot.press("c")
        await settle(pilot)
        if fmt == "xml":
            await gin_app.run_action("copy_bundle('xml')")
            await settle(pilot)
        text = copied[-1]
    printed = _cli(gin_index, MUST_BIND, "--deps", "1", "--format", fmt, out=tmp_path / "cli.txt")
    assert text.encode() == printed
    assert ("Dependencies of item 1" in text) if fmt == "markdown" else ('of="Context.MustBindWith"' in text)


# -- every figure is the count of the text `c` copies now ----------------------------------------


def _figures(app: RecordingApp) -> int:
    """The figure the counters, the bundle pane, the rows and the savings panel show; checked equal."""
    state = app.bundled
    n = state.tokens
    assert f"Bundle {state.count} item" in str(app.query_one(Counters).render())
    assert f"  {n:,} tok" in str(app.query_one(Counters).render()) or f" {n:,} tok" in str(
        app.query_one(Counters).render())
    view = app.query_one(BundleView)
    assert f" · {n:,} tok" in str(view.border_subtitle)
    rows = app.query_one(SavingsPanel).rows()
    assert rows[0][2].startswith(f"{n:,} of ") and rows[1][2].startswith(f"{n:,} of ")
    packing = state.packing
    assert packing is not None
    cells = [str(view.table.get_row_at(i)[1]) for i in range(state.count)]
    assert cells == [f"{packing.item_tokens[r.key]:,}" for r in state.items]
    return n


async def test_every_figure_is_the_count_of_what_c_copies_after_every_edit(
    write_repo: Any, tmp_path: Path
) -> None:
    root = write_repo({"settings.py": SECRETS_PY,
                       "util.py": "def helper(x):\n    \"\"\"Double it.\"\"\"\n    return x * 2\n\n\n"
                                  "def other(y):\n    return helper(y) + 1\n"})
    index = Index.open(root, index_dir=tmp_path / "idx")
    index.update(processes=1)
    app = RecordingApp(index, save_dir=tmp_path / "out")
    seen: list[int] = []

    async def check() -> None:
        n = _figures(app)
        text = await _copy(pilot, app)
        assert count_tokens(text) == n == _stated(text)
        seen.append(n)

    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await settle(pilot)
            await pilot.press("b")
            await add_symbols(pilot, app, SECRET_IDS[1])  # add
            await check()
            await add_symbols(pilot, app, SECRET_IDS[0], "util.py::other#function")  # add two more
            await check()
            app.current_symbol = None
            app.current_path = "util.py"
            await pilot.pause()
            await pilot.press("A")  # a whole file
            await settle(pilot)
            await check()
            await pilot.press("5")
            view = app.query_one(BundleView)
            view.table.move_cursor(row=2)
            await pilot.press("d")  # remove
            await settle(pilot)
            await check()
            view.table.move_cursor(row=0)
            await pilot.press("l")  # a level by hand
            await settle(pilot)
            await check()
            await pilot.press("F")  # format
            await settle(pilot)
            await check()
            await pilot.press("F")
            await settle(pilot)
            budget = seen[-1] - 25
            await pilot.press("B")  # a budget
            assert await until(pilot, lambda: isinstance(app.screen, PromptScreen))
            await pilot.press(*str(budget), "enter")
            await settle(pilot)
            await check()
            assert seen[-1] <= budget
            await app.run_action("clear_budget")
            await settle(pilot)
            before = app.bundled.tokens
            await pilot.press("S")  # keep one secret on purpose
            assert await until(pilot, lambda: isinstance(app.screen, SecretsScreen))
            await pilot.press("space", "escape")
            await settle(pilot)
            await check()
            assert app.bundled.packing is not None and app.bundled.kept
            await pilot.press("S")  # and redact it again
            assert await until(pilot, lambda: isinstance(app.screen, SecretsScreen))
            screen = app.screen
            assert isinstance(screen, SecretsScreen)
            kept = next(i for i, (_, k) in enumerate(screen.findings) if k)
            screen.query_one("#secrets-table").move_cursor(row=kept)  # type: ignore[attr-defined]
            await pilot.press("space", "escape")
            await settle(pilot)
            await check()
            assert seen[-1] == before
    finally:
        index.close()
    assert len(set(seen)) >= 6, seen  # each kind of edit moved the figure


# -- D: dependencies at signature level, and the delta said --------------------------------------


@pytest.mark.parametrize("where", ["gin", "client"])
async def test_D_adds_dependencies_at_signature_level_and_says_the_delta(
    gin_index: Index, write_repo: Any, tmp_path: Path, where: str
) -> None:
    if where == "gin":
        index, symbol_id, much = gin_index, DEFAULT, 1
    else:
        index = Index.open(write_repo({"client.py": CLIENT_PY}), index_dir=tmp_path / "client-idx")
        index.update(processes=1)
        symbol_id, much = FETCH_USER, 4
    root = index.symbol(symbol_id)
    in_full = build_bundle(index, [symbol_id], deps=1, deps_level="full").tokens
    app = RecordingApp(index, save_dir=tmp_path / "out")
    try:
        async with app.run_test(size=(160, 44)) as pilot:
            await settle(pilot)
            await add_symbols(pilot, app, symbol_id)
            before = app.bundled.tokens
            await _deps(pilot, app, symbol_id)
            after = app.bundled.tokens
            state = app.bundled
            deps = [r.key for r in state.items if r.key in state.dependency_of]
            assert deps and state.level(symbol_key(root.id)) == "full"  # the picked symbol in full
            assert {state.level(k) for k in deps} == {"signature"}
            assert state.packing is not None and {state.packing.levels[k] for k in deps} == {"signature"}
            noun = "dependency" if len(deps) == 1 else "dependencies"
            toast = next(t for t in reversed(app.toasts) if t.startswith("Added"))
            assert toast.startswith(f"Added {len(deps)} {noun} of {root.qualname} at signature level: "
                                    f"+{after - before:,} tokens ({before:,} → {after:,})"), toast
            # Less than the same dependencies in full (on real-sized bodies, a fraction).
            assert (after - before) * much < in_full - before
            assert count_tokens(await _copy(pilot, app)) == after
    finally:
        if where != "gin":
            index.close()
