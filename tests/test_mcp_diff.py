"""MCP `build_bundle` with `diff`: the CLI's diff bundle for agents, on a real git repo.

The same engine call as `symscope bundle --diff` (`Workspace.bundle(diff_ref=...)`): the
symbols changed against a revision in full, their callers as signatures; redacted by
default, bounded like every other answer, and bad revisions are one-line errors.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from symscope.cli import main as cli
from symscope.core.api import Workspace, count_tokens
from symscope.mcp_server.server import build_server
from tests.planted_secrets import _ALNUM, fake

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TOKEN = "ghp_" + fake(_ALNUM, 36)
APP = '''def helper(x):
    """Doubles."""
    return x * 2


def caller(y):
    """Uses the helper."""
    return helper(y) + 1


def other():
    return "untouched"
'''


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Workspace]:
    """A committed repo, then: `helper` edited (with a token in it) and `fresh.py` added."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(APP)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    (root / "app.py").write_text(APP.replace("    return x * 2\n",
                                             f'    key = "{TOKEN}"\n    return x * 3\n'))
    (root / "fresh.py").write_text("def fresh():\n    return 42\n")
    with Workspace.open(root, tmp_path / "idx") as ws:
        yield ws


def _text(result: CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, TextContent))


async def _bundle(ws: Workspace, **args: Any) -> CallToolResult:
    async with Client(build_server(ws)) as client:
        return await client.call_tool("build_bundle", args)


def _cli_bundle(ws: Workspace, *args: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["bundle", *args, "--repo", str(ws.root), "--index-dir", str(ws.index_dir), "--json"])
    assert code == 0
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


async def test_diff_bundle_is_the_cli_diff_bundle_redacted(repo: Workspace) -> None:
    result = await _bundle(repo, diff="HEAD", budget=2000)
    text = _text(result)
    assert not result.is_error, text
    assert "    return x * 3\n" in text and "def fresh():\n    return 42\n" in text
    assert "def caller(y)" in text and "return helper(y) + 1" not in text  # the caller as a signature
    assert "def other" not in text
    assert TOKEN not in text and "«redacted: " in text
    assert result.meta is not None and result.meta["symscope/redacted"] == 1
    cli = _cli_bundle(repo, "--diff", "HEAD", "--budget", "2000")
    assert text == cli["text"] + "\n[1 secrets redacted]"  # the same engine call, then the notes
    assert [i["reason"] for i in cli["items"]] == ["changed", "changed", "caller"]
    assert count_tokens(text) == result.meta["symscope/tokens"] <= 2000


async def test_diff_without_redaction_keeps_the_token(repo: Workspace) -> None:
    text = _text(await _bundle(repo, diff="HEAD", budget=2000, redact=False))
    assert f'key = "{TOKEN}"' in text


async def test_diff_is_bounded_like_every_bundle(repo: Workspace) -> None:
    """Without a budget the answer is fitted to the ceiling and says so; a small budget is exact."""
    whole = await _bundle(repo, diff="HEAD")
    assert "[no budget given: fitted to 6,000 tokens" in _text(whole)
    small = await _bundle(repo, diff="HEAD", budget=60)
    assert not small.is_error, _text(small)
    assert count_tokens(_text(small)) <= 60


async def test_ids_and_diff_together(repo: Workspace) -> None:
    text = _text(await _bundle(repo, ids=["app.py::other#function"], diff="HEAD", budget=3000))
    assert text.index("def other") < text.index("return x * 3")  # given ids first, then the changes


@pytest.mark.parametrize(("args", "words"), [
    ({}, "give ids (from search_symbols or get_outline), or diff"),
    ({"diff": "--output=/tmp/x"}, "not a git revision"),
    ({"diff": "no-such-branch"}, "unknown git revision: no-such-branch"),
])
async def test_bad_diff_calls_are_one_line_errors(repo: Workspace, args: dict[str, Any], words: str) -> None:
    result = await _bundle(repo, **args)
    text = _text(result)
    assert result.is_error and "\n" not in text and words in text, text


async def test_diff_outside_git_is_one_line(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    with Workspace.open(root, tmp_path / "idx") as ws:
        result = await _bundle(ws, diff="HEAD")
    assert result.is_error and "\n" not in _text(result) and "git" in _text(result)
