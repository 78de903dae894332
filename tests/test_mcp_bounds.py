"""Every MCP answer is bounded (issue 27, point 5): errors never echo a whole argument, every
result stays under its documented ceiling, and a bundle budget is exact, notes included."""

from __future__ import annotations

import random
import shutil
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.types import CallToolResult, TextContent

from symscope.core.index import Index
from symscope.core.tokens import count_tokens
from symscope.mcp_server.args import LIST_BUDGET, MAX_ID_CHARS, MAX_PATHS, RESULT_BUDGET
from symscope.mcp_server.formatting import _echo
from symscope.mcp_server.server import build_server

SAMPLE = Path(__file__).parent / "fixtures" / "sample_repo"
#: Most characters of one argument an answer may repeat (the helper's limit, and its mark).
ECHO = 101


def _text(result: CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


@pytest.fixture
def sample(tmp_path: Path) -> Iterator[Index]:
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE, root)
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    yield ix
    ix.close()


def test_echo_shortens_only_long_values() -> None:
    assert _echo("shortener/store.py") == "shortener/store.py"
    long = "x" * 1_000_000
    assert len(_echo(long)) <= ECHO and _echo(long).startswith("x" * 50)
    assert "\n" not in _echo("a\nb" * 100) and len(_echo("é" * 500, 20)) <= 21


async def test_errors_never_echo_a_whole_argument(sample: Index) -> None:
    # The longest id the schema lets through (MAX_ID_CHARS); longer ones are refused by the schema.
    huge = "shortener/store.py::" + "q" * (MAX_ID_CHARS - 40) + "#method"
    async with Client(build_server(sample)) as client:
        answers = [
            await client.call_tool("get_symbols", {"ids": [huge]}),
            await client.call_tool("get_symbols", {"ids": [huge, huge + "2", "shortener/codes.py::encode#function"]}),
            await client.call_tool("find_references", {"id": huge}),
            await client.call_tool("find_dependencies", {"id": huge}),
            await client.call_tool("build_bundle", {"ids": [huge]}),
            await client.call_tool("search_symbols", {"query": "kind:" + "z" * 1_900 + " store"}),
        ]
    for result in answers:
        text = _text(result)
        assert "q" * ECHO not in text and "z" * ECHO not in text
        assert len(text) < 2_000 or not result.is_error
    assert answers[0].is_error and "unknown symbol id shortener/store.py::qqq" in _text(answers[0])
    assert not answers[1].is_error and len(_text(answers[1])) < 5_000


async def test_reindex_does_not_echo_every_path(sample: Index) -> None:
    paths = [f"./shortener/{'./' * n}" for n in range(MAX_PATHS - 2)] + ["cmd", "web/static/"]
    async with Client(build_server(sample)) as client:
        result = await client.call_tool("reindex", {"paths": paths})
    text = _text(result)
    assert not result.is_error, text
    assert len(text) < 600 and "shortener" in text and "cmd" in text


# -- bundles: a ceiling without a budget, an exact budget with one ---------------------------------


