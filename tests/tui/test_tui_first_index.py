"""A first index as a user wants it (issue 29, point 4): the bar names each phase, and the
file tree fills in batch by batch, each committed file openable before the run finishes.

The index run is gated at chosen progress posts (it waits on an event there, in its worker
thread), so what the app shows mid-run is checked at a known point, never after a sleep."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from tui_support import RecordingApp, settle, until

from symscope.core.index import Index
from symscope.core.indexer import WRITE_BATCH
from symscope.core.models import IndexProgress, IndexReport
from symscope.tui import indexing
from symscope.tui.widgets import Outline, RepoTree, SourceView

#: Files of the generated repo: two full write batches and a part one.
FILES = 2 * WRITE_BATCH + 50


def _repo(root: Path) -> Path:
    """`FILES` small Python files in 3 folders; file i defines `fn_i`."""
    for i in range(FILES):
        folder = root / f"pkg{i % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i:03}.py").write_text(f"def fn_{i}(x):\n    return x + {i}\n")
    return root


class Gate:
    """Stops the index run at the first post that `when` accepts, until `release`."""

    def __init__(self, when: Callable[[IndexProgress], bool]) -> None:
        self.when = when
        self.reached = threading.Event()
        self.released = threading.Event()
        self.post: IndexProgress | None = None

    def check(self, p: IndexProgress) -> None:
        if not self.reached.is_set() and self.when(p):
            self.post = p
            self.reached.set()
            self.released.wait(20)

    def release(self) -> None:
        self.released.set()


@pytest.fixture
def first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Index, list[Gate]]]:
    """An index never built, whose update stops at each gate in turn (after the app heard the post)."""
    monkeypatch.setattr(indexing, "COMMIT_INTERVAL", 0.0)  # every committed batch goes up at once
    index = Index.open(_repo(tmp_path / "repo"), index_dir=tmp_path / "idx")
    gates = [
        Gate(lambda p: p.phase == "walk" and p.done == FILES),
        Gate(lambda p: bool(p.committed)),
        Gate(lambda p: p.phase == "rank" and p.done == 0),
    ]
    real_update = index.update

    def gated_update(progress: Callable[[IndexProgress], None] | None = None, **kwargs: Any) -> IndexReport:
        def gated(p: IndexProgress) -> None:
            if progress is not None:
                progress(p)
            for gate in gates:
                gate.check(p)

        return real_update(progress=gated, **kwargs)

    monkeypatch.setattr(index, "update", gated_update)
    try:
        yield index, gates
    finally:
        for gate in gates:
            gate.release()
        index.close()


def _label(app: RecordingApp) -> str:
    return str(app.query_one("#progress-label").render())


async def test_the_tree_fills_in_and_the_bar_names_each_phase(
    first: tuple[Index, list[Gate]], tmp_path: Path
) -> None:
    index, (walked, committed, ranking) = first
    app = RecordingApp(index, save_dir=tmp_path / "out")
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.query_one(RepoTree)
        assert await until(pilot, walked.reached.is_set)
        assert await until(pilot, lambda: _label(app) == f"walking… {FILES:,} files")
        assert tree.file_count == 0 and app.indexing
        walked.release()

        assert await until(pilot, committed.reached.is_set)
        assert committed.post is not None
        batch = [r.path for r in committed.post.committed]
        assert len(batch) == WRITE_BATCH  # one write batch, committed while the run goes on
        assert await until(pilot, lambda: tree.file_count == WRITE_BATCH)
        assert await until(pilot, lambda: _label(app).startswith("parsing ") and _label(app).endswith(f" / {FILES}"))
        assert app.indexing and not index.is_built
        # The tree shows the batch's folders, with totals of what is in so far.
        shown = {child.data.path: child.data.files for child in tree.root.children if child.data}
        assert sum(shown.values()) == WRITE_BATCH and set(shown) == {p.split("/")[0] for p in batch}
        # A committed file opens (source and outline) before the index is done.
        path = batch[-1]
        tree.reveal(path)
        # (revealing expands folders: on a loaded machine the cursor lands a few frames later)
        assert await until(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data is not None
                           and tree.cursor_node.data.path == path)
        await pilot.press("enter")
        assert await until(pilot, lambda: app.query_one(SourceView).path == path)
        number = path.rsplit("mod", 1)[1].removesuffix(".py").lstrip("0") or "0"
        outline = app.query_one(Outline)
        assert await until(pilot, lambda: outline.path == path and outline.root.children != [])
        assert [str(n.data.name) for n in outline.root.children if n.data] == [f"fn_{number}"]
        assert app.indexing
        committed.release()

        assert await until(pilot, ranking.reached.is_set)
        assert await until(pilot, lambda: _label(app) == "building search data…")
        assert tree.file_count == FILES  # every batch went in before the search data is built
        ranking.release()

        await settle(pilot)
        assert not app.indexing and index.is_built
        assert tree.file_count == FILES and app.query_one(SourceView).path == path  # reloaded, kept


async def test_a_batch_adds_nodes_in_place_without_a_reload(first: tuple[Index, list[Gate]], tmp_path: Path) -> None:
    """An expanded folder gains its new files in sorted order; the cursor stays on its file."""
    index, gates = first
    for gate in gates:
        gate.release()
    app = RecordingApp(index, save_dir=tmp_path / "out")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        records = index.files()
        tree = app.query_one(RepoTree)
        some = [r for r in records if r.path.startswith("pkg1/")][::2]
        tree.load(some, "repo")
        tree.reveal(some[-1].path)
        await pilot.pause()
        folder = tree.cursor_node.parent if tree.cursor_node else None
        assert folder is not None and folder.is_expanded
        nodes_before = list(folder.children)
        tree.add_files(records, "repo")
        await pilot.pause()
        names = [n.data.path for n in folder.children if n.data]
        assert names == sorted(r.path for r in records if r.path.startswith("pkg1/"))
        assert all(n in folder.children for n in nodes_before)  # the old nodes stay: no reload
        assert tree.cursor_node is not None and tree.cursor_node.data is not None
        assert tree.cursor_node.data.path == some[-1].path
        assert tree.file_count == len(records)
        assert tree.root.data is not None and tree.root.data.files == len(records)
        assert tree.root.data.tokens == sum(r.tokens for r in records)
        tree.add_files(records, "repo")  # files already shown are not added twice
        assert tree.file_count == len(records)


async def test_label_widths_are_measured_as_drawn(first: tuple[Index, list[Gate]], tmp_path: Path) -> None:
    """The tree measures every shown row after each batch: the cheap measure must equal the drawn
    label's width, for the root, open and closed folders, files, marked files and wide names."""
    index, gates = first
    for gate in gates:
        gate.release()
    wide = index.root / "pkg1" / "名前\u200b.py"
    wide.write_text("def wide(x):\n    return x\n")
    app = RecordingApp(index, save_dir=tmp_path / "out")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        tree = app.query_one(RepoTree)
        named = [r.path for r in index.files() if "名前" in r.path]
        assert len(named) == 1
        tree.reveal(named[0])
        await pilot.pause()
        assert tree.cursor_node is not None and tree.cursor_node.data is not None
        assert tree.cursor_node.data.path == named[0]
        tree._bundled = frozenset({"pkg1/mod001.py"})
        nodes = list(tree._index_nodes.values())
        assert len(nodes) > FILES // 3 and any(n.is_expanded for n in nodes) and any(not n.is_expanded for n in nodes)
        for node in nodes:
            drawn = RepoTree.render_label(tree, node, Style(), Style()).cell_len
            assert tree.get_label_width(node) == drawn, node.data


