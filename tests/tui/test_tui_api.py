"""Issue 28.2 for the TUI: the app holds a `Workspace` and asks the engine API its questions.

The API re-exports the value types the app needs (the bundle model, the Related pane's rows,
the filter syntax), one unambiguous name each, loading the heavy ones on first read; its
answers to the app are those it gives the CLI and the MCP server.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tui_support import RecordingApp, search, settle

from symscope.core import api, bundle, related, results
from symscope.core.index import Index
from symscope.tui.widgets.related import RelatedPane
from symscope.tui.widgets.search import SearchPane


def test_every_exported_name_resolves_to_one_engine_object() -> None:
    """`__all__` is explicit, lists each name once, and every name is there when read."""
    assert len(api.__all__) == len(set(api.__all__))
    for name in api.__all__:
        assert getattr(api, name) is not None, name
    assert api.Bundle is bundle.Bundle and api.ResolvedItem is bundle.ResolvedItem
    assert api.DepsPlan is related.DepsPlan and api.RelatedRows is related.RelatedRows
    assert api.Related is results.Related and api.Related is not api.RelatedRows
    assert not hasattr(related, "Related")  # one name per concept: the pane's rows are RelatedRows


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        api.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("api.NoSuchThing resolved")


def test_importing_the_api_loads_no_heavy_engine_module() -> None:
    """`symscope search` starts fast: the bundle, the graph and the index load on first read only."""
    code = (
        "import sys\n"
        "import symscope.core.api as api\n"
        "heavy = ('symscope.core.index', 'symscope.core.bundle', 'symscope.core.related', 'numpy')\n"
        "before = sorted(m for m in heavy if m in sys.modules)\n"
        "from symscope.core.api import Bundle, DepsPlan\n"
        "print(before, Bundle.__module__, DepsPlan.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "symscope.core.bundle.model", "symscope.core.related"]


def test_the_app_wraps_an_index_in_a_workspace(index: Index, tmp_path: Path) -> None:
    app = RecordingApp(index, save_dir=tmp_path)
    assert isinstance(app.ws, api.Workspace) and app.ws.index is index
    assert app.bundles.ws is app.ws
    ws = api.Workspace(index)
    assert RecordingApp(ws, save_dir=tmp_path).ws is ws


def test_a_parsed_query_ranks_as_the_query_text(gin_index: Index) -> None:
    """The search box parses as the user types; its hits are `Workspace.search`'s for that text."""
    ws = api.Workspace(gin_index)
    for query in ("bjson", "kind:method bjson", "path:context.go bind json", "lang:go serve"):
        parsed = api.parse_query(query)
        assert [h.symbol.id for h in ws.search_parsed(parsed, 20)] == [
            h.symbol.id for h in ws.search(query, 20)], query
    assert ws.search("bjson", 1)[0].symbol.qualname == "Context.BindJSON"


def test_the_bundle_the_app_renders_is_the_cli_bundle(gin_index: Index) -> None:
    """One render call: the model the app edits renders to the text `symscope bundle` prints."""
    ws = api.Workspace(gin_index)
    ids = [ws.search(q, 1)[0].symbol.id for q in ("bjson", "esh")]
    model = api.Bundle()
    for sym_id in ids:
        model.toggle(api.BundleItem.for_symbol(ws.symbol(sym_id)))
    rendered = ws.render_bundle(model)
    assert rendered.text == ws.bundle(ids).text
    assert rendered.tokens == api.count_tokens(rendered.text)
    resolved = [ws.resolve_item(item) for item in model]
    assert ws.bundle_savings(resolved) == ws.savings([r.symbol for r in resolved if r.symbol is not None])


async def test_the_panes_answer_through_the_workspace(gin_app: RecordingApp) -> None:
    """Search and Related show what the workspace answers for the same symbol."""
    async with gin_app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        pane: Any = gin_app.query_one(SearchPane)
        await search(pilot, "bjson")
        assert [h.symbol.id for h in pane.hits] == [h.symbol.id for h in gin_app.ws.search("bjson", 50)]
        await pilot.press("enter", "R")
        await settle(pilot)
        sym = gin_app.current_symbol
        assert sym is not None and sym.qualname == "Context.BindJSON"
        rows = gin_app.ws.related_rows(sym)
        shown = gin_app.query_one(RelatedPane).shown
        assert shown == rows and rows.uses and rows.error is None
