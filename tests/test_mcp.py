"""`symscope mcp`, driven by the SDK's own client: in memory, and as a real stdio subprocess."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, get_args

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent

from symscope.core import api
from symscope.core.index import Index
from symscope.core.models import SYMBOL_KINDS
from symscope.core.tokens import count_tokens
from symscope.mcp_server.args import RESULT_BUDGET, KindName
from symscope.mcp_server.server import build_server

SAMPLE = Path(__file__).parent / "fixtures" / "sample_repo"
TOOLS = {"search_symbols", "get_symbols", "get_outline", "find_references", "find_dependencies", "build_bundle",
         "index_status", "reindex"}
RESOLVE = "shortener/store.py::LinkStore.resolve#method"
HIT = re.compile(r"^\d+\. (.+) L\d+(?:-\d+)?, \d+ tokens")
#: Raw control characters that must never reach a terminal (tab and newline are text).
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE, root)
    return root


@pytest.fixture
def index(repo: Path, tmp_path: Path) -> Any:
    ix = Index.open(repo, tmp_path / "idx")
    ix.update(processes=1)
    yield ix
    ix.close()


def _text(result: CallToolResult) -> str:
    assert result.structured_content is None  # Claude Code would drop the text otherwise
    assert all(isinstance(block, TextContent) for block in result.content)
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


async def _call(client: Client, tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args)
    text = _text(result)
    assert not result.is_error, text
    assert not RAW_CONTROL.search(text)
    return text


async def _error(client: Client, tool: str, **args: Any) -> str:
    """The one-line message of a call that must fail; the server must keep answering after it."""
    result = await client.call_tool(tool, args)
    text = _text(result)
    assert result.is_error, text
    assert "\n" not in text and text.startswith(f"Error executing tool {tool}: ")
    assert "Error executing tool" not in text[len("Error executing tool"):]  # not the bare crash text
    status = await client.call_tool("index_status", {})
    assert not status.is_error
    return text


def _ids(search_text: str) -> list[str]:
    return [m.group(1) for line in search_text.splitlines() if (m := HIT.match(line))]


def _body(item_text: str) -> str:
    """A plain `get_symbols` item without its one header line."""
    header, body = item_text.split("\n", 1)
    assert header.startswith("--- ")
    return body


def _exact(index: Index, symbol_id: str) -> str:
    sym = index.symbol(symbol_id)
    return (index.root / sym.path).read_bytes()[sym.start_byte : sym.end_byte].decode()


# -- the tool list -------------------------------------------------------------------------------


async def test_exactly_the_issue_tools_with_their_annotations(index: Index) -> None:
    async with Client(build_server(index)) as client:
        listed = await client.list_tools()
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert tool.annotations is not None and tool.annotations.open_world_hint is False
        assert tool.annotations.read_only_hint is (name != "reindex")
        assert tool.output_schema is None
        assert tool.description and len(tool.description) < 200
    assert tools["reindex"].annotations is not None
    assert tools["reindex"].annotations.idempotent_hint is True
    assert tools["reindex"].annotations.destructive_hint is False
    assert set(get_args(KindName)) == set(SYMBOL_KINDS)


async def test_all_tool_schemas_cost_at_most_1500_tokens(index: Index) -> None:
    async with Client(build_server(index)) as client:
        listed = await client.list_tools()
    payload = listed.model_dump_json(by_alias=True, exclude_none=True)
    assert count_tokens(payload) <= 1500
    assert '"title"' not in payload  # pydantic's titles are trimmed; the ranges and enums stay
    schema = {t.name: t.input_schema for t in listed.tools}
    assert schema["search_symbols"]["properties"]["limit"] == {"default": 10, "maximum": 50, "minimum": 1,
                                                              "type": "integer"}
    assert schema["get_symbols"]["properties"]["ids"]["maxItems"] == 20


# -- search --------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["resolve code", "store", "request response", "encode"])
async def test_search_is_the_cli_ranking_at_most_60_percent_of_its_json(index: Index, query: str) -> None:
    async with Client(build_server(index)) as client:
        result = await client.call_tool("search_symbols", {"query": query, "limit": 5})
    text = _text(result)
    hits = api.Workspace(index).search(query, 5)
    assert hits and _ids(text) == [h.symbol.id for h in hits]
    cli_json = api.emit(api.search_json(query, api.Workspace(index).search(query, 5)))  # byte-identical to `symscope search --json`
    assert count_tokens(text) <= 0.6 * count_tokens(cli_json)
    for h in hits:  # compact, and never source
        assert f"L{h.symbol.start_line}-{h.symbol.end_line}, {h.symbol.tokens} tokens" in text \
            or f"L{h.symbol.start_line}, {h.symbol.tokens} tokens" in text
    assert "self._links.get(code)" not in text
    meta = result.meta or {}
    assert meta["symscope/tokens"] == count_tokens(text)
    files = sum(index.file(p).tokens for p in {h.symbol.path for h in hits})  # type: ignore[union-attr]
    assert meta["symscope/file_tokens"] == files
    assert meta["symscope/saved_pct"] == round(100 * (1 - count_tokens(text) / files), 1)
    assert "symscope/" not in text and "saved" not in text


async def test_search_filters_truncation_and_no_match(index: Index) -> None:
    async with Client(build_server(index)) as client:
        go = await _call(client, "search_symbols", query="resolve", lang="go", kind="method")
        assert _ids(go) == [h.symbol.id for h in api.Workspace(index).search("resolve", 10, "method", "go")]
        assert _ids(go) and all(i.endswith("#method") and ".go::" in i for i in _ids(go))
        one = await _call(client, "search_symbols", query="store", limit=1)
        assert len(_ids(one)) == 1 and "[more match" in one
        assert "[more match" not in go
        nothing = await _call(client, "search_symbols", query="zebra giraffe")
        assert nothing.startswith("No symbols match")


# -- get_symbols ---------------------------------------------------------------------------------


async def test_get_symbols_returns_exact_source_text_only(index: Index) -> None:
    ids = [RESOLVE, "cmd/redirector/main.go::Resolver#interface"]
    async with Client(build_server(index)) as client:
        result = await client.call_tool("get_symbols", {"ids": ids})
        markdown = await _call(client, "get_symbols", ids=[RESOLVE], format="markdown")
        xml = await _call(client, "get_symbols", ids=[RESOLVE], format="xml")
    text = _text(result)
    items = text.split("\n--- ")
    assert len(items) == 2
    assert _body(items[0]) == _exact(index, ids[0]) + "\n"
    assert _body("--- " + items[1]) == _exact(index, ids[1]) + "\n"
    assert items[0].startswith(f"--- {RESOLVE} L45-51\n")
    meta = result.meta or {}
    assert meta["symscope/tokens"] == count_tokens(text)
    files = index.file("shortener/store.py").tokens + index.file("cmd/redirector/main.go").tokens  # type: ignore[union-attr]
    assert meta["symscope/file_tokens"] == files and 0 < meta["symscope/saved_pct"] < 100
    source = _exact(index, RESOLVE)
    assert markdown == f"### {RESOLVE} L45-51\n```python\n{source}\n```\n"
    assert xml == f'<symbol id="{RESOLVE}" lines="45-51">\n<![CDATA[{source}\n]]>\n</symbol>\n'


async def test_partial_ids_and_duplicates(index: Index) -> None:
    async with Client(build_server(index)) as client:
        text = await _call(client, "get_symbols", ids=[RESOLVE, "shortener/store.py::nope#method", RESOLVE])
    assert text.count(f"--- {RESOLVE}") == 1
    assert "[unknown symbol id shortener/store.py::nope#method; call get_outline on shortener/store.py" in text


async def test_long_answers_are_cut_and_say_so(write_repo: Any, tmp_path: Path) -> None:
    def function(name: str, lines: int) -> str:
        body = "".join(f"    value_{i} = compute_{i}(value_{i - 1}, {i})\n" for i in range(1, lines))
        return f"def {name}():\n    value_0 = 0\n{body}    return value_0\n\n\n"

    root = write_repo({"big.py": function("huge", 900) + "".join(function(f"part{i}", 120) for i in range(8))})
    with Index.open(root, tmp_path / "idx") as index:
        index.update(processes=1)
        parts = [f"big.py::part{i}#function" for i in range(8)]
        assert index.symbol("big.py::huge#function").tokens > RESULT_BUDGET
        async with Client(build_server(index)) as client:
            huge = await _call(client, "get_symbols", ids=["big.py::huge#function"])
            many = await _call(client, "get_symbols", ids=parts)
        whole = _exact(index, "big.py::huge#function")
    assert count_tokens(huge) <= RESULT_BUDGET + 100
    assert "[cut: big.py::huge#function is" in huge and "get_outline big.py]" in huge
    body = _body(huge.split("\n[cut:")[0])
    assert len(body) > 1000 and whole.startswith(body)
    assert count_tokens(many) <= RESULT_BUDGET + 200
    shown = [p for p in parts if f"--- {p} " in many]
    assert 0 < len(shown) < len(parts) and shown == parts[: len(shown)]
    left = parts[len(shown):]
    assert f"{len(left)} more not shown" in many and ", ".join(left) in many


async def test_control_characters_never_reach_the_text(write_repo: Any, tmp_path: Path) -> None:
    root = write_repo({"paint.py": 'def paint():\n    return "\x1b[31mred\x1b[0m"\n'})
    with Index.open(root, tmp_path / "idx") as index:
        index.update(processes=1)
        async with Client(build_server(index)) as client:
            text = await _call(client, "get_symbols", ids=["paint.py::paint#function"])
    assert "\x1b" not in text and '"\\x1b[31mred\\x1b[0m"' in text
    assert "[2 raw control characters shown as \\xNN escapes]" in text


# -- freshness -----------------------------------------------------------------------------------


async def test_an_edit_between_two_calls_is_seen_without_a_reindex(index: Index, repo: Path) -> None:
    store = repo / "shortener" / "store.py"
    async with Client(build_server(index)) as client:
        before = await _call(client, "get_symbols", ids=[RESOLVE])
        assert before.startswith(f"--- {RESOLVE} L45-51\n")
        original = store.read_text()
        store.write_text(original.replace("class LinkStore:", "def brand_new_helper():\n    return 42\n\n\n"
                                          "class LinkStore:"))
        found = await _call(client, "search_symbols", query="brand new helper")
        assert _ids(found)[0] == "shortener/store.py::brand_new_helper#function"
        moved = await _call(client, "get_symbols", ids=[RESOLVE])
        assert moved.startswith(f"--- {RESOLVE} L49-55 (moved; was L45-51)\n")
        assert _body(moved) == _exact(index, RESOLVE) + "\n"
        store.write_text(original.replace("def resolve(", "def lookup("))
        gone = await _error(client, "get_symbols", ids=[RESOLVE])
    assert "no longer exists" in gone and "call search_symbols again" in gone


async def test_a_file_changing_under_a_read_is_a_clear_error(index: Index, repo: Path) -> None:
    server = build_server(index)
    server.symscope.refresh = lambda: None  # type: ignore[method-assign]  # the change lands after the check
    store = repo / "shortener" / "store.py"
    store.write_text("# a new first line moves everything\n" + store.read_text())
    async with Client(server) as client:
        text = await _error(client, "get_symbols", ids=[RESOLVE])
    assert "changed since indexing" in text and "call search_symbols again" in text


async def test_index_status_reports_figures_and_changes_since(index: Index, repo: Path) -> None:
    stats = api.stats_json(api.Workspace(index).stats())
    async with Client(build_server(index)) as client:
        first = await _call(client, "index_status")
        (repo / "shortener" / "codes.py").write_text("def only():\n    pass\n")
        second = await _call(client, "index_status")
    assert f"files {stats['files']}, symbols {stats['symbols']}, tokens {stats['tokens']}" in first
    for lang, v in stats["languages"].items():
        assert f"{lang} {v['files']} files {v['tokens']} tokens" in first
    assert "files changed since: 0" in first and "skipped 1 files: unsupported language 1" in first
    assert "files changed since: 1 (re-indexed before this answer)" in second
    assert re.search(r"last indexed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", second)


async def test_reindex_sends_progress_ending_at_the_total(index: Index, repo: Path) -> None:
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    async with Client(build_server(index)) as client:
        result = await client.call_tool("reindex", {}, progress_callback=on_progress)
        text = _text(result)
        files = index.stats().files
        assert not result.is_error and text.startswith("rebuilt the index in ")
        assert f"parsed {files}," in text
        assert seen and seen[-1] == (files, files)
        assert [p for p, _ in seen] == sorted(p for p, _ in seen)
        # An edit that keeps size and mtime is invisible to the stat check until its path is re-read.
        codes = repo / "shortener" / "codes.py"
        st = codes.stat()
        codes.write_text(codes.read_text().replace("def decode(", "def dekode("))
        os.utime(codes, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert _ids(await _call(client, "search_symbols", query="dekode")) == []
        seen.clear()
        reread = await client.call_tool("reindex", {"paths": ["shortener/codes.py"]}, progress_callback=on_progress)
        assert "re-read 1 indexed files under shortener/codes.py" in _text(reread)
        assert seen[-1] == (1, 1)
        assert _ids(await _call(client, "search_symbols", query="dekode"))[0] == "shortener/codes.py::dekode#function"


# -- outline and references ----------------------------------------------------------------------


async def test_outline_of_a_file_and_a_folder(index: Index) -> None:
    async with Client(build_server(index)) as client:
        file_text = await _call(client, "get_outline", path="shortener/store.py")
        root_text = await _call(client, "get_outline", path=".")
        folder_text = await _call(client, "get_outline", path="shortener/")
    lines = file_text.splitlines()
    assert lines[0].startswith('shortener/store.py: python, ')
    for sym in index.file_symbols("shortener/store.py"):
        depth = "  " if sym.parent_id else ""
        line = f"{depth}{sym.id.split('::', 1)[1]} L{sym.start_line}"
        assert any(x.startswith(line) and x.endswith(f", {sym.tokens} tokens") for x in lines), line
    assert "  LinkStore.resolve#method L45-51, " in file_text
    shortener = [f for f in index.files() if f.path.startswith("shortener/")]
    assert f"  shortener/ {len(shortener)} files, {sum(f.tokens for f in shortener)} tokens" in root_text
    assert f"./: {index.stats().files} indexed files, {index.stats().tokens} tokens" in root_text
    assert "  store.py python, " in folder_text and "top-level symbols" in folder_text


async def test_references_carry_the_line_of_each_use(index: Index) -> None:
    async with Client(build_server(index)) as client:
        text = await _call(client, "find_references", id="shortener/codes.py::encode#function")
        one = await _call(client, "find_references", id="shortener/codes.py::encode#function", limit=1)
    expected = api.used_by_json(api.Workspace(index).used_by("shortener/codes.py::encode#function"))["references"]
    assert text.startswith(f"{len(expected)} symbols use encode")
    for ref in expected:
        code = (index.root / ref["path"]).read_text().splitlines()[ref["line"] - 1].strip()
        assert f"{ref['id']} L{ref['line']}: {code}" in text
    assert "[more mention it" in one and len(one.splitlines()) == 3


async def test_dependencies_list_what_a_symbol_uses(index: Index) -> None:
    target = next(s for s in index.all_symbols() if api.uses_json(api.Workspace(index).uses(s.id))["deps"])
    async with Client(build_server(index)) as client:
        text = await _call(client, "find_dependencies", id=target.id)
        error = await _error(client, "find_dependencies", id=target.id, depth=9)
    for dep in api.uses_json(api.Workspace(index).uses(target.id))["deps"]:
        assert dep["id"] in text
    assert "depth" in error


async def test_bundles_fit_their_budget_and_report_tokens(index: Index) -> None:
    from symscope.core.tokens import count_tokens

    ids = [s.id for s in index.all_symbols()[:6]]
    async with Client(build_server(index)) as client:
        result = await client.call_tool("build_bundle", {"ids": ids, "budget": 150})
        small = await _error(client, "build_bundle", ids=ids, budget=3)
    text = _text(result)
    assert not result.is_error and result.meta is not None
    assert result.meta["symscope/tokens"] == count_tokens(text)
    body = text.split("\n[", 1)[0]
    assert count_tokens(body) <= 150
    assert "budget" in small


# -- errors --------------------------------------------------------------------------------------


async def test_errors_are_one_line_saying_what_to_call_and_the_server_survives(index: Index) -> None:
    async with Client(build_server(index)) as client:
        unknown = await _error(client, "get_symbols", ids=["no/such.py::thing#function"])
        assert "unknown symbol id no/such.py::thing#function" in unknown and "search_symbols" in unknown
        refs = await _error(client, "find_references", id="nope")
        assert "search_symbols" in refs
        limit = await _error(client, "search_symbols", query="store", limit=99)
        assert "bad argument limit" in limit and "(got 99)" in limit and "call search_symbols again" in limit
        empty = await _error(client, "get_symbols", ids=[])
        assert "bad argument ids" in empty
        fmt = await _error(client, "get_symbols", ids=[RESOLVE], format="html")
        assert "bad argument format" in fmt and "'plain'" in fmt
        missing = await _error(client, "find_references")
        assert "missing argument id" in missing
        words = await _error(client, "search_symbols", query="   ")
        assert "empty query" in words and "search_symbols" in words
        for outside in ("../", "/etc", "shortener/../../"):
            text = await _error(client, "get_outline", path=outside)
            assert "outside the repository" in text and "get_outline" in text
        absent = await _error(client, "get_outline", path="no/such/folder")
        assert "no file or folder no/such/folder" in absent
        outside_reindex = await _error(client, "reindex", paths=["/etc"])
        assert "outside the repository" in outside_reindex
        skipped = await _error(client, "get_outline", path="README.md")
        assert "README.md is not indexed (unsupported language)" in skipped
        tool = await client.call_tool("find_callers", {"id": RESOLVE})
        assert tool.is_error and "symscope's tools are search_symbols, get_symbols" in _text(tool)
        # A bare string where a list belongs is taken as a list of one, not refused.
        assert _body(await _call(client, "get_symbols", ids=RESOLVE)) == _exact(index, RESOLVE) + "\n"
        assert _ids(await _call(client, "search_symbols", query="store"))  # still answering


def test_serving_never_imports_rich_or_textual(repo: Path, tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import sys, anyio
        from mcp import Client
        from symscope.core.index import Index
        from symscope.mcp_server.server import build_server

        async def main():
            with Index.open(sys.argv[1], sys.argv[2]) as ix:
                async with Client(build_server(ix)) as client:
                    await client.call_tool("search_symbols", {"query": "store"})
                    await client.call_tool("get_symbols", {"ids": ["nope"]})
                    await client.call_tool("search_symbols", {"query": "store", "limit": 0})

        anyio.run(main)
        print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("rich", "textual"))))
    """)
    out = subprocess.run([sys.executable, "-c", code, str(repo), str(tmp_path / "idx")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


# -- a real subprocess over stdio -------------------------------------------------------------------


def _offline_env(tmp_path: Path) -> dict[str, str]:
    """PYTHONPATH with a sitecustomize that refuses every network connection."""
    site = tmp_path / "offline"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(textwrap.dedent("""
        import socket
        _connect = socket.socket.connect
        def _deny(self, address):
            if self.family in (socket.AF_INET, socket.AF_INET6):
                raise OSError("network access in an offline test")
            return _connect(self, address)
        socket.socket.connect = _deny
        socket.socket.connect_ex = _deny
    """))
    return {"PYTHONPATH": str(site), "HOME": str(tmp_path / "home"), "SYMSCOPE_INDEX_DIR": str(tmp_path / "c")}


def _server_args(repo: Path, idx: Path) -> list[str]:
    return ["-m", "symscope.cli", "mcp", "--repo", str(repo), "--index-dir", str(idx)]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_real_stdio_subprocess(repo: Path, tmp_path: Path, mode: str) -> None:
    env = _offline_env(tmp_path)
    check = subprocess.run([sys.executable, "-c", "import socket; print(socket.socket.connect.__name__)"],
                           env={**os.environ, **env}, capture_output=True, text=True, check=True)
    assert check.stdout.strip() == "_deny"
    idx = tmp_path / "idx"
    params = StdioServerParameters(command=sys.executable, args=_server_args(repo, idx), env=env,
                                   cwd=str(tmp_path))
    errlog = tmp_path / "stderr.txt"
    with anyio.fail_after(120), errlog.open("w") as err:
        async with Client(stdio_client(params, errlog=err), mode=mode, read_timeout_seconds=60) as client:
            listed = await client.list_tools()
            assert {t.name for t in listed.tools} == TOOLS
            found = await client.call_tool("search_symbols", {"query": "resolve code", "limit": 3})
            ids = _ids(_text(found))
            assert (found.meta or {})["symscope/tokens"] == count_tokens(_text(found))
            got = await client.call_tool("get_symbols", {"ids": ids[:1]})
            text = _text(got)
            meta = got.meta or {}
            assert meta["symscope/tokens"] == count_tokens(text) and meta["symscope/file_tokens"] > 0
            bad = await client.call_tool("get_symbols", {"ids": ["no::such#thing"]})
            assert bad.is_error and "search_symbols" in _text(bad)
            status = await client.call_tool("index_status", {})
            assert not status.is_error and "files 10," in _text(status)
    with Index.open(repo, idx) as index:  # the server's own index, read after it stopped
        assert _body(text) == _exact(index, ids[0]) + "\n"
    log = errlog.read_text()
    assert "Traceback" not in log
    assert log.rstrip().endswith("symscope mcp: stopped")  # stdin closed: it shut down by itself


def test_stdout_carries_nothing_but_protocol(repo: Path, tmp_path: Path) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search_symbols", "arguments": {"query": "store"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "get_symbols", "arguments": {"ids": ["nope"]}}},
    ]
    proc = subprocess.Popen([sys.executable, *_server_args(repo, tmp_path / "idx")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **_offline_env(tmp_path)}, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    replies: list[dict[str, Any]] = []
    for message in messages:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        if "id" in message:
            replies.append(json.loads(proc.stdout.readline()))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == ""  # nothing after the last reply
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert replies[1]["result"]["isError"] is False and replies[2]["result"]["isError"] is True
    assert "symscope mcp: serving" in err


def test_the_benchmark_workflow_runs_through_the_server(index: Index) -> None:
    from benchmarks import STUDY_QUERIES
    from benchmarks.mcp_workflow import measure, render_table

    result = measure(index)
    summary = result["summary"]
    assert summary["same_ranking"] and summary["meta_exact"]
    assert len(result["queries"]) == len(STUDY_QUERIES)
    for q in result["queries"]:
        assert q["total"] == q["search_tokens"] + q["fetch_tokens"]
        assert q["search_tokens"] <= 0.6 * q["cli_search_tokens"] or not q["ids"]
    assert summary["mcp_tokens_per_query"] < summary["cli_tokens_per_query"]
    table = render_table({"sample": result})
    assert table.startswith("| corpus | MCP tokens/query |") and "| sample |" in table
