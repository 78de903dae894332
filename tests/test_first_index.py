"""The first index as a user would want it (issue 29, points 4 and 5).

Work is committed in batches, so an index interrupted half-way (cancelled, an exception, a
worker or the whole process killed) resumes and parses only the rest; MCP clients that ask
for progress get it during the first call's index; every "in X s" is the whole job's time.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import TextContent

from symscope.cli.main import main
from symscope.core.index import Index
from symscope.core.models import IndexProgress, IndexReport
from symscope.mcp_server.server import build_server

#: Files of the generated repo: a few hundred small ones, past one write batch (200).
FILES = 500
HALF = FILES // 2


def _repo(root: Path, files: int = FILES) -> Path:
    """`files` small Python files in 10 folders; file i defines `fn_i_0` .. `fn_i_3`."""
    for i in range(files):
        folder = root / f"pkg{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text(
            f'"""Module {i}."""\n\n'
            + "".join(f"def fn_{i}_{j}(x):\n    return helper_{j}(x) + {i * 10 + j}\n\n" for j in range(4)))
    return root


def _stored(index_dir: Path) -> set[str]:
    """The paths committed to the index on disk (read by a separate connection)."""
    with sqlite3.connect(index_dir / "index.sqlite") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {row[0] for row in conn.execute("SELECT path FROM files")}


def _finds(ix: Index, *paths: str) -> None:
    """Every file is indexed once, and a search finds a symbol of each of `paths`."""
    assert len(ix.files()) == FILES
    for path in paths:
        number = re.search(r"mod(\d+)\.py", path)
        assert number is not None
        name = f"fn_{number.group(1)}_2"
        assert ix.search(name, limit=1)[0].symbol.path == path


def _finds_both_halves(ix: Index, committed: set[str]) -> None:
    """A search finds a file of the interrupted run and one of the run that finished it."""
    _finds(ix, sorted(committed)[0], sorted({f.path for f in ix.files()} - committed)[0])


def _cancel_at(n: int) -> tuple[Callable[[IndexProgress], None], Callable[[], bool]]:
    done: list[int] = []

    def progress(p: IndexProgress) -> None:
        if p.phase == "parse":
            done.append(p.done)

    return progress, lambda: bool(done) and done[-1] >= n


# -- resuming ------------------------------------------------------------------------------------


@pytest.mark.parametrize("processes", [1, 2])
def test_a_first_index_cancelled_half_way_resumes_with_the_rest(tmp_path: Path, processes: int) -> None:
    repo = _repo(tmp_path / "repo")
    with Index.open(repo, tmp_path / "idx") as ix:
        progress, cancelled = _cancel_at(HALF)
        first = ix.update(progress, cancelled, processes=processes)
        assert first.cancelled and HALF <= first.parsed < FILES
        committed = _stored(tmp_path / "idx")
        assert len(committed) == first.parsed  # every parsed file was committed
        again = ix.update(processes=processes)
        assert not again.cancelled
        assert (again.parsed, again.unchanged) == (FILES - len(committed), len(committed))
        _finds_both_halves(ix, committed)
        assert ix.is_built


def test_an_exception_half_way_keeps_what_was_parsed(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")

    def fails(p: IndexProgress) -> None:
        if p.phase == "parse" and p.done == HALF:
            raise RuntimeError("the caller's progress display broke")

    with Index.open(repo, tmp_path / "idx") as ix:
        with pytest.raises(RuntimeError):
            ix.update(fails, processes=1)
        committed = _stored(tmp_path / "idx")
        assert len(committed) == HALF  # the batch in hand was written too, not only full ones
        again = ix.update(processes=1)
        assert (again.parsed, again.unchanged) == (FILES - HALF, HALF)
        _finds_both_halves(ix, committed)


def test_a_parser_worker_killed_half_way_loses_nothing(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    killed: list[int] = []

    def kill_a_worker(p: IndexProgress) -> None:
        if p.phase == "parse" and p.done >= 64 and not killed:  # after the first batch: the pool is busy with the rest
            worker = multiprocessing.active_children()[0]
            assert worker.pid is not None
            os.kill(worker.pid, signal.SIGKILL)
            killed.append(worker.pid)

    with Index.open(repo, tmp_path / "idx") as ix:
        report = ix.update(kill_a_worker, processes=2)
        assert killed and not report.cancelled
        assert (report.parsed, report.files) == (FILES, FILES)  # the rest parsed in this process
        again = ix.update(processes=2)
        assert (again.parsed, again.unchanged) == (0, FILES)
        _finds(ix, "pkg0/mod0.py", f"pkg9/mod{FILES - 1}.py")


KILLER = textwrap.dedent("""
    import os, signal, sys
    from symscope.core.index import Index

    def progress(p):
        if p.phase == "parse" and p.done == int(sys.argv[3]):
            os.kill(os.getpid(), signal.SIGKILL)

    with Index.open(sys.argv[1], sys.argv[2]) as ix:
        ix.update(progress, processes=2)
    """)


def test_an_index_process_killed_half_way_resumes_with_the_rest(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    run = subprocess.run([sys.executable, "-c", KILLER, str(repo), str(tmp_path / "idx"), str(HALF + 50)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == -signal.SIGKILL, run.stderr
    committed = _stored(tmp_path / "idx")
    assert 0 < len(committed) <= HALF + 50  # the batches written before the kill
    with Index.open(repo, tmp_path / "idx") as ix:
        assert not ix.is_built
        again = ix.update(processes=1)
        assert (again.parsed, again.unchanged) == (FILES - len(committed), len(committed))
        _finds_both_halves(ix, committed)
        assert ix.is_built


def test_a_rebuild_for_new_settings_cancelled_half_way_resumes_with_the_rest(tmp_path: Path) -> None:
    """Files not yet re-parsed under the new extractor are parsed by the next run, and only those."""
    repo = _repo(tmp_path / "repo")
    with Index.open(repo, tmp_path / "idx") as ix:
        ix.update(processes=1)
        with ix.store.transaction() as conn:
            conn.execute("UPDATE meta SET value='old' WHERE key='fingerprint'")
        progress, cancelled = _cancel_at(HALF)
        first = ix.update(progress, cancelled, processes=1)
        assert first.cancelled and first.parsed == HALF
        assert not ix.is_built
        again = ix.update(processes=1)
        assert (again.parsed, again.unchanged) == (FILES - HALF, HALF)
        assert ix.is_built
        third = ix.update(processes=1)
        assert (third.parsed, third.unchanged) == (0, FILES)
        assert len(ix.files()) == FILES


# -- MCP progress during the first call's index -------------------------------------------------

#: Every tool that answers from the index, so refreshes (and first builds) it, with a valid call.
FIRST_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_symbols", {"query": "fn_7_2"}),
    ("get_symbols", {"ids": ["pkg7/mod7.py::fn_7_2#function"]}),
    ("get_outline", {"path": "pkg7/mod7.py"}),
    ("find_dependencies", {"id": "pkg7/mod7.py::fn_7_2#function"}),
    ("find_references", {"id": "pkg7/mod7.py::fn_7_2#function"}),
    ("build_bundle", {"ids": ["pkg7/mod7.py::fn_7_2#function"], "budget": 500}),
    ("index_status", {}),
]


@pytest.mark.parametrize(("tool", "arguments"), FIRST_CALLS, ids=[t for t, _ in FIRST_CALLS])
async def test_the_first_call_reports_progress_while_it_indexes(
    tmp_path: Path, tool: str, arguments: dict[str, Any]
) -> None:
    repo = _repo(tmp_path / "repo", 300)
    events: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        events.append((progress, total))

    with Index.open(repo, tmp_path / "idx") as index:
        assert not index.is_built
        async with Client(build_server(index)) as client:
            result = await client.call_tool(tool, arguments, progress_callback=on_progress)
            arrived = list(events)  # what had arrived when the answer did
        text = "".join(b.text for b in result.content if isinstance(b, TextContent))
        assert not result.is_error, text
        assert index.is_built
    assert len(arrived) >= 2, arrived
    done = [p for p, _ in arrived]
    assert done == sorted(done) and len(set(done)) == len(done)  # increasing
    assert {t for _, t in arrived} == {300}  # with the total: every file of the repo
    assert done[-1] == 300


async def test_a_first_call_cancelled_half_way_is_resumed_by_the_retry(tmp_path: Path) -> None:
    """A client that gives up on the first call (its timeout) and retries: the retry parses the rest."""
    repo = _repo(tmp_path / "repo")
    reports: list[IndexReport] = []
    half = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if progress >= HALF:
            half.set()

    with Index.open(repo, tmp_path / "idx") as index:
        server = build_server(index)
        real_refresh = server.symscope.ws.refresh

        def refresh(*args: Any, **kwargs: Any) -> IndexReport:
            reports.append(real_refresh(*args, **kwargs))
            return reports[-1]

        server.symscope.ws.refresh = refresh  # type: ignore[method-assign]
        async with Client(server) as client:
            async with anyio.create_task_group() as tg:
                async def first() -> None:
                    await client.call_tool("search_symbols", {"query": "fn_7_2"}, progress_callback=on_progress)

                tg.start_soon(first)
                with anyio.fail_after(60):
                    await half.wait()
                tg.cancel_scope.cancel()  # the client sends notifications/cancelled
            with anyio.fail_after(30):  # the cancelled call's work stops
                while not reports:
                    await anyio.sleep(0.05)
            assert reports[0].cancelled
            committed = _stored(tmp_path / "idx")
            assert HALF <= len(committed) < FILES
            retry = await client.call_tool("search_symbols", {"query": "fn_7_2"})
        assert not retry.is_error and "fn_7_2" in "".join(
            b.text for b in retry.content if isinstance(b, TextContent))
        assert (reports[1].parsed, reports[1].unchanged) == (FILES - len(committed), len(committed))
        _finds_both_halves(index, committed)


async def test_a_call_on_an_indexed_repo_sends_no_progress(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", 60)
    events: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        events.append(progress)

    with Index.open(repo, tmp_path / "idx") as index:
        index.update(processes=1)
        async with Client(build_server(index)) as client:
            result = await client.call_tool("search_symbols", {"query": "fn_7_2"}, progress_callback=on_progress)
            await anyio.sleep(0.1)
    assert not result.is_error and events == []


# -- "in X s" is the whole job -----------------------------------------------------------------


def _phases(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    """Record when the walk starts and when the term index is written (made observable by a pause)."""
    from symscope.core import walk
    from symscope.core.search.termindex import TermIndex

    marks: dict[str, float] = {}
    real_walk, real_sync = walk.walk, TermIndex.sync

    def timed_walk(*args: Any, **kwargs: Any) -> Any:
        marks.setdefault("walk", time.perf_counter())
        return real_walk(*args, **kwargs)

    def timed_build(*args: Any, **kwargs: Any) -> Any:
        marks["rank_start"] = time.perf_counter()
        data = real_sync(*args, **kwargs)
        time.sleep(0.3)  # a search index write that takes long, as it does on a big repo
        marks["rank_end"] = time.perf_counter()
        return data

    monkeypatch.setattr(walk, "walk", timed_walk)
    monkeypatch.setattr(TermIndex, "sync", timed_build)  # the searcher's sync is its term index's
    return marks


def test_the_engine_reports_the_whole_jobs_seconds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path / "repo", 60)
    marks = _phases(monkeypatch)
    with Index.open(repo, tmp_path / "idx") as ix:
        report = ix.update(processes=1)
    assert report.seconds >= marks["rank_end"] - marks["walk"]
    assert marks["walk"] < marks["rank_start"]


@pytest.mark.parametrize("as_json", [False, True])
def test_the_cli_prints_the_whole_jobs_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    repo = _repo(tmp_path / "repo", 60)
    marks = _phases(monkeypatch)
    assert main(["index", str(repo), *(["--json"] if as_json else [])]) == 0
    printed = capsys.readouterr().out
    if as_json:
        seconds, rounding = float(json.loads(printed)["seconds"]), 0.0005
    else:
        found = re.search(r"in (\d+\.\d+)s", printed)
        assert found is not None, printed
        seconds, rounding = float(found.group(1)), 0.005
    assert seconds + rounding >= marks["rank_end"] - marks["walk"]
