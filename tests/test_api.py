"""The engine API every front end shares: shapes, filters, and the boundary to the UI."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from symscope.cli import main as cli
from symscope.core import api
from symscope.core.errors import BadQueryError
from symscope.core.index import Index

CORE = Path(__file__).resolve().parents[1] / "core"
SAMPLE = Path(__file__).parent / "fixtures" / "sample_repo"
GOLDEN = Path(__file__).parent / "golden" / "cli_outputs.json"


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A copy of the sample repo, indexed, and its index folder."""
    root = tmp_path_factory.mktemp("api") / "sample_repo"
    shutil.copytree(SAMPLE, root)
    idx = root.parent / "idx"
    code, _, err = _cli("index", str(root), "--index-dir", str(idx))
    assert code == 0, err
    return root, idx


def test_cli_json_is_byte_identical_to_the_recorded_outputs(sample: tuple[Path, Path]) -> None:
    """tests/golden/cli_outputs.json was recorded with the CLI before the engine API existed.

    The search outputs were re-recorded when ranking changed on purpose: once for the issue-14
    priors and folding (scores moved and two neighbours swapped; the same results came back),
    and once for new stop words (docstrings' terms changed: four scores moved, no order).
    """
    root, idx = sample
    for case in json.loads(GOLDEN.read_text()):
        args = case["args"]
        if args == ["stats"]:
            code, out, _ = _cli("stats", "--repo", str(root), "--index-dir", str(idx), "--json")
            got = json.loads(out)
            for key in ("root", "index", "index_bytes"):
                got.pop(key)
            assert json.dumps(got) == case["stdout"]
            continue
        code, out, err = _cli(*args, "--repo", str(root), "--index-dir", str(idx), "--json")
        assert code == 0, err
        assert out == case["stdout"], args


def test_cli_prints_exactly_what_the_api_returns(sample: tuple[Path, Path]) -> None:
    root, idx = sample
    with Index.open(root, idx) as index:
        want = api.emit(api.search_json("cache get", api.Workspace(index).search("cache get", limit=4)))
        first = api.search_json("cache get", api.Workspace(index).search("cache get", limit=4))["results"][0]["id"]
        shown = api.emit(api.show_json(api.Workspace(index).show(first)))
    assert _cli("search", "cache get", "--limit", "4", "--repo", str(root), "--index-dir", str(idx),
                "--json")[1] == want
    assert _cli("show", first, "--repo", str(root), "--index-dir", str(idx), "--json")[1] == shown


def test_search_accepts_the_filter_syntax(sample: tuple[Path, Path]) -> None:
    root, idx = sample
    common = ["--repo", str(root), "--index-dir", str(idx), "--json"]
    unfiltered = json.loads(_cli("search", "code", *common)[1])["results"]
    assert {r["language"] for r in unfiltered} > {"go"}, "the query should match more than Go"
    for text, key, value in (("lang:go code", "language", "go"), ("l:golang code", "language", "go"),
                             ("kind:struct cache", "kind", "struct"), ("k:fn code", "kind", "function")):
        results = json.loads(_cli("search", text, *common)[1])["results"]
        assert results, text
        assert {r[key] for r in results} == {value}, text
    path_only = json.loads(_cli("search", "path:web code", *common)[1])["results"]
    assert path_only
    assert all(r["path"].startswith("web/") for r in path_only)
    # A flag wins over the same filter in the text.
    flagged = json.loads(_cli("search", "kind:struct cache", "--kind", "method", *common)[1])["results"]
    assert {r["kind"] for r in flagged} == {"method"}


@pytest.mark.parametrize(
    ("query", "message"),
    [("kind:gadget cache", "unknown kind 'gadget'"), ("lang:cobol x", "unknown language 'cobol'"),
     ("kind:class", "empty query"), ("   ", "empty query")],
)
def test_bad_filters_are_one_line_usage_errors(sample: tuple[Path, Path], query: str, message: str) -> None:
    root, idx = sample
    code, out, err = _cli("search", query, "--repo", str(root), "--index-dir", str(idx))
    assert code == cli.EXIT_USAGE and out == ""
    assert err.startswith("symscope: error: ") and message in err and err.count("\n") == 1


def test_api_raises_for_bad_queries(sample: tuple[Path, Path]) -> None:
    root, idx = sample
    with Index.open(root, idx) as index, pytest.raises(BadQueryError):
        api.Workspace(index).search("x", limit=0)


def test_languages_lists_every_language_with_kinds() -> None:
    code, out, _ = _cli("languages", "--json")
    data = json.loads(out)["languages"]
    by_name = {d["name"]: d for d in data}
    assert code == 0 and ".py" in by_name["python"]["extensions"]
    assert {"class", "function", "method"} <= set(by_name["python"]["kinds"])
    assert "struct" in by_name["go"]["kinds"]
    assert {"class", "function"} <= set(by_name["vue"]["kinds"]), "the component and its script's symbols"
    assert len(data) >= 40


def test_core_never_names_the_ui() -> None:
    offenders = [
        f"{p.relative_to(CORE)}:{n}"
        for p in CORE.rglob("*.py")
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if "symscope.tui" in line or "from ..tui" in line or "import tui" in line
    ]
    assert offenders == []


def test_every_cli_command_path_loads_no_ui(sample: tuple[Path, Path]) -> None:
    """Run each command in one process, through the console script's launcher: no textual, rich
    or symscope.tui.app; `search` also loads no parser, tokenizer or rank-bm25."""
    root, idx = sample
    common = f"'--repo', {str(root)!r}, '--index-dir', {str(idx)!r}"
    script = (
        "import contextlib, io, sys\n"
        "from symscope.tui import launch\n"
        "def heavy(names):\n"
        "    return sorted(m for m in sys.modules if m.split('.')[0] in names or m == 'symscope.tui.app')\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert launch.main(['search', 'cache', {common}]) == 0\n"
        "    print(heavy(('textual', 'rich', 'tree_sitter', 'tiktoken', 'rank_bm25')), file=sys.stderr)\n"
        "    for args in (['show', 'shortener/codes.py::encode#function'], ['outline', '.'],\n"
        "                 ['refs', 'shortener/codes.py::encode#function'], ['stats']):\n"
        f"        assert launch.main([*args, {common}]) == 0\n"
        "    assert launch.main(['languages']) == 0\n"
        "print(heavy(('textual', 'rich')))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip() == "[]"
    assert out.stdout.strip() == "[]"
