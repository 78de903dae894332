"""The CLI contract that benchmarks and outside tools rely on, run as real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import WriteRepo

SEARCH_KEYS = {"id", "name", "qualname", "kind", "language", "path", "start_line", "end_line",
               "signature", "tokens", "score"}


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "symscope.cli", *args],
        capture_output=True, text=True, cwd=cwd, env=os.environ.copy(), timeout=120,
    )


def test_index_json_reports_counts_and_skips(sample_repo: Path) -> None:
    out = run("index", str(sample_repo), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["files"], data["parsed"], data["unchanged"], data["removed"]) == (4, 4, 0, 0)
    assert data["skipped"] == 1
    assert data["skipped_files"] == [{"path": "README.md", "reason": "unsupported language"}]
    assert data["symbols"] >= 9 and data["seconds"] >= 0
    again = json.loads(run("index", str(sample_repo), "--json").stdout)
    assert (again["parsed"], again["unchanged"]) == (0, 4)


def test_index_text_output(sample_repo: Path) -> None:
    out = run("index", str(sample_repo))
    assert out.returncode == 0
    assert "parsed 4" in out.stdout and "skipped 1" in out.stdout
    assert "unsupported language: README.md" in out.stdout


def test_search_json_shape_indexes_on_first_use(sample_repo: Path) -> None:
    out = run("search", "use", "--repo", str(sample_repo), "--json", "--limit", "3")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"query", "results"} and data["query"] == "use"
    first = data["results"][0]
    assert set(first) == SEARCH_KEYS
    assert (first["qualname"], first["kind"], first["path"]) == ("app.use", "method", "web/app.js")
    assert (first["start_line"], first["end_line"]) == (3, 9)
    assert len(data["results"]) <= 3


def test_search_filters(sample_repo: Path) -> None:
    data = json.loads(run("search", "error", "--repo", str(sample_repo), "--json", "--kind", "class").stdout)
    assert [r["qualname"] for r in data["results"]] == ["HttpError"]
    data = json.loads(run("search", "route", "--repo", str(sample_repo), "--json", "--lang", "javascript").stdout)
    assert all(r["language"] == "javascript" for r in data["results"])
    data = json.loads(run("search", "route", "--repo", str(sample_repo), "--json", "--path", "tests/*").stdout)
    assert [r["path"] for r in data["results"]] == ["tests/test_router.py"]


def test_show_prints_exact_source(sample_repo: Path) -> None:
    out = run("show", "lib/errors.py::handle_error#function", "--repo", str(sample_repo))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("def handle_error(err, response):")
    data = json.loads(run("show", "lib/errors.py::handle_error#function", "--repo", str(sample_repo), "--json").stdout)
    assert set(data) == (SEARCH_KEYS - {"score"}) | {"docstring", "source"}
    assert data["source"] == out.stdout.rstrip("\n")


def test_show_stays_exact_and_notes_secrets_on_stderr(write_repo: WriteRepo) -> None:
    from tests.test_secrets import AWS_KEY, GITHUB_TOKEN

    root = write_repo({"config.py": f'def client():\n    key = "{AWS_KEY}"\n    token = "{GITHUB_TOKEN}"\n'
                                    "    return key, token\n\n\ndef plain():\n    return 1\n"})
    for extra in ([], ["--json"]):
        out = run("show", "config.py::client#function", "--repo", str(root), *extra)
        assert out.returncode == 0, out.stderr
        assert AWS_KEY in out.stdout and GITHUB_TOKEN in out.stdout and "«redacted" not in out.stdout
        assert out.stderr == ("symscope: note: this text holds 2 likely secrets (AWS access key, GitHub token); "
                              "bundles and MCP redact them\n")
    plain = run("show", "config.py::plain#function", "--repo", str(root))
    assert plain.returncode == 0 and plain.stdout == "def plain():\n    return 1\n" and plain.stderr == ""


def test_outline_file_and_dir(sample_repo: Path) -> None:
    data = json.loads(run("outline", "lib/router.py", "--repo", str(sample_repo), "--json").stdout)
    assert [s["qualname"] for s in data["symbols"]] == ["MAX_ROUTES", "Router"]
    assert [c["name"] for c in data["symbols"][1]["children"]] == ["add_route", "dispatch"]
    data = json.loads(run("outline", "lib", "--repo", str(sample_repo), "--json").stdout)
    assert [f["path"] for f in data["files"]] == ["lib/errors.py", "lib/router.py"]


def test_stats_json(sample_repo: Path) -> None:
    data = json.loads(run("stats", "--repo", str(sample_repo), "--json").stdout)
    assert data["files"] == 4 and data["languages"]["python"]["files"] == 3
    assert data["tokens"] == sum(v["tokens"] for v in data["languages"].values())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "nope#x", "--repo", "{repo}"), "unknown symbol id"),
        (("search", "   ", "--repo", "{repo}"), "empty query"),
        (("search", "x", "--repo", "{repo}/missing"), "no such directory"),
        (("search", "x", "--repo", "{repo}/lib/errors.py"), "not a directory"),
        (("outline", "nothing/here.py", "--repo", "{repo}"), "no such path"),
        (("index", "{repo}/missing"), "no such directory"),
        (("search", "x", "--limit", "0", "--repo", "{repo}"), "--limit"),
        (("search",), "required"),
        (("search", "x", "--kind", "bogus", "--repo", "{repo}"), "invalid choice"),
    ],
)
def test_bad_input_is_one_line_without_traceback(sample_repo: Path, args: tuple[str, ...], message: str) -> None:
    out = run(*(a.format(repo=sample_repo) for a in args))
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("symscope: error:"), out.stderr
    assert message in lines[0]


def test_corrupted_index_offers_rebuild(sample_repo: Path, tmp_path: Path) -> None:
    idx = tmp_path / "corrupt"
    idx.mkdir()
    (idx / "index.sqlite").write_bytes(b"garbage" * 1000)
    out = run("search", "x", "--repo", str(sample_repo), "--index-dir", str(idx))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "rebuild" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_stale_show_is_an_error(sample_repo: Path) -> None:
    assert run("index", str(sample_repo)).returncode == 0
    path = sample_repo / "lib/errors.py"
    path.write_text("\n\n\n" + path.read_text())
    out = run("show", "lib/errors.py::handle_error#function", "--repo", str(sample_repo))
    assert out.returncode == 1 and "changed since indexing" in out.stderr


def test_rebuild_recovers_a_corrupted_index(sample_repo: Path, tmp_path: Path) -> None:
    idx = tmp_path / "corrupt"
    idx.mkdir()
    (idx / "index.sqlite").write_bytes(b"garbage" * 1000)
    out = run("index", str(sample_repo), "--index-dir", str(idx), "--rebuild", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["parsed"] == 4
    assert (idx / "index.sqlite.corrupt").read_bytes() == b"garbage" * 1000
    found = json.loads(run("search", "use", "--repo", str(sample_repo), "--index-dir", str(idx), "--json").stdout)
    assert found["results"][0]["qualname"] == "app.use"
