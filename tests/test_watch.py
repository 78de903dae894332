"""Freshness without walking (issue 29, point 3): refresh of named paths, the file watcher, and the
MCP server that answers a file written after it started without walking the repo."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import TextContent

from symscope.core import walk as walk_module
from symscope.core.api import RepoWatcher, Workspace, watch_mode
from symscope.core.errors import SymscopeError
from symscope.mcp_server.server import build_server

#: Seconds a test waits at most for an event (they arrive in milliseconds).
EVENT_TIMEOUT = 10.0


def _write(root: Path, rel: str, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    _write(root, "pkg/alpha.py", "def alpha_total(items):\n    return sum(items)\n")
    _write(root, "pkg/beta.py", "class BetaStore:\n    def put(self, key):\n        return key\n")
    _write(root, "lib/gamma.go", "package lib\n\nfunc GammaRoute() int { return 1 }\n")
    _write(root, ".gitignore", "build/\n*.gen.py\n")
    return root


@pytest.fixture
def ws(repo: Path, tmp_path: Path) -> Iterator[Workspace]:
    with Workspace.open(repo, tmp_path / "idx", ensure=False) as w:
        w.refresh(processes=1)
        yield w


def _no_walk(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make a whole-repo walk fail the test; a walk of named paths is counted, and allowed."""
    named: list[str] = []
    real = walk_module.walk

    def walk(root: Path, *args: Any, only: list[str] | None = None, **kw: Any) -> Any:
        if only is None:
            raise AssertionError("the whole repository was walked")
        named.extend(only)
        return real(root, *args, only=only, **kw)

    monkeypatch.setattr(walk_module, "walk", walk)
    return named


# -- refresh of named paths ----------------------------------------------------------------------


