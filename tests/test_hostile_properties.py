"""Property tests for hostile input: any file name bytes, any JSON as MCP arguments.

Hand-written cases (tests/test_hostile*.py, tests/test_mcp.py) pin the known attacks;
these feed random input and check what must hold whatever arrives:

* a repository with file and folder names of arbitrary bytes indexes; each such file is
  indexed (its symbol's source comes back exactly) or skipped with a reason, and the
  ordinary files beside it stay searchable;
* any JSON value as any MCP tool argument gets an answer: a result or a one-line error,
  bounded in size, with no raw control characters and no traceback, and nothing from
  outside the repository in it.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.types import TextContent

from symscope.core import api
from symscope.core.index import Index
from symscope.core.pathnames import escape_name, unescape_name
from symscope.core.tokens import count_tokens
from symscope.mcp_server.args import RESULT_BUDGET
from symscope.mcp_server.server import build_server

SAMPLE = Path(__file__).parent / "fixtures" / "sample_repo"
#: Raw control characters (tab and newline included: inside one name they forge lines).
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
OUTSIDE_MARK = "OUTSIDE_THE_REPOSITORY_7f3a"
TOOLS_ARGS: dict[str, tuple[str, ...]] = {
    "search_symbols": ("query", "kind", "lang", "path", "limit"),
    "get_symbols": ("ids", "format"),
    "get_outline": ("path",),
    "find_references": ("id", "limit"),
    "find_dependencies": ("id", "depth"),
    "build_bundle": ("ids", "deps", "budget", "format"),
    "index_status": (),
    "reindex": ("paths",),
}

#: One name component: any bytes but "/" and NUL, never "." or "..".
name_bytes = st.binary(min_size=1, max_size=24).map(
    lambda b: b.replace(b"/", b"_").replace(b"\x00", b"_")
).filter(lambda b: b not in (b".", b".."))


def _write(root: Path, parts: list[bytes], content: bytes) -> bytes:
    """Write `content` at root/parts (bytes path, made as the OS sees it); returns the path."""
    path = os.fsencode(root).rstrip(b"/")
    for part in parts[:-1]:
        path += b"/" + part
        os.makedirs(path, exist_ok=True)
    path += b"/" + parts[-1]
    with open(path, "wb") as handle:
        handle.write(content)
    return path


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(
        st.tuples(st.lists(name_bytes, min_size=0, max_size=2), name_bytes, st.sampled_from([b".py", b".txt", b""])),
        min_size=1, max_size=4,
    )
)
def test_any_file_name_bytes_index_or_are_skipped_with_a_reason(
    tmp_path_factory: pytest.TempPathFactory, names: list[tuple[list[bytes], bytes, bytes]]
) -> None:
    base = tmp_path_factory.mktemp("names")
    root = base / "repo"
    root.mkdir()
    (root / "plain.py").write_text("def ordinary_function_here():\n    return 1\n")
    written: dict[bytes, str] = {}
    for n, (folders, stem, ext) in enumerate(names):
        func = f"hostile_name_function_{n}"
        try:
            path = _write(root, [*folders, stem + ext], f"def {func}():\n    return {n}\n".encode())
        except OSError:  # a name this file system refuses (too long, a file where a folder is)
            continue
        written[path] = func
    ix = Index.open(root, base / "idx")
    try:
        ix.update(processes=1)
        indexed = {f.path for f in ix.files()}
        skipped = {s.path: s.reason for s in ix.skipped()}
        for path in [*indexed, *skipped]:
            assert not RAW_CONTROL.search(path), path  # names never carry a raw control character
            path.encode("utf-8")  # and are valid text everywhere (SQLite, JSON, MCP)
        assert all(reason.strip() for reason in skipped.values())
        assert "plain.py" in indexed
        assert api.search_json("ordinary_function_here", api.Workspace(ix).search("ordinary_function_here", limit=3))["results"]
        for func in written.values():
            hits = [h for h in api.search_json(func, api.Workspace(ix).search(func, limit=5))["results"] if h["name"] == func]
            if hits:  # indexed: its source round-trips exactly through the stored path
                assert api.show_json(api.Workspace(ix).show(hits[0]["id"]))["source"].startswith(f"def {func}():")
        # every file written is accounted for: indexed or skipped (the file or a folder above it)
        assert len(indexed) + len(skipped) >= 1 + min(1, len(written))
    finally:
        ix.close()
        shutil.rmtree(base, ignore_errors=True)


# -- any JSON as MCP arguments -------------------------------------------------------------------

#: Strings that broke or stalled a tool before: NUL, huge, control characters, outside paths.
HOSTILE_STRINGS = ["a\x00b", "x" * 9_000, "y" * 200_000, "../" * 50, "\n\x1b[2J\r", "\udcff.py",
                   "shortener/store.py::" + "z" * 5_000 + "#method", "/", "~", "~root/.ssh"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True) | st.text(max_size=60)
    | st.sampled_from(["..", "../outside.py", "/etc/passwd", "shortener", "shortener/store.py",
                       "shortener/store.py::LinkStore.resolve#method", "a\x00b", "\n\x1b[2J",
                       "x" * 20_000, "*", "**/*", "markdown", "xml", "plain"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@pytest.fixture(scope="module")
def hostile_index(tmp_path_factory: pytest.TempPathFactory) -> Any:
    base = tmp_path_factory.mktemp("mcp_props")
    root = base / "repo"
    shutil.copytree(SAMPLE, root)
    (base / "outside.py").write_text(f"def outside():\n    return '{OUTSIDE_MARK}'\n")
    ix = Index.open(root, base / "idx")
    ix.update(processes=1)
    yield ix, base / "outside.py"
    ix.close()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=st.sampled_from(sorted(TOOLS_ARGS)), data=st.data())
def test_any_json_arguments_get_a_bounded_one_line_answer(
    hostile_index: Any, tool: str, data: st.DataObject, caplog: pytest.LogCaptureFixture
) -> None:
    index, outside = hostile_index
    names = st.sampled_from([*TOOLS_ARGS[tool], "extra", "redact"]) if TOOLS_ARGS[tool] else st.just("x")
    values = st.one_of(json_values, st.sampled_from(HOSTILE_STRINGS), st.just(str(outside)),
                       st.lists(st.sampled_from(HOSTILE_STRINGS), min_size=1, max_size=3))
    args = data.draw(st.dictionaries(names, values, max_size=4))
    if tool == "reindex" and "paths" not in args:
        args["paths"] = ["shortener"]  # a full rebuild per example would only be slow

    async def call() -> Any:
        async with Client(build_server(index)) as client:
            return await client.call_tool(tool, args)

    with caplog.at_level(logging.DEBUG):
        result = anyio.run(call)
    text = "".join(b.text for b in result.content if isinstance(b, TextContent))
    assert not RAW_CONTROL.search(text)
    assert OUTSIDE_MARK not in text
    assert "Traceback" not in text
    assert count_tokens(text) <= RESULT_BUDGET + 50
    if result.is_error:
        _assert_one_line_error(tool, text)
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


def _assert_one_line_error(tool: str, text: str) -> None:
    """A refusal: one line, short, saying more than the SDK's bare crash text."""
    assert "\n" not in text and len(text) < 400, text[:300]
    assert text.startswith(f"Error executing tool {tool}: "), text[:300]
    assert len(text) > len(f"Error executing tool {tool}: ") + 10