async def test_checking_an_up_to_date_index_does_not_flash_the_bar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The update on every start walks the repo: the bar stays down unless the walk lasts."""
    index = Index.open(_repo(tmp_path / "repo"), index_dir=tmp_path / "idx")
    index.update(processes=1)
    walked = Gate(lambda p: p.phase == "walk" and p.done == FILES)
    real_update = index.update

    def gated_update(progress: Callable[[IndexProgress], None] | None = None, **kwargs: Any) -> IndexReport:
        def gated(p: IndexProgress) -> None:
            if progress is not None:
                progress(p)
            walked.check(p)

        return real_update(progress=gated, **kwargs)

    monkeypatch.setattr(index, "update", gated_update)
    monkeypatch.setattr(indexing, "QUIET_WALK", 3600.0)  # a quick walk, however busy the machine
    app = RecordingApp(index, save_dir=tmp_path / "out")
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            assert await until(pilot, walked.reached.is_set)
            bar = app.query_one(indexing.IndexingBar)
            bar._poll()
            assert app.indexing and not bar.display  # a quick walk: nothing shown
            monkeypatch.setattr(indexing, "QUIET_WALK", 0.0)  # as if the walk had lasted
            bar._poll()
            assert bar.display and _label(app) == f"walking… {FILES:,} files"
            walked.release()
            await settle(pilot)
            assert not app.indexing and not bar.display
    finally:
        walked.release()
        index.close()
