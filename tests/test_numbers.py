"""Issue 27, point 9: numbers that make no sense are refused before anything is touched.

`symscope index --max-file-bytes -1` used to skip every file and so empty the index.
Every numeric option is one validated argparse type built from the engine's ranges
(`core.limits`), and the engine refuses the same numbers itself (`BadArgumentError`),
so the MCP server and library callers are protected too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from symscope.cli import main as cli
from symscope.core import api, limits
from symscope.core.bundle import build_bundle
from symscope.core.errors import BadArgumentError, BadQueryError
from symscope.core.index import Index
from tests.conftest import WriteRepo

FILES: dict[str, str | bytes] = {
    "a.py": "def alpha():\n    return beta()\n\n\ndef beta():\n    return 1\n",
    "b.py": "class Gamma:\n    def delta(self):\n        return 2\n",
}
ID = "a.py::alpha#function"

BAD = [
    ("index", "--max-file-bytes", "-1"),
    ("index", "--max-file-bytes", "0"),
    ("index", "--max-file-bytes", "999"),
    ("index", "--max-file-bytes", "1e6"),
    ("index", "--max-file-bytes", "99999999999"),
    ("index", "--max-file-bytes", "lots"),
    ("index", "--max-files", "0"),
    ("index", "--max-files", "-3"),
    ("index", "--max-files", "9" * 5000),
    ("search", "--limit", "0"),
    ("search", "--limit", "-1"),
    ("search", "--limit", "10001"),
    ("search", "--max-files", "0"),
    ("deps", "--depth", "0"),
    ("deps", "--depth", "6"),
    ("bundle", "--deps", "-1"),
    ("bundle", "--deps", "6"),
    ("bundle", "--budget", "0"),
    ("bundle", "--budget", "-200"),
    ("bundle", "--budget", "1.5"),
]


def _counts(root: Path, idx: Path) -> tuple[int, int, int, int]:
    with Index.open(root, idx) as ix:
        st = ix.stats()
        return st.files, st.symbols, st.skipped, ix.generation()


def _argv(command: str, option: str, value: str, root: Path, idx: Path) -> list[str]:
    where = ["--index-dir", str(idx)]
    target = {"index": [str(root)], "search": ["alpha", "--repo", str(root)],
              "deps": [ID, "--repo", str(root)], "bundle": [ID, "--repo", str(root)]}[command]
    return [command, *target, f"{option}={value}", *where]


@pytest.mark.parametrize(("command", "option", "value"), BAD)
def test_nonsense_numbers_are_one_line_usage_errors_and_change_nothing(
        write_repo: WriteRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        command: str, option: str, value: str) -> None:
    root = write_repo(FILES)
    idx = tmp_path / "idx"
    assert cli.main(["index", str(root), "--index-dir", str(idx)]) == 0
    before = _counts(root, idx)
    assert before[:2] == (2, 4)
    capsys.readouterr()
    with pytest.raises(SystemExit) as caught:
        cli.main(_argv(command, option, value, root, idx))
    assert caught.value.code == cli.EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err
    assert lines[0].startswith(f"symscope: error: argument {option}: must be a whole number from ")
    assert len(lines[0]) < 200  # a 5,000-digit value is not echoed whole
    assert _counts(root, idx) == before


def test_the_issue_command_no_longer_empties_the_index(write_repo: WriteRepo, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    root = write_repo(FILES)
    idx = tmp_path / "idx"
    assert cli.main(["index", str(root), "--index-dir", str(idx)]) == 0
    with pytest.raises(SystemExit):
        cli.main(["index", str(root), "--max-file-bytes", "-1", "--index-dir", str(idx)])
    assert "--max-file-bytes: must be a whole number from 1,000 to 1,000,000,000, not '-1'" in capsys.readouterr().err
    assert cli.main(["search", "alpha", "--repo", str(root), "--index-dir", str(idx), "--json"]) == 0
    assert [h["id"] for h in json.loads(capsys.readouterr().out)["results"]][:1] == [ID]


def test_sensible_numbers_still_work(write_repo: WriteRepo, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = write_repo(FILES)
    idx = ["--index-dir", str(tmp_path / "idx")]
    assert cli.main(["index", str(root), "--max-file-bytes", "1_000", "--max-files", "2", *idx]) == 0
    assert cli.main(["search", "alpha", "--repo", str(root), "--limit", " 1", *idx]) == 0
    assert cli.main(["deps", ID, "--repo", str(root), "--depth", "5", *idx]) == 0
    assert cli.main(["bundle", ID, "--repo", str(root), "--deps", "0", "--budget", "10000000", *idx]) == 0
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"max_file_bytes": -1}, "max_file_bytes"),
    ({"max_file_bytes": 0}, "max_file_bytes"),
    ({"max_file_bytes": 1.5e6}, "max_file_bytes"),
    ({"max_file_bytes": True}, "max_file_bytes"),
    ({"max_files": 0}, "max_files"),
    ({"max_files": "10"}, "max_files"),
    ({"processes": 0}, "processes"),
    ({"processes": -2}, "processes"),
])
def test_engine_update_refuses_before_touching_the_index(write_repo: WriteRepo, tmp_path: Path,
                                                         kwargs: dict[str, object], name: str) -> None:
    root = write_repo(FILES)
    idx = tmp_path / "idx"
    with Index.open(root, idx) as ix:
        ix.update(processes=1)
    before = _counts(root, idx)
    with Index.open(root, idx) as ix, pytest.raises(BadArgumentError, match=rf"^{name} must be a whole number"):
        ix.update(**kwargs)  # type: ignore[arg-type]
    assert _counts(root, idx) == before


def test_engine_queries_refuse_nonsense_with_their_own_error(write_repo: WriteRepo, tmp_path: Path) -> None:
    root = write_repo(FILES)
    with Index.open(root, tmp_path / "idx") as ix:
        ix.update(processes=1)
        for call in (lambda: ix.search("alpha", limit=0), lambda: api.Workspace(ix).search("alpha", limit=10**9),
                     lambda: api.Workspace(ix).used_by(ID, limit=0), lambda: api.Workspace(ix).uses(ID, depth=99),
                     lambda: api.Workspace(ix).bundle([ID], budget=0), lambda: api.Workspace(ix).bundle([ID], budget=10**30),
                     lambda: build_bundle(ix, [ID], deps=-1), lambda: build_bundle(ix, [ID], budget=-5)):
            with pytest.raises(BadArgumentError) as caught:
                call()
            assert isinstance(caught.value, BadQueryError)  # every face already reports these as bad input
            assert len(str(caught.value)) < 120


def test_ranges_quote_a_huge_value_briefly() -> None:
    with pytest.raises(BadArgumentError) as caught:
        limits.SEARCH_LIMIT.check("limit", "x" * 1_000_000)
    assert len(str(caught.value)) < 120