@pytest.mark.parametrize("tool", sorted(t for t, a in TOOLS_ARGS.items() if a))
def test_each_hostile_string_in_each_argument_is_refused_in_one_line(
    hostile_index: Any, tool: str, caplog: pytest.LogCaptureFixture
) -> None:
    index, _ = hostile_index
    numbers = {"limit", "depth", "deps", "budget"}
    cases = [(arg, value) for arg in TOOLS_ARGS[tool] if arg not in numbers for value in HOSTILE_STRINGS]

    async def call_all() -> list[tuple[str, str, Any]]:
        out = []
        async with Client(build_server(index)) as client:
            for arg, value in cases:
                args: dict[str, Any] = {arg: [value] if arg in ("ids", "paths") else value}
                if tool in ("search_symbols",) and arg != "query":
                    args["query"] = "store"
                if tool in ("get_symbols", "build_bundle") and arg != "ids":
                    args["ids"] = ["shortener/store.py::LinkStore.resolve#method"]
                out.append((arg, value, await client.call_tool(tool, args)))
        return out

    with caplog.at_level(logging.DEBUG):
        results = anyio.run(call_all)
    for arg, value, result in results:
        text = "".join(b.text for b in result.content if isinstance(b, TextContent))
        assert not RAW_CONTROL.search(text), (arg, value[:20])
        assert count_tokens(text) <= RESULT_BUDGET + 50
        if result.is_error:
            _assert_one_line_error(tool, text)
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


@settings(max_examples=500, deadline=None)
@given(name=st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=40)
       | st.binary(max_size=40).map(os.fsdecode))
def test_escaped_names_round_trip_and_are_one_printable_line(name: str) -> None:
    escaped = escape_name(name)
    assert unescape_name(escaped) == name  # lossless: the bytes on disk come back
    escaped.encode("utf-8")  # storable in SQLite, JSON and MCP text
    assert not RAW_CONTROL.search(escaped) and "\n" not in escaped
