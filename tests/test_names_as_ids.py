"""Wherever an id is expected, a name of one symbol is accepted; an unknown one gets suggestions.

The engine decides (`Index.symbol`), so the CLI, the MCP server and bundles answer alike:
a qualified or plain name that names exactly one symbol finds it; a name of several lists
their ids; an unknown id is answered with the nearest ids a search finds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.types import TextContent

from symscope.core import api
from symscope.core.errors import UnknownSymbolError
from symscope.core.index import Index
from symscope.mcp_server.server import build_server
from tests.conftest import WriteRepo
from tests.test_cli import run

FILES: dict[str, str | bytes] = {
    "store.py": '''
        class LinkStore:
            def resolve(self, code):
                return self.links[code]


        def unique_helper_name():
            return 42
        ''',
    "router.py": '''
        def resolve(path):
            return path.strip("/")
        ''',
}


@pytest.fixture
def names_repo(write_repo: WriteRepo) -> Path:
    return write_repo(FILES)


@pytest.fixture
def names_index(names_repo: Path, tmp_path: Path) -> Iterator[Index]:
    ix = Index.open(names_repo, tmp_path / "idx")
    ix.update(processes=1)
    yield ix
    ix.close()


def test_a_unique_name_or_qualified_name_finds_its_symbol(names_index: Index) -> None:
    assert names_index.symbol("unique_helper_name").id == "store.py::unique_helper_name#function"
    assert names_index.symbol("LinkStore.resolve").id == "store.py::LinkStore.resolve#method"
    assert api.show_json(api.Workspace(names_index).show("LinkStore.resolve"))["source"].startswith("def resolve(self, code):")


def test_a_name_of_several_symbols_lists_their_ids(names_index: Index) -> None:
    with pytest.raises(UnknownSymbolError) as caught:
        names_index.symbol("resolve")
    message = str(caught.value)
    assert "resolve names 2 symbols" in message
    assert "store.py::LinkStore.resolve#method" in message and "router.py::resolve#function" in message


def test_an_unknown_id_gets_the_nearest_ids(names_index: Index) -> None:
    with pytest.raises(UnknownSymbolError) as caught:
        names_index.symbol("store.py::unique_helper#function")
    message = str(caught.value)
    assert message.startswith("unknown symbol id: store.py::unique_helper#function; nearest: ")
    assert "store.py::unique_helper_name#function" in message
    with pytest.raises(UnknownSymbolError) as huge:
        names_index.symbol("x" * 100_000)
    assert len(str(huge.value)) < 600  # the argument is not echoed whole


def test_the_cli_accepts_names_and_suggests(names_repo: Path) -> None:
    assert run("index", str(names_repo)).returncode == 0
    shown = run("show", "LinkStore.resolve", "--repo", str(names_repo))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("def resolve(self, code):")
    several = run("show", "resolve", "--repo", str(names_repo))
    assert several.returncode != 0 and "Traceback" not in several.stderr
    assert len(several.stderr.strip().splitlines()) == 1 and "router.py::resolve#function" in several.stderr
    bundle = run("bundle", "unique_helper_name", "--repo", str(names_repo))
    assert bundle.returncode == 0, bundle.stderr
    assert "return 42" in bundle.stdout


async def test_mcp_tools_accept_names_and_suggest(names_index: Index) -> None:
    async with Client(build_server(names_index)) as client:
        got = await client.call_tool("get_symbols", {"ids": ["LinkStore.resolve"]})
        text = "".join(b.text for b in got.content if isinstance(b, TextContent))
        assert not got.is_error and "return self.links[code]" in text
        several = await client.call_tool("find_references", {"id": "resolve"})
        text = "".join(b.text for b in several.content if isinstance(b, TextContent))
        assert several.is_error and "\n" not in text
        assert "store.py::LinkStore.resolve#method" in text and "router.py::resolve#function" in text
        near = await client.call_tool("get_symbols", {"ids": ["store.py::unique_helper#function"]})
        text = "".join(b.text for b in near.content if isinstance(b, TextContent))
        assert near.is_error and "nearest: store.py::unique_helper_name#function" in text
        bundle = await client.call_tool("build_bundle", {"ids": ["unique_helper_name"]})
        text = "".join(b.text for b in bundle.content if isinstance(b, TextContent))
        assert not bundle.is_error and "return 42" in text
