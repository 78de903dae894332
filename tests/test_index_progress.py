"""Index progress for every phase of a run (issue 29, point 4): the walk, the parsing, the
search data, in that order, and each committed batch of files as soon as it is on disk."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from mcp import Client

from symscope.core import walk as walk_module
from symscope.core.index import Index
from symscope.core.indexer import WRITE_BATCH, BatchWriter
from symscope.core.models import IndexProgress
from symscope.mcp_server.server import build_server
from symscope.mcp_server.tools import Progress

#: Files of the generated repo: past one write batch, so it is committed in more than one.
FILES = 2 * WRITE_BATCH + 50


def _repo(root: Path, files: int = FILES) -> Path:
    """`files` small Python files in 5 folders; file i defines `fn_i`."""
    for i in range(files):
        folder = root / f"pkg{i % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text(f"def fn_{i}(x):\n    return x + {i}\n")
    return root


def _on_disk(index_dir: Path) -> set[str]:
    """The paths committed to the index (read by another connection, as another process would)."""
    with sqlite3.connect(index_dir / "index.sqlite") as conn:
        return {row[0] for row in conn.execute("SELECT path FROM files")}


@pytest.mark.parametrize("processes", [1, 2])
def test_a_first_index_posts_walk_then_parse_then_rank(tmp_path: Path, processes: int) -> None:
    repo = _repo(tmp_path / "repo")
    posts: list[IndexProgress] = []
    with Index.open(repo, tmp_path / "idx") as ix:
        report = ix.update(posts.append, processes=processes)
    assert report.parsed == FILES
    phases = [p.phase for p in posts]
    order = {"walk": 0, "parse": 1, "rank": 2}
    assert [order[ph] for ph in phases] == sorted(order[ph] for ph in phases)  # never back to a phase
    assert set(phases) == {"walk", "parse", "rank"}
    walks = [p for p in posts if p.phase == "walk"]
    assert walks[0].done == 0 and walks[-1].done == FILES  # from the start to every file found
    assert all(p.total == 0 for p in walks)  # the total is not known while walking
    parsed = [p.done for p in posts if p.phase == "parse"]
    assert parsed[:FILES] == list(range(1, FILES + 1))
    assert {p.total for p in posts if p.phase == "parse"} == {FILES}
    assert [(p.done, p.total) for p in posts if p.phase == "rank"] == [(0, 1), (1, 1)]


def test_an_up_to_date_index_posts_only_the_walk(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", 20)
    with Index.open(repo, tmp_path / "idx") as ix:
        ix.update(processes=1)
        posts: list[IndexProgress] = []
        ix.update(posts.append, processes=1)
    assert {p.phase for p in posts} == {"walk"} and posts[-1].done == 20


def test_each_batch_is_posted_once_it_is_committed(tmp_path: Path) -> None:
    """A face can show (and open) a file as soon as a post carries it: its rows are on disk."""
    repo = _repo(tmp_path / "repo")
    batches: list[list[str]] = []
    missing: list[str] = []

    def progress(p: IndexProgress) -> None:
        if p.committed:
            paths = [r.path for r in p.committed]
            batches.append(paths)
            missing.extend(set(paths) - _on_disk(tmp_path / "idx"))

    with Index.open(repo, tmp_path / "idx") as ix:
        ix.update(progress, processes=1)
        everything = {r.path for r in ix.files()}
        assert all(r.tokens > 0 for r in ix.files())
    assert not missing
    assert len(batches) >= 3  # batch by batch, not all at the end
    flat = [p for b in batches for p in b]
    assert len(flat) == len(set(flat)) == FILES and set(flat) == everything


def test_a_long_walk_posts_while_it_walks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Posts come every `PROGRESS_EVERY` files once `PROGRESS_SECONDS` have passed: with both at
    their smallest, every file found is a post, counting up, naming the latest file."""
    monkeypatch.setattr(walk_module, "PROGRESS_SECONDS", 0.0)
    monkeypatch.setattr(walk_module, "PROGRESS_EVERY", 1)
    repo = _repo(tmp_path / "repo", 30)
    seen: list[tuple[int, str]] = []
    found = walk_module.walk(repo, on_progress=lambda n, path: seen.append((n, path)))
    assert [n for n, _ in seen] == list(range(1, 31))
    assert [path for _, path in seen] == [f.path for f in found.files]


def test_the_walk_posts_nothing_before_its_interval(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", 200)
    seen: list[int] = []
    walk_module.walk(repo, on_progress=lambda n, _: seen.append(n))
    assert seen == []  # a walk this short is over before the first 0.2 s


def test_without_a_listener_committed_files_are_not_kept(tmp_path: Path) -> None:
    """The CLI passes no progress: a 50k-file index must not hold every record for nobody."""
    repo = _repo(tmp_path / "repo", 20)
    kept: list[BatchWriter] = []
    real_init = BatchWriter.__init__

    def spy(self: BatchWriter, *args: object, **kwargs: object) -> None:
        real_init(self, *args, **kwargs)
        kept.append(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(BatchWriter, "__init__", spy)
        with Index.open(repo, tmp_path / "idx") as ix:
            assert ix.update(processes=1).parsed == 20
    assert kept and all(not w.keep_committed and not w.committed for w in kept)


# -- the phases in MCP progress notifications ----------------------------------------------------


async def test_mcp_progress_messages_name_each_phase(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk (when it lasts: here every post is let through), the parsing and, with the last
    file, the search data; the numbers only ever increase, as the protocol requires."""
    monkeypatch.setattr(Progress, "WALK_SECONDS", 0.0)
    repo = _repo(tmp_path / "repo")
    events: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        events.append((progress, total, message))

    with Index.open(repo, tmp_path / "idx") as index:
        async with Client(build_server(index)) as client:
            result = await client.call_tool("search_symbols", {"query": "fn_7"}, progress_callback=on_progress)
            arrived = list(events)
    assert not result.is_error
    numbers = [p for p, _, _ in arrived]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    walks = [(p, t, m) for p, t, m in arrived if p < 1]
    assert walks and all(t is None for _, t, _ in walks)  # no total while walking
    assert walks[-1][2] == f"walking the repository: {FILES:,} files found"
    parses = arrived[len(walks):]
    assert all(m is not None and m.startswith("parsing: pkg") for _, _, m in parses[:-1])
    assert parses[-1] == (FILES, FILES, f"parsed {FILES:,} files; building the search data")