def test_refresh_paths_adds_changes_and_removes_exactly_the_named_files(
        ws: Workspace, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    untouched = ws.file("lib/gamma.go")
    _write(repo, "pkg/delta.py", "def delta_rate(x):\n    return x * 2\n")
    _write(repo, "pkg/alpha.py", "def alpha_mean(items):\n    return sum(items) / len(items)\n")
    (repo / "pkg" / "beta.py").unlink()
    _write(repo, "lib/gamma.go", "package lib\n\nfunc GammaChanged() int { return 2 }\n")  # not named
    before = ws.generation()
    named = _no_walk(monkeypatch)

    report = ws.refresh(paths=["pkg/delta.py", "pkg/alpha.py", "pkg/beta.py"], processes=1)

    assert sorted(named) == ["pkg/alpha.py", "pkg/beta.py", "pkg/delta.py"]
    assert (report.parsed, report.removed, report.unchanged) == (2, 1, 0)
    assert ws.generation() > before
    assert sorted(f.path for f in ws.files()) == ["lib/gamma.go", "pkg/alpha.py", "pkg/delta.py"]
    assert ws.search("delta rate")[0].symbol.id == "pkg/delta.py::delta_rate#function"
    assert [s.name for s in ws.file_symbols("pkg/alpha.py")] == ["alpha_mean"]
    assert not ws.search("BetaStore", kind="class")
    assert ws.file("lib/gamma.go") == untouched  # a file not named is not looked at
    assert [s.name for s in ws.file_symbols("lib/gamma.go")] == ["GammaRoute"]


def test_refresh_paths_judges_new_files_as_the_walk_does_and_reports_them(
        ws: Workspace, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(repo, "pkg/made.gen.py", "def generated():\n    pass\n")
    _write(repo, "build/out.py", "def built():\n    pass\n")
    _write(repo, "node_modules/dep/index.js", "function dep() {}\n")
    _write(repo, "pkg/blob.py", b"def x():\x00\n")
    _write(repo, "pkg/huge.py", "def huge():\n    pass\n" + "# pad\n" * 400)
    _write(repo, "pkg/ok.py", "def ok_value():\n    return 1\n")
    _no_walk(monkeypatch)

    report = ws.refresh(paths=["pkg/made.gen.py", "build", "node_modules/dep/index.js", "pkg/blob.py",
                               "pkg/huge.py", "pkg/ok.py", "pkg/never-there.py"],
                        processes=1, max_file_bytes=1000)

    reasons = {s.path: s.reason for s in report.skipped}
    assert reasons["pkg/made.gen.py"] == "ignored by .gitignore"
    assert reasons["build/"] == "ignored by .gitignore"
    assert reasons["pkg/blob.py"] == "binary (NUL bytes)"
    assert reasons["pkg/huge.py"].startswith("too large")
    assert not any(p.startswith("node_modules/dep") for p in reasons)  # below a skipped folder
    assert report.parsed == 1
    assert {s.path: s.reason for s in ws.skipped()}.items() >= reasons.items()
    assert sorted(f.path for f in ws.files()) == ["lib/gamma.go", "pkg/alpha.py", "pkg/beta.py", "pkg/ok.py"]


def test_refresh_of_a_folder_and_of_a_gitignore_rechecks_what_is_under_it(
        ws: Workspace, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "pkg" / "beta.py").unlink()
    _write(repo, "pkg/sub/epsilon.py", "def epsilon_check():\n    return True\n")
    _no_walk(monkeypatch)
    report = ws.refresh(paths=["pkg"], processes=1)
    assert (report.parsed, report.removed, report.unchanged) == (1, 1, 1)
    assert sorted(f.path for f in ws.files()) == ["lib/gamma.go", "pkg/alpha.py", "pkg/sub/epsilon.py"]

    _write(repo, "pkg/.gitignore", "sub/\n")  # now its folder's rules hide sub/
    report = ws.refresh(paths=["pkg/.gitignore"], processes=1)
    assert report.removed == 1
    assert ws.file("pkg/sub/epsilon.py") is None
    assert {s.path: s.reason for s in ws.skipped()}["pkg/sub/"] == "ignored by .gitignore"


def test_refresh_paths_of_an_index_never_built_builds_it_whole(repo: Path, tmp_path: Path) -> None:
    with Workspace.open(repo, tmp_path / "fresh-idx", ensure=False) as w:
        report = w.refresh(paths=["pkg/alpha.py"], processes=1)
        assert report.files == 3 and w.is_built


def test_refresh_paths_that_change_nothing_write_nothing(ws: Workspace, repo: Path) -> None:
    before = ws.generation()
    report = ws.refresh(paths=["pkg/alpha.py", "gone.py", "pkg/.swp"], processes=1)
    assert (report.parsed, report.removed) == (0, 0)
    assert ws.generation() == before


# -- the watcher ---------------------------------------------------------------------------------


class Batches:
    """Collects the watcher's batches; `until` waits (bounded) for a path to arrive."""

    def __init__(self) -> None:
        self.paths: set[str] = set()
        self.got = threading.Condition()

    def __call__(self, paths: list[str]) -> None:
        assert paths == sorted(paths) and paths
        with self.got:
            self.paths.update(paths)
            self.got.notify_all()

    def until(self, path: str) -> bool:
        with self.got:
            return self.got.wait_for(lambda: path in self.paths, EVENT_TIMEOUT)


def test_watcher_hands_on_a_write_and_drops_ignored_paths(repo: Path, tmp_path: Path) -> None:
    batches = Batches()
    with RepoWatcher(repo, batches, tmp_path / "idx", mode="events") as watcher:
        assert watcher.start(wait=True, timeout=EVENT_TIMEOUT)
        _write(repo, "build/skip.py", "x = 1\n")
        _write(repo, ".git/objects/ab", "blob")
        _write(repo, "pkg/x.gen.py", "x = 1\n")
        _write(repo, "pkg/new.py", "def new_thing():\n    pass\n")
        assert batches.until("pkg/new.py")
        assert watcher.sync()  # every earlier change was handed on: the ignored ones were dropped
        assert not {p for p in batches.paths if p.startswith(("build/", ".git", "pkg/x.gen"))}
        assert not any("idx" in p for p in batches.paths)  # the index folder (its markers) is never reported
    assert not watcher.running


def test_sync_vouches_for_a_write_made_just_before_it(repo: Path, tmp_path: Path) -> None:
    batches = Batches()
    with RepoWatcher(repo, batches, tmp_path / "idx", mode="events") as watcher:
        assert watcher.start(wait=True, timeout=EVENT_TIMEOUT)
        for n in range(5):
            _write(repo, f"pkg/quick{n}.py", "def q():\n    pass\n")
            started = time.perf_counter()
            assert watcher.sync()
            assert time.perf_counter() - started < 1.0
            assert f"pkg/quick{n}.py" in batches.paths  # no wait beyond the sync itself


def test_polling_watcher_hands_on_a_write(repo: Path, tmp_path: Path) -> None:
    batches = Batches()
    with RepoWatcher(repo, batches, tmp_path / "idx", mode="poll", poll_ms=50) as watcher:
        assert watcher.start(wait=True, timeout=EVENT_TIMEOUT)
        assert watcher.mode == "poll" and not watcher.sync()  # polling cannot vouch: no wait
        _write(repo, "pkg/polled.py", "def polled():\n    pass\n")
        assert batches.until("pkg/polled.py")


def test_watch_mode_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SYMSCOPE_WATCH", "OFF")
    assert watch_mode() == "off"
    watcher = RepoWatcher(tmp_path, lambda paths: None, tmp_path / "idx")
    assert watcher.mode == "off" and not watcher.start(wait=True) and not watcher.running
    monkeypatch.setenv("SYMSCOPE_WATCH", "sometimes")
    assert watch_mode() == "events"


# -- the MCP server ------------------------------------------------------------------------------


async def _search(client: Client, query: str) -> str:
    result = await client.call_tool("search_symbols", {"query": query})
    text = "".join(b.text for b in result.content if isinstance(b, TextContent))
    assert not result.is_error, text
    return text


async def test_mcp_finds_a_file_written_after_it_started_without_walking(
        ws: Workspace, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = build_server(ws)
    session = server.symscope
    assert session.watch(mode="events", wait=True) is not None
    try:
        named = _no_walk(monkeypatch)
        async with Client(server) as client:
            assert "zeta_checksum" not in await _search(client, "zeta checksum")
            _write(repo, "pkg/zeta.py", "def zeta_checksum(data):\n    return hash(data)\n")
            found = await _search(client, "zeta checksum")  # at once: the call syncs with the watcher
            assert "pkg/zeta.py::zeta_checksum#function" in found
            (repo / "pkg" / "zeta.py").unlink()
            assert "zeta_checksum" not in await _search(client, "zeta checksum")
        assert session.walks == 0 and "pkg/zeta.py" in named
        assert session.sync_ms is not None and session.sync_ms < 1000
    finally:
        session.close()


async def test_mcp_reindexes_changes_in_the_background(ws: Workspace, repo: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    session = build_server(ws).symscope
    assert session.watch(mode="events", wait=True) is not None
    try:
        _no_walk(monkeypatch)
        before = ws.generation()
        _write(repo, "pkg/eta.py", "def eta_background():\n    pass\n")
        deadline = time.monotonic() + EVENT_TIMEOUT
        while ws.generation() == before and time.monotonic() < deadline:  # no call made: the thread did it
            time.sleep(0.01)
        with session.lock:
            assert ws.file("pkg/eta.py") is not None
    finally:
        session.close()


async def test_mcp_without_a_watcher_checks_the_whole_repo(ws: Workspace, repo: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYMSCOPE_WATCH", "off")
    server = build_server(ws)
    assert server.symscope.watch() is None
    async with Client(server) as client:
        _write(repo, "pkg/theta.py", "def theta_walked():\n    pass\n")
        assert "pkg/theta.py::theta_walked#function" in await _search(client, "theta walked")
    assert server.symscope.walks == 1


def test_a_bad_number_is_refused_before_any_work(ws: Workspace) -> None:
    before = ws.generation()
    with pytest.raises(SymscopeError, match="processes"):
        ws.refresh(paths=["pkg/alpha.py"], processes=0)
    assert ws.generation() == before
