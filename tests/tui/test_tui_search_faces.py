"""Issue 28.4, one truth: the CLI, the MCP server and the app's search pane rank alike.

Abbreviations (`bjson`, `esh`, `rgu`) and the filter syntax are the engine's search, so
`symscope search --json`, MCP `search_symbols` and the TUI's search box give the same top
ids on one real, parsed Go router.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from mcp import Client
from mcp.types import TextContent
from tui_support import RecordingApp, search

from symscope.cli import main as cli
from symscope.core.index import Index
from symscope.mcp_server.server import build_server
from symscope.tui.widgets.search import SearchPane

#: One hit line of `search_symbols`' text (as tests/test_mcp.py reads it).
HIT = re.compile(r"^\d+\. (.+) L\d+(?:-\d+)?, \d+ tokens")
TOP = 5
QUERIES = {
    "bjson": "Context.BindJSON",
    "esh": "Engine.ServeHTTP",
    "rgu": "RouterGroup.Use",
    "kind:method bjson": "Context.BindJSON",  # an abbreviation under a filter
    "path:context.go bind json": "Context.BindJSON",  # ranked words under a filter
}


def _cli_ids(index: Index, query: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    code = cli.main(["search", query, "--json", "--repo", str(index.root), "--index-dir", str(index.index_dir)])
    out = capsys.readouterr().out
    assert code == 0, out
    return [r["id"] for r in json.loads(out)["results"]][:TOP]


async def _mcp_ids(index: Index, query: str) -> list[str]:
    async with Client(build_server(index)) as client:
        result = await client.call_tool("search_symbols", {"query": query})
    assert not result.is_error
    text = "".join(b.text for b in result.content if isinstance(b, TextContent))
    return [m.group(1) for line in text.splitlines() if (m := HIT.match(line))][:TOP]


async def test_cli_mcp_and_tui_give_the_same_top_ids(
    gin_app: RecordingApp, gin_index: Index, capsys: pytest.CaptureFixture[str]
) -> None:
    expected: dict[str, list[str]] = {}
    for query, first in QUERIES.items():
        ids = _cli_ids(gin_index, query, capsys)
        assert ids and gin_index.symbol(ids[0]).qualname == first, (query, ids)
        assert await _mcp_ids(gin_index, query) == ids, query
        expected[query] = ids
    async with gin_app.run_test(size=(140, 40)) as pilot:
        pane: Any = gin_app.query_one(SearchPane)
        for query, ids in expected.items():
            await search(pilot, query)
            assert [h.symbol.id for h in pane.hits][:TOP] == ids, query
            await pilot.press("slash")