def _repo_of(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _function(name: str, lines: int, calls: str = "") -> str:
    body = "".join(f"    value_{i} = compute_{i}(value_{i - 1}, {i})\n" for i in range(1, lines))
    return f"def {name}():\n    value_0 = 0\n{calls}{body}    return value_0\n\n\n"


@pytest.fixture
def big(tmp_path: Path) -> Iterator[Index]:
    """A huge function, a very long name, 2,500 small functions, one used by and one using 200."""
    rng = random.Random(5)
    long_name = "f_" + "".join(rng.choice(string.ascii_letters) for _ in range(6_000))
    small = "".join(f"def small_{i}():\n    return target()\n\n\n" for i in range(2_500))
    calls = "".join(f"    small_{i}()\n" for i in range(200))
    root = _repo_of(tmp_path / "repo", {
        "huge.py": _function("huge", 3_000) + _function(long_name, 3) + _function("user", 2, calls),
        "many.py": "def target():\n    return 1\n\n\n" + small,
        **{f"pkg/mod_{i}.py": _function(f"part_{i}", 200) for i in range(12)},
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    ix.long_name = long_name  # type: ignore[attr-defined]
    yield ix
    ix.close()


async def _tokens(client: Client, tool: str, **args: Any) -> tuple[int, str, dict[str, Any]]:
    result = await client.call_tool(tool, args)
    text = _text(result)
    assert not result.is_error, text[:300]
    meta = result.meta or {}
    assert meta["symscope/tokens"] == count_tokens(text)
    return count_tokens(text), text, meta


async def test_every_result_stays_under_its_ceiling(big: Index) -> None:
    long_id = f"huge.py::{big.long_name}#function"  # type: ignore[attr-defined]
    parts = [f"pkg/mod_{i}.py::part_{i}#function" for i in range(12)]
    async with Client(build_server(big)) as client:
        checks = [
            (RESULT_BUDGET, await _tokens(client, "get_symbols", ids=["huge.py::huge#function"])),
            (RESULT_BUDGET, await _tokens(client, "get_symbols", ids=[long_id])),
            (RESULT_BUDGET, await _tokens(client, "get_symbols", ids=[long_id, *parts], format="xml")),
            (RESULT_BUDGET, await _tokens(client, "get_symbols", ids=parts, format="markdown")),
            (RESULT_BUDGET, await _tokens(client, "search_symbols", query="part small", limit=50)),
            (LIST_BUDGET, await _tokens(client, "get_outline", path="many.py")),
            (LIST_BUDGET, await _tokens(client, "get_outline", path="huge.py")),
            (LIST_BUDGET, await _tokens(client, "get_outline", path=".")),
            (LIST_BUDGET, await _tokens(client, "find_references", id="many.py::target#function", limit=100)),
            (LIST_BUDGET, await _tokens(client, "find_dependencies", id="huge.py::user#function", depth=3)),
            (RESULT_BUDGET, await _tokens(client, "build_bundle", ids=["huge.py::huge#function", *parts])),
            (RESULT_BUDGET, await _tokens(client, "build_bundle", ids=parts, deps=2, format="xml")),
            (RESULT_BUDGET, await _tokens(client, "build_bundle", ids=parts, budget=50_000)),
        ]
    for ceiling, (tokens, text, _) in checks:
        assert tokens <= ceiling, text[:200]
    huge_text = checks[0][1][1]
    assert "[cut: huge.py::huge#function" in huge_text
    assert "more not shown" in checks[2][1][1] or "[cut:" in checks[2][1][1]
    unbudgeted = checks[10][1][1]
    assert f"no budget given: fitted to {RESULT_BUDGET:,} tokens" in unbudgeted
    assert f"budget lowered to {RESULT_BUDGET:,} tokens" in checks[12][1][1]


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    base = tmp_path_factory.mktemp("bundle-prop")
    root = base / "repo"
    shutil.copytree(SAMPLE, root)
    ix = Index.open(root, base / "idx")
    ix.update(processes=1)
    yield ix
    ix.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(50, 5_000), picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=8),
       deps=st.integers(0, 2), fmt=st.sampled_from(["markdown", "xml"]))
def test_a_bundle_budget_is_exact_with_every_line_the_server_adds(
    sample_index: Index, budget: int, picks: list[int], deps: int, fmt: str
) -> None:
    symbols = sample_index.all_symbols()
    ids = list(dict.fromkeys(symbols[p % len(symbols)].id for p in picks))

    async def call() -> CallToolResult:
        async with Client(build_server(sample_index)) as client:
            return await client.call_tool("build_bundle", {"ids": ids, "budget": budget, "deps": deps,
                                                          "format": fmt})

    result = anyio.run(call)
    text = _text(result)
    if result.is_error:  # too small for even one name line: one short line, saying so
        assert "budget" in text and "\n" not in text and len(text) < 400
        return
    tokens = count_tokens(text)
    assert tokens <= budget and tokens <= RESULT_BUDGET
    assert (result.meta or {})["symscope/tokens"] == tokens
